"""Move-generation speed: perft per variant, the deeper published rows, and a side-by-side
comparison with pydraughts and py-draughts 1.10.1 in one run. Prints JSON lines.

    python -m bench.perft [--max-nodes N] [--no-compare] [--compare-depth D]

Both libraries install a module named ``draughts``, so each lives in its own throwaway
venv under /tmp (created on first use with pip, never in the project venv) and is timed
in a subprocess. The comparison runs two ways:

* perft on the international start position (the issue's target: >= 100x pydraughts at
  depth 5), every library through its public board API (legal moves, make, unmake);
  py-draughts' own bitboard ``turbo.perft`` is reported too;
* py-draughts' own benchmark (its ``tools/compare_pydraughts.py``): median microseconds
  of board init, FEN parse, legal moves and make move over the same six positions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

from rules import Position, find_variant
from rules.perft import perft
from rules.variants import VARIANTS
from tests.perft_tables import load_dctl

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

LIBRARIES = {
    "pydraughts": ("/tmp/venv-pydraughts", "pydraughts"),
    "py-draughts 1.10.1": ("/tmp/venv-py-draughts-1.10.1", "py-draughts==1.10.1"),
}

# py-draughts' benchmark positions (tools/compare_pydraughts.py); None is the start.
BENCH_POSITIONS: list[str | None] = [
    None,
    "W:W27,28,32,33,37,38,42,43,47,48:B3,4,8,9,13,14,18,19,23,24",
    "B:W24,28,29,30,33,34,38,39,44,45,49,50:B1,2,6,7,8,12,13,17,18,22,23,27",
    "W:WK10,K20:BK30,K40",
    "W:WK10:B14,15,24,25",
    "W:W28,33,34,38,39,43,44,48,49,50:B5,6,7,8,9,10,14,15,19,20",
]
ITERATIONS = 1000

# The same measurements for a competitor, run inside its own venv.
COMPETITOR = r"""
import json, sys, time
from statistics import median
from typing import Any

lib, depth, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
positions = json.loads(sys.argv[4])
if lib == "pydraughts":
    from draughts import Board

    def new(fen=None):
        return Board(variant="standard", fen=fen or "startpos")

    def moves(board):
        return board.legal_moves()
else:
    from draughts import StandardBoard as Board

    def new(fen=None):
        return Board.from_fen(fen) if fen else Board()

    def moves(board):
        return list(board.legal_moves)


def perft(board, d):
    ms = moves(board)
    if d == 1:
        return len(ms)
    total = 0
    for m in ms:
        board.push(m)
        total += perft(board, d - 1)
        board.pop()
    return total


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e6


out = {"library": lib}
start = time.perf_counter()
out["perft_nodes"] = perft(new(), depth)
out["perft_seconds"] = time.perf_counter() - start
if lib != "pydraughts":
    from draughts.engines.turbo import perft_from_board

    start = time.perf_counter()
    out["turbo_perft_nodes"] = perft_from_board(new(), depth)
    out["turbo_perft_seconds"] = time.perf_counter() - start
per = iterations // len(positions)
out["board_init_us"] = median(timed(new) for _ in range(iterations))
out["fen_parse_us"] = median(
    timed(lambda: new(fen)) for fen in positions[1:] for _ in range(per)
)
legal = []
for fen in positions:
    board = new(fen)
    legal += [timed(lambda: moves(board)) for _ in range(per)]
out["legal_moves_us"] = median(legal)
make = []
for _ in range(iterations):
    board = new()
    first = moves(board)[0]
    make.append(timed(lambda: board.push(first)))
out["make_move_us"] = median(make)
print(json.dumps(out))
"""


def emit(record: dict[str, object]) -> None:
    print(json.dumps(record), flush=True)


def timed_us(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e6


def variant_speed(max_seconds: float = 1.0) -> None:
    """Perft nodes per second from each variant's start, deepening while it is quick."""
    for variant in VARIANTS.values():
        if variant.towers:
            continue  # tower move generation lives in rules/columns.py (its own bench)
        start = Position.initial(variant)
        depth = 1
        while True:
            began = time.perf_counter()
            nodes = perft(start, depth)
            seconds = time.perf_counter() - began
            if seconds > max_seconds / 4 or depth == 12:
                break
            depth += 1
        emit(
            {
                "bench": "perft_speed",
                "variant": variant.name,
                "depth": depth,
                "nodes": nodes,
                "seconds": round(seconds, 4),
                "nodes_per_s": round(nodes / seconds),
            }
        )


def table_rows(max_nodes: int) -> None:
    """The published rows beyond the tests' 60,000-node budget, up to ``max_nodes``."""
    if not SHARED_DATA.is_dir():
        emit({"bench": "perft_table", "skipped": f"no data at {SHARED_DATA}"})
        return
    for row in load_dctl(SHARED_DATA):
        if not 60_000 < row.nodes <= max_nodes:
            continue
        variant = find_variant(row.variant)
        start = Position.from_fen(variant, row.fen) if row.fen else Position.initial(variant)
        began = time.perf_counter()
        nodes = perft(start, row.depth, keep_duplicates=row.keep_duplicates)
        seconds = time.perf_counter() - began
        emit(
            {
                "bench": "perft_table",
                "variant": row.variant,
                "test": row.test,
                "duplicates": "keep" if row.keep_duplicates else "merge",
                "depth": row.depth,
                "expected": row.nodes,
                "nodes": nodes,
                "ok": nodes == row.nodes,
                "nodes_per_s": round(nodes / seconds),
            }
        )


def damcam_measurements(depth: int) -> dict[str, Any]:
    """damcam measured exactly like the competitors (see ``COMPETITOR``)."""
    v = find_variant("international")
    out: dict[str, Any] = {"library": "damcam"}
    began = time.perf_counter()
    out["perft_nodes"] = perft(Position.initial(v), depth)
    out["perft_seconds"] = time.perf_counter() - began
    per = ITERATIONS // len(BENCH_POSITIONS)
    out["board_init_us"] = median(timed_us(lambda: Position.initial(v)) for _ in range(ITERATIONS))
    out["fen_parse_us"] = median(
        timed_us(lambda fen=fen: Position.from_fen(v, fen))  # type: ignore[misc]
        for fen in BENCH_POSITIONS[1:]
        if fen
        for _ in range(per)
    )
    legal = []
    for fen in BENCH_POSITIONS:
        position = Position.from_fen(v, fen) if fen else Position.initial(v)
        legal += [timed_us(position.legal_moves) for _ in range(per)]
    out["legal_moves_us"] = median(legal)
    make = []
    for _ in range(ITERATIONS):
        position = Position.initial(v)
        first = position.legal_moves()[0]
        make.append(timed_us(lambda p=position, m=first: p.play(m)))  # type: ignore[misc]
    out["make_move_us"] = median(make)
    return out


def ensure_venv(path: str, requirement: str) -> Path:
    """A throwaway venv holding one library (created with pip on first use)."""
    python = Path(path) / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", path], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", requirement],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return python


def compare(depth: int) -> None:
    results = [damcam_measurements(depth)]
    for name, (path, requirement) in LIBRARIES.items():
        try:
            python = ensure_venv(path, requirement)
            lib = "pydraughts" if name == "pydraughts" else "py-draughts"
            done = subprocess.run(
                [
                    str(python),
                    "-c",
                    COMPETITOR,
                    lib,
                    str(depth),
                    str(ITERATIONS),
                    json.dumps(BENCH_POSITIONS),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            emit({"bench": "compare", "library": name, "error": str(exc)[:300]})
            continue
        record = json.loads(done.stdout)
        record["library"] = name
        results.append(record)
    for record in results:
        record["perft_nodes_per_s"] = round(
            int(record["perft_nodes"]) / float(record["perft_seconds"])
        )
        emit({"bench": "compare", "variant": "international", "perft_depth": depth, **record})
    ours = results[0]
    keys = ("perft_seconds", "board_init_us", "fen_parse_us", "legal_moves_us", "make_move_us")
    for other in results[1:]:
        ratios = {key: round(float(other[key]) / float(ours[key]), 2) for key in keys}
        if "turbo_perft_seconds" in other:
            turbo = float(other["turbo_perft_seconds"]) / float(ours["perft_seconds"])
            ratios["perft_seconds_vs_turbo"] = round(turbo, 2)
        emit({"bench": "speedup", "damcam_vs": other["library"], "times_faster": ratios})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=1_000_000)
    parser.add_argument("--compare-depth", type=int, default=5)
    parser.add_argument("--no-compare", action="store_true")
    args = parser.parse_args()
    variant_speed()
    table_rows(args.max_nodes)
    if not args.no_compare:
        compare(args.compare_depth)


if __name__ == "__main__":
    main()

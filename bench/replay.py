"""Replay every real game in ../shared/data/games and time it. Prints JSON lines.

    python -m bench.replay [--limit N]

The tests replay samples (tests/test_replay.py, tests/test_pdn.py); this replays all:
the FMJD PDN test files, the 9,377 ACF English games, the 13,529 international
self-play games, and the Russian and ballot opening positions.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import zipfile
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

from rules import Position, RulesError, find_variant
from rules.game import Game
from rules.notation import Transcript, parse_joyce_line
from rules.pdn import iter_games
from rules.variants import ENGLISH, INTERNATIONAL, Variant

GAMES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "games"


def emit(record: dict[str, object]) -> None:
    print(json.dumps(record), flush=True)


def pdn_files(limit: int | None) -> None:
    for kind in ("succeed", "fail"):
        began = time.perf_counter()
        games = rejected = plies = 0
        rejected_files = set()
        for path in sorted((GAMES / "pdn-fmjd-testgames" / "games" / kind).glob("*.pdn")):
            with path.open(encoding="utf-8") as handle:
                for game in islice(iter_games(handle), limit):
                    games += 1
                    plies += game.ply
                    if game.errors:
                        rejected += 1
                        rejected_files.add(path.name)
        seconds = time.perf_counter() - began
        emit(
            {
                "bench": "replay",
                "data": f"pdn-fmjd-testgames/{kind}",
                "games": games,
                "rejected_games": rejected,
                "rejected_files": len(rejected_files),
                "plies": plies,
                "seconds": round(seconds, 2),
                "plies_per_s": round(plies / seconds),
            }
        )


def transcripts(name: str, variant: Variant, lines: Iterable[str], limit: int | None) -> None:
    began = time.perf_counter()
    games = failed = plies = 0
    first_failure = ""
    parsed: Iterator[Transcript | None] = (parse_joyce_line(variant, line) for line in lines)
    for transcript in islice((t for t in parsed if t is not None), limit):
        games += 1
        try:
            plies += Game.from_moves(variant, transcript.moves).ply
        except RulesError as exc:
            failed += 1
            first_failure = first_failure or f"game {games}: {exc}"
    seconds = time.perf_counter() - began
    emit(
        {
            "bench": "replay",
            "data": name,
            "games": games,
            "failed": failed,
            "first_failure": first_failure,
            "plies": plies,
            "seconds": round(seconds, 2),
            "plies_per_s": round(plies / seconds),
        }
    )


def openings() -> None:
    began = time.perf_counter()
    russian = find_variant("russian")
    folder = GAMES / "russian-openings" / "initial_positions" / "russian" / "fen"
    fens = [(russian, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.fen"))]
    for path in sorted((GAMES / "ballots").glob("*.json")):
        variant = find_variant(path.name.split(".")[0].split("_")[-1].replace("move", ""))
        fens += [
            (variant, fen) for fen in json.loads(path.read_text(encoding="utf-8"))["all"].values()
        ]
    bad = [
        f"{v.name} {fen}"
        for v, fen in fens
        if not (p := Position.from_fen(v, fen)).is_valid() or not p.legal_moves()
    ]
    emit(
        {
            "bench": "replay",
            "data": "russian-openings + ballots (FEN)",
            "positions": len(fens),
            "bad": len(bad),
            "seconds": round(time.perf_counter() - began, 2),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="Games per file at most.")
    args = parser.parse_args()
    if not GAMES.is_dir():
        emit({"bench": "replay", "skipped": f"no data at {GAMES}"})
        return
    pdn_files(args.limit)
    with (GAMES / "english-acf" / "ACF.txt").open(encoding="utf-8") as handle:
        transcripts("english-acf", ENGLISH, handle, args.limit)
    with zipfile.ZipFile(GAMES / "international-selfplay" / "tdl.zip") as archive:
        (name,) = archive.namelist()
        with io.TextIOWrapper(archive.open(name), encoding="utf-8") as handle:
            transcripts("international-selfplay", INTERNATIONAL, handle, args.limit)
    openings()


if __name__ == "__main__":
    main()

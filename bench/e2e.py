"""End to end: is the recorded game exactly the game played? (``python -m bench.e2e``)

Plays real and generated games (:mod:`bench.e2e_games`) frame by frame
(:mod:`bench.e2e_script`) through ``damcam record``'s pipeline (:mod:`bench.e2e_run`),
clean and with injected irregularities, and prints one JSON line per game, then the
summaries per variant and condition. ``--doc`` writes the markdown table.

Two chains, named in each line's ``chain`` field. ``truth-readings``: frames read from
the script's truth, on the full set (at least 100 games): settling, inference, journal
and scoresheet, without the camera. ``rendered``: frames drawn by synth's renderer and
read by vision (:mod:`bench.e2e_render`), on a small set, since rendering on a CPU runs
at about ten frames a second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.e2e_games import PlayedGame, select_games
from bench.e2e_measure import (
    CHAIN_RENDERED,
    CHAIN_TRUTH,
    Summary,
    injection_points,
    measure_game,
    summarise,
)
from bench.e2e_script import CONDITIONS, Injection

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def vision_status() -> str:
    """Why the rendered chain cannot run here (empty when it can)."""
    try:
        import bench.e2e_render  # noqa: F401  (synth's renderer and vision's Observer)
    except ImportError as exc:
        return f"no renderer or vision stage: {exc}"
    return ""


def run(
    data: Path | None,
    *,
    per_variant: int,
    plies: int,
    conditions: Sequence[str],
    injections: bool,
    seed: int = 0,
    chain: str = CHAIN_TRUTH,
) -> tuple[list[dict[str, Any]], Summary]:
    """Every game under every condition (and the injected set under the first)."""
    games = select_games(data, per_variant=per_variant, plies=10_000, seed=seed)
    lines: list[dict[str, Any]] = []

    def measure(game: PlayedGame, condition: str, number: int, inj: Injection | None) -> None:
        line = measure_game(game, CONDITIONS[condition], seed + number, inj, chain=chain)
        lines.append(line)
        print(json.dumps(line), flush=True)

    for number, game in enumerate(games):
        for name in conditions:
            measure(game.truncated(plies), name, number, None)
        if injections:
            for cut, injection in injection_points(game):
                if len(cut.moves) <= 2 * plies:
                    measure(cut, conditions[0], number, injection)
    return lines, summarise(lines)


def markdown(summary: Summary, note: str) -> str:
    """The tables for docs/e2e.md, with the date, the commit and the chain measured."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [
        "# End to end: the recorded game against the game played",
        "",
        f"Run `python -m bench.e2e --doc docs/e2e.md` on {when}, commit `{commit or 'unknown'}`.",
        "",
        f"**Chain measured:** {note}",
        "",
        "| chain | variant | condition | games | exact | move accuracy | flags on clean games "
        "| latency median / p95 (ms) | frames/s (recording / vision) | lost at |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in summary.games:
        lost = ", ".join(f"{k} {v}" for k, v in g["lost_stages"].items()) or "-"
        out.append(
            f"| {g['chain']} | {g['variant']} | {g['condition']} | {g['games']} | {g['exact']} "
            f"| {g['move_accuracy']} | {g['clean_flags']} "
            f"| {g['latency_ms_median']} / {g['latency_ms_p95']} "
            f"| {g['fps']} / {g['vision_fps'] or '-'} | {lost} |"
        )
    out += [
        "",
        "Injected irregularities (edited boards, flagged at the right ply counts as detected):",
        "",
        "| kind | condition | injected | detected | rate | false alarms | variants |",
        "|---|---|---|---|---|---|---|",
    ]
    for i in summary.injections:
        out.append(
            f"| {i['kind']} | {i['condition']} | {i['injected']} | {i['detected']} "
            f"| {i['detection_rate']} | {i['false_alarms']} | {', '.join(i['variants'])} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared data folder")
    parser.add_argument("--games-per-variant", type=int, default=10)
    parser.add_argument("--plies", type=int, default=40, help="cut longer games to this")
    parser.add_argument("--rendered-games-per-variant", type=int, default=1)
    parser.add_argument("--rendered-plies", type=int, default=10)
    parser.add_argument("--conditions", default="default,hard")
    parser.add_argument("--no-injections", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--doc", type=Path, help="write the markdown tables here")
    args = parser.parse_args(argv)
    conditions = [c for c in args.conditions.split(",") if c]
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        parser.error(f"unknown condition(s) {unknown}; known: {sorted(CONDITIONS)}")
    data = args.data if args.data.is_dir() else None
    why = vision_status()
    print(json.dumps({"rendered_chain": not why, "why_not": why}))
    lines, _ = run(
        data,
        per_variant=args.games_per_variant,
        plies=args.plies,
        conditions=conditions,
        injections=not args.no_injections,
        seed=args.seed,
    )
    if not why and args.rendered_games_per_variant > 0:
        rendered, _ = run(
            data,
            per_variant=args.rendered_games_per_variant,
            plies=args.rendered_plies,
            conditions=conditions,
            injections=False,
            seed=args.seed,
            chain=CHAIN_RENDERED,
        )
        lines += rendered
    summary = summarise(lines)
    for line in summary.games + summary.injections:
        print(json.dumps(line))
    if args.doc:
        args.doc.write_text(markdown(summary, chain_note(why)), encoding="utf-8")
    return 0


def chain_note(why: str) -> str:
    truth = (
        "`truth-readings`: frames read from the render truth (settling, inference, the "
        "journal and the scoresheet are real; localisation and classification are not "
        "measured and the camera conditions do not apply: the hard condition adds hands)."
    )
    if why:
        return f"{truth} The rendered chain did not run: {why}."
    return (
        f"{truth} `rendered`: every frame drawn by synth's OpenGL renderer and read by "
        "vision's Observer (ArUco markers, colour-prototype classifier learned from the "
        "start position), on a smaller set because rendering is slow on CPU."
    )


if __name__ == "__main__":
    sys.exit(main())

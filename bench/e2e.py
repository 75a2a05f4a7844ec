"""End to end: is the recorded game exactly the game played? (``python -m bench.e2e``)

Plays real and generated games (:mod:`bench.e2e_games`) and prints one JSON line per
game, then the summaries; ``--doc`` writes the markdown tables (``--from-lines`` rebuilds
them from a saved run's lines).

Two chains, named in each line's ``chain`` field:

``rendered`` (the claim): every game is rendered by synth into an H.264 video (hand,
carried piece, captured pieces taken off one by one, late crowning, camera sway; random
board and piece styles; see :mod:`bench.e2e_video`) and recorded as ``damcam record`` does
(:mod:`bench.e2e_chain`): the wiring's vision and classifier, the recorder, the journal,
the PDN scoresheet, compared move by move. A lost game gets its stage by substitution on
the same frames. Injected irregularities are rendered as real actions.

``truth-readings``: the same games' boards read from the truth (no camera): settling,
inference, journal and scoresheet on many more games, cheaply.
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.e2e_chain import READERS, STAGES
from bench.e2e_games import PlayedGame, select_games
from bench.e2e_measure import (
    CHAIN_RENDERED,
    CHAIN_TRUTH,
    Summary,
    injection_points,
    measure_game,
    measure_rendered,
    summarise,
)
from bench.e2e_script import CONDITIONS, Condition, Injection

log = logging.getLogger(__name__)

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

Measure = Callable[[PlayedGame, Condition, int, Injection | None], dict[str, Any]]


def interleaved(games: Sequence[PlayedGame]) -> list[PlayedGame]:
    """The first game of every variant, then the second of every variant...: a run cut
    short still covers every variant."""
    rank: dict[str, int] = {}
    keyed = []
    for k, game in enumerate(games):
        rank[game.variant] = rank.get(game.variant, -1) + 1
        keyed.append((rank[game.variant], k, game))
    return [game for _, _, game in sorted(keyed, key=lambda t: (t[0], t[1]))]


def run_chain(
    games: Sequence[PlayedGame],
    measure: Measure,
    *,
    conditions: Sequence[str],
    plies: int,
    injections_per_variant: int,
    seed: int,
    emit: Callable[[dict[str, Any]], None],
    shard: tuple[int, int] = (0, 1),
) -> None:
    """Every game, cut to ``plies``, under every condition; the first
    ``injections_per_variant`` games of each variant also with each irregularity
    injected (under the first condition, the game cut where it is, within twice
    ``plies``). Games run round-robin over the variants. ``shard`` (k, n): only the games
    whose number is k modulo n, with the seeds and injections they have in the whole run,
    so that n processes together make the same lines as one."""
    injected: dict[str, int] = {}
    part, parts = shard

    def one(game: PlayedGame, condition: str, number: int, injection: Injection | None) -> None:
        try:
            emit(measure(game, CONDITIONS[condition], seed + number, injection))
        except Exception as exc:  # one broken game must not end the run; it is reported
            log.exception("%s %s failed", game.variant, game.source)
            emit({"failed": f"{type(exc).__name__}: {exc}", "game": game.source,
                  "variant": game.variant, "condition": condition})  # fmt: skip

    for number, game in enumerate(interleaved(games)):
        inject = injected.get(game.variant, 0) < injections_per_variant
        if inject:
            injected[game.variant] = injected.get(game.variant, 0) + 1
        if number % parts != part:
            continue
        for name in conditions:
            one(game.truncated(plies), name, number, None)
        if not inject:
            continue
        for cut, injection in injection_points(game.truncated(2 * plies)):
            one(cut, conditions[0], number, injection)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join("-" if v is None else str(v) for v in row) + " |" for row in rows]
    return out


def markdown(summary: Summary, lines: Sequence[dict[str, Any]], note: str) -> str:
    """The tables for docs/e2e.md, with the date, the commit and what was measured."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [
        "## Last run",
        "",
        f"`python -m bench.e2e` on {when}, commit `{commit or 'unknown'}`. {note}",
        "",
    ]
    for chain, title in (
        (CHAIN_RENDERED, "Rendered videos recorded by `damcam record`'s chain"),
        (CHAIN_TRUTH, "Boards read from the truth (settling, inference, journal, scoresheet)"),
    ):
        rows = [g for g in summary.games if g["chain"] == chain]
        if not rows:
            continue
        out += [f"### {title}", ""]
        out += _table(
            (
                "variant", "condition", "games", "exact", "move accuracy",
                "flags on clean games (left open)", "latency median / p95 (ms)",
                "frames/s wall / CPU", "lost at",
            ),
            [
                (
                    g["variant"], g["condition"], g["games"], g["exact"], g["move_accuracy"],
                    f"{g['clean_flags']} ({g.get('clean_flags_open', '-')})",
                    f"{g['latency_ms_median']} / {g['latency_ms_p95']}",
                    f"{g['fps']} / {g['cpu_fps'] or '-'}",
                    ", ".join(f"{k} {v}" for k, v in g["lost_stages"].items()) or "-",
                )
                for g in rows
            ],
        )  # fmt: skip
        out.append("")
    out += stage_section(lines)
    failed = [g for g in lines if "failed" in g]
    if failed:
        out += ["### Runs that failed (harness or chain raised)", ""]
        out += [f"- {g['variant']} {g['game']} ({g['condition']}): {g['failed']}" for g in failed]
        out.append("")
    if summary.injections:
        out += ["### Injected irregularities (flagged at the right ply counts as detected)", ""]
        out += _table(
            ("chain", "kind", "condition", "injected", "detected", "rate", "false alarms",
             "variants", "missed"),
            [
                (
                    i["chain"], i["kind"], i["condition"], i["injected"], i["detected"],
                    i["detection_rate"], i["false_alarms"], ", ".join(i["variants"]),
                    "; ".join(i["missed"]) or "-",
                )
                for i in summary.injections
            ],
        )  # fmt: skip
        out.append("")
    return "\n".join(out) + "\n"


def stage_section(lines: Sequence[dict[str, Any]]) -> list[str]:
    """Per condition: how many rendered clean games each stage lost, and the ladder
    (exact after substituting the truth for the located board, then for the readings,
    then for the hand gate)."""
    rendered = [g for g in lines if g.get("chain") == CHAIN_RENDERED and "injected" not in g]
    if not rendered:
        return []
    rows = []
    for condition in sorted({g["condition"] for g in rendered}):
        group = [g for g in rendered if g["condition"] == condition]
        lost = [g for g in group if not g["exact"]]
        rows.append(
            (
                condition,
                len(group),
                len(group) - len(lost),
                *(sum(1 for g in lost if g.get("lost_stage") == s) for s in STAGES),
                sum(g.get("misread_square_frames", 0) for g in lost),
            )
        )
    out = ["### Which stage loses a rendered game (substitution on the same frames)", ""]
    out += _table(
        ("condition", "games", "exact as recorded", *STAGES, "misread square-frames"), rows
    )
    return [*out, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared data folder")
    parser.add_argument("--chains", default=f"{CHAIN_RENDERED},{CHAIN_TRUTH}")
    parser.add_argument("--games-per-variant", type=int, default=10, help="truth chain")
    parser.add_argument("--plies", type=int, default=40, help="truth chain: cut games here")
    parser.add_argument("--rendered-games-per-variant", type=int, default=5)
    parser.add_argument("--rendered-plies", type=int, default=24)
    parser.add_argument("--rendered-injections-per-variant", type=int, default=1)
    parser.add_argument("--reader", choices=READERS, default="wiring")
    parser.add_argument("--conditions", default="default,hard")
    parser.add_argument("--variants", default="", help="comma-separated (default: all ten)")
    parser.add_argument("--seed", type=int, default=0, help="the renders' (styles, hands)")
    parser.add_argument(
        "--first-game",
        type=int,
        default=0,
        help="play each variant's games from this one on (corpus order; generated: its seed)",
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        help="K/N: only the games numbered K modulo N (same seeds as the whole run), to run"
        " one run in N processes and join their lines with --from-lines",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep here the videos of lost games, missed irregularities and false flags",
    )
    parser.add_argument("--doc", type=Path, help="write the markdown tables here")
    parser.add_argument(
        "--from-lines",
        type=Path,
        nargs="+",
        help="summarise a saved run's JSON lines (several files: the shards of one run)",
    )
    args = parser.parse_args(argv)
    conditions = [c for c in args.conditions.split(",") if c]
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        parser.error(f"unknown condition(s) {unknown}; known: {sorted(CONDITIONS)}")
    chains = [c for c in args.chains.split(",") if c]
    if set(chains) - {CHAIN_RENDERED, CHAIN_TRUTH}:
        parser.error(f"unknown chain in {chains}; known: {CHAIN_RENDERED}, {CHAIN_TRUTH}")
    try:
        part, parts = (int(v) for v in args.shard.split("/"))
    except ValueError:
        parser.error(f"--shard {args.shard!r}: expected K/N, e.g. 0/4")
    if not 0 <= part < parts:
        parser.error(f"--shard {args.shard!r}: K must be 0..N-1")
    data = args.data if args.data.is_dir() else None
    variants = {v for v in args.variants.split(",") if v}
    lines: list[dict[str, Any]] = []

    def emit(line: dict[str, Any]) -> None:
        lines.append(line)
        print(json.dumps(line), flush=True)

    def run(measure: Measure, per_variant: int, plies: int, injections: int) -> None:
        """One chain over the chosen variants' games, cut to ``plies``."""
        games = select_games(data, per_variant=per_variant, plies=2 * plies, first=args.first_game)
        run_chain(
            [g for g in games if not variants or g.variant in variants],
            measure,
            conditions=conditions,
            plies=plies,
            injections_per_variant=injections,
            seed=args.seed,
            emit=emit,
            shard=(part, parts),
        )

    if args.from_lines:
        texts = [path.read_text() for path in args.from_lines]
        for text in "\n".join(texts).splitlines():
            if not text.strip():
                continue
            line = json.loads(text)
            if "summary" not in line and ("plies" in line or "failed" in line):
                lines.append(line)
    else:
        emit({"data": str(data), "reader": args.reader, "conditions": conditions})
        if CHAIN_RENDERED in chains:

            def rendered(
                g: PlayedGame, c: Condition, s: int, i: Injection | None
            ) -> dict[str, Any]:
                return measure_rendered(g, c, s, i, reader=args.reader, keep=args.keep)

            run(
                rendered,
                args.rendered_games_per_variant,
                args.rendered_plies,
                args.rendered_injections_per_variant,
            )
        if CHAIN_TRUTH in chains:
            run(
                lambda g, c, s, i: measure_game(g, c, s, i, chain=CHAIN_TRUTH),
                args.games_per_variant,
                args.plies,
                args.games_per_variant,
            )
    summary = summarise(lines)
    for line in summary.games + summary.injections:
        print(json.dumps(line), flush=True)
    if args.doc:
        note = (
            f"Reader: `{args.reader}`; conditions: {', '.join(conditions)}."
            if not args.from_lines
            else "Tables rebuilt from "
            + ", ".join(f"`{path.name}`" for path in args.from_lines)
            + "."
        )
        write_doc(args.doc, markdown(summary, lines, note))
    return 0


BEGIN = "<!-- bench.e2e tables: generated, a rerun replaces them -->"
END = "<!-- end of bench.e2e tables -->"


def write_doc(path: Path, tables: str) -> None:
    """Put the tables between the markers of an existing doc (the findings written by
    hand around them stay), or write a new doc of the tables alone."""
    block = f"{BEGIN}\n{tables}{END}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        path.write_text(f"{head}{block}\n{tail}", encoding="utf-8")
    else:
        path.write_text(block, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

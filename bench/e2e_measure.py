"""Measuring games and injected irregularities through the chain, and adding them up."""

from __future__ import annotations

import shutil
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.e2e_games import PlayedGame
from bench.e2e_run import (
    ChainRun,
    first_difference,
    lost_stage,
    official_moves,
    record_observations,
    scoresheet_moves,
    truth_observation,
)
from bench.e2e_script import (
    Condition,
    Injection,
    board_after_injection,
    play_script,
    wrong_piece_candidates,
)
from rules import find_variant

CHAIN_TRUTH = "truth-readings"
"""Frames read from the script's truth: no renderer, no vision (settling and inference only)."""
CHAIN_RENDERED = "rendered"
"""Frames drawn by synth's renderer into a video, recorded as ``damcam record`` does
(:mod:`bench.e2e_video`, :mod:`bench.e2e_chain`)."""


def measure_game(
    game: PlayedGame,
    condition: Condition,
    seed: int,
    injection: Injection | None = None,
    *,
    chain: str = CHAIN_TRUTH,
    reader: str = "wiring",
) -> dict[str, Any]:
    """Play ``game`` through the chain; one JSON-able line of what came out."""
    if chain == CHAIN_RENDERED:
        return measure_rendered(game, condition, seed, injection, reader=reader)
    if chain != CHAIN_TRUTH:
        raise ValueError(f"unknown chain {chain!r} (expected {CHAIN_TRUTH} or {CHAIN_RENDERED})")
    variant = find_variant(game.variant)
    script = play_script(game.start, game.moves, condition, seed=seed, injection=injection)
    observations = [truth_observation(f, variant) for f in script.frames]
    run = record_observations(game.variant, observations)
    line = compare(game, condition, chain, run, script.hand_left, injection)
    if not line["exact"] and injection is None:
        played, recorded = official_moves(game), scoresheet_moves(run.pdn, variant)
        line["lost_stage"] = lost_stage(script, observations, played, recorded)
    return line


def measure_rendered(
    game: PlayedGame,
    condition: Condition,
    seed: int,
    injection: Injection | None = None,
    *,
    reader: str = "wiring",
    keep: Path | None = None,
) -> dict[str, Any]:
    """Render ``game`` into an H.264 video, record it as ``damcam record`` does, compare;
    a clean game that comes out wrong gets its stage ladder (:mod:`bench.e2e_chain`).
    ``keep``: copy the video there when something went wrong (:func:`went_wrong`), to
    look at the frames."""
    from bench.e2e_chain import record_video, stage_ladder  # needs OpenGL (EGL)
    from bench.e2e_video import render_video

    variant = find_variant(game.variant)
    with tempfile.TemporaryDirectory(prefix="damcam-e2e-video-") as tmp:
        video = render_video(game, condition, seed, Path(tmp), injection)
        recorded = record_video(video.path, game.variant, reader)
        vision = recorded.vision_seconds
        run = recorded.run
        extra = {
            ply: vision.get(round(t * condition.fps), 0.0) for ply, (t, _) in run.move_times.items()
        }
        line = compare(game, condition, CHAIN_RENDERED, run, video.hand_left, injection, extra)
        n = len(video.frames)
        line.update(
            reader=reader,
            codec=video.codec,
            tilt_deg=round(video.style.tilt_deg, 1),
            style=f"{video.style.board}/{video.style.pieces}",
            calibrated_at_frame=recorded.calibrated_at,
            render_fps=round(n / video.render_seconds, 1),
            vision_fps=round(n / sum(vision.values()), 1) if vision else None,
            vision_cpu_fps=round(n / recorded.vision_cpu_seconds, 1)
            if recorded.vision_cpu_seconds
            else None,
            cpu_fps=round(run.frames / recorded.cpu_seconds, 1) if recorded.cpu_seconds else None,
        )
        if not line["exact"] and injection is None:

            def exact(other: ChainRun) -> bool:
                return (
                    first_difference(official_moves(game), scoresheet_moves(other.pdn, variant))
                    is None
                )

            ladder = stage_ladder(video, recorded, variant, reader, exact)
            line["lost_stage"] = ladder.stage
            line["ladder"] = ladder.exact
            line["misread_square_frames"] = ladder.misread_count
            line["misreads"] = ladder.misreads
            if ladder.refusal:
                line["calibration_refused"] = ladder.refusal
        if keep is not None and went_wrong(line):
            keep.mkdir(parents=True, exist_ok=True)
            name = f"{game.variant}-{condition.name}-{game.source.replace('#', '-')}"
            if injection is not None:
                name += f"-{injection.kind}-{injection.ply}"
            kept = keep / f"{name}.mp4".replace(" ", "_")
            shutil.copy(video.path, kept)
            line["video"] = str(kept)
    return line


def went_wrong(line: dict[str, Any]) -> bool:
    """Whether a game's line shows something to look into: a clean game not recorded
    exactly, an injected irregularity not flagged at its ply, or a flag raised for nothing.
    (An injected game is not exact by design: its irregular ply is no legal move.)"""
    if "injected" in line:
        return not line["detected"] or line["false_alarms"] > 0
    return not line["exact"] or bool(line["flags"])


def compare(
    game: PlayedGame,
    condition: Condition,
    chain: str,
    run: ChainRun,
    hand_left: dict[int, float],
    injection: Injection | None,
    extra_seconds: dict[int, float] | None = None,
) -> dict[str, Any]:
    """The line for one game: the scoresheet against the moves played, flags, latency
    (from the hand leaving to the move recorded: frame time plus the processing of the
    frame that completed the move)."""
    variant = find_variant(game.variant)
    played = official_moves(game)
    recorded = scoresheet_moves(run.pdn, variant)
    wrong = first_difference(played, recorded)
    right = sum(1 for a, b in zip(played, recorded, strict=False) if a == b)
    extra = extra_seconds or {}
    latencies = [  # of the moves recorded right
        1000.0 * (frame_time - hand_left[ply] + spent + extra.get(ply, 0.0))
        for ply, (frame_time, spent) in sorted(run.move_times.items())
        if ply in hand_left
        and ply <= min(len(played), len(recorded))
        and played[ply - 1] == recorded[ply - 1]
    ]
    line: dict[str, Any] = {
        "game": game.source,
        "variant": game.variant,
        "condition": condition.name,
        "chain": chain,
        "plies": len(played),
        "exact": wrong is None,
        "moves_right": right,
        "first_wrong_ply": wrong,
        "flags": [{"kind": f.kind, "ply": f.ply, "resolved": f.resolved} for f in run.record.flags],
        "latency_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "latencies_ms": [round(x, 1) for x in latencies],
        "frames": run.frames,
        "fps": round(run.frames / run.wall_seconds, 1) if run.wall_seconds else None,
        "errors": run.errors,
    }
    if injection is not None:
        line["injected"] = {"kind": injection.kind, "ply": injection.ply}
        hits = [f for f in run.record.flags if (f.kind, f.ply) == (injection.kind, injection.ply)]
        line["detected"] = bool(hits)
        line["false_alarms"] = len(run.record.flags) - len(hits)
    return line


def injection_points(game: PlayedGame) -> Iterator[tuple[PlayedGame, Injection]]:
    """The first place in ``game`` for each irregularity kind, with the game cut after
    the opponent's reply: a crowning left undone needs it (and it must not touch the
    man); after a captured piece left or a wrong one taken off, the reply is played
    from the board as it stands, where the game's next move is legal there (else the
    game is cut at the irregular ply). Column draughts keep captured pieces in towers,
    so they have none here."""
    if find_variant(game.variant).towers:
        return
    seen: set[str] = set()
    position = game.start
    for ply, move in enumerate(game.moves, start=1):
        after = position.play(move)
        for kind in ("captured_piece_left", "wrong_piece_removed"):
            if not move.captures or ply == 1 or kind in seen:
                continue
            if kind == "wrong_piece_removed" and not any(
                wrong_piece_candidates(position, move, after)
            ):
                continue
            seen.add(kind)
            injection = Injection(kind, ply)
            answered = ply < len(game.moves) and game.moves[ply] in set(
                board_after_injection(injection, position, move, after).legal_moves()
            )
            yield game.truncated(ply + 1 if answered else ply), injection
        if move.promotes and ply < len(game.moves) and "not_crowned" not in seen:
            reply = game.moves[ply]
            landing = move.path[-1]
            if reply.path[0] != landing and landing not in reply.captures:
                seen.add("not_crowned")
                yield game.truncated(ply + 1), Injection("not_crowned", ply)
        position = after


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _p95(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)


@dataclass(frozen=True, slots=True)
class Summary:
    """Clean games per chain, variant and condition (variant ``all``: the condition's
    total), and injected irregularities per chain, kind and condition."""

    games: list[dict[str, Any]]
    injections: list[dict[str, Any]]


def _rate(group: Sequence[dict[str, Any]], key: str) -> float | None:
    """Frames per second over a group: all its frames over the time they took."""
    timed = [g for g in group if g.get(key)]
    if not timed:
        return None
    frames = sum(int(g["frames"]) for g in timed)
    return round(frames / sum(float(g["frames"]) / float(g[key]) for g in timed), 1)


def _games_summary(key: tuple[str, str, str], group: Sequence[dict[str, Any]]) -> dict[str, Any]:
    chain, variant, condition = key
    latencies = [x for g in group for x in g["latencies_ms"]]
    plies = sum(g["plies"] for g in group)
    stages: dict[str, int] = defaultdict(int)
    for g in group:
        if "lost_stage" in g:
            stages[g["lost_stage"]] += 1
    return {
        "summary": "games",
        "chain": chain,
        "variant": variant,
        "condition": condition,
        "games": len(group),
        "exact": sum(g["exact"] for g in group),
        "move_accuracy": round(sum(g["moves_right"] for g in group) / plies, 4) if plies else None,
        "clean_flags": sum(len(g["flags"]) for g in group),
        # raised, then resolved by the recorder itself: a board put back, or healed
        "clean_flags_open": sum(not f.get("resolved") for g in group for f in g["flags"]),
        "games_flagged": sum(1 for g in group if g["flags"]),
        "latency_ms_median": _median(latencies),
        "latency_ms_p95": _p95(latencies),
        "fps": _rate(group, "fps"),
        "cpu_fps": _rate(group, "cpu_fps"),
        "vision_cpu_fps": _rate(group, "vision_cpu_fps"),
        "lost_stages": dict(sorted(stages.items())),
    }


def summarise(lines: Sequence[dict[str, Any]]) -> Summary:
    clean: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    injected: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        if "injected" in line:
            injected[(line["chain"], line["injected"]["kind"], line["condition"])].append(line)
        elif "plies" in line:
            clean[(line["chain"], line["variant"], line["condition"])].append(line)
            clean[(line["chain"], "all", line["condition"])].append(line)
    order = {CHAIN_RENDERED: 0, CHAIN_TRUTH: 1}
    games = [
        _games_summary(key, group)
        for key, group in sorted(
            clean.items(), key=lambda kv: (order.get(kv[0][0], 2), kv[0][1] == "all", kv[0])
        )
    ]
    injections = []
    for (chain, kind, condition), group in sorted(
        injected.items(), key=lambda kv: (order.get(kv[0][0], 2), kv[0])
    ):
        injections.append(
            {
                "summary": "irregularities",
                "chain": chain,
                "kind": kind,
                "condition": condition,
                "injected": len(group),
                "detected": sum(g["detected"] for g in group),
                "detection_rate": round(sum(g["detected"] for g in group) / len(group), 4),
                "false_alarms": sum(g["false_alarms"] for g in group),
                "missed": [
                    f"{g['variant']} {g['game']} ply {g['injected']['ply']}: flags {g['flags']}"
                    for g in group
                    if not g["detected"]
                ],
                "variants": sorted({g["variant"] for g in group}),
            }
        )
    return Summary(games, injections)

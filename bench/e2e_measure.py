"""Measuring games and injected irregularities through the chain, and adding them up."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bench.e2e_games import PlayedGame
from bench.e2e_run import (
    first_difference,
    lost_stage,
    official_moves,
    record_observations,
    scoresheet_moves,
    truth_observation,
)
from bench.e2e_script import Condition, Injection, play_script, wrong_piece_candidates
from rules import find_variant

CHAIN_TRUTH = "truth-readings"
"""Frames read from the script's truth: no renderer, no vision (settling and inference only)."""
CHAIN_RENDERED = "rendered"
"""Frames drawn by synth's renderer and read by vision (:mod:`bench.e2e_render`)."""


def measure_game(
    game: PlayedGame,
    condition: Condition,
    seed: int,
    injection: Injection | None = None,
    *,
    chain: str = CHAIN_TRUTH,
) -> dict[str, Any]:
    """Play ``game`` through the chain; one JSON-able line of what came out."""
    variant = find_variant(game.variant)
    script = play_script(game.start, game.moves, condition, seed=seed, injection=injection)
    camera: dict[str, Any] = {}
    if chain == CHAIN_TRUTH:
        observations = [truth_observation(f, variant) for f in script.frames]
    else:
        from bench.e2e_render import read_rendered  # needs OpenGL (EGL)

        rendered = read_rendered(script.frames, variant, condition, seed)
        observations = rendered.observations
        n = len(observations)
        camera = {
            "render_fps": round(n / rendered.render_seconds, 1),
            "vision_fps": round(n / rendered.vision_seconds, 1),
        }
        if rendered.calibration_error:
            camera["calibration_error"] = rendered.calibration_error
    run = record_observations(game.variant, observations)
    played = official_moves(game)
    recorded = scoresheet_moves(run.pdn, variant)
    wrong = first_difference(played, recorded)
    right = sum(1 for a, b in zip(played, recorded, strict=False) if a == b)
    latencies = [
        1000.0 * (frame_time - script.hand_left[ply] + spent)
        for ply, (frame_time, spent) in sorted(run.move_times.items())
        if ply in script.hand_left
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
        "flags": [{"kind": f.kind, "ply": f.ply} for f in run.record.flags],
        "latency_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "latencies_ms": [round(x, 1) for x in latencies],
        "frames": run.frames,
        "fps": round(run.frames / run.wall_seconds, 1) if run.wall_seconds else None,
        "errors": run.errors,
        **camera,
    }
    if injection is not None:
        line["injected"] = {"kind": injection.kind, "ply": injection.ply}
        hits = [f for f in run.record.flags if (f.kind, f.ply) == (injection.kind, injection.ply)]
        line["detected"] = bool(hits)
        line["false_alarms"] = len(run.record.flags) - len(hits)
    elif wrong is not None:
        line["lost_stage"] = lost_stage(script, observations, played, recorded)
    return line


def injection_points(game: PlayedGame) -> Iterator[tuple[PlayedGame, Injection]]:
    """The first place in ``game`` for each irregularity kind, with the game cut there
    (a crowning left undone needs the opponent's next move, which must not touch the
    man). Column draughts keep captured pieces in towers, so they have none here."""
    if find_variant(game.variant).towers:
        return
    seen: set[str] = set()
    position = game.start
    for ply, move in enumerate(game.moves, start=1):
        after = position.play(move)
        if move.captures and ply > 1 and "captured_piece_left" not in seen:
            seen.add("captured_piece_left")
            yield game.truncated(ply), Injection("captured_piece_left", ply)
        if (
            move.captures
            and ply > 1
            and "wrong_piece_removed" not in seen
            and any(wrong_piece_candidates(position, move, after))
        ):
            seen.add("wrong_piece_removed")
            yield game.truncated(ply), Injection("wrong_piece_removed", ply)
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
    """The per-variant-and-condition and per-irregularity figures."""

    games: list[dict[str, Any]]
    injections: list[dict[str, Any]]


def summarise(lines: Sequence[dict[str, Any]]) -> Summary:
    clean: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    injected: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        if "injected" in line:
            injected[(line["chain"], line["injected"]["kind"], line["condition"])].append(line)
        else:
            clean[(line["chain"], line["variant"], line["condition"])].append(line)
    games = []
    for (_, variant, condition), group in sorted(
        clean.items(), key=lambda kv: (kv[0][0] != CHAIN_TRUTH, kv[0])
    ):
        latencies = [x for g in group for x in g["latencies_ms"]]
        plies = sum(g["plies"] for g in group)
        stages: dict[str, int] = defaultdict(int)
        for g in group:
            if "lost_stage" in g:
                stages[g["lost_stage"]] += 1
        games.append(
            {
                "summary": "games",
                "variant": variant,
                "condition": condition,
                "chain": group[0]["chain"],
                "games": len(group),
                "exact": sum(g["exact"] for g in group),
                "move_accuracy": round(sum(g["moves_right"] for g in group) / plies, 4)
                if plies
                else None,
                "clean_flags": sum(len(g["flags"]) for g in group),
                "latency_ms_median": _median(latencies),
                "latency_ms_p95": _p95(latencies),
                "fps": round(
                    sum(g["frames"] for g in group)
                    / sum(g["frames"] / g["fps"] for g in group if g["fps"]),
                    1,
                ),
                "lost_stages": dict(stages),
                "vision_fps": _median([g["vision_fps"] for g in group if "vision_fps" in g]),
            }
        )
    injections = []
    for (_, kind, condition), group in sorted(injected.items()):
        injections.append(
            {
                "summary": "irregularities",
                "kind": kind,
                "condition": condition,
                "chain": group[0]["chain"],
                "injected": len(group),
                "detected": sum(g["detected"] for g in group),
                "detection_rate": round(sum(g["detected"] for g in group) / len(group), 4),
                "false_alarms": sum(g["false_alarms"] for g in group),
                "variants": sorted({g["variant"] for g in group}),
            }
        )
    return Summary(games, injections)

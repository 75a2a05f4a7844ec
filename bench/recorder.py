"""Recorder benchmark: accuracy against noise, and time per observation (JSON lines).

    python -m bench.recorder [--games 10] [--data ../shared/data]

One line per (variant, per-square error rate) with how many real games were recorded
exactly, how many only differ where the recorder asked the arbiter (plies missed unseen,
whose order no picture can tell), how many went wrong, and false flags; then the time
per observation on 10x10 (all frames of noisy games), and the time of the frame that
triggers a 4-ply catch-up on 10x10 positions from real games.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

from bench.observation_sim import Noise, RealGame, Simulator, compare, shared_games, tops_of
from rules.observation import Observation
from rules.recorder import Recorder

VARIANTS = ("international", "russian", "english", "italian")
ERROR_RATES = (0.001, 0.01, 0.05)


def _noise(error_rate: float) -> Noise:
    return Noise(
        square_error_rate=error_rate,
        glitch_rate=0.2,
        edge_hand_rate=0.2,
        peek_rate=0.3,
        missed_ply_rate=0.03,
        late_crowning_rate=0.5,
    )


def _timed(recorder: Recorder, frames: list[Observation]) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each ``feed`` (the CPU time leaves out waiting for a core
    on a shared machine).

    The simulated frames of a whole game are built beforehand and held in memory, which
    a live loop never does; they are frozen out of the garbage collector so that its
    passes over them do not count against the recorder.
    """
    gc.collect()
    gc.freeze()
    wall, cpu = [], []
    try:
        for frame in frames:
            w0, c0 = time.perf_counter(), time.thread_time()
            recorder.feed(frame)
            cpu.append(time.thread_time() - c0)
            wall.append(time.perf_counter() - w0)
    finally:
        gc.unfreeze()
    return wall, cpu


def _run(game: RealGame, noise: Noise, seed: int) -> tuple[Recorder, list[float], list[float]]:
    sim = Simulator(game.variant, noise, seed=seed)
    sim.play_game(game.start, list(game.moves))
    recorder = Recorder(game.variant)
    return recorder, *_timed(recorder, sim.frames)


def accuracy(data: Path, games: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for variant in VARIANTS:
        real = shared_games(data, variant, games)
        for rate in ERROR_RATES:
            exact = asked = wrong = false_flags = plies = right_plies = 0
            for seed, game in enumerate(real):
                recorder, _, _ = _run(game, _noise(rate), seed)
                outcome = compare(game, recorder.record, len(recorder.flags))
                exact += outcome.exact
                asked += outcome.asked
                wrong += outcome.first_wrong is not None
                false_flags += outcome.flags
                plies += len(game.moves)
                right_plies += (
                    len(game.moves) if outcome.first_wrong is None else outcome.first_wrong - 1
                )
            rows.append(
                {
                    "bench": "recorder_accuracy",
                    "variant": variant,
                    "square_error_rate": rate,
                    "games": len(real),
                    "exact": exact,
                    "asked_arbiter": asked,
                    "wrong": wrong,
                    "false_flags": false_flags,
                    "plies": plies,
                    "plies_right_before_first_error": right_plies,
                    "noise": "glitch 0.2, edge hand 0.2, peek 0.3, missed plies 0.03, "
                    "late crowning 0.5, captures piece by piece",
                }
            )
    return rows


def _stats(name: str, seconds: list[float]) -> dict[str, object]:
    ordered = sorted(seconds)
    ms = 1000.0
    return {
        f"{name}_median_ms": round(statistics.median(ordered) * ms, 3),
        f"{name}_p99_ms": round(ordered[int(len(ordered) * 0.99)] * ms, 3),
        f"{name}_max_ms": round(ordered[-1] * ms, 3),
    }


def speed(data: Path, games: int) -> list[dict[str, object]]:
    real = shared_games(data, "international", games)
    rows: list[dict[str, object]] = []
    for rate in (0.01, 0.05):
        wall: list[float] = []
        cpu: list[float] = []
        for seed, game in enumerate(real):
            _, w, c = _run(game, _noise(rate), seed)
            wall += w
            cpu += c
        rows.append(
            {
                "bench": "recorder_speed",
                "variant": "international",
                "square_error_rate": rate,
                "observations": len(wall),
                **_stats("cpu", cpu),
                **_stats("wall", wall),
                "target": "median < 5 ms, worst < 50 ms",
            }
        )
    catch_wall: list[float] = []
    catch_cpu: list[float] = []
    for seed, game in enumerate(real):
        # four plies made while the camera saw nothing, from the middle of the game
        for at in range(10, len(game.moves) - 4, 12):
            sim = Simulator(game.variant, Noise(), seed=seed)
            position = game.start
            for move in game.moves[:at]:
                position = position.play(move)
            recorder = Recorder(game.variant, start=position)
            sim.settle(tops_of(position), 10)
            for move in game.moves[at : at + 4]:
                position = position.play(move)
            sim.hidden(tops_of(position), 3)
            sim.settle(tops_of(position), 20)
            wall, cpu = _timed(recorder, sim.frames)
            if recorder.position == position:
                catch_wall.append(max(wall))
                catch_cpu.append(max(cpu))
    rows.append(
        {
            "bench": "recorder_catch_up_4_plies",
            "variant": "international",
            "cases": len(catch_cpu),
            **_stats("cpu", catch_cpu),
            **_stats("wall", catch_wall),
        }
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10, help="real games per variant")
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data"
    )
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(json.dumps({"bench": "recorder", "skipped": f"no data at {args.data}"}))
        return 0
    for row in [*accuracy(args.data, args.games), *speed(args.data, args.games)]:
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

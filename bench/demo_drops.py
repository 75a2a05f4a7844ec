"""The demo game with frames dropped at random, as a loaded machine drops them live.

    python -m bench.demo_drops [--video pi/demo/demo.mp4] [--rates 0.1,0.3,0.5] [--runs 10]

``damcam demo`` plays its video in real time and analyses the newest frame; on a busy
machine the others are dropped. This replays the bundled video (or ``--video``, with its
``.json`` naming the moves) through ``damcam record``'s chain (vision as the wiring builds
it, the recorder, the SQLite journal) with each frame after the first dropped with
probability ``rate`` (seeded: run ``k`` of every rate uses seed ``k``), so the result does
not depend on how loaded the machine happens to be. One JSON line per rate: how many runs
recorded the game exactly with no flag, the plies right before the first error in each
run, the flags raised; CPU and wall seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi.capture import Frame, FrameSource
from pi.demo import bundled_video
from pi.wiring import throwaway_recording


class DroppingSource(FrameSource):
    """Another source with each frame but the first dropped with probability ``rate``."""

    def __init__(self, inner: FrameSource, rate: float, seed: int) -> None:
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"drop rate {rate} is not in [0, 1)")
        self.inner = inner
        self.rate = rate
        self.seed = seed
        self.live = False
        self.description = f"{inner} ({rate:.0%} of frames dropped, seed {seed})"
        self.dropped = 0

    def open(self) -> None:
        self.inner.open()

    def close(self) -> None:
        self.inner.close()

    def __iter__(self) -> Iterator[Frame]:
        rng = random.Random(self.seed)
        for frame in self.inner:
            if frame.index and rng.random() < self.rate:
                self.dropped += 1
                continue
            yield frame


def first_wrong(played: list[str], recorded: list[str]) -> int:
    """Plies recorded right before the first difference."""
    for i, (a, b) in enumerate(zip(played, recorded, strict=False)):
        if a != b:
            return i
    return min(len(played), len(recorded))


def run_once(video: Path, variant: str, rate: float, seed: int) -> dict[str, Any]:
    with throwaway_recording(video, variant) as (pipeline, service):
        source = DroppingSource(pipeline.source, rate, seed)
        pipeline.source = source
        health = pipeline.run()
        record = service.current(pipeline.table_id)
    return {
        "plies": [p.notation for p in record.plies],
        "flags": [f"{f.kind}@{f.ply}" for f in record.flags],
        "frames": health.frames_processed,
        "dropped": source.dropped,
        "errors": health.errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--video", type=Path, default=None, help="default: the bundled demo")
    parser.add_argument("--rates", default="0.1,0.3,0.5")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    video = args.video or bundled_video()
    if video is None or not video.is_file():
        print(json.dumps({"bench": "demo_drops", "skipped": f"no video at {video}"}))
        return
    truth = json.loads(video.with_suffix(".json").read_text(encoding="utf-8"))
    played = [str(m) for m in truth["moves"]]
    for rate in (float(r) for r in args.rates.split(",")):
        began, cpu = time.perf_counter(), time.process_time()
        runs = [run_once(video, truth["variant"], rate, seed) for seed in range(args.runs)]
        right = [first_wrong(played, r["plies"]) for r in runs]
        exact = [r["plies"] == played and not r["flags"] for r in runs]
        print(
            json.dumps(
                {
                    "bench": "demo_drops",
                    "video": str(video),
                    "board": truth.get("style", {}).get("board"),
                    "drop_rate": rate,
                    "runs": len(runs),
                    "exact_without_flag": sum(exact),
                    "plies": len(played),
                    "plies_right_before_first_error": right,
                    "plies_right_median": statistics.median(right),
                    "flags": [r["flags"] for r in runs if r["flags"]],
                    "frames_analysed_median": statistics.median(r["frames"] for r in runs),
                    "errors": sum(r["errors"] for r in runs),
                    "wall_s": round(time.perf_counter() - began, 1),
                    "cpu_s": round(time.process_time() - cpu, 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Speed of the synthetic renderer at 640x480 (target: 20 frames a second on 2 cores).

``python -m bench.render [--frames N]`` prints one JSON line per case: frames rendered,
wall seconds and frames per second, CPU seconds per frame (all threads, llvmpipe's too),
and the load average when the case ended (the machine is shared). Cases: random styles
cycling over eight seeds, without a hand and with one (adds the occlusion truth), random
styles with every table feature on (lamp glare, textured table, clock, scoresheets, a sleeved
gripping hand), a fresh style every frame (a data set: a new board texture and lens map
each time), a clean overhead style, and game frames (a hand and a clock press).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from collections.abc import Callable

from rules import Position, find_variant
from synth.dataset import random_position
from synth.game import Timing, game_frames
from synth.render import Renderer
from synth.scene import Style

SIZE = (640, 480)


def _time(name: str, work: Callable[[], int]) -> None:
    started, cpu_started = time.perf_counter(), time.process_time()
    done = work()
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started  # all threads (llvmpipe's too): load-independent
    print(
        json.dumps(
            {
                "case": name,
                "size": list(SIZE),
                "frames": done,
                "seconds": round(seconds, 3),
                "fps": round(done / seconds, 1),
                "cpu_seconds_per_frame": round(cpu / done, 4),
                "target_fps": 20,
                "load_average": round(os.getloadavg()[0], 2),
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=100, help="frames per case")
    args = parser.parse_args()
    n: int = args.frames
    variants = [find_variant(v) for v in ("international", "russian", "bashni", "lasca")]
    positions = [random_position(variants[i % 4], i, 40) for i in range(n)]
    with Renderer(SIZE) as renderer:
        renderer.render(positions[0], Style.random(0, variants[0]))  # build shaders, textures

        def dataset(hand: bool) -> Callable[[], int]:
            def work() -> int:
                for i, position in enumerate(positions):
                    renderer.render(position, Style.random(i % 8, position.variant, hand=hand))
                return n

            return work

        _time("random styles, no hand", dataset(False))
        _time("random styles, hand", dataset(True))

        def everything() -> int:
            for i, position in enumerate(positions):
                style = dataclasses.replace(
                    Style.random(i % 8, position.variant, hand=True),
                    glare=0.8,
                    table_texture=("wood", "cloth", "laminate")[i % 3],
                    clock=("left", "right")[i % 2],
                    scoresheet="both",
                )
                renderer.render(position, style)
            return n

        _time("random styles, every table feature", everything)

        def fresh() -> int:
            for i, position in enumerate(positions):
                renderer.render(position, Style.random(1000 + i, position.variant))
            return n

        _time("fresh random style every frame (a data set)", fresh)
        plain = Style.plain(variants[0])
        start = Position.initial(variants[0])
        _time(
            "plain overhead",
            lambda: sum(1 for _ in (renderer.render(start, plain) for _ in range(n))),
        )
        russian = variants[1]
        game_start = Position.initial(russian)
        moves, position = [], game_start
        for text in ("c3-d4", "f6-e5", "d4xf6", "g7xe5", "b2-c3", "h6-g5"):
            move = position.parse_move(text)
            moves.append(move)
            position = position.play(move)
        style = Style.random(5, russian, hand=False)
        _time(
            "game frames",
            lambda: sum(1 for _ in game_frames(renderer, game_start, moves, style, Timing())),
        )


if __name__ == "__main__":
    main()

"""Benchmark of the live loop (``python -m bench.live``): one JSON line per measurement.

Pinned to one core. Parts:

- ``capture``: decoding a 1280x960 video with :class:`~pi.capture.VideoFileSource`.
- ``vision``: a game rendered by synth at 1280x960 in tournament conditions (the demo's
  style: markers, tilt, hall light, noise, a swaying camera, a hand playing each move),
  every frame through the real chain: vision (frame -> Observation), then the recorder
  and the journal; wall and CPU milliseconds per frame (median, p95), frames a second
  one core sustains, and how many of the plies were recorded.
- ``vision_board``: the same video played in real time through capture, vision, recorder,
  journal and the real server: from the frame the hand leaves the board after a move to the
  move at a WebSocket client.
- ``pipeline``: observation -> recorder -> journal (SQLite, fsync per move) -> table
  service, as fast as it goes: frames per second it sustains, per-frame latency, and
  the latency of the frames that complete a move.
- ``board``: the real server on loopback with a WebSocket client, a game played at the
  camera's 15 and at 10 frames a second: from the first still frame after the hand
  leaves the board to the new position arriving at the client (the recorder's settling
  time included).
- ``memory``: a two-hour game at 10 frames a second (72,000 frames) through the
  pipeline; resident memory sampled along the way (no growth expected).

Options: ``--quick`` for a short run (CI smoke), ``--hours H`` for the memory part.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from pi.capture import Frame, FrameSource, VideoFileSource
from pi.config import CameraSettings, Settings
from pi.journal import Journal
from pi.pipeline import LivePipeline
from pi.recording import RecorderAdapter
from pi.replay import ObservationSource, generated_game, scripted_observations
from pi.tables import TableService
from pi.wiring import VisionUnavailableError, vision_recognizer
from rules import Move, Position, find_variant

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WK2003 = SHARED / "games/pdn-fmjd-testgames/games/succeed/wk2003.pdn"


def emit(record: dict[str, Any]) -> None:
    print(json.dumps({"bench": "live", **record}), flush=True)


def pin_one_core() -> int:
    core = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {core})
    return core


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def ms(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median_ms": None, "p95_ms": None, "max_ms": None}
    v = sorted(values)
    return {
        "median_ms": round(statistics.median(v) * 1000, 3),
        "p95_ms": round(v[int(0.95 * (len(v) - 1))] * 1000, 3),
        "max_ms": round(v[-1] * 1000, 3),
    }


def game_moves(plies: int) -> tuple[list[Move], str]:
    """A real game when the shared data is there, else a generated one."""
    start = Position.initial(find_variant("international"))
    if WK2003.is_file():
        from rules.pdn import read_games_text

        first = read_games_text(WK2003.read_text(encoding="utf-8"))[0].moves
        if first:
            return list(first[:plies]), f"wk2003 game 1 ({min(plies, len(first))} plies)"
    return generated_game(start, plies, seed=1), f"generated game ({plies} plies)"


# -- parts --------------------------------------------------------------------------------------


def bench_capture(frames: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "capture.avi"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (1280, 960))
        rng = np.random.default_rng(0)
        base = rng.integers(0, 255, (960, 1280, 3), dtype=np.uint8)
        for i in range(frames):
            writer.write(np.roll(base, i * 7, axis=1))
        writer.release()
        times = []
        with VideoFileSource(path) as source:
            last = time.perf_counter()
            for _frame in source:
                now = time.perf_counter()
                times.append(now - last)
                last = now
    emit(
        {
            "part": "capture",
            "input": "1280x960 MJPG",
            "frames": len(times),
            **ms(times),
            "fps": round(len(times) / sum(times), 1),
        }
    )


VISION_SIZE = (1280, 960)


def render_vision_game(out: Path, plies: int) -> tuple[Path, list[dict[str, Any]], list[Move]]:
    """The demo's game and style rendered at 1280x960: the video, per-frame truth, moves."""
    from pi.demo_video import GAME_SEED, TIMING, demo_style
    from synth.game import write_game

    start = Position.initial(find_variant("international"))
    moves = generated_game(start, plies, seed=GAME_SEED)
    write_game(start, moves, demo_style(), out, timing=TIMING, size=VISION_SIZE)
    lines = (out / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    return out / "game.mp4", [json.loads(line) for line in lines[1:]], moves


def recorded_prefix(played: list[str], recorded: list[str]) -> int:
    """How many plies of ``played`` the record reproduces before its first difference."""
    n = 0
    for a, b in zip(played, recorded, strict=False):
        if a != b:
            break
        n += 1
    return n


def hand_left_frames(truth: list[dict[str, Any]]) -> dict[int, int]:
    """Ply -> index of the frame in which its hand last left the board: the first frame
    after it covering no square, when the hand may still be in view (it goes on to press
    the clock beside the board; the move is on the board before it is out of the image).
    The last such frame of the ply, as the hand may leave and come back (captures)."""

    def over_board(t: dict[str, Any]) -> bool:
        return bool(t["hand_present"]) and max(t["occlusion"].values(), default=0.0) > 0

    left: dict[int, int] = {}
    for t, before in zip(truth[1:], truth, strict=False):
        if over_board(before) and not over_board(t) and t["ply"] == before["ply"]:
            left[t["ply"]] = t["frame"]
    return left


def bench_vision(video: Path, truth: list[dict[str, Any]], moves: list[Move]) -> None:
    """Every frame of a 1280x960 render through vision, recorder and journal, one core.

    CPU time is the process's (OpenCV and onnxruntime may use threads of their own)."""
    from pi.demo_video import TIMING

    settings = Settings(table="v", variant="international")
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite") as journal:
        service = TableService(journal)
        record = service.start_game("v", "international")
        recognize = vision_recognizer(settings)
        pipeline = LivePipeline(
            VideoFileSource(video), recognize, RecorderAdapter(record), service, "v"
        )
        vision_wall: list[float] = []
        vision_cpu: list[float] = []
        frame_wall: list[float] = []
        frame_cpu: list[float] = []
        move_frames: list[int] = []  # the frame that completed each recorded ply
        with VideoFileSource(video) as source:
            for frame in source:
                w0, c0 = time.perf_counter(), time.process_time()
                observation = recognize(frame)
                w1, c1 = time.perf_counter(), time.process_time()
                written = pipeline.process(replace(frame, observation=observation))
                move_frames += [frame.index for e in written if e.kind == "move"]
                w2, c2 = time.perf_counter(), time.process_time()
                vision_wall.append(w1 - w0)
                vision_cpu.append(c1 - c0)
                frame_wall.append(w2 - w0)
                frame_cpu.append(c2 - c0)
        recorded = [p.notation for p in service.current("v").plies]
    played = [str(m) for m in moves]
    left = hand_left_frames(truth)
    # negative where the move was read while the hand was still over other squares
    settle = [
        (frame - left[ply]) / TIMING.fps
        for ply, frame in enumerate(move_frames, start=1)
        if ply in left
    ]
    emit(
        {
            "part": "vision",
            "input": "1280x960 synth render (demo style), mp4v",
            "frames": len(frame_cpu),
            "vision_wall": ms(vision_wall),
            "vision_cpu": ms(vision_cpu),
            "frame_wall": ms(frame_wall),
            "frame_cpu": ms(frame_cpu),
            "fps_one_core_cpu": round(len(frame_cpu) / sum(frame_cpu), 1),
            "fps_one_core_wall": round(len(frame_wall) / sum(frame_wall), 1),
            "plies_played": len(played),
            "plies_recorded": len(recorded),
            "plies_right_before_first_error": recorded_prefix(played, recorded),
            "hand_left_to_move_video_time": ms(settle),
            "hand_left_measured_plies": len(settle),
        }
    )


@contextmanager
def serve_source(settings: Settings, source: FrameSource) -> Iterator[int]:
    """The real server for ``settings`` on a free loopback port, its pipeline reading
    ``source``: yields the port, and stops the server afterwards."""
    import uvicorn

    from pi.server import create_app
    from pi.wiring import build_pipeline

    app = create_app(
        settings, pipeline_factory=lambda s, svc: build_pipeline(s, svc, source=source)
    )
    server = uvicorn.Server(uvicorn.Config(app, port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(10)


def bench_vision_board(video: Path, truth: list[dict[str, Any]], plies: int) -> None:
    """The render played in real time through the server with the real vision chain: the
    first frame without a hand after a move, to the move at a WebSocket client."""
    from websockets.sync.client import connect

    from pi.demo_video import TIMING

    hand_left: dict[int, float] = {}  # ply -> wall time its first hand-free frame arrived
    frame_ply = {frame: ply for ply, frame in hand_left_frames(truth).items()}

    class Marked(VideoFileSource):
        def __iter__(self):  # type: ignore[no-untyped-def]
            for frame in super().__iter__():
                if frame.index in frame_ply:
                    hand_left[frame_ply[frame.index]] = time.perf_counter()
                yield frame

    received: dict[int, float] = {}
    health: dict[str, Any] = {}  # the last health the board page was sent
    seconds = len(truth) / TIMING.fps
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(table="vb", variant="international", journal=Path(tmp) / "j.sqlite")
        with serve_source(settings, Marked(video, realtime=True)) as port:
            c0 = time.process_time()
            with connect(f"ws://127.0.0.1:{port}/ws/tables/vb") as ws:
                deadline = time.monotonic() + seconds + 5
                while len(received) < plies and time.monotonic() < deadline:
                    try:
                        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
                    except TimeoutError:
                        break
                    if message["type"] == "health" and message.get("health"):
                        health = message["health"]
                    n = len(message["state"]["moves"]) if message["type"] == "state" else 0
                    if n:
                        received.setdefault(n, time.perf_counter())
            cpu = time.process_time() - c0
    delays = [received[p] - hand_left[p] for p in received if p in hand_left]
    emit(
        {
            "part": "vision_board",
            "input": f"1280x960 synth render (demo style) in real time, {TIMING.fps:g} fps",
            "plies_played": plies,
            "moves_at_client": len(received),
            "hand_left_to_board": ms(delays),
            "process_cpu_per_video_second": round(cpu / seconds, 3),
            # frames the analysis could not keep up with were dropped: the recorder's 4
            # frames then span more than 0.2 s
            "frames_processed": health.get("frames_processed"),
            "frames_dropped": health.get("frames_dropped"),
            "load_1min": round(os.getloadavg()[0], 1),
        }
    )


def bench_pipeline(moves: list[Move], label: str) -> None:
    start = Position.initial(find_variant("international"))
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite") as journal:
        service = TableService(journal)
        record = service.start_game("bench", "international")
        observations = list(scripted_observations(start, moves))
        pipeline = LivePipeline(
            ObservationSource(observations), None, RecorderAdapter(record), service, "bench"
        )
        per_frame: list[float] = []
        per_move: list[float] = []
        t0 = time.perf_counter()
        for i, obs in enumerate(observations):  # process() in this thread: no pacing
            frame = Frame(i, obs.time, None, observation=obs)
            a = time.perf_counter()
            written = pipeline.process(frame)
            b = time.perf_counter()
            per_frame.append(b - a)
            if any(e.kind == "move" for e in written):
                per_move.append(b - a)
        total = time.perf_counter() - t0
        assert service.current("bench").ply == len(moves), "the bench game was not recorded"
    emit(
        {
            "part": "pipeline",
            "game": label,
            "frames": len(observations),
            "fps_sustained": round(len(observations) / total, 1),
            "frame": ms(per_frame),
            "move_frame": ms(per_move),
        }
    )


def bench_board(moves: list[Move], label: str, fps: float) -> None:
    """Hand leaves the board -> new position at a WebSocket client, real time at ``fps``."""
    from websockets.sync.client import connect

    start = Position.initial(find_variant("international"))
    observations = list(scripted_observations(start, moves, fps=fps, still_seconds=1.0))
    hand_left: dict[int, float] = {}  # ply -> wall time of the first still frame after it

    class Marked(ObservationSource):
        def __iter__(self):  # type: ignore[no-untyped-def]
            ply = 0
            was_hand = False
            for frame in super().__iter__():
                obs = frame.observation
                assert obs is not None
                if was_hand and obs.occlusion == 0:
                    ply += 1
                    hand_left[ply] = time.perf_counter()
                was_hand = obs.occlusion > 0
                yield frame

    received: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(table="b", journal=Path(tmp) / "j.sqlite")
        with (
            serve_source(settings, Marked(observations, realtime=True)) as port,
            connect(f"ws://127.0.0.1:{port}/ws/tables/b") as ws,
        ):
            deadline = time.monotonic() + len(observations) / fps + 10
            while len(received) < len(moves) and time.monotonic() < deadline:
                message = json.loads(ws.recv(timeout=5))
                n = len(message["state"]["moves"]) if message["type"] == "state" else 0
                if n:
                    received.setdefault(n, time.perf_counter())
    delays = [received[p] - hand_left[p] for p in received if p in hand_left]
    emit(
        {
            "part": "board",
            "game": label,
            "fps": fps,
            "moves": len(delays),
            "hand_left_to_board": ms(delays),
        }
    )


def bench_memory(hours: float, moves: list[Move], label: str) -> None:
    frames_total = int(hours * 3600 * 10)
    still = max(1.0, hours * 3600 / max(1, len(moves)) - 0.6)
    start = Position.initial(find_variant("international"))
    samples: list[tuple[int, float]] = []
    every = max(1, frames_total // 60)
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite") as journal:
        service = TableService(journal)
        record = service.start_game("mem", "international")
        pipeline = LivePipeline(
            ObservationSource([]), None, RecorderAdapter(record), service, "mem"
        )
        stream = scripted_observations(start, moves, fps=10.0, still_seconds=still)
        t0 = time.perf_counter()
        for i, obs in enumerate(stream):
            pipeline.process(Frame(i, obs.time, None, observation=obs))
            if i % every == 0:
                samples.append((i, rss_mb()))
        frames_done = i + 1
        elapsed = time.perf_counter() - t0
        plies = service.current("mem").ply
    warm = samples[len(samples) // 4][1]  # after the first quarter: caches filled
    emit(
        {
            "part": "memory",
            "game": label,
            "game_hours": hours,
            "frames": frames_done,
            "frames_planned": frames_total,
            "plies": plies,
            "seconds": round(elapsed, 1),
            "rss_mb_start": round(samples[0][1], 1),
            "rss_mb_after_warmup": round(warm, 1),
            "rss_mb_end": round(samples[-1][1], 1),
            "growth_mb_after_warmup": round(samples[-1][1] - warm, 2),
        }
    )


def vision_game(plies: int) -> None:
    """Render the demo's game at 1280x960 once; both vision parts play it."""
    try:
        vision_recognizer(Settings())
    except VisionUnavailableError as exc:
        emit({"part": "vision", "input": "1280x960", "status": "missing", "detail": str(exc)})
        return
    with tempfile.TemporaryDirectory() as tmp:
        video, truth, moves = render_vision_game(Path(tmp), plies)
        bench_vision(video, truth, moves)
        bench_vision_board(video, truth, len(moves))


PARTS = ("capture", "vision", "pipeline", "board", "memory")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--hours", type=float, default=2.0, help="length of the memory game")
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated parts to run, of {','.join(PARTS)} (vision runs both vision parts)",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if unknown := parts - set(PARTS):
        parser.error(f"unknown parts {sorted(unknown)}; choose from {','.join(PARTS)}")
    core = pin_one_core()
    emit({"part": "setup", "core": core, "quick": args.quick, "parts": sorted(parts)})
    moves, label = game_moves(20 if args.quick else 80)
    if "capture" in parts:
        bench_capture(30 if args.quick else 200)
    if "vision" in parts:
        vision_game(4 if args.quick else 12)
    if "pipeline" in parts:
        bench_pipeline(moves, label)
    if "board" in parts:
        for fps in (CameraSettings().fps, 10.0):  # the device camera's rate, and the floor
            bench_board(moves[: 6 if args.quick else 20], label, fps)
    if "memory" in parts:
        bench_memory(0.05 if args.quick else args.hours, moves, label)


if __name__ == "__main__":
    main()

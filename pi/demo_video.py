"""Build the game video that ``damcam demo`` plays (``pi/demo/``).

A developer's tool, run once when the demo changes, not at demo time:

    python -m pi.demo_video            # writes pi/demo/demo.mp4 and pi/demo/demo.json

The game is a generated legal one (the real game records in ../shared/data may not be
copied into the repository), rendered by synth at tournament conditions (ArUco markers,
a camera a little off overhead, hall light, a hand playing every move) and then
compressed with H.264 the way a real camera stream is, so the demo exercises the same
compression the live device sees. The JSON beside it holds the moves, so the demo can
say which game it plays and a test can check the recording against it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from pi.replay import generated_game
from rules import Position, find_variant
from synth.game import Timing, write_game
from synth.scene import Style

DEMO_DIR = Path(__file__).parent / "demo"
VARIANT = "international"
PLIES = 30
GAME_SEED = 2026
FRAME_SIZE = (800, 600)
H264_CRF = 30
"""Constant-rate-factor of the H.264 encode: sensor noise makes frames expensive; 30 keeps
the 30-ply game near 3 MB (28 made it 4.2 MB) and it is still recorded exactly on the
three boards measured (docs/pi.md)."""
TIMING = Timing(fps=15.0, enter=6, carry=9, per_capture=5, crown=6, leave=6, still=15)
"""15 frames a second, the device camera's rate (``CameraSettings.fps``), so the demo board
is as quick as a table's; the phases keep synth's default durations, with a second
between one player's hand leaving and the other's arriving: quicker than any real game,
and long enough for the recorder to see the board settle."""


LEAD_IN_SECONDS = 3.0
"""The start position stands this long before the first move, as it does at a table while
the players sit down: the table calibrates itself from it (:mod:`pi.wiring`), and a demo
played in real time on a busy machine must get a few frames of it analysed."""


BOARD = "wood-light"
"""The board of the bundled video; ``--board`` renders another of synth's boards."""


def demo_style(seed: int = 7, board: str = BOARD) -> Style:
    """Tournament conditions: markers, a 12 degree tilt, warm hall light, mild noise."""
    return Style(
        seed=seed,
        variant=VARIANT,
        board=board,
        pieces="white-black",
        markers=True,
        coordinates=True,
        border_mm=32.0,
        tilt_deg=12.0,
        azimuth_deg=3.0,
        fill=0.88,
        light_azimuth_deg=40.0,
        light_elevation_deg=65.0,
        colour_temp_k=4200.0,
        noise_sigma=1.5,
    )


def encode_h264(sources: list[Path], target: Path, crf: int = H264_CRF) -> None:
    """Join ``sources`` (videos of one size and rate) and re-encode them with ffmpeg's
    libx264 (yuv420p, so every player takes it).

    :raises RuntimeError: ffmpeg is missing or fails (its message is included).
    """
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is not installed (scripts/setup installs it)")
    playlist = target.with_name(target.name + ".parts.txt")
    playlist.write_text("".join(f"file '{s.resolve()}'\n" for s in sources), encoding="utf-8")
    command = [ffmpeg, "-loglevel", "error", "-y", "-f", "concat", "-safe", "0"]
    command += ["-i", str(playlist), "-c:v", "libx264", "-preset", "slow", "-crf", str(crf)]
    command += ["-pix_fmt", "yuv420p", "-an", str(target)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    finally:
        playlist.unlink()
    if done.returncode != 0:
        names = ", ".join(str(s) for s in sources)
        raise RuntimeError(f"ffmpeg failed on {names}: {done.stderr.strip()}")


def build_demo(
    out: Path = DEMO_DIR, *, plies: int = PLIES, seed: int = GAME_SEED, board: str = BOARD
) -> Path:
    """Render, compress and describe the demo game; returns the video's path."""
    variant = find_variant(VARIANT)
    start = Position.initial(variant)
    moves = generated_game(start, plies, seed=seed)
    style = demo_style(board=board)
    out.mkdir(parents=True, exist_ok=True)
    video = out / "demo.mp4"
    lead_in = replace(TIMING, still=round(LEAD_IN_SECONDS * TIMING.fps))
    with tempfile.TemporaryDirectory() as scratch:
        board, game = Path(scratch) / "start", Path(scratch) / "game"
        write_game(start, [], style, board, timing=lead_in, size=FRAME_SIZE)
        write_game(start, moves, style, game, timing=TIMING, size=FRAME_SIZE)
        encode_h264([board / "game.mp4", game / "game.mp4"], video)
    description = {
        "variant": variant.name,
        "moves": [str(m) for m in moves],
        "game_seed": seed,
        "fps": TIMING.fps,
        "lead_in_seconds": LEAD_IN_SECONDS,
        "size": list(FRAME_SIZE),
        "codec": f"h264 crf {H264_CRF}",
        "style": style.as_dict(),
    }
    video.with_suffix(".json").write_text(json.dumps(description, indent=1) + "\n")
    return video


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEMO_DIR)
    parser.add_argument("--plies", type=int, default=PLIES)
    parser.add_argument("--seed", type=int, default=GAME_SEED)
    parser.add_argument("--board", default=BOARD, help="synth's board style")
    args = parser.parse_args(argv)
    video = build_demo(args.out, plies=args.plies, seed=args.seed, board=args.board)
    print(f"{video} ({video.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()

"""A game rendered into a camera video, with the truth of every frame.

Clean games are drawn by synth's game renderer (:func:`synth.game.game_frames`): a hand
comes in from the mover's side, carries the piece along its path, takes the captured
pieces off one by one, crowns a moment later and leaves; the camera sways a little.
Games with an injected irregularity cannot be played by that renderer (it only plays
legal moves), so their boards come from :mod:`bench.e2e_script` and each is drawn with
synth's :class:`~synth.render.Renderer`, a hand over the board while it changes.

The frames are encoded as H.264 (libx264 through ``ffmpeg``), as a camera delivers
them, and the recording chain decodes that file like ``damcam record`` does. Without
``ffmpeg`` the video is MPEG-4 part 2 through OpenCV, and the result says which.
"""

from __future__ import annotations

import dataclasses
import math
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from bench.e2e_games import PlayedGame
from bench.e2e_script import Condition, Injection, play_script
from rules import Color, Position, Variant, find_variant
from rules.observation import Top
from rules.pieces import parse_stack
from synth.board_texture import layout_for
from synth.game import Knocks, PutDown, Timing, game_frames
from synth.render import Renderer
from synth.scene import Style
from vision.board_spec import MIN_BORDER_MM

Image = NDArray[np.uint8]
SIZE = (640, 480)
HAND_HEIGHT_MM = 60.0


@dataclass(frozen=True, slots=True)
class FrameFacts:
    """What one frame shows, from the render truth, in the variant's Square order."""

    index: int
    time: float
    hand: bool
    """A hand covers part of the board (a hand beside the board hides nothing)."""
    plies_done: int
    tops: tuple[Top, ...]
    heights: tuple[int, ...]
    centres: tuple[tuple[float, float], ...]
    """Image pixels of each square's centre on the board plane."""


@dataclass(frozen=True, slots=True)
class RenderedVideo:
    """A game on disk as a camera video, with the truth the benchmark checks against."""

    path: Path
    codec: str
    frames: list[FrameFacts]
    hand_left: dict[int, float]
    """Ply -> time of the first frame without a hand after that ply was played."""
    style: Style
    render_seconds: float
    render_cpu_seconds: float


def style_for(variant: Variant, condition: Condition, seed: int) -> Style:
    """A random board and piece style (synth's), within the condition's tilt and light.
    The hard condition takes the full tilt; boards always carry ArUco markers (the
    border widened to fit them), as the device's printed boards do."""
    style = Style.random(seed, variant.name, hand=False)
    rng = random.Random(seed)
    tilt = rng.uniform(0.0, condition.max_tilt_degrees)
    if condition.name == "hard":
        tilt = condition.max_tilt_degrees
    style = dataclasses.replace(
        style,
        markers=True,
        border_mm=max(style.border_mm, MIN_BORDER_MM + 3.0),
        tilt_deg=tilt,
        exposure=style.exposure * condition.light,
    )
    if renderer_glare():  # the condition decides the glare, not the random style
        try:
            return _with_glare(style, GLARE_KNOB * condition.glare)
        except ValueError:  # a style whose lamp cannot make glare: the overlay draws it
            return _with_glare(style, 0.0)
    return style


def _with_glare(style: Style, glare: float) -> Style:
    changes: dict[str, Any] = {"glare": glare}  # a field of newer synth Styles only
    return dataclasses.replace(style, **changes)


GLARE_KNOB = 2.0
"""synth's ``Style.glare`` (0..2, lamp power) per unit of the condition's glare."""


def renderer_glare() -> bool:
    """Whether synth's renderer draws glare itself (a lamp), else :class:`Glare` does."""
    return "glare" in {f.name for f in dataclasses.fields(Style)}


def timing_for(condition: Condition) -> Timing:
    """synth's phase lengths at the condition's frame rate: the board stands still for
    ``still_seconds`` between moves (players pause; the hard condition's hurried hands
    pause less)."""
    still = round(condition.still_seconds * condition.fps * (1.0 - 0.5 * condition.extra_hands))
    ponder = round(condition.ponder_seconds * condition.fps)
    usual = Timing()

    def paced(frames: int) -> int:
        return max(1, round(frames / condition.pace))

    return Timing(
        fps=condition.fps,
        enter=paced(usual.enter),
        carry=paced(usual.carry),
        per_capture=paced(usual.per_capture),
        crown=max(2, paced(usual.crown)),  # the disc comes down, then the hand lets go
        leave=paced(usual.leave),
        clock=paced(usual.clock),
        still=max(1, still),
        ponder=ponder,
        ponder_every=condition.ponder_every,
        knock_every=condition.knock_every,
        sloppy_mm=condition.sloppy_mm,
        adjust_every=condition.adjust_every,
    )


# -- glare ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Glare:
    """A lamp's reflection on the board: a bright soft spot fixed in the image (the lamp
    and the camera do not move), washing out the squares under it."""

    centre: tuple[float, float]
    radius_px: float
    strength: float

    @classmethod
    def over_board(cls, corners: list[list[float]], strength: float, seed: int) -> Glare | None:
        if strength <= 0.0:
            return None
        rng = random.Random(seed * 7919 + 1)
        quad = np.asarray(corners, np.float64)
        weights = np.array([rng.random() + 0.2 for _ in range(4)])
        centre = (weights / weights.sum()) @ quad
        side = float(np.linalg.norm(quad[1] - quad[0]))
        return cls((float(centre[0]), float(centre[1])), side * rng.uniform(0.12, 0.2), strength)

    def apply(self, image: Image) -> Image:
        h, w = image.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w]
        d2 = (xs - self.centre[0]) ** 2 + (ys - self.centre[1]) ** 2
        spot = self.strength * 255.0 * np.exp(-d2 / (2.0 * self.radius_px**2))
        bright = np.clip(image.astype(np.float32) + spot[:, :, None], 0, 255)
        return np.asarray(bright, np.uint8)


# -- a hall's light ------------------------------------------------------------------------------

SHADOW_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class HallLight:
    """A hall's light over a game, drawn over the rendered frames: the camera's exposure
    swinging by ``swing`` over ``period_s``, and a spectator's soft shadow drifting across
    the frame in ``shadow_s``, darkening it by up to ``depth``, from each of ``shadows``
    (seconds)."""

    fps: float
    swing: float
    period_s: float
    shadows: tuple[float, ...]
    shadow_s: float = SHADOW_SECONDS
    depth: float = 0.45

    @classmethod
    def for_condition(cls, condition: Condition, seed: int, hours: float = 3.0) -> HallLight | None:
        if condition.exposure_swing <= 0.0 and condition.shadow_every_seconds <= 0.0:
            return None
        rng = random.Random(seed * 7919 + 2)
        shadows: list[float] = []
        every = condition.shadow_every_seconds
        while every > 0.0 and (not shadows or shadows[-1] < 3600.0 * hours):
            after = shadows[-1] + SHADOW_SECONDS if shadows else 0.0  # the last one gone
            shadows.append(after + every * rng.uniform(0.5, 1.5))
        swing, period = condition.exposure_swing, condition.exposure_period_seconds
        return cls(condition.fps, swing, period, tuple(shadows))

    def gain(self, index: int, size: tuple[int, int]) -> np.ndarray:
        """(h, w) multipliers of frame ``index`` at ``size`` (w, h)."""
        t = index / self.fps
        w, h = size
        gain = np.full((h, w), 1.0 + self.swing * math.sin(2.0 * math.pi * t / self.period_s))
        start = max((s for s in self.shadows if s <= t), default=None)
        if start is not None and t < start + self.shadow_s:
            across = (t - start) / self.shadow_s  # its centre crosses the frame left to right
            ys, xs = np.mgrid[0:h, 0:w]
            d = np.hypot((xs - (1.6 * across - 0.3) * w) / (0.35 * w), (ys - 0.5 * h) / (0.8 * h))
            gain *= 1.0 - self.depth * np.clip(1.5 - d, 0.0, 1.0)
        return np.asarray(gain, np.float32)

    def apply(self, image: Image, index: int) -> Image:
        gain = self.gain(index, (image.shape[1], image.shape[0]))
        return np.asarray(np.clip(image.astype(np.float32) * gain[..., None], 0, 255), np.uint8)


# -- encoding -----------------------------------------------------------------------------------


class VideoWriter:
    """Frames -> an H.264 file through ffmpeg (libx264, one thread), else OpenCV's mp4v."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int] = SIZE) -> None:
        self.path = path
        self._proc: subprocess.Popen[bytes] | None = None
        self._cv: cv2.VideoWriter | None = None
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg:
            self.codec = "h264"
            cmd = [
                ffmpeg, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24",
                "-s", f"{size[0]}x{size[1]}", "-r", f"{fps:g}", "-i", "-",
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-threads", "1",
                "-pix_fmt", "yuv420p", str(path),
            ]  # fmt: skip
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
        else:
            self.codec = "mp4v"
            self._cv = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
            if not self._cv.isOpened():
                raise ValueError(f"cannot write a video to {path}")

    def write(self, image: Image) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.write(np.ascontiguousarray(image).tobytes())
        elif self._cv is not None:
            self._cv.write(image)

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            if self._proc.wait() != 0:
                raise ValueError(f"ffmpeg could not encode {self.path}")
        if self._cv is not None:
            self._cv.release()


# -- the two drawers ----------------------------------------------------------------------------


def _facts(index: int, t: float, ply: int, truth: dict[str, Any], v: Variant) -> FrameFacts:
    geometry = v.geometry
    hand = bool(truth["hand"]) and any(x > 0.0 for x in truth["occlusion"].values())
    stacks = [parse_stack(truth["squares"][geometry.name(sq)]) for sq in geometry.squares]
    return FrameFacts(
        index,
        t,
        hand,
        ply,
        tuple(Top.of(s[0] if s else None) for s in stacks),
        tuple(len(s) for s in stacks),
        tuple(tuple(truth["centres"][geometry.name(sq)]) for sq in geometry.squares),
    )


def _game_frames(
    game: PlayedGame, style: Style, condition: Condition
) -> Iterator[tuple[Image, FrameFacts]]:
    """A clean game through synth's game renderer (carried pieces, camera sway)."""
    variant = find_variant(game.variant)
    with Renderer(SIZE) as renderer:
        for image, truth in game_frames(
            renderer, game.start, list(game.moves), style, timing_for(condition)
        ):
            # synth counts a ply from the hand's entry; its pieces stand once the hand leaves.
            done = truth["ply"] if truth["phase"] in ("leave", "still") else truth["ply"] - 1
            facts = _facts(truth["frame"], truth["time"], max(0, done), truth, variant)
            yield image, facts


def _script_frames(
    game: PlayedGame, style: Style, condition: Condition, seed: int, injection: Injection | None
) -> Iterator[tuple[Image, FrameFacts]]:
    """A game of :mod:`bench.e2e_script` (which may hold an injected irregularity), each
    board drawn with a hand over a random square while it changes."""
    variant = find_variant(game.variant)
    script = play_script(game.start, game.moves, condition, seed=seed, injection=injection)
    layout = layout_for(style, variant.geometry)
    rng = random.Random(seed)
    timing = timing_for(condition)
    knocks, put_down = Knocks(timing, style.seed), PutDown(timing, style.seed)
    with Renderer(SIZE) as renderer:
        for frame in script.frames:
            knocks.follow(frame.plies_done + 1, frame.hand)
            position = Position.from_stacks(
                variant, {sq: s for sq, s in enumerate(frame.board) if s}, Color.WHITE
            )
            target = None
            if frame.hand:
                row, col = variant.geometry.rowcol(rng.choice(variant.geometry.squares))
                target = (*layout.cell_centre(row, col), HAND_HEIGHT_MM)
            sway = (
                0.6 * math.sin(frame.index / 9.0) + knocks.shift[0],
                0.6 * math.cos(frame.index / 13.0) + knocks.shift[1],
            )
            rendered = renderer.render_placements(
                position,
                put_down.placed(dict(enumerate(frame.board)), layout, variant.geometry),
                dataclasses.replace(style, roll_deg=style.roll_deg + knocks.turn),
                hand_target=target,
                camera_jitter=sway,
                frame_seed=frame.index,
            )
            facts = _facts(frame.index, frame.time, frame.plies_done, rendered.truth, variant)
            yield rendered.image, facts


def render_video(
    game: PlayedGame,
    condition: Condition,
    seed: int,
    folder: Path,
    injection: Injection | None = None,
) -> RenderedVideo:
    """Render ``game`` into ``folder/game.mp4``; the truth stays in memory."""
    variant = find_variant(game.variant)
    style = style_for(variant, condition, seed)
    drawn = (
        _game_frames(game, style, condition)
        if injection is None
        else _script_frames(game, style, condition, seed, injection)
    )
    path = folder / "game.mp4"
    writer = VideoWriter(path, condition.fps)
    frames: list[FrameFacts] = []
    glare: Glare | None = None
    hall = HallLight.for_condition(condition, seed)
    began, cpu = time.perf_counter(), time.process_time()
    try:
        for image, facts in drawn:
            if not frames and condition.glare > 0 and not getattr(style, "glare", 0.0):
                corners = _corner_pixels(facts, variant)
                glare = Glare.over_board(corners, condition.glare, seed)
            if glare is not None:
                image = glare.apply(image)
            writer.write(hall.apply(image, facts.index) if hall is not None else image)
            frames.append(facts)
    finally:
        writer.close()
    return RenderedVideo(
        path,
        writer.codec,
        frames,
        hand_left_times(frames),
        style,
        time.perf_counter() - began,
        time.process_time() - cpu,
    )


def _corner_pixels(facts: FrameFacts, variant: Variant) -> list[list[float]]:
    """The image corners of the playing grid, from the square centres."""
    location_h = truth_homography(facts, variant)
    n = variant.geometry.size
    pts = np.array([[[0, 0]], [[n, 0]], [[n, n]], [[0, n]]], np.float64)
    return cv2.perspectiveTransform(pts, location_h).reshape(-1, 2).tolist()


def truth_homography(facts: FrameFacts, variant: Variant) -> NDArray[np.float64]:
    """Board plane (square sides, columns and rows as vision's White view numbers them
    with no quarter turn) -> image pixels, fitted to the true square centres."""
    geometry = variant.geometry
    board = np.array(
        [[c + 0.5, r + 0.5] for r, c in (geometry.rowcol(sq) for sq in geometry.squares)],
        np.float64,
    )
    image = np.asarray(facts.centres, np.float64)
    matrix, _ = cv2.findHomography(board, image, 0)
    if matrix is None:
        raise ValueError(f"frame {facts.index}: no homography fits the true square centres")
    return np.asarray(matrix, np.float64)


def hand_left_times(frames: list[FrameFacts]) -> dict[int, float]:
    """Per ply, the time of the first hand-free frame once that ply was complete."""
    out: dict[int, float] = {}
    for f in frames:
        if not f.hand and f.plies_done > 0 and f.plies_done not in out:
            out[f.plies_done] = f.time
    return out

"""The rendered chain: each frame of a script drawn by synth's OpenGL renderer and read
by vision's :class:`~vision.observe.Observer`.

The square classifier is vision's colour-prototype classifier, set up by the table
calibration (:func:`calibration.table.calibrate_start_position`) of the first frame:
the start position, as a table is calibrated when the pieces are set up. Boards carry
ArUco markers (the border widened to fit them).
The frames are rendered and read here, before the recording pipeline runs, so that the
frames-per-second figure of the recording counts vision (``vision_fps``) apart from
rendering (``render_fps``).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.e2e_script import Condition, FrameTruth
from calibration.table import CalibrationError, calibrate_start_position
from rules import Color, Position, Variant
from rules.observation import Observation
from synth.board_texture import layout_for
from synth.pieces import placements
from synth.render import Renderer
from synth.scene import Style
from vision.board_spec import MIN_BORDER_MM
from vision.observe import Observer, ObserverConfig
from vision.prototype import PrototypeClassifier

HAND_HEIGHT_MM = 60.0


def style_for(variant: Variant, condition: Condition, seed: int) -> Style:
    """A random board and piece style within the condition's tilt and light."""
    style = Style.random(seed, variant.name, hand=False)
    tilt = random.Random(seed).uniform(0.0, condition.max_tilt_degrees)
    if condition.name == "hard":
        tilt = condition.max_tilt_degrees
    return dataclasses.replace(
        style,
        markers=True,
        border_mm=max(style.border_mm, MIN_BORDER_MM + 3.0),
        tilt_deg=tilt,
        exposure=style.exposure * condition.light,
    )


@dataclass(frozen=True, slots=True)
class RenderedFrames:
    observations: list[Observation]
    render_seconds: float
    vision_seconds: float
    calibration_error: str | None = None
    """Why the first frame could not calibrate vision (then no frame finds the board)."""


def read_rendered(
    frames: Sequence[FrameTruth], variant: Variant, condition: Condition, seed: int
) -> RenderedFrames:
    """Render every frame and read it with vision."""
    style = style_for(variant, condition, seed)
    layout = layout_for(style, variant.geometry)
    rng = random.Random(seed)
    observer: Observer | None = None
    failure: str | None = None
    observations: list[Observation] = []
    render_s = vision_s = 0.0
    with Renderer((640, 480)) as renderer:
        for truth in frames:
            began = time.perf_counter()
            position = Position.from_stacks(
                variant, {sq: s for sq, s in enumerate(truth.board) if s}, Color.WHITE
            )
            target = None
            if truth.hand:
                row, col = variant.geometry.rowcol(rng.choice(variant.geometry.squares))
                target = (*layout.cell_centre(row, col), HAND_HEIGHT_MM)
            rendered = renderer.render_placements(
                position,
                placements(position, layout),
                style,
                hand_target=target,
                frame_seed=truth.index,
            )
            frame = rendered.image  # BGR, as a camera gives it
            middle = time.perf_counter()
            if observer is None and failure is None:
                try:
                    observer = _calibrated_observer(frame, variant)
                except CalibrationError as exc:
                    failure = str(exc)
            observations.append(
                observer.observe(frame, truth.time)
                if observer is not None
                else Observation(truth.time, (), board_found=False, frame_index=truth.index)
            )
            render_s += middle - began
            vision_s += time.perf_counter() - middle
    return RenderedFrames(observations, render_s, vision_s, failure)


def _calibrated_observer(frame: NDArray[np.uint8], variant: Variant) -> Observer:
    """An observer set up by the table calibration of the first frame (the start
    position): the board's turn and the colours of empty squares and both sides' pieces.

    :raises calibration.table.CalibrationError: the first frame shows no board.
    """
    table = calibrate_start_position(frame, variant, source="first rendered frame")
    classifier = PrototypeClassifier(table.prototypes())
    return Observer(ObserverConfig(), variant, table.registration(), classifier)

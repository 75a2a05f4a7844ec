"""The rendered chain: each frame of a script drawn by synth's OpenGL renderer and read
by vision's :class:`~vision.observe.Observer`.

The square classifier is vision's colour-prototype classifier, learned from the first
frame (the start position, whose content is known): the calibration a table gets when
the pieces are set up. Boards carry ArUco markers (the border widened to fit them).
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

import cv2
import numpy as np
from numpy.typing import NDArray

from bench.e2e_script import Condition, FrameTruth
from rules import Color, Position, Variant
from rules.observation import Observation, Top
from synth.board_texture import layout_for
from synth.pieces import placements
from synth.render import Renderer
from synth.scene import Style
from vision.board_spec import MIN_BORDER_MM
from vision.observe import Observer, ObserverConfig, Registration
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import square_crops

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


def read_rendered(
    frames: Sequence[FrameTruth], variant: Variant, condition: Condition, seed: int
) -> RenderedFrames:
    """Render every frame and read it with vision."""
    style = style_for(variant, condition, seed)
    layout = layout_for(style, variant.geometry)
    rng = random.Random(seed)
    observer: Observer | None = None
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
            frame = np.asarray(cv2.cvtColor(rendered.image, cv2.COLOR_RGB2BGR), np.uint8)
            middle = time.perf_counter()
            if observer is None:
                observer = _calibrated_observer(frame, variant, position)
            observations.append(observer.observe(frame, truth.time))
            render_s += middle - began
            vision_s += time.perf_counter() - middle
    return RenderedFrames(observations, render_s, vision_s)


def _calibrated_observer(frame: NDArray[np.uint8], variant: Variant, start: Position) -> Observer:
    """An observer whose colour prototypes are learned from the start position."""
    config = ObserverConfig()
    probe = Observer(config, variant, Registration(), _Uniform())
    location = probe.tracker.update(frame)
    crops = square_crops(frame, location, variant.geometry)  # type: ignore[arg-type]
    tops = [Top.of(start.piece_at(sq)) for sq in variant.geometry.squares]
    classifier = PrototypeClassifier(ColourPrototypes.learn(crops, tops))
    return Observer(config, variant, Registration(), classifier)


class _Uniform:
    """A classifier with no opinion, for the probe that only finds the board."""

    def predict(self, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
        return np.full((len(crops), len(Top)), 1.0 / len(Top))

"""The e2e's ``hall`` condition's spectator's shadow over a rectified board, for the
tests of the gate and the arm watch (vision.light)."""

from __future__ import annotations

import numpy as np

from bench.e2e_video import SHADOW_SECONDS, HallLight


def shadow(shape: tuple[int, ...], across: float) -> np.ndarray:
    """The ``hall`` condition's shadow (a gain per pixel), ``across`` (0..1) of its way
    over a frame twice the board's size (the board in its middle, as a camera frames
    it)."""
    h, w = shape[:2]
    light = HallLight(fps=10.0, swing=0.0, period_s=30.0, shadows=(0.0,))
    gain = light.gain(round(across * SHADOW_SECONDS * 10), (2 * w, 2 * h))
    return gain[h // 2 : h // 2 + h, w // 2 : w // 2 + w, None]


def in_shadow(image: np.ndarray, across: float) -> np.ndarray:
    return np.asarray(np.clip(image * shadow(image.shape, across), 0, 255), np.uint8)

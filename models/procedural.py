"""Procedurally drawn square crops: a stand-in data source for tests and fallback training.

Written by hand (OpenCV primitives) rather than rendered because it needs no GL context
and runs in milliseconds: a disc seen from above a tilted camera is an ellipse, a stack
shows as a side band under its top disc, one band step per disc, and a king in the
draughts family is two stacked discs of the same colour with a crown mark. The lighter
of the two piece colours is White, as the CLI contract says.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rules.observation import Top


@dataclass(frozen=True, slots=True)
class CropLabel:
    """What one crop shows: the visible top and the number of discs (0 when empty)."""

    top: Top
    height: int


def _luma(rgb: np.ndarray) -> float:
    return float(rgb @ np.array([0.299, 0.587, 0.114]))


def random_piece_colours(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two piece colours, (light, dark): any hues, but the light one above mid-grey
    and the dark one below it, so one crop alone can tell them apart (an odd set, red
    against black say, is what the per-set prototypes are for)."""
    light = rng.integers(0, 256, size=3).astype(np.float64)
    while _luma(light) < 140:
        light = rng.integers(0, 256, size=3).astype(np.float64)
    dark = rng.integers(0, 256, size=3).astype(np.float64)
    while _luma(dark) > 115:
        dark = rng.integers(0, 256, size=3).astype(np.float64)
    return light, dark


def draw_crop(
    rng: np.random.Generator,
    label: CropLabel,
    *,
    size: int = 48,
    light: np.ndarray | None = None,
    dark: np.ndarray | None = None,
    square_rgb: np.ndarray | None = None,
) -> np.ndarray:
    """One ``(size, size, 3)`` uint8 RGB crop showing ``label``.

    Discs below the top are random light/dark (column games); a king-topped stack of
    height 2 in the draughts family is two discs of one colour, which is also how it looks.
    """
    if light is None or dark is None:
        light, dark = random_piece_colours(rng)
    if square_rgb is None:
        square_rgb = rng.integers(0, 256, size=3).astype(np.float64)
    scale = 4  # draw large, then shrink: cheap anti-aliasing
    big = size * scale
    img = np.empty((big, big, 3), np.float64)
    img[:] = square_rgb
    if label.top is not Top.EMPTY:
        top_white = label.top in (Top.WHITE_MAN, Top.WHITE_KING)
        top_colour = light if top_white else dark
        king = label.top in (Top.WHITE_KING, Top.BLACK_KING)
        radius = big * rng.uniform(0.30, 0.40)
        squash = rng.uniform(0.75, 1.0)  # tilt turns circles into ellipses
        step = radius * rng.uniform(0.10, 0.22) * (1.0 - squash + 0.35)
        cx = big / 2 + rng.normal(0, big * 0.04)
        base_y = big / 2 + step * (label.height - 1) / 2 + rng.normal(0, big * 0.04)
        for level in range(label.height):  # bottom disc first, painter's order
            is_top = level == label.height - 1
            under_king = king and level == label.height - 2
            colour = top_colour if is_top or under_king else light if rng.random() < 0.5 else dark
            cy = base_y - step * level
            axes = (int(radius), int(radius * squash))
            edge = np.clip(colour * 0.6, 0, 255)
            cv2.ellipse(img, (int(cx), int(cy + step * 0.6)), axes, 0, 0, 360, edge.tolist(), -1)
            cv2.ellipse(img, (int(cx), int(cy)), axes, 0, 0, 360, colour.tolist(), -1)
            ring = np.clip(colour * 0.8 + 20, 0, 255)
            inner = (int(radius * 0.7), int(radius * 0.7 * squash))
            cv2.ellipse(img, (int(cx), int(cy)), inner, 0, 0, 360, ring.tolist(), max(2, scale))
        if king:
            mark = np.clip(255 - top_colour, 0, 255) * 0.5 + top_colour * 0.5
            cy = int(base_y - step * (label.height - 1))
            r = int(radius * 0.3)
            pts = np.array(
                [[cx - r, cy + r // 2], [cx - r, cy - r], [cx - r // 3, cy], [cx, cy - r],
                 [cx + r // 3, cy], [cx + r, cy - r], [cx + r, cy + r // 2]], np.int32)  # fmt: skip
            cv2.fillPoly(img, [pts], mark.tolist())
    small = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    return np.clip(small, 0, 255).astype(np.uint8)


def random_label(rng: np.random.Generator, *, max_height: int = 8) -> CropLabel:
    """A label drawn to cover every class and tower heights evenly enough to learn."""
    top = Top(int(rng.integers(0, len(Top))))
    if top is Top.EMPTY:
        return CropLabel(top, 0)
    king = top in (Top.WHITE_KING, Top.BLACK_KING)
    low = 2 if king else 1
    height = low if rng.random() < 0.6 else int(rng.integers(low, max_height + 1))
    return CropLabel(top, height)


def procedural_set(
    count: int, *, seed: int, size: int = 48
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` crops ``(N, size, size, 3)`` uint8 with tops ``(N,)`` and heights ``(N,)``."""
    rng = np.random.default_rng(seed)
    crops = np.empty((count, size, size, 3), np.uint8)
    tops = np.empty(count, np.int64)
    heights = np.empty(count, np.int64)
    for i in range(count):
        label = random_label(rng)
        crops[i] = draw_crop(rng, label, size=size)
        tops[i] = label.top
        heights[i] = label.height
    return crops, tops, heights

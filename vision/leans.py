"""Where the stacks on the board may hide it from the camera, and where their shadows
may fall.

Under a tilted camera a column game's tower shows its top beyond its own square: over the
light square next to it, or across the board's border. The hand gate takes a change in
the middle of a light square for a hand, and the arm watch a change across the border
for an arm; both are told what the stacks read in the last frame may cover (as tall as
read and a margin more), and leave it out. A tall tower's cast shadow reaches across the
border too (e2e bashni under `hall`, seed 228: a tower put on the left edge at ply 50,
its shadow an arm for the rest of the game); the arm watch is told where the stacks'
shadows may fall (:func:`stack_shadows`) and there leaves out what changed as a shadow
does. Draughts pieces, two discs at most, reach neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Mask = npt.NDArray[np.bool_]

#: A stack's radius in square sides: men nearly fill their squares.
STACK_RADIUS = 0.45

LOWEST_LIGHT_DEG = 30.0
"""The lowest a lamp over the table stands above the horizon, in degrees (synth's stand 35
to 85): a stack's shadow reaches no further from it than its height over this angle's
tangent."""


@dataclass(frozen=True, slots=True)
class Lean:
    """Where a stack may hide the board, on the board's White-view plane (square sides):
    from its base's centre to where its top's centre appears, ``radius`` wide there (a
    disc higher up is nearer the camera, so larger)."""

    base: tuple[float, float]
    top: tuple[float, float]
    radius: float


def stack_leans(
    centres: npt.NDArray[np.float64],
    heights: npt.NDArray[np.float64],
    camera: npt.NDArray[np.float64],
) -> list[Lean]:
    """The :class:`Lean` of a stack ``heights`` square sides tall on each of ``centres``,
    seen from a camera at ``camera`` (x, y and height, in the same plane): a point at
    height z above p appears where the ray from the camera through it meets the board,
    p + (p - c) z / (h - z)."""
    height = float(camera[2])
    leans = []
    for (x, y), z in zip(centres, heights, strict=True):
        z = min(float(z), 0.8 * height)  # a stack never reaches the camera
        grow = z / (height - z)
        top = (float(x + (x - camera[0]) * grow), float(y + (y - camera[1]) * grow))
        leans.append(Lean((float(x), float(y)), top, STACK_RADIUS * (1 + grow)))
    return leans


def stack_shadows(centres: npt.NDArray[np.float64], heights: npt.NDArray[np.float64]) -> list[Lean]:
    """Where the shadow of a stack ``heights`` square sides tall on each of ``centres`` may
    fall, as a :class:`Lean` that stands still (its base its top): around the stack, as
    far as a lamp no lower than :data:`LOWEST_LIGHT_DEG` casts it, from wherever that
    lamp hangs (vision does not know where)."""
    reach = 1.0 / math.tan(math.radians(LOWEST_LIGHT_DEG))
    return [
        Lean((float(x), float(y)), (float(x), float(y)), STACK_RADIUS + float(z) * reach)
        for (x, y), z in zip(centres, heights, strict=True)
    ]


def lean_mask(leans: list[Lean], *, size: int, cell_px: int, margin_px: int) -> Mask:
    """The pixels ``leans`` may cover in the White-view board image of ``size`` squares
    at ``cell_px`` a square, framed by ``margin_px`` of its border
    (:func:`vision.rectify.warp_board`)."""
    side = size * cell_px + 2 * margin_px
    mask = np.zeros((side, side), np.uint8)

    def px(point: tuple[float, float]) -> tuple[int, int]:
        return round(point[0] * cell_px + margin_px), round(point[1] * cell_px + margin_px)

    for lean in leans:
        width = round(lean.radius * cell_px)
        cv2.line(mask, px(lean.base), px(lean.top), 1, 2 * width)
        for end in (lean.base, lean.top):
            cv2.circle(mask, px(end), width, 1, -1)
    return np.asarray(mask > 0, np.bool_)

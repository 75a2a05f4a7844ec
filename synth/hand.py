"""A player's forearm and hand over the board, as a chain of ellipsoids.

Ellipsoids rather than a skinned hand model: what matters for the vision is a large,
skin-coloured, soft-edged occluder that enters from one side and hides squares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from synth.board_texture import BoardLayout
from synth.scene import RGB, HandStyle, Style

DEFAULT_HAND = HandStyle(
    side="near", target=(0.0, 0.0), height_mm=60.0, skin=(0.78, 0.58, 0.45), sleeve=(0.2, 0.25, 0.4)
)
_SIDES = {"left": (1.0, 0.0), "right": (-1.0, 0.0), "near": (0.0, 1.0), "far": (0.0, -1.0)}


@dataclass(frozen=True)
class Part:
    """A unit sphere stretched, turned and placed by ``model``, in ``colour``."""

    model: NDArray[np.float64]
    colour: RGB


def _ellipsoid(
    centre: NDArray[np.float64], axis: NDArray[np.float64], radii: tuple[float, float, float]
) -> NDArray[np.float64]:
    """Model matrix of an ellipsoid whose first radius lies along ``axis``."""
    x = axis / np.linalg.norm(axis)
    up = np.array([0.0, 0.0, 1.0])
    y = np.cross(up, x)
    y /= np.linalg.norm(y)
    z = np.cross(x, y)
    m = np.eye(4)
    m[:3, :3] = np.stack([x, y, z], axis=1) @ np.diag(radii)
    m[:3, 3] = centre
    return m


def hand_parts(
    style: Style, layout: BoardLayout, target: tuple[float, float, float] | None
) -> list[Part]:
    """The parts of the style's hand reaching to ``target`` (world mm), or none at all."""
    hand = style.hand
    if hand is None and target is None:
        return []
    hand = hand or DEFAULT_HAND
    if target is None:
        tx, ty = (c * layout.square_mm for c in hand.target)
        target = (tx, ty, hand.height_mm)
    s = layout.square_mm / 40.0  # hands scale with the board (a 40 mm square = an adult hand)
    dx, dy = _SIDES[hand.side]
    skew = math.radians(((style.seed * 37) % 41) - 20)  # the arm comes in a little askew
    c, sn = math.cos(skew), math.sin(skew)
    reach = np.array([dx * c - dy * sn, dx * sn + dy * c, -0.25])  # slopes down to the hand
    reach /= np.linalg.norm(reach)
    tip = np.array(target, dtype=np.float64) + np.array([0.0, 0.0, 18.0 * s])
    palm = tip - reach * 45 * s
    wrist = palm - reach * 55 * s
    forearm = wrist - reach * 120 * s
    sleeve = forearm - reach * 190 * s
    side = np.cross(np.array([0.0, 0.0, 1.0]), reach)
    side /= np.linalg.norm(side)
    parts = [
        Part(_ellipsoid(sleeve, reach, (170 * s, 55 * s, 50 * s)), hand.sleeve),
        Part(_ellipsoid(forearm, reach, (125 * s, 36 * s, 30 * s)), hand.skin),
        Part(_ellipsoid(palm, reach, (55 * s, 42 * s, 16 * s)), hand.skin),
    ]
    for offset in (-1.5, -0.5, 0.5, 1.5):
        finger = tip + side * offset * 12 * s - np.array([0.0, 0.0, 6.0 * s])
        parts.append(Part(_ellipsoid(finger, reach, (30 * s, 6.5 * s, 6.0 * s)), hand.skin))
    thumb = palm + side * 42 * s + reach * 10 * s
    parts.append(Part(_ellipsoid(thumb, reach + side * 0.8, (28 * s, 8 * s, 8 * s)), hand.skin))
    return parts

"""A player's forearm, sleeve and hand over the table, with fingers that grip.

Built from stretched spheres (palm, finger joints, forearm) and a cylinder (the sleeve)
rather than a skinned model: what matters for vision is a skin-coloured occluder of the
right size that enters from one side, with fingers round the piece it carries or on the
clock's button it presses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from synth.board_texture import BoardLayout
from synth.scene import RGB, HandStyle, Style

F64 = NDArray[np.float64]
UP = np.array([0.0, 0.0, 1.0])

DEFAULT_HAND = HandStyle(
    side="near", target=(0.0, 0.0), height_mm=60.0, skin=(0.78, 0.58, 0.45), sleeve=(0.2, 0.25, 0.4)
)
_SIDES = {"left": (1.0, 0.0), "right": (-1.0, 0.0), "near": (0.0, 1.0), "far": (0.0, -1.0)}
#: Where the sleeve's cuff ends, in mm behind the wrist (for a hand of a 40 mm square).
_CUFF_MM = {"short": 250.0, "three-quarter": 120.0, "long": 12.0}
_ARM_MM = 900.0
"""Length of arm drawn behind the wrist: enough to leave any image."""
#: Fingers across the hand (index first), as offsets in finger widths from the middle.
_FINGERS = ((1.5, 8.0), (0.5, 8.5), (-0.5, 8.0), (-1.5, 6.5))


@dataclass(frozen=True)
class Part:
    """A unit mesh (``sphere`` or ``cylinder``) stretched, turned and placed by ``model``."""

    model: F64
    colour: RGB
    mesh: str = "sphere"


def _frame(axis: F64) -> F64:
    """Columns: ``axis`` normalised, then two unit vectors square to it."""
    x = axis / np.linalg.norm(axis)
    helper = UP if abs(float(x @ UP)) < 0.95 else np.array([1.0, 0.0, 0.0])
    y = np.cross(helper, x)
    y /= np.linalg.norm(y)
    return np.stack([x, y, np.cross(x, y)], axis=1)


def _ellipsoid(centre: F64, axis: F64, radii: tuple[float, float, float]) -> F64:
    """Model matrix of a unit sphere stretched to ``radii``, the first along ``axis``."""
    m = np.eye(4)
    m[:3, :3] = _frame(axis) @ np.diag(radii)
    m[:3, 3] = centre
    return m


def _segment(a: F64, b: F64, radius: float) -> F64:
    """An ellipsoid from joint ``a`` to joint ``b`` (overlapping both a little)."""
    half = float(np.linalg.norm(b - a)) / 2 + 0.6 * radius
    return _ellipsoid((a + b) / 2, b - a, (half, radius, radius * 0.9))


def _finger(base: F64, bend: F64, tip: F64, radius: float, colour: RGB) -> list[Part]:
    """Three phalanges along the quadratic curve base -> (bend) -> tip."""
    ts = (0.0, 0.4, 0.75, 1.0)
    joints = [(1 - t) ** 2 * base + 2 * (1 - t) * t * bend + t**2 * tip for t in ts]
    return [
        Part(_segment(joints[i], joints[i + 1], radius * (1.0 - 0.08 * i)), colour)
        for i in range(3)
    ]


def hand_parts(
    style: Style,
    layout: BoardLayout,
    target: tuple[float, float, float] | None,
    *,
    pose: str | None = None,
    grip_radius_mm: float = 0.0,
) -> list[Part]:
    """The parts of the style's hand acting at ``target`` (world mm), or none at all.

    ``target`` is where the fingers meet: the middle of the rim they pinch (``pinch``,
    round a piece of ``grip_radius_mm``), the button the index presses (``press``), or
    under the loosely hanging fingertips (``relaxed``). Without a target the style's
    own hand (if any) hangs at its ``target`` squares and ``height_mm``.
    """
    hand = style.hand
    if hand is None and target is None:
        return []
    hand = hand or DEFAULT_HAND
    pose = pose or hand.pose
    if target is None:
        tx, ty = (c * layout.square_mm for c in hand.target)
        target = (tx, ty, hand.height_mm)
    s = layout.square_mm / 40.0  # hands scale with the board (a 40 mm square = an adult hand)
    dx, dy = _SIDES[hand.side]
    skew = math.radians(((style.seed * 37) % 41) - 20)  # the arm comes in a little askew
    c, sn = math.cos(skew), math.sin(skew)
    ahead = np.array([dx * c - dy * sn, dx * sn + dy * c, 0.0])  # level, into the hand
    left = np.cross(UP, ahead)
    reach = ahead - 0.25 * UP  # the forearm slopes down to the hand
    reach /= np.linalg.norm(reach)
    point = np.array(target, dtype=np.float64)
    grip = max(grip_radius_mm, 10.0 * s)
    skin = hand.skin

    # Palm above and behind where the fingers act; knuckles along its front edge.
    if pose == "pinch":
        palm = point - ahead * 8 * s + UP * (grip * 0.6 + 30 * s)
    elif pose == "press":
        palm = point - ahead * 40 * s + UP * 48 * s
    else:
        palm = point - ahead * 50 * s + UP * 30 * s
    knuckles = [palm + ahead * 36 * s + left * o * 17 * s - UP * 6 * s for o, _ in _FINGERS]
    parts = [Part(_ellipsoid(palm, reach, (48 * s, 40 * s, 15 * s)), skin)]
    for i, ((o, width), knuckle) in enumerate(zip(_FINGERS, knuckles, strict=True)):
        curled = knuckle + ahead * 10 * s - UP * 20 * s
        if pose == "pinch":
            # Index and middle on the far side of the rim, ring and little curled in.
            tip = point + ahead * (grip + 4 * s) + left * (o - 0.5) * 7 * s if i < 2 else curled
        elif pose == "press":
            tip = point if i == 0 else curled
        else:
            tip = knuckle + ahead * 48 * s - UP * 24 * s
        bend = knuckle + ahead * 0.7 * float(np.linalg.norm(tip - knuckle)) + UP * 4 * s
        parts += _finger(knuckle, bend, tip, width / 2 * s * 1.1, skin)
    # The thumb opposes the fingers: on the near side of the rim when pinching.
    thumb_base = palm - ahead * 22 * s + left * 36 * s - UP * 4 * s
    if pose == "pinch":
        thumb_tip = point - ahead * (grip + 4 * s) + left * 4 * s
    else:
        thumb_tip = thumb_base + ahead * 40 * s + left * 6 * s - UP * 18 * s
    thumb_bend = (thumb_base + thumb_tip) / 2 + left * 14 * s
    parts += _finger(thumb_base, thumb_bend, thumb_tip, 10 * s, skin)

    # Wrist, forearm, then the sleeve (a cylinder) from its cuff back out of the picture.
    wrist = palm - reach * 55 * s
    forearm = wrist - reach * 120 * s
    parts.append(Part(_ellipsoid(wrist, reach, (40 * s, 30 * s, 20 * s)), skin))
    parts.append(Part(_ellipsoid(forearm, reach, (130 * s, 36 * s, 30 * s)), skin))
    cuff = _CUFF_MM[hand.sleeve_length] * s
    if hand.sleeve_length == "short":  # bare elbow and upper arm up to the sleeve
        elbow = _ellipsoid(wrist - reach * 260 * s, reach, (90 * s, 38 * s, 34 * s))
        parts.append(Part(elbow, skin))
    length = _ARM_MM * s
    sleeve = np.eye(4)
    sleeve[:3, :3] = _frame(reach) @ np.diag([length / 2, 48 * s, 44 * s])
    sleeve[:3, 3] = wrist - reach * (cuff + length / 2)
    parts.append(Part(sleeve, hand.sleeve, "cylinder"))
    return parts

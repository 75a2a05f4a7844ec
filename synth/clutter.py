"""Things on the table beside the board: a chess clock and the players' scoresheets.

Everything here stands off the board (never on the playing grid: only hands reach over
it), placed from the style's seed so a game's frames agree. World millimetres, as in
:mod:`synth.scene`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.variants import Color
from synth.board_texture import BoardLayout
from synth.meshes import model_matrix
from synth.scene import RGB, Style

BOARD_THICKNESS_MM = 14.0
"""The board's slab: the table top lies this far under the board's face (z = 0)."""

CLOCK_SIZE_MM = (75.0, 170.0, 50.0)
"""Depth (across the board's side), length (along it), height of the clock's body."""
BUTTON_SIZE_MM = (30.0, 34.0, 12.0)
BUTTON_PRESSED_MM = 3.0
"""How far a pressed button still stands out of the body."""
SHEET_MM = (148.0, 210.0)
"""A5 scoresheet, width and length."""

_CLOCK_BODIES: tuple[RGB, ...] = ((0.08, 0.08, 0.09), (0.25, 0.25, 0.27), (0.38, 0.22, 0.11))
_BUTTONS: tuple[RGB, ...] = ((0.05, 0.05, 0.05), (0.55, 0.08, 0.06), (0.7, 0.7, 0.72))
_LCD: RGB = (0.60, 0.65, 0.56)


@dataclass(frozen=True)
class Item:
    """One mesh (``box`` or ``quad``) placed by ``model``, with a look the renderer shades.

    ``look``: ``plastic`` (clock body and buttons), ``lcd`` (the displays), ``paper``
    (a scoresheet, textured). Every item counts as clutter in the occlusion truth.
    """

    mesh: str
    model: NDArray[np.float64]
    colour: RGB
    look: str
    casts_shadow: bool = True


@dataclass(frozen=True)
class Clock:
    """Where the clock stands: centre (x, y) on the table, turn about z, and its look."""

    x: float
    y: float
    angle: float
    body: RGB
    buttons: RGB
    outward: float
    """+1 if the clock's outer side faces +x (clock on the right), -1 on the left."""

    def to_world(self, local: NDArray[np.float64]) -> NDArray[np.float64]:
        """Points in the clock's frame (x outward, y towards Black, z up from the table)."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        x = local[:, 0] * self.outward
        world = np.stack(
            [
                self.x + c * x - s * local[:, 1],
                self.y + s * x + c * local[:, 1],
                local[:, 2] - BOARD_THICKNESS_MM,
            ],
            axis=1,
        )
        return np.asarray(world, dtype=np.float64)

    def button(self, side: Color, pressed: bool) -> NDArray[np.float64]:
        """World centre of the top of ``side``'s button (White's is on White's side)."""
        along = -45.0 if side is Color.WHITE else 45.0
        height = CLOCK_SIZE_MM[2] + (BUTTON_PRESSED_MM if pressed else BUTTON_SIZE_MM[2])
        return np.asarray(self.to_world(np.array([[-8.0, along, height]]))[0], dtype=np.float64)

    def top_corners(self) -> NDArray[np.float64]:
        depth, length, height = CLOCK_SIZE_MM
        local = np.array(
            [
                [-depth / 2, -length / 2, height],
                [depth / 2, -length / 2, height],
                [depth / 2, length / 2, height],
                [-depth / 2, length / 2, height],
            ]
        )
        return self.to_world(local)


def place_clock(style: Style, layout: BoardLayout) -> Clock | None:
    """The style's clock beside the board, or None. Its footprint keeps off the board."""
    if style.clock == "none":
        return None
    rng = np.random.default_rng((style.seed, 4241))
    angle = math.radians(float(rng.uniform(-10, 10)))
    depth, length, _ = CLOCK_SIZE_MM
    # Half the turned footprint across the board's side, so the gap is to its nearest corner.
    reach = depth / 2 * abs(math.cos(angle)) + length / 2 * abs(math.sin(angle))
    outward = -1.0 if style.clock == "left" else 1.0
    x = outward * (layout.width_mm / 2 + float(rng.uniform(30, 110)) + reach)
    y = float(rng.uniform(-0.12, 0.12)) * layout.width_mm
    body = _CLOCK_BODIES[int(rng.integers(len(_CLOCK_BODIES)))]
    buttons = _BUTTONS[int(rng.integers(len(_BUTTONS)))]
    return Clock(x, y, angle * outward, body, buttons, outward)


def clock_items(clock: Clock, pressed: Color | None) -> list[Item]:
    """Body, two buttons (``pressed`` side's down), two displays on the top's outer edge."""
    depth, _, height = CLOCK_SIZE_MM
    items = [
        Item(
            "box",
            model_matrix(
                clock.to_world(np.array([[0.0, 0.0, height / 2]]))[0], CLOCK_SIZE_MM, clock.angle
            ),
            clock.body,
            "plastic",
        )
    ]
    for side in (Color.WHITE, Color.BLACK):
        down = side is pressed
        top = clock.button(side, down)
        stands = BUTTON_PRESSED_MM if down else BUTTON_SIZE_MM[2]
        centre = top - np.array([0.0, 0.0, stands / 2])
        size = (BUTTON_SIZE_MM[0], BUTTON_SIZE_MM[1], stands)
        items.append(Item("box", model_matrix(centre, size, clock.angle), clock.buttons, "plastic"))
        along = -42.0 if side is Color.WHITE else 42.0
        lcd = clock.to_world(np.array([[depth / 2 - 14.0, along, height + 0.3]]))[0]
        items.append(
            Item("quad", model_matrix(lcd, (18.0, 52.0, 1.0), clock.angle), _LCD, "lcd", False)
        )
    return items


def scoresheet_items(style: Style, layout: BoardLayout) -> list[Item]:
    """Each scoresheet flat on the table in front of its player, to his right, off the board."""
    if style.scoresheet == "none":
        return []
    rng = np.random.default_rng((style.seed, 6151))
    players = {"white": (Color.WHITE,), "black": (Color.BLACK,), "both": (Color.WHITE, Color.BLACK)}
    items = []
    for player in players[style.scoresheet]:
        toward = -1.0 if player is Color.WHITE else 1.0  # White sits at -y
        turn = math.radians(float(rng.uniform(-12, 12)))
        width, length = SHEET_MM
        reach = length / 2 * abs(math.cos(turn)) + width / 2 * abs(math.sin(turn))
        y = toward * (layout.width_mm / 2 + float(rng.uniform(15, 60)) + reach)
        x = -toward * float(rng.uniform(0.1, 0.45)) * layout.width_mm  # the player's right
        angle = turn + (0.0 if player is Color.WHITE else math.pi)
        centre = np.array([x, y, 0.4 - BOARD_THICKNESS_MM])
        items.append(
            Item("quad", model_matrix(centre, (width, length, 1.0), angle), (1, 1, 1), "paper")
        )
    return items

"""Where each disc of each stack stands: stacks on squares, or a piece in a player's hand."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from rules.pieces import Piece, Stack
from rules.position import Position
from rules.variants import Color
from synth.board_texture import BoardLayout
from synth.scene import PIECE_SCHEMES, RGB, Style

#: Discs are a few mm under the square (diameter) and a quarter to a fifth as tall.
DIAMETER_OF_SQUARE = 0.86
HEIGHT_OF_DIAMETER = 0.22
STRIPE_NEUTRAL: RGB = (0.72, 0.62, 0.35)


@dataclass(frozen=True)
class Placement:
    """A stack (top first) standing at world ``(x, y)``, ``lift_mm`` above the board.

    ``square`` is the playing square it stands on, or None while it is being carried.
    """

    stack: Stack
    x: float
    y: float
    square: int | None
    lift_mm: float = 0.0


@dataclass(frozen=True)
class Disc:
    """One disc: bottom centre, radius, height, colour, turn about its axis, king stripe."""

    x: float
    y: float
    z: float
    radius: float
    height: float
    colour: RGB
    angle: float
    stripe: bool
    crown: bool = False
    """A crown sticker on the top face (a crowned draughts king)."""


def placements(position: Position, layout: BoardLayout) -> list[Placement]:
    """Every occupied square's stack at the centre of its square."""
    geometry = position.variant.geometry
    placed = []
    for square, stack in position.stacks():
        x, y = layout.cell_centre(*geometry.rowcol(square))
        placed.append(Placement(stack, x, y, square))
    return placed


def disc_size(layout: BoardLayout, style: Style | None = None) -> tuple[float, float]:
    """(radius, height) of one disc on this board (``style`` may make pieces taller)."""
    diameter = layout.square_mm * DIAMETER_OF_SQUARE
    scale = 1.0 if style is None else style.piece_height
    return diameter / 2, diameter * HEIGHT_OF_DIAMETER * scale


def disc_layers(piece: Piece, towers: bool, king_mark: str = "stack") -> int:
    """Discs one piece is made of: a draughts king is two, unless its set crowns kings."""
    return 2 if (piece.king and not towers and king_mark == "stack") else 1


def disc_count(stack: Stack, towers: bool, king_mark: str = "stack") -> int:
    """Discs in a stack as the camera sees them: a draughts king is two discs, unless
    its set crowns kings."""
    return sum(disc_layers(p, towers, king_mark) for p in stack)


def stack_height(
    stack: Stack, towers: bool, layout: BoardLayout, style: Style | None = None
) -> float:
    """Height in mm of a stack: draughts kings are two discs (one when crowned),
    column-game kings one."""
    _, height = disc_size(layout, style)
    king_mark = "stack" if style is None else style.king_mark
    return height * disc_count(stack, towers, king_mark)


def discs(placed: list[Placement], style: Style, towers: bool, layout: BoardLayout) -> list[Disc]:
    """The discs of every placement, bottom to top, each a little off-centre and turned.

    The jitter is seeded by the style and the square, so a piece sits the same way in
    every frame of a game until it moves.
    """
    radius, height = disc_size(layout, style)
    white, black = PIECE_SCHEMES[style.pieces]
    result = []
    for p in placed:
        key = f"{style.seed}:{p.square}:{p.x:.1f}:{p.y:.1f}".encode()
        rng = np.random.default_rng(zlib.crc32(key))
        z = p.lift_mm
        for piece in reversed(p.stack):
            colour = white if piece.color is Color.WHITE else black
            shade = 1.0 + float(rng.normal(0, 0.03))
            tinted: RGB = (colour[0] * shade, colour[1] * shade, colour[2] * shade)
            layers = disc_layers(piece, towers, style.king_mark)
            crowned = piece.king and not towers and layers == 1
            for _ in range(layers):
                dx, dy = rng.normal(0, style.piece_jitter_mm, 2)
                result.append(
                    Disc(
                        x=p.x + float(dx),
                        y=p.y + float(dy),
                        z=z,
                        radius=radius,
                        height=height,
                        colour=tinted,
                        angle=float(rng.uniform(0, 2 * math.pi)),
                        stripe=piece.king and towers,
                        crown=crowned,
                    )
                )
                z += height
    return result

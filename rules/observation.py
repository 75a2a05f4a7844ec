"""Observation: the contract between vision and the recorder (DESIGN.md).

Vision emits one per processed frame; the recorder consumes nothing else, so it is
tested without images and vision is tested without rules. Squares are indexed by
:data:`rules.geometry.Square` (reading order, seen from White), whatever the camera's
view: vision's calibration does the turning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Piece


class Top(IntEnum):
    """What an overhead camera can see on top of a square: the classifier's classes."""

    EMPTY = 0
    WHITE_MAN = 1
    WHITE_KING = 2
    BLACK_MAN = 3
    BLACK_KING = 4

    @property
    def piece(self) -> Piece | None:
        return _PIECE_OF_TOP[self]

    @property
    def symbol(self) -> str:
        """``.``, ``w``, ``W``, ``b``, ``B`` as in ``damcam read``'s image grid."""
        return ".wWbB"[self]

    @classmethod
    def of(cls, piece: Piece | None) -> Top:
        if piece is None:
            return cls.EMPTY
        return _TOP_OF_PIECE[piece]


_PIECE_OF_TOP: dict[Top, Piece | None] = {
    Top.EMPTY: None,
    Top.WHITE_MAN: WHITE_MAN,
    Top.WHITE_KING: WHITE_KING,
    Top.BLACK_MAN: BLACK_MAN,
    Top.BLACK_KING: BLACK_KING,
}
_TOP_OF_PIECE = {p: t for t, p in _PIECE_OF_TOP.items() if p is not None}

TOP_COUNT = len(Top)


@dataclass(frozen=True, slots=True)
class SquareReading:
    """What vision read on one playable square.

    ``probs[t]`` is the probability of :class:`Top` ``t`` (they sum to 1). ``height`` is
    the estimated number of discs in the stack with its standard deviation, or None when
    the side of the stack was not visible. ``occluded`` is the fraction of the square hidden
    (by a hand, say) in [0, 1]; an occluded reading carries no evidence.
    """

    probs: tuple[float, float, float, float, float]
    occluded: float = 0.0
    height: float | None = None
    height_sigma: float | None = None

    @classmethod
    def certain(cls, top: Top, *, height: int | None = None) -> SquareReading:
        """A reading that is sure of ``top`` (up to a tiny floor, so logs stay finite)."""
        eps = 1e-6
        probs = [eps] * TOP_COUNT
        probs[top] = 1.0 - eps * (TOP_COUNT - 1)
        return cls(
            tuple(probs),  # type: ignore[arg-type]
            height=None if height is None else float(height),
            height_sigma=None if height is None else 0.25,
        )

    @property
    def best(self) -> Top:
        return Top(max(range(TOP_COUNT), key=self.probs.__getitem__))

    def log_prob(self, top: Top, floor: float = 1e-6) -> float:
        return math.log(max(self.probs[top], floor))


@dataclass(frozen=True, slots=True)
class Observation:
    """One processed frame.

    ``time`` is seconds (the frame's timestamp). ``board_found`` False means nothing in
    ``squares`` can be trusted (``squares`` may then be empty). ``reprojection_error_px``
    measures the board fit. ``occlusion`` is the fraction of the board hidden and
    ``motion`` the fraction of pixels that changed since the last frame, both in [0, 1].
    ``arm``: an arm reaches over the board (vision saw it cross the board's border), so a
    hand is somewhere over it, seen in ``occlusion`` or not (held still, the colour of
    what it covers). ``squares`` has one reading per playable square, indexed by Square.
    """

    time: float
    squares: tuple[SquareReading, ...]
    board_found: bool = True
    reprojection_error_px: float = 0.0
    occlusion: float = 0.0
    motion: float = 0.0
    arm: bool = False
    frame_index: int | None = None

    def grid(self) -> str:
        """Best guess per square in reading order, as ``.wWbB`` letters (for logs)."""
        return "".join(r.best.symbol for r in self.squares)

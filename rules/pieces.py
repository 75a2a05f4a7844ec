"""Pieces and stacks: what stands on a square."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from rules.variants import Color


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece: a colour and a rank. A draughts king is one Piece, physically two discs.

    >>> Piece.from_symbol("W")
    Piece(color=<Color.WHITE: 0>, king=True)
    """

    color: Color
    king: bool = False

    @property
    def symbol(self) -> str:
        """``w``/``b`` for men, ``W``/``B`` for kings (the FEN and tower-string letters)."""
        letter = "w" if self.color is Color.WHITE else "b"
        return letter.upper() if self.king else letter

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        try:
            return _BY_SYMBOL[symbol]
        except KeyError:
            raise ValueError(
                f"unknown piece symbol {symbol!r} (expected one of w, W, b, B)"
            ) from None

    def __str__(self) -> str:
        return self.symbol


WHITE_MAN = Piece(Color.WHITE, False)
WHITE_KING = Piece(Color.WHITE, True)
BLACK_MAN = Piece(Color.BLACK, False)
BLACK_KING = Piece(Color.BLACK, True)
_BY_SYMBOL = {p.symbol: p for p in (WHITE_MAN, WHITE_KING, BLACK_MAN, BLACK_KING)}

Stack: TypeAlias = tuple[Piece, ...]
"""The pieces on one square, top first. Empty tuple: empty square."""


def stack_string(stack: Stack) -> str:
    """Tower string, top first: ``wbb`` is a white man on two black men."""
    return "".join(p.symbol for p in stack)


def parse_stack(text: str) -> Stack:
    return tuple(Piece.from_symbol(ch) for ch in text)

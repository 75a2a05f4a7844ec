"""Errors of the rules core, typed by cause (all bad input is a ValueError)."""

from __future__ import annotations


class RulesError(ValueError):
    """Base class for bad input to the rules core."""


class InvalidMoveError(RulesError):
    """Move text that cannot be a move at all (syntax, unknown square)."""


class IllegalMoveError(RulesError):
    """A well-formed move that is not legal in the position."""


class AmbiguousMoveError(RulesError):
    """Move text that matches several legal moves (e.g. two capture routes)."""


class InvalidFenError(RulesError):
    """A FEN that cannot be read, or describes a position that cannot exist."""


class PDNError(RulesError):
    """A PDN file or game that cannot be read or replayed.

    Carries where it went wrong so that a checker can report it.
    """

    def __init__(self, message: str, *, game: int | None = None, ply: int | None = None) -> None:
        super().__init__(message)
        self.game = game
        self.ply = ply

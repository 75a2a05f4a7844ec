"""Moves as values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rules.geometry import Square

if TYPE_CHECKING:
    from rules.variants import Variant


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the start, every landing square, the squares jumped in order, promotion.

    ``path`` is ``(from, landing_1, ..., landing_k)``; a quiet move has two squares.
    In column draughts the same square can appear twice in ``captures`` (a tower
    jumped twice). ``variant`` only serves printing and is ignored by equality.

    >>> from rules.variants import INTERNATIONAL
    >>> str(Move((31, 27), variant=INTERNATIONAL))
    '32-28'
    """

    path: tuple[Square, ...]
    captures: tuple[Square, ...] = ()
    promotes: bool = False
    variant: Variant | None = field(default=None, compare=False, repr=False)

    @property
    def from_square(self) -> Square:
        return self.path[0]

    @property
    def to_square(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    def duplicate_key(self) -> tuple[Square, Square, frozenset[Square]]:
        """Moves with equal keys reach the same position: FMJD and IDF count them as one
        move (I 4.10 note; S1 §6.9), so move generation keeps only the first."""
        return (self.path[0], self.path[-1], frozenset(self.captures))

    def notation(self, *, full: bool = False) -> str:
        """The move in its variant's notation: ``32-28``, ``19x30``, ``c3:e5:g3``.

        ``full`` lists every landing square; use it when two captures share their ends.
        """
        names = (
            self.variant.geometry.names if self.variant else tuple(str(i + 1) for i in range(100))
        )
        if not self.captures:
            return f"{names[self.path[0]]}-{names[self.path[-1]]}"
        sep = self.variant.capture_separator if self.variant else "x"
        squares = self.path if full else (self.path[0], self.path[-1])
        return sep.join(names[sq] for sq in squares)

    def __str__(self) -> str:
        return self.notation()

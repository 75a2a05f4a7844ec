"""Board geometry: which squares are played, where they are, what they are called.

Coordinates are seen from White's side, as every rules digest draws the board:
``row`` 0 is the row farthest from White (Black's back row) and ``col`` 0 is White's
left. A :data:`Square` is the index of a playable square in *reading order*: row by
row from row 0, left to right. The official names (``1..50``, ``a1..h8``, Portuguese
numbers that start at White's right) are a per-variant view over that order, so the
rest of the code never needs to know them.

For move generation each square also has a *bit* in a padded layout of ``size + 1``
columns per row (one ghost column), so that every diagonal step is a constant shift
and no step wraps from one edge to the other::

    bit(row, col) = row * (size + 1) + col
    up-left   (row-1, col-1): bit - (size + 2)
    up-right  (row-1, col+1): bit - size
    down-left (row+1, col-1): bit + size
    down-right(row+1, col+1): bit + (size + 2)
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import TypeAlias

Square: TypeAlias = int
"""Index of a playable square in reading order (0-based)."""

Bitboard: TypeAlias = int
"""A set of squares as bits in the padded layout described in the module docstring."""


class Naming(Enum):
    """How a variant names its squares in notation."""

    NUMERIC = "numeric"
    ALGEBRAIC = "algebraic"


@dataclass(frozen=True)
class BoardGeometry:
    """The playing grid of one variant.

    >>> g = BoardGeometry(size=10, dark_parity=1)
    >>> g.square_count, g.name(0), g.name(49), g.rowcol(45)
    (50, '1', '50', (9, 0))
    >>> g.parse_square('46')
    45
    """

    size: int
    """Squares per side: 7, 8 or 10."""
    dark_parity: int
    """The playable squares are those with ``(row + col) % 2 == dark_parity``."""
    naming: Naming = Naming.NUMERIC
    number_from_bottom: bool = False
    """Numeric naming starts on White's back row (Portuguese, Lasca) rather than Black's."""
    number_rightward: bool = True
    """Numeric naming runs left to right (False: right to left, Portuguese)."""

    # -- squares and coordinates -------------------------------------------------------

    @cached_property
    def _rowcols(self) -> tuple[tuple[int, int], ...]:
        return tuple(
            (r, c)
            for r in range(self.size)
            for c in range(self.size)
            if (r + c) % 2 == self.dark_parity
        )

    @property
    def square_count(self) -> int:
        return len(self._rowcols)

    @property
    def squares(self) -> range:
        return range(self.square_count)

    def rowcol(self, square: Square) -> tuple[int, int]:
        """Row (0 = Black's back row) and column (0 = White's left) of a square."""
        return self._rowcols[square]

    def square_at(self, row: int, col: int) -> Square | None:
        """The playable square at a grid cell, or None for a light or off-board cell."""
        return self._square_by_rowcol.get((row, col))

    @cached_property
    def _square_by_rowcol(self) -> dict[tuple[int, int], Square]:
        return {rc: sq for sq, rc in enumerate(self._rowcols)}

    # -- names --------------------------------------------------------------------------

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Official name of every square, indexed by :data:`Square`."""
        if self.naming is Naming.ALGEBRAIC:
            files = string.ascii_lowercase
            return tuple(f"{files[c]}{self.size - r}" for r, c in self._rowcols)
        order = sorted(
            self.squares,
            key=lambda sq: (
                (self.size - 1 - self.rowcol(sq)[0])
                if self.number_from_bottom
                else self.rowcol(sq)[0],
                self.rowcol(sq)[1] if self.number_rightward else -self.rowcol(sq)[1],
            ),
        )
        names = [""] * self.square_count
        for number, sq in enumerate(order, start=1):
            names[sq] = str(number)
        return tuple(names)

    @cached_property
    def _square_by_name(self) -> dict[str, Square]:
        return {name: sq for sq, name in enumerate(self.names)}

    def name(self, square: Square) -> str:
        return self.names[square]

    def parse_square(self, text: str) -> Square:
        """Square from its official name; raises :class:`ValueError` naming the text."""
        try:
            return self._square_by_name[text.strip().lower()]
        except KeyError:
            raise ValueError(
                f"unknown square {text!r} on a {self.size}x{self.size} board"
            ) from None

    def numeric_square(self, number: int) -> Square:
        """Square from its PDN number (1-based, in the variant's numbering).

        Algebraic variants use the FMJD/PDN convention of numbering like the 10x10 board:
        row by row from Black's side, left to right.
        """
        if self.naming is Naming.NUMERIC:
            return self.parse_square(str(number))
        if not 1 <= number <= self.square_count:
            raise ValueError(f"square number {number} out of range 1..{self.square_count}")
        return number - 1

    # -- bits ---------------------------------------------------------------------------

    @property
    def stride(self) -> int:
        return self.size + 1

    @cached_property
    def bits(self) -> tuple[int, ...]:
        """Single-bit mask of every square, indexed by :data:`Square`."""
        return tuple(1 << (r * self.stride + c) for r, c in self._rowcols)

    @cached_property
    def square_of_bit(self) -> dict[int, Square]:
        """Inverse of :attr:`bits`: single-bit mask -> square."""
        return {bit: sq for sq, bit in enumerate(self.bits)}

    @cached_property
    def all_squares(self) -> Bitboard:
        mask = 0
        for bit in self.bits:
            mask |= bit
        return mask

    def row_mask(self, row: int) -> Bitboard:
        mask = 0
        for sq, (r, _c) in enumerate(self._rowcols):
            if r == row:
                mask |= self.bits[sq]
        return mask

    def mask_of(self, squares: list[Square] | tuple[Square, ...] | range) -> Bitboard:
        mask = 0
        for sq in squares:
            mask |= self.bits[sq]
        return mask

    def squares_of(self, mask: Bitboard) -> list[Square]:
        """Squares of a bitboard in reading order."""
        out = []
        sq_of = self.square_of_bit
        while mask:
            low = mask & -mask
            out.append(sq_of[low])
            mask ^= low
        out.sort()
        return out

    @cached_property
    def directions(self) -> tuple[int, int, int, int]:
        """Bit offsets of the four diagonal steps: up-left, up-right, down-left, down-right."""
        n = self.size
        return (-(n + 2), -n, n, n + 2)

    @cached_property
    def rays(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """``rays[sq][d]``: the bits met walking from ``sq`` in direction ``d``, nearest first."""
        out = []
        for r, c in self._rowcols:
            per_dir = []
            for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                ray = []
                rr, cc = r + dr, c + dc
                while 0 <= rr < self.size and 0 <= cc < self.size:
                    ray.append(1 << (rr * self.stride + cc))
                    rr, cc = rr + dr, cc + dc
                per_dir.append(tuple(ray))
            out.append(tuple(per_dir))
        return tuple(out)

    def diagonal_between(self, a: Square, b: Square) -> list[Square] | None:
        """Squares strictly between two squares on one diagonal, or None if not on one."""
        (ra, ca), (rb, cb) = self.rowcol(a), self.rowcol(b)
        if a == b or abs(ra - rb) != abs(ca - cb):
            return None
        dr = 1 if rb > ra else -1
        dc = 1 if cb > ca else -1
        between = []
        for k in range(1, abs(rb - ra)):
            sq = self.square_at(ra + k * dr, ca + k * dc)
            assert sq is not None
            between.append(sq)
        return between

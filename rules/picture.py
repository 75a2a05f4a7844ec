"""A settled picture of the board: the visible top of every square that was read with
confidence, as bitboards, so that comparing it with a position is a few integer operations.

The recorder builds one from the evidence of a stable run of frames; the catch-up search
and the arbiter compare positions with it thousands of times.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.geometry import Bitboard, Square
from rules.observation import Top
from rules.pieces import Stack
from rules.position import Position
from rules.variants import Color, Variant


@dataclass(frozen=True, slots=True)
class Picture:
    """Tops as read: ``white``/``black``/``kings`` hold the squares read as such, ``known``
    the squares read with confidence (the others carry no evidence and match anything)."""

    variant: Variant
    white: Bitboard
    black: Bitboard
    kings: Bitboard
    known: Bitboard
    loose: Bitboard = 0
    """Squares read as kings that may be men (see :meth:`loosened`)."""
    filled: Bitboard = 0
    """Unknown squares read with confidence as holding a piece, of a side not read (a
    man a lamp's glare washed out): they match any top, but a piece is there."""

    @classmethod
    def from_tops(cls, variant: Variant, tops: dict[Square, Top]) -> Picture:
        """Picture from the tops read on some squares (the squares left out are unknown)."""
        bits = variant.geometry.bits
        white = black = kings = known = 0
        for sq, top in tops.items():
            bit = bits[sq]
            known |= bit
            if top in (Top.WHITE_MAN, Top.WHITE_KING):
                white |= bit
            elif top in (Top.BLACK_MAN, Top.BLACK_KING):
                black |= bit
            if top in (Top.WHITE_KING, Top.BLACK_KING):
                kings |= bit
        return cls(variant, white, black, kings, known)

    @classmethod
    def of_position(cls, position: Position) -> Picture:
        """What an overhead camera would read on a position, every square known."""
        g = position.variant.geometry
        return cls(position.variant, position.white, position.black, position.kings, g.all_squares)

    def top(self, square: Square) -> Top | None:
        """The top read on a square, None where unknown."""
        bit = self.variant.geometry.bits[square]
        if not self.known & bit:
            return None
        king = bool(self.kings & bit)
        if self.white & bit:
            return Top.WHITE_KING if king else Top.WHITE_MAN
        if self.black & bit:
            return Top.BLACK_KING if king else Top.BLACK_MAN
        return Top.EMPTY

    @property
    def unknown_count(self) -> int:
        return (self.variant.geometry.all_squares & ~self.known).bit_count()

    def mismatch(self, position: Position, tolerate: Bitboard = 0) -> Bitboard:
        """Known squares whose top differs from the position's.

        ``tolerate`` marks squares where a king may still look like a man: a man just
        crowned whose second disc is not on yet (I 3.6), or a king that lost it.
        """
        colour = (position.white ^ self.white) | (position.black ^ self.black)
        return (colour | self._rank_mismatch(position, tolerate)) & self.known

    def _rank_mismatch(self, position: Position, tolerate: Bitboard) -> Bitboard:
        """Squares whose rank differs, less the excused: a king still looking like a man
        where tolerated, a man read as a king where the picture is loose."""
        crowned_man = tolerate & position.kings & ~self.kings
        kinged_man = self.loose & self.kings & ~position.kings
        return (position.kings ^ self.kings) & ~crowned_man & ~kinged_man

    def loosened(self) -> Picture:
        """The picture with every king read taken as maybe a man.

        A camera cannot always tell a man from a king that way (a king is a man with a
        second disc on it; a man seen from a slant, or a tower of two, shows the same
        edge), while the rules know every man's rank from the moves. A king read where a
        man stands is still evidence (of a promotion the camera did not see), so the
        recorder tries the picture as read first and this one only when nothing fits."""
        return dataclasses.replace(self, loose=self.kings & self.known)

    def reachable(
        self, position: Position, tolerate: Bitboard, white_plies: int, black_plies: int
    ) -> bool:
        """Whether so many plies of each side could still turn ``position`` into this
        picture: each ply lands one piece on one square, and a piece leaves its square
        by moving (one per ply of its side) or by being captured (at most the surplus of
        its colour on the board over the picture).

        Column draughts: a capture takes only a tower's top, and the piece under it then
        shows, of either side (column-draughts digest §1.6.1, §1.6.3b). So a square that
        is a tower now may turn to either side with no piece landing on it, and so may
        one where the other side's capture lands (its prisoners under it); and a side's
        count of squares no longer bounds how many of its pieces were taken."""
        rank = self._rank_mismatch(position, tolerate)
        towers = position.towers if position.variant.towers else 0
        for mine, seen, plies, others in (
            (position.white, self.white, white_plies, black_plies),
            (position.black, self.black, black_plies, white_plies),
        ):
            arrive = seen & ~(mine & ~rank) & self.known
            if position.variant.towers:
                if (arrive & ~towers).bit_count() > plies + others:
                    return False
                continue
            if arrive.bit_count() > plies:
                return False
            depart = mine & ~seen & self.known
            surplus = mine.bit_count() - seen.bit_count()
            if depart.bit_count() > plies + max(surplus, 0):
                return False
        return True

    def rotated(self) -> Picture:
        """The picture of the board turned half a turn (square ``i`` becomes ``n - 1 - i``)."""
        g = self.variant.geometry
        last = g.square_count - 1
        tops = {last - sq: t for sq in g.squares if (t := self.top(sq)) is not None}
        return Picture.from_tops(self.variant, tops)

    def grid(self) -> str:
        """Reading-order letters ``.wWbB``, ``?`` where unknown (for events and logs)."""
        return "".join(
            "?" if (t := self.top(sq)) is None else t.symbol for sq in self.variant.geometry.squares
        )

    def position(self, turn: Color, fallback: Position) -> Position:
        """The position on the board: the tops read, and ``fallback`` where nothing was read.

        A tower whose top still matches keeps the pieces below it from ``fallback``
        (the camera cannot see them, column-draughts digest §5.3). On a loose square a
        king read is a man unless ``fallback`` has a king of that colour there.
        """
        stacks: dict[Square, Stack] = {}
        bits = self.variant.geometry.bits
        for sq in self.variant.geometry.squares:
            top = self.top(sq)
            old = fallback.stack(sq)
            if top is None:
                stacks[sq] = old
            elif top is Top.EMPTY:
                continue
            else:
                if self.loose & bits[sq] and not (old and Top.of(old[0]) == top):
                    top = Top.WHITE_MAN if top is Top.WHITE_KING else Top.BLACK_MAN
                piece = top.piece
                assert piece is not None
                stacks[sq] = old if old and old[0] == piece else (piece,)
        return Position.from_stacks(self.variant, stacks, turn)

    def counts(self) -> dict[Top, int]:
        """How many known squares show each top."""
        out = dict.fromkeys(Top, 0)
        for sq in self.variant.geometry.squares:
            t = self.top(sq)
            if t is not None:
                out[t] += 1
        return out

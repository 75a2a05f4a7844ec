"""The recorder's hypotheses about the board: no move, or legal plies, and what the
camera would see after them (:class:`Candidate`); whether one explains a picture
(:func:`fits`); and the search for every sequence of legal plies that reproduces a
picture (:func:`legal_sequences`), with the bookkeeping that follows a moving piece
(where a king may still look like a man, which crownings are awaited).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.appearance import view
from rules.geometry import Bitboard, Square
from rules.move import Move
from rules.picture import Picture
from rules.position import Position
from rules.variants import Color

Seq = tuple[Move, ...]
"""A sequence of plies."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A hypothesis about the board: no move (``moves`` empty), or legal plies."""

    moves: Seq
    after: Position
    tolerate: Bitboard
    """Squares where a king may still look like a man (:func:`moved_tolerance`)."""
    tops: tuple[int, ...]
    """The top an overhead camera sees on each square; kings that may still look like
    men are negative (``-top``)."""
    heights: tuple[int, ...]
    """The number of pieces on each square."""

    @classmethod
    def of(cls, moves: Seq, after: Position, tolerate: Bitboard) -> Candidate:
        """The candidate of ``moves``, which lead to ``after``."""
        bits = after.variant.geometry.bits
        seen = view(after)
        tops = tuple(
            -int(sv.top) if tolerate & bits[sq] and after.kings & bits[sq] else int(sv.top)
            for sq, sv in enumerate(seen)
        )
        return cls(moves, after, tolerate, tops, tuple(sv.height for sv in seen))


def fits(picture: Picture, cand: Candidate) -> bool:
    """Whether the candidate explains the picture: as read, or with its kings taken as
    maybe men (:meth:`Picture.loosened`)."""
    if picture.mismatch(cand.after, cand.tolerate) == 0:
        return True
    return bool(picture.kings) and picture.loosened().mismatch(cand.after, cand.tolerate) == 0


def legal_sequences(
    start: Position, tolerate: Bitboard, picture: Picture, depths: range
) -> list[Seq]:
    """Every sequence of legal plies from ``start``, of a length in ``depths``, whose end
    fits the picture exactly (shortest first).

    Pruning: ``r`` more plies change at most ``2 r`` squares plus one per piece they
    capture, and captures only remove pieces (or, in column draughts, a tower's top, which
    leaves the square occupied), so a node whose mismatch with the picture is larger than
    that cannot lead to it; nor can one that needs more pieces of a colour to
    arrive or leave than that colour's plies allow (:meth:`Picture.reachable`). Nodes are
    memoised, so transpositions are expanded once.
    """
    memo: dict[tuple[Position, int, Bitboard], list[Seq]] = {}
    picture_pieces = (picture.white | picture.black).bit_count()

    def search(pos: Position, left: int, tol: Bitboard) -> list[Seq]:
        wrong = picture.mismatch(pos, tol)
        if left == 0:
            return [()] if wrong == 0 else []
        excess = (pos.white | pos.black).bit_count() - picture_pieces
        if (wrong & ~pos.towers).bit_count() > 2 * left + max(excess, 0):
            return []
        mover, other = (left + 1) // 2, left // 2
        white, black = (mover, other) if pos.turn is Color.WHITE else (other, mover)
        if not picture.reachable(pos, tol, white, black):
            return []
        node = (pos, left, tol)
        if node not in memo:
            memo[node] = [
                (m, *rest)
                for m in pos.legal_moves()
                for rest in search(pos.play(m), left - 1, moved_tolerance(pos, m, tol))
            ]
        return memo[node]

    return [seq for depth in depths for seq in search(start, depth, tolerate)]


def position_after(position: Position, moves: Seq) -> Position:
    """The position after ``moves``."""
    for m in moves:
        position = position.play(m)
    return position


def common_prefix(sequences: list[Seq]) -> Seq:
    """The plies every sequence starts with."""
    if not sequences:
        return ()
    n = 0
    while all(len(seq) > n and seq[n] == sequences[0][n] for seq in sequences):
        n += 1
    return sequences[0][:n]


def followed(square: Square | None, move: Move) -> Square | None:
    """Where the piece on ``square`` stands after ``move``: where it went, where it
    stood, or None if taken."""
    if square is None or square in move.captures:
        return None
    return move.path[-1] if square == move.path[0] else square


def moved_tolerance(
    p: Position, m: Move, tolerate: Bitboard, *, king_lands: bool = False
) -> Bitboard:
    """Where kings may look like men after ``m``: the tolerance follows a moving king, goes
    with captured pieces, and starts on the square where a man is crowned; with
    ``king_lands`` (one ply, the next or one recorded), also where any king lands.

    A king's second disc may not show from where he now stands (the classifier's
    commonest error is a king far from the camera read as a man): portuguese generated#0
    under the e2e's ``ponder`` (seed 157) recorded nothing more, and raised no flag, once
    a king captured onto a square where he read as a man (ply 45 of 60). Not in a search
    of several plies: there a king could go away and come back tolerated, and any king
    that lost his disc where he stood (flagged, :func:`rules.arbiter._king_uncrowned`)
    would be explained by the round trip."""
    bits = p.variant.geometry.bits
    frm, to = bits[m.path[0]], bits[m.path[-1]]
    out = tolerate & ~frm
    for sq in m.captures:
        out &= ~bits[sq]
    if tolerate & frm or m.promotes or (king_lands and p.kings & frm):
        out |= to
    return out


def moved_crowns(p: Position, m: Move, due: dict[Square, int], ply: int) -> dict[Square, int]:
    """Crownings still awaited after ``m`` (played as ply ``ply``). A new king his owner
    moves on is judged no more: I 3.6 is about the board the opponent moved on, and where
    he lands his second disc may not show (e2e czech ``hall``, seed 747: a king crowned
    in time on e1, captured onto h4, read there as a man and flagged ``not_crowned``)."""
    out = {sq: k for sq, k in due.items() if sq != m.path[0] and sq not in m.captures}
    if m.promotes:
        out[m.path[-1]] = ply
    return out

"""Perft: count the leaves of the legal-move tree, the standard move-generator oracle."""

from __future__ import annotations

from rules.movegen import count_legal_moves
from rules.position import Position


def perft(position: Position, depth: int, *, keep_duplicates: bool = False) -> int:
    """Number of move sequences of ``depth`` plies (bulk-counted at the last ply).

    ``keep_duplicates`` counts capture routes that take the same pieces to the same
    square separately, as some published tables do (see ../shared/data/perft/README.md).
    """
    if depth <= 0:
        return 1
    if depth == 1 and not position.variant.towers:
        return count_legal_moves(position, keep_duplicates=keep_duplicates)
    moves = position.legal_moves(keep_duplicates=keep_duplicates)
    if depth == 1:
        return len(moves)
    return sum(perft(position.play(m), depth - 1, keep_duplicates=keep_duplicates) for m in moves)

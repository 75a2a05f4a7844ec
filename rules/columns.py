"""Column draughts (bashni, lasca): towers in the same Position type.

Move generation for towers is being built (issue 3); until then these raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.move import Move
from rules.pieces import Stack

if TYPE_CHECKING:
    from rules.position import Position


def legal_moves(position: Position, *, keep_duplicates: bool = False) -> list[Move]:
    raise NotImplementedError(f"tower move generation for {position.variant.name} is not built yet")


def play(position: Position, move: Move) -> Position:
    raise NotImplementedError(f"tower moves for {position.variant.name} are not built yet")


def tower_possible(stack: Stack) -> bool:
    raise NotImplementedError("tower validation is not built yet")

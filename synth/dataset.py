"""Positions for training sets: random games from the start, so every stack is reachable."""

from __future__ import annotations

import numpy as np

from rules.position import Position
from rules.variants import Variant


def random_position(variant: Variant, seed: int, max_plies: int = 60) -> Position:
    """The position after a seeded random number (0..``max_plies``) of random legal moves.

    Random play reaches kings, towers and thin middlegames; it stops early if the game ends.
    """
    rng = np.random.default_rng((seed, 3571))
    position = Position.initial(variant)
    for _ in range(int(rng.integers(0, max_plies + 1))):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(moves[int(rng.integers(len(moves)))])
    return position

"""Hypothesis strategies for random legal games and random positions of every variant."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from rules import Position, find_variant
from rules.game import Game
from rules.pieces import Piece, Stack
from rules.variants import VARIANTS, Color, Variant

DRAUGHTS = [name for name, v in VARIANTS.items() if not v.towers]
ALL_VARIANTS = list(VARIANTS)


@st.composite
def random_games(draw: st.DrawFn, variants: list[str] = ALL_VARIANTS) -> Game:
    """A random legal game of 20 to 100 plies (fewer if it ends)."""
    variant = find_variant(draw(st.sampled_from(variants)))
    game = Game(variant)
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    for _ in range(draw(st.integers(min_value=20, max_value=100))):
        moves = game.position.legal_moves()
        if not moves:
            break
        game.push(rng.choice(moves))
    return game


@st.composite
def random_positions(draw: st.DrawFn) -> Position:
    """Any placement of men and kings in a draughts variant (men never on their
    crowning row)."""
    variant: Variant = find_variant(draw(st.sampled_from(DRAUGHTS)))
    g = variant.geometry
    stacks: dict[int, Stack] = {}
    for sq in draw(st.sets(st.sampled_from(list(g.squares)), max_size=20)):
        color = draw(st.sampled_from([Color.WHITE, Color.BLACK]))
        king = draw(st.booleans()) or g.rowcol(sq)[0] == variant.promotion_row(color)
        stacks[sq] = (Piece(color, king),)
    return Position.from_stacks(variant, stacks, draw(st.sampled_from([Color.WHITE, Color.BLACK])))

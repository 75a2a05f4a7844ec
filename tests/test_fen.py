"""Property tests: FEN, notation and PDN written out read back the same (hypothesis)."""

from __future__ import annotations

import io
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Position, find_variant
from rules.game import Game
from rules.pdn import iter_games
from rules.pieces import Piece, Stack
from rules.variants import Color, Variant

DRAUGHTS = [
    "international",
    "russian",
    "brazilian",
    "pool",
    "czech",
    "portuguese",
    "italian",
    "english",
]


@st.composite
def random_games(draw: st.DrawFn) -> Game:
    """A random legal game of a draughts-family variant, 20 to 100 plies."""
    variant = find_variant(draw(st.sampled_from(DRAUGHTS)))
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
    """Any placement of men and kings (men never on their crowning row)."""
    variant: Variant = find_variant(draw(st.sampled_from(DRAUGHTS)))
    g = variant.geometry
    stacks: dict[int, Stack] = {}
    for sq in draw(st.sets(st.sampled_from(list(g.squares)), max_size=20)):
        color = draw(st.sampled_from([Color.WHITE, Color.BLACK]))
        king = draw(st.booleans()) or g.rowcol(sq)[0] == variant.promotion_row(color)
        stacks[sq] = (Piece(color, king),)
    return Position.from_stacks(variant, stacks, draw(st.sampled_from([Color.WHITE, Color.BLACK])))


@settings(max_examples=60, deadline=None)
@given(random_positions())
def test_fen_written_out_parses_back_to_the_same_position(position: Position) -> None:
    assert Position.from_fen(position.variant, position.fen()) == position


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_every_position_of_a_game_round_trips_through_fen(game: Game) -> None:
    for position in game.positions:
        assert Position.from_fen(game.variant, position.fen()) == position


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_notation_printed_parses_back_to_the_same_move(game: Game) -> None:
    for position in game.positions:
        moves = position.legal_moves()
        for move in moves:
            name = position.move_name(move, moves)
            assert position.play(position.parse_move(name)) == position.play(move), name


@settings(max_examples=30, deadline=None)
@given(random_games())
def test_pdn_written_out_reads_back_to_the_same_game(game: Game) -> None:
    game.tags.update({"Event": "Random", "White": "W", "Black": "B"})
    (back,) = list(iter_games(io.StringIO(game.pdn())))
    assert back.errors == []
    assert back.variant == game.variant
    assert back.start == game.start
    assert back.moves == game.moves
    assert back.notations == game.notations
    assert back.tags["Event"] == "Random"

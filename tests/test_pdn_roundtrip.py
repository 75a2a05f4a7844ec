"""PDN written out reads back to the same game, in every variant (hypothesis)."""

from __future__ import annotations

import io

from hypothesis import given, settings

from rules.game import Game
from rules.pdn import iter_games
from tests.game_strategies import random_games


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_pdn_written_out_reads_back_to_the_same_game(game: Game) -> None:
    game.tags.update({"Event": "Random", "White": "W", "Black": "B"})
    game.comments[min(3, game.ply)] = "a remark {with braces}"
    (back,) = list(iter_games(io.StringIO(game.pdn())))
    assert back.errors == []
    assert back.variant == game.variant
    assert back.start == game.start
    assert back.moves == game.moves
    assert back.notations == game.notations
    assert back.positions == game.positions
    assert back.tags["Event"] == "Random"
    assert back.comments[min(3, game.ply)] == "a remark {with braces)"

"""Notation: every legal move printed parses back to it; foreign notations convert."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from rules import InvalidMoveError
from rules.game import Game
from rules.notation import joyce_move, joyce_square, parse_joyce_line
from rules.variants import ENGLISH, INTERNATIONAL
from tests.game_strategies import random_games


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_notation_printed_parses_back_to_the_same_move(game: Game) -> None:
    for position in game.positions:
        moves = position.legal_moves()
        for move in moves:
            name = position.move_name(move, moves)
            assert position.play(position.parse_move(name)) == position.play(move), name


def test_joyce_squares_follow_the_reference_diagrams() -> None:
    # english-acf/REF.png: 0 is Black's left corner seen from Black (our square 4), 31
    # is White's... left corner seen from Black (our 29).
    assert [joyce_square(ENGLISH, i) for i in (0, 3, 4, 28, 31)] == ["4", "1", "8", "32", "29"]
    # international-selfplay/REF.png: 0 is White's left back corner (46), 49 is 5.
    assert [joyce_square(INTERNATIONAL, i) for i in (0, 4, 15, 45, 49)] == [
        "46",
        "50",
        "31",
        "1",
        "5",
    ]
    assert joyce_move(INTERNATIONAL, "27-36-25") == "23-12-21"


def test_joyce_lines_and_results() -> None:
    english = parse_joyce_line(ENGLISH, "10-13 21-17\t1-0\n")
    assert english is not None
    assert english.moves == ("10-15", "23-19") and english.result == "0-2"  # Black won
    drawn = parse_joyce_line(INTERNATIONAL, "15-20\tDrawn by repetition")
    assert drawn is not None and drawn.result == "1-1"
    assert parse_joyce_line(INTERNATIONAL, "#  comment") is None


@pytest.mark.parametrize("text", ["10", "a-b", "10-99"])
def test_bad_joyce_moves_are_rejected(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        joyce_move(ENGLISH, text)

"""Notation: every legal move printed parses back to it; foreign notations convert."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from rules import InvalidMoveError
from rules.game import Game
from rules.notation import joyce_move, joyce_square, parse_joyce_line
from rules.position import Position
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


def test_a_capture_written_in_full_is_not_read_as_a_shortened_longer_route() -> None:
    """Found by the property test above: in russian the man on h4 may take g5 and g7 and
    be crowned on h8, or be crowned on d8 on the way and go round as a king to h8. The
    short route's full notation, h4:f6:h8, is also the long one shortened."""
    position = Position.from_fen("russian", "W:Wa5,h4,b2,d2,h2,a1,g1:Bf8,a7,c7,e7,g7,d6,h6,c5,g5")
    moves = position.legal_moves()
    names = {position.move_name(m, moves): m for m in moves}
    assert {"h4:f6:h8", "h4:f6:d8:b6:d4:h8"} <= set(names)
    for name, move in names.items():
        assert position.parse_move(name) == move, name

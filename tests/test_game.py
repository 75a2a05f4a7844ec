"""Game: the move stack, history, failed pushes leave nothing half-applied, results."""

from __future__ import annotations

import pytest

from rules import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Position, find_variant
from rules.game import Game, Termination
from rules.move import Move
from rules.variants import INTERNATIONAL, RUSSIAN


def test_push_and_pop_keep_history_in_step() -> None:
    game = Game.from_moves("international", ["32-28", "19-23", "28x19", "14x23"])
    assert game.ply == 4
    assert game.notations == ["32-28", "19-23", "28x19", "14x23"]
    assert len(game.positions) == 5 and len(game.counters) == 5
    assert game.position.fen() == "W:W31,33-50:B1-13,15-18,20,23"
    assert str(game.pop()) == "14x23"
    assert game.ply == 3 and len(game.positions) == 4
    assert game.position == Position.initial(INTERNATIONAL).push_text("32-28").push_text(
        "19-23"
    ).push_text("28x19")


def test_pop_from_empty_game_raises() -> None:
    with pytest.raises(IndexError):
        Game(INTERNATIONAL).pop()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("32-27", IllegalMoveError),  # not a diagonal step
        ("33-28x", IllegalMoveError),
        ("51-46", InvalidMoveError),  # unknown square
        ("hello", InvalidMoveError),
    ],
)
def test_failed_push_names_the_ply_and_changes_nothing(text: str, error: type[Exception]) -> None:
    game = Game.from_moves("international", ["32-28"])
    before = (list(game.moves), list(game.positions), list(game.counters), list(game.notations))
    with pytest.raises(error, match="ply 2"):
        game.push(text)
    assert (game.moves, game.positions, game.counters, game.notations) == before


def test_push_of_a_move_value_checks_legality() -> None:
    game = Game(INTERNATIONAL)
    with pytest.raises(IllegalMoveError, match="ply 1"):
        game.push(Move((0, 5)))  # a black man, White to move
    assert game.ply == 0
    assert game.push(Move((31, 27))).notation() == "32-28"


def test_ambiguous_capture_needs_the_route() -> None:
    # S1 §6.9, digest §16.1: a white king on d2 with three routes, two ending on a7.
    start = Position.from_fen(RUSSIAN, "W:WKd2:Bf4,f6,g7,d6,b6")
    game = Game(RUSSIAN, start)
    with pytest.raises(AmbiguousMoveError, match="ply 1"):
        game.push("d2:a7")
    assert game.ply == 0
    move = game.push("d2:h6:f8:c5:a7")
    assert game.notations == ["d2:h6:f8:c5:a7"]  # printed in full because it must be
    assert len(move.captures) == 4


def test_no_legal_move_ends_the_game_as_a_loss() -> None:
    game = Game.from_moves("international", [], start="W:W46:B37,41")
    # The man on 46 is blocked by 41, which 37 covers: White cannot move and loses.
    assert game.termination() is Termination.NO_MOVES
    assert game.board_result() == "0-2"


def test_move_numbers_follow_the_first_player() -> None:
    english = find_variant("english")
    assert Game(english).move_number == 1
    game = Game.from_moves(english, ["11-15", "23-19"])
    assert game.move_number == 2
    # A set-up with the second player to move: its first move is numbered "1...".
    game = Game.from_moves(english, [], start="W:W21-32:B1-12")
    assert game.move_number == 1
    game.push("22-18")
    assert game.move_number == 2

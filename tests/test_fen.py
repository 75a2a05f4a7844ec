"""FEN: what is written reads back the same; malformed FEN names the part at fault."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from rules import InvalidFenError, Position, find_variant
from rules.game import Game
from tests.game_strategies import random_games, random_positions


@settings(max_examples=60, deadline=None)
@given(random_positions())
def test_fen_written_out_parses_back_to_the_same_position(position: Position) -> None:
    assert Position.from_fen(position.variant, position.fen()) == position


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_every_position_of_a_game_round_trips_through_fen(game: Game) -> None:
    for position in game.positions:  # towers included (damcam's FEN extension)
        assert Position.from_fen(game.variant, position.fen()) == position


@pytest.mark.parametrize(
    ("variant", "fen", "fault"),
    [
        ("international", "X:W31-50:B1-20", "expected 'W:W...:B...'"),
        ("international", "W:W31-50:X1-20", "must start with W or B"),
        ("international", "W:W31-51:B1-20", "'31-51'"),
        ("international", "W:W31,31:B1", "given twice"),
        ("international", "W:W31:B1-x", "'1-x'"),
        ("russian", "W:Wz9:Bb8", "'z9'"),
        ("russian", "W:Wc3-e5:Bb8", "ranges need numeric squares"),
        ("english", "W", "expected"),
    ],
)
def test_malformed_fen_raises_naming_the_fen_and_the_part(
    variant: str, fen: str, fault: str
) -> None:
    with pytest.raises(InvalidFenError) as info:
        Position.from_fen(find_variant(variant), fen)
    assert fen in str(info.value) and fault in str(info.value)


def test_fast_and_full_readers_agree() -> None:
    """Plain FENs take a fast path; ranges, spaces and lower-case take the full reader."""
    v = find_variant("international")
    plain = Position.from_fen(v, "W:W31,32,33,K34:B1,2,K3")
    assert Position.from_fen(v, "W:W31-33,K34:B1-2,K3") == plain
    assert Position.from_fen(v, "w:W31, 32, 33, K34:B1, 2, K3.") == plain

"""The Code's notation for column draughts: moves (§1.10, §2.3) and tower positions."""

from __future__ import annotations

import pytest

from rules import (
    AmbiguousMoveError,
    Color,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Position,
    find_variant,
)
from rules.column_notation import (
    code_position,
    code_string,
    move_name,
    normalise,
    parse_code_position,
)
from rules.pieces import parse_stack

BASHNI = find_variant("bashni")
LASCA = find_variant("lasca")


@pytest.mark.parametrize(
    ("variant", "text", "expected"),
    [
        ("bashni", "c3-b4", "c3-b4"),
        ("bashni", "cb4", "c3-b4"),  # short form, §1.10 note
        ("bashni", "с3-b4", "c3-b4"),  # Cyrillic с, as printed
        ("bashni", "аЗ-b4", "a3-b4"),  # Cyrillic а and З for 3
        ("bashni", "1. g3 - h4", "g3-h4"),  # move number and spaces
        ("bashni", "22-17", "c3-b4"),  # PDN numbers for an algebraic board
        ("lasca", "9 - 12", "9-12"),
        ("lasca", "11-14!", "11-14"),
    ],
)
def test_plain_moves_in_every_printed_form(variant: str, text: str, expected: str) -> None:
    start = Position.initial(find_variant(variant))
    assert start.move_name(start.parse_move(text)) == expected


def test_captures_with_spaces_as_the_lasca_game_prints_them() -> None:
    p = Position.initial(LASCA).push_text("9-12")
    for text in ("15:9", "15: 9", "15 :9"):
        assert p.move_name(p.parse_move(text)) == "15:9"


def test_crowning_mark_d_on_a_plain_move() -> None:
    p = Position.from_fen(LASCA, "W:W19:B1")
    moves = p.legal_moves()
    assert {p.move_name(m) for m in moves} == {"19-22D", "19-23D"}
    assert p.parse_move("19-22") == p.parse_move("19-22D")
    with pytest.raises(IllegalMoveError, match="19D-22"):
        p.parse_move("19D-22")


def test_crowning_mark_where_no_man_is_crowned_is_illegal() -> None:
    start = Position.initial(BASHNI)
    with pytest.raises(IllegalMoveError, match="c3-b4D"):
        start.parse_move("c3-b4D")


def test_mid_capture_crowning_prints_the_turning_squares() -> None:
    # 11. b2:d4:f6:d8D:a5:d2:h6 of the sample game, with d4 left out: no turn there.
    p = Position.from_fen(
        BASHNI, "W:Wa7(wbb),b2(ww),f2,c1,e1,g1:Bb8,f8,h8,c7,e7,g7,e5(bww),g5,b4(bwww),c3"
    )
    move = p.parse_move("b2:d4:f6:d8D:a5:d2:h6")
    assert p.move_name(move) == "b2:f6:d8D:a5:d2:h6"
    assert move_name(p, move, full=True) == "b2:d4:f6:d8D:a5:d2:h6"
    assert p.parse_move("b2:f6:d8D:a5:d2:h6") == move


def test_loop_captures_need_their_turning_squares() -> None:
    # A king going round the same four towers either way ends where it started.
    p = Position.from_fen(BASHNI, "W:WKc1:BKb4,d4(bbb),b2,Kd2")
    names = sorted(p.move_name(m) for m in p.legal_moves())
    assert names == ["c1:a3:c5:e3:c1", "c1:e3:c5:a3:c1"]
    with pytest.raises(AmbiguousMoveError, match="c1:c1"):
        p.parse_move("c1:c1")
    assert p.parse_move("c1:a3:c5:c1").path == p.parse_move("c1:a3:c5:e3:c1").path


def test_a_short_capture_whose_ends_a_longer_route_shares_reads_back() -> None:
    # Black's c3:a5 takes b4 alone; c3:e5:g3:e1D:a5 also ends on a5 and passes no square
    # the short one names, so the short one's full record is its two ends (found by
    # tests/test_pdn_roundtrip.py).
    p = Position.from_fen(
        BASHNI, "B:Wa7(wbbbb),g7(wbbbb),b4(ww),d4(wb),f4(Ww),f2,h2,a1,c1,g1:Bb6,c3(bb)"
    )
    short, long = sorted(p.legal_moves(), key=lambda m: len(m.path))
    assert [p.move_name(m) for m in (short, long)] == ["c3:a5", "c3:e5:g3:e1D:a5"]
    assert p.parse_move("c3:a5") == short
    assert p.parse_move("c3:e5:g3:e1D:a5") == long
    assert p.parse_move("c3:g3:a5") == long


@pytest.mark.parametrize("text", ["", "c3", "z9-b4", "c3-b5", "99-100"])
def test_text_that_is_no_move(text: str) -> None:
    with pytest.raises((InvalidMoveError, IllegalMoveError)) as info:
        Position.initial(BASHNI).parse_move(text)
    assert repr(text) in str(info.value)


def test_colon_needs_a_capture_and_dash_a_plain_move() -> None:
    start = Position.initial(BASHNI)
    with pytest.raises(IllegalMoveError, match="c3:b4"):
        start.parse_move("c3:b4")


def test_code_tower_strings() -> None:
    assert code_string(parse_stack("Wbbbb")) == "1/0000"
    assert code_string(parse_stack("BBbBbBW")) == "110101/1"
    assert code_string(parse_stack("wbb")) == "0/00"
    assert code_string(parse_stack("W")) == "1"


def test_code_diagram_4_as_printed() -> None:
    text = (
        "White: c1 – 1/0000, d6 – 000000, f4 – 0000 (3); "
        "Black: а1 – 110101/1, b2 – 00 (2)"  # Cyrillic а as in the source
    )
    p = parse_code_position(BASHNI, text)
    assert p.fen() == "W:Wd6(wwwwww),f4(wwww),c1(Wbbbb):Bb2(bb),a1(BBbBbBW)"
    assert code_position(p) == (
        "White: c1 - 1/0000, d6 - 000000, f4 - 0000 (3); Black: a1 - 110101/1, b2 - 00 (2)"
    )
    assert parse_code_position(BASHNI, code_position(p)) == p


def test_code_position_round_trips_through_fen() -> None:
    p = parse_code_position(LASCA, "White: 9 - 1, 12 (2); Black: 22 - 0/11 (1)", Color.BLACK)
    assert p.turn is Color.BLACK
    assert Position.from_fen(LASCA, p.fen()) == p


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("White: c1 (2); Black: d8 (1)", "(2)"),
        ("Red: c1; Black: d8", "'Red: c1'"),
        ("White: c1, c1; Black: d8", "c1 is given twice"),
        ("White: c1 - 1/2; Black: d8", "'c1-1/2'"),
        ("White: c2; Black: d8", "c2"),
    ],
)
def test_bad_code_positions_are_refused_naming_the_fault(text: str, fault: str) -> None:
    with pytest.raises(InvalidFenError, match=fault.replace("(", r"\(").replace(")", r"\)")):
        parse_code_position(BASHNI, text)


def test_normalise() -> None:
    assert normalise("13: 5") == "13:5"
    assert normalise("11.b2:d4") == "b2:d4"
    assert normalise("е3—f4") == "e3-f4"

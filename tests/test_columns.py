"""Column draughts rules against the Code (digest ../shared/rules/column-draughts.md).

The two sample games of the Code (digest Appendix A) replay from their printed notation,
and single rules are checked on small positions whose outcome the digest states.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from rules import (
    BLACK_MAN,
    WHITE_KING,
    Color,
    IllegalMoveError,
    InvalidFenError,
    Move,
    Position,
    Status,
    find_variant,
)
from rules.column_notation import code_position, parse_code_position
from rules.columns import tower_possible
from rules.pieces import parse_stack, stack_string

BASHNI = find_variant("bashni")
LASCA = find_variant("lasca")

# Digest Appendix A, the corrected games.
BASHNI_GAME = """1. c3-b4 b6-c5   2. b4-a5 a7-b6   3. b2-c3 c5-b4   4. a3:a7 c7-b6   5. a5:e5 f6:b2
6. a1:c3 d8-c7   7. g3-f4 e5:g3   8. h2:f4 g3:e5   9. e3:g5 h6:f4  10. d2-e3 f4:b4
11. b2:d4:f6:d8D:a5:d2:h6"""
BASHNI_SHORT = """1. cb4 bc5 2. ba5 ab6 3. bc3 cb4 4. a:a7 cb6 5. a:e5 f:b2 6. a:c3 dc7
7. gf4 e:g3 8. h:f4 g:e5 9. e:g5 h:f4 10. de3 f:b4 11. b2:d4:f6:d8D:a5:d2:h6"""
LASCA_GAME = """1. 9-12 15:9    2. 5:13 18-14   3. 10:18 16:10  4. 6:14 13:5    5. 1:9 17-13
6. 10:16 19:13  7. 9:17 16:10   8. 7:13 20-16   9. 13:19 21:7  10. 4:10 22:16
11. 14:20 17-13 12. 3-6 23:17   13. 11-14 17:3D 14. 6-9 3:11   15. 9:23D"""
DIAGRAM_10 = (
    "White - 2, 5, 8, 10 - 0/0, 18 - 0/0, 23 - 1/00 (6); "
    "Black - 11 - 1/0000, 16 - 0/0, 19 - 00, 20, 24, 25 (6)"
)


def moves_of(score: str) -> list[str]:
    return [t for t in score.split() if not re.fullmatch(r"\d+\.", t)]


def replay(variant_name: str, score: str) -> list[Position]:
    """Every position of a game, the start first; each move must match exactly one move."""
    positions = [Position.initial(find_variant(variant_name))]
    for text in moves_of(score):
        positions.append(positions[-1].push_text(text))
    return positions


def names(position: Position, squares: tuple[int, ...]) -> list[str]:
    return [position.variant.geometry.name(sq) for sq in squares]


def test_variant_switches_match_the_code() -> None:
    # §1.5.3 flying kings, §1.6.2 men capture backward, §1.6.3b crown and go on.
    assert BASHNI.towers and BASHNI.flying_kings and BASHNI.men_capture_backward
    assert BASHNI.crowning_in_capture.value == "continue_as_king"
    # §2.4.1 short kings, men forward only; §2.4.2 crowning ends the move.
    assert LASCA.towers and not LASCA.flying_kings and not LASCA.men_capture_backward
    assert LASCA.crowning_in_capture.value == "stop"
    for v in (BASHNI, LASCA):
        assert v.capture_rule.value == "free" and not v.capture_reversal
        assert v.first_to_move is Color.WHITE
    # Digest 3.2: 1-4 on White's back row from a1, 22-25 on Black's.
    g = LASCA.geometry
    assert [g.name(g.square_at(6, c) or 0) for c in (0, 2, 4, 6)] == ["1", "2", "3", "4"]
    assert g.name(g.square_at(0, 0) or 0) == "22"
    assert [len(s) for s in LASCA.start_squares] == [11, 11]
    assert [len(s) for s in BASHNI.start_squares] == [12, 12]


@pytest.mark.parametrize("score", [BASHNI_GAME, BASHNI_SHORT], ids=["full", "short"])
def test_bashni_sample_game_replays_to_the_end(score: str) -> None:
    positions = replay("bashni", score)
    assert len(positions) == 22
    final = positions[-1]
    # Every piece is still on the board, 12 a side (digest 4: pieces never leave).
    for color in (Color.WHITE, Color.BLACK):
        assert sum(p.color is color for _sq, st in final.stacks() for p in st) == 12
    # 11. b2:...:d8D:...:h6: the two-man white tower on b2 is crowned on d8 mid-capture
    # (only its top man becomes a king, §1.5.2) and goes on to take six black pieces.
    h6 = final.stack(BASHNI.geometry.parse_square("h6"))
    assert stack_string(h6) == "Wwbbbbbb"
    assert code_position(final) == (
        "White: a7 - 0/00, b4 - 000, c1, e1, e5 - 00, f2, g1, h6 - 10/000000 (8); "
        "Black: b8, f8, g7, h8 (4)"
    )
    assert final.turn is Color.BLACK


def test_bashni_full_and_short_scores_agree_ply_by_ply() -> None:
    assert replay("bashni", BASHNI_GAME) == replay("bashni", BASHNI_SHORT)


def test_bashni_sample_footnotes() -> None:
    positions = replay("bashni", BASHNI_GAME)
    g = BASHNI.geometry
    # Footnote (erratum corrected): 5...f6:b2 takes the white pieces on e5 and c3.
    before, move = positions[9], positions[9].parse_move("f6:b2")
    assert sorted(names(before, move.captures)) == ["c3", "e5"]
    # Digest 2.6.10: after 7...e5:g3 the tower g3 is b,b,w; 8. h2:f4 ends on f4.
    assert stack_string(positions[14].stack(g.parse_square("g3"))) == "bbw"
    assert stack_string(positions[15].stack(g.parse_square("g3"))) == "bw"
    assert stack_string(positions[15].stack(g.parse_square("f4"))) == "wb"
    # 11. b2:...: c3 was emptied by the first jump and is crossed again (a5:d2).
    last = positions[20].parse_move("b2:d4:f6:d8D:a5:d2:h6")
    assert names(positions[20], last.path) == ["b2", "d4", "f6", "d8", "a5", "d2", "h6"]
    assert last.promotes


def test_lasca_sample_game_ends_on_diagram_10() -> None:
    positions = replay("lasca", LASCA_GAME)
    assert len(positions) == 30
    final = positions[-1]
    assert final == parse_code_position(LASCA, DIAGRAM_10, Color.BLACK)
    assert code_position(final) == DIAGRAM_10.replace("White -", "White:").replace(
        "Black -", "Black:"
    )
    # Digest Appendix A: Black's eight legal moves there.
    legal = {final.move_name(m) for m in final.legal_moves()}
    assert legal == {"24-21", "25-21", "19-15", "16-13", "16-12", "20-17", "11-14", "11-7"}


def test_lasca_printed_erratum_3_11_is_refused_as_a_plain_move() -> None:
    positions = replay("lasca", LASCA_GAME)
    before_14b = positions[27]
    with pytest.raises(IllegalMoveError, match="'3-11'"):
        before_14b.parse_move("3-11")
    assert before_14b.parse_move("3:11").is_capture


def test_lasca_crowning_ends_the_capture() -> None:
    positions = replay("lasca", LASCA_GAME)
    # 13...17:3D runs 17:11:3 and stops, though a king could go on (digest 3.4).
    move = positions[25].parse_move("17:3D")
    assert names(positions[25], move.path) == ["17", "11", "3"] and move.promotes
    move = positions[28].parse_move("9:23D")
    assert names(positions[28], move.path) == ["9", "17", "23"] and move.promotes


def test_capture_takes_only_the_top_piece_and_frees_the_rest() -> None:
    # A black man on a white king: White takes the man, the king is freed and is a
    # king again, flying at once (§1.6.3b last paragraph).
    p = Position.from_fen(BASHNI, "W:Wc3:Bd4(bW)")
    (move,) = p.legal_moves()
    after = p.play(move)
    g = BASHNI.geometry
    assert after.stack(g.parse_square("e5")) == parse_stack("wb")
    assert after.stack(g.parse_square("d4")) == (WHITE_KING,)
    white_again = Position.from_stacks(BASHNI, dict(after.stacks()), Color.WHITE)
    assert "d4-a1" in {str(m) for m in white_again.legal_moves()}


def test_prisoners_go_under_in_the_order_taken() -> None:
    p = Position.from_fen(BASHNI, "W:Wa1(ww):Bb2(Bw),d4(bbb)")
    (move,) = p.legal_moves()
    after = p.play(move)
    assert names(p, move.path) == ["a1", "c3", "e5"]
    assert stack_string(after.stack(BASHNI.geometry.parse_square("e5"))) == "wwBb"
    assert stack_string(after.stack(BASHNI.geometry.parse_square("b2"))) == "w"
    assert stack_string(after.stack(BASHNI.geometry.parse_square("d4"))) == "bb"


def test_one_tower_jumped_twice_in_one_move() -> None:
    # §1.6.1: "several pieces from one and the same tower in one capture".
    p = Position.from_fen(BASHNI, "W:WKb8:Bc7(bb),d2,f2(bb)")
    routes = {tuple(names(p, m.captures)) for m in p.legal_moves()}
    assert routes == {("c7", "d2"), ("c7", "f2", "d2", "c7")}


def test_no_turning_back_180_degrees_by_default() -> None:
    # Digest 2.6.10: with reversal, 8. h2:f4 of the sample game would have to go on
    # to h2 over g3 again. The switch makes that the only move.
    before_8 = replay("bashni", BASHNI_GAME)[14]
    assert "h2:f4" in {m.notation(full=True) for m in before_8.legal_moves()}
    turning = dataclasses.replace(BASHNI, name="bashni-reversal", capture_reversal=True)
    same = Position.from_stacks(turning, dict(before_8.stacks()), Color.WHITE)
    routes = {m.notation(full=True) for m in same.legal_moves()}
    assert "h2:f4:h2" in routes and "h2:f4" not in routes


def test_free_choice_among_captures() -> None:
    # §1.6.3a: one piece or two, a man or a king: the player chooses.
    p = Position.from_fen(BASHNI, "W:Wa3,e3:Bb4,d4,f6,Kf4")
    taken = sorted(len(m.captures) for m in p.legal_moves())
    assert taken == [1, 1, 2]


def test_flying_king_must_land_where_it_goes_on() -> None:
    # §1.6.3b: from e5 the king could stop, but from d4 it can go on over e3, so it must.
    p = Position.from_fen(BASHNI, "W:WKa1:Bc3,e3")
    assert {m.notation(full=True) for m in p.legal_moves()} == {"a1:d4:f2", "a1:d4:g1"}


def test_bashni_man_crowned_mid_capture_goes_on_as_king() -> None:
    # §1.6.3b: b6:d8 crowns the man; as a king it flies on over f6 (a man could not).
    p = Position.from_fen(BASHNI, "W:Wb6:Bc7,f6")
    moves = p.legal_moves()
    assert {p.move_name(m, moves) for m in moves} == {"b6:d8D:g5", "b6:d8D:h4"}
    assert all(m.promotes and names(p, m.captures) == ["c7", "f6"] for m in moves)
    after = p.play(moves[0])
    assert stack_string(after.stack(moves[0].to_square)) == "Wbb"


def test_lasca_king_is_short_and_men_go_forward_only() -> None:
    # §2.4.1: the king steps one square either way; the man only forward.
    p = Position.from_fen(LASCA, "W:WK13,9:B22")
    assert {str(m) for m in p.legal_moves()} == {"13-16", "13-17", "13-10", "9-12"}
    # The man on 9 may not take the black man behind it on 6; the king takes 16.
    capture = Position.from_fen(LASCA, "W:WK13,9:B16,6")
    assert {m.notation(full=True) for m in capture.legal_moves()} == {"13:19"}


def test_tower_possible_is_the_two_block_property() -> None:
    for good in ("w", "W", "wbB", "WwwbbB", "bbbwWw"):
        assert tower_possible(parse_stack(good)), good
    for bad in ("", "wbw", "bWb", "wwbBw"):
        assert not tower_possible(parse_stack(bad)), bad


def test_status_flags_an_impossible_tower() -> None:
    p = Position.from_stacks(BASHNI, {20: parse_stack("wbw"), 3: (BLACK_MAN,)}, Color.WHITE)
    assert p.status() & Status.BAD_TOWER
    assert Position.initial(BASHNI).status() == Status.VALID


@pytest.mark.parametrize(
    ("fen", "fault"),
    [
        ("W:Wc1(wbw):Bd8", "wbw"),  # three colour blocks: no capture builds it
        ("W:Wc1(bW):Bd8", "black top"),  # a black top in White's list
        ("W:Wc1(Wbxb):Bd8", "Wbxb"),  # not a piece letter
        ("W:Wc1(Wbb:Bd8", "c1(Wbb"),  # unclosed bracket
        ("W:Wc1():Bd8", "c1()"),  # empty tower
        ("W:Wc2(Wb):Bd8", "c2"),  # a light square
        ("W:W1-3(wb):Bd8", "one square"),  # a tower on a range
        ("W:WKc1(wb):Bd8", "Kc1(wb)"),  # K before a man-topped tower
    ],
)
def test_bad_tower_fen_is_refused_naming_the_input(fen: str, fault: str) -> None:
    with pytest.raises(InvalidFenError, match=re.escape(fault)):
        Position.from_fen(BASHNI, fen)


def test_tower_fen_round_trips_every_hidden_piece() -> None:
    for position in replay("bashni", BASHNI_GAME) + replay("lasca", LASCA_GAME):
        again = Position.from_fen(position.variant, position.fen())
        assert again == position and again.fen() == position.fen()


def test_move_that_jumps_an_empty_square_is_refused_and_nothing_changes() -> None:
    p = Position.from_fen(BASHNI, "W:Wc3,e3:Bd4")
    before = p.fen()
    g = BASHNI.geometry
    jump_nothing = Move((g.parse_square("e3"), g.parse_square("g5")), (g.parse_square("f4"),))
    with pytest.raises(IllegalMoveError, match="e3:g5"):
        p.play(jump_nothing)
    wrong_victim = Move((g.parse_square("c3"), g.parse_square("e5")), (g.parse_square("e3"),))
    with pytest.raises(IllegalMoveError, match="exactly one tower"):
        p.play(wrong_victim)
    backward = Move((g.parse_square("c3"), g.parse_square("b2")))
    with pytest.raises(IllegalMoveError, match="backward"):
        p.play(backward)
    assert p.fen() == before


def test_a_side_whose_towers_are_all_blocked_has_lost() -> None:
    # §1.12: all towers blocked; the white man on a1 can neither step nor jump.
    p = Position.from_fen(BASHNI, "W:Wa1:Bb2,c3")
    assert p.legal_moves() == [] and p.is_game_over()
    # All pieces taken prisoner: Black's pieces are on the board, but no tower is his.
    captured = Position.from_fen(BASHNI, "B:Wc3(wbbbbbbbbbbbb)")
    assert captured.is_game_over() and captured.status() & Status.NO_PIECES

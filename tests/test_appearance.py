"""What the overhead camera sees, and which legal moves it cannot tell apart (digest §5)."""

from __future__ import annotations

import pytest

from rules import Position, find_variant
from rules.appearance import SquareView, look_alikes, tops, view, view_after
from rules.observation import Top
from tests.test_columns import BASHNI_GAME, LASCA_GAME, moves_of

BASHNI = find_variant("bashni")
LASCA = find_variant("lasca")


def test_view_shows_tops_and_heights() -> None:
    p = Position.from_fen(BASHNI, "W:Wc1(Wbbbb),e3:Ba1(BBbBbBW),b2(bb)")
    g = BASHNI.geometry
    v = view(p)
    assert v[g.parse_square("c1")] == SquareView(Top.WHITE_KING, 5)
    assert v[g.parse_square("e3")] == SquareView(Top.WHITE_MAN, 1)
    assert v[g.parse_square("a1")] == SquareView(Top.BLACK_KING, 7)
    assert v[g.parse_square("b2")] == SquareView(Top.BLACK_MAN, 2)
    assert v[g.parse_square("d4")] == SquareView(Top.EMPTY, 0)
    assert len(v) == 32


def test_view_after_a_capture_that_only_lowers_a_tower() -> None:
    # Digest 5.5: 8. h2:f4 leaves g3 black-topped, one piece lower (b,b,w -> b,w).
    p = Position.initial(BASHNI)
    plies = moves_of(BASHNI_GAME)
    for text in plies[:14]:
        p = p.push_text(text)
    g = BASHNI.geometry
    before, after = view(p), view_after(p, p.parse_move("h2:f4"))
    g3 = g.parse_square("g3")
    assert before[g3] == SquareView(Top.BLACK_MAN, 3) and after[g3] == SquareView(Top.BLACK_MAN, 2)
    assert after[g.parse_square("f4")] == SquareView(Top.WHITE_MAN, 2)
    assert after[g.parse_square("h2")] == SquareView(Top.EMPTY, 0)


@pytest.mark.parametrize(("variant", "score"), [("bashni", BASHNI_GAME), ("lasca", LASCA_GAME)])
def test_every_ply_of_the_sample_games_is_told_by_the_tops_alone(variant: str, score: str) -> None:
    """Digest 5.5: all 50 plies are uniquely identified by the top view."""
    p = Position.initial(find_variant(variant))
    for text in moves_of(score):
        played = p.parse_move(text)
        seen = tops(view_after(p, played))
        others = [m for m in p.legal_moves() if p.play(m) != p.play(played)]
        assert all(tops(view_after(p, m)) != seen for m in others), text
        assert not any(played in group.moves for group in look_alikes(p))
        p = p.play(played)


def test_look_alike_moves_told_apart_by_height() -> None:
    # Two king routes from g1 to f8 over different towers that all stay black on top.
    p = Position.from_fen(BASHNI, "W:Wg1(Wb):Be7(bbw),b2(bb),d2(bb),f2(bbb)")
    (group,) = look_alikes(p)
    moves = p.legal_moves()
    assert sorted(p.move_name(m, moves) for m in group.moves) == ["g1:c5:f8", "g1:e3:c1:a3:f8"]
    assert group.heights_decide
    assert len(group.by_height) == 2


def test_look_alike_moves_that_need_an_arbiter() -> None:
    # A king loops round four towers either way: same tops, same heights, but the
    # prisoners under c1 lie in the opposite order.
    p = Position.from_fen(BASHNI, "W:WKc1:BKb4,d4(bbb),b2,Kd2")
    (group,) = look_alikes(p)
    assert not group.heights_decide
    first, second = (p.play(m) for m in group.moves)
    c1 = BASHNI.geometry.parse_square("c1")
    assert first != second
    assert first.stack(c1)[1:] == tuple(reversed(second.stack(c1)[1:]))
    assert view(first) == view(second)


def test_lasca_loop_capture_needs_an_arbiter() -> None:
    p = Position.from_fen(LASCA, "B:W1,3,4,6,9,11,13(wb),14(Wbbb),20(Wbbb),21(wbb):B2(Bw),15")
    (group,) = look_alikes(p)
    moves = p.legal_moves()
    assert sorted(p.move_name(m, moves) for m in group.moves) == [
        "2:10:16:24:18:10",
        "2:18:24:16:10",  # 10 is no turn on this route
    ]
    assert not group.heights_decide


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_draughts_positions_have_height_one_and_no_look_alikes(variant: str) -> None:
    p = Position.initial(find_variant(variant))
    for _ in range(6):
        assert {s.height for s in view(p)} == {0, 1}
        assert look_alikes(p) == []
        p = p.play(p.legal_moves()[-1])

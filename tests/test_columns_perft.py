"""Perft for column draughts, against our own table and a second, independent mover.

No published perft exists for bashni or lasca. The counts below were written in only
after the engine (:mod:`rules.columns`) and the deliberately simple reference mover
(:mod:`tests.tower_reference`, a dict of coordinates, rules read from the digest) agreed
on every one of them; docs/towers.md publishes the same table. Here the engine is
checked against the table within a node budget, and the two movers against each other
on shallower searches and along random games.
"""

from __future__ import annotations

import random

import pytest

from rules import Position, find_variant
from rules.perft import perft
from tests import tower_reference as ref

NODE_BUDGET = 50_000
CROSS_CHECK_BUDGET = 10_000

# (variant, name, FEN or None for the start, counts from depth 1). Both movers agree.
TABLE: list[tuple[str, str, str | None, list[int]]] = [
    ("bashni", "start", None, [7, 49, 302, 1469, 7482, 37908, 189912, 925862]),
    (
        "bashni",
        "Code diagram 4, White to move",
        "W:Wc1(Wbbbb),d6(wwwwww),f4(wwww):Ba1(BBbBbBW),b2(bb)",
        [1, 1, 7, 19, 92, 314, 1530, 7148, 42870],
    ),
    (
        "bashni",
        "kings and towers a",
        "B:Wd8(Wbbbb),e7(wBb),b6,f6(wwwb),a5(WB),c5(www):Bf2(Bw),h2(Bbbw)",
        [13, 108, 708, 6253, 42635, 376786],
    ),
    (
        "bashni",
        "kings and towers b",
        "B:Wf6(wbbb),h4:Bh8,g7,b6(bb),h6,e5,a3(Bwwwww),h2(bww),g1(Bwww)",
        [16, 20, 47, 97, 370, 1439, 7931, 34880],
    ),
    (
        "lasca",
        "start",
        None,
        [6, 6, 18, 54, 116, 324, 846, 2148, 5692, 13898, 37124],
    ),
    (
        "lasca",
        "Code diagram 10, Black to move",
        "B:W2,5,8,10(wb),18(wb),23(Wbb):B11(Bwwww),16(bw),19(bb),20,24,25",
        [8, 17, 93, 294, 1179, 4423, 16221],
    ),
    (
        "lasca",
        "kings and towers a",
        "W:W1(WwbBBb),9,14(Wwww),23(WWwW):B5,6(bbbbB),7",
        [8, 40, 224, 733, 5074, 15608, 95650],
    ),
    (
        "lasca",
        "towers b",
        "B:W3,11,16(wb),17,20(wb),25(Wbb):B7(bbw),12(BWwww),13(bb),19,22",
        [7, 44, 170, 865, 3607, 18366, 88925],
    ),
]
RULES = {"bashni": ref.BASHNI_RULES, "lasca": ref.LASCA_RULES}


def start_of(variant: str, fen: str | None) -> Position:
    v = find_variant(variant)
    return Position.from_fen(v, fen) if fen else Position.initial(v)


@pytest.mark.parametrize(
    ("variant", "name", "fen", "counts"), TABLE, ids=[f"{r[0]}: {r[1]}" for r in TABLE]
)
def test_engine_perft_matches_the_table(
    variant: str, name: str, fen: str | None, counts: list[int]
) -> None:
    position = start_of(variant, fen)
    depths = [d for d, n in enumerate(counts, start=1) if n <= NODE_BUDGET]
    assert [perft(position, d) for d in depths] == counts[: len(depths)]


@pytest.mark.parametrize(
    ("variant", "name", "fen", "counts"), TABLE, ids=[f"{r[0]}: {r[1]}" for r in TABLE]
)
def test_reference_mover_agrees_with_the_table(
    variant: str, name: str, fen: str | None, counts: list[int]
) -> None:
    board, side = ref.from_position(start_of(variant, fen))
    depths = [d for d, n in enumerate(counts, start=1) if n <= CROSS_CHECK_BUDGET]
    got = [ref.perft(RULES[variant], board, side, d) for d in depths]
    assert got == counts[: len(depths)]


def _engine_moves(position: Position) -> set[tuple[ref.Coord, ref.Coord, frozenset[object]]]:
    g = position.variant.geometry

    def coord(sq: int) -> ref.Coord:
        row, col = g.rowcol(sq)
        return (col, g.size - 1 - row)

    out: set[tuple[ref.Coord, ref.Coord, frozenset[object]]] = set()
    for move in position.legal_moves():
        board, _side = ref.from_position(position.play(move))
        out.add((coord(move.from_square), coord(move.to_square), frozenset(board.items())))
    return out


@pytest.mark.parametrize("variant", ["bashni", "lasca"])
def test_both_movers_give_the_same_moves_along_random_games(variant: str) -> None:
    """Every move and the whole position it leaves, towers included, at every ply."""
    rng = random.Random(2026)
    checked = captures = 0
    for _game in range(12):
        position = Position.initial(find_variant(variant))
        for _ply in range(100):
            board, side = ref.from_position(position)
            expected = {
                (f, t, frozenset(a.items())) for f, t, a in ref.moves(RULES[variant], board, side)
            }
            assert _engine_moves(position) == expected, position.fen()
            checked += 1
            moves = position.legal_moves()
            if not moves:
                break
            captures += moves[0].is_capture
            position = position.play(rng.choice(moves))
    assert checked > 500 and captures > 100


def test_keep_duplicates_counts_routes_apart() -> None:
    # A flying king taking c3 may pass d4 or e5 before taking f6: one move, two routes.
    p = Position.from_fen("bashni", "W:WKa1:Bc3,f6")
    assert len(p.legal_moves()) == 2
    assert len(p.legal_moves(keep_duplicates=True)) == 4


def test_damcam_perft_command_for_both_games() -> None:
    from typer.testing import CliRunner

    from damcam.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["perft", "--variant", "lasca", "--depth", "4"])
    assert result.exit_code == 0
    assert result.stdout.split("\n")[:4] == ["1 6", "2 6", "3 18", "4 54"]
    fen = TABLE[1][2]
    assert fen is not None
    result = runner.invoke(app, ["perft", "--variant", "bashni", "--depth", "3", "--fen", fen])
    assert result.exit_code == 0 and result.stdout.split() == ["1", "1", "2", "1", "3", "7"]
    bad = runner.invoke(
        app, ["perft", "--variant", "bashni", "--depth", "1", "--fen", "W:Wc1(wbw)"]
    )
    assert bad.exit_code == 2

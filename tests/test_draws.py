"""Draw rules against the digests' counts (I 6, S1 §8.2, IT §8.2, column Code §1.13)."""

from __future__ import annotations

import pytest

from rules import Position, find_variant
from rules.draws import DrawCounters, DrawState, draw_status
from rules.game import Game, Termination
from rules.pieces import parse_stack
from rules.variants import Color


def _status(
    variant: str,
    fen: str,
    *,
    material_plies: int = 0,
    kings_only_plies: int = 0,
    arose_with: Color | None = None,
) -> tuple[DrawState, str]:
    """Draw status of ``fen`` whose material arose ``material_plies`` plies ago, with the
    given side to move at that moment (the history holds no repetition)."""
    position = Position.from_fen(find_variant(variant), fen)
    turn = arose_with or position.turn
    arose = Position(
        position.variant, position.white, position.black, position.kings, turn, position.below
    )
    # Fillers that never equal the current position, so no repetition is counted.
    filler = Position.initial(position.variant)
    n = max(material_plies, kings_only_plies)
    positions = [filler] * (n - material_plies) + [arose] + [filler] * material_plies
    positions[-1] = position if material_plies else arose
    counters = [DrawCounters()] * n + [DrawCounters(kings_only_plies, material_plies)]
    status = draw_status(positions, counters)
    return status.state, status.rule.article if status.rule else ""


def _shuffle(game: Game, cycle: list[str], times: int) -> list[DrawState]:
    states = []
    for _ in range(times):
        for move in cycle:
            game.push(move)
            states.append(game.draw_status().state)
    return states


def test_international_threefold_repetition_is_reached_on_the_third_occurrence() -> None:
    # R-DRW-01: three occurrences with the same side to move; two do not count.
    game = Game.from_moves("international", [], start="W:WK47,K50,45:BK4,K1,6")
    states = _shuffle(game, ["47-41", "1-7", "41-47", "7-1"], 2)
    assert states[:7] == [DrawState.NONE] * 7
    assert states[7] is DrawState.REACHED
    assert "I 6.1" in game.draw_status().detail
    assert game.termination() is Termination.DRAW_RULE and game.board_result() == "1-1"


def test_international_25_move_rule_counts_50_plies() -> None:
    fen = "W:WK46,K50,45:BK1,K5,6"
    assert _status("international", fen, kings_only_plies=49, material_plies=49)[0] is (
        DrawState.NONE
    )
    assert _status("international", fen, kings_only_plies=50, material_plies=50) == (
        DrawState.REACHED,
        "I 6.2",
    )


@pytest.mark.parametrize(
    ("fen", "plies", "article"),
    [
        ("W:WK46,K47,K48:BK5", 32, "I 6.3"),  # three kings against one
        ("W:WK46,K47,30:BK5", 32, "I 6.3"),  # two kings and a man
        ("B:WK46,29,30:BK5", 32, "I 6.3"),  # one king and two men
        ("W:WK46,K47:BK5", 10, "I 6.4"),  # two kings against one
        ("W:WK46,30:BK5", 10, "I 6.4"),  # king and man
        ("W:WK5:BK46,K47", 10, "I 6.4"),  # Black the stronger side
    ],
)
def test_international_16_and_5_move_endgames(fen: str, plies: int, article: str) -> None:
    assert _status("international", fen, material_plies=plies - 1)[0] is DrawState.NONE
    assert _status("international", fen, material_plies=plies) == (DrawState.REACHED, article)


def test_material_outside_the_endgame_rules_is_not_drawn() -> None:
    assert _status("international", "W:WK46,K47,K48,K49:BK5", material_plies=200)[0] is (
        DrawState.NONE
    )


@pytest.mark.parametrize(
    ("fen", "arose_with", "article"),
    [
        ("W:WKa1,Kc1:BKh2", Color.WHITE, "S1 §8.2.5"),  # 2K vs 1K anywhere
        ("W:WKb2,Kc1,Ke1:BKa1", Color.WHITE, "S1 §8.2.4"),  # 3K vs 1K on the main road
        ("W:WKb2,Kc1,e1:BKd8,Kh4", Color.WHITE, "S1 §8.2.6"),  # 2K+1M vs 2K
        ("B:WKh8:BKa1,Kc1,Ke1", Color.BLACK, "S1 §8.2.4"),  # mirrored: Black stronger
    ],
)
def test_draughts64_five_move_rules_count_the_stronger_sides_own_moves(
    fen: str, arose_with: Color, article: str
) -> None:
    # Nine plies from the stronger side's move: its own fifth move is the ninth ply.
    assert _status("russian", fen, material_plies=9, arose_with=arose_with) == (
        DrawState.CLAIMABLE,
        article,
    )
    assert _status("russian", fen, material_plies=9, arose_with=arose_with.other)[0] is (
        DrawState.NONE
    )


def test_draughts64_three_kings_against_a_king_off_the_main_road_needs_15_moves() -> None:
    fen = "W:WKb2,Kc1,Ke1:BKh2"  # h2 is not on the main road a1-h8: S1 §8.2.15
    assert _status("russian", fen, material_plies=27)[0] is DrawState.NONE
    assert _status("russian", fen, material_plies=29) == (DrawState.CLAIMABLE, "S1 §8.2.15")


def test_draughts64_kings_only_rule_is_15_moves_each() -> None:
    fen = "W:WKa1,Kc1,c3,e3:BKh8,Kf8,f6,d6"  # eight pieces: no endgame rule applies
    assert _status("russian", fen, kings_only_plies=29, material_plies=29)[0] is DrawState.NONE
    assert _status("russian", fen, kings_only_plies=30, material_plies=30) == (
        DrawState.CLAIMABLE,
        "S1 §8.2.14",
    )


@pytest.mark.parametrize(
    ("fen", "moves"), [("W:WKa1,c3:BKh8,f6", 30), ("W:WKa1,c3,e3:BKh8,f6,d6", 40)]
)
def test_draughts64_catch_all_by_piece_count(fen: str, moves: int) -> None:
    # S1 §8.2.25: 4-5 pieces 30 moves, 6-7 pieces 40 moves, both sides with a king.
    assert _status("russian", fen, material_plies=2 * moves - 1)[0] is DrawState.NONE
    assert _status("russian", fen, material_plies=2 * moves) == (
        DrawState.CLAIMABLE,
        "S1 §8.2.25",
    )


def test_italian_fourfold_repetition_ignores_the_side_to_move() -> None:
    italian = find_variant("italian")
    white = Position.from_fen(italian, "W:WK29,21:BK4,12")
    black = Position.from_fen(italian, "B:WK29,21:BK4,12")
    history = [white, black, white, black]
    counters = [DrawCounters(k, k) for k in range(4)]
    status = draw_status(history, counters)
    assert (
        status.state is DrawState.CLAIMABLE and status.rule and status.rule.article == ("IT §8.2.3")
    )
    assert draw_status(history[:3], counters[:3]).state is DrawState.NONE


def test_english_forty_move_rule() -> None:
    fen = "W:WK21,K22,30:BK1,K2,5"
    assert _status("english", fen, kings_only_plies=79, material_plies=79)[0] is DrawState.NONE
    assert _status("english", fen, kings_only_plies=80, material_plies=80)[0] is (
        DrawState.CLAIMABLE
    )


def test_column_draughts_fifteen_moves_with_the_towers_unchanged() -> None:
    bashni = find_variant("bashni")
    position = Position.from_stacks(
        bashni, {0: parse_stack("Wbb"), 31: parse_stack("Bw")}, Color.WHITE
    )
    assert draw_status([position], [DrawCounters(0, 29)]).state is DrawState.NONE
    status = draw_status([position], [DrawCounters(0, 30)])
    assert status.state is DrawState.CLAIMABLE
    assert status.rule is not None and "15 moves" in status.rule.article


def test_column_repetition_counts_hidden_pieces() -> None:
    bashni = find_variant("bashni")
    one = Position.from_stacks(bashni, {0: parse_stack("Wbb"), 31: parse_stack("B")}, Color.WHITE)
    other = Position.from_stacks(bashni, {0: parse_stack("Wbw"), 31: parse_stack("B")}, Color.WHITE)
    assert one != other  # the same from above, different underneath
    counters = [DrawCounters(k, 0) for k in range(5)]
    assert draw_status([one, other, one, other, one], counters).state is DrawState.CLAIMABLE
    assert draw_status([one, other, other, other, one], counters).state is DrawState.NONE


def test_counters_reset_on_man_moves_captures_and_promotion() -> None:
    game = Game.from_moves("international", [], start="W:WK47,33:BK5,18")
    game.push("47-42")  # a king move
    assert game.counters[-1] == DrawCounters(1, 1)
    game.push("18-23")  # a man move: only kings-only restarts
    assert game.counters[-1] == DrawCounters(0, 2)
    game.push("33-28")
    assert game.counters[-1] == DrawCounters(0, 3)
    game.push("23x32")  # a capture: both restart
    assert game.counters[-1] == DrawCounters(0, 0)
    english = Game.from_moves("english", [], start="B:WK30:B27")
    english.push("27-32")  # a man crowned: the material changed
    assert english.counters[-1] == DrawCounters(0, 0)


def test_a_repetition_can_be_claimed_before_the_repeating_move() -> None:
    # S1 §8.2.3: the player writes the move that would repeat the position a third time
    # and claims instead of playing it.
    game = Game.from_moves("russian", [], start="W:WKg1,a3:BKb8,h6")
    cycle = ["g1-h2", "b8-a7", "h2-g1", "a7-b8"]
    for move in cycle + cycle[:3]:
        game.push(move)
    assert game.draw_status().state is DrawState.NONE  # the position has occurred twice
    claims = {game.position.move_name(m): s for m, s in game.draws_by_moving()}
    assert list(claims) == ["a7-b8"]  # it brings back the start a third time
    assert claims["a7-b8"].state is DrawState.CLAIMABLE
    assert "S1 §8.2.3" in claims["a7-b8"].detail
    assert game.ply == 7  # nothing was played


@pytest.mark.parametrize(
    ("fen", "stronger", "moves", "article"),
    [
        # §8.2.7: 4K against 2K with one of them on the main road.
        ("W:WKc1,Ke1,Kg1,Kd2:BKb2,Kd8", Color.WHITE, 5, "S1 §8.2.7"),
        # §8.2.10: 2K (one on the main road) + a7 against K + b8, and mirrored for Black.
        ("W:WKb2,Kd2,a7:BKh6,b8", Color.WHITE, 5, "S1 §8.2.10"),
        ("B:WKe3,g1:BKb2,Kd8,h2", Color.BLACK, 5, "S1 §8.2.10"),
        # §8.2.13: K + h6 + two men right of the main road against K on it + f8; mirrored.
        ("W:WKd2,h6,c1,h4:BKg7,f8", Color.WHITE, 5, "S1 §8.2.13"),
        ("B:WKb2,c1:BKe7,a3,f8,a5", Color.BLACK, 5, "S1 §8.2.13"),
        # §8.2.17: 2K + a1 against K + a3.
        ("W:WKc3,Ke5,a1:BKh8,a3", Color.WHITE, 15, "S1 §8.2.17"),
        # §8.2.24: 4K holding the main road and a double line against 2K off them.
        ("W:WKa1,Kg1,Kc1,Ke1:BKd8,Kh4", Color.WHITE, 30, "S1 §8.2.24"),
    ],
)
def test_draughts64_placement_endings(fen: str, stronger: Color, moves: int, article: str) -> None:
    own_moves_in = 2 * moves - 1  # plies from the stronger side's first move to its Nth
    assert _status("russian", fen, material_plies=own_moves_in, arose_with=stronger) == (
        DrawState.CLAIMABLE,
        article,
    )
    assert _status("russian", fen, material_plies=own_moves_in - 2, arose_with=stronger)[0] is (
        DrawState.NONE
    )


def test_portuguese_leaves_out_the_placement_articles() -> None:
    # PT §8.2 keeps §8.2.13 only by name, without squares for its board: not applied.
    fen = "W:W1,2,3,K4:BK30,32"
    assert _status("portuguese", fen, material_plies=9)[0] is DrawState.NONE

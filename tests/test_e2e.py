"""The whole recording chain on a few short games: the recorded game is the game played.

The small version of ``python -m bench.e2e``. Each game goes through ``damcam record``'s
pipeline (live pipeline, recorder, SQLite journal, PDN scoresheet, read back). The frames
are read from the render truth, and, where this build has synth's renderer and vision,
also drawn and read by them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.e2e import vision_status
from bench.e2e_games import PlayedGame, generated_game, real_games, select_games
from bench.e2e_measure import injection_points, measure_game
from bench.e2e_script import CONDITIONS, board_of, move_steps, play_script
from rules import Position, find_variant


def _exact(line: dict[str, Any]) -> None:
    assert line["exact"], line
    assert line["flags"] == [], line
    assert line["errors"] == 0, line


@pytest.mark.parametrize(("variant", "seed"), [("brazilian", 1), ("lasca", 2)])
def test_generated_game_recorded_exactly_under_hard_conditions(variant: str, seed: int) -> None:
    game = generated_game(variant, 24, seed)
    assert any(m.captures for m in game.moves)  # the game exercises captures
    line = measure_game(game, CONDITIONS["hard"], seed)
    _exact(line)
    assert line["moves_right"] == line["plies"] == len(game.moves)


def test_real_game_recorded_exactly(shared_data: Path) -> None:
    (game,) = real_games(shared_data, "international", 1)
    line = measure_game(game.truncated(20), CONDITIONS["default"], 0)
    _exact(line)
    assert line["plies"] == 20


@pytest.fixture(scope="module")
def rendered_line() -> dict[str, Any]:
    """One short game drawn by the renderer and read by vision (skips only when this
    build lacks them)."""
    why = vision_status()
    if why:
        pytest.skip(why)
    return measure_game(generated_game("russian", 4, 0), CONDITIONS["default"], 0, chain="rendered")


def test_rendered_chain_records_only_moves_played(rendered_line: dict[str, Any]) -> None:
    line = rendered_line
    assert line["chain"] == "rendered"
    assert line["errors"] == 0, line
    # Whatever vision misses, no move that was not played gets onto the scoresheet.
    assert line["first_wrong_ply"] is None or line["first_wrong_ply"] > line["moves_right"]
    assert line["vision_fps"] > 0


def test_rendered_game_recorded_exactly(rendered_line: dict[str, Any]) -> None:
    _exact(rendered_line)


def test_captured_piece_left_is_flagged_at_its_ply() -> None:
    game = generated_game("czech", 30, 0)
    cut, injection = next(
        (g, i) for g, i in injection_points(game) if i.kind == "captured_piece_left"
    )
    line = measure_game(cut, CONDITIONS["default"], 0, injection)
    assert line["detected"], line
    assert line["false_alarms"] == 0, line
    assert {"kind": "captured_piece_left", "ply": injection.ply} in line["flags"]


def test_man_not_crowned_is_flagged_at_the_move_that_promoted_it() -> None:
    games = (generated_game("pool", 60, seed) for seed in range(20))
    game = next(g for g in games if any(m.promotes for m in g.moves))
    cut, injection = next((g, i) for g, i in injection_points(game) if i.kind == "not_crowned")
    line = measure_game(cut, CONDITIONS["default"], 0, injection)
    assert line["detected"], line


def test_captured_pieces_come_off_one_at_a_time() -> None:
    variant = find_variant("international")
    position = Position.from_fen(variant, "W:W28,32:B23,13,40")
    (move,) = [m for m in position.legal_moves() if len(m.captures) == 2]
    steps = move_steps(position, move, position.play(move))
    assert len(steps) == 3  # the piece lands, then one captured piece, then the other
    assert [sum(1 for s in b if s) for b in steps] == [5, 4, 3]
    assert steps[-1] == board_of(position.play(move))


def test_script_truth_and_hand_times() -> None:
    game = generated_game("english", 6, 0)
    script = play_script(game.start, game.moves, CONDITIONS["default"])
    assert sorted(script.hand_left) == list(range(1, 7))
    final = script.frames[-1]
    assert not final.hand and final.plies_done == 6
    end = game.start
    for move in game.moves:
        end = end.play(move)
    assert final.board == board_of(end)


def test_selection_covers_ten_variants_without_shared_data() -> None:
    games = select_games(None, per_variant=1, plies=12)
    assert len({g.variant for g in games}) == 10
    assert all(isinstance(g, PlayedGame) and 0 < len(g.moves) <= 12 for g in games)

"""PDN 3.0 reading and writing: the FMJD test files, syntax edge cases, round trips, CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from damcam.cli import app
from rules import Position, find_variant
from rules.game import Game
from rules.pdn import (
    BaseVisitor,
    StringExporter,
    infer_variant,
    iter_games,
    read_game,
    read_games_text,
    visit_game,
)

FMJD = Path("games") / "pdn-fmjd-testgames" / "games"


def _games(path: Path) -> list[Game]:
    with path.open(encoding="utf-8") as handle:
        return list(iter_games(handle))


def test_every_fmjd_succeed_file_replays(shared_data: Path) -> None:
    files = sorted((shared_data / FMJD / "succeed").glob("*.pdn"))
    assert len(files) == 39
    failures = []
    total = 0
    for path in files:
        for game in _games(path):
            total += 1
            failures += [f"{path.name}: {e}" for e in game.errors]
    assert not failures, "\n".join(failures[:20])
    assert total >= 1900  # README: 160 + 166 international, 339 russian, 1250 english, 53 italian


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nested_comment.pdn", "game 1, ply 4: unexpected text: '}'"),
        ("delfts.pdn", "game 1, ply 129: illegal move: '4-6'"),
        ("mrdrcd07.pdn", "game 12, ply 1: move number '1.' without a move"),
        ("mrdrcd08.pdn", "game 31, ply 1: move number '1.' without a move"),
        ("40Camp.DamaInternazionaleAssoluto.pdn", "game 11, ply 3: no result"),
        ("abatsiev.pdn", "game 36, ply 1: unexpected text: '-'"),
        ("Cat.A1.pdn", "game 30, ply 6: unexpected text: '.'"),
        ("Cat.C1.pdn", "game 43, ply 11: no result"),
    ],
)
def test_every_fmjd_fail_file_is_rejected_naming_game_and_ply(
    shared_data: Path, name: str, message: str
) -> None:
    errors = [str(e) for g in _games(shared_data / FMJD / "fail" / name) for e in g.errors]
    assert errors, f"{name} was accepted"
    assert errors[0].startswith(message)


def test_fmjd_files_are_read_as_the_right_variants(shared_data: Path) -> None:
    succeed = shared_data / FMJD / "succeed"
    assert {g.variant.name for g in _games(succeed / "ussr1947.pdn")} == {"russian"}
    assert {g.variant.name for g in _games(succeed / "kurnik.pdn")} == {"international"}
    assert {g.variant.name for g in _games(succeed / "OCA_2.0.pdn")} == {"english"}
    italian = _games(succeed / "Campionato Assoluto 2005.pdn")
    assert {g.variant.name for g in italian} == {"italian"}
    # Game 46 ends on a capture its notation cannot pin down: kept, with a warning.
    assert italian[45].warnings and "3x10x17x26, 3x10x19x26" in italian[45].warnings[0]
    # Czech championship games that Russian rules reject are read as Czech.
    assert "czech" in {g.variant.name for g in _games(succeed / "mrcd2007.pdn")}


SAMPLE = """\
% a line escape
[Event "Test \\"quoted\\" event"]
[White "Сергей"]
[GameType "20,W,10,10,N1,0"]
{opening comment}
1. 32-28! 19-23 (18-23 38-32 (37-32? 23-29! { Black wins }) 12-18) 2. 28x19 $3
14x23 {recapture} 3. 37-32(?!) 1/2-1/2

[FEN "B:W28,K46:B19,K5"]
1... 19-23 2. 28x19 1-0
"""


def test_reader_handles_tags_comments_variations_nags_and_setups() -> None:
    first, second = read_games_text(SAMPLE)
    assert first.errors == [] and second.errors == []
    assert first.tags["Event"] == 'Test "quoted" event'
    assert first.tags["White"] == "Сергей"
    assert first.variant.name == "international"
    assert first.notations == ["32-28", "19-23", "28x19", "14x23", "37-32"]
    assert first.comments == {0: "opening comment", 4: "recapture"}
    assert first.nags == {1: ("!",), 3: ("$3",), 5: ("(?!)",)}
    assert first.result == "1-1"  # 1/2-1/2 read as the draughts result
    assert second.start == Position.from_fen("international", "B:W28,K46:B19,K5")
    assert second.notations == ["19-23", "28x19"] and second.result == "2-0"


def test_reader_accepts_algebraic_colon_and_joined_moves() -> None:
    (game,) = read_games_text("1.c3d4 f6e5 2. d4:f6? g7xe5 3. b2-c3 *")
    assert game.variant.name == "russian" and game.errors == []
    assert game.notations == ["c3-d4", "f6-e5", "d4:f6", "g7:e5", "b2-c3"]


def test_read_game_returns_none_at_the_end_and_pushes_back_the_next_tags() -> None:
    handle = io.StringIO('[Event "a"]\n1. 32-28\n[Event "b"]\n1. 33-28 *\n')
    first = read_game(handle)
    second = read_game(handle)
    assert first is not None and second is not None
    assert first.tags["Event"] == "a" and second.tags["Event"] == "b"
    assert "no result" in str(first.errors[0])  # two games need a terminator between them
    assert second.notations == ["33-28"] and second.errors == []
    assert read_game(handle) is None


def test_illegal_move_is_collected_with_game_and_ply_and_replay_stops() -> None:
    games = read_games_text("1. 32-28 19-23 2. 28-22 14-19 *\n\n1. 31-27 *")
    assert [str(e) for e in games[0].errors] == [
        "game 1, ply 3: illegal move: '28-22' in W:W28,31,33-50:B1-18,20,23"
    ]
    assert games[0].ply == 2 and games[0].errors[0].ply == 3
    assert games[1].errors == []  # the next game is read from the right place


def test_bad_fen_and_unknown_gametype_are_reported() -> None:
    (game,) = read_games_text('[FEN "W:W31-60:B1-20"]\n1. 32-28 *')
    assert "bad FEN" in str(game.errors[0]) and "60" in str(game.errors[0])
    (game,) = read_games_text('[GameType "97"]\n1. 32-28 *')
    assert "GameType '97'" in str(game.errors[0])


@pytest.mark.parametrize(
    ("moves", "tags", "fen", "expected"),
    [
        (["c3-d4"], {}, None, "russian"),
        (["32-28", "19-23"], {}, None, "international"),
        (["11-15", "23-19"], {}, None, "english"),
        (["21-17", "10-14"], {}, None, "italian"),
        (["22-18"], {"bianco": "x", "nero": "y"}, None, "italian"),
        ([], {}, "W:W31-50:B1-20", "international"),
    ],
)
def test_variant_inference(
    moves: list[str], tags: dict[str, str], fen: str | None, expected: str
) -> None:
    assert infer_variant(tags, moves, fen).name == expected


def test_variant_option_wins_over_inference() -> None:
    (game,) = list(iter_games(io.StringIO("1. c3-d4 *"), variant=find_variant("brazilian")))
    assert game.variant.name == "brazilian" and game.errors == []


def test_writer_gives_tournament_tags_wrapped_movetext_and_reads_back() -> None:
    game = Game.from_moves(
        "international",
        ["32-28", "19-23", "28x19", "14x23", "37-32", "10-14", "41-37", "5-10"] * 1,
        tags={"Event": "Club", "White": "A", "Black": "B", "Annotator": "me"},
    )
    game.comments[2] = "a long comment " * 8
    game.nags[3] = ("!",)
    game.result = "1-1"
    text = game.pdn()
    lines = text.splitlines()
    assert lines[:9] == [
        '[Event "Club"]',
        '[Site "?"]',
        '[Date "?"]',
        '[Round "?"]',
        '[White "A"]',
        '[Black "B"]',
        '[Result "1-1"]',
        '[GameType "20"]',
        '[Annotator "me"]',
    ]
    assert all(len(line) <= 80 for line in lines)
    (back,) = read_games_text(text)
    assert back.errors == []
    assert back.moves == game.moves and back.result == "1-1"
    assert back.nags == {3: ("!",)} and back.comments[2] == game.comments[2].strip()


def test_writer_adds_fen_and_numbers_a_second_player_start() -> None:
    game = Game.from_moves("international", ["19-23", "28x19"], start="B:W28,K46:B19,K5")
    text = game.pdn()
    assert '[FEN "B:W28,K46:BK5,19"]' in text
    assert "1... 19-23 2. 28x19 *" in text


def test_writer_prints_intermediate_squares_only_when_needed() -> None:
    russian = find_variant("russian")
    game = Game(russian, Position.from_fen(russian, "W:WKd2:Bf4,f6,g7,d6,b6"))
    game.push("d2:g5:d8:a5")
    assert game.notations == ["d2:a5"]  # one route to a5: short form
    game = Game(russian, Position.from_fen(russian, "W:WKd2:Bf4,f6,g7,d6,b6"))
    game.push("d2:g5:e7:c5:a7")
    assert game.notations == ["d2:g5:e7:c5:a7"]


class _MoveCounter(BaseVisitor[int]):
    def __init__(self) -> None:
        self.moves = 0

    def visit_move(self, text: str) -> None:
        self.moves += 1

    def result(self) -> int:
        return self.moves


def test_custom_visitor_sees_main_line_and_variations() -> None:
    count = visit_game(io.StringIO("1. 32-28 19-23 (18-23) 2. 33-29 *"), _MoveCounter())
    assert count == 4  # visitors see every move; GameBuilder skips variations


def test_string_exporter_without_comments() -> None:
    game = Game.from_moves("international", ["32-28"])
    game.comments[1] = "hidden"
    assert "hidden" not in game.accept(StringExporter(comments=False))


def test_pdn_check_cli_reports_one_json_object_per_game(tmp_path: Path) -> None:
    path = tmp_path / "two.pdn"
    path.write_text("1. 32-28 19-23 *\n\n1. 32-28 19-24 2. 28-17 *\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["pdn", "check", str(path)])
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert lines[0] == {
        "game": 1,
        "moves": 2,
        "ok": True,
        "error": "",
        "ply": 2,
        "variant": "international",
    }
    assert lines[1]["ok"] is False and lines[1]["ply"] == 3 and lines[1]["moves"] == 2
    assert "game 2, ply 3: illegal move: '28-17'" in lines[1]["error"]


def test_pdn_check_cli_passes_a_clean_file_and_rejects_an_unknown_variant(
    tmp_path: Path,
) -> None:
    path = tmp_path / "one.pdn"
    path.write_text("1. c3-d4 *\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["pdn", "check", str(path), "--variant", "pool"]).exit_code == 0
    bad = CliRunner().invoke(app, ["pdn", "check", str(path), "--variant", "chess"])
    assert bad.exit_code == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. 32-28 {never closed\n19-23 *", "unterminated comment"),
        ("1. 32-28 19-23) 2. 33-29 *", "unmatched ')'"),
        ("1. 32-28 (19-23 *", "unclosed variation"),
        ("1. 32-28 @@ 19-23 *", "unexpected text: '@@'"),
        ('1. 32-28 [Event "x"] 19-23 *', "inside the moves"),
    ],
)
def test_malformed_pdn_is_reported_with_game_and_ply(text: str, message: str) -> None:
    (game,) = read_games_text(text)
    assert game.errors, text
    error = game.errors[0]
    assert message in str(error)
    assert error.game == 1 and error.ply is not None
    assert str(error).startswith(f"game 1, ply {error.ply}: ")

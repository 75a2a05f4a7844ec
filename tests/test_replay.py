"""Replays of the real data in ../shared/data/games (samples; the full sets: bench/replay.py)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from itertools import islice
from pathlib import Path

import pytest

from rules import Position, find_variant
from rules.game import Game
from rules.notation import parse_joyce_line
from rules.pdn import iter_games
from rules.variants import ENGLISH, INTERNATIONAL

SAMPLE = 150  # games per transcript file; bench/replay.py replays them all


def test_english_acf_transcripts_replay(shared_data: Path) -> None:
    path = shared_data / "games" / "english-acf" / "ACF.txt"
    with path.open(encoding="utf-8") as handle:
        transcripts = [
            t for line in islice(handle, SAMPLE) if (t := parse_joyce_line(ENGLISH, line))
        ]
    assert len(transcripts) == SAMPLE
    for number, transcript in enumerate(transcripts, start=1):
        game = Game.from_moves(ENGLISH, transcript.moves)
        assert game.ply == len(transcript.moves), f"ACF game {number}"
    # The first game opens 10-15 (upstream 10-13: 0-based squares seen from Black).
    assert transcripts[0].moves[:2] == ("10-15", "23-19")


def test_international_selfplay_transcripts_replay(shared_data: Path) -> None:
    path = shared_data / "games" / "international-selfplay" / "tdl.zip"
    with zipfile.ZipFile(path) as archive:
        (name,) = archive.namelist()
        with io.TextIOWrapper(archive.open(name), encoding="utf-8") as handle:
            transcripts = [
                t
                for line in islice(handle, SAMPLE + 10)
                if (t := parse_joyce_line(INTERNATIONAL, line))
            ]
    assert len(transcripts) >= SAMPLE
    for number, transcript in enumerate(transcripts, start=1):
        game = Game.from_moves(INTERNATIONAL, transcript.moves)
        # Written out and read back, the game is the same.
        assert game.ply == len(transcript.moves), f"tdl game {number}"
    assert transcripts[0].moves[0] == "31-26"


def test_russian_opening_fens_parse_and_have_legal_moves(shared_data: Path) -> None:
    folder = shared_data / "games" / "russian-openings" / "initial_positions" / "russian" / "fen"
    files = sorted(folder.glob("*.fen"))
    assert len(files) == 745
    russian = find_variant("russian")
    turns = set()
    for path in files:
        position = Position.from_fen(russian, path.read_text(encoding="utf-8").strip())
        assert position.is_valid(), path.name
        assert position.legal_moves(), path.name
        assert Position.from_fen(russian, position.fen()) == position
        turns.add(position.turn.name)
    assert turns == {"WHITE", "BLACK"}  # README: 656 with White to move, 89 with Black


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("2move_english.json", "english"),
        ("3move_english.json", "english"),
        ("4move_english.json", "english"),
        ("11_english.json", "english"),
        ("11_italian.json", "italian"),
        ("russian.json", "russian"),
        ("brazilian.json", "brazilian"),
        ("150russian_and_brazilian.json", "russian"),
    ],
)
def test_ballot_fens_parse_and_have_legal_moves(shared_data: Path, name: str, variant: str) -> None:
    ballots = json.loads((shared_data / "games" / "ballots" / name).read_text(encoding="utf-8"))
    v = find_variant(variant)
    fens = set(ballots["all"].values())
    assert fens
    for fen in fens:
        position = Position.from_fen(v, fen)
        assert position.is_valid(), fen
        assert position.legal_moves(), fen
        assert Position.from_fen(v, position.fen()) == position


@pytest.mark.parametrize("name", ["2move_english.json", "3move_english.json", "4move_english.json"])
def test_english_ballot_names_replay_to_their_fens(shared_data: Path, name: str) -> None:
    """A ballot's name lists its opening moves (``01 9-13 21-17``): replayed from the start
    they must give the ballot's FEN, which checks English numbering and notation."""
    ballots = json.loads((shared_data / "games" / "ballots" / name).read_text(encoding="utf-8"))
    for title, fen in ballots["all"].items():
        moves = re.findall(r"\d+[-x]\d+", title)
        game = Game.from_moves(ENGLISH, moves)
        assert game.position == Position.from_fen(ENGLISH, fen), title


def test_russian_opening_pdns_replay_to_their_fens_or_are_rejected(shared_data: Path) -> None:
    """The upstream converter squeezed some openings into illegal from-to pairs (README):
    those must be rejected with game and ply; the others must reach the FEN beside them."""
    base = shared_data / "games" / "russian-openings" / "initial_positions" / "russian"
    russian = find_variant("russian")
    replayed = rejected = 0
    for path in sorted((base / "pdn").glob("*.pdn")):
        with path.open(encoding="utf-8") as handle:
            (game,) = list(iter_games(handle))
        fen = (base / "fen" / path.with_suffix(".fen").name).read_text(encoding="utf-8")
        if game.errors:
            rejected += 1
            assert str(game.errors[0]).startswith("game 1, ply "), path.name
        else:
            replayed += 1
            expected = Position.from_fen(russian, fen)
            # Placement only: a few upstream FENs give the wrong side to move (draw462).
            placement = (expected.white, expected.black, expected.kings)
            assert (game.position.white, game.position.black, game.position.kings) == (placement), (
                path.name
            )
    assert replayed and rejected and replayed + rejected == 745

"""A table that calibrated itself keeps the calibration in the journal, so a device
restarted mid-game, when the start position will not come back, reads on with it; with
none kept, or for a game set up from a FEN, it calibrates from the game's position."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from calibration.table import TableCalibration
from pi.capture import Frame
from pi.config import Settings
from pi.journal import Journal, JournalError
from pi.tables import TableService
from pi.wiring import CalibratingRecognizer, vision_recognizer
from rules import Position, find_variant
from rules.observation import Top

render = pytest.importorskip("synth.render")
from synth.scene import Style  # noqa: E402  (after the renderer's skip)

RUSSIAN = find_variant("russian")
STYLE = Style(seed=21, variant="russian", markers=True, border_mm=30.0, tilt_deg=15.0)
OPENING = ["c3-d4", "f6-g5", "g3-f4"]


def _frame(index: int, position: Position) -> Frame:
    return Frame(index, float(index), render.render_position(position, STYLE).image)


def _recognizer(settings: Settings, service: TableService) -> CalibratingRecognizer:
    recognizer = vision_recognizer(settings, service)
    assert isinstance(recognizer, CalibratingRecognizer)
    return recognizer


def _play_the_opening(settings: Settings) -> Position:
    """Calibrate from the start frame as the live path does, play the opening; the
    position reached."""
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.ensure_game(settings.table, RUSSIAN)
        recognizer = _recognizer(settings, service)
        assert not recognizer.calibrated
        assert recognizer(_frame(0, Position.initial(RUSSIAN))).board_found
        assert recognizer.calibrated
        for move in OPENING:
            service.record(settings.table, "move", {"notation": move})
        return service.current(settings.table).position


def test_a_device_restarted_mid_game_reads_on_with_the_kept_calibration(
    tmp_path: Path,
) -> None:
    settings = Settings(variant="russian", journal=tmp_path / "journal.sqlite")
    reached = _play_the_opening(settings)
    with Journal(settings.journal) as journal:
        kept = TableCalibration.model_validate_json(journal.kept_calibration("1") or "")
        assert kept.variant == "russian" and kept.start_frame() is not None
        service = TableService(journal)
        assert service.ensure_game(settings.table, RUSSIAN).ply == len(OPENING)
        resumed = _recognizer(settings, service)
        assert resumed.calibrated, resumed.waiting_reason
        seen = resumed(_frame(1, reached))
    assert seen.board_found
    tops = [Top(int(np.argmax(s.probs))) for s in seen.squares]
    assert tops == [Top.of(reached.piece_at(sq)) for sq in RUSSIAN.geometry.squares]


def test_a_game_at_its_start_calibrates_afresh(tmp_path: Path) -> None:
    """The start position is on the board (or soon will be): today's light, perhaps
    another set."""
    settings = Settings(variant="russian", journal=tmp_path / "journal.sqlite")
    _play_the_opening(settings)
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.start_game(settings.table, RUSSIAN)
        assert journal.kept_calibration("1") is not None
        assert not _recognizer(settings, service).calibrated


def test_without_a_kept_calibration_of_its_variant_a_game_under_way_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The table waits, and says with every wait why the start position will not do."""
    settings = Settings(variant="russian", journal=tmp_path / "journal.sqlite")
    _play_the_opening(settings)
    international = settings.model_copy(update={"variant": "international"})
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        game = service.start_game(settings.table, "international")
        service.record(settings.table, "move", {"notation": "32-28"})
        with caplog.at_level(logging.WARNING, logger="pi.wiring"):
            other = _recognizer(international, service)
        under_way = f"game {game.game_id} is under way: "
        assert not other.calibrated
        assert other.waiting == under_way + (
            "the calibration kept is russian's, not international's; "
            "waiting for the game's position to calibrate the table"
        )
        assert "the calibration kept is russian's" in caplog.text
        journal.keep_calibration("1", "{not json")
        bad = _recognizer(international, service)
        assert not bad.calibrated and (bad.waiting or "").startswith(
            under_way + "the calibration kept is bad"
        )
    with Journal(tmp_path / "other.sqlite") as journal:  # a journal that never kept one
        service = TableService(journal)
        service.start_game("1", "international")
        service.record("1", "move", {"notation": "32-28"})
        none = _recognizer(international, service)
        blank = Frame(0, 0.0, np.full((480, 640, 3), 128, np.uint8))
        assert not none(blank).board_found
        assert "the journal keeps no calibration of the table; frame 0: " in (none.waiting or "")


def test_a_calibration_that_cannot_be_kept_does_not_stop_the_game(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def full_disk(table: TableCalibration) -> None:
        raise JournalError("cannot keep a calibration in journal.sqlite: disk full")

    recognizer = CalibratingRecognizer(RUSSIAN, None, keep=full_disk)
    with caplog.at_level(logging.WARNING, logger="pi.wiring"):
        assert recognizer(_frame(0, Position.initial(RUSSIAN))).board_found
    assert recognizer.calibrated and "disk full" in caplog.text


def _reads(recognizer: CalibratingRecognizer, index: int, position: Position) -> list[Top]:
    seen = recognizer(_frame(index, position))
    assert seen.board_found, recognizer.waiting
    return [Top(int(np.argmax(s.probs))) for s in seen.squares]


def _tops(position: Position) -> list[Top]:
    return [Top.of(position.piece_at(sq)) for sq in position.variant.geometry.squares]


def test_without_a_kept_calibration_a_game_under_way_calibrates_from_its_position(
    tmp_path: Path,
) -> None:
    """No calibration kept (a journal from before they were): the table calibrates from a
    frame that shows the game's position as the journal has it, and reads on."""
    settings = Settings(variant="russian", journal=tmp_path / "journal.sqlite")
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        game = service.start_game(settings.table, RUSSIAN)
        for move in OPENING:
            service.record(settings.table, "move", {"notation": move})
        reached = service.current(settings.table).position
        recognizer = _recognizer(settings, service)
        assert recognizer.waiting == (
            f"game {game.game_id} is under way and the journal keeps no calibration of the"
            " table; waiting for the game's position to calibrate the table"
        )
        # the start position is not the game's: no calibration from it
        assert not recognizer(_frame(0, Position.initial(RUSSIAN))).board_found
        assert not recognizer.calibrated
        assert _reads(recognizer, 1, reached) == _tops(reached)
        later = reached.push_text("b6-a5")
        assert _reads(recognizer, 2, later) == _tops(later)
        assert journal.kept_calibration("1") is not None  # kept, for the next restart


def test_a_game_set_up_from_a_fen_calibrates_from_it(tmp_path: Path) -> None:
    """A position that does not look the same turned with its colours exchanged shows its
    own turn; kings are left out of the adaptation, which learns from the men."""
    fen = "W:WKa1,c1,e1,g3,d4:Bb8,d8,f6,h6,Kc7"
    settings = Settings(variant="russian", journal=tmp_path / "journal.sqlite")
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.start_game(settings.table, RUSSIAN, fen=fen)
        position = service.current(settings.table).position
        recognizer = _recognizer(settings, service)
        assert _reads(recognizer, 0, position) == _tops(position)
        assert recognizer.calibrated
        kept = TableCalibration.model_validate_json(journal.kept_calibration("1") or "")
        assert kept.position() == position

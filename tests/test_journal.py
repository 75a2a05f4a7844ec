"""The journal (SQLite, WAL) and the game record folded from it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pi.journal import Journal, JournalError, JournalEvent
from pi.record import GameRecord, RecordError
from pi.recording import journal_entries
from pi.scoresheet import game_pdn
from pi.tables import TableService, UnknownTableError
from rules import Position, find_variant
from rules.events import IrregularityCorrected, IrregularityKind
from rules.pdn import read_games_text
from tests.pi_support import USSR1947, WK2003, first_game_moves


def test_sequence_numbers_count_per_game(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        a1 = j.append("t1", "g1", "game_started", {"variant": "international"})
        a2 = j.append("t1", "g1", "move", {"notation": "32-28"})
        b1 = j.append("t2", "g1", "game_started", {"variant": "russian"})
        assert (a1.seq, a2.seq, b1.seq) == (1, 2, 1)
        assert [e.kind for e in j.events("t1", "g1")] == ["game_started", "move"]
        assert j.tables() == ["t1", "t2"]


def test_events_survive_closing_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        written = [j.append("t", "g", "move", {"notation": f"{n}-{n + 4}"}) for n in range(5)]
    with Journal(path) as j:
        assert j.events("t", "g") == written


def test_journal_is_wal_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("t", "g", "move", {"notation": "32-28"})
        assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        # Another connection (another process) sees the committed event at once.
        other = sqlite3.connect(path)
        assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
        other.close()


def test_a_tables_last_calibration_is_kept_apart_from_its_events(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        assert j.kept_calibration("t") is None
        j.append("t", "g", "game_started", {"variant": "russian"})
        j.keep_calibration("t", '{"first": 1}')
        j.keep_calibration("t", '{"second": 2}')
        j.keep_calibration("u", '{"other table": 3}')
    with Journal(path) as j:
        assert j.kept_calibration("t") == '{"second": 2}'
        assert j.kept_calibration("u") == '{"other table": 3}'
        # a device's own: no hub or broadcast client receives them as events
        assert [e.kind for e in j.all_events()] == ["game_started"]


def test_replaying_a_journal_into_another_is_idempotent(tmp_path: Path) -> None:
    with Journal(tmp_path / "a.sqlite") as a, Journal(tmp_path / "hub.sqlite") as hub:
        a.append("t", "g", "game_started", {"variant": "international"})
        a.append("t", "g", "move", {"notation": "32-28"})
        assert hub.import_events(a.all_events()) == 2
        assert hub.import_events(a.all_events()) == 0
        assert hub.all_events() == a.all_events()


def test_event_json_round_trip_and_malformed_message() -> None:
    event = JournalEvent("t7", "g", 3, 12.5, "move", {"notation": "32-28"})
    assert JournalEvent.from_json(event.to_json()) == event
    with pytest.raises(ValueError, match="not a journal event"):
        JournalEvent.from_json({"table": "t7", "kind": "move"})


def test_unwritable_journal_raises_a_journal_error(tmp_path: Path) -> None:
    not_a_db = tmp_path / "j.sqlite"
    not_a_db.write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(JournalError, match=str(not_a_db)):
        Journal(not_a_db)


@pytest.mark.parametrize(("file", "variant"), [(WK2003, "international"), (USSR1947, "russian")])
def test_record_of_a_real_game_reaches_the_rules_position(
    shared_data: Path, file: Path, variant: str
) -> None:
    moves = first_game_moves(shared_data, file)
    service = TableService(Journal(":memory:"))
    service.start_game("t", variant)
    for m in moves:
        service.record("t", "move", {"notation": m})
    expected = Position.initial(find_variant(variant))
    for m in moves:
        expected = expected.push_text(m)
    record = service.current("t")
    assert record.ply == len(moves)
    assert record.position == expected
    # A restarted device folds the same journal into the same game.
    again = TableService(service.journal).current("t")
    assert again.position == expected
    assert again.notations() == record.notations()


def test_takeback_keeps_the_journal_and_shortens_the_game(shared_data: Path) -> None:
    moves = first_game_moves(shared_data, WK2003, limit=10)
    service = TableService(Journal(":memory:"))
    game = service.start_game("t", "international")
    for m in moves:
        service.record("t", "move", {"notation": m})
    service.record("t", "takeback", {"ply": 6})
    assert service.current("t").notations() == moves[:6]
    assert len(service.journal.events("t", game.game_id)) == 1 + 10 + 1  # nothing deleted


def test_correction_replays_the_later_moves() -> None:
    service = TableService(Journal(":memory:"))
    service.start_game("t", "international")
    for m in ["32-28", "18-23", "37-32", "16-21"]:
        service.record("t", "move", {"notation": m})
    # The camera read 18-23, the arbiter says it was 19-24: 37-32 and 16-21 still fit.
    service.record("t", "correct", {"ply": 2, "notation": "19-24"})
    record = service.current("t")
    assert record.notations() == ["32-28", "19-24", "37-32", "16-21"]
    assert [p.corrected for p in record.plies] == [False, True, False, False]


def test_correction_that_breaks_a_later_move_is_refused_naming_the_ply() -> None:
    service = TableService(Journal(":memory:"))
    game = service.start_game("t", "international")
    for m in ["32-28", "19-23", "28x19", "14x23"]:
        service.record("t", "move", {"notation": m})
    with pytest.raises(RecordError, match="ply 3"):
        service.record("t", "correct", {"ply": 2, "notation": "18-23"})
    assert service.current("t").notations() == ["32-28", "19-23", "28x19", "14x23"]
    assert [e.kind for e in service.journal.events("t", game.game_id)].count("correct") == 0


def test_illegal_move_is_refused_and_not_journalled() -> None:
    service = TableService(Journal(":memory:"))
    game = service.start_game("t", "international")
    with pytest.raises(RecordError, match="ply 1: illegal move: '32-26'"):
        service.record("t", "move", {"notation": "32-26"})
    assert len(service.journal.events("t", game.game_id)) == 1


def test_a_hand_edited_journal_folds_with_a_flag_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("t", "g", "game_started", {"variant": "international"})
        j.append("t", "g", "move", {"notation": "32-28"})
        j.append("t", "g", "move", {"notation": "32-28"})  # impossible: square 32 is empty
        j.append("t", "g", "move", {"notation": "19-23"})
        record = GameRecord.from_events(j.events("t", "g"))
    assert record.notations() == ["32-28", "19-23"]
    assert [(f.kind, f.ply) for f in record.flags] == [("journal", 1)]
    assert "ply 2" in record.flags[0].message


def test_malformed_event_is_refused_naming_it() -> None:
    service = TableService(Journal(":memory:"))
    game = service.start_game("t", "international")
    with pytest.raises(RecordError, match="bad correct event"):
        service.record("t", "correct", {"notation": "32-28"})  # no ply
    with pytest.raises(RecordError, match="unknown result '1-0'"):
        service.record("t", "result", {"result": "1-0"})
    assert len(service.journal.events("t", game.game_id)) == 1


def test_resync_continues_from_the_board_position() -> None:
    service = TableService(Journal(":memory:"))
    service.start_game("t", "international")
    service.record("t", "move", {"notation": "32-28"})
    # Black removed a man for no reason (I 5.4.7) and White accepted it by moving on.
    fen = "B:W28,31,33-50:B1-19"
    service.record("t", "resync", {"fen": fen, "reason": "pieces removed"})
    service.record("t", "move", {"notation": "19-23"})
    record = service.current("t")
    assert record.position == Position.from_fen("international", fen).push_text("19-23")
    assert record.position_before(2).fen() == fen
    # The scoresheet stays valid PDN: a second game from the board's position.
    service.record("t", "flag", {"kind": "pieces_removed", "ply": 1, "article": "I 5.4.7"})
    first, second = read_games_text(game_pdn(service.current("t")))
    assert (first.notations, first.errors) == (["32-28"], [])
    assert (second.start.fen(), second.notations, second.errors) == (fen, ["19-23"], [])
    assert "pieces removed (I 5.4.7)" in first.comments[1]


def test_a_resync_that_undoes_flags_resolves_the_latest_irregularities_only() -> None:
    """A still hand hid a man, flagged as removed; the move that followed showed the
    board never was irregular: the recorder goes back (``undoes``: 1) and the flag is
    resolved, the draw notice before it left open."""
    service = TableService(Journal(":memory:"))
    service.start_game("t", "international")
    service.record("t", "move", {"notation": "32-28"})
    service.record("t", "flag", {"kind": "draw claimable", "ply": 1})
    service.record("t", "flag", {"kind": "pieces_removed", "ply": 1, "article": "I 5.4.7"})
    fen = "B:W28,31,33-50:B1-19"
    service.record("t", "resync", {"fen": fen, "reason": "pieces removed"})
    initial_fen = Position.initial(find_variant("international")).push_text("32-28").fen()
    service.record(
        "t",
        "resync",
        {"fen": initial_fen, "reason": "irregularity undone", "ply": 1, "undoes": 1},
    )
    service.record("t", "move", {"notation": "19-23"})
    record = service.current("t")
    assert record.notations() == ["32-28", "19-23"]
    assert [(f.kind, f.resolved) for f in record.flags] == [
        ("draw claimable", False),
        ("pieces_removed", True),
    ]
    assert [f.kind for f in record.open_flags] == ["draw claimable"]


def test_a_king_read_crowned_again_resolves_the_flag_that_called_him_uncrowned() -> None:
    """The recorder's word that a flagged king reads as a king again resolves the latest
    open flag of that kind at that ply, the others left open."""
    service = TableService(Journal(":memory:"))
    service.start_game("t", "international")
    service.record("t", "move", {"notation": "32-28"})
    for kind in ("king_uncrowned", "pieces_removed", "king_uncrowned"):
        service.record("t", "flag", {"kind": kind, "ply": 1})
    service.record("t", "move", {"notation": "19-23"})
    (entry,) = journal_entries(
        IrregularityCorrected(1, IrregularityKind.KING_UNCROWNED, ("28",), "reads a king", 3.0)
    )
    service.record("t", *entry)
    record = service.current("t")
    assert [(f.kind, f.resolved) for f in record.flags] == [
        ("king_uncrowned", False),
        ("pieces_removed", False),
        ("king_uncrowned", True),
    ]
    assert record.notations() == ["32-28", "19-23"]


def test_unknown_table_is_named() -> None:
    service = TableService(Journal(":memory:"))
    with pytest.raises(UnknownTableError, match="'nope'"):
        service.current("nope")

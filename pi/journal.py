"""The game journal: an append-only log of events in SQLite, one file per device.

Every event is written in its own transaction with ``synchronous=FULL`` in WAL mode, so
once :meth:`Journal.append` returns the event survives a crash or a power cut (SQLite's
WAL guarantees this on fsync-honest storage). Nothing is ever updated or deleted: an
arbiter's take-back is itself an event, and the state of a game is the fold of its
events (:mod:`pi.record`). That keeps the audit log the digest asks for (R-BC-07).

Events carry the table id, the game id and a per-game sequence number, so replaying a
journal into another one (a hall hub, say) is idempotent: :meth:`Journal.import_events`
ignores an event whose ``(table, game, seq)`` is already there.

Beside the events, the file keeps each table's calibrations as the live path made them
(:meth:`Journal.keep_calibration`): a device restarted mid-game reads on with its table's
last one, since the start position it calibrates from will not come back. They are the
device's own, so they are not events: no hub or broadcast client receives them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, game_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_by_time ON events (table_id, time);
CREATE TABLE IF NOT EXISTS calibrations (
    table_id TEXT NOT NULL,
    time REAL NOT NULL,
    calibration TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class JournalEvent:
    """One event as journalled: where it happened, its place in the game, and its data.

    ``kind`` names the event (see :mod:`pi.record` for the kinds a game understands);
    ``data`` is JSON-serialisable. ``time`` is wall-clock seconds since the epoch.
    """

    table_id: str
    game_id: str
    seq: int
    time: float
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The event as the JSON message a hub or a broadcast client receives."""
        return {
            "table": self.table_id,
            "game": self.game_id,
            "seq": self.seq,
            "time": self.time,
            "kind": self.kind,
            "data": dict(self.data),
        }

    @classmethod
    def from_json(cls, message: Mapping[str, Any]) -> JournalEvent:
        """Read a message written by :meth:`to_json`; raises ValueError naming what is wrong."""
        try:
            return cls(
                table_id=str(message["table"]),
                game_id=str(message["game"]),
                seq=int(message["seq"]),
                time=float(message["time"]),
                kind=str(message["kind"]),
                data=dict(message.get("data") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a journal event: {message!r} ({exc})") from None


class JournalError(RuntimeError):
    """The journal file cannot be opened or written (disk full, read-only, corrupt)."""


class Journal:
    """An append-only event log in one SQLite file (``":memory:"`` for tests).

    Thread-safe: the capture pipeline appends from its worker thread while the server
    reads from the event loop. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: fsync the WAL on every commit, so a recorded move survives a power cut.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc}") from exc
        self._lock = threading.Lock()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing --------------------------------------------------------------------------

    def append(
        self,
        table_id: str,
        game_id: str,
        kind: str,
        data: Mapping[str, Any] | None = None,
        *,
        at: float | None = None,
    ) -> JournalEvent:
        """Write the next event of a game and return it once it is durable."""
        payload = json.dumps(dict(data or {}), separators=(",", ":"), sort_keys=True)
        when = time.time() if at is None else at
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                row = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id=? AND game_id=?",
                    (table_id, game_id),
                ).fetchone()
                seq = int(row[0]) + 1
                self._db.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                    (table_id, game_id, seq, when, kind, payload),
                )
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._db.execute("ROLLBACK") if self._db.in_transaction else None
                raise JournalError(f"cannot write {kind} event to {self.path}: {exc}") from exc
        return JournalEvent(table_id, game_id, seq, when, kind, json.loads(payload))

    def import_events(self, events: Iterable[JournalEvent]) -> int:
        """Copy events from another journal; those already present are skipped.

        Returns how many were new. Replaying the same journal twice changes nothing.
        """
        rows = [
            (e.table_id, e.game_id, e.seq, e.time, e.kind, json.dumps(dict(e.data), sort_keys=True))
            for e in events
        ]
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")
            return self._db.total_changes - before

    def keep_calibration(self, table_id: str, calibration: str) -> None:
        """Keep a table's calibration (its JSON file's text); the last one kept is the
        table's (:meth:`kept_calibration`). Like events, none is ever overwritten."""
        with self._lock:
            try:
                row = (table_id, time.time(), calibration)
                self._db.execute("INSERT INTO calibrations VALUES (?, ?, ?)", row)
            except sqlite3.DatabaseError as exc:
                raise JournalError(f"cannot keep a calibration in {self.path}: {exc}") from exc

    # -- reading --------------------------------------------------------------------------

    def kept_calibration(self, table_id: str) -> str | None:
        """The calibration last kept for a table (None: none was)."""
        with self._lock:
            row = self._db.execute(
                "SELECT calibration FROM calibrations WHERE table_id=? ORDER BY rowid DESC LIMIT 1",
                (table_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    def events(
        self, table_id: str, game_id: str | None = None, *, after_seq: int = 0
    ) -> list[JournalEvent]:
        """Events of a table (or of one game) in order."""
        query = "SELECT * FROM events WHERE table_id=?"
        args: list[object] = [table_id]
        if game_id is not None:
            query += " AND game_id=? AND seq>?"
            args += [game_id, after_seq]
        query += " ORDER BY time, game_id, seq" if game_id is None else " ORDER BY seq"
        return list(self._rows(query, args))

    def all_events(self) -> list[JournalEvent]:
        """Every event in the file, by table, game and sequence (for export to a hub)."""
        return list(self._rows("SELECT * FROM events ORDER BY table_id, game_id, seq", []))

    def tables(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT table_id FROM events ORDER BY 1").fetchall()
        return [str(r[0]) for r in rows]

    def games(self, table_id: str) -> list[str]:
        """Game ids of a table in the order they started."""
        with self._lock:
            rows = self._db.execute(
                "SELECT game_id FROM events WHERE table_id=? GROUP BY game_id ORDER BY MIN(time)",
                (table_id,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def _rows(self, query: str, args: list[object]) -> Iterator[JournalEvent]:
        with self._lock:
            rows = self._db.execute(query, args).fetchall()
        for table_id, game_id, seq, when, kind, data in rows:
            yield JournalEvent(table_id, game_id, seq, when, kind, json.loads(data))

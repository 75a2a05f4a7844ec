"""The tables a device serves: the journal plus the live state of each table's game.

:class:`TableService` is the one place that writes the journal. It checks every event
against the game first (so the journal never holds an event that does not fold), writes
it durably, folds it into the in-memory :class:`~pi.record.GameRecord` and then tells the
listeners (the WebSocket hub, the pipeline). The capture thread and the server's event
loop both call it, so it holds a lock; listeners are called outside the lock.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from pi.journal import Journal, JournalEvent
from pi.record import GameRecord, RecordError
from pi.views import game_state
from rules import Variant, find_variant

log = logging.getLogger(__name__)

Listener = Callable[[JournalEvent, dict[str, Any]], None]
"""Called after each event with the event and the game's new state (see :mod:`pi.views`)."""


class UnknownTableError(KeyError):
    """No such table (or game) on this device."""

    def __str__(self) -> str:
        return str(self.args[0])


class TableService:
    """Reads and writes games through the journal. Restores every table's game on start."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._lock = threading.RLock()
        self._current: dict[str, GameRecord] = {}
        self._listeners: list[Listener] = []
        for table_id in journal.tables():
            games = journal.games(table_id)
            if games:
                self._current[table_id] = GameRecord.from_events(
                    journal.events(table_id, games[-1])
                )
                log.info(
                    "table %s: resumed game %s at ply %d",
                    table_id,
                    games[-1],
                    self._current[table_id].ply,
                )

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every event; returns the function that unsubscribes."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # -- reading ---------------------------------------------------------------------------------

    def tables(self) -> list[str]:
        with self._lock:
            return sorted(self._current)

    def current(self, table_id: str) -> GameRecord:
        """The table's current game. Safe to read while recording goes on: the service
        never changes a record it has published, it folds into a clone and swaps."""
        with self._lock:
            return self._record(table_id)

    def game(self, table_id: str, game_id: str) -> GameRecord:
        """Any game of a table (finished ones are folded from the journal)."""
        with self._lock:
            record = self._current.get(table_id)
            if record is not None and record.game_id == game_id:
                return record
        if game_id not in self.journal.games(table_id):
            raise UnknownTableError(f"no game {game_id!r} at table {table_id!r}")
        return GameRecord.from_events(self.journal.events(table_id, game_id))

    def games(self, table_id: str) -> list[str]:
        self._record(table_id)
        return self.journal.games(table_id)

    def state(self, table_id: str) -> dict[str, Any]:
        with self._lock:
            return game_state(self._record(table_id))

    def _record(self, table_id: str) -> GameRecord:
        try:
            return self._current[table_id]
        except KeyError:
            raise UnknownTableError(f"unknown table {table_id!r}") from None

    # -- writing ---------------------------------------------------------------------------------

    def start_game(
        self,
        table_id: str,
        variant: Variant | str,
        *,
        fen: str | None = None,
        tags: Mapping[str, str] | None = None,
        game_id: str | None = None,
    ) -> GameRecord:
        """Begin a new game at a table (the previous one stays in the journal)."""
        v = find_variant(variant) if isinstance(variant, str) else variant
        data: dict[str, Any] = {"variant": v.name, "tags": dict(tags or {})}
        if fen:
            data["fen"] = fen
        GameRecord.new(table_id, "check", v, fen=fen)  # raises on a bad FEN before writing
        with self._lock:
            gid = game_id or self._new_game_id(table_id)
            event = self.journal.append(table_id, gid, "game_started", data)
            record = GameRecord.from_events([event])
            self._current[table_id] = record
            state = game_state(record)
        self._notify(event, state)
        return record

    def ensure_game(
        self, table_id: str, variant: Variant | str, *, tags: Mapping[str, str] | None = None
    ) -> GameRecord:
        """The table's current game if it is of this variant and not finished, else a new one.

        This is what a device does on (re)start: the game in the journal goes on.
        """
        v = find_variant(variant) if isinstance(variant, str) else variant
        with self._lock:
            record = self._current.get(table_id)
            if record is not None and record.variant == v and record.result == "*":
                return record
        return self.start_game(table_id, v, tags=tags)

    def record(self, table_id: str, kind: str, data: Mapping[str, Any]) -> JournalEvent:
        """Check an event against the table's game, journal it, fold it, tell the listeners.

        :raises RecordError: the event does not fit the game; nothing is written.
        :raises UnknownTableError: no game at that table.
        """
        with self._lock:
            record = self._record(table_id)
            trial = _clone(record)
            now = time.time()
            trial.apply(
                JournalEvent(table_id, record.game_id, record.last_seq + 1, now, kind, data)
            )
            event = self.journal.append(table_id, record.game_id, kind, data, at=now)
            if event.seq != trial.last_seq:  # another writer on the same file: refold
                trial = GameRecord.from_events(self.journal.events(table_id, record.game_id))
            self._current[table_id] = trial
            state = game_state(trial)
        self._notify(event, state)
        return event

    def _notify(self, event: JournalEvent, state: dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event, state)
            except Exception:  # a broken listener must not stop recording
                log.exception("listener failed on %s event", event.kind)

    def _new_game_id(self, table_id: str) -> str:
        existing = set(self.journal.games(table_id))
        stem = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        gid, n = stem, 1
        while gid in existing:
            n += 1
            gid = f"{stem}-{n}"
        return gid


def _clone(record: GameRecord) -> GameRecord:
    """A copy whose lists can change without touching the original (plies are frozen)."""
    twin = copy.copy(record)
    twin.tags = dict(record.tags)
    twin.plies = list(record.plies)
    twin.resyncs = list(record.resyncs)
    twin.flags = list(record.flags)
    return twin


__all__ = ["RecordError", "TableService", "UnknownTableError"]

"""The state of one game, folded from its journal events.

The journal (:mod:`pi.journal`) holds what happened; a :class:`GameRecord` is what it
adds up to: the moves in official notation, the position, the flags for the arbiter,
the tags and the result. Folding the same events always gives the same record, which is
how a restarted device resumes its game.

Event kinds (``JournalEvent.kind``) and their data:

``game_started``  ``{"variant", "fen"?, "tags"?}``: a new game (``fen`` when not the
                  variant's initial position).
``move``          ``{"notation", "ply"?, "source"?, "clock"?}``: a move recorded; it is
                  replayed against the position, so a journal can never hold an illegal
                  move. ``clock``: seconds into a recorded source (a video file, a
                  folder of frames) where the move was seen.
``flag``          ``{"kind", "ply", "article"?, "message"?}``: an irregularity or a draw
                  rule for the arbiter (the recorder never acts on it, R-IRR-02).
``resync``        ``{"fen", "reason"?, "ply"?, "irregular"?, "undoes"?}``: the board
                  shows a position no legal move reaches; the game goes on from it
                  (I 5.7, R-IRR-03). With ``ply``, the record is first cut back to that
                  many plies (a move taken back, I 5.4.4, leaves the record); with
                  ``irregular``, ply ``ply`` is an irregular move that looked like it;
                  with ``undoes``, that many of the latest irregularity flags are
                  resolved (the board was put back, or the moves that followed showed
                  there was none).
``confirm``       ``{"ply"}``: the arbiter confirms a move.
``correct``       ``{"ply", "notation"}``: the arbiter replaces the move at a ply; the
                  later moves are replayed after it.
``takeback``      ``{"ply"}``: the arbiter takes the game back so that ``ply`` moves remain.
``tags``          ``{"tags": {name: value}}``: players, event, round... set or changed.
``result``        ``{"result"}``: ``2-0``, ``0-2``, ``1-1``, ``0-0`` or ``*``.
``colours_exchanged`` ``{"ply"}``: the first move was made by the colour the
                  calibration calls the opponent's; the recorder reads the board turned,
                  its colours exchanged, for the rest of the game.
``flag_resolved`` ``{"seq", "note"?}``: the arbiter has dealt with a flag; or
                  ``{"kind", "ply", "note"?}``: the board showed the latest flag of that
                  kind at that ply put right (a king read as a man reads as a king again).

Unknown kinds are kept in the journal and ignored here, so newer devices can add kinds.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pi.journal import JournalEvent
from rules import Move, Position, RulesError, Variant, find_variant
from rules.events import IrregularityKind
from rules.game import RESULTS, Game
from rules.pdn import export_tags

log = logging.getLogger(__name__)

IRREGULARITY_FLAG_KINDS = frozenset({k.value for k in IrregularityKind} | {"unexplained"})
"""The ``flag`` kinds the recorder raises for the board (draw rules and faults aside)."""


@dataclass(frozen=True, slots=True)
class Ply:
    """One recorded move with the positions around it.

    ``move`` is None for an *irregular* ply: the board changed as no legal move changes
    it (a capture not taken, say), the opponent decides (I 5.4) and play goes on from the
    board (I 5.7); ``notation`` is then what the move looked like.
    """

    number: int
    """1-based ply index in the game."""
    notation: str
    move: Move | None
    before: Position
    after: Position
    time: float
    confirmed: bool = False
    corrected: bool = False
    clock: float | None = None
    """Seconds into a recorded source where the move was seen (None live): the
    scoresheet's move times, where ``time`` (when it was journaled) would be the speed
    of the machine that processed the file."""


@dataclass(frozen=True, slots=True)
class Flag:
    """Something the arbiter should look at (an irregularity, a draw rule, a fault)."""

    seq: int
    kind: str
    ply: int
    time: float
    article: str = ""
    message: str = ""
    resolved: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "ply": self.ply,
            "time": self.time,
            "article": self.article,
            "message": self.message,
            "resolved": self.resolved,
        }


@dataclass(frozen=True, slots=True)
class Resync:
    """The game continues from a position the board shows (after ``after_ply`` moves)."""

    after_ply: int
    position: Position
    reason: str


class RecordError(ValueError):
    """An event does not fit the game (an illegal move, a ply out of range)."""


@dataclass
class GameRecord:
    """A game as its events have made it so far. Build with :meth:`from_events`."""

    table_id: str
    game_id: str
    variant: Variant
    start: Position
    tags: dict[str, str] = field(default_factory=dict)
    result: str = "*"
    plies: list[Ply] = field(default_factory=list)
    resyncs: list[Resync] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    colours_exchanged: bool = False
    """How the recorder reads the board: :class:`rules.events.ColoursExchanged`."""
    last_seq: int = 0
    started: float = 0.0
    updated: float = 0.0

    # -- building ----------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        table_id: str,
        game_id: str,
        variant: Variant | str,
        *,
        fen: str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> GameRecord:
        v = find_variant(variant) if isinstance(variant, str) else variant
        start = Position.from_fen(v, fen) if fen else Position.initial(v)
        return cls(table_id, game_id, v, start, dict(tags or {}))

    @classmethod
    def from_events(cls, events: Iterable[JournalEvent]) -> GameRecord:
        """Fold a game's events (the first must be ``game_started``).

        An event that does not fit (it cannot, unless the file was edited by hand) is
        logged and turned into a ``journal`` flag; folding never stops half-way.
        """
        it = iter(events)
        first = next(it, None)
        if first is None or first.kind != "game_started":
            raise RecordError(
                f"a game's journal must begin with game_started, not {first and first.kind!r}"
            )
        record = cls.new(
            first.table_id,
            first.game_id,
            str(first.data["variant"]),
            fen=first.data.get("fen"),
            tags=first.data.get("tags"),
        )
        record.last_seq, record.started, record.updated = first.seq, first.time, first.time
        for event in it:
            try:
                record.apply(event)
            except RecordError as exc:
                log.error("journal %s/%s seq %d: %s", event.table_id, event.game_id, event.seq, exc)
                record.flags.append(
                    Flag(event.seq, "journal", record.ply, event.time, message=str(exc))
                )
                record.last_seq = event.seq
        return record

    def apply(self, event: JournalEvent) -> None:
        """Fold one more event in; raises :class:`RecordError` (the record unchanged)."""
        try:
            self._apply(event)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as exc:  # a field missing or of a wrong type
            raise RecordError(f"bad {event.kind} event {dict(event.data)!r}: {exc!r}") from None

    def _apply(self, event: JournalEvent) -> None:
        d = event.data
        kind = event.kind
        if kind == "move":
            clock = d.get("clock")
            self._push(
                str(d["notation"]), event.time, clock=None if clock is None else float(clock)
            )
        elif kind == "flag":
            self.flags.append(
                Flag(
                    event.seq,
                    str(d.get("kind", "irregularity")),
                    int(d.get("ply", self.ply)),
                    event.time,
                    str(d.get("article", "")),
                    str(d.get("message", "")),
                )
            )
        elif kind == "resync":
            self._resolve_latest_irregularities(int(d.get("undoes", 0)))
            ply = d.get("ply")
            self._resync(
                str(d["fen"]),
                str(d.get("reason", "")),
                ply=None if ply is None else int(ply),
                irregular=d.get("irregular"),
                when=event.time,
            )
        elif kind == "confirm":
            ply = self._check_ply(int(d["ply"]))
            old = self.plies[ply - 1]
            self.plies[ply - 1] = replace(old, confirmed=True)
        elif kind == "correct":
            self._correct(int(d["ply"]), str(d["notation"]), event.time)
        elif kind == "takeback":
            self._takeback(int(d["ply"]))
        elif kind == "tags":
            self.tags.update({str(k): str(v) for k, v in dict(d["tags"]).items()})
        elif kind == "result":
            result = str(d["result"])
            if result not in RESULTS:
                raise RecordError(f"unknown result {result!r} (expected one of {RESULTS})")
            self.result = result
        elif kind == "colours_exchanged":
            self.colours_exchanged = True
        elif kind == "flag_resolved":
            seq = int(d["seq"]) if "seq" in d else self._flag_seq(str(d["kind"]), int(d["ply"]))
            self.flags = [replace(f, resolved=True) if f.seq == seq else f for f in self.flags]
        else:
            log.debug("ignoring journal event kind %r", kind)
        self.last_seq = event.seq
        self.updated = event.time

    # -- reading ----------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.plies)

    @property
    def board_rotated(self) -> bool:
        """Whether the players have turned the board, as the recorder reads it: each
        ``board_rotated`` flag turns it half a turn."""
        return sum(f.kind == IrregularityKind.BOARD_ROTATED.value for f in self.flags) % 2 == 1

    @property
    def position(self) -> Position:
        """The position now: after the last move, or the last resync after it."""
        base = self.plies[-1].after if self.plies else self.start
        for r in reversed(self.resyncs):
            if r.after_ply == self.ply:
                return r.position
            if r.after_ply < self.ply:
                break
        return base

    def position_before(self, ply: int) -> Position:
        """The position in which move ``ply`` (1-based) is played."""
        base = self.plies[ply - 2].after if ply > 1 else self.start
        for r in reversed(self.resyncs):
            if r.after_ply == ply - 1:
                return r.position
        return base

    @property
    def last_move(self) -> Ply | None:
        return self.plies[-1] if self.plies else None

    @property
    def open_flags(self) -> list[Flag]:
        return [f for f in self.flags if not f.resolved]

    def as_of(self, when: float) -> GameRecord:
        """The game as it stood at time ``when``: later moves, flags and resyncs left out,
        and the result only if nothing was left out."""
        keep = 0
        while keep < self.ply and self.plies[keep].time <= when:
            keep += 1
        twin = copy.copy(self)
        twin.plies = self.plies[:keep]
        twin.resyncs = [r for r in self.resyncs if r.after_ply <= keep]
        twin.flags = []
        if keep < self.ply:
            twin.result = "*"
        return twin

    def notations(self) -> list[str]:
        return [p.notation for p in self.plies]

    def moves_text(self) -> str:
        """The moves with move numbers, ``1. 32-28 19-23 2. ...`` (PDN movetext style)."""
        parts: list[str] = []
        black_first = self.start.turn is not self.variant.first_to_move
        for i, p in enumerate(self.plies):
            k = i + (1 if black_first else 0)
            if k % 2 == 0:
                parts.append(f"{k // 2 + 1}.")
            elif i == 0:
                parts.append(f"{k // 2 + 1}...")
            parts.append(p.notation)
        return " ".join(parts)

    def sheet_tags(self) -> dict[str, str]:
        """The tags set for this game, with the date of its first event when none was set."""
        tags = dict(self.tags)
        if tags.get("Date", "????.??.??") == "????.??.??" and self.started:
            tags["Date"] = time.strftime("%Y.%m.%d", time.gmtime(self.started))
        return tags

    def all_tags(self) -> dict[str, str]:
        """The scoresheet's tags in PDN order: the seven tournament tags (``?`` where
        unknown), GameType, FEN when the game did not start from the initial position,
        then the others."""
        return dict(export_tags(Game(self.variant, self.start, self.sheet_tags(), self.result)))

    # -- changing -----------------------------------------------------------------------------

    def check_correction(self, ply: int, notation: str) -> list[str]:
        """The move list a correction at ``ply`` would give; raises naming the ply at fault."""
        self._check_ply(ply)
        notations = self.notations()
        notations[ply - 1] = notation
        trial = self._replayed(notations, keep_from=ply)
        return [p.notation for p in trial]

    def check_move(self, notation: str) -> str:
        """The official notation of a move in the current position; raises if illegal."""
        try:
            position = self.position
            return position.move_name(position.parse_move(notation))
        except RulesError as exc:
            raise RecordError(f"ply {self.ply + 1}: {exc}") from None

    def _check_ply(self, ply: int) -> int:
        if not 1 <= ply <= self.ply:
            raise RecordError(f"ply {ply} is not in the game (it has {self.ply} moves)")
        return ply

    def _push(
        self, notation: str, when: float, *, corrected: bool = False, clock: float | None = None
    ) -> None:
        before = self.position
        try:
            move = before.parse_move(notation)
        except RulesError as exc:
            raise RecordError(f"ply {self.ply + 1}: {exc}") from None
        name = before.move_name(move)
        self.plies.append(
            Ply(
                self.ply + 1,
                name,
                move,
                before,
                before.play(move),
                when,
                corrected=corrected,
                clock=clock,
            )
        )

    def _resync(
        self,
        fen: str,
        reason: str,
        *,
        ply: int | None = None,
        irregular: str | None = None,
        when: float = 0.0,
    ) -> None:
        try:
            position = Position.from_fen(self.variant, fen)
        except RulesError as exc:
            raise RecordError(f"resync after ply {self.ply}: {exc}") from None
        keep = self.ply if ply is None else ply - (1 if irregular else 0)
        if not 0 <= keep <= self.ply:
            raise RecordError(f"resync at ply {ply}: the game has {self.ply} moves")
        self._takeback(keep)
        if irregular:
            before = self.position
            self.plies.append(Ply(keep + 1, irregular, None, before, position, when))
        elif position != self.position:
            self.resyncs.append(Resync(self.ply, position, reason))

    def _flag_seq(self, kind: str, ply: int) -> int | None:
        """The journal seq of the latest open flag of ``kind`` raised at ``ply``."""
        return next(
            (
                f.seq
                for f in reversed(self.flags)
                if (f.kind, f.ply) == (kind, ply) and not f.resolved
            ),
            None,
        )

    def _resolve_latest_irregularities(self, count: int) -> None:
        """Mark the latest ``count`` irregularity flags resolved (not draws, not faults)."""
        for i in reversed(range(len(self.flags))):
            if count <= 0:
                return
            if self.flags[i].kind in IRREGULARITY_FLAG_KINDS:
                self.flags[i] = replace(self.flags[i], resolved=True)
                count -= 1

    def _takeback(self, ply: int) -> None:
        if not 0 <= ply <= self.ply:
            raise RecordError(f"cannot take back to ply {ply}: the game has {self.ply} moves")
        del self.plies[ply:]
        # A resync at the ply we go back to stays: it is the position the board showed then.
        self.resyncs = [r for r in self.resyncs if r.after_ply <= ply]

    def _correct(self, ply: int, notation: str, when: float) -> None:
        self._check_ply(ply)
        notations = self.notations()
        notations[ply - 1] = notation
        self.plies = self._replayed(notations, keep_from=ply, when=when)

    def _replayed(self, notations: list[str], *, keep_from: int, when: float = 0.0) -> list[Ply]:
        """Replay the moves from ``keep_from`` on a copy; raises naming the first that fails."""
        trial = GameRecord(self.table_id, self.game_id, self.variant, self.start)
        trial.plies = list(self.plies[: keep_from - 1])
        trial.resyncs = [r for r in self.resyncs if r.after_ply < keep_from]
        later = [r for r in self.resyncs if r.after_ply >= keep_from]
        for i, text in enumerate(notations[keep_from - 1 :], start=keep_from):
            old = self.plies[i - 1]
            corrected = i == keep_from
            if old.move is None and not corrected:  # an irregular ply: the board decided
                trial.plies.append(replace(old, before=trial.position))
                continue
            trial._push(
                text,
                when if corrected else old.time,
                corrected=corrected or old.corrected,
                clock=None if corrected else old.clock,
            )
            if not corrected and old.confirmed:
                trial.plies[-1] = replace(trial.plies[-1], confirmed=True)
            trial.resyncs += [r for r in later if r.after_ply == i]
        return trial.plies

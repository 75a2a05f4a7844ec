"""The recorder as the live pipeline drives it: :class:`rules.recorder.Recorder` events
turned into journal events (see :mod:`pi.record` for the kinds).

The journal, not the recorder, is the record of the game: after an arbiter's take-back
or correction, or when the device restarts, a fresh recorder starts from the journal's
position, and its ply numbers are offset by the plies already in the journal.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pi.pipeline import RecorderOutput
from pi.record import GameRecord
from rules.events import (
    ColoursExchanged,
    DrawNoticed,
    Event,
    IrregularityCorrected,
    IrregularityFlagged,
    MoveRecorded,
    PositionUnexplained,
    Resynchronised,
)
from rules.observation import Observation
from rules.recorder import RecordedPly, Recorder, RecorderConfig

log = logging.getLogger(__name__)


class RecorderAdapter:
    """Feeds observations to a :class:`Recorder` and names its events for the journal."""

    def __init__(
        self, record: GameRecord, config: RecorderConfig | None = None, *, clock: bool = False
    ) -> None:
        self.config = config
        self.clock = clock
        """Stamp each move with its observation's time (a recorded source's own clock)."""
        self.restart(record)

    def restart(self, record: GameRecord) -> None:
        """Go on from the journal's game (its position, its ply count, how its board is
        read)."""
        self.offset = record.ply
        self.recorder = Recorder(
            record.variant,
            start=record.position,
            config=self.config,
            table_id=record.table_id,
            game_id=record.game_id,
            board_rotated=record.board_rotated,
            colours_exchanged=record.colours_exchanged,
        )
        log.info("recorder follows %s/%s from ply %d", record.table_id, record.game_id, record.ply)

    def observe(self, observation: Observation) -> list[RecorderOutput]:
        out: list[RecorderOutput] = []
        for message in self.recorder.feed(observation):
            out += journal_entries(
                message.event, self.offset, self.recorder.record, clock=self.clock
            )
        return out


def journal_entries(
    event: Event, offset: int = 0, record: Sequence[RecordedPly] = (), *, clock: bool = False
) -> list[RecorderOutput]:
    """The journal events for one recorder event (plies offset by ``offset``); ``record``
    is the recorder's record, which names an irregular ply a resync follows; ``clock``
    stamps a move with the time the recorder gives it (the source's clock)."""
    ply = offset + event.ply if hasattr(event, "ply") else offset
    if isinstance(event, MoveRecorded):
        move: dict[str, Any] = {
            "notation": event.notation,
            "ply": ply,
            "fen_after": event.fen_after,
            "source": "camera",
        }
        if clock:
            move["clock"] = round(event.time, 3)
        if not event.alternatives:
            return [("move", move)]
        # Moves that look the same from above (towers, caught-up plies): the arbiter
        # confirms or corrects.
        return [
            ("move", move),
            (
                "flag",
                {
                    "kind": "ambiguous",
                    "ply": ply,
                    "message": f"{event.notation} recorded; could also be "
                    + ", ".join(event.alternatives),
                },
            ),
        ]
    if isinstance(event, IrregularityFlagged):
        return [
            (
                "flag",
                {
                    "kind": event.kind.value,
                    "ply": ply,
                    "article": event.article,
                    "message": event.evidence,
                    "squares": list(event.squares),
                },
            )
        ]
    if isinstance(event, IrregularityCorrected):
        return [("flag_resolved", {"kind": event.kind.value, "ply": ply, "note": event.reason})]
    if isinstance(event, PositionUnexplained):
        return [("flag", {"kind": "unexplained", "ply": ply, "message": event.picture})]
    if isinstance(event, Resynchronised):
        resync: dict[str, Any] = {"fen": event.fen, "reason": event.reason, "ply": ply}
        if 0 < event.ply <= len(record) and record[event.ply - 1].move is None:
            resync["irregular"] = record[event.ply - 1].notation
        if event.undone:
            resync["undoes"] = event.undone
        return [("resync", resync)]
    if isinstance(event, ColoursExchanged):
        return [("colours_exchanged", {"ply": ply})]
    if isinstance(event, DrawNoticed):
        return [
            (
                "flag",
                {
                    "kind": "draw claimable" if event.claimable else "draw",
                    "ply": ply,
                    "article": event.article,
                    "message": event.rule,
                },
            )
        ]
    # Take-backs, confirmations and results come from the arbiter, who writes them to the
    # journal directly; the recorder only echoes them.
    return []

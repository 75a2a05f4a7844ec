"""What the recorder emits: small frozen values, each one JSON message on the wire.

The recorder (:mod:`rules.recorder`) turns observations into these events; the device
keeps them in an append-only journal and the hall hub receives them over MQTT
(DESIGN.md, "Beyond one table"). Every event travels inside an :class:`EventMessage`
that adds the table id, the game id and a sequence number, so replaying a journal
twice stores nothing twice: ``(table, game, seq)`` is the key.

Plies are counted from 1 for the first move of the game. An event about a move
(recorded, irregular) carries that move's ply; an event about the board between moves
(pieces displaced, a king uncrowned, a resync) carries the number of plies played so far.

>>> msg = EventMessage("t7", "r3-t7", 1, MoveRecorded(1, "32-28", "B:W28,31-33,34-50:B1-20", 12.5))
>>> EventMessage.from_json(msg.to_json()) == msg
True
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, fields
from enum import Enum
from typing import Any, ClassVar, TypeAlias


class IrregularityKind(Enum):
    """The irregularities the arbiter module can recognise on the board (I 5.4, S1 §9)."""

    ILLEGAL_MOVE = "illegal_move"
    CAPTURE_NOT_TAKEN = "capture_not_taken"
    FEWER_CAPTURED = "fewer_captured"
    CAPTURED_PIECE_LEFT = "captured_piece_left"
    WRONG_PIECE_REMOVED = "wrong_piece_removed"
    NOT_CROWNED = "not_crowned"
    KING_UNCROWNED = "king_uncrowned"
    OUT_OF_TURN = "out_of_turn"
    MOVE_TAKEN_BACK = "move_taken_back"
    WRONG_SETUP = "wrong_setup"
    BOARD_ROTATED = "board_rotated"
    PIECES_DISPLACED = "pieces_displaced"
    PIECES_REMOVED = "pieces_removed"


@dataclass(frozen=True, slots=True)
class MoveRecorded:
    """A move joined the scoresheet.

    ``notation`` is what the rules require on the scoresheet (intermediate squares only
    where two captures share their ends, I 9.3, S1 §6.9). ``alternatives`` is non-empty
    when other legal moves look the same to the camera (towers, or plies caught up after
    the board was hidden): the arbiter is asked to confirm or correct.
    """

    ply: int
    notation: str
    fen_after: str
    time: float
    alternatives: tuple[str, ...] = ()

    type: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class IrregularityFlagged:
    """The board shows something the rules do not allow; the opponent decides (I 5.4).

    ``squares`` names the squares involved; ``article`` cites the rule digests.
    """

    kind: IrregularityKind
    ply: int
    evidence: str
    article: str
    time: float
    squares: tuple[str, ...] = ()

    type: ClassVar[str] = "irregularity"


@dataclass(frozen=True, slots=True)
class PositionUnexplained:
    """A stable picture that neither legal moves nor a named irregularity explain.

    ``picture`` is the board as read, in reading order, ``.wWbB`` letters and ``?``.
    """

    ply: int
    picture: str
    time: float

    type: ClassVar[str] = "unexplained"


@dataclass(frozen=True, slots=True)
class Resynchronised:
    """The recorder now follows the position on the board (I 5.7, S1 §9.6).

    ``undone``: how many of the latest irregularity flags (unexplained pictures included)
    the board has since shown put right, or never to have been irregular: the players put
    it back, or the legal moves that followed undid them (a piece a still hand hid)."""

    ply: int
    fen: str
    reason: str
    time: float
    undone: int = 0

    type: ClassVar[str] = "resync"


@dataclass(frozen=True, slots=True)
class IrregularityCorrected:
    """The board shows the irregularity flagged at ``ply`` put right while play went on:
    a king that read as a man (``king_uncrowned``) reads as a king again. ``kind`` and
    ``squares`` are the flag's; the flag stays on the record for the arbiter, resolved
    (I 5.7)."""

    ply: int
    kind: IrregularityKind
    squares: tuple[str, ...]
    reason: str
    time: float

    type: ClassVar[str] = "corrected"


@dataclass(frozen=True, slots=True)
class ColoursExchanged:
    """The first move was made by the colour the calibration calls the opponent's (a set
    whose two colours are alike): from ``ply`` on, the board is read turned half a turn,
    its colours exchanged. A recorder that goes on with the game (after a restart, or an
    arbiter's decision) must read it so too."""

    ply: int
    time: float

    type: ClassVar[str] = "colours_exchanged"


@dataclass(frozen=True, slots=True)
class TakenBack:
    """The arbiter took the game back: plies after ``ply`` are off the scoresheet."""

    ply: int
    fen: str
    time: float

    type: ClassVar[str] = "takeback"


@dataclass(frozen=True, slots=True)
class IrregularityConfirmed:
    """The arbiter confirmed the irregularity flagged at ``ply`` (it stands, I 5.7)."""

    ply: int
    kind: IrregularityKind
    time: float

    type: ClassVar[str] = "confirmed"


@dataclass(frozen=True, slots=True)
class DrawNoticed:
    """A draw rule was reached (``claimable`` False) or may now be claimed (True)."""

    rule: str
    article: str
    ply: int
    claimable: bool
    time: float

    type: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class ResultSet:
    """The result, as the arbiter entered it (``1-0``, ``0-1``, ``1-1``, ``2-0``...)."""

    result: str
    reason: str
    time: float

    type: ClassVar[str] = "result"


Event: TypeAlias = (
    MoveRecorded
    | IrregularityFlagged
    | PositionUnexplained
    | Resynchronised
    | IrregularityCorrected
    | ColoursExchanged
    | TakenBack
    | IrregularityConfirmed
    | DrawNoticed
    | ResultSet
)

_EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        MoveRecorded,
        IrregularityFlagged,
        PositionUnexplained,
        Resynchronised,
        IrregularityCorrected,
        ColoursExchanged,
        TakenBack,
        IrregularityConfirmed,
        DrawNoticed,
        ResultSet,
    )
}


@dataclass(frozen=True, slots=True)
class EventMessage:
    """One event on the wire: ``(table_id, game_id, seq)`` identifies it everywhere.

    ``seq`` counts from 1 per game, without gaps, in the order the recorder emitted.
    """

    table_id: str
    game_id: str
    seq: int
    event: Event

    def to_dict(self) -> dict[str, Any]:
        body = asdict(self.event)
        for key, value in body.items():
            if isinstance(value, Enum):
                body[key] = value.value
            elif isinstance(value, tuple):
                body[key] = list(value)
        return {
            "table": self.table_id,
            "game": self.game_id,
            "seq": self.seq,
            "type": self.event.type,
            **body,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EventMessage:
        """Read a message back; raises ValueError naming the message when it is malformed."""
        try:
            event_cls = _EVENT_TYPES[data["type"]]
            values: dict[str, Any] = {}
            for f in fields(event_cls):
                if f.name not in data and f.default is not MISSING:
                    continue  # a field added since the message was written
                value = data[f.name]
                if f.name == "kind":
                    value = IrregularityKind(value)
                elif isinstance(value, list):
                    value = tuple(value)
                values[f.name] = value
            return cls(str(data["table"]), str(data["game"]), int(data["seq"]), event_cls(**values))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed event message {data!r}: {exc!r}") from None

    @classmethod
    def from_json(cls, text: str) -> EventMessage:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"event message is not JSON: {text[:80]!r} ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError(f"event message is not a JSON object: {text[:80]!r}")
        return cls.from_dict(data)

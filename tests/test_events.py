"""Events travel as JSON messages keyed by (table, game, seq): replaying is idempotent."""

from __future__ import annotations

import json

import pytest

from bench.observation_sim import Noise, Simulator, tops_of
from rules.events import (
    ColoursExchanged,
    DrawNoticed,
    Event,
    EventMessage,
    IrregularityConfirmed,
    IrregularityCorrected,
    IrregularityFlagged,
    IrregularityKind,
    MoveRecorded,
    PositionUnexplained,
    ResultSet,
    Resynchronised,
    TakenBack,
)
from rules.position import Position
from rules.recorder import Recorder
from rules.variants import find_variant

EXAMPLES: list[Event] = [
    MoveRecorded(1, "32-28", "B:W28,31-50:B1-20", 1.5, ("33-28",)),
    IrregularityFlagged(
        IrregularityKind.CAPTURE_NOT_TAKEN,
        7,
        "32-28 while 27x18 was compulsory",
        "I 5.4.6",
        9.0,
        ("32", "28"),
    ),
    PositionUnexplained(8, "bbbb?...", 10.0),
    Resynchronised(8, "W:W31-50:B1-20", "capture_not_taken", 10.0),
    Resynchronised(6, "B:W31-50:B1-20", "irregularity undone", 21.0, undone=2),
    IrregularityCorrected(
        9, IrregularityKind.KING_UNCROWNED, ("46",), "the king reads as a king again", 15.0
    ),
    ColoursExchanged(0, 3.5),
    TakenBack(4, "W:W31-50:B1-20", 11.0),
    IrregularityConfirmed(7, IrregularityKind.CAPTURE_NOT_TAKEN, 12.0),
    DrawNoticed("3-fold repetition", "I 6.1", 40, False, 13.0),
    ResultSet("1-1", "agreed", 14.0),
]


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.type)
def test_every_event_round_trips_through_json(event: Event) -> None:
    msg = EventMessage("table-7", "round-3-table-7", 42, event)
    data = json.loads(msg.to_json())
    assert (data["table"], data["game"], data["seq"], data["type"]) == (
        "table-7",
        "round-3-table-7",
        42,
        event.type,
    )
    assert EventMessage.from_json(msg.to_json()) == msg


def test_a_message_written_before_a_field_was_added_reads_with_its_default() -> None:
    old = '{"table":"t","game":"g","seq":3,"type":"resync","ply":2,"fen":"W:W31-50:B1-20",'
    msg = EventMessage.from_json(old + '"reason":"pieces removed","time":4.5}')
    assert msg.event == Resynchronised(2, "W:W31-50:B1-20", "pieces removed", 4.5, undone=0)


def test_malformed_messages_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        EventMessage.from_json("{nope")
    with pytest.raises(ValueError, match="malformed event message"):
        EventMessage.from_json('{"table": "t", "game": "g", "seq": 1, "type": "move"}')
    with pytest.raises(ValueError, match="malformed event message"):
        EventMessage.from_json('{"table": "t", "game": "g", "seq": 1, "type": "teleport"}')


def test_a_recorded_journal_replays_idempotently() -> None:
    variant = find_variant("russian")
    position = Position.initial(variant)
    sim = Simulator(variant, Noise(square_error_rate=0.01), seed=9)
    sim.settle(tops_of(position))
    for text in ["c3-d4", "f6-e5", "d4:f6", "g7:e5"]:
        position = sim.play(position, position.parse_move(text))
    recorder = Recorder(variant, table_id="t1", game_id="g1")
    for frame in sim.frames:
        recorder.feed(frame)
    journal = [m.to_json() for m in recorder.messages]
    hub: dict[tuple[str, str, int], str] = {}
    for line in journal + journal:  # replayed twice
        msg = EventMessage.from_json(line)
        hub[(msg.table_id, msg.game_id, msg.seq)] = line
    assert len(hub) == len(journal) == 4
    notations = [EventMessage.from_json(hub[("t1", "g1", i)]).event for i in range(1, 5)]
    assert [e.notation for e in notations if isinstance(e, MoveRecorded)] == [
        "c3-d4",
        "f6-e5",
        "d4:f6",
        "g7:e5",
    ]

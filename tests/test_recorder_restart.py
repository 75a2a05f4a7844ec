"""A recorder that goes on with a game (after an arbiter's decision, or a device restart)
reads its board as the game's last recorder did: turned by the players, or its colours
exchanged after a first move by the colour the calibration called the opponent's. A
fresh recorder reading it as calibrated recorded nothing more."""

from __future__ import annotations

from pathlib import Path

from pi.journal import Journal
from pi.recording import RecorderAdapter
from pi.tables import TableService
from rules.events import IrregularityKind
from rules.observation import Observation
from rules.position import Position
from rules.variants import find_variant
from tests.test_recorder_readings import _frames, _played, _swapped_frames

INTERNATIONAL = find_variant("international")
# after the third ply the position no longer looks the same turned with its colours
# exchanged, so a fresh recorder could not find the exchange again from the board
MOVES = ["32-28", "19-23", "28x19", "14x23", "34-29", "23x34", "40x29", "17-21"]
BEFORE = 3


def _turned(observations: list[Observation]) -> list[Observation]:
    return [Observation(o.time, o.squares[::-1], occlusion=o.occlusion, motion=o.motion)
            for o in observations]  # fmt: skip


def _record_across_restarts(path: Path, observations: list[Observation], hold: int) -> list[str]:
    """Feed the frames of the first ``BEFORE`` plies (each board held ``hold`` frames,
    then a hand over it for 5), let the arbiter confirm the first (the pipeline's
    recorder starts again from the journal), feed the next ply's, then restart the device
    (the journal folded again) and feed the rest; the moves the journal holds."""
    per_board = hold + 5
    cut = per_board * (BEFORE + 1) - 3  # under the hand after ply BEFORE
    with Journal(path) as journal:
        service = TableService(journal)
        adapter = RecorderAdapter(service.start_game("t", INTERNATIONAL))
        for observation in observations[:cut]:
            for kind, data in adapter.observe(observation):
                service.record("t", kind, data)
        assert service.current("t").ply == BEFORE
        service.record("t", "confirm", {"ply": 1, "source": "arbiter"})
        adapter.restart(service.current("t"))
        for observation in observations[cut : cut + per_board]:
            for kind, data in adapter.observe(observation):
                service.record("t", kind, data)
    with Journal(path) as journal:
        service = TableService(journal)
        adapter = RecorderAdapter(service.current("t"))
        for observation in observations[cut + per_board :]:
            for kind, data in adapter.observe(observation):
                service.record("t", kind, data)
        record = service.current("t")
    assert [f.kind for f in record.flags if not f.resolved] in (
        [],
        [IrregularityKind.BOARD_ROTATED.value],
    )
    return record.notations()


def test_colours_exchanged_by_the_first_move_stay_exchanged(tmp_path: Path) -> None:
    positions = _played(Position.initial(INTERNATIONAL), MOVES)
    moves = _record_across_restarts(tmp_path / "j.sqlite", _swapped_frames(positions), 10)
    assert moves == MOVES
    with Journal(tmp_path / "j.sqlite") as journal:
        record = TableService(journal).current("t")
        assert record.colours_exchanged and not record.board_rotated
        assert [e.data for e in journal.events("t", record.game_id)
                if e.kind == "colours_exchanged"] == [{"ply": 0}]  # fmt: skip


def test_a_board_the_players_turned_stays_turned(tmp_path: Path) -> None:
    """Each board held three seconds: the arbiter is called after two (I 5.5)."""
    positions = _played(Position.initial(INTERNATIONAL), MOVES)
    turned = _turned(_frames(positions, hold=30))
    moves = _record_across_restarts(tmp_path / "j.sqlite", turned, 30)
    assert moves == MOVES
    with Journal(tmp_path / "j.sqlite") as journal:
        record = TableService(journal).current("t")
        assert record.board_rotated and not record.colours_exchanged

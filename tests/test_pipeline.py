"""The live pipeline with the real recorder, journal and table service: newest frame
first, no unbounded queue, nothing a frame does stops the loop, resume after restart."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import pytest

from bench.observation_sim import Noise, Simulator, tops_of
from pi.capture import CameraError, Frame, FrameSource, OpenCVCameraSource
from pi.config import CameraSettings
from pi.journal import Journal
from pi.pipeline import LatestSlot, LivePipeline
from pi.recording import RecorderAdapter
from pi.replay import ObservationSource, scripted_observations
from pi.scoresheet import game_pdn
from pi.tables import TableService
from rules import Move, Position, find_variant
from rules.observation import Observation, Top
from rules.pdn import read_games_text
from rules.recorder import Recorder, RecorderConfig
from tests.irregular_boards import STAND_FRAMES, three_white_men_moved_at_once
from tests.pi_support import USSR1947, WK2003, StalledCamera, first_game_moves

INTERNATIONAL = find_variant("international")


def real_moves(shared_data: Path, file: Path, variant: str, limit: int) -> list[Move]:
    position = Position.initial(find_variant(variant))
    moves = []
    for text in first_game_moves(shared_data, file, limit=limit):
        move = position.parse_move(text)
        moves.append(move)
        position = position.play(move)
    return moves


def names(start: Position, moves: list[Move]) -> list[str]:
    out, position = [], start
    for m in moves:
        out.append(position.move_name(m))
        position = position.play(m)
    return out


def pipeline_for(service: TableService, source: FrameSource, table: str = "t") -> LivePipeline:
    record = service.ensure_game(table, "international")
    return LivePipeline(source, None, RecorderAdapter(record), service, table)


# -- the mailbox -------------------------------------------------------------------------------


def test_live_slot_keeps_only_the_newest_item() -> None:
    slot: LatestSlot[int] = LatestSlot()
    assert slot.put(1, drop=True) is False
    assert slot.put(2, drop=True) is True  # 1 was never read: dropped
    assert slot.take(0) == 2
    assert slot.take(0.01) is None


def test_recorded_slot_waits_for_the_reader() -> None:
    slot: LatestSlot[int] = LatestSlot()
    taken: list[int] = []

    def reader() -> None:
        while (item := slot.take(2)) is not None:
            taken.append(item)
            time.sleep(0.01)

    thread = threading.Thread(target=reader)
    thread.start()
    for n in range(20):
        assert slot.put(n, drop=False) is False
    time.sleep(0.05)
    slot.close()
    thread.join(5)
    assert taken == list(range(20))


# -- recording through the pipeline ---------------------------------------------------------


@pytest.mark.parametrize(("file", "variant"), [(WK2003, "international"), (USSR1947, "russian")])
def test_noisy_real_game_is_recorded_through_the_pipeline(
    shared_data: Path, file: Path, variant: str
) -> None:
    moves = real_moves(shared_data, file, variant, limit=40)
    v = find_variant(variant)
    sim = Simulator(v, Noise(square_error_rate=0.01, glitch_rate=0.2, edge_hand_rate=0.2), seed=3)
    sim.play_game(Position.initial(v), moves)
    service = TableService(Journal(":memory:"))
    record = service.start_game("t", v)
    pipeline = LivePipeline(
        ObservationSource(sim.frames), None, RecorderAdapter(record), service, "t"
    )
    health = pipeline.run()
    assert service.current("t").notations() == names(Position.initial(v), moves)
    assert service.current("t").flags == []
    assert health.frames_processed == len(sim.frames)
    assert health.moves_recorded == len(moves)
    assert (health.errors, health.frames_dropped, health.status) == (0, 0, "source ended")


class MixedSource(FrameSource):
    """Frames as a faulty camera delivers them: good ones, corrupt ones, and pictures
    this build cannot read (no vision stage), in between."""

    needs_vision = False

    def __init__(self, observations: Iterable[Observation]) -> None:
        self.observations = observations

    def __iter__(self) -> Iterator[Frame]:
        for i, obs in enumerate(self.observations):
            if i % 7 == 3:
                yield Frame(i, obs.time, None, error="truncated JPEG")
            elif i % 7 == 5:
                yield Frame(i, obs.time, np.zeros((4, 4, 3), np.uint8))  # needs vision
            else:
                yield Frame(i, obs.time, None, observation=obs)


def test_bad_frames_never_stop_the_loop_and_lose_no_move(shared_data: Path) -> None:
    moves = real_moves(shared_data, WK2003, "international", limit=16)
    start = Position.initial(INTERNATIONAL)
    service = TableService(Journal(":memory:"))
    pipeline = pipeline_for(service, MixedSource(scripted_observations(start, moves)))
    health = pipeline.run()
    assert service.current("t").notations() == names(start, moves)
    assert health.frames_corrupt > 0 and health.errors > 0
    assert health.last_error is not None
    assert "no vision stage" in health.last_error or "truncated JPEG" in health.last_error


def test_live_source_drops_stale_frames_under_load(shared_data: Path) -> None:
    moves = real_moves(shared_data, WK2003, "international", limit=6)
    start = Position.initial(INTERNATIONAL)
    observations = list(
        scripted_observations(start, moves, fps=200.0, move_seconds=0.1, still_seconds=0.6)
    )
    service = TableService(Journal(":memory:"))
    record = service.start_game("t", INTERNATIONAL)

    class CameraFeed(ObservationSource):
        needs_vision = True

        def __iter__(self) -> Iterator[Frame]:  # frames without their observation attached
            for f in super().__iter__():
                yield Frame(f.index, f.time, np.zeros((2, 2, 3), np.uint8), observation=None)

    # The pictures are the scripted ones: this stand-in for vision takes 20 ms a frame
    # (slower than the 200 fps camera) and reads them from a side table.
    by_index = dict(enumerate(observations))

    def vision(frame: Frame) -> Observation:
        time.sleep(0.02)
        return by_index[frame.index]

    pipeline = LivePipeline(
        CameraFeed(observations, realtime=True), vision, RecorderAdapter(record), service, "t"
    )
    health = pipeline.run()
    assert health.frames_dropped > 0  # the camera ran ahead: old frames were thrown away
    assert health.frames_processed + health.frames_dropped == len(observations)
    assert health.frames_processed < len(observations)
    assert service.current("t").notations() == names(start, moves)  # yet no move is lost


def test_arbiter_takeback_restarts_the_recorder_from_the_journal() -> None:
    start = Position.initial(INTERNATIONAL)
    service = TableService(Journal(":memory:"))
    pipeline = pipeline_for(service, ObservationSource([]))
    pipeline.start()
    line = [start.parse_move("32-28")]
    after = start.play(line[0])
    line.append(after.parse_move("19-23"))
    for obs in scripted_observations(start, line):
        pipeline.process(Frame(0, obs.time, None, observation=obs))
    assert service.current("t").notations() == ["32-28", "19-23"]
    # The arbiter takes back the last move: the players put 23 back on 19 and play 18-23.
    service.record("t", "takeback", {"ply": 1, "source": "arbiter"})
    other = after.parse_move("18-23")
    for obs in scripted_observations(after, [other]):
        pipeline.process(Frame(0, 100 + obs.time, None, observation=obs))
    pipeline.stop()
    assert service.current("t").notations() == ["32-28", "18-23"]
    assert service.current("t").flags == []


def test_restarted_device_goes_on_from_journal_and_camera(
    tmp_path: Path, shared_data: Path
) -> None:
    moves = real_moves(shared_data, WK2003, "international", limit=20)
    start = Position.initial(INTERNATIONAL)
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        service = TableService(journal)
        pipeline_for(service, ObservationSource(scripted_observations(start, moves[:12]))).run()
    mid = start
    for m in moves[:12]:
        mid = mid.play(m)
    with Journal(path) as journal:  # power back: the same game, from the camera onwards
        service = TableService(journal)
        assert service.current("t").ply == 12
        rest = scripted_observations(mid, moves[12:])
        pipeline_for(service, ObservationSource(rest)).run()
        record = service.current("t")
        assert record.notations() == names(start, moves)
        assert [p.number for p in record.plies] == list(range(1, 21))
        assert len(service.games("t")) == 1


def test_missing_camera_shows_as_camera_lost_and_is_retried() -> None:
    service = TableService(Journal(":memory:"))
    source = OpenCVCameraSource("/dev/video-not-there", CameraSettings())
    pipeline = pipeline_for(service, source)
    pipeline.start()
    deadline = time.monotonic() + 10
    while pipeline.health().errors < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    health = pipeline.health()
    assert health.status == "camera lost" and health.errors >= 2  # tried again
    assert health.last_error is not None and "cannot open camera" in health.last_error
    pipeline.stop()


class FlakyCamera(FrameSource):
    """A camera that fails to open once (unplugged), then delivers a game (plugged back)."""

    live = True
    needs_vision = False

    def __init__(self, observations: list[Observation]) -> None:
        self.observations = observations
        self.opened = 0
        self.closed = threading.Event()

    def open(self) -> None:
        self.opened += 1
        if self.opened == 1:
            raise CameraError("camera 0 is unplugged")

    def close(self) -> None:
        self.closed.set()

    def __iter__(self) -> Iterator[Frame]:
        for i, obs in enumerate(self.observations):
            time.sleep(0.002)  # frames arrive no faster than a camera's
            yield Frame(i, obs.time, None, observation=obs)
        self.closed.wait(30)  # then nothing more, until the pipeline stops


def test_camera_plugged_back_resumes_recording() -> None:
    start = Position.initial(INTERNATIONAL)
    move = start.parse_move("32-28")
    service = TableService(Journal(":memory:"))
    camera = FlakyCamera(list(scripted_observations(start, [move])))
    pipeline = pipeline_for(service, camera)
    pipeline.start()
    deadline = time.monotonic() + 10
    while service.current("t").ply == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    pipeline.stop()
    assert service.current("t").notations() == ["32-28"]
    assert camera.opened == 2 and pipeline.health().errors == 1


def test_stale_camera_is_reported_and_the_loop_stays_alive() -> None:
    service = TableService(Journal(":memory:"))
    record = service.ensure_game("t", INTERNATIONAL)
    pipeline = LivePipeline(
        StalledCamera(record.position),
        None,
        RecorderAdapter(record),
        service,
        "t",
        stale_seconds=0.2,
    )
    pipeline.start()
    deadline = time.monotonic() + 5
    while pipeline.health().status != "camera lost" and time.monotonic() < deadline:
        time.sleep(0.05)
    health = pipeline.health()
    assert health.status == "camera lost"
    assert health.frames_processed + health.frames_dropped == 3
    assert health.last_frame_age_s is not None
    assert health.last_frame_age_s > 0.2
    pipeline.stop()
    assert pipeline.health().status == "stopped"


def test_a_table_waiting_to_calibrate_says_so_not_board_not_found() -> None:
    """Before the start position is set up, the camera sees the board but vision cannot
    read it yet: the arbiter is told what the table waits for."""
    from pi.wiring import CalibratingRecognizer

    service = TableService(Journal(":memory:"))
    record = service.ensure_game("t", INTERNATIONAL)
    camera = StalledCamera(Position.initial(INTERNATIONAL), frames=0)
    recognizer = CalibratingRecognizer(INTERNATIONAL, None)
    pipeline = LivePipeline(camera, recognizer, RecorderAdapter(record), service, "t")
    pipeline.start()
    blank = np.full((480, 640, 3), 128, np.uint8)  # no board in it to calibrate from
    pipeline.process(Frame(0, 0.0, blank))
    health = pipeline.health()
    assert (health.status, health.board_found) == ("not calibrated", False)
    assert health.waiting is not None and health.waiting.startswith("frame 0: ")
    pipeline.stop()


def test_bumped_board_is_reported_and_recording_resumes() -> None:
    start = Position.initial(INTERNATIONAL)
    first = start.parse_move("32-28")
    after = start.play(first)
    second = after.parse_move("19-23")
    service = TableService(Journal(":memory:"))
    record = service.ensure_game("t", INTERNATIONAL)
    camera = StalledCamera(start, frames=0)  # frames come in through process() below
    pipeline = LivePipeline(camera, None, RecorderAdapter(record), service, "t", stale_seconds=60)
    pipeline.start()
    for obs in scripted_observations(start, [first]):
        pipeline.process(Frame(0, obs.time, None, observation=obs))
    # The board is knocked: vision loses it for a while (no squares can be trusted).
    for k in range(10):
        lost = Observation(100 + k * 0.1, (), board_found=False)
        pipeline.process(Frame(0, lost.time, None, observation=lost))
    assert pipeline.health().status == "board not found"
    assert service.current("t").notations() == ["32-28"]
    for obs in scripted_observations(after, [second]):
        pipeline.process(Frame(0, 200 + obs.time, None, observation=obs))
    assert pipeline.health().status == "ok"
    assert service.current("t").notations() == ["32-28", "19-23"]
    pipeline.stop()


# -- irregularities: the journal keeps what the recorder decided -------------------------------


def seven_plies_played(shared_data: Path) -> tuple[Simulator, Position, list[Move]]:
    """wk2003's first game, its first seven plies played with a few squares misread: the
    simulator, the position, and the game's first nine moves."""
    moves = real_moves(shared_data, WK2003, "international", limit=9)
    sim = Simulator(INTERNATIONAL, Noise(square_error_rate=0.005), seed=13)
    position = Position.initial(INTERNATIONAL)
    sim.settle(tops_of(position))
    for move in moves[:7]:
        position = sim.play(position, move)
    return sim, position, moves


def taken_back_and_replaced(shared_data: Path) -> Simulator:
    """Ply 8 is made, taken back after release (I 5.4.4), and another move played."""
    sim, position, moves = seven_plies_played(shared_data)
    sim.play(position, moves[7])
    sim.show(tops_of(position), STAND_FRAMES)
    instead = next(m for m in position.legal_moves() if m != moves[7])
    after = sim.play(position, instead)
    sim.play(after, after.legal_moves()[0])
    return sim


def never_played_then_replaced(shared_data: Path) -> Simulator:
    """Ply 8 is recorded from a still hand read as a man moved, never played; the real ply
    8 and the reply follow unseen, and replace it (docs/recorder.md, step 7)."""
    sim, position, moves = seven_plies_played(shared_data)
    phantom = next(m for m in position.legal_moves() if m != moves[7])
    sim.show(tops_of(position.play(phantom)), 20)
    after = position.play(moves[7]).play(moves[8])
    sim.hidden(tops_of(after))
    sim.settle(tops_of(after), 30)
    return sim


def unexplained_then_played_on(shared_data: Path) -> Simulator:
    """Three white men moved at once (no named irregularity fits), then play goes on."""
    start, board = three_white_men_moved_at_once()
    sim = Simulator(INTERNATIONAL, Noise(), seed=12)
    sim.settle(tops_of(start))
    sim.show(tops_of(board), STAND_FRAMES)
    after = sim.play(board, board.parse_move("19-23"))
    sim.settle(tops_of(after), 20)
    return sim


def six_plies_played(shared_data: Path) -> tuple[Simulator, Position, list[Move]]:
    """wk2003's first game, its first six plies played cleanly: the simulator, the
    position, and the game's first ten moves."""
    moves = real_moves(shared_data, WK2003, "international", limit=10)
    sim = Simulator(INTERNATIONAL, Noise(), seed=5)
    position = Position.initial(INTERNATIONAL)
    sim.settle(tops_of(position))
    for move in moves[:6]:
        position = sim.play(position, move)
    return sim, position, moves


def pieces_removed_between_moves(shared_data: Path) -> Simulator:
    """After ply 6 a black man disappears from the board (I 5.4.7); play goes on."""
    sim, position, _ = six_plies_played(shared_data)
    stacks = dict(position.stacks())
    del stacks[INTERNATIONAL.geometry.parse_square("1")]
    board = Position.from_stacks(INTERNATIONAL, stacks, position.turn)
    sim.show(tops_of(board), STAND_FRAMES)
    after = sim.play(board, board.legal_moves()[0])
    sim.play(after, after.legal_moves()[0])
    return sim


@pytest.mark.parametrize(
    "scenario",
    [
        taken_back_and_replaced,
        never_played_then_replaced,
        unexplained_then_played_on,
        pieces_removed_between_moves,
    ],
)
def test_journal_scoresheet_matches_the_recorders_own(
    shared_data: Path, scenario: Callable[[Path], Simulator]
) -> None:
    sim = scenario(shared_data)
    alone = Recorder(INTERNATIONAL)
    for obs in sim.frames:
        alone.feed(obs)
    assert alone.flags or any(r.move is None for r in alone.record)  # it is irregular
    service = TableService(Journal(":memory:"))
    record = service.start_game("t", INTERNATIONAL)
    LivePipeline(ObservationSource(sim.frames), None, RecorderAdapter(record), service, "t").run()
    ours = service.current("t")
    assert [p.notation for p in ours.plies] == [r.notation for r in alone.record]
    assert ours.position == alone.position
    assert sorted((f.kind, f.ply) for f in ours.flags if f.kind != "unexplained") == sorted(
        (f.kind.value, f.ply) for f in alone.flags
    )
    theirs = read_games_text(alone.scoresheet())
    mine = read_games_text(game_pdn(ours))
    assert not any(g.errors for g in mine)
    assert [(g.start, g.notations) for g in mine] == [(g.start, g.notations) for g in theirs]


def test_a_flag_the_moves_that_followed_undid_is_resolved_in_the_journal(
    shared_data: Path,
) -> None:
    """A still hand hides the man about to move past the recorder's patience with a move
    in progress (flagged as removed); the move and two more follow: the journal holds the
    legal game and the flag, resolved."""
    sim, position, moves = six_plies_played(shared_data)
    hidden = list(tops_of(position))
    hidden[moves[6].path[0]] = Top.EMPTY
    sim.hand(tops_of(position))
    sim.settle(tuple(hidden), round(RecorderConfig().lifted_wait_seconds * 10) + 50)
    for move in moves[6:9]:
        position = sim.play(position, move)
    sim.settle(tops_of(position), 20)
    service = TableService(Journal(":memory:"))
    record = service.start_game("t", INTERNATIONAL)
    LivePipeline(ObservationSource(sim.frames), None, RecorderAdapter(record), service, "t").run()
    ours = service.current("t")
    assert [p.move for p in ours.plies] == moves[:9]
    assert ours.flags and ours.open_flags == []
    assert "[resolved]" in game_pdn(ours)


class FrozenCamera(FrameSource):
    """A camera whose driver gets stuck: after the first move it re-sends one picture
    (bit for bit) for a while, then comes back with fresh frames and the next move."""

    live = True
    sensor = True
    needs_vision = False  # each frame carries the scripted observation of its picture

    def __init__(self, start: Position, first: Move, second: Move, frozen_frames: int) -> None:
        self.before = list(scripted_observations(start, [first]))
        self.after = list(scripted_observations(start.play(first), [second]))
        self.frozen_frames = frozen_frames
        self.resume = threading.Event()
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()
        self.resume.set()

    def __iter__(self) -> Iterator[Frame]:
        rng = np.random.default_rng(3)
        index = 0

        def fresh(obs: Observation) -> Frame:  # sensor noise: every picture differs
            nonlocal index
            index += 1
            picture = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
            return Frame(index, obs.time, picture, observation=obs)

        for obs in self.before:
            yield fresh(obs)
            time.sleep(0.005)
        stuck = fresh(self.before[-1])
        for _ in range(self.frozen_frames):
            if self.closed.is_set():
                return
            yield stuck
            time.sleep(0.02)
        self.resume.wait(10)
        for obs in self.after:
            if self.closed.is_set():
                return
            yield fresh(Observation(100 + obs.time, obs.squares, frame_index=obs.frame_index))
            time.sleep(0.005)
        self.closed.wait(10)


def test_frozen_camera_is_reported_its_repeats_skipped_and_recording_resumes() -> None:
    start = Position.initial(INTERNATIONAL)
    first = start.parse_move("32-28")
    second = start.play(first).parse_move("19-23")
    service = TableService(Journal(":memory:"))
    camera = FrozenCamera(start, first, second, frozen_frames=60)
    record = service.ensure_game("t", INTERNATIONAL)
    pipeline = LivePipeline(camera, None, RecorderAdapter(record), service, "t", stale_seconds=0.3)
    pipeline.start()
    try:
        deadline = time.monotonic() + 10
        while pipeline.health().status != "camera frozen" and time.monotonic() < deadline:
            time.sleep(0.02)
        health = pipeline.health()
        assert health.status == "camera frozen"
        assert health.frames_repeated > 0  # the same picture again is not analysed again
        assert service.current("t").notations() == ["32-28"]  # nothing recorded is lost
        camera.resume.set()
        deadline = time.monotonic() + 10
        while len(service.current("t").notations()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert service.current("t").notations() == ["32-28", "19-23"]
        assert pipeline.health().status == "ok"
    finally:
        pipeline.stop()


def test_a_hand_resting_over_the_board_is_reported_and_clears() -> None:
    """Frames with a hand over the board carry no evidence: after ``covered_seconds`` of
    them the health says so (it said "ok" while no move could show), and a clear board
    brings back "ok" and the move."""
    start = Position.initial(INTERNATIONAL)
    move = start.parse_move("32-28")
    service = TableService(Journal(":memory:"))
    record = service.ensure_game("t", INTERNATIONAL)
    camera = StalledCamera(start, frames=0)  # frames come in through process() below
    pipeline = LivePipeline(
        camera, None, RecorderAdapter(record), service, "t", stale_seconds=60, covered_seconds=0.2
    )
    pipeline.start()
    observations = list(scripted_observations(start, [move]))
    hand = next(o for o in observations if o.occlusion > 0.1)
    still = observations[0]
    pipeline.process(Frame(0, still.time, None, observation=still))
    pipeline.process(Frame(1, hand.time, None, observation=hand))
    assert pipeline.health().status == "ok"  # a hand making a move is no fault
    time.sleep(0.3)
    pipeline.process(Frame(2, hand.time + 0.1, None, observation=hand))
    assert pipeline.health().status == "board covered"
    for k, obs in enumerate(observations):
        pipeline.process(Frame(3 + k, 10 + obs.time, None, observation=obs))
    assert pipeline.health().status == "ok"
    assert service.current("t").notations() == ["32-28"]
    pipeline.stop()


def test_moves_from_a_recorded_source_are_timed_by_its_clock(tmp_path: Path) -> None:
    """A file recorded as fast as it decodes: the scoresheet's move times are where the
    moves are in the recording, not when this machine got to them."""
    from pi.config import load_settings
    from pi.wiring import build_pipeline

    start = Position.initial(INTERNATIONAL)
    moves = [start.parse_move("32-28")]
    moves.append(start.play(moves[0]).parse_move("19-23"))
    # 30 s between moves in the recording, processed in a fraction of a second
    observations = list(scripted_observations(start, moves, still_seconds=30.0))
    settings = load_settings(None, variant="international", journal=tmp_path / "j.sqlite")
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.start_game(settings.table, settings.variant)
        source = ObservationSource(observations)
        build_pipeline(settings, service, source=source).run()
        record = service.current(settings.table)
    recorder = Recorder(INTERNATIONAL)
    for obs in observations:
        recorder.feed(obs)
    expected = [round(r.time, 3) for r in recorder.record]
    assert expected[0] > 29.0 and expected[1] - expected[0] > 29.0
    assert [p.clock for p in record.plies] == expected
    (game,) = read_games_text(game_pdn(record))
    assert [game.comments.get(i + 1, "") for i in range(2)] == [
        f"[%time {t:.1f}]" for t in expected
    ]

"""The recorder turns simulated observation streams of real games into the games played."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.observation_sim import Noise, Simulator, compare, shared_games, tops_of
from rules.events import DrawNoticed, MoveRecorded, TakenBack
from rules.observation import Observation, SquareReading, Top
from rules.pdn import read_games_text
from rules.position import Position
from rules.recorder import Recorder, RecorderConfig
from rules.variants import find_variant

REAL_LIFE = Noise(
    square_error_rate=0.01,
    glitch_rate=0.2,
    edge_hand_rate=0.2,
    peek_rate=0.3,
    late_crowning_rate=0.5,
)


def _record(sim: Simulator, recorder: Recorder) -> Recorder:
    for frame in sim.frames:
        recorder.feed(frame)
    return recorder


@pytest.mark.parametrize(
    ("variant", "games"), [("international", 3), ("russian", 3), ("english", 3), ("italian", 2)]
)
def test_noisy_real_games_are_recorded_exactly_without_flags(
    shared_data: Path, variant: str, games: int
) -> None:
    for seed, game in enumerate(shared_games(shared_data, variant, games)):
        sim = Simulator(game.variant, REAL_LIFE, seed=seed)
        sim.play_game(game.start, list(game.moves))
        recorder = _record(sim, Recorder(game.variant))
        assert [r.move for r in recorder.record] == list(game.moves), game.source
        assert recorder.flags == [], game.source


def test_scoresheet_reads_back_as_the_game_with_times_and_tags(shared_data: Path) -> None:
    game = shared_games(shared_data, "international", 1)[0]
    sim = Simulator(game.variant, Noise(), seed=0)
    sim.play_game(game.start, list(game.moves))
    recorder = _record(sim, Recorder(game.variant))
    recorder.set_result("1-1", "agreed")
    tags = {"Event": "WK 2003", "Round": "1", "White": "A", "Black": "B"}
    text = recorder.scoresheet(tags)
    (read,) = read_games_text(text)
    assert read.moves == list(game.moves)
    assert read.result == "1-1"
    assert '[Event "WK 2003"]' in text and '[GameType "20"]' in text
    times = [r.time for r in recorder.record]
    assert times == sorted(times) and f"[%time {times[-1]:.1f}]" in text


def test_plies_missed_while_the_camera_saw_nothing_are_caught_up(shared_data: Path) -> None:
    """Up to four plies made unseen are found again; where the final picture cannot tell
    the order of the moves, the arbiter is asked (alternatives) and the position is right."""
    noise = Noise(square_error_rate=0.01, missed_ply_rate=0.15, peek_rate=0.3)
    caught = 0
    for seed, game in enumerate(shared_games(shared_data, "international", 4)):
        sim = Simulator(game.variant, noise, seed=seed)
        sim.play_game(game.start, list(game.moves))
        recorder = _record(sim, Recorder(game.variant))
        outcome = compare(game, recorder.record, len(recorder.flags))
        assert outcome.first_wrong is None and outcome.flags == 0, (game.source, outcome)
        caught += sum(1 for r in recorder.record if r.alternatives) + int(outcome.exact)
    assert caught > 0


def test_four_hidden_plies_are_recorded_all(shared_data: Path) -> None:
    game = shared_games(shared_data, "russian", 1)[0]
    sim = Simulator(game.variant, Noise(), seed=1)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[:6]:
        position = sim.play(position, move)
    for move in game.moves[6:10]:
        position = position.play(move)
        sim.hidden(tops_of(position), 8)
    sim.settle(tops_of(position), 20)
    recorder = _record(sim, Recorder(game.variant))
    assert recorder.ply == 10 and recorder.position == position
    assert [r.number for r in recorder.record[6:]] == [7, 8, 9, 10]
    assert compare(game, recorder.record, 0).first_wrong in (None, 11)


def test_an_unchanged_picture_is_no_move() -> None:
    variant = find_variant("international")
    sim = Simulator(variant, Noise(square_error_rate=0.05, glitch_rate=1.0), seed=5)
    for _ in range(10):
        sim.settle(tops_of(Position.initial(variant)), 20)
    recorder = _record(sim, Recorder(variant))
    assert recorder.messages == []


@pytest.mark.parametrize("route", ["16x32x14x3", "16x38x20x3"])
def test_capture_routes_sharing_their_ends_are_written_in_full(route: str) -> None:
    """Two legal captures from 16 to 3 take different pieces: the scoresheet names the
    landing squares (I 9.3)."""
    start = Position.from_fen("international", "W:WK16,40:B9,11,21,25,26,28,29")
    move = start.parse_move(route)
    sim = Simulator(start.variant, REAL_LIFE, seed=2)
    sim.settle(tops_of(start))
    sim.play(start, move)
    recorder = _record(sim, Recorder(start.variant, start=start))
    assert [e.notation for e in recorder.events if isinstance(e, MoveRecorded)] == [route]


def test_bad_frames_are_dropped_and_recording_goes_on() -> None:
    variant = find_variant("international")
    start = Position.initial(variant)
    after = start.push_text("32-28")
    sim = Simulator(variant, Noise(), seed=3)
    sim.settle(tops_of(start))
    sim.frames.append(Observation(sim.time, ()))  # board found but no squares
    nan = SquareReading((math.nan,) * 5)
    sim.frames.append(Observation(sim.time, (nan,) * 50))
    sim.play(start, start.parse_move("32-28"))
    recorder = _record(sim, Recorder(variant))
    assert recorder.position == after and recorder.ply == 1


def test_threefold_repetition_is_announced() -> None:
    start = Position.from_fen("international", "W:WK50:BK1")
    sim = Simulator(start.variant, Noise(), seed=4)
    sim.settle(tops_of(start))
    position = start
    for text in ["50-45", "1-6", "45-50", "6-1"] * 2:
        position = sim.play(position, position.parse_move(text))
    recorder = _record(sim, Recorder(start.variant, start=start))
    draws = [e for e in recorder.events if isinstance(e, DrawNoticed)]
    assert draws and draws[0].article.startswith("I 6")
    assert all(e.ply <= recorder.ply for e in draws)


def test_arbiter_takes_back_and_corrects(shared_data: Path) -> None:
    game = shared_games(shared_data, "international", 1)[0]
    sim = Simulator(game.variant, Noise(), seed=6)
    sim.play_game(game.start, list(game.moves[:8]))
    recorder = _record(sim, Recorder(game.variant, table_id="t1", game_id="g1"))
    assert recorder.ply == 8
    (msg,) = recorder.take_back(6)
    assert isinstance(msg.event, TakenBack) and recorder.ply == 6
    assert recorder.position == recorder.record[-1].after
    alternative = recorder.record[4].before.legal_moves()
    other = next(m for m in alternative if m != game.moves[4])
    recorder.correct(5, recorder.record[4].before.move_name(other))
    assert recorder.record[4].move == other and recorder.ply >= 5
    with pytest.raises(ValueError, match="ply 99"):
        recorder.take_back(99)
    seqs = [m.seq for m in recorder.messages]
    assert seqs == list(range(1, len(seqs) + 1))


def test_config_is_a_frozen_value_with_units() -> None:
    config = RecorderConfig()
    with pytest.raises(AttributeError):
        config.stable_frames = 1  # type: ignore[misc]
    assert all(
        name.endswith(("_frames", "_seconds", "_fraction", "_px", "_nats", "_plies", "_squares"))
        or name == "probability_floor"
        for name in RecorderConfig.__dataclass_fields__
    )


def test_reading_ignores_hidden_squares() -> None:
    variant = find_variant("english")
    start = Position.initial(variant)
    after = start.push_text("11-15")
    hidden = SquareReading.certain(Top.WHITE_KING)
    frames = [
        Observation(
            t / 10,
            tuple(
                SquareReading(hidden.probs, occluded=1.0)
                if sq == 30
                else SquareReading.certain(Top.of(after.piece_at(sq)))
                for sq in range(32)
            ),
        )
        for t in range(8)
    ]
    recorder = Recorder(variant)
    for f in frames:
        recorder.feed(f)
    assert recorder.position == after

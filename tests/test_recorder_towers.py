"""Column draughts: the recorder follows towers from the top view, uses heights to tell
apart captures that look the same from above, and asks the arbiter when nothing can
(column-draughts digest §5.5)."""

from __future__ import annotations

import pytest

from bench.observation_sim import Noise, Simulator, heights_of, tops_of
from rules.events import IrregularityKind, MoveRecorded
from rules.pdn import read_games_text
from rules.position import Position
from rules.recorder import Recorder
from rules.variants import find_variant
from tests.test_columns import BASHNI_GAME, LASCA_GAME, moves_of

NOISY = Noise(square_error_rate=0.01, glitch_rate=0.2, edge_hand_rate=0.2, peek_rate=0.3)


def _record(sim: Simulator, recorder: Recorder) -> Recorder:
    for frame in sim.frames:
        recorder.feed(frame)
    return recorder


@pytest.mark.parametrize(("variant", "score"), [("bashni", BASHNI_GAME), ("lasca", LASCA_GAME)])
@pytest.mark.parametrize("height_sigma", [None, 0.4])
def test_the_codes_sample_games_are_recorded_exactly(
    variant: str, score: str, height_sigma: float | None
) -> None:
    v = find_variant(variant)
    position = Position.initial(v)
    moves = []
    for text in moves_of(score):
        moves.append(position.parse_move(text))
        position = position.play(moves[-1])
    noise = Noise(square_error_rate=0.01, glitch_rate=0.2, peek_rate=0.3, height_sigma=height_sigma)
    sim = Simulator(v, noise, seed=7)
    sim.play_game(Position.initial(v), moves)
    recorder = _record(sim, Recorder(v))
    assert [r.move for r in recorder.record] == moves
    assert recorder.position == position  # every hidden piece of every tower
    assert recorder.flags == []
    (scoresheet,) = read_games_text(recorder.scoresheet())
    assert scoresheet.moves == moves and not scoresheet.errors


def _play_from(fen: str, variant: str, route: str, noise: Noise) -> tuple[Recorder, str]:
    start = Position.from_fen(variant, fen)
    move = start.parse_move(route)
    sim = Simulator(start.variant, noise, seed=8)
    sim.settle(tops_of(start), heights=heights_of(start))
    after = sim.play(start, move)
    sim.settle(tops_of(after), 20, heights_of(after))
    recorder = _record(sim, Recorder(start.variant, start=start))
    return recorder, start.move_name(move)


@pytest.mark.parametrize("route", ["g1:c5:f8", "g1:e3:c1:a3:f8"])
def test_heights_tell_apart_captures_that_look_the_same_from_above(route: str) -> None:
    fen = "W:Wg1(Wb):Be7(bbw),b2(bb),d2(bb),f2(bbb)"
    recorder, name = _play_from(fen, "bashni", route, Noise(height_sigma=0.4))
    (event,) = [e for e in recorder.events if isinstance(e, MoveRecorded)]
    assert (event.notation, event.alternatives) == (name, ())


def test_without_heights_a_look_alike_capture_is_recorded_and_the_arbiter_asked() -> None:
    fen = "W:Wg1(Wb):Be7(bbw),b2(bb),d2(bb),f2(bbb)"
    recorder, _name = _play_from(fen, "bashni", "g1:e3:c1:a3:f8", Noise())
    (event,) = [e for e in recorder.events if isinstance(e, MoveRecorded)]
    assert sorted([event.notation, *event.alternatives]) == ["g1:c5:f8", "g1:e3:c1:a3:f8"]
    # the arbiter says which it was; the record follows
    recorder.correct(1, "g1:e3:c1:a3:f8")
    assert recorder.position == Position.from_fen("bashni", fen).push_text("g1:e3:c1:a3:f8")


def test_a_loop_capture_that_only_the_order_of_prisoners_tells_asks_the_arbiter() -> None:
    fen = "W:WKc1:BKb4,d4(bbb),b2,Kd2"
    start = Position.from_fen("bashni", fen)
    route = start.move_name(start.legal_moves()[0])
    recorder, _name = _play_from(fen, "bashni", route, Noise(height_sigma=0.3))
    (event,) = [e for e in recorder.events if isinstance(e, MoveRecorded)]
    assert len(event.alternatives) == 1


# A white man captures through the last row, is crowned there and goes on to f6 (bashni
# crowns mid-capture), on top of three black prisoners.
NEW_KING_ROUTE = "d4:b6:d8:f6"


def test_a_new_king_taken_at_once_leaves_no_uncrowned_man_behind() -> None:
    # Seen from straight above, the king's stripe reads weakly (every frame leans to man),
    # so nothing settles the crown before Black takes the king. That leaves f6's black
    # prisoner on top: a man, but of the other side, and no evidence about the crown.
    start = Position.from_fen("bashni", "W:Wd4,a1:Bc5,c7,e7,g7,h8")
    moves = [start.parse_move(NEW_KING_ROUTE)]
    moves.append(start.play(moves[0]).parse_move("g7:e5"))
    sim = Simulator(start.variant, Noise(overhead_kings=True), seed=9)
    sim.play_game(start, moves)
    recorder = _record(sim, Recorder(start.variant, start=start))
    assert [r.move for r in recorder.record] == moves
    assert recorder.flags == []


def test_a_new_king_left_a_man_is_flagged_when_the_opponent_moves_elsewhere() -> None:
    start = Position.from_fen("bashni", "W:Wd4,a1:Bc5,c7,e7,h6")
    first = start.parse_move(NEW_KING_ROUTE)
    reply = start.play(first).parse_move("h6-g5")
    sim = Simulator(start.variant, Noise(), seed=9)
    sim.settle(tops_of(start), heights=heights_of(start))
    position = sim.play(start, first, crown=False)
    position = sim.play(position, reply)
    sim.settle(sim.look(position), 30, heights_of(position))
    recorder = _record(sim, Recorder(start.variant, start=start))
    assert [r.move for r in recorder.record] == [first, reply]
    assert [(f.kind, f.ply) for f in recorder.flags] == [(IrregularityKind.NOT_CROWNED, 1)]


def test_two_plies_unseen_whose_captures_free_prisoners_are_caught_up() -> None:
    """Bashni under the e2e's ``hard`` condition (seed 88, plies 29-30): the board was
    lost while White took the tops of f4 and f6, and the hand playing Black's reply came
    before the picture settled. Taking f4's black top shows the white king under it
    (liberation, column-draughts digest §1.6.3b), so White's colour appears on two
    squares after one White ply; the catch-up took that for impossible and the two
    plies waited 12 s, until a later ply was seen."""
    start = Position.from_fen(
        "bashni", "W:Wa3,e3,b2(www),d2,f2,e1,g1:Bb8,f8,h8,f6(bbbb),h6,a5,c5(bw),f4(bW),h2(bw)"
    )
    moves = [start.parse_move("e3:e7")]
    moves.append(start.play(moves[0]).parse_move("f8:d6"))
    after = start.play(moves[0]).play(moves[1])
    sim = Simulator(start.variant, Noise(), seed=9)
    sim.settle(tops_of(start), 20, heights_of(start))
    sim.hidden(tops_of(start), 15)
    sim.settle(tops_of(after), 30, heights_of(after))
    recorder = _record(sim, Recorder(start.variant, start=start))
    assert [r.move for r in recorder.record] == moves
    assert recorder.position == after
    assert recorder.flags == []

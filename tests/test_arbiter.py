"""Irregularities injected into real games are flagged once, with the right kind, ply and
article, and the recorder goes on from the position on the board (I 5.4, 5.7; S1 §9)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from bench.observation_sim import Noise, RealGame, Simulator, Tops, shared_games, tops_of
from rules.arbiter import _cut, _plain_moves, article
from rules.events import (
    IrregularityCorrected,
    IrregularityFlagged,
    IrregularityKind,
    Resynchronised,
)
from rules.move import Move
from rules.observation import Top
from rules.pdn import read_games_text
from rules.position import Position
from rules.recorder import Recorder, RecorderConfig
from rules.variants import find_variant
from tests.irregular_boards import STAND_FRAMES, three_white_men_moved_at_once

K = IrregularityKind
NOISE = Noise(square_error_rate=0.01, glitch_rate=0.1, edge_hand_rate=0.1, peek_rate=0.3)


@dataclass(frozen=True)
class Injection:
    """Where in a game the irregularity goes, and the board it leaves."""

    ply: int
    """Plies of the real game played before it."""
    board: Tops
    after: Position
    """The position on the board afterwards (whose turn included)."""


Finder = Callable[[RealGame], Injection | None]


def _positions(game: RealGame) -> list[tuple[int, Position, Move]]:
    out, position = [], game.start
    for k, move in enumerate(game.moves):
        out.append((k, position, move))
        position = position.play(move)
    return out


def _board(after: Position, changes: dict[int, Top]) -> tuple[Tops, Position]:
    """``after`` with some squares changed: the injected board and its position."""
    board = list(tops_of(after))
    stacks = dict(after.stacks())
    for sq, top in changes.items():
        board[sq] = top
        piece = top.piece
        if piece is None:
            stacks.pop(sq, None)
        else:
            stacks[sq] = (piece,)
    return tuple(board), Position.from_stacks(after.variant, stacks, after.turn)


def _captured_piece_left(game: RealGame) -> Injection | None:
    for k, p, m in _positions(game):
        if m.captures:
            sq = m.captures[0]
            return Injection(k, *_board(p.play(m), {sq: Top.of(p.piece_at(sq))}))
    return None


def _wrong_piece_removed(game: RealGame) -> Injection | None:
    for k, p, m in _positions(game):
        if m.captures:
            after = p.play(m)
            other = next(sq for sq, st in after.stacks() if st[0].color is after.turn)
            sq = m.captures[0]
            return Injection(k, *_board(after, {sq: Top.of(p.piece_at(sq)), other: Top.EMPTY}))
    return None


def _capture_not_taken(game: RealGame) -> Injection | None:
    for k, p, m in _positions(game):
        if m.captures and (plain := _plain_moves(p)):
            return Injection(k, tops_of(p.play(plain[0])), p.play(plain[0]))
    return None


def _fewer_captured(game: RealGame) -> Injection | None:
    for k, p, m in _positions(game):
        if len(m.captures) >= 2:
            short = _cut(p, m, 1)
            return Injection(k, tops_of(p.play(short)), p.play(short))
    return None


def _illegal_move(game: RealGame) -> Injection | None:
    """A man steps backward onto an empty square."""
    g = game.variant.geometry
    for k, p, _m in _positions(game):
        back = 1 if p.turn.name == "WHITE" else -1
        for sq, stack in p.stacks():
            if stack[0].color is not p.turn or stack[0].king:
                continue
            r, c = g.rowcol(sq)
            for dc in (-1, 1):
                to = g.square_at(r + back, c + dc)
                if to is not None and p.piece_at(to) is None:
                    board = list(tops_of(p))
                    board[to], board[sq] = board[sq], Top.EMPTY
                    stacks = dict(p.stacks())
                    stacks[to] = stacks.pop(sq)
                    return Injection(
                        k, tuple(board), Position.from_stacks(p.variant, stacks, p.turn.other)
                    )
        if k > 30:
            break
    return None


def _out_of_turn(game: RealGame) -> Injection | None:
    for k, p, _m in _positions(game)[4:]:
        other = Position(p.variant, p.white, p.black, p.kings, p.turn.other, p.below)
        moves = [m for m in other.legal_moves() if not m.captures]
        if moves:
            after = other.play(moves[0])
            return Injection(k, tops_of(after), after)
    return None


def _pieces_displaced(game: RealGame) -> Injection | None:
    """A white and a black man change places (knocked and put back wrongly, S1 §9.3)."""
    for k, p, _m in _positions(game)[6:]:
        white = [sq for sq, st in p.stacks() if st[0].color.name == "WHITE" and not st[0].king]
        black = [sq for sq, st in p.stacks() if st[0].color.name == "BLACK" and not st[0].king]
        if white and black:
            stacks = dict(p.stacks())
            stacks[white[0]], stacks[black[0]] = stacks[black[0]], stacks[white[0]]
            after = Position.from_stacks(p.variant, stacks, p.turn)
            return Injection(k, tops_of(after), after)
    return None


def _pieces_removed(game: RealGame) -> Injection | None:
    for k, p, _m in _positions(game)[6:]:
        stacks = dict(p.stacks())
        victim = next(sq for sq, st in stacks.items() if st[0].color is p.turn.other)
        del stacks[victim]
        after = Position.from_stacks(p.variant, stacks, p.turn)
        return Injection(k, tops_of(after), after)
    return None


def _wrong_setup(game: RealGame) -> Injection | None:
    p = game.start
    stacks = dict(p.stacks())
    first = next(iter(stacks))
    del stacks[first]
    after = Position.from_stacks(p.variant, stacks, p.turn)
    return Injection(0, tops_of(after), after)


INJECTIONS: list[tuple[IrregularityKind, Finder, bool]] = [
    # kind, where, whether it is a move (so the ply flagged is the next one)
    (K.CAPTURED_PIECE_LEFT, _captured_piece_left, True),
    (K.WRONG_PIECE_REMOVED, _wrong_piece_removed, True),
    (K.CAPTURE_NOT_TAKEN, _capture_not_taken, True),
    (K.FEWER_CAPTURED, _fewer_captured, True),
    (K.ILLEGAL_MOVE, _illegal_move, True),
    (K.OUT_OF_TURN, _out_of_turn, True),
    (K.PIECES_DISPLACED, _pieces_displaced, False),
    (K.PIECES_REMOVED, _pieces_removed, False),
    (K.WRONG_SETUP, _wrong_setup, False),
]


def _game(shared_data: Path, variant: str, finder: Finder) -> tuple[RealGame, Injection]:
    for game in shared_games(shared_data, variant, 12):
        injection = finder(game)
        if injection is not None:
            return game, injection
    pytest.skip(f"no {variant} game in the shared data fits this irregularity")


def _run(sim: Simulator, variant: str) -> Recorder:
    recorder = Recorder(find_variant(variant))
    for frame in sim.frames:
        recorder.feed(frame)
    return recorder


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
@pytest.mark.parametrize(
    ("kind", "finder", "is_move"), INJECTIONS, ids=[k.value for k, *_ in INJECTIONS]
)
def test_injected_irregularity_is_flagged_once_and_play_goes_on(
    shared_data: Path, variant: str, kind: IrregularityKind, finder: Finder, is_move: bool
) -> None:
    game, inj = _game(shared_data, variant, finder)
    sim = Simulator(game.variant, NOISE, seed=inj.ply)
    position = game.start
    sim.settle(tops_of(position), 0 if kind is K.WRONG_SETUP else None)
    for move in game.moves[: inj.ply]:
        position = sim.play(position, move)
    sim.show(inj.board, STAND_FRAMES)
    # the opponent plays on (accepting the irregularity, I 5.7): two more legal plies
    after = inj.after
    for _ in range(2):
        after = sim.play(after, after.legal_moves()[0])
    sim.settle(tops_of(after), 30)

    recorder = _run(sim, variant)

    flags = [e for e in recorder.events if isinstance(e, IrregularityFlagged)]
    assert [(f.kind, f.ply) for f in flags] == [(kind, inj.ply + 1 if is_move else inj.ply)]
    assert flags[0].article == article(kind, game.variant)
    assert any(isinstance(e, Resynchronised) for e in recorder.events)
    assert recorder.position == after
    assert [r.move for r in recorder.record[: inj.ply]] == list(game.moves[: inj.ply])


def _promotion_game(shared_data: Path, variant: str) -> tuple[RealGame, int]:
    """A real game with a man crowned, and the index of that move."""
    for game in shared_games(shared_data, variant, 12):
        k = next((k for k, _p, m in _positions(game) if m.promotes), None)
        if k is not None:
            return game, k
    pytest.skip(f"no {variant} game in the shared data crowns a man")


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_crowning_a_moment_late_is_no_irregularity(shared_data: Path, variant: str) -> None:
    game, _k = _promotion_game(shared_data, variant)
    sim = Simulator(game.variant, Noise(late_crowning_rate=1.0, square_error_rate=0.01), seed=1)
    sim.play_game(game.start, list(game.moves))
    recorder = _run(sim, variant)
    assert recorder.flags == []
    assert [r.move for r in recorder.record] == list(game.moves)


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_a_king_the_camera_sees_only_from_above_is_no_uncrowned_man(
    shared_data: Path, variant: str
) -> None:
    # Straight above, a king of two stacked discs looks like a man: every frame leans
    # weakly to man. Summed over a settled board that lean looks sure; it is no evidence
    # that the second disc was never put on.
    game, k = _promotion_game(shared_data, variant)
    noise = replace(NOISE, overhead_kings=True, late_crowning_rate=0.0)
    sim = Simulator(game.variant, noise, seed=4)
    sim.play_game(game.start, list(game.moves[: k + 4]))
    recorder = _run(sim, variant)
    assert recorder.flags == []
    assert [r.move for r in recorder.record] == list(game.moves[: k + 4])


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_man_left_uncrowned_is_flagged_when_the_opponent_moves(
    shared_data: Path, variant: str
) -> None:
    game, k = _promotion_game(shared_data, variant)
    sim = Simulator(game.variant, NOISE, seed=2)
    position = game.start
    sim.settle(tops_of(position))
    for i, move in enumerate(game.moves[: k + 4]):
        position = sim.play(position, move, crown=i != k)
    sim.settle(sim.look(position), 30)
    recorder = _run(sim, variant)
    assert [(f.kind, f.ply) for f in recorder.flags] == [(K.NOT_CROWNED, k + 1)]
    assert [r.move for r in recorder.record] == list(game.moves[: k + 4])


@pytest.mark.parametrize("seen_again", [False, True], ids=["disc_off", "disc_seen_again"])
@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_king_losing_its_crown_is_flagged_and_stays_a_king(
    shared_data: Path, variant: str, seen_again: bool
) -> None:
    """A king whose second disc does not show (taken off, or hidden by a hand's edge) is
    flagged and stays a king (I 3.7). When he reads as a king again, wherever he has
    moved since, the flag stays, corrected (I 5.7)."""
    game, k = _promotion_game(shared_data, variant)
    sim = Simulator(game.variant, NOISE, seed=3)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[: k + 2]:
        position = sim.play(position, move)
    king = game.moves[k].path[-1]
    if position.piece_at(king) is None or not position.kings & game.variant.geometry.bits[king]:
        pytest.skip("the new king moved or was taken at once")
    sim.uncrowned.add(king)
    sim.show(sim.look(position), STAND_FRAMES)
    for move in game.moves[k + 2 : k + 4]:
        position = sim.play(position, move)
    if seen_again:
        sim.uncrowned.clear()  # the disc seen again
    for move in game.moves[k + 4 : k + 6]:
        position = sim.play(position, move)
    sim.settle(sim.look(position), 30)
    recorder = _run(sim, variant)

    assert [(f.kind, f.ply) for f in recorder.flags] == [(K.KING_UNCROWNED, k + 2)]
    assert [r.move for r in recorder.record] == list(game.moves[: k + 6])
    corrected = [
        (e.kind, e.ply, e.squares) for e in recorder.events if isinstance(e, IrregularityCorrected)
    ]
    flagged = (K.KING_UNCROWNED, k + 2, recorder.flags[0].squares)
    assert corrected == ([flagged] if seen_again else [])


@pytest.mark.parametrize("variant", ["international", "russian", "english", "italian"])
def test_board_turned_half_a_turn_is_flagged_and_the_game_still_recorded(
    shared_data: Path, variant: str
) -> None:
    game = shared_games(shared_data, variant, 1)[0]
    sim = Simulator(game.variant, NOISE, seed=4, rotated=True)
    sim.settle(tops_of(game.start), STAND_FRAMES)
    sim.play_game(game.start, list(game.moves[:20]))
    recorder = _run(sim, variant)
    assert [(f.kind, f.ply) for f in recorder.flags] == [(K.BOARD_ROTATED, 0)]
    assert [r.move for r in recorder.record] == list(game.moves[:20])


def _after_injection(shared_data: Path, finder: Finder, *, restore: bool) -> Recorder:
    game, inj = _game(shared_data, "international", finder)
    sim = Simulator(game.variant, NOISE, seed=11)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[: inj.ply]:
        position = sim.play(position, move)
    sim.show(inj.board, STAND_FRAMES)
    if restore:  # the opponent asks for the correction and the board is put back (I 5.4)
        sim.show(tops_of(position), STAND_FRAMES)
    else:
        after = inj.after
        for _ in range(2):
            after = sim.play(after, after.legal_moves()[0])
        sim.settle(tops_of(after), 30)
    return _run(sim, "international")


def test_a_corrected_irregularity_returns_to_the_position_before_it(shared_data: Path) -> None:
    recorder = _after_injection(shared_data, _capture_not_taken, restore=True)
    (flag,) = recorder.flags
    assert recorder.ply == flag.ply - 1
    resyncs = [e for e in recorder.events if isinstance(e, Resynchronised)]
    assert resyncs[-1].reason == "irregularity corrected" and resyncs[-1].undone == 1
    assert recorder.position == recorder.record[-1].after


def test_scoresheet_continues_after_an_irregularity_with_a_fen_and_the_article(
    shared_data: Path,
) -> None:
    recorder = _after_injection(shared_data, _capture_not_taken, restore=False)
    (flag,) = recorder.flags
    (confirmed,) = recorder.confirm(flag.ply)
    assert confirmed.event.type == "confirmed"
    games = read_games_text(recorder.scoresheet({"Event": "test"}))
    assert len(games) == 2 and not any(g.errors for g in games)
    first, second = games
    assert first.ply == flag.ply - 1 and second.ply == 2
    assert second.start == recorder.record[flag.ply - 1].after
    assert flag.article in first.comments[first.ply]
    assert "[%time" in first.comments[1]


def _three_men_moved_at_once() -> tuple[Simulator, Position, Position]:
    """The start position, then three white men moved at once, left standing: the
    simulator, the start and the board (Black to move)."""
    start, board = three_white_men_moved_at_once()
    sim = Simulator(board.variant, NOISE, seed=12)
    sim.settle(tops_of(start))
    sim.show(tops_of(board), STAND_FRAMES)
    return sim, start, board


def test_a_board_no_hypothesis_explains_is_reported_and_followed() -> None:
    """Three white men moved at once: no named irregularity fits; the recorder says so,
    takes White as the mover and follows the board (Black to move)."""
    sim, _, board = _three_men_moved_at_once()
    after = sim.play(board, board.parse_move("19-23"))
    sim.settle(tops_of(after), 20)
    recorder = _run(sim, "international")
    assert recorder.flags == []
    assert [type(e).__name__ for e in recorder.events] == [
        "PositionUnexplained",
        "Resynchronised",
        "MoveRecorded",
    ]
    assert recorder.position == after
    assert [r.notation for r in recorder.record] == ["?", "19-23"]


def test_a_board_no_hypothesis_explains_put_right_unseen_is_healed() -> None:
    """The same three men moved at once, then, while the camera sees nothing, put back
    and 32-28 played: the record goes back to before the unexplained board and takes the
    move."""
    sim, start, board = _three_men_moved_at_once()
    sim.hidden(tops_of(board))
    after = start.push_text("32-28")
    sim.show(tops_of(after), 20)
    recorder = _run(sim, "international")
    assert [type(e).__name__ for e in recorder.events] == [
        "PositionUnexplained",
        "Resynchronised",
        "Resynchronised",
        "MoveRecorded",
    ]
    assert [r.notation for r in recorder.record] == ["32-28"]
    assert recorder.position == after
    healing = recorder.events[2]
    assert isinstance(healing, Resynchronised) and healing.undone == 1


def test_scoresheet_after_pieces_removed_between_moves(shared_data: Path) -> None:
    recorder = _after_injection(shared_data, _pieces_removed, restore=False)
    (flag,) = recorder.flags
    first, second = read_games_text(recorder.scoresheet())
    assert first.ply == flag.ply and second.ply == 2
    assert second.start == recorder.record[flag.ply].before
    assert "resynchronised" in second.comments[0]
    assert flag.article in first.comments[first.ply]


@pytest.mark.parametrize("variant", ["international", "russian"])
def test_a_move_taken_back_after_release_is_flagged_and_leaves_the_record(
    shared_data: Path, variant: str
) -> None:
    game = shared_games(shared_data, variant, 1)[0]
    k = 8
    sim = Simulator(game.variant, NOISE, seed=13)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[: k - 1]:
        position = sim.play(position, move)
    sim.play(position, game.moves[k - 1])
    sim.show(tops_of(position), STAND_FRAMES)  # taken back (I 5.4.4)
    instead = next(m for m in position.legal_moves() if m != game.moves[k - 1])
    after = sim.play(position, instead)
    sim.settle(tops_of(after), 20)
    recorder = _run(sim, variant)
    assert [(f.kind, f.ply) for f in recorder.flags] == [(K.MOVE_TAKEN_BACK, k)]
    assert [r.move for r in recorder.record] == [*game.moves[: k - 1], instead]
    (read,) = read_games_text(recorder.scoresheet())
    assert read.moves == [*game.moves[: k - 1], instead]


def test_a_move_taken_back_and_left_so_is_flagged(shared_data: Path) -> None:
    game = shared_games(shared_data, "international", 1)[0]
    sim = Simulator(game.variant, Noise(square_error_rate=0.01), seed=14)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[:5]:
        position = sim.play(position, move)
    sim.play(position, game.moves[5])
    sim.show(tops_of(position), STAND_FRAMES)
    recorder = _run(sim, "international")
    assert [(f.kind, f.ply) for f in recorder.flags] == [(K.MOVE_TAKEN_BACK, 6)]
    assert recorder.ply == 5 and recorder.position == position


def _never_played(
    shared_data: Path, variant: str, then: Callable[[Position], Tops] | None = None
) -> tuple[Recorder, list[Move]]:
    """The first eight plies or more of a real game, then a ply that was never played (a
    still hand the gate took for pieces, read as a man moved) standing long enough to be
    recorded, the board ``then`` makes of it left standing past the I 5.5 grace if given,
    then the game's next two plies played unseen (the picture had no time to be flagged
    between them). The recorder and the plies played."""
    game = shared_games(shared_data, variant, 1)[0]
    sim = Simulator(game.variant, Noise(square_error_rate=0.01), seed=15)
    position = game.start
    sim.settle(tops_of(position))
    k = 0
    while k < 8 or len(position.legal_moves()) < 2:  # a ply with a move not played
        position = sim.play(position, game.moves[k])
        k += 1
    phantom = position.play(next(m for m in position.legal_moves() if m != game.moves[k]))
    sim.show(tops_of(phantom), 20)
    if then is not None:
        sim.show(then(phantom), STAND_FRAMES)
    after = position.play(game.moves[k]).play(game.moves[k + 1])
    sim.hidden(tops_of(after))
    sim.settle(tops_of(after), 30)
    return _run(sim, variant), list(game.moves[: k + 2])


@pytest.mark.parametrize("variant", ["international", "english"])
def test_a_recorded_move_never_played_is_replaced_by_the_plies_the_board_shows(
    shared_data: Path, variant: str
) -> None:
    """english under the e2e's ponder condition (seed 112): 29-25 was recorded from a still
    hand, never played; 17-13 and 4-8 followed before the picture could be flagged, and
    the game was resynchronised with ply 12 wrong. The record now takes the two plies in
    its place and the arbiter is told."""
    recorder, played = _never_played(shared_data, variant)
    assert [r.move for r in recorder.record] == played
    (flag,) = recorder.flags
    assert (flag.kind, flag.ply) == (K.MOVE_TAKEN_BACK, len(played) - 1)
    names = " ".join(r.notation for r in recorder.record[-2:])
    assert f"never played, and {names} played instead" in flag.evidence


def _a_man_removed(position: Position) -> Tops:
    """``position``'s board with one man of the side that just moved taken off."""
    victim = next(sq for sq, st in position.stacks() if st[0].color is position.turn.other)
    return tuple(Top.EMPTY if sq == victim else t for sq, t in enumerate(tops_of(position)))


def test_a_move_never_played_is_replaced_though_an_irregularity_was_flagged_after_it(
    shared_data: Path,
) -> None:
    """english under ponder (seed 112), ply 18: after 32-27, never played, the man under
    the hand read as removed and was flagged; then the real plies came, which nothing from
    the flagged board explains. The record goes back past both."""
    recorder, played = _never_played(shared_data, "international", then=_a_man_removed)
    assert [r.move for r in recorder.record] == played
    assert [(f.kind, f.ply) for f in recorder.flags] == [
        (K.PIECES_REMOVED, len(played) - 1),
        (K.MOVE_TAKEN_BACK, len(played) - 1),
    ]
    healing = [e for e in recorder.events if isinstance(e, Resynchronised) and e.undone]
    assert [e.undone for e in healing] == [1]


# a hand held still over a man 5 s past the recorder's patience with a move in progress
HELD_FRAMES = round(RecorderConfig().lifted_wait_seconds * 10) + 50


def _pondered(
    shared_data: Path, variant: str, unseen: int, frames: int
) -> tuple[Recorder, RealGame, int, Position]:
    """A player thinks with his hand held still over the man he will move, for
    ``frames`` frames: the camera reads the man's square empty. He then plays (with
    ``unseen`` = 2 the camera misses the reply as well), and two more plies follow."""
    game = shared_games(shared_data, variant, 1)[0]
    k = 6
    sim = Simulator(game.variant, NOISE, seed=15)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[:k]:
        position = sim.play(position, move)
    pondered = game.moves[k].path[0]
    hidden = list(tops_of(position))
    hidden[pondered] = Top.EMPTY
    sim.hand(tops_of(position))
    sim.settle(tuple(hidden), frames)
    for move in game.moves[k : k + unseen]:
        sim.hidden(tops_of(position))
        position = position.play(move)
    sim.show(tops_of(position))
    for move in game.moves[k + unseen : k + 3]:
        position = sim.play(position, move)
    sim.settle(tops_of(position), 20)
    return _run(sim, variant), game, k, position


def test_a_piece_a_still_hand_hides_is_a_move_in_progress(shared_data: Path) -> None:
    """The man's square read empty for 4 s while nothing else changed: the player may be
    holding him, and a move is made only when he lets go (I 3.10, 3.12). No flag."""
    recorder, game, k, position = _pondered(shared_data, "international", 1, STAND_FRAMES)
    assert recorder.flags == []
    assert [r.move for r in recorder.record] == list(game.moves[: k + 3])
    assert recorder.position == position


@pytest.mark.parametrize(("variant", "unseen"), [("international", 1), ("english", 2)])
def test_a_piece_a_still_hand_hid_long_enough_to_be_flagged_is_recorded_as_played(
    shared_data: Path, variant: str, unseen: int
) -> None:
    """The man's square read empty past the recorder's patience: he is flagged
    as removed. When the player then plays, nothing from the flagged position explains
    the board, the legal plies from where the game stood do, so the record goes back and
    takes them; the flag stays for the arbiter."""
    recorder, game, k, position = _pondered(shared_data, variant, unseen, HELD_FRAMES)

    (flag,) = recorder.flags
    assert flag.ply in (k, k + 1)
    resyncs = [e for e in recorder.events if isinstance(e, Resynchronised)]
    assert resyncs[-1].reason == "irregularity undone by the moves that followed"
    assert resyncs[-1].undone == 1
    assert [r.move for r in recorder.record] == list(game.moves[: k + 3])
    assert recorder.position == position
    (read,) = read_games_text(recorder.scoresheet())
    assert read.moves == list(game.moves[: k + 3])


def test_a_captured_piece_taken_off_a_move_late_puts_the_record_right(
    shared_data: Path,
) -> None:
    """A captured man is left on the board (flagged), the opponent replies, and then the
    man is taken off: the board shows the capture and the reply as the rules have them,
    and the record goes back to them (the reply was recorded from the flagged position)."""
    game, inj = _game(shared_data, "international", _captured_piece_left)
    capture = game.moves[inj.ply]
    sim = Simulator(game.variant, NOISE, seed=16)
    position = game.start
    sim.settle(tops_of(position))
    for move in game.moves[: inj.ply]:
        position = sim.play(position, move)
    captured = position.play(capture)
    sim.show(inj.board, STAND_FRAMES)
    reply = next(m for m in inj.after.legal_moves() if m in captured.legal_moves())
    sim.play(inj.after, reply)
    after = captured.play(reply)
    sim.show(tops_of(after), 20)

    recorder = _run(sim, "international")

    assert [f.kind for f in recorder.flags] == [K.CAPTURED_PIECE_LEFT]
    assert [r.move for r in recorder.record] == [*game.moves[: inj.ply], capture, reply]
    assert recorder.position == after

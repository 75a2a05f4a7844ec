"""Hand visits tell one irregular ply from two legal plies that leave the same board.

White captures 32x21 over 27. If the hand leaves Black's man on 27 and takes 22 off
instead (wrong piece removed, I 5.4.12), the board is that of 32x21 followed by Black's
22-27. One hand visited the board; two plies need two players' hands.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from rules.events import IrregularityKind
from rules.observation import Observation, SquareReading, Top
from rules.position import Position
from rules.recorder import Recorder

START = Position.from_fen("international", "W:W32,40,45:B27,22,5")
CAPTURED = START.push_text("32x21")  # the capture as it should be
BOTH = CAPTURED.push_text("22-27")  # the capture and Black's reply
JUMPED = 27 - 1  # square 27 (Square indices count from 0)
FPS = 10.0

Segment = tuple[str, Position | None, int, frozenset[int]]
"""(kind, board, frames, squares hidden): ``still`` frames of the board; ``hand`` frames
(a hand over the board: occlusion and motion), reading the board where not hidden;
``arm`` frames with most of the board hidden; ``through`` frames the gate lets through
with a hand still there (a little occlusion and motion); ``lost`` frames with the board
not found; ``gap`` frames dropped (time goes on)."""


_COVER = {"still": (0.0, 0.0), "hand": (0.4, 0.3), "through": (0.02, 0.015), "arm": (0.8, 0.3)}
"""Occlusion and motion of each kind of frame."""


def _readings(position: Position, hidden: frozenset[int]) -> tuple[SquareReading, ...]:
    out = []
    for sq in position.variant.geometry.squares:
        reading = SquareReading.certain(Top.of(position.piece_at(sq)))
        if sq in hidden:
            reading = SquareReading((0.2,) * 5, occluded=1.0)  # type: ignore[arg-type]
        out.append(reading)
    return tuple(out)


def _observations(segments: Iterable[Segment]) -> list[Observation]:
    out: list[Observation] = []
    index = 0
    for kind, board, frames, hidden in segments:
        for _ in range(frames):
            t = index / FPS
            if kind == "lost":
                out.append(Observation(t, (), board_found=False, frame_index=index))
            elif kind in _COVER:
                assert board is not None
                hand = _COVER[kind]
                squares = _readings(board, hidden)
                out.append(
                    Observation(t, squares, occlusion=hand[0], motion=hand[1], frame_index=index)
                )
            index += 1  # a dropped frame ("gap") leaves its index and time unused
    return out


def _still(board: Position, frames: int = 30) -> Segment:
    return ("still", board, frames, frozenset())


def _hand(board: Position, frames: int = 5, hidden: Iterable[int] = ()) -> Segment:
    return ("hand", board, frames, frozenset(hidden))


def _record(segments: Iterable[Segment]) -> Recorder:
    recorder = Recorder(START.variant, start=START)
    for observation in _observations(segments):
        recorder.feed(observation)
    return recorder


def _wrong_piece_removed() -> Position:
    """The board after 32x21 with 27 left on and 22 taken off instead."""
    return Position.from_fen("international", "B:W21,40,45:B27,5")


@pytest.mark.parametrize("let_through", [False, True])
def test_one_hand_visit_is_a_wrong_piece_removed_not_two_plies(let_through: bool) -> None:
    """The hand lands on 21, then takes 22 off: 27 is never seen empty. ``let_through``:
    the gate lets one frame through while the hand is still there (some occlusion and
    motion left, under the gate's limits), as in a rendered pool game."""
    board = _wrong_piece_removed()
    assert board.white == BOTH.white and board.black == BOTH.black  # the same picture
    landed = Position.from_fen("international", "W:W21,40,45:B27,22,5")
    segments = [_still(START), _hand(START, 3), _hand(landed, 3)]
    if let_through:
        segments.append(("through", landed, 1, frozenset({JUMPED})))
    recorder = _record([*segments, _hand(board, 3), _still(board)])
    assert [(f.kind, f.ply) for f in recorder.flags] == [(IrregularityKind.WRONG_PIECE_REMOVED, 1)]
    assert recorder.flags[0].article.startswith("I 5.4.12")
    assert recorder.ply == 1 and recorder.record[0].move is None
    assert recorder.record[0].notation == "32x21"
    assert recorder.position.white == board.white and recorder.position.black == board.black


def test_one_hand_visit_is_weighed_on_a_picture_read_whole() -> None:
    """The hand's last frames, let through by the gate, still hide the two squares the
    visit emptied and a third beside them (e2e pool ``ponder``, seed 716: three squares,
    too many to judge an irregularity on): the two plies fit the squares read, and were
    caught up before the one visit was weighed on a picture read whole."""
    board = _wrong_piece_removed()
    landed = Position.from_fen("international", "W:W21,40,45:B27,22,5")
    hidden = frozenset({32 - 1, 22 - 1, 40 - 1})
    recorder = _record(
        [
            _still(START),
            _hand(START, 3),
            _hand(landed, 3),
            _hand(board, 3),
            ("through", board, 2, hidden),
            _still(board),
        ]
    )
    assert [(f.kind, f.ply) for f in recorder.flags] == [(IrregularityKind.WRONG_PIECE_REMOVED, 1)]
    assert [r.notation for r in recorder.record] == ["32x21"]
    assert recorder.position.white == board.white and recorder.position.black == board.black


def test_two_hand_visits_are_two_legal_plies() -> None:
    """Two hands, a moment apart: the board between them is seen for two frames only
    (too few to count), with the jumped square under the second hand's shadow."""
    recorder = _record(
        [
            _still(START),
            _hand(START, 5),
            ("still", CAPTURED, 2, frozenset({JUMPED})),
            _hand(CAPTURED, 5, hidden={JUMPED}),
            _still(BOTH),
        ]
    )
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21", "22-27"]
    assert recorder.position == BOTH


def test_two_hands_at_once_that_show_the_jumped_square_empty_are_two_plies() -> None:
    """Blitz: the second hand comes before the first has left (one visit), but on the
    way the camera glimpsed 27 empty, as only the legal sequence has it."""
    recorder = _record(
        [
            _still(START),
            _hand(START, 3),
            _hand(CAPTURED, 3, hidden={JUMPED - 1, JUMPED + 1}),
            _hand(BOTH, 3),
            _still(BOTH),
        ]
    )
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21", "22-27"]


@pytest.mark.parametrize("blind", ["gap", "lost"])
def test_frames_not_seen_keep_the_catch_up_legal(blind: str) -> None:
    """Frames dropped (the timestamps jump) or the board lost between the hands: the
    good frames between two visits may have gone unseen, so no visit count is trusted."""
    recorder = _record(
        [
            _still(START),
            _hand(START, 3, hidden={JUMPED}),
            (blind, None, 4, frozenset()),
            _hand(BOTH, 3, hidden={JUMPED}),
            _still(BOTH),
        ]
    )
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21", "22-27"]


def test_the_board_hidden_for_two_plies_is_caught_up() -> None:
    recorder = _record([_still(START), ("lost", None, 15, frozenset()), _still(BOTH)])
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21", "22-27"]


@pytest.mark.parametrize("cover", ["long", "heavy"])
def test_an_arm_over_the_board_for_two_plies_is_no_single_visit(cover: str) -> None:
    """One run of hand frames, but ``long`` (four seconds: longer than a move takes) or
    ``heavy`` (most of the board hidden): several plies may have been played under it."""
    hidden = frozenset({JUMPED})
    if cover == "long":
        under = [_hand(START, 20, hidden), _hand(BOTH, 20, hidden)]
    else:
        under = [("arm", START, 3, hidden), ("arm", BOTH, 3, hidden)]
    recorder = _record([_still(START), *under, _still(BOTH)])
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21", "22-27"]


def test_the_wrong_piece_put_back_at_once_is_no_irregularity() -> None:
    """The hand notices its mistake within the arbiter's patience (I 5.5): the capture
    as it should be is recorded, nothing flagged."""
    board = _wrong_piece_removed()
    recorder = _record(
        [_still(START), _hand(board, 5), _still(board, 8), _hand(CAPTURED, 5), _still(CAPTURED)]
    )
    assert recorder.flags == []
    assert [r.notation for r in recorder.record] == ["32x21"]

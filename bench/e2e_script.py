"""How a game is played over the board, frame by frame, with the truth of every frame.

A :class:`Script` is what a renderer draws and what the benchmark checks against: for
each frame, the stacks on every square, whether a hand is over the board, and how many
plies are complete. Players move the piece, then take the captured pieces off one at a
time, and put the second disc on a new king a moment after the move (I 3.5: the man is a
king at once; the disc is only how the board shows it).

Irregularities are injected here, by editing the boards the script shows (a captured
piece left on the board, a man never crowned, a wrong piece taken off), so that they
reach the recorder exactly as a camera would show them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from rules import Move, Position
from rules.pieces import Piece, Stack

Board = tuple[Stack, ...]
"""The stack (top first) on every playable square, in reading order."""


@dataclass(frozen=True, slots=True)
class Condition:
    """How the game is filmed and played: the renderer's knobs and the players' habits."""

    name: str
    fps: float = 10.0
    still_seconds: float = 1.0
    hand_seconds: float = 0.4
    removal_seconds: float = 0.2
    crown_delay_seconds: float = 0.5
    extra_hands: float = 0.0
    """Chance, per still stretch, of a hand passing over the board with nothing moved."""
    max_tilt_degrees: float = 10.0
    light: float = 1.0
    glare: float = 0.0
    random_styles: bool = True
    ponder_seconds: float = 0.0
    """Rendered chain: how long the mover's hand hovers still over the piece before
    taking it, on every ``ponder_every``-th ply."""
    ponder_every: int = 0
    exposure_swing: float = 0.0
    """Rendered chain: the share by which the camera's exposure swings, up and down over
    ``exposure_period_seconds`` (auto exposure, a hall's lights)."""
    exposure_period_seconds: float = 30.0
    shadow_every_seconds: float = 0.0
    """Rendered chain: a spectator's soft shadow drifts across the board about this often."""
    knock_every: int = 0
    """Rendered chain: on every ``knock_every``-th ply the mover's hand knocks the board
    as it comes in (synth's ``Timing.knock_every``): it moves by a square's third or so and
    turns by up to two degrees."""
    sloppy_mm: float = 0.0
    """Rendered chain: players put each piece down up to this far off its square's centre
    (synth's ``Timing.sloppy_mm``)."""
    pace: float = 1.0
    """Rendered chain: how fast the hands move: synth's phases (coming in, carrying,
    taking each prisoner off, crowning, pressing the clock, leaving) last ``1 / pace``
    times as many frames (a blitz player's hand moves about twice as fast)."""
    adjust_every: int = 0
    """Rendered chain, clean games: on every ``adjust_every``-th ply the mover first
    straightens another of his pieces on its square (synth's ``Timing.adjust_every``);
    the injected games' scripted hands straighten nothing."""


CONDITIONS = {
    "default": Condition("default"),
    "hard": Condition("hard", extra_hands=0.5, max_tilt_degrees=35.0, light=0.45, glare=0.6),
    # A player thinking with his hand over the piece, longer than the hand gate's
    # stale refresh (90 frames) waits.
    "ponder": Condition("ponder", ponder_seconds=12.0, ponder_every=3),
    # A tournament hall: the pondering players under light that drifts and spectators
    # whose shadows pass over the board.
    "hall": Condition(
        "hall",
        ponder_seconds=12.0,
        ponder_every=3,
        exposure_swing=0.15,
        shadow_every_seconds=25.0,
    ),
    # Players who knock the board as they reach for a piece, now and then.
    "knocked": Condition("knocked", knock_every=5),
    # Players who put pieces down anywhere on their squares.
    "sloppy": Condition("sloppy", sloppy_mm=6.0),
    # Blitz: hands twice as fast, the opponent's coming in 0.4 s after the clock is
    # pressed (the least a scripted game, which has no clock to press, can settle in).
    "blitz": Condition("blitz", still_seconds=0.4, pace=2.0),
    # Sloppy players who straighten a piece on their turn now and then ("I adjust").
    "adjust": Condition("adjust", sloppy_mm=6.0, adjust_every=3),
}


@dataclass(frozen=True, slots=True)
class Injection:
    """An irregularity put into the game: ``kind`` as the recorder names it, at ``ply``."""

    kind: str
    ply: int


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """One frame: the board as it stands, a hand over it or not, plies complete."""

    index: int
    time: float
    board: Board
    hand: bool
    plies_done: int


@dataclass
class Script:
    """Frames of one game and, per ply, the time the hand left the board after it."""

    frames: list[FrameTruth] = field(default_factory=list)
    hand_left: dict[int, float] = field(default_factory=dict)

    def add(self, board: Board, *, hand: bool, plies_done: int, fps: float, count: int) -> None:
        for _ in range(count):
            index = len(self.frames)
            self.frames.append(FrameTruth(index, index / fps, board, hand, plies_done))


def board_of(position: Position) -> Board:
    return tuple(position.stack(sq) for sq in position.variant.geometry.squares)


def _with(board: Board, changes: dict[int, Stack]) -> Board:
    return tuple(changes.get(sq, stack) for sq, stack in enumerate(board))


def _uncrowned(piece_stack: Stack) -> Stack:
    top = piece_stack[0]
    return (Piece(top.color, False), *piece_stack[1:])


def _show(board: Board, uncrowned: set[int]) -> Board:
    """The board with the kings on ``uncrowned`` squares shown as men."""
    return _with(board, {sq: _uncrowned(board[sq]) for sq in uncrowned if board[sq]})


def move_steps(before: Position, move: Move, after: Position) -> list[Board]:
    """The boards a hand makes while playing ``move``: the piece lands, then each
    captured piece comes off in turn. A new king still looks like a man (the disc
    comes later). Column draughts move whole towers and keep the captured pieces, so
    there the board goes straight to the result."""
    final = board_of(after)
    if before.variant.towers:
        return [final]
    start, landing = move.path[0], move.path[-1]
    lands = after.stack(landing)
    if move.promotes:
        lands = _uncrowned(lands)
    board = _with(board_of(before), {start: (), landing: lands})
    steps = [board]
    for sq in move.captures:
        board = _with(board, {sq: ()})
        steps.append(board)
    return steps


LAST_STILL_SECONDS = 2.5
"""The least time the last board stands: a game cut at an irregular ply, the opponent
still thinking (the wait for a mistake put right at once, I 5.5, is two seconds)."""


def _frames(seconds: float, fps: float) -> int:
    return max(1, round(seconds * fps))


def play_script(
    start: Position,
    moves: tuple[Move, ...],
    condition: Condition,
    *,
    seed: int = 0,
    injection: Injection | None = None,
) -> Script:
    """The frames of a game played under ``condition``, with ``injection`` applied."""
    rng = random.Random(seed)
    fps = condition.fps
    script = Script()
    position = start
    board = board_of(start)
    script.add(
        board, hand=False, plies_done=0, fps=fps, count=_frames(2 * condition.still_seconds, fps)
    )
    uncrowned: set[int] = set()  # kings the players never crowned (injected)
    add = script.add
    for ply, move in enumerate(moves, start=1):
        after = position.play(move)
        steps = _inject(injection, ply, position, move, after, move_steps(position, move, after))
        uncrowned = {sq for sq in uncrowned if sq != move.path[0] and sq not in move.captures}
        steps = [_show(step, uncrowned) for step in steps]
        hand_frames = _frames(condition.hand_seconds, fps)
        add(board, hand=True, plies_done=ply - 1, fps=fps, count=hand_frames)
        for step in steps:
            add(
                step,
                hand=True,
                plies_done=ply - 1,
                fps=fps,
                count=_frames(condition.removal_seconds, fps),
            )
        board = steps[-1]
        script.hand_left[ply] = len(script.frames) / fps
        landing = move.path[-1]
        if move.promotes and not after.variant.towers:
            if injection is not None and injection.kind == "not_crowned" and injection.ply == ply:
                uncrowned.add(landing)
            else:  # the second disc goes on a moment later
                add(
                    board,
                    hand=False,
                    plies_done=ply,
                    fps=fps,
                    count=_frames(condition.crown_delay_seconds, fps),
                )
                add(board, hand=True, plies_done=ply, fps=fps, count=max(1, hand_frames // 2))
                board = _with(board, {landing: after.stack(landing)})
        still = _frames(condition.still_seconds, fps)
        if rng.random() < condition.extra_hands:  # a hand passes over, nothing moves
            add(board, hand=False, plies_done=ply, fps=fps, count=still // 2)
            add(board, hand=True, plies_done=ply, fps=fps, count=hand_frames)
        add(board, hand=False, plies_done=ply, fps=fps, count=still)
        if injection is not None and injection.ply == ply and injection.kind in ANSWERED:
            after = _standing(board, after)  # the game goes on from the board (I 5.7)
        position = after
    script.add(
        board,
        hand=False,
        plies_done=len(moves),
        fps=fps,
        count=_frames(max(2 * condition.still_seconds, LAST_STILL_SECONDS), fps),
    )
    return script


ANSWERED = ("captured_piece_left", "wrong_piece_removed")
"""Injected irregularities the game goes on after (:func:`board_after_injection`): the
opponent answers from the board as it stands. A man left uncrowned stays a king to the
rules, so his game goes on from the position played."""


def board_after_injection(
    injection: Injection, before: Position, move: Move, after: Position
) -> Position:
    """The position on the board after ``move`` played from ``before`` with
    ``injection`` (one of :data:`ANSWERED`) at that ply, the opponent to move."""
    return _standing(
        _inject(injection, injection.ply, before, move, after, [board_of(after)])[-1], after
    )


def _standing(board: Board, after: Position) -> Position:
    """``board`` as a position, the side to move that of ``after``."""
    stacks = {sq: stack for sq, stack in enumerate(board) if stack}
    return Position.from_stacks(after.variant, stacks, after.turn)


def _inject(
    injection: Injection | None,
    ply: int,
    before: Position,
    move: Move,
    after: Position,
    steps: list[Board],
) -> list[Board]:
    """The steps of ``move`` with the injected irregularity, if it is at this ply."""
    if injection is None or injection.ply != ply:
        return steps
    final = steps[-1]
    if injection.kind == "captured_piece_left":
        left = move.captures[-1]
        return [*steps[:-1], _with(final, {left: before.stack(left)})]
    if injection.kind == "wrong_piece_removed":
        kept = move.captures[-1]
        victim = next(iter(wrong_piece_candidates(before, move, after)))
        return [*steps[:-1], _with(final, {kept: before.stack(kept), victim: ()})]
    return steps


def wrong_piece_candidates(before: Position, move: Move, after: Position) -> Iterator[int]:
    """Opponent pieces that a careless hand could take off instead of the captured one."""
    captured = set(move.captures)
    for sq, stack in after.stacks():
        if sq not in captured and stack[0].color is not before.turn:
            yield sq

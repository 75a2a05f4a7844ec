"""A game played as observations: the live pipeline without a camera.

:func:`scripted_observations` gives what a perfect camera would report while a game is
played (a hand over the board during each move, which the recorder ignores, then the new
position, still, for a while), and :class:`ObservationSource` plays observations as
frames. Together they drive the real recorder, journal, server and board, so
``damcam demo`` can show the live chain where no rendered video (or no vision stage) is
available, and says that it does.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from pi.capture import Frame, FrameSource, Pacer
from rules import Move, Position
from rules.observation import Observation, SquareReading, Top


def perfect_observation(position: Position, time: float, index: int) -> Observation:
    """What a camera that never errs would report for a still board."""
    readings = tuple(
        SquareReading.certain(Top.of(position.piece_at(sq)), height=len(position.stack(sq)))
        if position.variant.towers
        else SquareReading.certain(Top.of(position.piece_at(sq)))
        for sq in position.variant.geometry.squares
    )
    return Observation(time, readings, frame_index=index)


def hand_observation(position: Position, time: float, index: int) -> Observation:
    """A frame with a hand over the board: occluded and moving, so it carries no evidence."""
    still = perfect_observation(position, time, index)
    return Observation(time, still.squares, occlusion=0.4, motion=0.3, frame_index=index)


class ObservationSource(FrameSource):
    """Replays observations as frames (each frame carries its observation), at their own
    timestamps when ``realtime``: a scripted game, or an observation log kept for study."""

    needs_vision = False

    def __init__(
        self,
        observations: Iterable[Observation],
        *,
        realtime: bool = False,
        description: str = "recorded observations",
    ) -> None:
        self.observations = observations
        self.live = realtime
        self.description = description
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def __iter__(self) -> Iterator[Frame]:
        self._closed = False
        pacer = Pacer(self.live)
        t0: float | None = None
        for index, obs in enumerate(self.observations):
            if self._closed:
                return
            t0 = obs.time if t0 is None else t0
            pacer.wait(obs.time - t0)
            yield Frame(index, obs.time, None, observation=obs)


def scripted_observations(
    start: Position,
    moves: Sequence[Move],
    *,
    fps: float = 10.0,
    move_seconds: float = 0.6,
    still_seconds: float = 1.4,
) -> Iterator[Observation]:
    """A game as a perfect camera would see it, one frame at a time: the board still, a
    hand over it while each move is made, the new position still again."""
    move_frames = max(1, round(move_seconds * fps))
    still_frames = max(4, round(still_seconds * fps))
    index = 0

    def hold(picture: Observation, frames: int) -> Iterator[Observation]:
        nonlocal index
        for _ in range(frames):
            yield _at(picture, index, fps)
            index += 1

    position = start
    yield from hold(perfect_observation(position, 0.0, 0), still_frames)
    for move in moves:
        yield from hold(hand_observation(position, 0.0, 0), move_frames)
        position = position.play(move)
        yield from hold(perfect_observation(position, 0.0, 0), still_frames)


def _at(observation: Observation, index: int, fps: float) -> Observation:
    """The same picture at frame ``index`` (the square readings are shared, not copied)."""
    return replace(observation, time=index / fps, frame_index=index)


def generated_game(start: Position, plies: int, *, seed: int = 0) -> list[Move]:
    """A legal game from ``start``: seeded random moves, captures whenever there are
    (they are compulsory anyway), so the demo shows captures and, with luck, a king."""
    rng = random.Random(seed)
    moves: list[Move] = []
    position = start
    for _ in range(plies):
        legal = position.legal_moves()
        if not legal:
            break
        forward = [m for m in legal if m.promotes] or legal
        move = rng.choice(forward)
        moves.append(move)
        position = position.play(move)
    return moves

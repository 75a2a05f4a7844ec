"""A game played as observations: the live pipeline without a camera.

:class:`ScriptedGameSource` yields frames that carry the observation a perfect camera
would give, paced like a real game: a hand over the board while a move is made (the
recorder ignores those frames), then the new position, still, for a while. It drives the
real recorder, journal, server and board, so ``damcam demo`` can show the live chain
where no rendered video (or no vision model) is available, and says that it does.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

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


class ScriptedGameSource(FrameSource):
    """Plays ``moves`` from ``start`` as observation frames (``realtime``: at ``fps``)."""

    needs_vision = False

    def __init__(
        self,
        start: Position,
        moves: Sequence[Move],
        *,
        fps: float = 10.0,
        move_seconds: float = 0.6,
        still_seconds: float = 1.4,
        realtime: bool = True,
        description: str = "a scripted game",
    ) -> None:
        self.start = start
        self.moves = list(moves)
        self.fps = fps
        self.move_frames = max(1, round(move_seconds * fps))
        self.still_frames = max(4, round(still_seconds * fps))
        self.live = realtime
        self.description = description
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def __iter__(self) -> Iterator[Frame]:
        self._closed = False
        pacer = Pacer(self.live)
        position = self.start
        script: list[tuple[Position, bool]] = [(position, False)] * self.still_frames
        for move in self.moves:
            script += [(position, True)] * self.move_frames
            position = position.play(move)
            script += [(position, False)] * self.still_frames
        for index, (shown, hand) in enumerate(script):
            if self._closed:
                return
            t = index / self.fps
            pacer.wait(t)
            make = hand_observation if hand else perfect_observation
            yield Frame(index, t, None, observation=make(shown, t, index))


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

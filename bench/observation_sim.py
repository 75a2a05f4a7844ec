"""Observation simulator: real games turned into the noisy frames vision would emit.

The recorder is tested without images: a game (from ``../shared/data/games``) is played
out as a physical scene, the way people really play it (a hand over the board while
moving, captures performed jump by jump and the captured pieces lifted one by one, the
second disc of a king put on a moment after the man arrives), and every frame of that
scene becomes an :class:`~rules.observation.Observation` with seeded noise: squares read
wrong now and then, a glitching square for a few frames, squares partly hidden by a hand
resting at the edge, plies missed while the camera saw nothing.

Irregularities are injected by showing the board states they produce
(:meth:`Simulator.show`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from bench.e2e_games import REAL_FILES, PlayedGame, read_acf_file, read_pdn_file
from rules.move import Move
from rules.observation import TOP_COUNT, Observation, SquareReading, Top
from rules.position import Position
from rules.recorder import RecordedPly
from rules.variants import Variant, find_variant

Tops = tuple[Top, ...]


@dataclass(frozen=True, slots=True)
class Noise:
    """How messy the table is. Rates are probabilities; all draws come from one seed."""

    square_error_rate: float = 0.0
    """Per square and frame: the classifier is confidently wrong."""
    glitch_rate: float = 0.0
    """Per settled period: one square reads wrong for a burst of 1-3 frames."""
    edge_hand_rate: float = 0.0
    """Per settled period: a hand rests over a few squares (they read as occluded)."""
    peek_rate: float = 0.0
    """Per intermediate state of a move: a glimpse of 1-2 clean frames of it."""
    missed_ply_rate: float = 0.0
    """Per ply: this ply and the next one or two are made while the camera sees nothing."""
    late_crowning_rate: float = 0.5
    """Per promotion: the man stands uncrowned for a while before the second disc."""
    overhead_kings: bool = False
    """Kings read as weak men in every frame (p 0.66 against 0.3): a camera straight
    above sees no side of a stack, so nothing of a king's second disc."""
    height_sigma: float | None = None
    """Towers: vision reads stack heights with this standard deviation (None: no heights)."""
    fps: float = 10.0
    settle_frames: tuple[int, int] = (8, 20)
    """Frames the board stays untouched after a move (min, max)."""


@dataclass(slots=True)
class Simulator:
    """Builds a frame stream step by step; :attr:`frames` is the result."""

    variant: Variant
    noise: Noise
    seed: int = 0
    rotated: bool = False
    """The board stands turned half a turn from where calibration put it (I 2.4)."""
    frames: list[Observation] = field(default_factory=list)
    time: float = 0.0
    uncrowned: set[int] = field(default_factory=set)
    """Kings that look like men (the second disc not put on, or taken off)."""
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # -- frames -------------------------------------------------------------------------------

    def _reading(self, top: Top, occluded: bool, height: int | None = None) -> SquareReading:
        rng = self.rng
        if occluded:
            return SquareReading((0.2,) * TOP_COUNT, occluded=1.0)  # type: ignore[arg-type]
        sigma = self.noise.height_sigma
        measured = None if height is None or sigma is None else rng.gauss(height, sigma)
        probs = [rng.random() * 0.02 for _ in range(TOP_COUNT)]
        if rng.random() < self.noise.square_error_rate:
            wrong = rng.choice([t for t in Top if t != top])
            probs[wrong] = rng.uniform(0.55, 0.9)
            probs[top] = rng.uniform(0.05, 0.3)
        elif self.noise.overhead_kings and top in (Top.WHITE_KING, Top.BLACK_KING):
            probs[top - 1], probs[top] = 0.66, 0.3
        else:
            probs[top] = rng.uniform(0.8, 0.99)
        total = sum(probs)
        return SquareReading(
            tuple(p / total for p in probs),  # type: ignore[arg-type]
            height=measured,
            height_sigma=None if measured is None else sigma,
        )

    def frame(
        self,
        tops: Tops,
        *,
        hidden: frozenset[int] = frozenset(),
        occlusion: float = 0.0,
        motion: float = 0.0,
        board_found: bool = True,
        glitch: dict[int, Top] | None = None,
        heights: tuple[int, ...] | None = None,
    ) -> None:
        readings = tuple(
            self._reading(
                (glitch or {}).get(sq, top), sq in hidden, None if heights is None else heights[sq]
            )
            for sq, top in enumerate(tops)
        )
        if glitch:
            readings = tuple(
                SquareReading.certain(glitch[sq]) if sq in glitch else r
                for sq, r in enumerate(readings)
            )
        if self.rotated:
            readings = readings[::-1]
        self.frames.append(
            Observation(
                self.time,
                readings if board_found else (),
                board_found=board_found,
                occlusion=occlusion,
                motion=motion,
                frame_index=len(self.frames),
            )
        )
        self.time += 1.0 / self.noise.fps

    def hand(self, tops: Tops, frames: int = 3) -> None:
        """A hand over the board: vision's gate reports occlusion and motion."""
        for _ in range(frames):
            self.frame(tops, occlusion=0.3, motion=0.2, hidden=frozenset(self._some_squares(12)))

    def hidden(self, tops: Tops, frames: int = 4) -> None:
        """The camera sees nothing (dropped, knocked, the board lost)."""
        for _ in range(frames):
            self.frame(tops, board_found=False)

    def settle(
        self, tops: Tops, frames: int | None = None, heights: tuple[int, ...] | None = None
    ) -> None:
        """The board untouched: clean frames, with the noise the settings ask for."""
        rng, noise = self.rng, self.noise
        n = frames if frames is not None else rng.randint(*noise.settle_frames)
        edge: frozenset[int] = frozenset()
        if rng.random() < noise.edge_hand_rate:
            edge = frozenset(self._some_squares(3))
        burst: tuple[int, int, int, Top] | None = None  # start, length, square, top
        if rng.random() < noise.glitch_rate:
            sq = rng.randrange(len(tops))
            wrong = rng.choice([t for t in Top if t != tops[sq]])
            burst = (rng.randrange(n), rng.randint(1, 3), sq, wrong)
        for i in range(n):
            glitch = None
            if burst and burst[0] <= i < burst[0] + burst[1]:
                glitch = {burst[2]: burst[3]}
            self.frame(
                tops, hidden=edge, occlusion=0.01 if edge else 0.0, glitch=glitch, heights=heights
            )

    def peek(self, tops: Tops) -> None:
        """Maybe a glimpse of an intermediate state, too short to settle."""
        if self.rng.random() < self.noise.peek_rate:
            for _ in range(self.rng.randint(1, 2)):
                self.frame(tops)

    def _some_squares(self, k: int) -> list[int]:
        n = self.variant.geometry.square_count
        first = self.rng.randrange(n)
        return [(first + i) % n for i in range(k)]

    # -- playing moves ---------------------------------------------------------------------

    def show(self, tops: Tops, settle_frames: int | None = None) -> None:
        """Put the board into a state (an injected irregularity, say) and let it settle."""
        self.hand(tops, 3)
        self.settle(tops, settle_frames)

    def look(self, position: Position) -> Tops:
        """What the camera sees of a position, kings without their second disc as men."""
        tops = tops_of(position)
        return tuple(
            Top(t - 1) if sq in self.uncrowned and t in (Top.WHITE_KING, Top.BLACK_KING) else t
            for sq, t in enumerate(tops)
        )

    def _follow_uncrowned(self, move: Move, crown: bool) -> None:
        if move.path[0] in self.uncrowned:
            self.uncrowned.discard(move.path[0])
            self.uncrowned.add(move.path[-1])
        self.uncrowned.difference_update(move.captures)
        if move.promotes and not crown:
            self.uncrowned.add(move.path[-1])

    def play(
        self, position: Position, move: Move, *, settle: bool = True, crown: bool = True
    ) -> Position:
        """Perform one move physically, as a player does; return the position after it.

        ``crown`` False: a man reaching the last row never gets its second disc.
        """
        after = position.play(move)
        tops = list(self.look(position))
        piece = tops[move.path[0]]
        self.hand(tuple(tops), self.rng.randint(2, 4))
        tops[move.path[0]] = Top.EMPTY
        for landing in move.path[1:]:  # jump by jump (I 4.9)
            tops[landing] = piece
            self.hand(tuple(tops), 2)
            self.peek(tuple(tops))
            if landing != move.path[-1]:
                tops[landing] = Top.EMPTY
        self._follow_uncrowned(move, crown)
        final = self.look(after)
        if move.promotes and self.rng.random() < self.noise.late_crowning_rate:
            tops[move.path[-1]] = piece  # still a man: the second disc comes a moment later
        order = list(move.captures)
        if self.rng.random() < 0.5:
            order.reverse()  # from the first or from the last captured piece (I 4.11)
        for sq in order:
            tops[sq] = final[sq]
            self.hand(tuple(tops), 2)
            self.peek(tuple(tops))
        if tuple(tops) != final:
            self.settle(tuple(tops), self.rng.randint(5, 10))
            self.hand(final, 3)
        if settle:
            self.settle(final, heights=heights_of(after))
        return after

    def play_game(self, start: Position, moves: list[Move], *, tail_frames: int = 30) -> Position:
        """Play a whole game, missing plies now and then, and let the last position stand."""
        position = start
        self.settle(self.look(start), heights=heights_of(start))
        hidden_left = 0
        seen_since_hidden = True
        for move in moves:
            if seen_since_hidden and self.rng.random() < self.noise.missed_ply_rate:
                hidden_left = self.rng.randint(2, 3)
            if hidden_left:
                hidden_left -= 1
                seen_since_hidden = False
                self._follow_uncrowned(move, crown=True)
                position = position.play(move)
                self.hidden(self.look(position), self.rng.randint(5, 10))
                if hidden_left == 0:
                    self.settle(self.look(position), heights=heights_of(position))
                continue
            seen_since_hidden = True
            position = self.play(position, move)
        self.settle(self.look(position), tail_frames, heights_of(position))
        return position


def tops_of(position: Position) -> Tops:
    """What an overhead camera sees on each square."""
    return tuple(Top.of(position.piece_at(sq)) for sq in position.variant.geometry.squares)


def heights_of(position: Position) -> tuple[int, ...]:
    """How many pieces stand on each square."""
    return tuple(len(position.stack(sq)) for sq in position.variant.geometry.squares)


# -- games from the shared data --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RealGame:
    source: str
    variant: Variant
    start: Position
    moves: tuple[Move, ...]


def shared_games(data: Path, variant_name: str, limit: int) -> list[RealGame]:
    """Up to ``limit`` real games of a variant from ``../shared/data/games``, read with the
    end-to-end benchmark's readers (the same files, the same order)."""
    root = data / "games" / "pdn-fmjd-testgames" / "games" / "succeed"
    variant = find_variant(variant_name)
    out: list[RealGame] = []
    if variant_name == "english":
        acf = data / "games" / "english-acf" / "ACF.txt"
        out.extend(_real(g, variant) for g in read_acf_file(acf, limit * 2))
    for name in REAL_FILES.get(variant_name, ()):
        if (root / name).exists():
            out.extend(_real(g, variant) for g in read_pdn_file(root / name, variant_name))
        if len(out) >= limit:
            break
    return out[:limit]


def _real(game: PlayedGame, variant: Variant) -> RealGame:
    return RealGame(game.source, variant, game.start, game.moves)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a recorded game compares with the game played.

    ``exact``: every ply right. ``asked``: some plies differ, but only inside catch-ups
    the recorder marked with alternatives for the arbiter (moves seen by nobody, in an
    order the final picture cannot tell). ``first_wrong``: the first ply recorded wrong
    without a question, or None.
    """

    exact: bool
    asked: bool
    first_wrong: int | None
    flags: int


def compare(game: RealGame, record: list[RecordedPly], flags: int) -> Outcome:
    played = []
    position = game.start
    for move in game.moves:
        position = position.play(move)
        played.append(position)
    exact = len(record) == len(played) and all(
        r.move == m for r, m in zip(record, game.moves, strict=False)
    )
    asked = False
    first_wrong = None
    for i, r in enumerate(record):
        if i >= len(played):
            first_wrong = first_wrong or i + 1
            break
        if r.after == played[i]:
            continue
        if r.alternatives:
            asked = True
            continue
        first_wrong = i + 1
        break
    if first_wrong is None and len(record) < len(played):
        first_wrong = len(record) + 1
    return Outcome(exact, asked and first_wrong is None, first_wrong, flags)

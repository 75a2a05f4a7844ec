"""Hand visits: how often a hand came over the board since the recorder last accounted for
a picture, and what the camera glimpsed meanwhile.

No single picture tells a capture whose jumped man was left on the board while another
opponent man was taken off (one irregular ply, I 5.4.12) from the capture followed by the
opponent moving that other man onto the jumped square (two legal plies): the boards are
the same. The video tells them apart: two plies need two players' hands, so two visits,
runs of frames dropped for a hand or motion separated by good frames. The recorder
prefers the irregular ply only when the count can be trusted, so this also keeps:

* whether the run of frames is *unbroken*: dropped frames (a frame index or a timestamp
  that jumps), frames with the board lost or mostly hidden, or a visit longer than a move
  takes may hide the good frames between two hands, or a whole hand, so no count is
  trusted over them (and a board hidden for several plies, the catch-up's reason to
  exist, is never a single visit);
* what was *glimpsed*: the sides (empty, White, Black) read with confidence on squares no
  hand hid, in any frame. Two hands over the board at once (blitz) make one visit of two
  plies; the legal sequence then usually shows itself on the way (the jumped square seen
  empty before the opponent's man arrives on it), and such a glimpse keeps it legal.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from enum import Enum

from rules.geometry import Bitboard
from rules.move import Move
from rules.observation import SquareReading, Top
from rules.picture import Picture
from rules.position import Position
from rules.variants import Variant


class Sight(Enum):
    """What a frame was to the recorder's gate."""

    GOOD = "good"
    """The board seen, no hand: evidence."""
    HAND = "hand"
    """The board seen, but a hand (occlusion) or motion over it."""
    BLIND = "blind"
    """The board not found, fitted too poorly to trust, or mostly hidden: anything may
    have happened."""


_INTERVALS_KEPT = 32
"""Recent frame intervals the typical one is taken from."""


class HandVisits:
    """Hand visits since the last :meth:`reset` (the recorder calls it when it accounts
    for a picture), whether their count can be trusted, and the sides glimpsed."""

    def __init__(
        self,
        variant: Variant,
        *,
        gap_frames: float,
        end_frames: int,
        longest_seconds: float,
        glimpse_nats: float,
        occluded: float,
    ) -> None:
        self._bits = variant.geometry.bits
        self._all = variant.geometry.all_squares
        self._gap = gap_frames
        self._end = end_frames
        self._longest = longest_seconds
        self._good_run = 0
        self._visit_began = 0.0
        self._glimpse = glimpse_nats
        self._occluded = occluded
        self._intervals: deque[float] = deque(maxlen=_INTERVALS_KEPT)
        self._last: tuple[float, int | None] | None = None
        self._in_hand = False
        self.count = 0
        self.broken = False
        self._seen = [0, 0, 0]
        """Squares glimpsed empty, White, Black."""

    def reset(self) -> None:
        """A picture was accounted for: count from here (a hand still over the board is
        the first visit)."""
        self.count = int(self._in_hand)
        self.broken = False
        self._seen = [0, 0, 0]

    def see(
        self,
        time: float,
        index: int | None,
        sight: Sight,
        readings: Sequence[SquareReading] = (),
        swapped: bool = False,
        clear: bool = False,
    ) -> None:
        """Take one frame: ``readings`` in the recorder's square order, ``swapped`` when
        their colours are to be read the other way round; ``clear``: a good frame with no
        trace of a hand or motion at all.

        A visit ends with a clear frame or ``end_frames`` good frames in a row: the gate
        lets a single frame through now and then while a hand is over the board (a
        rendered pool game, one frame at 7.3 s in the middle of a capture)."""
        self._check_gap(time, index)
        if sight is Sight.BLIND:
            self.broken = True
            self._in_hand = False
            self._good_run = 0
            return
        if sight is Sight.HAND:
            if not self._in_hand:
                self.count += 1
                self._visit_began = time
            elif time - self._visit_began > self._longest:
                self.broken = True  # an arm resting over the board may hide several plies
            self._in_hand = True
            self._good_run = 0
        else:
            self._good_run += 1
            if clear or self._good_run >= self._end:
                self._in_hand = False
        self._glimpse_sides(readings, swapped)

    def fewer_than(self, plies: int) -> bool:
        """Whether the frames show fewer visits than ``plies`` need, and can be trusted."""
        return not self.broken and self.count < plies

    def glimpsed(self, start: Position, moves: Sequence[Move], picture: Picture) -> bool:
        """Whether a square was glimpsed with the side it has part-way through ``moves``
        from ``start`` that neither ``start`` nor ``picture`` gives it (the jumped square
        empty, say): evidence that the sequence happened."""
        start_sides = _sides(start.white, start.black, self._all)
        end_sides = _sides(picture.white, picture.black, picture.known)
        position = start
        for move in moves[:-1]:
            position = position.play(move)
            middle = _sides(position.white, position.black, self._all)
            for side in range(3):
                new = middle[side] & ~start_sides[side] & ~end_sides[side] & picture.known
                if new & self._seen[side]:
                    return True
        return False

    def _check_gap(self, time: float, index: int | None) -> None:
        """A frame index that jumps, a timestamp that goes back or comes much later than
        the typical interval: frames were dropped, and the run is broken."""
        last = self._last
        self._last = (time, index)
        if last is None:
            return
        dt = time - last[0]
        jumped = index is not None and last[1] is not None and index - last[1] != 1
        late = bool(self._intervals) and dt > self._gap * min(self._intervals)
        if jumped or late or not dt > 0.0:
            self.broken = True
        if dt > 0.0:
            self._intervals.append(dt)

    def _glimpse_sides(self, readings: Sequence[SquareReading], swapped: bool) -> None:
        seen = self._seen
        for sq, r in enumerate(readings):
            if r.occluded > self._occluded:
                continue
            p = r.probs
            if len(p) != 5:
                continue  # not a reading of the five tops: no evidence
            sides = [
                p[Top.EMPTY],
                p[Top.WHITE_MAN] + p[Top.WHITE_KING],
                p[Top.BLACK_MAN] + p[Top.BLACK_KING],
            ]
            if not all(0.0 <= v <= 1.0 + 1e-6 for v in sides):
                continue  # a reading vision got wrong (NaN): no evidence
            best = max(range(3), key=sides.__getitem__)
            rest = max(v for s, v in enumerate(sides) if s != best)
            if math.log(max(sides[best], 1e-12)) - math.log(max(rest, 1e-12)) < self._glimpse:
                continue
            if swapped and best:
                best = 3 - best
            seen[best] |= self._bits[sq]


def _sides(white: Bitboard, black: Bitboard, squares: Bitboard) -> tuple[Bitboard, ...]:
    """Squares (of ``squares``) that are empty, White's, Black's."""
    return (squares & ~(white | black), white & squares, black & squares)

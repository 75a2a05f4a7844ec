"""The recorder's evidence: what each good frame says of every square, and the window
that sums it since the picture last changed (:class:`rules.recorder.Recorder` settles on
a picture from these sums).

Log-probabilities are summed, not multiplied, so a frame costs one pass over the squares;
how often each top was a square's best reading is kept beside them (votes), and the
height readings as the three sums a Gaussian likelihood needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.appearance import SWAPPED_TOP
from rules.observation import TOP_COUNT

SIDE = {-1: -1, 0: 0, 1: 1, 2: 1, 3: 2, 4: 2}
"""A top's side: 0 empty, 1 White, 2 Black (-1: the square was hidden)."""


def swap_colours(values: tuple[float, ...] | list[float]) -> tuple[float, ...]:
    """Per-top values (indexed by Top) with White's and Black's exchanged."""
    return tuple(values[t] for t in SWAPPED_TOP)


@dataclass(slots=True)
class Frame:
    """One good frame's readings of every square, as the window sums them."""

    time: float
    logp: tuple[tuple[float, ...] | None, ...]
    """Per square, log-probability of each Top; None where the square was hidden."""
    labels: tuple[int, ...]
    """Per square, the most likely Top, -1 where hidden."""
    heights: tuple[tuple[float, float] | None, ...]
    """Per square, (height, 1/sigma^2) where vision measured a stack height."""


class Window:
    """The evidence of the good frames since the picture last changed: the frames, and
    per square the summed log-probabilities and how often each top was the best reading
    (kept as running totals, so a frame costs one pass over the squares)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.frames: list[Frame] = []
        self.sums: list[list[float] | None] = [None] * n
        self.votes: list[list[int]] = [[0] * TOP_COUNT for _ in range(n)]
        self.heights: list[list[float]] = [[0.0, 0.0, 0.0] for _ in range(n)]
        """Per square: sum of w, w*h and w*h*h over the height readings (w = 1/sigma^2)."""

    def clear(self) -> None:
        """Forget every frame (the picture changed)."""
        self.frames.clear()
        self.sums = [None] * self.n
        self.votes = [[0] * TOP_COUNT for _ in range(self.n)]
        self.heights = [[0.0, 0.0, 0.0] for _ in range(self.n)]

    def height_log_likelihood(self, square: int, height: int) -> float:
        """Gaussian log-likelihood of the height readings if the stack has ``height``
        pieces (up to a constant that is the same for every hypothesis)."""
        w, wh, whh = self.heights[square]
        return -0.5 * (whh - 2.0 * height * wh + height * height * w)

    def _apply(self, frame: Frame, sign: int) -> None:
        for sq, h in enumerate(frame.heights):
            if h is not None:
                acc_h = self.heights[sq]
                acc_h[0] += sign * h[1]
                acc_h[1] += sign * h[1] * h[0]
                acc_h[2] += sign * h[1] * h[0] * h[0]
        for sq, lp in enumerate(frame.logp):
            if lp is None:
                continue
            self.votes[sq][frame.labels[sq]] += sign
            acc = self.sums[sq]
            if acc is None:
                self.sums[sq] = [sign * v for v in lp]
            else:
                for t in range(TOP_COUNT):
                    acc[t] += sign * lp[t]

    def add(self, frame: Frame) -> None:
        self.frames.append(frame)
        self._apply(frame, 1)

    def drop_oldest(self) -> None:
        self._apply(self.frames.pop(0), -1)

    def keep_last(self, k: int) -> None:
        kept = self.frames[-k:]
        self.clear()
        for f in kept:
            self.add(f)

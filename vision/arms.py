"""An arm reaching over the board, seen where it must cross: the ring of the board's
border just outside the playing grid.

Why: a hand held still over the board, the colour of its light squares or of its men,
changes the grid only in fragments, which the hand gate can take for pieces put down
(docs/vision.md, "A still hand taken for pieces"); the recorder then read a move that was
never played. Every hand over the board comes with an arm, and the arm crosses the
board's border on its way in: a change there that runs from the ring's outer edge to
its inner edge is an arm, wherever its hand is and whatever colour it is. A tower
leaning over an edge square, its shadow, a glint, a printed coordinate touch the ring
from one side only.

The ring is compared with its last picture without an arm (``bare``), taken while the
ring has stood still for ``settle_frames``: a change of light or a tower's lean is
learned there. A crossing change that stands still for ``stale_frames`` is learned too,
as the ``left`` picture (something left lying across the border must not blind the
recorder for good), and is forgotten when the ring shows its bare picture again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.locate import Image
from vision.occlusion import changed_pixels

FloatImage = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ArmSettings:
    """``ring_cells``: the ring's width outside the grid, in cells (printed boards and the
    e2e renders have borders of 0.7 cells or more); ``change``: levels of any channel, as
    the hand gate's; ``crossing_share``: the least share of the ring a crossing change
    covers (a wrist across a 0.5-cell ring of an 8x8 board is about 0.02);
    ``light_share``: a change over more of the ring is the light's (a lamp, the sun, a
    body's shadow), not an arm's (an arm across one side covers 0.03-0.2 of it);
    ``still_motion``: the largest share of the ring changing from one frame to the next
    that counts as still; ``settle_frames`` and ``stale_frames`` as in the module's
    docstring (the e2e's pondering hands hover 12 s, 120 frames)."""

    ring_cells: float = 0.5
    change: float = 25.0
    crossing_share: float = 0.003
    light_share: float = 0.5
    still_motion: float = 0.002
    settle_frames: int = 10
    stale_frames: int = 600


@dataclass
class ArmWatch:
    """Watches the ring around one camera's rectified board."""

    size: int
    cell_px: int
    settings: ArmSettings = field(default_factory=ArmSettings)
    _bare: FloatImage | None = None
    _left: FloatImage | None = None
    _previous: FloatImage | None = None
    _still_count: int = 0
    _ring: npt.NDArray[np.bool_] = field(init=False)
    _outer: npt.NDArray[np.bool_] = field(init=False)
    _inner: npt.NDArray[np.bool_] = field(init=False)

    def __post_init__(self) -> None:
        ring = self.ring_px
        side = self.size * self.cell_px + 2 * ring
        self._ring = np.ones((side, side), np.bool_)
        self._ring[ring : side - ring, ring : side - ring] = False
        self._outer = self._ring.copy()  # its outermost two pixels
        self._outer[2 : side - 2, 2 : side - 2] = False
        self._inner = np.zeros((side, side), np.bool_)  # its innermost two
        self._inner[ring - 2 : side - ring + 2, ring - 2 : side - ring + 2] = True
        self._inner[ring : side - ring, ring : side - ring] = False

    @property
    def ring_px(self) -> int:
        """The ring's width in pixels of the framed board image."""
        return max(2, round(self.settings.ring_cells * self.cell_px))

    def update(self, framed_bgr: Image) -> bool:
        """Whether an arm crosses the ring of one framed board image (the grid of
        ``size`` cells of ``cell_px`` and :attr:`ring_px` around it, BGR)."""
        s = self.settings
        ring = np.asarray(cv2.GaussianBlur(framed_bgr, (3, 3), 0), np.float32)
        previous = self._previous if self._previous is not None else ring
        moving = changed_pixels(ring, previous, s.change) & self._ring
        self._previous = ring
        still = moving.sum() <= s.still_motion * self._ring.sum()
        self._still_count = self._still_count + 1 if still else 0
        if self._bare is None:
            self._bare = ring
        arm = self._crossing(ring, self._bare)
        if arm and self._left is not None:
            arm = self._crossing(ring, self._left)
        if not arm and self._left is not None and not self._crossing(ring, self._bare):
            self._left = None  # what was left across the border has gone
        if not arm and self._left is None and self._still_count >= s.settle_frames:
            self._bare = ring
        elif arm and self._still_count >= s.stale_frames:
            self._left = ring
            arm = False
        return arm

    def _crossing(self, ring: FloatImage, reference: FloatImage) -> bool:
        """A change against ``reference`` that joins the ring's outer edge to its inner
        one, over :attr:`ArmSettings.crossing_share` of the ring, where no more than
        :attr:`ArmSettings.light_share` of it changed."""
        changed = changed_pixels(ring, reference, self.settings.change) & self._ring
        if changed.sum() > self.settings.light_share * self._ring.sum():
            return False
        count, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
        if count <= 1:
            return False
        at_outer = set(np.unique(labels[self._outer])) - {0}
        at_inner = set(np.unique(labels[self._inner])) - {0}
        least = self.settings.crossing_share * self._ring.sum()
        areas = np.bincount(labels.ravel(), minlength=count)
        return any(areas[k] >= least for k in at_outer & at_inner)

"""Hands and motion: which squares are hidden, and whether the frame has settled.

A square is occluded where its rectified pixels differ from the last *stable* board image
and that difference is skin-coloured or still moving. A settled difference that is
neither is a piece that was moved, which the classifier must see, not a hand. The stable
image is refreshed once the whole board has been still for a few frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.locate import Image

FloatGrid = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class OcclusionSettings:
    """Thresholds: ``change`` in grey levels (0..255), ``still_frames`` before a board
    image becomes the stable reference, ``cell_px`` the side of a cell in the rectified
    board image given to :meth:`OcclusionGate.update`."""

    change: float = 25.0
    still_frames: int = 3
    still_motion: float = 0.005
    cell_px: int = 16
    refresh_hidden: float = 0.02
    """A board still for ``still_frames`` with less than this share hidden becomes the
    stable image: a moved cream or wooden piece is skin-coloured, and its few pixels
    must not pin an old stable image for the rest of the game (a hand hides far more)."""


@dataclass(frozen=True, slots=True)
class Gate:
    """Per-cell occlusion (N, N) in [0, 1], White view; board occlusion and motion in [0, 1]."""

    cells: FloatGrid
    occlusion: float
    motion: float


def skin_mask(bgr: Image) -> npt.NDArray[np.bool_]:
    """Skin-coloured pixels by the classic YCrCb box (Chai and Ngan, 1999).

    Hand-written because OpenCV has no skin model; the box is wide on purpose, since a
    false positive only delays a reading until the hand has gone.
    """
    ycrcb = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycrcb[..., 1], ycrcb[..., 2]
    return np.asarray((cr >= 135) & (cr <= 180) & (cb >= 85) & (cb <= 135), np.bool_)


_NEIGHBOURS = np.ones((3, 3), np.uint8)


def _beyond(
    gray: npt.NDArray[np.float32], reference: npt.NDArray[np.float32], change: float
) -> npt.NDArray[np.bool_]:
    """Pixels more than ``change`` away from every value ``reference`` takes within one
    pixel of them: a board that shifted by under a pixel (a camera that sways a little,
    which the tracker rightly ignores) is neither motion nor a hand."""
    high = cv2.dilate(reference, _NEIGHBOURS)
    low = cv2.erode(reference, _NEIGHBOURS)
    return np.asarray((gray > high + change) | (gray < low - change), np.bool_)


@dataclass
class OcclusionGate:
    """Keeps the previous and the last stable rectified boards of one camera."""

    size: int
    settings: OcclusionSettings = field(default_factory=OcclusionSettings)
    _previous: npt.NDArray[np.float32] | None = None
    _stable: npt.NDArray[np.float32] | None = None
    _still_count: int = 0

    def update(self, board_bgr: Image) -> Gate:
        """Gate one rectified board image (N*cell_px square, BGR)."""
        s = self.settings
        gray = np.asarray(cv2.cvtColor(board_bgr, cv2.COLOR_BGR2GRAY), np.float32)
        previous = self._previous if self._previous is not None else gray
        moving = _beyond(gray, previous, s.change)
        stable = self._stable if self._stable is not None else gray
        changed = _beyond(gray, stable, s.change)
        # Where the frame shows the stable board again (a hand has just left) nothing
        # is moving: the board is back, and the frame is good evidence at once.
        motion = float((moving & changed).mean())
        hidden = changed & (moving | skin_mask(board_bgr))
        cells = self._per_cell(hidden)
        self._previous = gray
        self._still_count = self._still_count + 1 if motion < s.still_motion else 0
        settled = self._still_count >= s.still_frames and hidden.mean() < s.refresh_hidden
        if self._stable is None or settled:
            self._stable = gray
        return Gate(cells=cells, occlusion=float(hidden.mean()), motion=motion)

    def _per_cell(self, mask: npt.NDArray[np.bool_]) -> FloatGrid:
        n, px = self.size, self.settings.cell_px
        return np.asarray(
            mask[: n * px, : n * px].reshape(n, px, n, px).mean(axis=(1, 3)), np.float64
        )

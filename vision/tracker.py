"""Cheap board tracking between frames: reuse the last fit while the board's frame is still.

A fresh detection costs tens to hundreds of milliseconds; a settled camera over a settled
board needs none. The tracker keeps a small greyscale thumbnail of the ring around the
playing grid (the board's frame, where hands rarely rest) and re-detects only when that
ring has changed, i.e. the board or the camera was bumped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.locate import BoardLocation, BoardNotFound, Image, LocateResult, to_gray

log = logging.getLogger(__name__)

THUMB_WIDTH = 160


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    """``ring_change`` is the mean absolute grey difference (0..255) in the ring that
    counts as the board having moved; ``ring_width`` the ring's width in square sides."""

    ring_change: float = 12.0
    ring_width: float = 0.6


@dataclass
class BoardTracker:
    """Wraps a locate function (frame -> result) with reuse of the last good fit."""

    locate: Callable[[Image], LocateResult]
    settings: TrackerSettings = field(default_factory=TrackerSettings)
    last: BoardLocation | None = None
    redetections: int = 0
    _thumb: npt.NDArray[np.float32] | None = None
    _ring: npt.NDArray[np.bool_] | None = None

    def update(self, frame: Image) -> LocateResult:
        """The board in ``frame``: the last fit if its surroundings are unchanged."""
        gray = to_gray(frame)
        scale = THUMB_WIDTH / gray.shape[1]
        thumb = np.asarray(
            cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.float32
        )
        ring, previous = self._ring, self._thumb
        same_size = previous is not None and previous.shape == thumb.shape
        if self.last is not None and ring is not None and previous is not None and same_size:
            change = float(np.abs(thumb - previous)[ring].mean())
            if change < self.settings.ring_change:
                return self.last
            log.debug("board ring changed by %.1f grey levels: re-detecting", change)
        self.redetections += 1
        result = self.locate(frame)
        if isinstance(result, BoardNotFound):
            self.last, self._ring, self._thumb = None, None, None
            return result
        self.last, self._thumb = result, thumb
        self._ring = self._ring_mask(result, thumb.shape[:2], scale)
        return result

    def _ring_mask(
        self, location: BoardLocation, shape: tuple[int, ...], scale: float
    ) -> npt.NDArray[np.bool_]:
        n, w = float(location.size), self.settings.ring_width
        outer = np.array([[-w, -w], [n + w, -w], [n + w, n + w], [-w, n + w]])
        inner = np.array([[0.0, 0.0], [n, 0.0], [n, n], [0.0, n]])
        mask = np.zeros(shape, np.uint8)
        cv2.fillPoly(mask, [np.round(location.to_image(outer) * scale).astype(np.int32)], 1)
        cv2.fillPoly(mask, [np.round(location.to_image(inner) * scale).astype(np.int32)], 0)
        if not mask.any():
            mask[:] = 1
        return mask.astype(bool)

"""Cheap board tracking between frames: reuse the last fit while the board is still.

A fresh detection costs tens of milliseconds; a settled camera over a settled board needs
none. The grid's inner X-corners of the last detection are followed with pyramidal
Lucas-Kanade (half-size frame, about 3 ms at 1280x960) from the *reference* frame of that
detection, not from the previous frame, so a still board never drifts. If most of them
stayed put, the board did too (a hand over some of them does not move the median) and the
last fit is kept exactly; if they moved together, the board or the camera was bumped and
the board is detected afresh, their own fit standing in when detection fails (e.g. under
a hand).

When detection fails the reference is kept, so the board is found again as soon as the
frame looks as before; the caller gets the :class:`BoardNotFound` meanwhile. (An earlier
version compared a thumbnail of the board's frame instead: a shift of a few pixels on a
plain wooden frame went unnoticed.)

A fresh grid fit that only guessed the board's extent (``extent_known`` false) and lands
on the held fit's lattice a whole square over is counted on the held fit's rows and
columns: a board does not jump by exactly a square between two detections, but an arm
over its edge row moves the guess (a rendered lasca game was read a row off for 5 s, and
following could not tell: a square over, the grid's corners are X-corners too).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.locate import (
    BoardLocation,
    BoardNotFound,
    FloatArray,
    Image,
    LocateResult,
    fit_points,
    shifted_squares,
    to_gray,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    """``still_squares``: median shift of the followed corners, in square sides, below
    which the board has not moved; ``max_residual_squares``: RMS residual of a followed
    fit that is still trusted."""

    still_squares: float = 0.04
    max_residual_squares: float = 0.1
    flow_window_px: int = 21
    flow_levels: int = 3
    min_followed_share: float = 0.5
    coarse_residual_ratio: float = 1.5
    """A detection whose residual is this many times the one it replaces is coarse (a hand
    hid the X-corners it would have snapped onto): it is only held until a fresh detection
    on a later frame fits better, for at most ``coarse_retries`` frames (a board that
    simply fits worse now, after a bump, is not detected afresh on every frame)."""
    coarse_retries: int = 15
    coarse_min_excess_px: float = 0.2
    """Below this, a worse residual moves no crop: not coarse."""
    lattice_tolerance_squares: float = 0.25
    """How near a whole number of squares a fresh fit's corners must lie from the held
    fit's, all four alike, to be the same lattice counted from another row."""


@dataclass(frozen=True, slots=True, eq=False)
class _Reference:
    """What the last detection saw: its fit, the half-size grey frame and the grid points
    to follow (board plane and half-size pixels)."""

    location: BoardLocation
    gray_half: Image
    board_points: FloatArray
    half_points: FloatArray


@dataclass
class BoardTracker:
    """Wraps a locate function (frame -> result) with reuse of the last good fit."""

    locate: Callable[[Image], LocateResult]
    settings: TrackerSettings = field(default_factory=TrackerSettings)
    redetections: int = 0
    _reference: _Reference | None = None
    _better_than_px: float | None = None
    """While the reference is coarse: the residual of the fit it replaced, to get back to."""
    _retries_left: int = 0

    @property
    def last(self) -> BoardLocation | None:
        """The fit of the last detection, if any."""
        return self._reference.location if self._reference is not None else None

    def update(self, frame: Image) -> LocateResult:
        """The board in ``frame``: the last fit if it is still, else a fresh detection."""
        gray_half = _half_gray(frame)
        ref = self._reference
        followed: BoardLocation | None = None
        if ref is not None and ref.gray_half.shape == gray_half.shape:
            followed = self._follow(ref, gray_half)
            if followed is ref.location:
                return self._refine(ref, frame, gray_half) if self._better_than_px else followed
            log.debug("board moved or hidden: re-detecting")
        result = self._detect(frame)
        if isinstance(result, BoardNotFound):
            return followed if followed is not None else result
        self._hold(result, gray_half)
        return result

    def _hold(self, location: BoardLocation, gray_half: Image) -> None:
        """Make ``location`` the reference; coarse when it fits clearly worse than the one
        it replaces (its target then is that one's residual, or the earlier target)."""
        previous = self._better_than_px
        if previous is None and self._reference is not None:
            previous = self._reference.location.reprojection_error_px
        cfg, error = self.settings, location.reprojection_error_px
        coarse = (
            previous is not None
            and error > cfg.coarse_residual_ratio * previous
            and error > previous + cfg.coarse_min_excess_px
        )
        if coarse and self._better_than_px is None:
            self._retries_left = self.settings.coarse_retries
        self._better_than_px = previous if coarse else None
        self._reference = self._make_reference(location, gray_half)

    def _refine(self, ref: _Reference, frame: Image, gray_half: Image) -> BoardLocation:
        """The board is still but its fit is coarse: a fresh detection replaces it when it
        fits better (the hand that hid the grid has gone), else the held fit stands."""
        self._retries_left -= 1
        if self._retries_left <= 0:
            self._better_than_px = None
        result = self._detect(frame)
        if (
            isinstance(result, BoardNotFound)
            or result.reprojection_error_px >= ref.location.reprojection_error_px
        ):
            return ref.location
        self._hold(result, gray_half)
        return result

    def _detect(self, frame: Image) -> LocateResult:
        """A fresh detection; one whose extent was guessed a whole square off the held
        fit's lattice is moved back onto the held fit's rows and columns."""
        self.redetections += 1
        found = self.locate(frame)
        if isinstance(found, BoardNotFound) or found.extent_known or self._reference is None:
            return found
        held = self._reference.location
        offset = self._squares_off(held, found)
        if offset is None:
            return found
        log.debug("fresh fit %s squares off the held one's lattice: kept on the held rows", offset)
        moved = shifted_squares(found, offset)
        return replace(moved, extent_known=held.extent_known)

    def _squares_off(self, held: BoardLocation, found: BoardLocation) -> tuple[int, int] | None:
        """The whole squares, not both zero, by which ``found``'s grid lies on ``held``'s
        board plane, when all four corners agree on it; else None."""
        off = held.to_board(found.corners_px) - held.to_board(held.corners_px)
        mean = off.mean(axis=0)
        whole = np.round(mean)
        tolerance = self.settings.lattice_tolerance_squares
        if not whole.any() or np.abs(off - whole).max() > tolerance:
            return None
        return int(whole[0]), int(whole[1])

    def _follow(self, ref: _Reference, gray_half: Image) -> BoardLocation | None:
        """``ref.location`` itself when the grid's corners stayed put, their new fit when
        they moved together, None when too few could be followed."""
        cfg = self.settings
        p0 = ref.half_points.astype(np.float32).reshape(-1, 1, 2)
        p1, status, _ = cv2.calcOpticalFlowPyrLK(  # type: ignore[call-overload]
            ref.gray_half,
            gray_half,
            p0,
            None,
            winSize=(cfg.flow_window_px, cfg.flow_window_px),
            maxLevel=cfg.flow_levels,
        )
        ok = status.ravel() == 1
        if ok.mean() < cfg.min_followed_share:
            return None
        moved = np.asarray(p1, np.float64).reshape(-1, 2)[ok]
        shift = np.hypot(*(moved - ref.half_points[ok]).T)
        half_side = ref.location.square_side_px() / 2
        if np.median(shift) < cfg.still_squares * half_side:
            return ref.location
        board_points, image_points = ref.board_points[ok], moved * 2
        kept = _consistent(board_points, image_points, cfg.max_residual_squares)
        if kept.sum() < cfg.min_followed_share * len(ok):
            return None
        fitted = fit_points(board_points[kept], image_points[kept], ref.location.size, "tracked")
        if (
            isinstance(fitted, BoardNotFound)
            or fitted.reprojection_error_px > cfg.max_residual_squares * half_side * 2
        ):
            return None
        return replace(fitted, extent_known=ref.location.extent_known)

    def _make_reference(self, location: BoardLocation, gray_half: Image) -> _Reference:
        # Every other inner corner: a still median needs no more, and flow costs per point.
        inner = np.arange(1, location.size, 2, dtype=np.float64)
        board_points = np.stack(np.meshgrid(inner, inner), axis=-1).reshape(-1, 2)
        return _Reference(
            location=location,
            gray_half=gray_half,
            board_points=board_points,
            half_points=location.to_image(board_points) / 2,
        )


def _consistent(board: FloatArray, image: FloatArray, limit_squares: float) -> np.ndarray:
    """Which followed points one homography explains within ``limit_squares`` (RANSAC).

    A point beside a piece just moved or under a hand's shadow is followed somewhere
    else, and one such point in a least-squares fit of 16 pulls the whole board off: a
    board nudged a pixel by the camera was then lost, not followed, on every frame its
    fresh detection failed (a rendered english game lost its last ply so)."""
    if len(board) < 4:
        return np.zeros(len(board), bool)
    h, mask = cv2.findHomography(image, board, cv2.RANSAC, limit_squares)
    if h is None or mask is None:
        return np.zeros(len(board), bool)
    return np.asarray(mask, bool).ravel()


def _half_gray(frame: Image) -> Image:
    """The frame at half size in grey (downscaled first: a quarter of the colour work)."""
    size = (max(1, frame.shape[1] // 2), max(1, frame.shape[0] // 2))
    half = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return to_gray(np.asarray(half, np.uint8))

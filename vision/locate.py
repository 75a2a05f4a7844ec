"""Board localisation: from a camera frame to a homography onto the board plane.

Two ways, both kept. With ArUco markers at the board corners (:mod:`vision.board_spec`)
the fit is exact and cheap. Without markers, OpenCV's sector-based chessboard detector
(``findChessboardCornersSB``) finds the inner corners of the N x N pattern; it tolerates
some occlusion and returns sub-pixel corners whose fit residual is the quality figure.
Failure is a :class:`BoardNotFound` value, never an exception, so the live loop goes on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.board_spec import MarkerBoardSpec

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

#: Longest image side the markerless detector works on (speed; corners are scaled back).
DETECT_MAX_SIDE = 800


@dataclass(frozen=True, slots=True)
class BoardLocation:
    """A located board.

    ``homography`` maps image pixels to the board plane in square sides, the playing grid
    spanning ``[0, size]^2``. ``corners_px`` are the grid's outer corners in the image, in
    board-plane order (0,0), (N,0), (N,N), (0,N). ``reprojection_error_px`` is the RMS fit
    residual of the points used.
    """

    homography: FloatArray
    size: int
    corners_px: FloatArray
    reprojection_error_px: float
    method: str

    def to_image(self, board_points: FloatArray) -> FloatArray:
        """Board-plane points (K, 2) to image pixels (K, 2)."""
        inverse = np.linalg.inv(self.homography)
        pts = board_points.reshape(-1, 1, 2).astype(np.float64)
        return np.asarray(cv2.perspectiveTransform(pts, inverse), np.float64).reshape(-1, 2)

    def image_corners_clockwise(self) -> FloatArray:
        """``corners_px`` reordered as seen in the image: top-left first, clockwise."""
        return order_clockwise_from_top_left(self.corners_px)


@dataclass(frozen=True, slots=True)
class BoardNotFound:
    """No board in this frame, and why (for logs and ``damcam read``)."""

    reason: str


LocateResult = BoardLocation | BoardNotFound


def order_clockwise_from_top_left(points: FloatArray) -> FloatArray:
    """Four image points as top-left, top-right, bottom-right, bottom-left (image y down)."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise on screen, starting near -pi (left)
    start = int(np.argmin(ordered.sum(axis=1)))  # top-left has the smallest x + y
    return np.asarray(np.roll(ordered, -start, axis=0), np.float64)


def _grid_corners(size: int) -> FloatArray:
    return np.array([[0.0, 0.0], [size, 0.0], [size, size], [0.0, size]], dtype=np.float64)


def _rms_residual(h_inv: FloatArray, board: FloatArray, image: FloatArray) -> float:
    projected = cv2.perspectiveTransform(board.reshape(-1, 1, 2), h_inv).reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((projected - image) ** 2, axis=1))))


def _location(board: FloatArray, image: FloatArray, size: int, method: str) -> LocateResult:
    """Fit the homography image -> board from matched points and package it."""
    h, _ = cv2.findHomography(image, board, 0)
    if h is None or abs(np.linalg.det(h)) < 1e-12:
        return BoardNotFound(f"{method}: degenerate point set")
    h_inv = np.asarray(np.linalg.inv(h), np.float64)
    corners = cv2.perspectiveTransform(_grid_corners(size).reshape(-1, 1, 2), h_inv)
    return BoardLocation(
        homography=np.asarray(h, np.float64),
        size=size,
        corners_px=np.asarray(corners, np.float64).reshape(4, 2),
        reprojection_error_px=_rms_residual(h_inv, board, image),
        method=method,
    )


def to_gray(frame: Image) -> Image:
    return frame if frame.ndim == 2 else np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


def locate_by_markers(frame: Image, size: int, spec: MarkerBoardSpec) -> LocateResult:
    """Homography from the ArUco markers of ``spec`` (all 16 marker corners when all four
    ids are seen).

    A board carrying four markers of the dictionary with other ids (a foreign layout) is
    still located: the markers are ordered around their centre and each one's corner
    nearest the centre is taken as a grid corner.
    """
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(spec.dictionary), cv2.aruco.DetectorParameters()
    )
    marker_corners, ids, _ = detector.detectMarkers(to_gray(frame))
    if ids is None:
        return BoardNotFound("no ArUco marker seen")
    found = {
        int(i): c.reshape(4, 2).astype(np.float64)
        for i, c in zip(ids.ravel(), marker_corners, strict=True)
    }
    if all(i in found for i in spec.ids):
        layout = spec.marker_corners(size)
        board = np.concatenate([layout[i] for i in spec.ids])
        image = np.concatenate([found[i] for i in spec.ids])
        return _location(board, image, size, "aruco")
    if len(found) != 4:
        return BoardNotFound(f"{len(found)} ArUco markers seen ({sorted(found)}), need 4")
    centres = np.array([c.mean(axis=0) for c in found.values()])
    middle = centres.mean(axis=0)
    inner = np.array([c[np.argmin(np.linalg.norm(c - middle, axis=1))] for c in found.values()])
    return _location(_grid_corners(size), order_clockwise_from_top_left(inner), size, "aruco-quad")


def locate_markerless(frame: Image, size: int) -> LocateResult:
    """Homography from the (size-1) x (size-1) inner corners of the checkered grid.

    The grid's own orientation is ambiguous under a 90 degree turn; board-plane (0, 0) is
    put at the image's top-left grid corner, and calibration fixes which side is White.
    """
    gray = to_gray(frame)
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    pattern = (size - 1, size - 1)
    flags = cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY | cv2.CALIB_CB_NORMALIZE_IMAGE
    ok, corners = cv2.findChessboardCornersSB(small, pattern, flags=flags)
    if not ok or corners is None:
        return BoardNotFound(f"no {size}x{size} checkered grid found")
    image = corners.reshape(-1, 2).astype(np.float64) / scale
    grid = np.mgrid[1:size, 1:size].T.reshape(-1, 2).astype(np.float64)  # row-major (x, y)
    location = _location(grid, image, size, "grid")
    if isinstance(location, BoardNotFound):
        return location
    return _normalise_origin(location, grid, image)


def _normalise_origin(location: BoardLocation, grid: FloatArray, image: FloatArray) -> LocateResult:
    """Turn the board plane so that its (0, 0) corner is the image's top-left grid corner."""
    n = location.size
    turns = [
        np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float64),
        np.array([[0, -1, n], [1, 0, 0], [0, 0, 1]], np.float64),
        np.array([[-1, 0, n], [0, -1, n], [0, 0, 1]], np.float64),
        np.array([[0, 1, 0], [-1, 0, n], [0, 0, 1]], np.float64),
    ]
    target = order_clockwise_from_top_left(location.corners_px)[0]
    best = min(
        turns,
        key=lambda t: float(
            np.linalg.norm(location.to_image((t @ [0.0, 0.0, 1.0])[:2].reshape(1, 2))[0] - target)
        ),
    )
    board = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), np.linalg.inv(best))
    board = np.asarray(board, np.float64).reshape(-1, 2)
    return _location(board, image, n, location.method)

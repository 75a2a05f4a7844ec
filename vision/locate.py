"""Board localisation: from a camera frame to a homography onto the board plane.

Two ways, both kept. With ArUco markers at the board corners (:mod:`vision.board_spec`)
the fit is exact and cheap. Without markers, the X-corners where four squares meet are
grown into a lattice (:mod:`vision.grid`); pieces hide some, and the residual of the fit
to the sub-pixel corners is the quality figure.
Failure is a :class:`BoardNotFound` value, never an exception, so the live loop goes on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.board_spec import MARKER_SIZE_MM, MarkerBoardSpec
from vision.grid import GridNotFound, GridSettings, find_grid, snap_to_x_corners

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class BoardLocation:
    """A located board.

    ``homography`` maps image pixels to the board plane in square sides, the playing grid
    spanning ``[0, size]^2``. ``corners_px`` are the grid's outer corners in the image, in
    board-plane order (0,0), (N,0), (N,N), (0,N). ``reprojection_error_px`` is the RMS fit
    residual of the points used. ``extent_known``: the fit itself fixes which rows and
    columns are the board's (markers, or X-corners on every inner line of the grid); else
    the grid's extent was chosen from where its cells alternate, which a hand over an
    edge row can move by a whole square.
    """

    homography: FloatArray
    size: int
    corners_px: FloatArray
    reprojection_error_px: float
    method: str
    extent_known: bool = True

    @classmethod
    def from_corners(cls, corners_px: npt.ArrayLike, size: int, method: str) -> BoardLocation:
        """The board through its four grid corners alone (board-plane order), as a label,
        a render's truth or a saved calibration gives them."""
        corners = np.asarray(corners_px, np.float64).reshape(4, 2)
        grid = _grid_corners(size).astype(np.float32)
        homography = cv2.getPerspectiveTransform(corners.astype(np.float32), grid)
        return cls(np.asarray(homography, np.float64), size, corners, 0.0, method)

    def to_image(self, board_points: FloatArray) -> FloatArray:
        """Board-plane points (K, 2) to image pixels (K, 2)."""
        inverse = np.linalg.inv(self.homography)
        pts = board_points.reshape(-1, 1, 2).astype(np.float64)
        return np.asarray(cv2.perspectiveTransform(pts, inverse), np.float64).reshape(-1, 2)

    def to_board(self, image_points: FloatArray) -> FloatArray:
        """Image pixels (K, 2) to board-plane points (K, 2)."""
        pts = image_points.reshape(-1, 1, 2).astype(np.float64)
        return np.asarray(cv2.perspectiveTransform(pts, self.homography), np.float64).reshape(-1, 2)

    def square_side_px(self) -> float:
        """Mean side of a square in the image, in pixels (from the grid's perimeter)."""
        c = self.corners_px
        perimeter = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).sum()
        return float(perimeter / (4 * self.size))

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


def fit_points(board: FloatArray, image: FloatArray, size: int, method: str) -> LocateResult:
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


def shifted_squares(location: BoardLocation, offset: tuple[int, int]) -> BoardLocation:
    """The same fit with its board plane moved by ``offset`` whole squares: a board point
    (x, y) of ``location`` is (x + dx, y + dy) of the result."""
    dx, dy = offset
    moved = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]) @ location.homography
    corners = cv2.perspectiveTransform(
        _grid_corners(location.size).reshape(-1, 1, 2), np.linalg.inv(moved)
    )
    return replace(
        location, homography=moved, corners_px=np.asarray(corners, np.float64).reshape(4, 2)
    )


def location_from_corners(corners_px: FloatArray, size: int, method: str) -> BoardLocation:
    """The location whose grid corners, in board-plane order, are ``corners_px``."""
    found = fit_points(_grid_corners(size), corners_px, size, method)
    if isinstance(found, BoardNotFound):
        raise ValueError(f"degenerate board corners {corners_px.tolist()}")
    return found


def to_gray(frame: Image) -> Image:
    return frame if frame.ndim == 2 else np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


def locate_by_markers(frame: Image, size: int, spec: MarkerBoardSpec) -> LocateResult:
    """Homography from the ArUco markers of ``spec`` (three or four of its ids), refined
    on the grid's X-corners.

    A board carrying four markers of the dictionary with other ids (a foreign layout) is
    still located: the markers are ordered around their centre and each one's corner
    nearest the centre is taken as a grid corner.
    """
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(spec.dictionary), cv2.aruco.DetectorParameters()
    )
    gray = to_gray(frame)
    found = _markers(detector, gray)
    if sum(i in found for i in spec.ids) < 3:
        # Far markers of a tilted board in a dim frame are a few pixels a cell: read again
        # at twice the size, the markers read at full size kept (the last 45 frames of a
        # dim 640x480 rendered game at 35 degrees: located in 30 instead of 9).
        larger = np.asarray(
            cv2.resize(gray, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC), np.uint8
        )
        upscaled = {i: (c + 0.5) / 2.0 - 0.5 for i, c in _markers(detector, larger).items()}
        found = upscaled | found
    if not found:
        return BoardNotFound("no ArUco marker seen")
    if sum(i in found for i in spec.ids) >= 3:
        return _fit_own_markers(gray, found, size, spec)
    if len(found) != 4:
        return BoardNotFound(
            f"{len(found)} ArUco markers seen ({sorted(found)}): need 3 of ids"
            f" {list(spec.ids)} or 4 of another layout"
        )
    centres = np.array([c.mean(axis=0) for c in found.values()])
    middle = centres.mean(axis=0)
    inner = np.array([c[np.argmin(np.linalg.norm(c - middle, axis=1))] for c in found.values()])
    return fit_points(_grid_corners(size), order_clockwise_from_top_left(inner), size, "aruco-quad")


def _markers(detector: cv2.aruco.ArucoDetector, gray: Image) -> dict[int, FloatArray]:
    """The markers ``detector`` reads in ``gray``: id -> its four corners (pixels)."""
    marker_corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {
        int(i): c.reshape(4, 2).astype(np.float64)
        for i, c in zip(ids.ravel(), marker_corners, strict=True)
    }


def _fit_own_markers(
    gray: Image, found: dict[int, FloatArray], size: int, spec: MarkerBoardSpec
) -> LocateResult:
    """Fit the corners of the layout's markers seen (three or four), after measuring the
    square size from them, then snap onto the grid's own X-corners.

    The printed layout is in millimetres and the board's square size is unknown, so a
    first fit maps the markers' corners nearest the grid onto the grid corners (an affine
    map when only three markers show: a hand or a piece hides the fourth); the markers'
    side in that plane gives the square size, and the exact layout follows. Last, the
    grid's X-corners near that fit replace the markers where enough are seen.
    """
    seen = [(i, k) for i, k in zip(spec.ids, (2, 3, 0, 1), strict=True) if i in found]
    quads = [found[i] for i, _ in seen]
    nearest = np.array([found[i][k] for i, k in seen])
    grid = _grid_corners(size)[[spec.ids.index(i) for i, _ in seen]]
    if len(seen) == 4:
        rough, _ = cv2.findHomography(nearest, grid, 0)
    else:
        affine = cv2.getAffineTransform(nearest.astype(np.float32), grid.astype(np.float32))
        rough = np.vstack([affine, [0.0, 0.0, 1.0]])
    if rough is None or abs(np.linalg.det(rough)) < 1e-12:
        return BoardNotFound("aruco: degenerate marker layout")
    plane = [
        np.asarray(cv2.perspectiveTransform(q.reshape(-1, 1, 2), rough), np.float64) for q in quads
    ]
    side = float(
        np.mean([np.linalg.norm(np.diff(p.reshape(4, 2), axis=0), axis=1).mean() for p in plane])
    )
    shrink = size / (size + 2 * spec.gap)  # the rough grid spans the markers' gap too
    square_mm = MARKER_SIZE_MM * shrink / side
    layout = spec.scaled(square_mm).marker_corners(size)
    board = np.concatenate([layout[i] for i, _ in seen])
    fitted = fit_points(board, np.concatenate(quads), size, "aruco")
    if isinstance(fitted, BoardNotFound):
        return fitted
    return snap_location(gray, fitted)


def snap_location(frame: Image, location: BoardLocation) -> BoardLocation:
    """``location`` refitted on the grid's inner X-corners found near where it puts them
    (:func:`vision.grid.snap_to_x_corners`); unchanged when too few are seen."""
    inverse = np.asarray(np.linalg.inv(location.homography), np.float64)
    snapped = snap_to_x_corners(to_gray(frame), inverse, location.size)
    if snapped is None:
        return location
    refitted = fit_points(snapped.board, snapped.image, location.size, location.method)
    return refitted if isinstance(refitted, BoardLocation) else location


def locate_markerless(
    frame: Image, size: int, settings: GridSettings | None = None
) -> LocateResult:
    """Homography from the X-corners of the checkered grid (:mod:`vision.grid`).

    Pieces hide the squares' centres, not the corners where four squares meet; the board's
    extent is where cells alternate, so its frame and printed coordinates are left out,
    and a checkered area of another size than ``size`` is refused with the size seen.
    The grid's own orientation is ambiguous under a 90 degree turn; board-plane (0, 0) is
    put at the image's top-left grid corner, and calibration fixes which side is White.
    """
    try:
        match = find_grid(frame, size, settings)
    except GridNotFound as error:
        return BoardNotFound(str(error))
    location = fit_points(match.board, match.image, size, "grid")
    if isinstance(location, BoardNotFound):
        return location
    if not cv2.isContourConvex(location.corners_px.astype(np.float32)):
        return BoardNotFound("checkered grid: the fitted board is not convex")
    located = _normalise_origin(location, match.board, match.image)
    if isinstance(located, BoardNotFound):
        return located
    # X-corners on the first and last inner lines leave one place for the board: moved by
    # a square, some would lie on its edge, where squares meet the frame in T corners.
    first, last = match.board.min(axis=0), match.board.max(axis=0)
    return replace(located, extent_known=bool(np.all(first <= 1) and np.all(last >= size - 1)))


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
    return fit_points(board, image, n, location.method)

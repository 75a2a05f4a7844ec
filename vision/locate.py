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

from vision.board_spec import MARKER_SIZE_MM, MarkerBoardSpec
from vision.grid import GridNotFound, GridSettings, find_grid

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

#: Longest image side the markerless detector works on (speed; corners are scaled back).
DETECT_MAX_SIDE = 640
#: A markerless grid whose cells alternate less than this is not a board (noise, tiles).
MIN_CHECKER_CONTRAST = 0.35


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


def location_from_corners(corners_px: FloatArray, size: int, method: str) -> BoardLocation:
    """The location whose grid corners, in board-plane order, are ``corners_px``."""
    found = _location(_grid_corners(size), corners_px, size, method)
    if isinstance(found, BoardNotFound):
        raise ValueError(f"degenerate board corners {corners_px.tolist()}")
    return found


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
        return _fit_own_markers(found, size, spec)
    if len(found) != 4:
        return BoardNotFound(f"{len(found)} ArUco markers seen ({sorted(found)}), need 4")
    centres = np.array([c.mean(axis=0) for c in found.values()])
    middle = centres.mean(axis=0)
    inner = np.array([c[np.argmin(np.linalg.norm(c - middle, axis=1))] for c in found.values()])
    return _location(_grid_corners(size), order_clockwise_from_top_left(inner), size, "aruco-quad")


def _fit_own_markers(
    found: dict[int, FloatArray], size: int, spec: MarkerBoardSpec
) -> LocateResult:
    """Fit all 16 marker corners, after measuring the square size from the markers.

    The printed layout is in millimetres and the board's square size is unknown, so a
    first fit maps the markers' corners nearest the grid onto the grid corners; the
    markers' side in that plane gives the square size, and the exact layout follows.
    """
    quads = [found[i] for i in spec.ids]
    nearest = np.array([q[k] for q, k in zip(quads, (2, 3, 0, 1), strict=True)])
    rough = _location(_grid_corners(size), nearest, size, "aruco")
    if isinstance(rough, BoardNotFound):
        return rough
    plane = [
        np.asarray(cv2.perspectiveTransform(q.reshape(-1, 1, 2), rough.homography), np.float64)
        for q in quads
    ]
    side = float(
        np.mean([np.linalg.norm(np.diff(p.reshape(4, 2), axis=0), axis=1).mean() for p in plane])
    )
    shrink = size / (size + 2 * spec.gap)  # the rough grid spans the markers' gap too
    square_mm = MARKER_SIZE_MM * shrink / side
    layout = spec.scaled(square_mm).marker_corners(size)
    board = np.concatenate([layout[i] for i in spec.ids])
    return _location(board, np.concatenate(quads), size, "aruco")


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
    location = _location(match.board, match.image, size, "grid")
    if isinstance(location, BoardNotFound):
        return location
    if not cv2.isContourConvex(location.corners_px.astype(np.float32)):
        return BoardNotFound("checkered grid: the fitted board is not convex")
    return _normalise_origin(location, match.board, match.image)


def locate_chessboard_sb(frame: Image, size: int) -> LocateResult:
    """The earlier markerless path: OpenCV's sector-based chessboard detector
    (``findChessboardCornersSB``) plus the N x N window with the strongest checker contrast.
    Kept for comparison in ``bench.vision``; about 0.4 s a frame."""
    gray = to_gray(frame)
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape))
    small: Image = np.asarray(
        cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8
    )
    flags = (
        cv2.CALIB_CB_EXHAUSTIVE
        | cv2.CALIB_CB_ACCURACY
        | cv2.CALIB_CB_NORMALIZE_IMAGE
        | cv2.CALIB_CB_LARGER
    )
    cv2.setRNGSeed(0)  # the detector samples at random: same frame, same answer
    ok, corners, meta = cv2.findChessboardCornersSBWithMeta(small, (3, 3), flags=flags)
    if not ok or corners is None or meta is None:
        return BoardNotFound(f"no {size}x{size} checkered grid found")
    image = np.asarray(corners, np.float64).reshape(-1, 2)
    fit = _fit_lattice(image, *meta.shape[:2])
    if fit is None:
        return BoardNotFound("checkered grid: degenerate corners")
    h, lattice = fit
    cols, rows = (lattice.max(axis=0) + 1).astype(int)
    ox, oy, contrast = _best_window(small, np.asarray(h, np.float64), cols - 1, rows - 1, size)
    if contrast < MIN_CHECKER_CONTRAST:
        return BoardNotFound(f"checkered grid: cells barely alternate (contrast {contrast:.2f})")
    board = lattice - [ox, oy]
    location = _location(board, image / scale, size, "grid-sb")
    if isinstance(location, BoardNotFound):
        return location
    if not cv2.isContourConvex(location.corners_px.astype(np.float32)):
        return BoardNotFound("checkered grid: the fitted board is not convex")
    return _normalise_origin(location, board, image / scale)


def _fit_lattice(image: FloatArray, a: int, b: int) -> tuple[FloatArray, FloatArray] | None:
    """Lattice coordinates (col, row) of row-major corners; the detector's meta shape does
    not say which side is the row, so both readings are fitted and the better one kept."""
    fits = []
    for cols in {a, b}:
        k = np.arange(len(image))
        lattice = np.stack([k % cols, k // cols], axis=1).astype(np.float64)
        h, _ = cv2.findHomography(image, lattice, 0)
        if h is not None:
            fitted = np.asarray(h, np.float64)
            inverse = np.asarray(np.linalg.inv(fitted), np.float64)
            fits.append((_rms_residual(inverse, lattice, image), fitted, lattice))
    if not fits:
        return None
    _, h, lattice = min(fits, key=lambda f: f[0])
    return h, lattice


def _window_starts(span: int, size: int) -> range:
    """Offsets o such that [o, o + size] and the detected [0, span] overlap best."""
    low, high = sorted((0, span - size))
    return range(low, high + 1)


def _best_window(
    gray: Image, h: FloatArray, span_x: int, span_y: int, size: int, px: int = 12
) -> tuple[int, int, float]:
    """The N x N window of the lattice with the strongest alternating (checker) contrast,
    and that contrast in [0, 1] (1: every cell sits on its colour's side of the mean)."""
    xs, ys = _window_starts(span_x, size), _window_starts(span_y, size)
    x0, y0 = xs.start, ys.start
    cells_x, cells_y = len(xs) + size - 1, len(ys) + size - 1
    shift = np.array([[px, 0, -x0 * px], [0, px, -y0 * px], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(gray, shift @ h, (cells_x * px, cells_y * px))
    inner = warped.reshape(cells_y, px, cells_x, px)[:, px // 4 : -px // 4, :, px // 4 : -px // 4]
    means = inner.mean(axis=(1, 3))
    sign = np.where((np.add.outer(np.arange(cells_y), np.arange(cells_x)) % 2) == 0, 1.0, -1.0)
    signed = sign * (means - means.mean())
    best = max(
        (
            (abs(float(signed[j : j + size, i : i + size].sum())), i, j)
            for i in range(len(xs))
            for j in range(len(ys))
        ),
    )
    window = means[best[2] : best[2] + size, best[1] : best[1] + size]
    spread = float(np.abs(window - window.mean()).sum())
    return best[1] + x0, best[2] + y0, best[0] / spread if spread > 0 else 0.0


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

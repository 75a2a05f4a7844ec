"""Markerless board detection: X-corners of the checker pattern grown into a lattice.

Why our own detector: ``cv2.findChessboardCornersSB`` wants an empty pattern and costs
about 0.4 s a frame here, and a Hough-line search (ChessCog) takes 0.13 s on a desktop.
Pieces stand on the squares' centres, so the corners where four squares meet stay mostly
visible; those are saddle points of the image and pass a 16-sample ring test (ChESS,
Bennett & Lasenby 2014). From the strongest ones a lattice is grown step by step with a
homography refitted each round, which follows perspective up to about 45 degrees. The
board's extent is where the cells alternate in colour: its frame and printed coordinates
do not, and a checkered run longer than the variant's board is refused.

This module finds matched points (board-plane labels, image pixels); :mod:`vision.locate`
fits and packages them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Image = npt.NDArray[np.uint8]

#: Board sizes of the variants (7x7 Lasca, 8x8, 10x10); the lattice never grows
#: beyond the largest.
BOARD_SIZES = (7, 8, 10)
_RING_SAMPLES = 16


class GridNotFound(ValueError):
    """No checkered board of the wanted size in the frame; the message says why."""


@dataclass(frozen=True, slots=True)
class GridSettings:
    """Thresholds of the lattice detector; ``*_work_px`` are pixels of the downscaled frame."""

    work_long_side_px: int = 640
    blur_sigma_work_px: float = 1.5
    saddle_rel_threshold: float = 0.01
    """Keep saddle points stronger than this fraction of the strongest."""
    max_candidates: int = 800
    ring_radius_work_px: float = 4.0
    """Radius of the 16-sample ring of the X-corner (ChESS) test."""
    seed_min_xscore: float = 0.35
    grow_min_xscore: float = 0.3
    seeds_tried: int = 12
    neighbour_tolerance: float = 0.3
    """Search radius, as a fraction of the local square side, when growing the lattice."""
    min_lattice_corners: int = 9
    board_min_contrast: float = 0.2
    """Every row and column of the board alternates with at least this fraction of the
    checker contrast between the detected corners (rows of pieces measure 0.3 and more,
    a board's frame below 0.2)."""
    beyond_min_contrast: float = 0.25
    beyond_ratio: float = 0.7
    """A line beyond the board that alternates more than ``beyond_min_contrast`` (same
    measure) and ``beyond_ratio`` times the line before it means the checkered area is
    bigger than the variant's board."""
    cell_sample_px: int = 12
    """Pixels per square of the small warp that measures cell colours."""
    min_checker_share: float = 0.5
    """A grown lattice whose cells alternate in colour by less than this share of how much
    they vary is taken for one grown along the squares' diagonals (:func:`along_edges`).
    Lattices along the edges score 0.99 and more on three damas photos and 0.5 and more on
    40 chess photos; the one WA0045 grew, 0.10."""
    subpix_window_px: int = 5


@dataclass(frozen=True, slots=True)
class GridMatch:
    """X-corners of a located board: ``board`` (K, 2) labels in ``[0, size]``, ``image``
    (K, 2) sub-pixel positions in the full frame."""

    size: int
    board: FloatArray
    image: FloatArray


@dataclass(frozen=True, slots=True)
class Lattice:
    """X-corners with integer lattice labels (K, 2) and work-image positions (K, 2)."""

    labels: IntArray
    points: FloatArray


def find_grid(frame: Image, size: int, settings: GridSettings | None = None) -> GridMatch:
    """The X-corners of a ``size`` x ``size`` checkered board in a BGR (or grey) frame.

    :raises GridNotFound: too few corners in a lattice, or a checkered area that is not a
        board of ``size`` squares (the message gives the size seen).
    """
    cfg = settings or GridSettings()
    scale = min(1.0, cfg.work_long_side_px / max(frame.shape[:2]))
    work = np.asarray(
        cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8
    )
    if work.ndim == 2:
        work = np.asarray(cv2.cvtColor(work, cv2.COLOR_GRAY2BGR), np.uint8)
    gray = np.asarray(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), np.uint8)
    points, xscore = x_corner_candidates(cfg, gray)
    lattice = best_lattice(cfg, work, gray, points, xscore, size)
    if lattice is None:
        raise GridNotFound("no checkered grid (too few X-corners in a lattice)")
    origin = board_extent(cfg, work, lattice, size)
    labels = lattice.labels - origin
    # Corners on the board's edge meet its frame, not four squares: fit the inner ones
    # when there are enough.
    inside = np.all((labels >= 1) & (labels <= size - 1), axis=1)
    if inside.sum() < cfg.min_lattice_corners:
        inside = np.all((labels >= 0) & (labels <= size), axis=1)
    full_gray = np.asarray(
        frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8
    )
    refined = refine_corners(cfg, full_gray, lattice.points[inside] / scale, scale)
    return GridMatch(size, unmirrored(labels[inside].astype(np.float64), refined), refined)


def unmirrored(labels: FloatArray, image: FloatArray) -> FloatArray:
    """``labels`` with x and y swapped when they run against the image's handedness.

    The lattice is grown from two arbitrary neighbours of a seed, so its labels may be
    the board transposed; a transposed plane is not a turn of the board, and read as one
    it would show every row backwards. With image y down, a board plane that is only
    turned has x cross y pointing the same way as the image's own axes.
    """
    fitted, _ = cv2.findHomography(labels, image, 0)
    if fitted is None:
        return labels
    origin, x_end, y_end = _project(np.asarray(fitted, np.float64), [[0, 0], [1, 0], [0, 1]])
    x_axis, y_axis = x_end - origin, y_end - origin
    if x_axis[0] * y_axis[1] - x_axis[1] * y_axis[0] >= 0:
        return labels
    return np.ascontiguousarray(labels[:, ::-1])


def x_corner_candidates(cfg: GridSettings, gray: Image) -> tuple[FloatArray, FloatArray]:
    """Saddle points of the blurred image, strongest first (K, 2), and their X-corner
    scores in [-1, 1] (K,)."""
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), cfg.blur_sigma_work_px)
    gxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    gyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    gxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    saddle = gxy * gxy - gxx * gyy  # positive where the Hessian's eigenvalues differ in sign
    np.maximum(saddle, 0, out=saddle)
    peak = float(saddle.max())
    if peak <= 0:
        return np.empty((0, 2)), np.empty(0)
    local_max = cv2.dilate(saddle, np.ones((5, 5), np.uint8))
    ys, xs = np.nonzero((saddle >= local_max) & (saddle > cfg.saddle_rel_threshold * peak))
    order = np.argsort(-saddle[ys, xs])[: cfg.max_candidates]
    points = np.stack([xs[order], ys[order]], axis=1).astype(np.float64)
    return points, ring_score(gray, points, cfg.ring_radius_work_px)


def ring_score(gray: Image, points: FloatArray, radius: float) -> FloatArray:
    """ChESS-style X-corner score, normalised by the ring's contrast: on a ring of 16
    samples an X-corner has opposite samples alike and samples a quarter turn apart
    different."""
    if len(points) == 0:
        return np.empty(0)
    angles = np.arange(_RING_SAMPLES) * 2 * np.pi / _RING_SAMPLES
    xs = np.rint(points[:, :1] + radius * np.cos(angles)).astype(np.intp)
    ys = np.rint(points[:, 1:] + radius * np.sin(angles)).astype(np.intp)
    np.clip(xs, 0, gray.shape[1] - 1, out=xs)
    np.clip(ys, 0, gray.shape[0] - 1, out=ys)
    v = gray[ys, xs].astype(np.float64)
    q = _RING_SAMPLES // 4
    sum_response = np.abs(v[:, :q] + v[:, 2 * q : 3 * q] - v[:, q : 2 * q] - v[:, 3 * q :]).sum(1)
    diff_response = np.abs(v[:, : 2 * q] - v[:, 2 * q :]).sum(1)
    contrast = v.max(axis=1) - v.min(axis=1) + 1.0
    return np.asarray((sum_response - diff_response) / (contrast * 2 * q), np.float64)


def best_lattice(
    cfg: GridSettings,
    work: Image,
    gray: Image,
    points: FloatArray,
    xscore: FloatArray,
    size: int = max(BOARD_SIZES),
) -> Lattice | None:
    """The largest lattice grown from the strongest seeds, taken along the squares' edges
    (:func:`along_edges`), or None. Stops early once one holds every inner corner of a
    ``size`` board. ``work``: the BGR image ``gray`` was made from."""
    usable = xscore >= cfg.grow_min_xscore
    pts, scores = points[usable], xscore[usable]
    best: tuple[IntArray, npt.NDArray[np.intp]] | None = None
    taken = np.zeros(len(pts), dtype=bool)
    tried = 0
    for seed in np.argsort(-scores):
        if tried >= cfg.seeds_tried or scores[seed] < cfg.seed_min_xscore:
            break
        if taken[seed]:
            continue
        tried += 1
        found = grow_lattice(cfg, gray, pts, int(seed))
        if found is None:
            continue
        labels, members = found
        taken[members] = True
        if best is None or len(members) > len(best[0]):
            best = (labels, members)
        if len(members) >= (size - 1) ** 2:
            break
    if best is None or len(best[0]) < cfg.min_lattice_corners:
        return None
    labels, members = best
    labels = along_edges(cfg, work, labels, pts[members])
    labels, members = extend_across_gaps(cfg, pts, labels, members)
    return Lattice(labels=labels, points=pts[members])


#: How a lattice's unit steps may lie on the board's squares (rows: its steps (1, 0) and
#: (0, 1) in squares), up to the board's own symmetries: a step runs along a square's edge,
#: across its diagonal, or over two squares, and two steps span the board's lattice or
#: one of its halves.
_GROWN_STEPS = tuple(
    np.array(steps, np.int64)
    for steps in (
        ((1, 0), (1, 1)),
        ((1, 0), (0, 2)),
        ((1, 0), (-1, -1)),
        ((1, 1), (1, 0)),
        ((1, 1), (1, -1)),
        ((1, 1), (2, 0)),
        ((1, 1), (-1, 0)),
        ((1, 1), (-2, 0)),
        ((2, 0), (0, 1)),
        ((2, 0), (1, 1)),
        ((2, 0), (-1, -1)),
    )
)


def along_edges(cfg: GridSettings, work: Image, labels: IntArray, points: FloatArray) -> IntArray:
    """``labels`` relabelled so that each unit step runs along a square's edge.

    Growing takes the nearest X-corners as steps, and where tall pieces hide the nearer
    ones a step may cross a square's diagonal or two squares: such a lattice is
    self-consistent, holds every other corner, and its cells do not alternate in colour
    (the damas photo WA0045, seen from low, grew one read as a grid 11 squares wide). Of
    the ways its steps may lie on the squares (:data:`_GROWN_STEPS`), the one whose cells
    alternate most is taken; :func:`extend_across_gaps` then finds the corners it
    skipped."""
    share = _checker_share(cfg, work, labels, points)
    if share >= cfg.min_checker_share:
        return labels
    relabelled = [labels @ steps for steps in _GROWN_STEPS]
    shares = [_checker_share(cfg, work, found, points) for found in relabelled]
    best = int(np.argmax(shares))
    if shares[best] < max(share, cfg.min_checker_share):
        return labels
    return np.asarray(relabelled[best] - relabelled[best].min(axis=0), np.int64)


def _checker_share(cfg: GridSettings, work: Image, labels: IntArray, points: FloatArray) -> float:
    """How much the cells between ``labels`` alternate in colour, as a share of how much
    they vary: 1 for a checkerboard, near 0 where the labels do not run along its squares."""
    fitted, _ = cv2.findHomography(labels.astype(np.float64), points, 0)
    if fitted is None:
        return 0.0
    lo, hi = labels.min(axis=0), labels.max(axis=0)
    span = int(max(hi - lo))
    if span < 2 or span > 2 * max(BOARD_SIZES):
        return 0.0
    to_origin = np.array([[1, 0, lo[0]], [0, 1, lo[1]], [0, 0, 1]], np.float64)
    colours = cell_colours(cfg, work, np.asarray(fitted, np.float64) @ to_origin, 0, span)
    deviation = colours - colours.reshape(-1, 3).mean(axis=0)
    parity = np.where(np.add.outer(np.arange(span), np.arange(span)) % 2 == 0, 1.0, -1.0)
    alternating = np.linalg.norm((deviation * parity[..., None]).mean(axis=(0, 1)))
    varying = float(np.linalg.norm(deviation, axis=2).mean())
    return float(alternating) / max(varying, 1e-6)


def extend_across_gaps(
    cfg: GridSettings, pts: FloatArray, labels: IntArray, members: npt.NDArray[np.intp]
) -> tuple[IntArray, npt.NDArray[np.intp]]:
    """Add the corners that growing step by step cannot reach: those beyond an arm laid
    across the board. Every label within a board's reach of the lattice is predicted by its
    homography and takes the nearest free candidate close enough; refitted until none is
    added."""
    max_span = max(BOARD_SIZES)
    while True:
        fitted, _ = cv2.findHomography(labels.astype(np.float64), pts[members], 0)
        if fitted is None:
            break
        h = np.asarray(fitted, np.float64)
        lo, hi = labels.min(axis=0), labels.max(axis=0)
        xs = np.arange(hi[0] - max_span + 1, lo[0] + max_span)
        ys = np.arange(hi[1] - max_span + 1, lo[1] + max_span)
        window = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        known = {(int(x), int(y)) for x, y in labels}
        free = np.array([(int(x), int(y)) not in known for x, y in window])
        candidates = window[free].astype(np.float64)
        if len(candidates) == 0:
            break
        predicted = _project(h, candidates)
        side = _local_side(h, candidates)
        distance = np.linalg.norm(predicted[:, None, :] - pts[None, :, :], axis=2)
        distance[:, members] = np.inf
        nearest = np.argmin(distance, axis=1)
        close = distance[np.arange(len(candidates)), nearest] < cfg.neighbour_tolerance * side
        # One candidate per label and one label per candidate.
        chosen: dict[int, int] = {}
        for k in np.flatnonzero(close):
            if int(nearest[k]) not in chosen:
                chosen[int(nearest[k])] = int(k)
        found = {tuple(int(v) for v in candidates[k]): point for point, k in chosen.items()}
        # A lone match is a stray saddle (a piece off the board, a letter); the corners
        # beyond an arm come as rows, each next to another.
        steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
        beside = known | found.keys()
        found = {
            label: point
            for label, point in found.items()
            if sum((label[0] + dx, label[1] + dy) in beside for dx, dy in steps) >= 2
        }
        if not found:
            break
        new_labels = np.array(list(found), dtype=np.int64)
        labels = np.vstack([labels, new_labels])
        members = np.concatenate([members, np.array(list(found.values()), dtype=np.intp)])
    return labels - labels.min(axis=0), members


def _seed_cell(
    cfg: GridSettings, gray: Image, pts: FloatArray, seed: int
) -> tuple[FloatArray, FloatArray] | None:
    """Two lattice steps at a seed: two of its near neighbours, roughly perpendicular and
    alike in length, whose sum is a third point (a whole cell), each step running along a
    square's edge. A cell, rather than a cross of four neighbours, also starts a lattice
    at the board's edge or corner; the quadrant test refuses the diagonal lattice (steps
    across a square to its opposite corner), which is self-consistent too when tall
    pieces hide the nearer corners."""
    d = pts - pts[seed]
    dist = np.hypot(d[:, 0], d[:, 1])
    dist[seed] = np.inf
    near = np.argsort(dist)[:6]
    pairs = sorted(
        ((dist[j] + dist[k], j, k) for j in near for k in near if j < k),
        key=lambda p: p[0],
    )
    for _, j, k in pairs:
        a, b, la, lb = d[j], d[k], dist[j], dist[k]
        if abs(float(a @ b)) / (la * lb) > 0.6 or not 0.5 < lb / la < 2.0:
            continue
        diagonal = pts[seed] + a + b
        closes = np.hypot(*(pts[_nearest(pts, diagonal)] - diagonal)) < (
            cfg.neighbour_tolerance * min(la, lb)
        )
        if not closes:
            continue
        along = _checker_quadrants(gray, pts[seed], a, b)
        across = _checker_quadrants(gray, pts[seed], (a + b) / 2, (a - b) / 2)
        if along > across:
            return a, b
    return None


def _checker_quadrants(gray: Image, corner: FloatArray, u: FloatArray, v: FloatArray) -> float:
    """How strongly the four quadrants around an X-corner, taken along directions ``u``
    and ``v``, alternate: samples at ``corner +- r (u + v)`` against ``corner +- r (u - v)``
    for small r. Along a square's edges (the true lattice axes) these lie inside the four
    squares; along the diagonals they lie on the edges and barely differ."""
    radii = np.array([0.1, 0.15, 0.2])
    same = np.concatenate([corner + np.outer(sign * radii, u + v) for sign in (1.0, -1.0)])
    other = np.concatenate([corner + np.outer(sign * radii, u - v) for sign in (1.0, -1.0)])
    return abs(float(_sample(gray, same).mean() - _sample(gray, other).mean()))


def _sample(gray: Image, points: FloatArray) -> FloatArray:
    xs = np.clip(np.rint(points[:, 0]), 0, gray.shape[1] - 1).astype(np.intp)
    ys = np.clip(np.rint(points[:, 1]), 0, gray.shape[0] - 1).astype(np.intp)
    return gray[ys, xs].astype(np.float64)


def _project(h: FloatArray, points: npt.ArrayLike) -> FloatArray:
    out = cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), h)
    return np.asarray(out, np.float64).reshape(-1, 2)


def _local_side(h: FloatArray, labels: FloatArray) -> FloatArray:
    """The image length (K,) of a square's shorter side at each lattice label, under the
    lattice -> image homography ``h``."""
    sides = [
        np.hypot(*(_project(h, labels + step) - _project(h, labels - step)).T)
        for step in (np.array([0.5, 0.0]), np.array([0.0, 0.5]))
    ]
    return np.asarray(np.minimum(*sides), np.float64)


def grow_lattice(
    cfg: GridSettings, gray: Image, pts: FloatArray, seed: int
) -> tuple[IntArray, npt.NDArray[np.intp]] | None:
    """Grow integer labels outward from a seed, refitting the lattice -> image homography
    each round; returns (labels (K, 2) from 0, indices into ``pts``)."""
    cell = _seed_cell(cfg, gray, pts, seed)
    if cell is None:
        return None
    a, b = cell
    known = {
        label: _nearest(pts, pts[seed] + i * a + j * b)
        for label in ((0, 0), (1, 0), (0, 1), (1, 1))
        for i, j in (label,)
    }
    if len(set(known.values())) < 4:
        return None
    max_span = max(BOARD_SIZES)
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    while True:
        labels = np.array(list(known), dtype=np.float64)
        fitted, _ = cv2.findHomography(labels, pts[list(known.values())], 0)
        if fitted is None:
            return None
        h = np.asarray(fitted, np.float64)
        lo, hi = labels.min(axis=0), labels.max(axis=0)
        frontier = sorted(
            f
            for f in {(i + di, j + dj) for i, j in known for di, dj in steps} - known.keys()
            if max(hi[0], f[0]) - min(lo[0], f[0]) < max_span
            and max(hi[1], f[1]) - min(lo[1], f[1]) < max_span
        )
        if not frontier:
            break
        grid = np.array(frontier, dtype=np.float64)
        predicted = _project(h, grid)
        step = _local_side(h, grid)
        distance = np.linalg.norm(predicted[:, None, :] - pts[None, :, :], axis=2)
        nearest = np.argmin(distance, axis=1)
        close = distance[np.arange(len(frontier)), nearest] <= cfg.neighbour_tolerance * step
        used = set(known.values())
        added = 0
        for k in np.flatnonzero(close):
            idx = int(nearest[k])
            if idx not in used:
                known[frontier[k]] = idx
                used.add(idx)
                added += 1
        if not added:
            break
    labels_arr = np.array(list(known), dtype=np.int64)
    return labels_arr - labels_arr.min(axis=0), np.array(list(known.values()), dtype=np.intp)


def _nearest(pts: FloatArray, pos: FloatArray) -> int:
    return int(np.argmin(np.sum((pts - pos) ** 2, axis=1)))


def cell_colours(
    cfg: GridSettings, work: Image, homography: FloatArray, lo: int, hi: int
) -> FloatArray:
    """Lab colour of lattice cells ``lo..hi-1`` on both axes, shape (rows, cols, 3).

    Each cell is sampled near its four corners, which a piece standing on it leaves
    visible, rather than at its centre.
    """
    px = cfg.cell_sample_px
    n = hi - lo
    to_lattice = np.array([[1 / px, 0, lo], [0, 1 / px, lo], [0, 0, 1]], dtype=np.float64)
    warped = cv2.warpPerspective(
        work,
        homography @ to_lattice,
        (n * px, n * px),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
    )
    lab = cv2.cvtColor(warped, cv2.COLOR_BGR2LAB).astype(np.float64)
    cells = lab.reshape(n, px, n, px, 3).transpose(0, 2, 1, 3, 4)
    k = max(1, px // 4)
    corners = np.concatenate(
        [
            cells[:, :, 1 : 1 + k, 1 : 1 + k],
            cells[:, :, 1 : 1 + k, -1 - k : -1],
            cells[:, :, -1 - k : -1, 1 : 1 + k],
            cells[:, :, -1 - k : -1, -1 - k : -1],
        ],
        axis=2,
    )
    return np.asarray(np.median(corners.reshape(n, n, -1, 3), axis=2), np.float64)


def board_extent(cfg: GridSettings, work: Image, lattice: Lattice, size: int) -> IntArray:
    """The lattice label of the board's first corner, from where the cells alternate.

    :raises GridNotFound: the checkered area is not a board of ``size`` squares.
    """
    h, _ = cv2.findHomography(lattice.labels.astype(np.float64), lattice.points, 0)
    if h is None:
        raise GridNotFound("degenerate X-corner lattice")
    span = lattice.labels.max(axis=0)
    if max(span) > size:
        found = int(max(span))
        raise GridNotFound(
            f"the checkered grid is at least {found}x{found} squares, expected {size}x{size}"
        )
    margin = max(3, size - 1 - int(span.min()))
    lo, hi = -margin, int(max(span)) + margin
    colours = cell_colours(cfg, work, np.asarray(h, np.float64), lo, hi)  # rows: lattice y
    n = hi - lo
    parity = np.where((np.add.outer(np.arange(n), np.arange(n)) % 2) == 0, 1.0, -1.0)
    # Cells certainly on the board: between detected corners.
    rows_in = slice(margin, margin + int(span[1]))
    cols_in = slice(margin, margin + int(span[0]))
    # Each line is centred on its own mean, so that a plain frame scores zero even over an
    # odd number of cells.
    down = colours[rows_in] - colours[rows_in].mean(axis=0)
    across = colours[:, cols_in] - colours[:, cols_in].mean(axis=1, keepdims=True)
    col_contrast = np.linalg.norm((down * parity[rows_in, :, None]).mean(axis=0), axis=1)
    row_contrast = np.linalg.norm((across * parity[:, cols_in, None]).mean(axis=1), axis=1)
    # An extent whose edge carries X-corners (four squares meeting on what would be the
    # board's edge) is taken only where none can do without: the cells beside the edge
    # may not alternate for all that, under tall pieces of the board's dark colour.
    best: tuple[int, float, int, int] | None = None
    for start_x in _starts(int(span[0]), size, margin):
        for start_y in _starts(int(span[1]), size, margin):
            score = _extent_score(col_contrast, start_x, size) + _extent_score(
                row_contrast, start_y, size
            )
            ends = _open_ends(lattice.labels, start_x - margin, start_y - margin, size)
            closed = -sum(sum(axis) for axis in ends)
            if best is None or (closed, score) > best[:2]:
                best = (closed, score, start_x, start_y)
    if best is None:
        raise GridNotFound(f"the checkered grid does not fit a {size}x{size} board")
    _, _, start_x, start_y = best
    strength = max(float(col_contrast[cols_in].mean()), 1e-6)
    open_ends = _open_ends(lattice.labels, start_x - margin, start_y - margin, size)
    for axis, contrast, start, seen in (
        (0, col_contrast, start_x, cols_in),
        (1, row_contrast, start_y, rows_in),
    ):
        # Lines between detected X-corners are board even where a hand hides their colours.
        lines = np.arange(start, start + size)
        alternating = (contrast[start : start + size] > cfg.board_min_contrast * strength) | (
            (lines >= seen.start) & (lines < seen.stop)
        )
        if not alternating.all():
            raise GridNotFound(
                f"only {int(alternating.sum())} of {size} lines of cells alternate:"
                f" the checkered board is smaller than {size}x{size}, or a hand or the"
                " picture's edge hides its outer squares"
            )
        run = _checkered_run(cfg, contrast / strength, start, size, open_ends[axis])
        if run > size:
            raise GridNotFound(
                f"the checkered grid is about {run} squares wide, expected {size}x{size}"
            )
    return np.array([start_x - margin, start_y - margin], dtype=np.int64)


def _starts(span: int, n_sq: int, margin: int) -> range:
    """Cell index (in the margin-offset array) where a board of n_sq cells may start so
    that every detected corner (labels 0..span) lies on it, its edge included."""
    return range(max(margin + span - n_sq, 0), margin + 1)


def _extent_score(contrast: FloatArray, start: int, n_sq: int) -> float:
    """Checker contrast inside the board's run minus that of the two cells beyond it."""
    inside = float(contrast[start : start + n_sq].sum())
    outside = sum(float(contrast[i]) for i in (start - 1, start + n_sq) if 0 <= i < len(contrast))
    return inside - 2.0 * outside


def _open_ends(
    labels: IntArray, origin_x: int, origin_y: int, size: int
) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """For each axis, whether the board's two edges (at the lattice labels ``origin`` and
    ``origin + size``) carry X-corners on a third of their inner points: four squares
    meet there, so the checkered area goes on beyond that edge. A board's real edge meets
    its frame in L and T corners, which the ring test leaves out."""
    origin = (origin_x, origin_y)
    needed = max(2, (size - 1) // 3)
    ends = []
    for axis in (0, 1):
        other = labels[:, 1 - axis] - origin[1 - axis]
        within = (other > 0) & (other < size)
        ends.append(
            tuple(
                int(np.sum(within & (labels[:, axis] == origin[axis] + edge))) >= needed
                for edge in (0, size)
            )
        )
    return (ends[0][0], ends[0][1]), (ends[1][0], ends[1][1])


def _checkered_run(
    cfg: GridSettings, contrast: FloatArray, start: int, n_sq: int, open_ends: tuple[bool, bool]
) -> int:
    """Cells in the checkered run through the chosen board along one axis.

    A line beyond the board continues the run when the edge it lies behind is open (see
    :func:`_open_ends`) and it alternates nearly as much as the line before it: a row of
    pieces on a bigger board does (0.3 or more, like its neighbours), printed letters or
    a logo on the frame do not, even where they score 0.5.
    """

    def continues(i: int, previous: int) -> bool:
        floor = max(cfg.beyond_min_contrast, cfg.beyond_ratio * float(contrast[previous]))
        return 0 <= i < len(contrast) and float(contrast[i]) > floor

    run = n_sq
    i = start - 1
    while open_ends[0] and continues(i, i + 1):
        run, i = run + 1, i - 1
    i = start + n_sq
    while open_ends[1] and continues(i, i - 1):
        run, i = run + 1, i + 1
    return run


def refine_corners(
    cfg: GridSettings, gray: Image, points_px: FloatArray, scale: float
) -> FloatArray:
    """Sub-pixel X-corner positions in the full frame (``cv2.cornerSubPix``)."""
    if len(points_px) == 0:
        return points_px
    window = max(2, round(cfg.subpix_window_px / scale))
    pts = points_px.astype(np.float32).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
    refined = cv2.cornerSubPix(gray, pts, (window, window), (-1, -1), criteria)
    out = np.asarray(refined, np.float64).reshape(-1, 2)
    # A corner that wandered off (hidden by a piece) keeps its coarse position.
    moved = np.hypot(*(out - points_px).T) > window
    out[moved] = points_px[moved]
    return out


def snap_to_x_corners(
    gray: Image, board_to_image: FloatArray, size: int, settings: GridSettings | None = None
) -> GridMatch | None:
    """The board's inner X-corners found near where a rough fit (markers) puts them.

    Marker corners lie outside the grid, so small errors in them grow towards the board's
    far side; the X-corners are on the grid itself. Each predicted corner is refined with
    ``cv2.cornerSubPix`` and kept when it stayed close and passes the ring test. None when
    fewer than ``min_lattice_corners`` pass (a board covered by hands, or not checkered).
    """
    cfg = settings or GridSettings()
    inner = np.arange(1, size, dtype=np.float64)
    labels = np.stack(np.meshgrid(inner, inner), axis=-1).reshape(-1, 2)
    predicted = _project(board_to_image, labels)
    side = _local_side(board_to_image, labels)
    height, width = gray.shape[:2]
    # Only corners well inside the frame (a board partly out of view, markers at its edge).
    margin = 0.3 * side
    seen = (
        (predicted[:, 0] > margin)
        & (predicted[:, 1] > margin)
        & (predicted[:, 0] < width - 1 - margin)
        & (predicted[:, 1] < height - 1 - margin)
    )
    if seen.sum() < cfg.min_lattice_corners:
        return None
    labels, predicted, side = labels[seen], predicted[seen], side[seen]
    median_side = float(np.median(side))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
    found = predicted
    # A wide window first pulls in corners up to a third of a square away; the narrow one
    # then keeps the pieces' rims out of the final position.
    for fraction in (0.25, 0.08):
        window = int(np.clip(round(fraction * median_side), 2, min(height, width) // 4))
        start = found.astype(np.float32).reshape(-1, 1, 2)
        refined = cv2.cornerSubPix(gray, start, (window, window), (-1, -1), criteria)
        found = np.asarray(refined, np.float64).reshape(-1, 2)
    score = ring_score(gray, found, max(2.0, 0.25 * median_side))
    keep = (np.hypot(*(found - predicted).T) < 0.35 * side) & (score > cfg.grow_min_xscore)
    if keep.sum() < cfg.min_lattice_corners:
        return None
    return GridMatch(size, labels[keep], found[keep])

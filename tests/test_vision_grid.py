"""The markerless lattice locator, the marker fit snapped onto X-corners, and tracking:
against synth renders with ground truth and against the labelled real photos."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rules import find_variant
from rules.position import Position
from vision.board_spec import MarkerBoardSpec
from vision.locate import (
    BoardLocation,
    BoardNotFound,
    locate_by_markers,
    locate_markerless,
    order_clockwise_from_top_left,
)
from vision.tracker import BoardTracker

CHESS = Path("photos/chess-8x8-corners/corners_labeled")
#: (variant, tilt degrees, board style, printed coordinates): 7x7, 8x8 and 10x10 boards
#: with their start positions, overhead to 45 degrees.
SCENES = (
    ("russian", 0.0, "wood-light", False),
    ("russian", 45.0, "green-buff", True),
    ("international", 20.0, "wood-dark", True),
    ("international", 40.0, "black-white", False),
    ("lasca", 25.0, "paper", True),
    ("lasca", 45.0, "yellow-blue", False),
)


@pytest.fixture(scope="module")
def renderer() -> Iterator[Any]:
    render = pytest.importorskip("synth.render")
    try:
        with render.Renderer((1280, 960)) as r:
            yield r
    except Exception as error:  # no OpenGL context on this machine
        pytest.skip(f"no OpenGL renderer: {error}")


def _render(renderer: Any, index: int, *, markers: bool = False) -> tuple[np.ndarray, Any, int]:
    from synth.scene import Style

    name, tilt, board, coordinates = SCENES[index]
    variant = find_variant(name)
    style = Style(
        seed=index,
        variant=name,
        board=board,
        coordinates=coordinates,
        markers=markers,
        tilt_deg=tilt,
        border_mm=32.0,
        azimuth_deg=10.0 * index,
        roll_deg=3.0 * index,
    )
    rendered = renderer.render(Position.initial(variant), style)
    return rendered.image, np.array(rendered.truth["corners"], np.float64), variant.size


def _turned_not_mirrored(found: BoardLocation) -> bool:
    """Board-plane x cross y points like the image's own axes (image y down)."""
    c = found.corners_px
    x_axis, y_axis = c[1] - c[0], c[3] - c[0]
    return bool(x_axis[0] * y_axis[1] - x_axis[1] * y_axis[0] > 0)


def _error_in_squares(found: BoardLocation, truth: np.ndarray) -> float:
    side = np.linalg.norm(truth[1] - truth[0]) / found.size
    return float(np.abs(found.image_corners_clockwise() - truth).max() / side)


@pytest.mark.parametrize("index", range(len(SCENES)))
def test_lattice_finds_rendered_boards(renderer: Any, index: int) -> None:
    image, truth, size = _render(renderer, index)
    found = locate_markerless(image, size)
    assert isinstance(found, BoardLocation), found
    assert found.size == size and found.method == "grid"
    assert _error_in_squares(found, truth) < 0.1
    assert _turned_not_mirrored(found)


@pytest.mark.parametrize("index", [0, 2, 4])
def test_a_board_of_another_size_is_refused_with_the_size_seen(renderer: Any, index: int) -> None:
    image, _, size = _render(renderer, index)
    for other in {7, 8, 10} - {size}:
        found = locate_markerless(image, other)
        assert isinstance(found, BoardNotFound), (size, other)
        assert f"{other}x{other}" in found.reason
        if other < size:
            assert "wide" in found.reason or "at least" in found.reason
        else:
            assert "smaller" in found.reason


def test_markers_are_snapped_onto_the_grid(renderer: Any) -> None:
    image, truth, size = _render(renderer, 1, markers=True)
    found = locate_by_markers(image, size, MarkerBoardSpec())
    assert isinstance(found, BoardLocation) and found.method == "aruco"
    assert _error_in_squares(found, truth) < 0.03


def test_three_markers_are_enough(renderer: Any) -> None:
    image, truth, size = _render(renderer, 1, markers=True)
    spec = MarkerBoardSpec()
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(spec.dictionary))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and len(ids) == 4
    hidden = image.copy()
    quad = corners[list(ids.ravel()).index(spec.ids[2])].reshape(4, 2)
    cv2.fillConvexPoly(hidden, quad.astype(np.int32), (40, 60, 90))  # a sleeve over it
    found = locate_by_markers(hidden, size, spec)
    assert isinstance(found, BoardLocation), found
    assert _error_in_squares(found, truth) < 0.05


def test_tracker_keeps_a_still_board_and_redetects_a_bumped_one(renderer: Any) -> None:
    image, _, size = _render(renderer, 1)
    tracker = BoardTracker(lambda frame: locate_markerless(frame, size))
    first = tracker.update(image)
    assert isinstance(first, BoardLocation)
    assert tracker.update(image) is first
    hand = image.copy()  # a hand over a corner of the board does not move the board
    cv2.circle(hand, tuple(int(v) for v in first.corners_px[0]), 110, (120, 150, 205), -1)
    assert tracker.update(hand) is first
    assert tracker.redetections == 1
    bumped = np.roll(image, 25, axis=1)
    moved = tracker.update(bumped)
    assert tracker.redetections == 2
    assert isinstance(moved, BoardLocation)
    assert np.abs(moved.corners_px - first.corners_px - [25, 0]).max() < 1.0
    blank = np.zeros_like(image)
    assert isinstance(tracker.update(blank), BoardNotFound)
    assert tracker.update(bumped) is moved  # the reference survived the bad frame


def test_lattice_on_labelled_chess_photos(shared_data: Path) -> None:
    """Every 8th of the 171 labelled photos: pieces on, phone angles, printed coordinates."""
    photos = sorted((shared_data / CHESS).glob("*/images/*.jpg"))[::8]
    assert len(photos) >= 20
    errors = []
    for photo in photos:
        image = cv2.imread(str(photo))
        label = photo.parent.parent / "labels" / (photo.stem + ".txt")
        rows = [r.split() for r in label.read_text().splitlines() if r.strip()]
        h, w = image.shape[:2]
        truth = order_clockwise_from_top_left(
            np.array([[float(r[1]) * w, float(r[2]) * h] for r in rows])
        )
        found = locate_markerless(image, 8)
        if isinstance(found, BoardLocation):
            assert _turned_not_mirrored(found), photo.name
            side = np.linalg.norm(np.diff(np.vstack([truth, truth[:1]]), axis=0), axis=1).mean()
            distances = np.linalg.norm(found.image_corners_clockwise() - truth, axis=1)
            errors.append(float(distances.mean() / (side / 8)))
    assert len(errors) >= 0.95 * len(photos)
    assert float(np.median(errors)) < 0.1
    assert max(errors) < 0.3


@pytest.mark.parametrize("seed", [20, 25])
def test_lattice_reaches_across_an_arm(renderer: Any, seed: int) -> None:
    """A forearm laid across the board splits the lattice; the far side is still fitted."""
    from synth.scene import Style

    style = Style.random(seed, "russian")
    assert style.hand is not None
    rendered = renderer.render(Position.initial(find_variant("russian")), style)
    found = locate_markerless(rendered.image, 8)
    assert isinstance(found, BoardLocation), found
    assert _error_in_squares(found, np.array(rendered.truth["corners"])) < 0.1


def test_markers_and_lattice_agree_on_the_damas_photos(shared_data: Path) -> None:
    """Two independent locators, one grid: foreign ArUco quads snapped onto X-corners, and
    the markerless lattice, within a twentieth of a square on every corner."""
    from tests.test_vision import DAMAS, DAMAS_WITH_MARKERS
    from vision.observe import locate

    spec = MarkerBoardSpec(dictionary=cv2.aruco.DICT_ARUCO_ORIGINAL)
    for name in DAMAS_WITH_MARKERS:
        image = cv2.imread(str(shared_data / DAMAS / name))
        by_markers, by_grid = locate(image, 8, spec), locate_markerless(image, 8)
        assert isinstance(by_markers, BoardLocation) and isinstance(by_grid, BoardLocation)
        corners = by_markers.image_corners_clockwise()
        assert _error_in_squares(by_grid, corners) < 0.05, name


def test_the_damas_set_seen_from_low_is_located(shared_data: Path) -> None:
    """WA0045, taken from low over tall men: the lattice grew along the squares' diagonals
    there and was read as a grid 11 squares wide, until ``along_edges``. Its labelled
    corners were carried from WA0043 through the ArUco markers both photos show."""
    from models.labelled_photos import PHOTOS, read_labels

    photo = next(p for p in read_labels() if p.path.endswith("WA0045.jpg"))
    found = locate_markerless(cv2.imread(str(shared_data / PHOTOS / photo.path)), 8)
    assert isinstance(found, BoardLocation), found
    truth = np.array(photo.corners, np.float64)
    assert _error_in_squares(found, order_clockwise_from_top_left(truth)) < 0.05


@pytest.mark.parametrize(
    ("name", "steps"),
    [
        ("diagonals", ((1, 1), (1, -1))),
        ("a diagonal and two squares", ((1, -1), (0, 2))),
        ("sheared", ((1, 0), (1, 1))),
    ],
)
def test_a_lattice_grown_off_the_squares_edges_is_relabelled(
    renderer: Any, name: str, steps: tuple[tuple[int, int], tuple[int, int]]
) -> None:
    """A rendered board's lattice, its labels rewritten as though each unit step had
    crossed a square's diagonal (or two squares), comes back along the edges: the same
    labels up to a turn or mirror of the board and an offset."""
    from vision import grid

    image, _, size = _render(renderer, 2)
    cfg = grid.GridSettings()
    scale = cfg.work_long_side_px / max(image.shape[:2])
    work = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
    gray = np.asarray(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY))
    lattice = grid.best_lattice(cfg, work, gray, *grid.x_corner_candidates(cfg, gray), size)
    assert lattice is not None
    # the corners such a lattice holds, and their labels in its steps
    basis = np.array(steps, np.float64)
    grown = np.linalg.solve(basis.T, lattice.labels.T.astype(np.float64)).T
    held = np.all(np.isclose(grown, np.round(grown)), axis=1)
    labels = np.round(grown[held]).astype(np.int64)
    labels -= labels.min(axis=0)
    assert grid._checker_share(cfg, work, labels, lattice.points[held]) < cfg.min_checker_share
    relabelled = grid.along_edges(cfg, work, labels, lattice.points[held])
    truth = lattice.labels[held]
    turns_and_mirrors = [
        np.array(m) for m in ([[1, 0], [0, 1]], [[0, 1], [-1, 0]], [[-1, 0], [0, -1]],
                              [[0, -1], [1, 0]], [[1, 0], [0, -1]], [[-1, 0], [0, 1]],
                              [[0, 1], [1, 0]], [[0, -1], [-1, 0]])
    ]  # fmt: skip
    offsets = [truth - relabelled @ m for m in turns_and_mirrors]
    assert any(np.all(offset == offset[0]) for offset in offsets), name


@pytest.mark.parametrize(
    ("exposure", "noise", "light_elevation", "blur"),
    [(0.3, 10.0, 40.0, 1.2), (1.3, 3.0, 88.0, 0.0)],
    ids=["low-light-noisy-blurred", "overhead-lamp-glare"],
)
def test_lattice_in_low_light_and_glare(
    renderer: Any, exposure: float, noise: float, light_elevation: float, blur: float
) -> None:
    from synth.scene import Style

    style = Style(
        seed=7,
        variant="international",
        board="wood-dark",
        coordinates=True,
        tilt_deg=30.0,
        exposure=exposure,
        noise_sigma=noise,
        light_elevation_deg=light_elevation,
        blur_sigma=blur,
        jpeg_quality=70,
    )
    rendered = renderer.render(Position.initial(find_variant("international")), style)
    found = locate_markerless(rendered.image, 10)
    assert isinstance(found, BoardLocation), found
    assert _error_in_squares(found, np.array(rendered.truth["corners"])) < 0.1


def test_read_names_the_size_it_saw(renderer: Any, tmp_path: Path) -> None:
    """`damcam read` of a 10x10 board as a Russian (8x8) game says what it saw."""
    from typer.testing import CliRunner

    from damcam.cli import app

    image, _, _ = _render(renderer, 2)
    photo = tmp_path / "international.png"
    cv2.imwrite(str(photo), image)
    result = CliRunner().invoke(app, ["read", str(photo), "--variant", "russian"])
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "international.png" in message and "about 10 squares wide, expected 8x8" in message


def test_snapping_a_board_out_of_view_gives_up_quietly() -> None:
    """Markers seen at the frame's edge can put the predicted grid outside the image."""
    from vision.grid import snap_to_x_corners

    gray = np.zeros((100, 100), np.uint8)
    off_frame = np.array([[60.0, 0, -200], [0, 60, -200], [0, 0, 1]])
    assert snap_to_x_corners(gray, off_frame, 8) is None
    tiny = np.array([[1e-3, 0, 50], [0, 1e-3, 50], [0, 0, 1]])
    assert snap_to_x_corners(gray, tiny, 8) is None


def _drawn_board(n: int) -> np.ndarray:
    """An n x n checkerboard with a plain frame, turned 20 degrees (no renderer needed)."""
    cells = ((np.indices((n * 40, n * 40)) // 40).sum(0) % 2 * 200 + 30).astype(np.uint8)
    framed = cv2.copyMakeBorder(cells, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=120)
    turn = cv2.getRotationMatrix2D((framed.shape[1] / 2, framed.shape[0] / 2), 20, 0.8)
    turned = cv2.warpAffine(framed, turn, framed.shape[::-1], borderValue=120)
    return cv2.cvtColor(turned, cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("n", range(6, 13))
def test_only_the_variants_size_is_found(n: int) -> None:
    """Boards of 6..12 squares: each of 7, 8 and 10 is found exactly on its own size."""
    image = _drawn_board(n)
    for size in (7, 8, 10):
        found = locate_markerless(image, size)
        assert isinstance(found, BoardLocation) == (size == n), (n, size, found)
        if isinstance(found, BoardNotFound):
            assert f"{size}x{size}" in found.reason


def _marked_board(*, sleeve: bool, shift_px: int = 0) -> np.ndarray:
    """A 7x7 board of 40 px squares in a 60 px frame, printed marks alternating along the
    frame above it, and, with ``sleeve``, an arm over its bottom row and the X-corners
    above that row: the arrangement that had a rendered lasca game read a row off (a hand
    over one edge, the frame's marks beyond the other alternating a little)."""
    n, side, margin = 7, 40, 60
    cells = ((np.indices((n * side, n * side)) // side).sum(0) % 2 * 200 + 30).astype(np.uint8)
    image = cv2.copyMakeBorder(
        cells, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=120
    )
    image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    for k in range(n):
        x0 = margin + k * side
        image[margin - side : margin - 4, x0 + 4 : x0 + side - 4] = 80 if k % 2 else 160
    if sleeve:
        image[margin + n * side - 52 :, :] = (120, 150, 205)
    return np.roll(image, shift_px, axis=1)


def test_a_hidden_edge_row_leaves_the_extent_a_guess() -> None:
    clear = locate_markerless(_marked_board(sleeve=False), 7)
    assert isinstance(clear, BoardLocation) and clear.extent_known
    assert np.abs(clear.corners_px[0] - [60, 60]).max() < 1.5
    guessed = locate_markerless(_marked_board(sleeve=True), 7)
    assert isinstance(guessed, BoardLocation) and not guessed.extent_known
    assert np.abs(guessed.corners_px[0] - [60, 20]).max() < 1.5  # the marks taken for a row


def test_tracker_keeps_its_rows_when_an_arm_hides_the_edge() -> None:
    """The camera nudged 3 px while an arm lies over the bottom row: the fresh fit guesses
    the board a row up, and the tracker counts it on the rows it held."""
    tracker = BoardTracker(lambda frame: locate_markerless(frame, 7))
    first = tracker.update(_marked_board(sleeve=False))
    assert isinstance(first, BoardLocation)
    nudged = tracker.update(_marked_board(sleeve=True, shift_px=3))
    assert tracker.redetections == 2
    assert isinstance(nudged, BoardLocation)
    assert np.abs(nudged.corners_px - first.corners_px - [3, 0]).max() < 1.5


def test_tracker_follows_a_board_moved_by_a_whole_square_when_it_sees_all_of_it() -> None:
    tracker = BoardTracker(lambda frame: locate_markerless(frame, 7))
    first = tracker.update(_marked_board(sleeve=False))
    moved = tracker.update(_marked_board(sleeve=False, shift_px=40))
    assert isinstance(first, BoardLocation) and isinstance(moved, BoardLocation)
    assert moved.extent_known
    assert np.abs(moved.corners_px - first.corners_px - [40, 0]).max() < 1.5

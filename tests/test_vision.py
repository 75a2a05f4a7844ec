"""Vision: board localisation on real photos and renders, rectification, hands, bad input."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from rules import find_variant
from rules.observation import Top
from rules.position import Position
from vision.board_spec import MarkerBoardSpec
from vision.locate import (
    BoardLocation,
    BoardNotFound,
    locate_by_markers,
    locate_markerless,
    order_clockwise_from_top_left,
)
from vision.observe import Observer, ObserverConfig, Registration, locate
from vision.occlusion import OcclusionGate, OcclusionSettings
from vision.orient import checker_contrast
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import square_crops
from vision.tracker import BoardTracker

RUSSIAN = find_variant("russian")
DAMAS = Path("photos/checkers-8x8-aruco-damas")
#: Damas photos whose four ArUco markers (original dictionary, their own ids) are visible.
DAMAS_WITH_MARKERS = (
    "webcam_frames/captured_image_com_damas.jpg",
    "webcam_frames/captured_image02.jpg",
    "webcam_frames/captured_image_LA.jpg",
    "phone_photos_root/IMG-20240822-WA0028.jpg",
    "phone_photos_root/captured_image_dama02.jpg",
)
CHESS = Path("photos/chess-8x8-corners/corners_labeled/valid")


def labelled_corners(label: Path, width: int, height: int) -> np.ndarray:
    """The four YOLO box centres of a chess-8x8-corners label file, in pixels."""
    rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
    points = np.array([[float(r[1]) * width, float(r[2]) * height] for r in rows])
    return order_clockwise_from_top_left(points)


def corner_error_in_squares(found: BoardLocation, truth: np.ndarray) -> float:
    """Largest corner distance, as a fraction of the mean square side."""
    side = np.linalg.norm(np.diff(np.vstack([truth, truth[:1]]), axis=0), axis=1).mean() / 8
    return float(np.linalg.norm(found.image_corners_clockwise() - truth, axis=1).max() / side)


@pytest.mark.parametrize("name", DAMAS_WITH_MARKERS)
def test_aruco_finds_the_damas_board(shared_data: Path, name: str) -> None:
    image = cv2.imread(str(shared_data / DAMAS / name))
    assert image is not None
    spec = MarkerBoardSpec(dictionary=cv2.aruco.DICT_ARUCO_ORIGINAL)
    found = locate(image, 8, spec)
    assert isinstance(found, BoardLocation), found
    assert found.method == "aruco-quad"
    # The quad inside the markers is the 8x8 grid: its cells alternate light and dark.
    assert checker_contrast(image, found) > 0.6


def test_blank_and_noise_frames_have_no_board() -> None:
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (480, 640, 3)).astype(np.uint8)
    for frame in (np.zeros((480, 640, 3), np.uint8), noise):
        assert isinstance(locate_markerless(frame, 8), BoardNotFound)
        assert isinstance(locate_by_markers(frame, 8, MarkerBoardSpec()), BoardNotFound)


def test_observer_survives_bad_frames() -> None:
    grey, light, dark = (100.0, 128.0, 128.0), (220.0, 128.0, 128.0), (30.0, 128.0, 128.0)
    prototypes = ColourPrototypes(grey, light, dark)
    observer = Observer(ObserverConfig(), RUSSIAN, Registration(), PrototypeClassifier(prototypes))
    for index, frame in enumerate(
        (np.zeros((480, 640, 3), np.uint8), np.zeros((5,), np.uint8), np.zeros((0, 0, 3), np.uint8))
    ):
        observation = observer.observe(frame, float(index))
        assert not observation.board_found
        assert observation.squares == ()
        assert observation.frame_index == index
    # Until a first board is found, the reason says that the next frames are tried.
    observer.observe(np.zeros((480, 640, 3), np.uint8), 3.0)
    assert observer.last_failure is not None
    assert observer.last_failure.startswith("no board yet, trying every frame: ")


def test_square_crops_shape_and_order() -> None:
    """On a drawn top-down board the crops come out in Square order, one per dark cell."""
    n, px = 8, 40
    board = np.full((n * px, n * px, 3), 230, np.uint8)
    for r in range(n):
        for c in range(n):
            if (r + c) % 2 == RUSSIAN.geometry.dark_parity:
                board[r * px : (r + 1) * px, c * px : (c + 1) * px] = 60
    square = RUSSIAN.geometry.square_at(2, 3)
    r, c = RUSSIAN.geometry.rowcol(square)
    cv2.circle(board, (c * px + px // 2, r * px + px // 2), px // 3, (250, 250, 250), -1)
    h = np.diag([1 / px, 1 / px, 1.0])
    corners = np.array([[0, 0], [n * px, 0], [n * px, n * px], [0, n * px]], np.float64)
    location = BoardLocation(h, n, corners, 0.0, "drawn")
    crops = square_crops(board, location, RUSSIAN.geometry)
    assert crops.shape == (32, 48, 48, 3) and crops.dtype == np.uint8
    brightest = int(np.argmax(crops[:, 20:28, 20:28].mean(axis=(1, 2, 3))))
    assert brightest == square


def test_occlusion_gate_tells_hands_from_moved_pieces() -> None:
    settings = OcclusionSettings(still_frames=2)
    gate = OcclusionGate(8, settings)
    board = np.full((128, 128, 3), 90, np.uint8)
    for _ in range(3):
        assert gate.update(board).occlusion == 0.0
    hand = board.copy()
    hand[0:40, 0:40] = (120, 160, 220)  # skin-coloured BGR over cells (0..2, 0..2)
    gated = gate.update(hand)
    assert gated.cells[0, 0] > 0.9 and gated.cells[7, 7] == 0.0
    moved = board.copy()
    cv2.circle(moved, (72, 72), 6, (20, 20, 20), -1)  # a dark piece put down, not skin
    gate.update(moved)
    settled = gate.update(moved)
    assert settled.motion == 0.0
    assert settled.cells[4, 4] == 0.0


def _checkered(shift: float = 0.0) -> np.ndarray:
    """A rectified 8x8 board of 16 px cells with pale (skin-like) men, shifted by
    ``shift`` pixels to the right as a swaying camera would."""
    board = np.zeros((128, 128, 3), np.uint8)
    for r in range(8):
        for c in range(8):
            board[r * 16 : r * 16 + 16, c * 16 : c * 16 + 16] = (
                (60, 90, 130) if (r + c) % 2 else (150, 190, 220)
            )
    for r, c in ((5, 0), (5, 2), (6, 1)):
        cv2.circle(board, (c * 16 + 8, r * 16 + 8), 6, (140, 170, 225), -1)
    matrix = np.float32([[1, 0, shift], [0, 1, 0]])
    return np.asarray(cv2.warpAffine(board, matrix, (128, 128), borderMode=cv2.BORDER_REPLICATE))


def test_occlusion_gate_ignores_a_camera_swaying_by_a_pixel() -> None:
    gate = OcclusionGate(8)
    for k in range(12):
        gated = gate.update(_checkered(0.8 * np.sin(k)))
        assert gated.motion < 0.005 and gated.occlusion < 0.01


def test_occlusion_gate_absorbs_a_skin_coloured_man_once_settled() -> None:
    gate = OcclusionGate(8, OcclusionSettings(still_frames=3))
    before = _checkered()
    for _ in range(4):
        gate.update(before)
    after = before.copy()
    after[5 * 16 : 6 * 16, 0:16] = (60, 90, 130)  # the man on (5, 0) ...
    cv2.circle(after, (1 * 16 + 8, 4 * 16 + 8), 6, (140, 170, 225), -1)  # ... now on (4, 1)
    readings = [gate.update(after) for _ in range(6)]
    assert readings[0].cells[4, 1] > 0.3  # just put down and skin-coloured: wait
    assert readings[-1].cells.max() == 0.0 and readings[-1].occlusion == 0.0


def test_occlusion_gate_absorbs_a_man_crowned_on_the_far_edge() -> None:
    # Under a tilted camera the top of a man on the far row leans out over the board's
    # edge: it touches the edge, but over less than a cell, so it is no arm.
    gate = OcclusionGate(8, OcclusionSettings(still_frames=3))
    before = _checkered()
    for _ in range(4):
        gate.update(before)
    after = before.copy()
    cv2.circle(after, (3 * 16 + 8, 4), 7, (140, 170, 225), -1)
    readings = [gate.update(after) for _ in range(6)]
    assert readings[-1].cells.max() == 0.0


def test_occlusion_gate_hides_a_still_arm_of_any_colour() -> None:
    gate = OcclusionGate(8, OcclusionSettings(still_frames=3))
    board = _checkered()
    for _ in range(4):
        gate.update(board)
    arm = board.copy()
    cv2.rectangle(arm, (40, 0), (70, 60), (120, 40, 30), -1)  # a blue sleeve from the far side
    readings = [gate.update(arm) for _ in range(8)]
    for gated in readings:  # held still: not moving, not skin, still a hand
        assert gated.cells[0, 3] > 0.9 and gated.cells[2, 3] > 0.9 and gated.cells[2, 4] > 0.3
        assert gated.occlusion > 0.05
    assert readings[-1].cells[7, 7] == 0.0


@pytest.fixture(scope="module")
def start_render() -> tuple[np.ndarray, dict[str, object]]:
    """The Russian start position, ArUco board, camera tilted 30 degrees (synth renderer)."""
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    style = scene.Style(seed=2, variant="russian", markers=True, tilt_deg=30.0, border_mm=32.0)
    rendered = render.render_position(Position.initial(RUSSIAN), style, (1280, 960))
    return rendered.image, rendered.truth


def test_aruco_corners_on_a_render(start_render: tuple[np.ndarray, dict[str, object]]) -> None:
    image, truth = start_render
    found = locate_by_markers(image, 8, MarkerBoardSpec())
    assert isinstance(found, BoardLocation) and found.method == "aruco"
    corners = np.array(truth["corners"], np.float64)
    assert np.abs(found.image_corners_clockwise() - corners).max() < 3.0


def test_markers_too_small_to_read_are_read_at_twice_the_size(
    start_render: tuple[np.ndarray, dict[str, object]],
) -> None:
    """The render at 384x288: the far markers are too few pixels a cell for OpenCV at
    that size (two of four read), and the board is located from them read larger."""
    image, truth = start_render
    small = cv2.resize(image, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(MarkerBoardSpec().dictionary)
    )
    _, ids, _ = detector.detectMarkers(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    assert ids is None or len(ids) < 3  # what the first reading sees
    found = locate_by_markers(small, 8, MarkerBoardSpec())
    assert isinstance(found, BoardLocation) and found.method == "aruco"
    corners = 0.3 * np.array(truth["corners"], np.float64)
    assert np.abs(found.image_corners_clockwise() - corners).max() < 1.5


def test_calibrated_observer_reads_the_rendered_start(
    start_render: tuple[np.ndarray, dict[str, object]],
) -> None:
    from calibration.table import calibrate_start_position, start_tops

    image, _ = start_render
    table = calibrate_start_position(image, RUSSIAN)
    observer = Observer(
        ObserverConfig(), RUSSIAN, table.registration(), PrototypeClassifier(table.prototypes())
    )
    observation = observer.observe(image, 0.0)
    assert observation.board_found
    assert [r.best for r in observation.squares] == start_tops(RUSSIAN)
    assert observation.squares[0].best == Top.BLACK_MAN


def test_tracker_reuses_the_fit_until_the_board_moves(
    start_render: tuple[np.ndarray, dict[str, object]],
) -> None:
    image, _ = start_render
    tracker = BoardTracker(lambda frame: locate_by_markers(frame, 8, MarkerBoardSpec()))
    first = tracker.update(image)
    assert tracker.update(image) is first and tracker.redetections == 1
    shifted = np.roll(image, 60, axis=1)
    moved = tracker.update(shifted)
    assert tracker.redetections == 2
    assert isinstance(first, BoardLocation) and isinstance(moved, BoardLocation)
    assert abs(moved.corners_px[0, 0] - first.corners_px[0, 0] - 60) < 2.0


def test_tracker_follows_a_nudged_board_past_corners_that_moved_otherwise(
    start_render: tuple[np.ndarray, dict[str, object]],
) -> None:
    """The camera nudged 6 px (0.08 squares) while three of the followed X-corners changed
    beside them (pieces moved, a hand's shadow) and a fresh detection fails (a dark hall):
    the board is followed by the corners that agree, not pulled off by the three (a
    rendered english game lost its last ply so)."""
    image, _ = start_render
    calls: list[object] = []

    def locate(frame: np.ndarray) -> BoardLocation | BoardNotFound:
        calls.append(frame)
        if len(calls) > 1:
            return BoardNotFound("too dark")
        return locate_by_markers(frame, 8, MarkerBoardSpec())

    tracker = BoardTracker(locate)
    first = tracker.update(image)
    assert isinstance(first, BoardLocation)
    nudged = np.roll(image, 6, axis=1)
    inner = np.array([[1.0, 1.0], [5.0, 3.0], [3.0, 7.0]])  # three of the followed corners
    for x, y in first.to_image(inner).round().astype(int) + np.array([6, 0]):
        # each corner's neighbourhood replaced by the scene 12 px to its right
        nudged[y - 20 : y + 20, x - 20 : x + 20] = image[y - 20 : y + 20, x - 5 : x + 35]
    followed = tracker.update(nudged)
    assert isinstance(followed, BoardLocation), followed
    assert np.abs(followed.corners_px - first.corners_px - [6, 0]).max() < 1.0


def test_tracker_replaces_a_coarse_fit_once_the_grid_shows_again(
    start_render: tuple[np.ndarray, dict[str, object]],
) -> None:
    """A detection while a hand hides the grid's X-corners is a fit to the markers alone,
    clearly worse than the one before; the still board must not keep it once the hand has
    gone (a rendered czech game lost its last ply to such a fit, held for nine frames)."""
    image, _ = start_render
    calls: list[object] = []

    def locate(frame: np.ndarray) -> BoardLocation | BoardNotFound:
        found = locate_by_markers(frame, 8, MarkerBoardSpec())
        calls.append(found)
        if len(calls) == 2 and isinstance(found, BoardLocation):  # under the hand
            error = 4 * found.reprojection_error_px + 0.5
            return dataclasses.replace(found, reprojection_error_px=error, method="coarse")
        return found

    tracker = BoardTracker(locate)
    assert isinstance(tracker.update(image), BoardLocation)
    shifted = np.roll(image, 60, axis=1)  # moved: detected afresh, under the hand
    coarse = tracker.update(shifted)
    assert isinstance(coarse, BoardLocation) and coarse.method == "coarse"
    fine = tracker.update(shifted)  # still, the hand gone
    assert isinstance(fine, BoardLocation) and fine.method == "aruco"
    assert fine.reprojection_error_px < coarse.reprojection_error_px
    assert tracker.update(shifted) is fine and tracker.redetections == 3  # held from now on

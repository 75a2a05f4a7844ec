"""ChArUco intrinsics recovered from views made through a known camera with a known lens
distortion; undistortion straightens the board's lines; bad input is a clear error."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.intrinsics import (
    CHARUCO_SQUARES,
    CameraIntrinsics,
    calibrate_intrinsics,
    charuco_board,
    charuco_sheet,
)
from tests.charuco_views import DISTORTION, K_TRUE, POSES, SIZE, charuco_views
from vision.camera import Intrinsics, Undistorter


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    return charuco_views()


def test_charuco_views_give_focal_length_and_distortion(views: list[np.ndarray]) -> None:
    camera = calibrate_intrinsics(views)
    assert camera.fx == pytest.approx(520, rel=0.03)
    assert camera.fy == pytest.approx(520, rel=0.03)
    assert camera.cx == pytest.approx(322, abs=8) and camera.cy == pytest.approx(236, abs=8)
    assert camera.distortion[0] == pytest.approx(-0.22, abs=0.05)
    assert camera.rms_error_px is not None and camera.rms_error_px < 0.5
    assert camera.views == len(POSES)


def test_undistorted_views_fit_a_homography(views: list[np.ndarray]) -> None:
    """Distortion bends the board's rows; after undistortion one homography fits them."""
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    undistort = Undistorter(Intrinsics(K_TRUE, DISTORTION, SIZE))

    def residual(image: np.ndarray) -> float:
        corners, ids, _, _ = detector.detectBoard(image)
        obj, img = board.matchImagePoints(corners, ids)
        plane, seen = obj.reshape(-1, 3)[:, :2].astype(np.float64), img.reshape(-1, 2)
        h, _ = cv2.findHomography(plane, seen, 0)
        fitted = cv2.perspectiveTransform(plane.reshape(-1, 1, 2), h).reshape(-1, 2)
        return float(np.sqrt(np.mean(np.sum((fitted - seen) ** 2, axis=1))))

    view = views[3]
    assert residual(view) > 1.0
    assert residual(undistort(view)) < 0.5


def test_intrinsics_round_trip_and_scale(tmp_path: Path) -> None:
    camera = CameraIntrinsics(
        fx=520, fy=520, cx=320, cy=240, distortion=(-0.2, 0.05), image_width=640, image_height=480
    )
    path = tmp_path / "intrinsics.json"
    camera.save(path)
    assert CameraIntrinsics.load(path) == camera
    doubled = camera.intrinsics().for_size(1280, 960)
    assert doubled.matrix[0, 0] == pytest.approx(1040) and doubled.matrix[1, 2] == 480
    with pytest.raises(ValueError, match="aspect"):
        camera.intrinsics().for_size(1280, 720)


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="usable ChArUco views"):
        calibrate_intrinsics([np.full((480, 640), 255, np.uint8)])
    with pytest.raises(ValueError, match="one camera mode"):
        calibrate_intrinsics([np.full((480, 640), 255, np.uint8), np.zeros((240, 320), np.uint8)])
    wrong = tmp_path / "table.json"
    wrong.write_text('{"variant": "russian"}')
    with pytest.raises(ValueError, match=r"table\.json: not camera intrinsics"):
        CameraIntrinsics.load(wrong)


def test_the_printed_sheet_is_detected() -> None:
    sheet = charuco_sheet(dpi=100)
    _, ids, _, _ = cv2.aruco.CharucoDetector(charuco_board()).detectBoard(sheet)
    cols, rows = CHARUCO_SQUARES
    assert ids is not None and len(ids) == (cols - 1) * (rows - 1)

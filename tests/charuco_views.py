"""Views of the ChArUco sheet through a known camera and lens, for the intrinsics tests."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.intrinsics import CHARUCO_SQUARE_M, CHARUCO_SQUARES, charuco_sheet

SIZE = (640, 480)
K_TRUE = np.array([[520.0, 0, 322], [0, 520.0, 236], [0, 0, 1]])
DISTORTION = np.array([-0.22, 0.05, 0.0, 0.0, 0.0])
POSES = (
    ((0.35, 0.0, 0.0), (-0.12, -0.09, 0.32)),
    ((0.0, 0.4, 0.1), (-0.13, -0.09, 0.34)),
    ((-0.3, -0.25, 0.0), (-0.12, -0.08, 0.31)),
    ((0.1, 0.1, 0.0), (-0.12, -0.09, 0.26)),
    ((-0.1, 0.3, 0.3), (-0.13, -0.08, 0.33)),
)


def charuco_view(sheet: np.ndarray, rvec: tuple[float, ...], tvec: tuple[float, ...]) -> np.ndarray:
    """The sheet seen through K_TRUE and DISTORTION: every distorted pixel looks up the
    pinhole pixel it came from."""
    square_px = sheet.shape[1] / (CHARUCO_SQUARES[0] + 2)  # the sheet has a square of margin
    to_metres = np.array([[1, 0, -square_px], [0, 1, -square_px], [0, 0, square_px]])
    rotation, _ = cv2.Rodrigues(np.array(rvec))
    h = (
        K_TRUE
        @ np.column_stack([rotation[:, 0], rotation[:, 1], tvec])
        @ np.diag([CHARUCO_SQUARE_M, CHARUCO_SQUARE_M, 1.0])
        @ to_metres
    )
    xs, ys = np.meshgrid(np.arange(SIZE[0], dtype=np.float32), np.arange(SIZE[1], dtype=np.float32))
    pixels = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pixels, K_TRUE, DISTORTION, P=K_TRUE).reshape(SIZE[1], SIZE[0], 2)
    sheet_xy = cv2.perspectiveTransform(
        ideal.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(h)
    )
    maps = sheet_xy.reshape(SIZE[1], SIZE[0], 2).astype(np.float32)
    return cv2.remap(sheet, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderValue=255)


def charuco_views() -> list[np.ndarray]:
    """One view of the printed sheet from each of :data:`POSES`."""
    sheet = charuco_sheet(dpi=200)
    return [charuco_view(sheet, rvec, tvec) for rvec, tvec in POSES]

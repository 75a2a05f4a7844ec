"""Camera intrinsics from views of a ChArUco board (optional; OpenCV 5 ``CharucoDetector``).

Without intrinsics vision works with homographies alone: crops are taken on the board's
surface and lens distortion is left in. With them, frames are undistorted and the board's
pose is solved, so crops can be taken where the top of a stack appears
(:mod:`vision.camera`). Print the board with ``damcam calibrate intrinsics --sheet``, take
a dozen photos of it from the camera at different angles, and run
``damcam calibrate intrinsics VIEWS --out intrinsics.json``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vision.camera import Intrinsics
from vision.locate import Image

log = logging.getLogger(__name__)

#: Squares across and down, square and marker sides in metres (an A4 sheet).
CHARUCO_SQUARES = (7, 5)
CHARUCO_SQUARE_M = 0.035
CHARUCO_MARKER_M = 0.026
CHARUCO_DICTIONARY = cv2.aruco.DICT_5X5_100
MIN_VIEWS = 3
MIN_CORNERS_PER_VIEW = 8


class CameraIntrinsics(BaseModel):
    """Pinhole intrinsics in pixels of ``image_width`` x ``image_height`` frames, OpenCV's
    distortion coefficients, and the calibration's RMS reprojection error."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fx: float = Field(gt=0)
    fy: float = Field(gt=0)
    cx: float
    cy: float
    distortion: tuple[float, ...] = ()
    image_width: int = Field(gt=0)
    image_height: int = Field(gt=0)
    rms_error_px: float | None = None
    views: int | None = None

    def intrinsics(self) -> Intrinsics:
        """The vision-side value (:class:`vision.camera.Intrinsics`)."""
        matrix = np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])
        return Intrinsics(
            matrix, np.array(self.distortion, np.float64), (self.image_width, self.image_height)
        )

    def save(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> CameraIntrinsics:
        """:raises ValueError: naming the file when it cannot be read or is not intrinsics."""
        try:
            return cls.model_validate_json(path.read_text())
        except OSError as error:
            raise ValueError(f"cannot read intrinsics {path}: {error.strerror}") from error
        except ValidationError as error:
            raise ValueError(f"{path}: not camera intrinsics: {error}") from error


def charuco_board() -> cv2.aruco.CharucoBoard:
    dictionary = cv2.aruco.getPredefinedDictionary(CHARUCO_DICTIONARY)
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_M, CHARUCO_MARKER_M, dictionary)


def charuco_sheet(dpi: int = 150) -> Image:
    """The board to print, at ``dpi`` with a one-square white margin."""
    px_per_square = round(CHARUCO_SQUARE_M / 0.0254 * dpi)
    cols, rows = CHARUCO_SQUARES
    size = ((cols + 2) * px_per_square, (rows + 2) * px_per_square)
    return np.asarray(charuco_board().generateImage(size, marginSize=px_per_square), np.uint8)


def calibrate_intrinsics(views: Iterable[Image]) -> CameraIntrinsics:
    """Intrinsics from several views of :func:`charuco_board`, all of one frame size.

    :raises ValueError: fewer than ``MIN_VIEWS`` views show ``MIN_CORNERS_PER_VIEW``
        ChArUco corners, or the views differ in size.
    """
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points = [], []
    size: tuple[int, int] | None = None
    for index, view in enumerate(views):
        gray = view if view.ndim == 2 else cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        view_size = (gray.shape[1], gray.shape[0])
        if size is not None and view_size != size:
            raise ValueError(f"view {index} is {view_size}, the first was {size}: one camera mode")
        size = view_size
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < MIN_CORNERS_PER_VIEW:
            log.info("view %d: %d ChArUco corners, skipped", index, 0 if ids is None else len(ids))
            continue
        obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        object_points.append(obj)
        image_points.append(img)
    if size is None or len(object_points) < MIN_VIEWS:
        raise ValueError(
            f"{len(object_points)} usable ChArUco views, need {MIN_VIEWS}"
            f" with at least {MIN_CORNERS_PER_VIEW} corners each"
        )
    rms, matrix, distortion, _, _ = cv2.calibrateCamera(
        object_points, image_points, size, None, None
    )
    return CameraIntrinsics(
        fx=float(matrix[0, 0]),
        fy=float(matrix[1, 1]),
        cx=float(matrix[0, 2]),
        cy=float(matrix[1, 2]),
        distortion=tuple(float(v) for v in np.ravel(distortion)),
        image_width=size[0],
        image_height=size[1],
        rms_error_px=float(rms),
        views=len(object_points),
    )

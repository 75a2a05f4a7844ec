"""Rectification: a top-down board image, and the one crop per playable square that the
square classifier sees, in training and in inference alike.

Coordinates: the *board plane* is the located grid ``[0, N]^2`` in square sides (see
:class:`vision.locate.BoardLocation`); the *White view* is the same plane turned by a
calibrated number of quarter turns so that row 0 is Black's back row (top) and col 0 is
White's left, matching :data:`rules.geometry.Square`. Height ``z`` is measured upwards
from the board, in square sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from vision.locate import BoardLocation, FloatArray, Image

#: Crops per square, the classifier's input side.
CROP_PX = 48


@dataclass(frozen=True, slots=True)
class CameraModel:
    """A pinhole projection from the board plane with height (x, y, z) to image pixels.

    ``projection`` is 3x4; z is up towards the camera, in square sides. Without one, a
    homography can only place points on the board surface (z = 0).
    """

    projection: FloatArray

    def project(self, points: FloatArray) -> FloatArray:
        """(K, 3) board points to (K, 2) pixels."""
        homogeneous = np.hstack([points, np.ones((len(points), 1))]) @ self.projection.T
        return np.asarray(homogeneous[:, :2] / homogeneous[:, 2:3], np.float64)


def orientation_matrix(turns: int, size: int) -> FloatArray:
    """White-view plane -> board plane, for ``turns`` quarter turns clockwise."""
    turn = np.array([[0.0, -1.0, size], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(np.linalg.matrix_power(turn, turns % 4), np.float64)


def white_view_to_image(
    location: BoardLocation,
    points: FloatArray,
    *,
    turns: int = 0,
    height: float = 0.0,
    camera: CameraModel | None = None,
) -> FloatArray:
    """(K, 2) White-view plane points at ``height`` to (K, 2) image pixels."""
    rotate = orientation_matrix(turns, location.size)
    board = (np.hstack([points, np.ones((len(points), 1))]) @ rotate.T)[:, :2]
    if camera is not None:
        return camera.project(np.hstack([board, np.full((len(board), 1), height)]))
    return location.to_image(np.asarray(board, np.float64))


def warp_board(
    image: Image, location: BoardLocation, *, px_per_square: int = 32, turns: int = 0
) -> Image:
    """The playing grid seen from above, White at the bottom: (N*px, N*px[, 3]) uint8."""
    n = location.size
    side = n * px_per_square
    plane = np.array([[0.0, 0.0], [n, 0.0], [n, n], [0.0, n]])
    source = white_view_to_image(location, plane, turns=turns).astype(np.float32)
    target = (plane * px_per_square).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    return np.asarray(cv2.warpPerspective(image, matrix, (side, side)), np.uint8)


def square_crops(
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    *,
    crop_px: int = CROP_PX,
    turns: int = 0,
    stack_height: float = 0.0,
    camera: CameraModel | None = None,
) -> npt.NDArray[np.uint8]:
    """One crop per playable square, in Square order: shape (S, crop_px, crop_px, 3) uint8.

    Each crop covers the square's cell, upright as seen from White. With a ``camera``, the
    cell is taken at ``stack_height`` (square sides) above the board, where the top of a
    stack that tall appears under a tilted camera; without one, on the board surface.
    A greyscale ``image`` is expanded to three channels.
    """
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    target = np.array([[0, 0], [crop_px, 0], [crop_px, crop_px], [0, crop_px]], np.float32)
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    cells = np.array([geometry.rowcol(sq)[::-1] for sq in geometry.squares], np.float64)
    corners = (cells[:, None, :] + unit[None, :, :]).reshape(-1, 2)
    pixels = white_view_to_image(
        location, corners, turns=turns, height=stack_height, camera=camera
    ).reshape(-1, 4, 2)
    crops = np.empty((len(cells), crop_px, crop_px, 3), np.uint8)
    for k, quad in enumerate(pixels.astype(np.float32)):
        matrix = cv2.getPerspectiveTransform(quad, target)
        crops[k] = cv2.warpPerspective(
            colour,
            matrix,
            (crop_px, crop_px),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return crops

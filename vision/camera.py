"""The camera model where intrinsics are known: undistort frames, and the 3x4 projection
of the located board (with height) that stack-top crops need.

A homography only places points on the board's surface. With the camera matrix ``K`` the
board's pose follows from the located grid (``cv2.solvePnP`` on its corners), so a point
``h`` square sides above a square projects where the top of a stack that tall appears
under a tilted camera (:func:`vision.rectify.square_crops` with ``camera=``). Lens
distortion bends the grid's lines, which no homography fits; frames are undistorted
first with maps computed once per frame size (``cv2.remap``: a few milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from vision.locate import BoardLocation, FloatArray, Image
from vision.rectify import (
    CELL,
    CROP_PX,
    CameraModel,
    CropWindow,
    square_centres,
    square_crops,
    white_view_to_board,
)


@dataclass(frozen=True, slots=True, eq=False)
class Intrinsics:
    """``matrix`` (3x3 K) and ``distortion`` (OpenCV's k1, k2, p1, p2[, k3...]) for frames of
    ``size`` (width, height) pixels."""

    matrix: FloatArray
    distortion: FloatArray
    size: tuple[int, int]

    def for_size(self, width: int, height: int) -> Intrinsics:
        """The same camera at another resolution of the same aspect (the sensor binned or
        the frame scaled): K scales with the image, distortion does not change."""
        if (width, height) == self.size:
            return self
        sx, sy = width / self.size[0], height / self.size[1]
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise ValueError(
                f"frames of {width}x{height} do not match intrinsics calibrated at"
                f" {self.size[0]}x{self.size[1]} (another aspect ratio)"
            )
        scaled = np.diag([sx, sy, 1.0]) @ self.matrix
        return Intrinsics(np.asarray(scaled, np.float64), self.distortion, (width, height))


@dataclass
class Undistorter:
    """Removes lens distortion from frames; the undistorted frames obey ``intrinsics.matrix``
    with no distortion. Remap tables are built on the first frame of each size."""

    intrinsics: Intrinsics
    _maps: dict[tuple[int, int], tuple[Image, Image]] = field(default_factory=dict)

    def __call__(self, frame: Image) -> Image:
        if not np.any(self.intrinsics.distortion):
            return frame
        size = (frame.shape[1], frame.shape[0])
        maps = self._maps.get(size)
        if maps is None:
            camera = self.intrinsics.for_size(*size)
            first, second = cv2.initUndistortRectifyMap(
                camera.matrix, camera.distortion, None, camera.matrix, size, cv2.CV_16SC2
            )
            maps = (np.asarray(first), np.asarray(second))
            self._maps[size] = maps
        return np.asarray(cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR), np.uint8)


def distort_points(intrinsics: Intrinsics, points: FloatArray) -> FloatArray:
    """Pixels (K, 2) of an undistorted frame back to where the lens put them in the raw
    frame (for reporting corners in the image the user gave)."""
    homogeneous = (
        np.hstack([points, np.ones((len(points), 1))]) @ np.linalg.inv(intrinsics.matrix).T
    )
    raw, _ = cv2.projectPoints(
        homogeneous.reshape(-1, 1, 3),
        np.zeros(3),
        np.zeros(3),
        intrinsics.matrix,
        intrinsics.distortion,
    )
    return np.asarray(raw, np.float64).reshape(-1, 2)


def camera_model(matrix: FloatArray, location: BoardLocation) -> CameraModel:
    """The projection of the board plane with height (x, y, z square sides, z towards the
    camera) for a board located in an undistorted frame taken with camera matrix ``matrix``.

    The pose is solved from the grid's four corners (``SOLVEPNP_IPPE``, made for planar
    targets). In the board plane x runs to the right and y down as the image shows it, so
    the pose's own z axis points into the table; height is its negative.
    """
    n = float(location.size)
    board = np.array([[0, 0, 0], [n, 0, 0], [n, n, 0], [0, n, 0]], np.float64)
    ok, rvec, tvec = cv2.solvePnP(
        board, location.corners_px.astype(np.float64), matrix, None, flags=cv2.SOLVEPNP_IPPE
    )
    if not ok:
        raise ValueError("no camera pose fits the located board")
    rotation, _ = cv2.Rodrigues(rvec)
    axes = np.column_stack([rotation[:, 0], rotation[:, 1], -rotation[:, 2], tvec.ravel()])
    return CameraModel(np.asarray(matrix @ axes, np.float64))


#: Focal length assumed, as a fraction of the frame's long side, when the board's
#: perspective cannot tell it (a camera straight overhead): a 53-degree field of view,
#: between a phone's main camera (about 0.75) and a narrower webcam or Pi lens.
PRIOR_FOCAL_OF_WIDTH = 1.0
#: Weight of that prior against the homography's two constraints (in units of the
#: constraints' normalised squares): it decides below about 10 degrees of tilt.
PRIOR_WEIGHT = 2e-3


def focal_from_homography(
    board_to_image: FloatArray, size: tuple[int, int], *, prior: float | None = None
) -> float:
    """The focal length in pixels that makes the board square and flat (Zhang, 2000).

    With square pixels, no skew and the principal point at the image centre, the plane's
    homography ``H = s K [r1 r2 t]`` gives two equations in ``w = 1/f^2``: ``r1 . r2 = 0``
    and ``|r1| = |r2|``. Their least-squares solution is blended with ``prior`` (default
    :data:`PRIOR_FOCAL_OF_WIDTH` of the long side), which wins when the board is seen
    nearly head-on and the equations say little.
    """
    width, height = size
    f0 = prior if prior is not None else PRIOR_FOCAL_OF_WIDTH * max(width, height)
    # Pixels about the principal point, in units of the prior focal: w' = (f0 / f)^2 ~ 1.
    normalise = np.array([[1 / f0, 0, -width / 2 / f0], [0, 1 / f0, -height / 2 / f0], [0, 0, 1]])
    h = normalise @ board_to_image
    h = h / np.linalg.norm(h[:2, :2])
    h1, h2 = h[:, 0], h[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    w = (PRIOR_WEIGHT - float(a @ b)) / (PRIOR_WEIGHT + float(a @ a))
    # A negative or tiny w is noise about "no perspective": clamp to a 10x range of f.
    w = min(max(w, 0.01), 100.0)
    return float(f0 / np.sqrt(w))


def camera_from_homography(board_to_image: FloatArray, matrix: FloatArray) -> CameraModel:
    """The board-plane-with-height projection whose height 0 is exactly the homography.

    ``K^-1 H = s [r1 r2 t]``: the third axis is ``r1 x r2``, turned towards the camera,
    scaled like the first two, so crops at height 0 are the homography's crops.
    """
    m = np.linalg.inv(matrix) @ board_to_image
    if m[2, 2] < 0:  # the board in front of the camera: t_z > 0
        m, board_to_image = -m, -board_to_image
    scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    up = np.cross(m[:, 0], m[:, 1])
    up /= np.linalg.norm(up)
    if up @ m[:, 2] > 0:  # height points from the board towards the camera
        up = -up
    return CameraModel(
        np.column_stack(
            [board_to_image[:, 0], board_to_image[:, 1], scale * matrix @ up, board_to_image[:, 2]]
        ).astype(np.float64)
    )


def estimate_camera(
    location: BoardLocation, size: tuple[int, int], intrinsics: Intrinsics | None = None
) -> CameraModel:
    """The camera model for a located board in a frame of ``size`` (width, height): from
    the measured intrinsics when there are some (the frame undistorted), else from the
    focal length the board's perspective implies (:func:`focal_from_homography`)."""
    board_to_image = np.asarray(np.linalg.inv(location.homography), np.float64)
    if intrinsics is not None:
        matrix = intrinsics.for_size(*size).matrix
    else:
        focal = focal_from_homography(board_to_image, size)
        matrix = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]])
    return camera_from_homography(board_to_image, matrix)


def camera_centre(camera: CameraModel) -> FloatArray:
    """(3,) where the camera is: board-plane x, y and height z, in square sides."""
    centre = np.linalg.svd(camera.projection)[2][-1]  # the null vector: P C = 0
    return np.asarray(centre[:3] / centre[3], np.float64)


def view_tangents(
    location: BoardLocation,
    geometry: BoardGeometry,
    image_size: tuple[int, int],
    *,
    turns: int = 0,
    camera: CameraModel | None = None,
) -> FloatArray:
    """(S,) per playable square, in Square order: the tangent of the angle between the
    camera's ray to the cell's centre and the vertical, which is how far a point one
    square side above the cell appears displaced on the board plane (for a low point):
    what a stack's side band per disc is to be measured against. From ``camera`` where
    one is known, else from :func:`estimate_camera` (near straight down its focal length
    is the prior, and so the camera's height a guess, but there the tangents are small
    whatever it is)."""
    centre = camera_centre(camera or estimate_camera(location, image_size))
    board = white_view_to_board(square_centres(geometry), turns=turns, size=location.size)
    height = max(abs(float(centre[2])), 1e-6)
    return np.asarray(np.linalg.norm(board - centre[:2], axis=1) / height, np.float64)


def crops_and_views(
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    *,
    crop_px: int = CROP_PX,
    window: CropWindow = CELL,
    turns: int = 0,
    camera: CameraModel | None = None,
    stack_height: float = 0.0,
) -> tuple[npt.NDArray[np.uint8], FloatArray]:
    """A square classifier's input: :func:`vision.rectify.square_crops` and the cells'
    :func:`view_tangents`, cut together so the tangents always belong to the crops'
    camera and turn."""
    crops = square_crops(
        image,
        location,
        geometry,
        crop_px=crop_px,
        turns=turns,
        stack_height=stack_height,
        camera=camera,
        window=window,
    )
    image_size = (image.shape[1], image.shape[0])
    return crops, view_tangents(location, geometry, image_size, turns=turns, camera=camera)

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
class CropWindow:
    """What a crop covers around its cell, in square sides, and which way is up in it.

    ``left``/``right``/``top``/``bottom`` are margins added to the unit cell. With
    ``upright="image"`` the crop's up is the cell's side that points most nearly up in
    the image (away from a tilted camera), whatever the board's turn: the displaced top
    and the side band of a stack then always lie above and below the base in the crop.
    With ``"white"`` the crop is upright as seen from White (the plain cell crop).
    """

    left: float = 0.0
    right: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    upright: str = "white"

    def __post_init__(self) -> None:
        if self.upright not in ("white", "image"):
            raise ValueError(f"crop upright {self.upright!r} is neither 'white' nor 'image'")
        if min(self.left, self.right, self.top, self.bottom) < 0:
            raise ValueError(f"crop margins must not be negative: {self}")

    def as_dict(self) -> dict[str, float | str]:
        return {"left": self.left, "right": self.right, "top": self.top,
                "bottom": self.bottom, "upright": self.upright}  # fmt: skip


#: The plain cell, upright from White: colour prototypes and the board's own checks.
CELL = CropWindow()

#: The square classifier's window: the cell with context, more of it on the far side.
#: Under a tilted camera a stack's top is displaced away from the camera (up in the
#: image): a king's (two discs, 0.38 square sides tall) by at most 0.38 square sides on
#: renders tilted up to 35 degrees, a tower's by 0.65 at the 99th percentile. The far
#: margin holds the displaced top and a tower's side band, the near and side ones a
#: piece standing off-centre. 1.7 x 1.7 squares in 48 px: the cell spans 28 px, about
#: what a 640x480 frame gives a square of a 10x10 board. Towers taller than about five
#: discs under a strongly tilted camera still reach past the far edge.
CONTEXT = CropWindow(left=0.35, right=0.35, top=0.6, bottom=0.1, upright="image")


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


def square_centres(geometry: BoardGeometry) -> FloatArray:
    """(S, 2) White-view centres of the playable squares, in Square order."""
    cells = np.array([geometry.rowcol(sq)[::-1] for sq in geometry.squares], np.float64)
    return np.asarray(cells + 0.5, np.float64)


def white_view_to_board(points: FloatArray, *, turns: int, size: int) -> FloatArray:
    """(K, 2) White-view plane points to the board plane of a ``size`` board."""
    rotate = orientation_matrix(turns, size)
    return np.asarray((np.hstack([points, np.ones((len(points), 1))]) @ rotate.T)[:, :2])


def white_view_to_image(
    location: BoardLocation,
    points: FloatArray,
    *,
    turns: int = 0,
    height: float = 0.0,
    camera: CameraModel | None = None,
) -> FloatArray:
    """(K, 2) White-view plane points at ``height`` to (K, 2) image pixels."""
    board = white_view_to_board(points, turns=turns, size=location.size)
    if camera is not None:
        return camera.project(np.hstack([board, np.full((len(board), 1), height)]))
    return location.to_image(np.asarray(board, np.float64))


def warp_board(
    image: Image,
    location: BoardLocation,
    *,
    px_per_square: int = 32,
    turns: int = 0,
    margin_px: int = 0,
) -> Image:
    """The playing grid seen from above, White at the bottom, framed by ``margin_px`` of
    what lies around it (the board's border): (N*px + 2*margin, ...[, 3]) uint8."""
    n = location.size
    side = n * px_per_square + 2 * margin_px
    m = margin_px / px_per_square
    plane = np.array([[-m, -m], [n + m, -m], [n + m, n + m], [-m, n + m]])
    source = white_view_to_image(location, plane, turns=turns).astype(np.float32)
    target = ((plane + m) * px_per_square).astype(np.float32)
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
    window: CropWindow = CELL,
) -> npt.NDArray[np.uint8]:
    """One crop per playable square, in Square order: shape (S, crop_px, crop_px, 3) uint8.

    Each crop covers the square's cell, upright as seen from White. With a ``camera``, the
    cell is taken at ``stack_height`` (square sides) above the board, where the top of a
    stack that tall appears under a tilted camera; without one, on the board surface.
    ``window`` says how much around the cell the crop covers and which way is up in it
    (:class:`CropWindow`; the default is the plain cell, upright from White).
    A greyscale ``image`` is expanded to three channels.
    """
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    target = np.array([[0, 0], [crop_px, 0], [crop_px, crop_px], [0, crop_px]], np.float32)
    centres = square_centres(geometry)
    nadir = None
    if window.upright == "image":
        nadir = nadir_point(location, (colour.shape[1], colour.shape[0]), camera)
    corners = _window_corners(location, centres, window, turns, nadir).reshape(-1, 2)
    pixels = white_view_to_image(
        location, corners, turns=turns, height=stack_height, camera=camera
    ).reshape(-1, 4, 2)
    crops = np.empty((len(centres), crop_px, crop_px, 3), np.uint8)
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


def nadir_point(
    location: BoardLocation, image_size: tuple[int, int], camera: CameraModel | None = None
) -> FloatArray:
    """The image's vanishing point of vertical lines, homogeneous (3,): a stack grows in
    the image away from it. From ``camera`` where one is known; else from the homography
    alone, with the principal point at the image centre, square pixels, and the focal
    length that makes the board's axes perpendicular (a default where that is ill-posed,
    as for a camera looking straight down, where the focal length hardly matters)."""
    if camera is not None:
        return np.asarray(camera.projection[:, 2], np.float64)
    width, height = image_size
    centre = np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]])
    plane_to_image = centre @ np.linalg.inv(location.homography)
    h1, h2 = plane_to_image[:, 0], plane_to_image[:, 1]
    guesses = []
    for numerator, denominator in (
        (-(h1[0] * h2[0] + h1[1] * h2[1]), h1[2] * h2[2]),
        (h2[0] ** 2 + h2[1] ** 2 - h1[0] ** 2 - h1[1] ** 2, h1[2] ** 2 - h2[2] ** 2),
    ):
        if abs(denominator) > 1e-12 and numerator / denominator > 0:
            guesses.append(float(np.sqrt(numerator / denominator)))
    plausible = [f for f in guesses if 0.3 * max(image_size) < f < 5 * max(image_size)]
    focal = float(np.median(plausible)) if plausible else float(max(image_size))
    to_camera = np.diag([1 / focal, 1 / focal, 1.0])
    up = np.cross(to_camera @ h1, to_camera @ h2)
    nadir = np.linalg.inv(centre) @ np.diag([focal, focal, 1.0]) @ up
    return np.asarray(nadir, np.float64)


#: Unit steps in the White-view plane: up, right, down, left (y runs down the board).
_STEPS = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])


def _window_corners(
    location: BoardLocation,
    centres: FloatArray,
    window: CropWindow,
    turns: int,
    nadir: FloatArray | None,
) -> FloatArray:
    """(S, 4, 2) White-view corners of each cell's window, clockwise from the crop's
    top-left. For ``upright="image"`` each cell picks the one of its four sides whose
    step goes most nearly the way a stack grows in the image (away from ``nadir``)."""
    count = len(centres)
    if window.upright == "image" and nadir is not None:
        ends = (centres[:, None, :] + 0.25 * _STEPS[None, :, :]).reshape(-1, 2)
        image = white_view_to_image(location, np.vstack([centres, ends]), turns=turns)
        steps = image[count:].reshape(count, 4, 2) - image[:count, None, :]
        steps /= np.linalg.norm(steps, axis=2, keepdims=True) + 1e-9
        if abs(nadir[2]) > 1e-9 * np.linalg.norm(nadir[:2]):
            grow = image[:count] - nadir[:2] / nadir[2]
        else:  # vertical lines parallel in the image: they grow against their direction
            grow = np.broadcast_to(-nadir[:2], (count, 2))
        # The sign of a homogeneous nadir is arbitrary; a camera above the board sees the
        # nadir on the board's side of the horizon, so growth points away from it there.
        grow = grow / (np.linalg.norm(grow, axis=1, keepdims=True) + 1e-9)
        up_index = np.argmax(np.einsum("skd,sd->sk", steps, grow), axis=1)
    else:
        up_index = np.zeros(count, np.int64)
    up = _STEPS[up_index]
    right = _STEPS[(up_index + 1) % 4]  # a quarter turn clockwise of up, as seen from above
    a = np.array([-0.5 - window.left, 0.5 + window.right, 0.5 + window.right, -0.5 - window.left])
    b = np.array([0.5 + window.top, 0.5 + window.top, -0.5 - window.bottom, -0.5 - window.bottom])
    corners = centres[:, None, :] + a[None, :, None] * right[:, None, :]
    return np.asarray(corners + b[None, :, None] * up[:, None, :], np.float64)

"""Which quarter turn of the located grid is the White view.

The located board plane has its (0, 0) corner wherever the detector put it. Two checks
fix the turn: the playable cells are those that carry pieces, or, on a board with too few
pieces to tell, the dark ones (the usual printing; some home sets put the pieces on the
light squares). That leaves two turns 180 degrees apart; of those, calibration
picks the one where the start position's white men stand at the bottom, and a bare
``damcam read`` the one that keeps the image's bottom edge at White's side.
"""

from __future__ import annotations

import cv2
import numpy as np

from rules.geometry import BoardGeometry
from vision.locate import (
    BoardLocation,
    BoardNotFound,
    Image,
    locate_markerless,
    location_from_corners,
    snap_location,
)
from vision.prototype import EMPTY_CONTRAST, centre_colours, ring_colours
from vision.rectify import warp_board, white_view_to_image

CELL_PX = 24


def parity_turns(image: Image, location: BoardLocation, geometry: BoardGeometry) -> list[int]:
    """The turns (0..3) under which the playable cells are the occupied (else darker) ones."""
    top_down = warp_board(image, location, px_per_square=CELL_PX)
    if top_down.ndim == 2:
        top_down = np.asarray(cv2.cvtColor(top_down, cv2.COLOR_GRAY2BGR), np.uint8)
    n = location.size
    cells = top_down.reshape(n, CELL_PX, n, CELL_PX, 3).transpose(0, 2, 1, 3, 4)
    cells = np.ascontiguousarray(cells.reshape(n * n, CELL_PX, CELL_PX, 3))
    centres = centre_colours(cells)
    occupied = (np.linalg.norm(centres - ring_colours(cells), axis=1) > EMPTY_CONTRAST).reshape(
        n, n
    )
    lightness = centres[:, 0].reshape(n, n)
    odd = (np.add.outer(np.arange(n), np.arange(n)) % 2) == 1
    odd_count, even_count = int(occupied[odd].sum()), int(occupied[~odd].sum())
    if abs(odd_count - even_count) >= 2:
        odd_playable_here = odd_count > even_count
    else:
        odd_playable_here = bool(lightness[odd].mean() < lightness[~odd].mean())
    # A quarter turn of an even board swaps the parity of the cell at (0, 0).
    base = [0, 2] if odd_playable_here == (geometry.dark_parity == 1) else [1, 3]
    return base if n % 2 == 0 else [0, 1, 2, 3]


def bottom_facing_turn(location: BoardLocation, turns: list[int]) -> int:
    """Of ``turns``, the one whose White side (bottom row) lies lowest in the image."""
    n = float(location.size)
    bottom_middle = np.array([[n / 2, n]])
    return max(
        turns, key=lambda t: float(white_view_to_image(location, bottom_middle, turns=t)[0, 1])
    )


def checker_contrast(image: Image, location: BoardLocation) -> float:
    """How well the located N x N cells alternate light and dark, in [0, 1].

    Markers alone do not tell an 8x8 from a 10x10 grid; the right size alternates.
    """
    top_down = warp_board(image, location, px_per_square=CELL_PX)
    gray = top_down.mean(axis=2) if top_down.ndim == 3 else top_down.astype(np.float64)
    n = location.size
    margin = CELL_PX // 4
    cells = gray.reshape(n, CELL_PX, n, CELL_PX)[:, margin:-margin, :, margin:-margin]
    means = cells.mean(axis=(1, 3))
    sign = np.where(np.add.outer(np.arange(n), np.arange(n)) % 2 == 0, 1.0, -1.0)
    spread = float(np.abs(means - means.mean()).mean())
    return abs(float((sign * (means - means.mean())).mean())) / spread if spread > 0 else 0.0


def shrink_to_grid(image: Image, location: BoardLocation, px: int = 40) -> BoardLocation:
    """The playing grid inside a marker quad of a foreign layout (``aruco-quad``).

    Such markers sit some way outside the grid, beyond a frame of unknown width. The quad
    is warped top-down, where the checkered grid is nearly fronto-parallel and the
    markerless detector is reliable, the two fits are composed, and the result is snapped
    onto the grid's X-corners in the full frame (the top-down warp is coarse). Keeps the quad
    itself when no grid is found inside or the found one alternates clearly less.
    """
    n = location.size
    pad = 1  # a square's margin all round, so that the grid's edge lines are whole
    side = (n + 2 * pad) * px
    to_top_down = (
        np.array([[px, 0, pad * px], [0, px, pad * px], [0, 0, 1.0]]) @ location.homography
    )
    top_down = np.asarray(cv2.warpPerspective(image, to_top_down, (side, side)), np.uint8)
    inner = locate_markerless(top_down, n)
    if isinstance(inner, BoardNotFound):
        return location
    corners = cv2.perspectiveTransform(
        inner.corners_px.reshape(-1, 1, 2), np.linalg.inv(to_top_down)
    ).reshape(4, 2)
    refined = snap_location(
        image, location_from_corners(np.asarray(corners, np.float64), n, location.method)
    )
    # The quad is not the grid (a frame lies between), so the grid found inside it wins
    # unless it alternates clearly less.
    good = checker_contrast(image, refined) > 0.9 * checker_contrast(image, location)
    return refined if good else location

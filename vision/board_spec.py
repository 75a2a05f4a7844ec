"""The printed marker layout of a damcam board: where the ArUco markers sit around the grid.

The board plane is measured in square sides: the playing grid spans ``[0, N] x [0, N]``
with (0, 0) at the top-left corner as seen from White (Black's back row on top). Marker
ids 0..3 sit diagonally outside the grid corners: top-left, top-right, bottom-right,
bottom-left, each printed upright as seen from White.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class MarkerBoardSpec:
    """Marker dictionary, ids and placement, in units of a square side.

    ``marker_size`` is a marker's side; ``gap`` the distance from a grid corner to the
    nearest corner of its marker, along both axes.
    """

    dictionary: int = cv2.aruco.DICT_4X4_50
    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_size: float = 0.8
    gap: float = 0.25

    def marker_corners(self, size: int) -> dict[int, FloatArray]:
        """Board-plane corners of each marker, in ArUco's order (its own TL, TR, BR, BL)."""
        s, g = self.marker_size, self.gap
        origins = (
            (-g - s, -g - s),  # top-left of the grid
            (size + g, -g - s),
            (size + g, size + g),
            (-g - s, size + g),
        )
        unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
        return {
            marker_id: np.asarray(origin, dtype=np.float64) + unit * s
            for marker_id, origin in zip(self.ids, origins, strict=True)
        }

    def sheet(self, size: int, px_per_square: int = 100) -> npt.NDArray[np.uint8]:
        """A printable greyscale image: the grid outline and the four markers, to scale."""
        margin = self.gap + self.marker_size + 0.5
        side = round((size + 2 * margin) * px_per_square)
        image = np.full((side, side), 255, np.uint8)
        dictionary = cv2.aruco.getPredefinedDictionary(self.dictionary)
        marker_px = round(self.marker_size * px_per_square)
        for marker_id, corners in self.marker_corners(size).items():
            x, y = np.round((corners[0] + margin) * px_per_square).astype(int)
            image[y : y + marker_px, x : x + marker_px] = cv2.aruco.generateImageMarker(
                dictionary, marker_id, marker_px
            )
        top_left = round(margin * px_per_square)
        bottom_right = round((margin + size) * px_per_square)
        cv2.rectangle(image, (top_left, top_left), (bottom_right, bottom_right), 0, 2)
        return image


# synth2's constants (mm), kept beside vision2's spec by the models2 merge; the lead reconciles.
ARUCO_DICTIONARY: Final = "DICT_4X4_50"
"""Name of the ``cv2.aruco`` predefined dictionary."""

MARKER_IDS: Final = (0, 1, 2, 3)
"""Marker id beyond each grid corner: top-left, top-right, bottom-right, bottom-left."""

MARKER_SIZE_MM: Final = 20.0
"""Side of the black marker square (6 modules: 4 data bits plus the black frame)."""

MARKER_OFFSET_MM: Final = 4.0
"""Gap between the grid corner and the marker's nearest corner, along each board axis."""

QUIET_ZONE_MM: Final = 3.0
"""White margin printed around each marker."""

MIN_BORDER_MM: Final = MARKER_OFFSET_MM + MARKER_SIZE_MM + QUIET_ZONE_MM
"""The narrowest border that holds the markers."""

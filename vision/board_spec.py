"""The tournament board's ArUco markers: one constants module that vision and synth share.

Four markers from OpenCV's ``DICT_4X4_50`` sit in the board's border, one beyond each
outer corner of the playing grid, ids 0..3 = top-left, top-right, bottom-right,
bottom-left as seen from White's side. Each marker is a square of ``MARKER_SIZE_MM``
whose nearest corner is ``MARKER_OFFSET_MM`` out from the grid corner along both board
axes, printed black on a white quiet zone of ``QUIET_ZONE_MM``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

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


@dataclass(frozen=True, slots=True)
class MarkerBoardSpec:
    """The marker layout in units of a square side, for one board's square size.

    ``marker_size`` is a marker's side; ``gap`` the distance from a grid corner to the
    nearest corner of its marker, along both axes. The defaults are the printed layout
    above on a board with 40 mm squares; :func:`vision.locate.locate_by_markers` measures
    the actual square size from the markers themselves.
    """

    dictionary: int = cv2.aruco.DICT_4X4_50
    ids: tuple[int, int, int, int] = MARKER_IDS
    marker_size: float = MARKER_SIZE_MM / 40.0
    gap: float = MARKER_OFFSET_MM / 40.0

    def scaled(self, square_mm: float) -> MarkerBoardSpec:
        """This layout on a board whose squares are ``square_mm`` wide."""
        return replace(
            self, marker_size=MARKER_SIZE_MM / square_mm, gap=MARKER_OFFSET_MM / square_mm
        )

    def marker_corners(self, size: int) -> dict[int, FloatArray]:
        """Board-plane corners of each marker, in ArUco's order (its own TL, TR, BR, BL)."""
        s, g = self.marker_size, self.gap
        origins = (
            (-g - s, -g - s),  # beyond the grid's top-left corner
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

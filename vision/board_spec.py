"""The tournament board's ArUco markers: one constants module that vision and synth share.

Four markers from OpenCV's ``DICT_4X4_50`` sit in the board's border, one beyond each
outer corner of the playing grid, ids 0..3 = top-left, top-right, bottom-right,
bottom-left as seen from White's side. Each marker is a square of ``MARKER_SIZE_MM``
whose nearest corner is ``MARKER_OFFSET_MM`` out from the grid corner along both board
axes, printed black on a white quiet zone of ``QUIET_ZONE_MM``.
"""

from __future__ import annotations

from typing import Final

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

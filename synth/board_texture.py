"""The board's printed top as an image: squares, border, grid line, grain, ArUco markers."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.geometry import BoardGeometry
from synth.scene import BOARD_SCHEMES, Style
from vision import board_spec

MAX_TEXTURE_PX = 1024


@dataclass(frozen=True)
class BoardLayout:
    """Sizes in millimetres of one board: ``size`` squares of ``square_mm`` in a border."""

    size: int
    square_mm: float
    border_mm: float

    @property
    def grid_mm(self) -> float:
        return self.size * self.square_mm

    @property
    def width_mm(self) -> float:
        return self.grid_mm + 2 * self.border_mm

    def cell_centre(self, row: int, col: int) -> tuple[float, float]:
        """World (x, y) of a cell's centre: row 0 is far from White, col 0 on White's left."""
        half = (self.size - 1) / 2
        return ((col - half) * self.square_mm, (half - row) * self.square_mm)

    def grid_corners(self) -> NDArray[np.float64]:
        """The playing grid's corners seen from White: top-left, top-right, bottom-right,
        bottom-left (z = 0)."""
        h = self.grid_mm / 2
        return np.array([[-h, h, 0.0], [h, h, 0.0], [h, -h, 0.0], [-h, -h, 0.0]])


def layout_for(style: Style, geometry: BoardGeometry) -> BoardLayout:
    return BoardLayout(geometry.size, style.square_mm, style.border_mm)


def board_image(style: Style, geometry: BoardGeometry) -> NDArray[np.float32]:
    """RGB float image of the board's top, row 0 at the far (Black's) edge."""
    layout = layout_for(style, geometry)
    px_per_mm = MAX_TEXTURE_PX / layout.width_mm
    side = MAX_TEXTURE_PX
    light, dark, border = (np.array(c, dtype=np.float32) for c in BOARD_SCHEMES[style.board])
    rng = np.random.default_rng(style.seed + 7919)
    image = np.empty((side, side, 3), dtype=np.float32)
    image[:] = border

    def px(mm: float) -> int:
        return round(mm * px_per_mm)

    origin = layout.border_mm
    for row in range(geometry.size):
        for col in range(geometry.size):
            colour = dark if (row + col) % 2 == geometry.dark_parity else light
            shade = 1.0 + float(rng.normal(0, 0.025))
            x0, y0 = px(origin + col * layout.square_mm), px(origin + row * layout.square_mm)
            x1 = px(origin + (col + 1) * layout.square_mm)
            y1 = px(origin + (row + 1) * layout.square_mm)
            image[y0:y1, x0:x1] = colour * shade
    if style.board.startswith("wood"):
        image *= _grain(rng, side)[..., None]
    else:
        # Print and paper grain; drawn at half size (a million normals cost more than the
        # rest of the board: boards are drawn anew for every style of a data set).
        grain = rng.standard_normal((side // 2, side // 2), dtype=np.float32)
        image *= (1.0 + 0.015 * cv2.resize(grain, (side, side)))[..., None]
    # A thin line framing the grid, as printed and inlaid boards have.
    g0, g1 = px(origin), px(origin + layout.grid_mm)
    line = (border * 0.55).tolist()
    cv2.rectangle(image, (g0 - 1, g0 - 1), (g1, g1), line, max(1, px(0.8)))
    if style.markers:
        _draw_markers(image, layout, px_per_mm)
    if style.coordinates:
        _draw_coordinates(image, layout, px_per_mm, border)
    return np.clip(image, 0.0, 1.0)


def _grain(rng: np.random.Generator, side: int) -> NDArray[np.float32]:
    """Wood grain: long streaks along x, bent by low-frequency noise."""
    bend = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (side, side))
    streaks = cv2.resize(rng.normal(0, 1, (side, 12)).astype(np.float32), (side, side))
    ys = np.arange(side, dtype=np.float32)[:, None]
    rings = np.sin(ys * 0.25 + bend * 6.0)
    return (1.0 + 0.05 * rings + 0.04 * streaks).astype(np.float32)


def _draw_markers(image: NDArray[np.float32], layout: BoardLayout, px_per_mm: float) -> None:
    """Paint the four ArUco markers of :mod:`vision.board_spec` beyond the grid corners."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board_spec.ARUCO_DICTIONARY))
    size, gap, quiet = (
        board_spec.MARKER_SIZE_MM,
        board_spec.MARKER_OFFSET_MM,
        board_spec.QUIET_ZONE_MM,
    )
    g0, g1 = layout.border_mm, layout.border_mm + layout.grid_mm
    # Top-left corner (mm) of each marker: beyond the grid's corners, clockwise from top-left.
    origins = (
        (g0 - gap - size, g0 - gap - size),
        (g1 + gap, g0 - gap - size),
        (g1 + gap, g1 + gap),
        (g0 - gap - size, g1 + gap),
    )
    for marker_id, (x_mm, y_mm) in zip(board_spec.MARKER_IDS, origins, strict=True):
        n = round(size * px_per_mm)
        x, y = round(x_mm * px_per_mm), round(y_mm * px_per_mm)
        q = round(quiet * px_per_mm)
        image[y - q : y + n + q, x - q : x + n + q] = 1.0
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, n)
        image[y : y + n, x : x + n] = (marker.astype(np.float32) / 255.0)[..., None] * 0.95 + 0.02


def _draw_coordinates(
    image: NDArray[np.float32], layout: BoardLayout, px_per_mm: float, border: NDArray[np.float32]
) -> None:
    """Files a, b, ... under the grid and ranks 1, 2, ... left of it, seen from White."""
    ink = np.float32(0.95 if float(border.mean()) < 0.5 else 0.1)
    margin = min(layout.border_mm, 12.0)
    scale = margin * px_per_mm / 40.0
    thickness = max(1, round(scale * 1.5))
    g0, g1 = layout.border_mm, layout.border_mm + layout.grid_mm
    letters = np.zeros(image.shape[:2], dtype=np.uint8)  # putText draws on bytes only
    for i in range(layout.size):
        along = (g0 + (i + 0.5) * layout.square_mm) * px_per_mm
        for text, (x, y) in (
            (chr(ord("a") + i), (along, (g1 + margin / 2) * px_per_mm)),
            (str(layout.size - i), ((g0 - margin / 2) * px_per_mm, along)),
        ):
            (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
            origin = (round(x - w / 2), round(y + h / 2))
            cv2.putText(
                letters, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness, cv2.LINE_AA
            )
    # Blend only the strips that hold letters: the whole image would cost ten times more.
    rows = slice(round(g1 * px_per_mm), round((g1 + margin) * px_per_mm) + 1)
    cols = slice(max(0, round((g0 - 1.5 * margin) * px_per_mm)), round(g0 * px_per_mm) + 1)
    for strip in ((rows, slice(None)), (slice(None), cols)):
        alpha = (letters[strip].astype(np.float32) / 255.0)[..., None]
        image[strip] = image[strip] * (1 - alpha) + ink * alpha

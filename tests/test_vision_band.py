"""Band strips: each cell's strip points away from the camera's foot, one disc of band
per ``rows_per_disc`` rows, centred on the cell."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rules import find_variant
from vision.band import BAND, band_strips
from vision.camera import view_tangents
from vision.locate import BoardLocation
from vision.rectify import CameraModel, square_centres, white_view_to_board

SIZE = 8
FOOT = np.array([-5.0, 4.0])  # the camera stands off the board's left edge
CAMERA_HEIGHT = 10.0


def _camera() -> CameraModel:
    """A pinhole 10 square sides above a point off the board's left edge, aimed at its
    centre, in a 640x480 frame."""
    centre = np.array([*FOOT, CAMERA_HEIGHT])
    forward = np.array([SIZE / 2, SIZE / 2, 0.0]) - centre
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.stack([right, down, forward])
    matrix = np.array([[500.0, 0, 320], [0, 500.0, 240], [0, 0, 1]])
    return CameraModel(matrix @ np.hstack([rotation, (-rotation @ centre)[:, None]]))


def _location(camera: CameraModel) -> BoardLocation:
    plane = camera.projection[:, [0, 1, 3]]  # the board surface, z = 0
    corners = camera.project(np.array([[0, 0, 0], [SIZE, 0, 0], [SIZE, SIZE, 0], [0, SIZE, 0]]))
    return BoardLocation(np.linalg.inv(plane), SIZE, corners, 0.0, "test")


@pytest.mark.parametrize(("turns", "given_view"), [(0, None), (1, None), (0, 0.5), (1, 1.2)])
def test_a_point_beyond_the_cell_lands_on_the_strips_centre_line_at_its_scale(
    turns: int, given_view: float | None
) -> None:
    # A point 0.3 square sides beyond the cell, away from the camera, is where the top
    # of a stack 0.3 / (disc_height * view) discs tall appears: on the strip's centre
    # line, rows_per_disc rows up for each of those discs (the view the caller gives
    # sets the scale; by default the camera's own tangent).
    camera = _camera()
    location = _location(camera)
    assert np.all((location.corners_px >= 0) & (location.corners_px < [640, 480]))
    geometry = find_variant("bashni").geometry
    cell = 13  # any playable square
    centre = white_view_to_board(square_centres(geometry), turns=turns, size=SIZE)[cell]
    away = (centre - FOOT) / np.linalg.norm(centre - FOOT)
    distance = 0.3
    dot = location.to_image((centre + distance * away)[None, :])[0]
    frame = np.full((480, 640, 3), 128, np.uint8)
    cv2.circle(frame, (round(dot[0]), round(dot[1])), 2, (0, 0, 255), -1)
    tangents = view_tangents(location, geometry, (640, 480), turns=turns, camera=camera)
    np.testing.assert_allclose(
        tangents[cell], np.linalg.norm(centre - FOOT) / CAMERA_HEIGHT, rtol=1e-6
    )
    views = None if given_view is None else np.full(len(tangents), given_view)

    strips = band_strips(frame, location, geometry, views=views, turns=turns, camera=camera)

    assert strips.shape == (len(geometry.squares), BAND.rows, BAND.cols, 3)
    red = (strips[cell, :, :, 2] > 200) & (strips[cell, :, :, 1] < 80)
    rows, cols = np.nonzero(red)
    assert len(rows) > 0
    view = tangents[cell] if given_view is None else given_view
    rows_per_square = BAND.rows_per_disc / (BAND.disc_height * view)
    expected_row = BAND.rows - 0.5 - (distance + BAND.near) * rows_per_square
    assert abs(rows.mean() - expected_row) < 1.0
    assert abs(cols.mean() - (BAND.cols - 1) / 2) < 1.0


def test_views_must_be_one_per_square() -> None:
    camera = _camera()
    geometry = find_variant("bashni").geometry
    with pytest.raises(ValueError, match="5 view tangents for 32 squares"):
        band_strips(
            np.zeros((480, 640, 3), np.uint8),
            _location(camera),
            geometry,
            views=np.full(5, 0.5),
            camera=camera,
        )


def test_the_strips_of_some_cells_are_those_cells_strips_of_all() -> None:
    camera = _camera()
    location = _location(camera)
    geometry = find_variant("bashni").geometry
    frame = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    every = band_strips(frame, location, geometry, camera=camera)
    cells = np.array([20, 3, 31])

    some = band_strips(frame, location, geometry, camera=camera, cells=cells)

    np.testing.assert_array_equal(some, every[cells])

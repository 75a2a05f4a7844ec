"""The camera model from a located board and K: stack tops land where synth drew them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules import find_variant
from rules.position import Position
from vision.camera import Intrinsics, Undistorter, camera_model
from vision.locate import BoardLocation, locate_markerless

RUSSIAN = find_variant("russian")


@pytest.fixture(scope="module")
def tilted_start() -> tuple[np.ndarray, dict[str, Any]]:
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    style = scene.Style(seed=3, variant="russian", tilt_deg=35.0, azimuth_deg=20.0)
    try:
        rendered = render.render_position(Position.initial(RUSSIAN), style, (1280, 960))
    except Exception as error:  # no OpenGL context on this machine
        pytest.skip(f"no OpenGL renderer: {error}")
    return rendered.image, rendered.truth


def test_stack_tops_project_where_the_renderer_drew_them(
    tilted_start: tuple[np.ndarray, dict[str, Any]],
) -> None:
    from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER

    image, truth = tilted_start
    found = locate_markerless(image, 8)
    assert isinstance(found, BoardLocation), found
    camera = camera_model(np.array(truth["camera_matrix"]), found)
    man = DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER  # a man's height in square sides
    occupied = [name for name, stack in truth["squares"].items() if stack]
    centres = np.array([truth["centres"][name] for name in occupied])
    tops = np.array([truth["tops"][name] for name in occupied])
    plane = found.to_board(centres)
    on_board = camera.project(np.column_stack([plane, np.zeros(len(plane))]))
    at_top = camera.project(np.column_stack([plane, np.full(len(plane), man)]))
    side = found.square_side_px()
    assert np.abs(on_board - centres).max() < 0.03 * side
    assert np.abs(at_top - tops).max() < 0.03 * side
    # The tilt moves the tops visibly: sampling at the centre would miss them.
    assert np.linalg.norm(tops - centres, axis=1).mean() > 0.08 * side


def test_undistorter_is_a_no_op_without_distortion() -> None:
    frame = np.random.default_rng(1).integers(0, 255, (48, 64, 3)).astype(np.uint8)
    K = np.array([[60.0, 0, 32], [0, 60.0, 24], [0, 0, 1]])
    assert Undistorter(Intrinsics(K, np.zeros(5), (64, 48)))(frame) is frame

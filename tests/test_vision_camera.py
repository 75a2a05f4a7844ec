"""The camera model from a located board, with K or estimated: stack tops land where synth
drew them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules import find_variant
from rules.position import Position
from vision.camera import (
    PRIOR_FOCAL_OF_WIDTH,
    Intrinsics,
    Undistorter,
    camera_from_homography,
    camera_model,
    estimate_camera,
    focal_from_homography,
    view_tangents,
)
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


def test_focal_length_is_recovered_from_a_tilted_board(
    tilted_start: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, truth = tilted_start
    found = locate_markerless(image, 8)
    assert isinstance(found, BoardLocation), found
    focal = focal_from_homography(
        np.asarray(np.linalg.inv(found.homography), np.float64), (1280, 960)
    )
    true_focal = truth["camera_matrix"][0][0]
    assert abs(focal - true_focal) < 0.1 * true_focal


def test_estimated_camera_puts_stack_tops_where_the_renderer_drew_them(
    tilted_start: tuple[np.ndarray, dict[str, Any]],
) -> None:
    from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER

    image, truth = tilted_start
    found = locate_markerless(image, 8)
    assert isinstance(found, BoardLocation), found
    camera = estimate_camera(found, (1280, 960))
    occupied = [name for name, stack in truth["squares"].items() if stack]
    centres = np.array([truth["centres"][name] for name in occupied])
    tops = np.array([truth["tops"][name] for name in occupied])
    plane = found.to_board(centres)
    man = DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER
    at_top = camera.project(np.column_stack([plane, np.full(len(plane), man)]))
    side = found.square_side_px()
    assert np.abs(at_top - tops).max() < 0.04 * side
    # Height 0 is the located homography itself, so surface crops do not change.
    on_board = camera.project(np.column_stack([plane, np.zeros(len(plane))]))
    assert np.abs(on_board - found.to_image(plane)).max() < 1e-6


def test_a_head_on_board_falls_back_to_the_prior_focal_length() -> None:
    # An overhead camera: the homography is a similarity and says nothing of f.
    board_to_image = np.array([[50.0, 0.0, 440.0], [0.0, 50.0, 280.0], [0.0, 0.0, 1.0]])
    focal = focal_from_homography(board_to_image, (1280, 960))
    assert focal == pytest.approx(PRIOR_FOCAL_OF_WIDTH * 1280, rel=1e-6)
    camera = camera_from_homography(
        board_to_image, np.array([[focal, 0, 640], [0, focal, 480], [0, 0, 1.0]])
    )
    # Straight overhead, a stack's top moves away from the image centre, not sideways.
    corner_top = camera.project(np.array([[0.0, 0.0, 1.0]]))[0]
    assert corner_top[0] < 440 and corner_top[1] < 280


def test_observer_samples_crops_through_the_estimated_camera(
    tilted_start: tuple[np.ndarray, dict[str, Any]],
) -> None:
    from vision.observe import Observer, ObserverConfig, Registration
    from vision.prototype import ColourPrototypes, PrototypeClassifier

    image, _ = tilted_start
    seen: list[np.ndarray] = []

    class Recording(PrototypeClassifier):
        def predict(
            self,
            crops: np.ndarray,
            views: np.ndarray | None = None,
            strips: np.ndarray | None = None,
        ) -> np.ndarray:
            seen.append(crops)
            return super().predict(crops, views, strips)

    prototypes = ColourPrototypes((120, 128, 128), (220, 128, 128), (30, 128, 128))
    low = Observer(ObserverConfig(markers=None), RUSSIAN, Registration(), Recording(prototypes))
    high = Observer(
        ObserverConfig(markers=None, stack_height=0.5),
        RUSSIAN,
        Registration(),
        Recording(prototypes),
    )
    assert low.observe(image, 0.0).board_found and high.observe(image, 0.0).board_found
    # Sampled at half a square up, the crops differ: the camera model is in use.
    assert np.abs(seen[0].astype(int) - seen[1].astype(int)).mean() > 5


def test_view_tangents_agree_with_and_without_the_camera(
    tilted_start: tuple[np.ndarray, dict[str, Any]],
) -> None:
    """The camera's true matrix and the homography's guess put the camera in the same
    place: every cell's view tangent agrees to a few percent."""

    image, truth = tilted_start
    found = locate_markerless(image, 8)
    assert isinstance(found, BoardLocation), found
    camera = camera_model(np.array(truth["camera_matrix"]), found)
    size = (image.shape[1], image.shape[0])
    known = view_tangents(found, RUSSIAN.geometry, size, camera=camera)
    guessed = view_tangents(found, RUSSIAN.geometry, size)
    assert known.min() > 0.3  # a 35-degree camera: no cell is seen from above
    np.testing.assert_allclose(guessed, known, rtol=0.05)

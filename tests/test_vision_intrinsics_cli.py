"""``damcam calibrate intrinsics`` and a table calibration that undistorts with them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from calibration.intrinsics import CameraIntrinsics, charuco_board
from calibration.table import TableCalibration
from damcam.cli import app
from rules import find_variant
from rules.position import Position
from tests.charuco_views import POSES, charuco_views

RUSSIAN = find_variant("russian")


def test_intrinsics_from_a_folder_of_views(tmp_path: Path) -> None:
    views = tmp_path / "views"
    views.mkdir()
    for index, view in enumerate(charuco_views()):
        cv2.imwrite(str(views / f"{index}.png"), view)
    (views / "notes.txt").write_text("not an image: skipped")
    out = tmp_path / "intrinsics.json"
    result = CliRunner().invoke(
        app, ["calibrate", "intrinsics", "--views", str(views), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    camera = CameraIntrinsics.load(out)
    assert camera.fx == pytest.approx(520, rel=0.03) and camera.views == len(POSES)


def test_intrinsics_sheet_and_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    sheet = tmp_path / "charuco.png"
    result = runner.invoke(app, ["calibrate", "intrinsics", "--sheet", "--out", str(sheet)])
    assert result.exit_code == 0, result.output
    _, ids, _, _ = cv2.aruco.CharucoDetector(charuco_board()).detectBoard(cv2.imread(str(sheet)))
    assert ids is not None and len(ids) == 24
    result = runner.invoke(app, ["calibrate", "intrinsics"])
    assert result.exit_code == 2 and "--views" in " ".join(result.output.split())
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["calibrate", "intrinsics", "--views", str(empty)])
    assert result.exit_code == 2 and "no readable images" in " ".join(result.output.split())
    blank = tmp_path / "blank"
    blank.mkdir()
    for index in range(3):
        cv2.imwrite(str(blank / f"{index}.png"), np.full((120, 160, 3), 255, np.uint8))
    result = runner.invoke(app, ["calibrate", "intrinsics", "--views", str(blank)])
    assert result.exit_code == 1 and "usable ChArUco views" in " ".join(result.output.split())


def test_table_with_intrinsics_reads_a_distorted_photo(tmp_path: Path) -> None:
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    style = scene.Style(
        seed=5,
        variant="russian",
        markers=True,
        border_mm=32.0,
        tilt_deg=20.0,
        distortion=(-0.3, 0.08),
    )
    rendered = render.render_position(Position.initial(RUSSIAN), style, (960, 720))
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), rendered.image)
    K = np.array(rendered.truth["camera_matrix"])
    lens = tmp_path / "intrinsics.json"
    CameraIntrinsics(
        fx=K[0, 0],
        fy=K[1, 1],
        cx=K[0, 2],
        cy=K[1, 2],
        distortion=(-0.3, 0.08, 0.0, 0.0, 0.0),
        image_width=960,
        image_height=720,
    ).save(lens)
    table = tmp_path / "table.json"
    runner = CliRunner()
    result = runner.invoke(
        app, ["calibrate", str(photo), "--intrinsics", str(lens), "--out", str(table)]
    )
    assert result.exit_code == 0, result.output
    assert TableCalibration.load(table).intrinsics == CameraIntrinsics.load(lens)
    result = runner.invoke(app, ["read", str(photo), "--calibration", str(table), "--json"])
    assert result.exit_code == 0, result.output
    reading = json.loads(result.output)
    assert reading["fen"] == Position.initial(RUSSIAN).fen()
    truth = np.array(rendered.truth["corners"])
    side = np.linalg.norm(truth[1] - truth[0]) / 8
    assert np.abs(np.array(reading["corners_px"]) - truth).max() < 0.1 * side
    # Without the lens model the barrel distortion throws the straight-line fit off.
    result = runner.invoke(app, ["read", str(photo), "--variant", "russian", "--json"])
    bent = np.array(json.loads(result.output)["corners_px"])
    assert np.abs(bent - truth).max() > 0.15 * side
    # The live Observer undistorts too when the calibration carries intrinsics.
    from calibration.table import start_tops
    from vision.camera import distort_points
    from vision.observe import Observer, ObserverConfig
    from vision.prototype import PrototypeClassifier

    calibrated = TableCalibration.load(table)
    registration = calibrated.registration()
    assert registration.intrinsics is not None
    observer = Observer(
        ObserverConfig(), RUSSIAN, registration, PrototypeClassifier(calibrated.prototypes())
    )
    observation = observer.observe(rendered.image, 0.0)
    assert observation.board_found
    read = [int(np.argmax(square.probs)) for square in observation.squares]
    assert read == [int(top) for top in start_tops(RUSSIAN)]
    located = observer.tracker.last
    assert located is not None
    corners = distort_points(registration.intrinsics, located.image_corners_clockwise())
    assert np.abs(corners - truth).max() < 0.1 * side

"""A calibration keeps the start image it was made from, so that the square classifier can
adapt to the set from it whenever the table is read again (``damcam read --calibration``,
the live path with a calibration file); and an image that the calibration's turn does not
fit is read as without it, and named."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from calibration.table import CalibrationError, TableCalibration
from damcam.cli import app
from models.labelled_photos import DAMAS, STICKERS, LabelledPhoto
from rules import find_variant
from rules.position import Position
from vision.read import TURNED_NOTE

RUSSIAN = find_variant("russian")


def _start_photo(tmp_path: Path, *, markers: bool = True) -> Path:
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    style = scene.Style(seed=3, variant="russian", markers=markers, tilt_deg=20.0, border_mm=32.0)
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), render.render_position(Position.initial(RUSSIAN), style).image)
    return photo


def _calibrate(source: Path, out: Path, *options: str) -> TableCalibration:
    result = CliRunner().invoke(app, ["calibrate", str(source), "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return TableCalibration.load(out)


def _read(photo: Path, *options: str) -> tuple[int, dict[str, object] | None, str]:
    """Exit code, the JSON reading (None on failure) and everything printed."""
    result = CliRunner().invoke(app, ["read", str(photo), "--json", *options])
    reading = json.loads(result.stdout) if result.exit_code == 0 else None
    return result.exit_code, reading, result.output


def test_calibrate_keeps_the_photo_as_given(tmp_path: Path) -> None:
    photo = _start_photo(tmp_path)
    table = _calibrate(photo, tmp_path / "table.json")
    assert table.start_image is not None
    assert base64.b64decode(table.start_image) == photo.read_bytes()  # not encoded again
    assert np.array_equal(table.start_frame(), cv2.imread(str(photo)))


def test_a_video_start_frame_is_kept_losslessly(tmp_path: Path) -> None:
    image = cv2.imread(str(_start_photo(tmp_path)))
    video = tmp_path / "start.avi"
    writer = cv2.VideoWriter(
        str(video), cv2.VideoWriter.fourcc(*"MJPG"), 5.0, (image.shape[1], image.shape[0])
    )
    for _ in range(3):
        writer.write(image)
    writer.release()
    capture = cv2.VideoCapture(str(video))
    ok, first = capture.read()
    capture.release()
    assert ok
    table = _calibrate(video, tmp_path / "table.json")
    assert np.array_equal(table.start_frame(), first)  # the very pixels, through WebP


def test_with_its_start_image_the_calibration_reads_with_the_adapted_model(
    tmp_path: Path,
) -> None:
    """The default reader is the model adapted from the kept image; the same file without
    the image reads with the colours, and refuses the model by name."""
    photo = _start_photo(tmp_path)
    kept = tmp_path / "kept.json"
    table = _calibrate(photo, kept)
    start_fen = Position.initial(RUSSIAN).fen()
    code, by_default, _ = _read(photo, "--calibration", str(kept))
    code_model, by_model, _ = _read(photo, "--calibration", str(kept), "--reader", "model")
    assert code == code_model == 0
    assert by_default == by_model and by_model is not None and by_model["fen"] == start_fen

    old = tmp_path / "old.json"
    table.model_copy(update={"start_image": None}).save(old)
    code, by_colours, _ = _read(photo, "--calibration", str(old))
    assert code == 0 and by_colours is not None and by_colours["fen"] == start_fen
    code, _, printed = _read(photo, "--calibration", str(old), "--reader", "model")
    assert code == 2 and "old.json" in printed and "keeps no start image" in printed


def test_without_calibration_the_default_reader_is_the_model(tmp_path: Path) -> None:
    photo = _start_photo(tmp_path)
    code, by_default, _ = _read(photo)
    code_model, by_model, _ = _read(photo, "--reader", "model")
    assert code == code_model == 0 and by_default == by_model is not None
    assert by_model["fen"] == Position.initial(RUSSIAN).fen()  # type: ignore[index]


def test_a_kept_image_that_is_not_one_is_named(tmp_path: Path) -> None:
    photo = _start_photo(tmp_path)
    table = _calibrate(photo, tmp_path / "table.json")
    garbled = tmp_path / "garbled.json"
    table.with_start_image(b"not an image").save(garbled)
    with pytest.raises(CalibrationError, match="does not decode"):
        TableCalibration.load(garbled).start_frame()
    code, _, printed = _read(photo, "--calibration", str(garbled))
    assert code == 2 and "garbled.json" in printed and "start_image" in printed
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**table.model_dump(), "start_image": "not base64!"}))
    with pytest.raises(CalibrationError, match=r"(?s)broken\.json.*not base64"):
        TableCalibration.load(broken)


def test_the_live_path_adapts_the_model_from_the_calibration_file(tmp_path: Path) -> None:
    from models.classifier import OnnxSquareClassifier
    from pi.config import Settings
    from pi.wiring import vision_recognizer
    from vision.prototype import PrototypeClassifier

    photo = _start_photo(tmp_path)
    kept = tmp_path / "kept.json"
    table = _calibrate(photo, kept)
    old = tmp_path / "old.json"
    table.model_copy(update={"start_image": None}).save(old)
    for path, reader in ((kept, OnnxSquareClassifier), (old, PrototypeClassifier)):
        recognizer = vision_recognizer(Settings(variant="russian", calibration=path))
        assert recognizer.observer is not None
        assert isinstance(recognizer.observer.classifier, reader), path.name
    adapted = vision_recognizer(Settings(variant="russian", calibration=kept)).observer
    assert adapted is not None and isinstance(adapted.classifier, OnnxSquareClassifier)
    assert adapted.classifier.prototypes is not None


def test_a_photo_turned_from_the_calibration_is_read_as_without_it(tmp_path: Path) -> None:
    """A quarter turn of an 8x8 board puts its playable squares where the light ones were
    under the calibration's turn: read so, the pieces would stand on light squares. (With
    markers the board's own corners set the turn, whichever way the camera looks.)"""
    photo = _start_photo(tmp_path, markers=False)
    table = tmp_path / "table.json"
    _calibrate(photo, table)
    turned = tmp_path / "turned.png"
    cv2.imwrite(str(turned), np.ascontiguousarray(np.rot90(cv2.imread(str(photo)))))
    code, calibrated, printed = _read(turned, "--calibration", str(table))
    assert code == 0 and calibrated is not None
    assert TURNED_NOTE in printed and "table.json" in printed
    code, plain, printed = _read(turned)
    assert code == 0 and plain is not None and TURNED_NOTE not in printed
    # the same squares hold pieces as without the calibration, none on a light square
    occupied = [[c != "." for c in row] for row in calibrated["image_grid"]]  # type: ignore[union-attr]
    assert occupied == [[c != "." for c in row] for row in plain["image_grid"]]  # type: ignore[union-attr]
    assert sum(map(sum, occupied)) == 24


def test_a_phone_session_reads_through_its_calibration_file(
    shared_data: Path, tmp_path: Path
) -> None:
    """Session phone-0827's start photo WA0043 calibrates (its purple men, White, are the
    lighter); its 16 other labelled photos (the phone moved between them, and half are a
    quarter turn round) read through the CLI with the model adapted from the kept image.
    Measured (session 48): 5 squares wrong; the calibration's colours read 130 wrong.
    Session 51: 5 of 544 playable squares, with WA0045, taken from low, located since;
    four of them empty light squares beside a tall man read '?' (no colour at 0.6).
    Session 53, where no pixel of a purple or teal man shows there speaking for empty
    (``OccupancyGaussians.empty_log_odds``): 1."""
    photos = [p for p in DAMAS.read() if p.session == "phone-0827"]
    start = next(p for p in photos if p.path.endswith("WA0043.jpg"))
    table = tmp_path / "table.json"
    _calibrate(start.file(shared_data), table, "--white", "light")
    wrong, compared, notes = _read_session(photos, start, table, shared_data)
    assert compared == 32 * (len(photos) - 1) and wrong <= 2
    assert notes >= 5


def _read_session(
    photos: list[LabelledPhoto], start: LabelledPhoto, table: Path, shared_data: Path
) -> tuple[int, int, int]:
    """(wrong, compared, turned notes): each photo but ``start`` read through the CLI with
    the calibration file ``table``, against its labels."""
    wrong = compared = notes = 0
    for photo in photos:
        if photo is start:
            continue
        code, reading, printed = _read(photo.file(shared_data), "--calibration", str(table))
        assert code == 0 and reading is not None, (photo.path, printed)
        misread, c = photo.misread(reading["image_grid"], reading["corners_px"])  # type: ignore[arg-type]
        wrong, compared, notes = (
            wrong + len(misread),
            compared + c,
            notes + (TURNED_NOTE in printed),
        )
    return wrong, compared, notes


def test_the_sticker_set_reads_through_its_calibration_file(
    shared_data: Path, tmp_path: Path
) -> None:
    """Flat red and green stickers seen from above through a barrel-distorted lens: the
    start photo bax3 calibrates (green, on the camera's side, taken as White: the two
    look alike in lightness), and the 19 other labelled photos, kings marked with a star
    or a square among them, read through the CLI with the model adapted from the kept
    image, the board found by the grid locator on each. Measured (session 51): 1 square
    wrong of 608 (a man read as a king); 6 before near-black pixels were left out of the
    kings' hue."""
    if not STICKERS.present(shared_data):
        pytest.skip(f"no {STICKERS.folder} in {shared_data}")
    photos = STICKERS.read()
    start = next(p for p in photos if p.start)
    table = tmp_path / "table.json"
    _calibrate(start.file(shared_data), table)
    wrong, compared, _ = _read_session(photos, start, table, shared_data)
    assert compared == 32 * (len(photos) - 1) and wrong / compared <= 0.005


def test_a_start_photo_taken_from_nearly_overhead_reads_the_later_photos(
    shared_data: Path, tmp_path: Path
) -> None:
    """WA0172 was taken from above the board's middle (view tangents 0.04-0.49), the rest
    of session phone-0902 from lower. Its men seen from straight above say nothing of how
    tall the set's men stand; counted evenly they put them at synth's one disc, and the
    later photos' men read as kings: 11 squares wrong of 288 (session 52). Weighed by
    their view tangents (``MAN_HEIGHT_VIEW_POWER``), none."""
    photos = [p for p in DAMAS.read() if p.session == "phone-0902"]
    start = next(p for p in photos if p.path.endswith("WA0172.jpg"))
    table = tmp_path / "table.json"
    _calibrate(start.file(shared_data), table, "--white", "dark")  # teal, the lighter, is Black
    wrong, compared, _ = _read_session(photos, start, table, shared_data)
    assert compared == 32 * (len(photos) - 1) and wrong <= 2

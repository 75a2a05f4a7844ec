"""models.labelled_photos: the listing of the labelled photos' squares a model reads wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from models.classifier import OnnxSquareClassifier
from models.labelled_photos import (
    LABELS,
    SYMBOLS,
    PhotoShot,
    calibrated_boards,
    main,
    read_labels,
    read_photos,
    score_photos,
)
from rules.observation import Top

WEBCAM = {
    "img/captured_image_dama01.jpg",  # two start photos, each calibrates the other
    "img/captured_image_dama02.jpg",
    "img/captured_image03.jpg",
    "img/captured_image_perto.jpg",
}


def _labels_of(photos: set[str], tmp_path: Path) -> Path:
    """A label file holding the fixture's blocks of ``photos`` alone."""
    blocks = re.split(r"(?m)^(?=photo )", LABELS.read_text())[1:]
    path = tmp_path / "labels.txt"
    path.write_text("".join(b for b in blocks if b.split()[1] in photos))
    return path


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_each_error_listed_is_a_square_the_figures_count_wrong(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels_path = _labels_of(WEBCAM, tmp_path)
    labels = {p.path: p for p in read_labels(labels_path)}
    assert set(labels) == WEBCAM

    main(["--data", str(shared_data), "--labels", str(labels_path), "--uncalibrated"])
    *errors, counts = _lines(capsys)

    classifier = OnnxSquareClassifier.load()
    scores = score_photos(
        read_photos(
            shared_data,
            classifier.crop_size[0],
            lambda shot: shot.on_board(classifier),  # as damcam read without a calibration
            lambda start: PhotoShot.adapted(start, classifier),
            list(labels.values()),
        )
    )
    assert counts["errors"] == {
        "calibrated": scores["calibrated"].errors,
        "uncalibrated": scores["plain"].errors,
    }
    assert scores["plain"].errors > 0  # the listing below has something to check
    for reading in ("calibrated", "uncalibrated"):
        assert sum(e["reading"] == reading for e in errors) == counts["errors"][reading]
    for error in errors:
        photo = labels[str(error["photo"])]
        symbol = photo.rows[int(error["label_row"])][int(error["label_col"])]  # type: ignore[call-overload]
        assert error["truth"] == Top(SYMBOLS[symbol]).name
        assert error["read"] != error["truth"]
        probabilities = error["probabilities"]
        assert isinstance(probabilities, dict)
        assert error["read"] == max(probabilities.items(), key=lambda kv: kv[1])[0]
        assert sum(probabilities.values()) == pytest.approx(1.0, abs=0.01)

    main(["--data", str(shared_data), "--labels", str(labels_path)])
    *calibrated_only, _ = _lines(capsys)
    assert calibrated_only == [e for e in errors if e["reading"] == "calibrated"]


def test_the_calibrated_boards_are_the_boards_the_figures_read(
    shared_data: Path, tmp_path: Path
) -> None:
    # What bench.classifier times on real boards: each photo with another start photo in
    # its session, read by the reader adapted from that start photo, one reader a start.
    labels = read_labels(_labels_of(WEBCAM, tmp_path))
    classifier = OnnxSquareClassifier.load()
    boards = calibrated_boards(classifier, shared_data, labels)
    readings = read_photos(
        shared_data,
        classifier.crop_size[0],
        lambda _: classifier,
        lambda start: PhotoShot.adapted(start, classifier),
        labels,
    )
    for (reader, crops, views), reading in zip(boards, readings, strict=True):
        assert crops.shape == (32, *classifier.crop_size, 3) and views.shape == (32,)
        assert reading.calibrated is not None and reader.prototypes is not None
        read = reader.predict(crops, views).argmax(axis=1)
        assert read.tolist() == reading.calibrated.argmax(axis=1).tolist()
    assert [p.path for p in labels][2:] == [
        "img/captured_image03.jpg",
        "img/captured_image_perto.jpg",
    ]
    assert boards[2][0] is boards[3][0]  # both calibrated from dama01


def test_missing_photos_are_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=str(tmp_path)):
        main(["--data", str(tmp_path)])


@pytest.mark.parametrize("first_cell_playable", [True, False])
def test_a_reading_is_compared_on_its_32_playable_cells_whichever_colour_they_are(
    tmp_path: Path, first_cell_playable: bool
) -> None:
    """The labels' corner (0,0) falls on a playable square in some photos and not in
    others: a reading counts the 32 squares the pieces stand on, read right or wrong,
    never the other colour's unless read other than empty."""
    offset = 0 if first_cell_playable else 1
    rows = []
    for r in range(8):
        cells = ["."] * 8
        for c in range(8):
            if (r + c + offset) % 2 == 0 and r < 3:
                cells[c] = "t"
            elif (r + c + offset) % 2 == 0 and r > 4:
                cells[c] = "p"
        rows.append("".join(cells))
    labels = tmp_path / "labels.txt"
    labels.write_text(
        "photo a.jpg session s start\ncorners 0,0 800,0 800,800 0,800\n" + "\n".join(rows) + "\n"
    )
    (photo,) = read_labels(labels)
    assert photo.playable_parity() == offset
    corners = [[0.0, 0.0], [800.0, 0.0], [800.0, 800.0], [0.0, 800.0]]
    read = [row.replace("p", "w").replace("t", "b") for row in rows]  # as damcam prints
    assert photo.misread(read, corners) == ([], 32)
    # an empty playable square read as a man, and a man on the other colour's square
    misread = list(read)
    r4 = list(misread[4])
    playable_col = next(c for c in range(8) if (4 + c + offset) % 2 == 0)
    r4[playable_col] = "w"
    r4[playable_col + 1] = "b"
    misread[4] = "".join(r4)
    wrong, compared = photo.misread(misread, corners)
    assert compared == 33
    assert wrong == [(f"4{playable_col}", ".", "w"), (f"4{playable_col + 1}", ".", "b")]

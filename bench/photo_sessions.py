"""Real photos read as a user meets them: through a calibration file, from every start photo.

``bench.classifier``'s ``labelled_photos`` lines measure the classifier alone: the board
placed from the labels' corners, each session calibrated from one start photo chosen for
it. Here every labelled start photo of every set is calibrated as ``damcam calibrate``
calibrates (the board found by the locator), and every other labelled photo of its session
is read as ``damcam read --calibration`` reads it (the board found again, the model adapted
to the set from the start image the calibration keeps), against the hand labels. So an
arbiter's figure: whichever start photo was taken, how many squares of the game's later
photos are read wrong. Every labelled photo is also read as ``damcam read IMAGE`` reads it
without a calibration (``uncalibrated``).

Which colour is White is the user's to say where the two sides' men look alike
(``--white light|dark``); the bench tells it from the labels (the side that reads the start
photo itself as labelled) and reports whether ``--white auto`` would have guessed it.

A square the reader is unsure of reads '?' (``vision.read.MIN_CONFIDENCE``): an error
here, and counted apart as ``unsure`` too, since it is flagged rather than silently wrong.

One JSON line per set (``--errors``: first a line per square read wrong):

    python -m bench.photo_sessions [--data ../shared/data] [--set damas|stickers] [--errors]
        [--model models/square_classifier.onnx]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.table import CalibrationError, TableCalibration, calibrate_position
from models.classifier import OnnxSquareClassifier
from models.labelled_photos import PHOTO_SETS, SHARED_DATA, LabelledPhoto, PhotoSet
from pi.wiring import adapted_to_table
from rules import find_variant
from rules.position import Position
from vision.locate import Image
from vision.read import TURNED_NOTE, BoardReading, read_image

VARIANT = find_variant("brazilian")
"""8x8 draughts: the sets' boards (which variant of the 8x8 family does not matter here)."""


@dataclass(frozen=True)
class StartResult:
    """One start photo: its calibration (None where refused, with why) and how its
    session's other photos read through it."""

    photo: LabelledPhoto
    refused: str | None = None
    auto_white_right: bool | None = None
    squares: int = 0
    errors: tuple[tuple[str, str, str, str], ...] = ()
    """Each square read wrong: the photo, the label's row and column, the truth, the reading."""
    unread: tuple[str, ...] = ()
    """Photos in which no board was found."""
    turned: int = 0
    """Photos read under their own turn, the calibration's contradicted."""


def photo_image(path: Path) -> Image:
    """The photo's pixels; :raises FileNotFoundError: naming it where none can be read."""
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"{path}: no readable photo")
    return np.asarray(image, np.uint8)


def adapted_reader(table: TableCalibration, model: OnnxSquareClassifier) -> OnnxSquareClassifier:
    """The reader ``damcam read --calibration`` reads with: ``model`` adapted from the start
    image ``table`` keeps. The same for every photo read through one table, so adapted once
    per table here, where each ``damcam read`` adapts it anew."""
    return adapted_to_table(model, VARIANT, table).for_variant(VARIANT.towers)


def read_through(
    table: TableCalibration, reader: OnnxSquareClassifier, image: Image
) -> BoardReading | str:
    """``damcam read --calibration`` with ``reader`` (:func:`adapted_reader`): the reading,
    or why no board was found."""
    result = read_image(
        image,
        VARIANT,
        registration=table.registration(),
        prototypes=table.prototypes(),
        classifier=reader,
    )
    return result if isinstance(result, BoardReading) else result.reason


def calibrated(
    start: LabelledPhoto, data: Path, model: OnnxSquareClassifier
) -> tuple[TableCalibration, OnnxSquareClassifier, bool]:
    """``damcam calibrate`` on ``start``, White on the side the labels put it, the reader
    adapted through it (:func:`adapted_reader`), and whether ``--white auto`` guessed that
    side.

    :raises CalibrationError: the photo does not calibrate.
    """
    path = start.file(data)
    image = photo_image(path)
    light_is_white: bool | None = None  # --white auto first
    for _ in range(2):
        table = calibrate_position(
            image, Position.initial(VARIANT), light_is_white=light_is_white, source=str(path)
        ).with_start_image(path.read_bytes())
        reader = adapted_reader(table, model)
        reading = read_through(table, reader, image)
        if isinstance(reading, BoardReading):
            wrong, compared = start.misread(reading.image_grid, reading.corners_px)
            if len(wrong) < compared / 4:  # the wrong side reads every piece's colour wrong
                return table, reader, light_is_white is None
        light_is_white = not table.light_is_white
    raise CalibrationError(f"{path}: reads itself unlike its labels whichever side is White")


def run_start(
    start: LabelledPhoto, session: list[LabelledPhoto], data: Path, model: OnnxSquareClassifier
) -> StartResult:
    """``start`` calibrated, and every other photo of its ``session`` read through it."""
    try:
        table, reader, auto_right = calibrated(start, data, model)
    except CalibrationError as exc:
        return StartResult(start, refused=str(exc).split(": ", 1)[-1])
    squares = turned = 0
    errors: list[tuple[str, str, str, str]] = []
    unread: list[str] = []
    for photo in session:
        if photo is start:
            continue
        reading = read_through(table, reader, photo_image(photo.file(data)))
        if not isinstance(reading, BoardReading):
            unread.append(photo.path)
            continue
        wrong, compared = photo.misread(reading.image_grid, reading.corners_px)
        squares += compared
        errors += [(Path(photo.path).stem, *cell) for cell in wrong]
        turned += any(TURNED_NOTE in note for note in reading.notes)
    return StartResult(start, None, auto_right, squares, tuple(errors), tuple(unread), turned)


def uncalibrated(
    photos: list[LabelledPhoto], data: Path, model: OnnxSquareClassifier
) -> dict[str, int]:
    """Every labelled photo read as ``damcam read IMAGE`` reads it without a calibration:
    the unadapted model, White taken on the image's bottom side."""
    squares = errors = unsure = unread = 0
    reader = model.for_variant(VARIANT.towers)
    for photo in photos:
        reading = read_image(photo_image(photo.file(data)), VARIANT, classifier=reader)
        if not isinstance(reading, BoardReading):
            unread += 1
            continue
        wrong, compared = photo.misread(reading.image_grid, reading.corners_px)
        squares, errors = squares + compared, errors + len(wrong)
        unsure += sum(got == "?" for _, _, got in wrong)
    return {"photos": len(photos), "photos_without_board": unread, "squares": squares,
            "errors": errors, "unsure": unsure}  # fmt: skip


def run_set(
    photo_set: PhotoSet, data: Path, *, model_path: Path | None = None, list_errors: bool = False
) -> dict[str, object]:
    """The set's line, read by the model file ``model_path`` (the shipped one by default;
    with ``list_errors``, first one line per square read wrong)."""
    began = time.perf_counter()
    photos = photo_set.read()
    model = OnnxSquareClassifier.load(model_path)
    results = [
        run_start(start, [p for p in photos if p.session == start.session], data, model)
        for start in photos
        if start.start
    ]
    done = [r for r in results if r.refused is None]
    for r in done if list_errors else ():
        for photo, cell, want, got in r.errors:
            start = Path(r.photo.path).stem
            print(json.dumps({"start": start, "photo": photo, "cell": cell, "want": want,
                              "got": got}))  # fmt: skip
    squares, errors = sum(r.squares for r in done), sum(len(r.errors) for r in done)
    return {
        "bench": "photo_sessions",
        "set": photo_set.name,
        "start_photos": len(results),
        "calibrated": len(done),
        "refused": {Path(r.photo.path).stem: r.refused for r in results if r.refused},
        "white_auto_right": sum(bool(r.auto_white_right) for r in done),
        "squares": squares,
        "errors": errors,
        "unsure": sum(e[3] == "?" for r in done for e in r.errors),
        "per_square_pct": round(100 * (1 - errors / max(squares, 1)), 2),
        "photos_without_board": sorted({u for r in done for u in r.unread}),
        "turned_readings": sum(r.turned for r in done),
        "by_start": {
            Path(r.photo.path).stem: [r.photo.session, r.squares, len(r.errors)]
            for r in done
            if r.squares
        },
        "errors_by_photo": Counter(e[0] for r in done for e in r.errors).most_common(),
        "uncalibrated": uncalibrated(photos, data, model),
        "seconds": round(time.perf_counter() - began, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="../shared/data")
    parser.add_argument("--set", choices=[s.name for s in PHOTO_SETS], help="one set only")
    parser.add_argument("--errors", action="store_true", help="a line per square read wrong")
    parser.add_argument("--model", type=Path, help="another main model file (its card's files)")
    args = parser.parse_args()
    for photo_set in PHOTO_SETS:
        if args.set not in (None, photo_set.name):
            continue
        if not photo_set.present(args.data):
            print(json.dumps({"bench": "photo_sessions", "set": photo_set.name, "skipped":
                              f"no {photo_set.folder} in {args.data}"}))  # fmt: skip
            continue
        line = run_set(photo_set, args.data, model_path=args.model, list_errors=args.errors)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()

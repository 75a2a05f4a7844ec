"""Real photos labelled by hand: crops, truth, and how well a square classifier reads
them, with and without per-set calibration. Two sets (:data:`PHOTO_SETS`): the damas
set's tall purple and teal men (``tests/fixtures/damas_photos.txt``) and a robot's
overhead camera over flat red and green stickers (``tests/fixtures/sticker_photos.txt``).

The labels give each photo's grid corners, so the figures measure the classifier alone,
not the board locator. A photo is calibrated from a start-position photo of its own
session (same camera and light), never from itself.

``python -m models.labelled_photos [--model PATH] [--set NAME]`` lists the squares a
model reads wrong.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier
from rules import find_variant
from rules.observation import Top
from vision.camera import crops_and_views
from vision.classifier import SquareClassifier, read_squares
from vision.locate import BoardLocation
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import CELL, CropWindow, orientation_matrix

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
LABELS = FIXTURES / "damas_photos.txt"
PHOTOS = Path("photos/checkers-8x8-aruco-damas")
"""The damas photos' folder inside ``../shared/data``."""
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
"""``../shared/data`` beside the checkout (absent on CI: the figures are then skipped)."""

SYMBOLS = {".": Top.EMPTY, "p": Top.WHITE_MAN, "P": Top.WHITE_KING,
           "t": Top.BLACK_MAN, "T": Top.BLACK_KING}  # fmt: skip
"""The damas labels' cells: purple is White (it stands on the camera's side in the
start photos)."""


@dataclass(frozen=True)
class PhotoSet:
    """A folder of real photos in ``../shared/data`` and the hand labels of some of them,
    kept in this repository (the photos stay in ../shared)."""

    name: str
    labels: Path
    folder: Path
    """Inside ``../shared/data``; each label's photo path is relative to it."""
    symbols: Mapping[str, Top]
    """What each label cell's letter stands for."""

    def read(self, labels: Path | None = None) -> list[LabelledPhoto]:
        """The labelled photos (:func:`read_labels`), from ``labels`` in this set's format
        where given (a subset, say)."""
        return read_labels(self.labels if labels is None else labels, self)

    def present(self, data: Path) -> bool:
        """Whether the photos are there (not on CI)."""
        return (data / self.folder).is_dir()


DAMAS = PhotoSet("damas", LABELS, PHOTOS, SYMBOLS)
STICKER_SYMBOLS = {".": Top.EMPTY, "g": Top.WHITE_MAN, "G": Top.WHITE_KING,
                   "r": Top.BLACK_MAN, "R": Top.BLACK_KING}  # fmt: skip
STICKERS = PhotoSet(
    "stickers",
    FIXTURES / "sticker_photos.txt",
    Path("photos/checkers-8x8-stickers-yolo"),
    STICKER_SYMBOLS,
)
"""Flat printed stickers, kings marked with a star (red) or a square (green), seen from
above by a robot arm's camera with a wide, barrel-distorted lens. Green is White (it
stands on the camera's side in the start photo, and is the lighter of two near alike)."""
PHOTO_SETS = (DAMAS, STICKERS)

GEOMETRY = find_variant("brazilian").geometry
"""8x8 draughts; which colour of square is playable is found per photo from the labels."""


@dataclass(frozen=True)
class LabelledPhoto:
    path: str
    session: str
    start: bool
    corners: np.ndarray
    """(4, 2) grid corners in the photo's pixels, board-plane order (0,0) (8,0) (8,8) (0,8)."""
    rows: tuple[str, ...]
    """8 rows of 8 cells in board-plane order (see :attr:`PhotoSet.symbols`)."""
    photo_set: PhotoSet = DAMAS

    def file(self, data: Path) -> Path:
        """The photo in ``data`` (``../shared/data``)."""
        return data / self.photo_set.folder / self.path

    def top(self, row: int, col: int) -> Top:
        """What the label says tops the cell at ``row``, ``col``."""
        return self.photo_set.symbols[self.rows[row][col]]

    def playable_parity(self) -> int:
        """``(row + col) % 2`` of the cells the pieces stand on in the labels' order (the
        labels' corner (0,0) falls on either colour of square); 1 on an empty board."""
        parities = Counter(
            (row + col) % 2
            for row, cells in enumerate(self.rows)
            for col, cell in enumerate(cells)
            if self.photo_set.symbols[cell] != Top.EMPTY
        )
        return parities.most_common(1)[0][0] if parities else 1

    def misread(
        self, image_grid: Sequence[str], corners_px: npt.ArrayLike
    ) -> tuple[list[tuple[str, str, str]], int]:
        """A reading of this photo as ``damcam read`` prints it (its image grid and grid
        corners) against the labels: the cells read wrong (the label's row and column,
        as "rc", the label's symbol as printed, the reading's) and how many were compared.
        Each labelled cell is matched with the read cell nearest it in the image, so that
        the board may be found and turned its own way. Every playable cell is compared,
        and a cell of the other colour only where it is read other than empty: a photo
        counts its 32 playable cells however it is read."""
        read = "".join(image_grid)
        centres = _cell_centres(corners_px)
        playable = self.playable_parity()
        wrong: list[tuple[str, str, str]] = []
        compared = 0
        for k, centre in enumerate(_cell_centres(self.corners)):
            row, col = divmod(k, 8)
            want = self.top(row, col).symbol
            got = read[int(np.argmin(np.linalg.norm(centres - centre, axis=1)))]
            if (row + col) % 2 != playable and want == got == ".":
                continue
            compared += 1
            if got != want:
                wrong.append((f"{row}{col}", want, got))
        return wrong, compared


_CELLS = np.array([[c + 0.5, r + 0.5] for r in range(8) for c in range(8)])


def _cell_centres(corners: npt.ArrayLike) -> np.ndarray:
    """The 64 cells' centres in the image, row by row from ``corners``' first."""
    return BoardLocation.from_corners(corners, 8, "corners").to_image(_CELLS)


def read_labels(path: Path = LABELS, photo_set: PhotoSet = DAMAS) -> list[LabelledPhoto]:
    """Parse the label file, its cells in ``photo_set``'s symbols; raises ValueError
    naming the line that is wrong."""
    photos: list[LabelledPhoto] = []
    block: dict[str, object] = {}
    rows: list[str] = []
    symbols = "".join(photo_set.symbols)

    def close() -> None:
        if block:
            if len(rows) != 8 or any(len(r) != 8 or set(r) - set(symbols) for r in rows):
                raise ValueError(f"{path}: photo {block['path']} needs 8 rows of 8 of {symbols}")
            photos.append(LabelledPhoto(rows=tuple(rows), photo_set=photo_set, **block))  # type: ignore[arg-type]

    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "photo":
            close()
            rows = []
            # A photo's path may hold spaces (upstream's "fotos K2" folder): it runs up to
            # the last " session ".
            photo, _, session = line.removeprefix("photo").rpartition(" session ")
            after = session.split()
            if not photo.strip() or not after:
                raise ValueError(f"{path}:{number}: expected 'photo PATH session NAME [start]'")
            block = {"path": photo.strip(), "session": after[0], "start": "start" in after[1:]}
        elif words[0] == "corners":
            corners = [[float(v) for v in w.split(",")] for w in words[1:]]
            if len(corners) != 4 or any(len(c) != 2 for c in corners):
                raise ValueError(f"{path}:{number}: expected four x,y corners")
            block["corners"] = np.asarray(corners, np.float64)
        else:
            rows.append(line)
    close()
    return photos


def label_cells(turns: int) -> list[tuple[int, int]]:
    """The label grid's (row, column) of each playable square, in Square order, for the
    board seen ``turns`` quarter turns round."""
    rotate = orientation_matrix(turns, 8)
    cells = [GEOMETRY.rowcol(sq) for sq in GEOMETRY.squares]
    centres = np.array([[c + 0.5, r + 0.5, 1.0] for r, c in cells]) @ rotate.T
    return [(int(y), int(x)) for x, y, _ in centres]


@dataclass(frozen=True)
class PhotoShot:
    """A labelled photo as a reader sees it: the image, the board located from the labels'
    corners, the quarter turns that put the playable squares under the pieces, and the
    true tops in Square order."""

    image: np.ndarray
    location: BoardLocation
    turns: int
    tops: np.ndarray

    @classmethod
    def of(cls, photo: LabelledPhoto, image: np.ndarray) -> PhotoShot:
        location = BoardLocation.from_corners(photo.corners, 8, "label")
        pieces = {(r, c) for r, row in enumerate(photo.rows) for c, s in enumerate(row) if s != "."}
        for turns in (0, 1):  # one of two quarter turns puts the playable squares under pieces
            board = label_cells(turns)
            if pieces <= set(board):
                tops = np.array([photo.top(r, c) for r, c in board], np.int64)
                return cls(image, location, turns, tops)
        raise ValueError(f"{photo.path}: pieces stand on squares of both colours")

    def squares(
        self, window: CropWindow, crop_px: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Crops of the playable squares, their true tops and their view tangents."""
        crops, views = crops_and_views(
            self.image, self.location, GEOMETRY, crop_px=crop_px, window=window, turns=self.turns
        )
        return crops, self.tops, views

    def adapted(self, classifier: OnnxSquareClassifier) -> OnnxSquareClassifier:
        """``classifier`` adapted from this (start) photo, as the live path adapts it
        (:meth:`OnnxSquareClassifier.adapted_on_frame`)."""
        return classifier.adapted_on_frame(
            self.image, self.location, GEOMETRY, self.tops, turns=self.turns
        )

    def on_board(self, classifier: OnnxSquareClassifier) -> OnnxSquareClassifier:
        """``classifier`` as ``damcam read`` reads this photo without a calibration: the
        set measured on the photo's own board (:meth:`OnnxSquareClassifier.on_board`)."""
        crops, _, views = self.squares(classifier.window, classifier.crop_size[0])
        return classifier.on_board(crops, views)

    def read(self, classifier: SquareClassifier, crop_px: int, *, band: bool) -> np.ndarray:
        """``(S, 5)`` probabilities, read as the live path reads a frame
        (:func:`vision.classifier.read_squares`), with ``band`` its band strips too
        (``ObserverConfig.band_strips``)."""
        return read_squares(
            classifier,
            self.image,
            self.location,
            GEOMETRY,
            crop_px=crop_px,
            turns=self.turns,
            band=band,
            heights=False,
        ).tops


def photo_squares(
    photo: LabelledPhoto, image: np.ndarray, window: CropWindow, crop_px: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops of the playable squares (those of the pieces' colour), their true tops and
    their view tangents."""
    return PhotoShot.of(photo, image).squares(window, crop_px)


READINGS = ("calibrated", "uncalibrated")
"""How :func:`model_errors` names a reading with and without calibration."""

ReaderFor = Callable[[PhotoShot], SquareClassifier]
"""A photo (uncalibrated: the photo read; calibrated: the start photo) -> its reader."""


@dataclass(frozen=True)
class PhotoScore:
    squares: int = 0
    errors: int = 0
    colour_errors: int = 0
    """Occupancy or colour wrong (man and king together)."""

    def add(self, predicted: np.ndarray, truth: np.ndarray) -> PhotoScore:
        colour = np.array([0, 1, 1, 2, 2])
        return PhotoScore(
            self.squares + len(truth),
            self.errors + int((predicted != truth).sum()),
            self.colour_errors + int((colour[predicted] != colour[truth]).sum()),
        )

    def as_dict(self) -> dict[str, float | int]:
        n = max(self.squares, 1)
        return {
            "squares": self.squares,
            "errors": self.errors,
            "per_square_pct": round(100 * (1 - self.errors / n), 2),
            "colour_errors": self.colour_errors,
            "occupancy_colour_pct": round(100 * (1 - self.colour_errors / n), 2),
        }


@dataclass(frozen=True)
class PhotoReading:
    """One labelled photo read: ``plain`` by its uncalibrated reader, ``calibrated`` by
    a reader calibrated on another start photo of its session (None where it has none);
    each ``(S, 5)`` probabilities in Square order."""

    photo: LabelledPhoto
    shot: PhotoShot
    plain: np.ndarray
    calibrated: np.ndarray | None


def read_photos(
    data: Path,
    crop_px: int,
    plain: ReaderFor,
    calibrated: ReaderFor,
    labels: list[LabelledPhoto] | None = None,
    band: bool = False,
) -> Iterator[PhotoReading]:
    """Every labelled photo read by ``plain(photo)``, the reader of a photo without
    calibration, and by ``calibrated(start)``, a reader calibrated on a start photo of the
    same session; ``band``: read band strips too, where the reader reads them."""
    labels = read_labels() if labels is None else labels
    shots = _shots(data, labels)
    for photo in labels:
        shot = shots[photo.path]
        starts = _starts(photo, labels)
        yield PhotoReading(
            photo,
            shot,
            shot.read(plain(shot), crop_px, band=band),
            shot.read(calibrated(shots[starts[0].path]), crop_px, band=band) if starts else None,
        )


def calibrated_boards(
    classifier: OnnxSquareClassifier, data: Path, labels: list[LabelledPhoto] | None = None
) -> list[tuple[OnnxSquareClassifier, np.ndarray, np.ndarray]]:
    """Each labelled photo whose session has another start photo, as the live path reads
    its board: ``classifier`` adapted from that start photo, the photo's crops and their
    view tangents (``bench.classifier`` times real boards with them)."""
    labels = read_labels() if labels is None else labels
    shots = _shots(data, labels)
    adapted: dict[str, OnnxSquareClassifier] = {}
    boards = []
    for photo in labels:
        starts = _starts(photo, labels)
        if not starts:
            continue
        start = starts[0].path
        if start not in adapted:
            adapted[start] = shots[start].adapted(classifier)
        crops, _, views = shots[photo.path].squares(classifier.window, classifier.crop_size[0])
        boards.append((adapted[start], crops, views))
    return boards


def _shots(data: Path, labels: list[LabelledPhoto]) -> dict[str, PhotoShot]:
    """Each labelled photo's :class:`PhotoShot`, by its path.

    :raises ValueError: a photo cannot be read."""
    shots: dict[str, PhotoShot] = {}
    for photo in labels:
        image = cv2.imread(str(photo.file(data)))
        if image is None:
            raise ValueError(f"cannot read labelled photo {photo.file(data)}")
        shots[photo.path] = PhotoShot.of(photo, np.asarray(image, np.uint8))
    return shots


def _starts(photo: LabelledPhoto, labels: list[LabelledPhoto]) -> list[LabelledPhoto]:
    """The other start photos of ``photo``'s session: a photo is never its own calibration."""
    return [p for p in labels if p.session == photo.session and p.start and p != photo]


def score_photos(readings: Iterable[PhotoReading]) -> dict[str, PhotoScore]:
    """Photos read by :func:`read_photos`, scored "plain" and "calibrated" (the latter over
    photos whose session has another start photo)."""
    plain_score, calibrated_score = PhotoScore(), PhotoScore()
    for reading in readings:
        plain_score = plain_score.add(reading.plain.argmax(axis=1), reading.shot.tops)
        if reading.calibrated is not None:
            calibrated_score = calibrated_score.add(
                reading.calibrated.argmax(axis=1), reading.shot.tops
            )
    return {"plain": plain_score, "calibrated": calibrated_score}


def model_errors(
    classifier: OnnxSquareClassifier,
    data: Path,
    labels: list[LabelledPhoto] | None = None,
    band: bool = False,
) -> list[dict[str, object]]:
    """Every square the model reads wrong on the labelled photos, calibrated as the live
    path calibrates (``"reading": "calibrated"``) and without (``"uncalibrated"``): the
    photo, the square (its name in brazilian notation, and its row and column in the
    label file), the truth, the reading and the probabilities.

    A figure says how many squares a model reads wrong; which ones, and how near a tie,
    is what tells two candidate models apart (sessions 41 to 44 each wrote this listing
    as a throwaway script)."""
    errors: list[dict[str, object]] = []

    def adapted(start: PhotoShot) -> SquareClassifier:
        return start.adapted(classifier)

    for reading in read_photos(
        data, classifier.crop_size[0], lambda shot: shot.on_board(classifier), adapted, labels, band
    ):
        truth = reading.shot.tops
        cells = label_cells(reading.shot.turns)
        for name, probs in zip(READINGS, (reading.calibrated, reading.plain), strict=True):
            if probs is None:
                continue
            read = probs.argmax(axis=1)
            for index in np.flatnonzero(read != truth):
                row, col = cells[index]
                errors.append(
                    {
                        "photo": reading.photo.path,
                        "reading": name,
                        "square": GEOMETRY.name(int(index)),
                        "label_row": row,
                        "label_col": col,
                        "truth": Top(int(truth[index])).name,
                        "read": Top(int(read[index])).name,
                        "probabilities": {
                            top.name: round(float(probs[index, top]), 3) for top in Top
                        },
                    }
                )
    return errors


@dataclass(frozen=True)
class _NoPieces:
    """Reads every square empty: the colour prototypes of a photo with no two piece
    colours to split."""

    def predict(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> np.ndarray:
        probs = np.zeros((len(crops), len(Top)))
        probs[:, Top.EMPTY] = 1.0
        return probs


def photo_figures(
    classifier: OnnxSquareClassifier, data: Path, photo_set: PhotoSet = DAMAS
) -> dict[str, object]:
    """A set's labelled photos read by the model and by the colour prototypes."""
    size = classifier.crop_size[0]
    labels = photo_set.read()

    def adapted(start: PhotoShot) -> SquareClassifier:
        return start.adapted(classifier)

    def alone(shot: PhotoShot) -> SquareClassifier:
        return shot.on_board(classifier)

    def uncalibrated_prototypes(shot: PhotoShot) -> SquareClassifier:
        found = ColourPrototypes.cluster(shot.squares(CELL, size)[0])
        return _NoPieces() if found is None else PrototypeClassifier(found)

    def learned_prototypes(start: PhotoShot) -> SquareClassifier:
        crops, tops, _ = start.squares(CELL, size)
        return PrototypeClassifier(ColourPrototypes.learn(crops, [Top(int(t)) for t in tops]))

    model = score_photos(read_photos(data, size, alone, adapted, labels))
    with_strips = score_photos(read_photos(data, size, alone, adapted, labels, band=True))
    prototypes = score_photos(
        read_photos(data, size, uncalibrated_prototypes, learned_prototypes, labels)
    )
    return {
        "model_uncalibrated": model["plain"].as_dict(),
        "model_calibrated": model["calibrated"].as_dict(),
        "model_calibrated_with_strips": with_strips["calibrated"].as_dict(),
        "prototypes_uncalibrated": prototypes["plain"].as_dict(),
        "prototypes_calibrated": prototypes["calibrated"].as_dict(),
    }


def card_photo_figures(
    classifier: OnnxSquareClassifier, data: Path = SHARED_DATA
) -> dict[str, dict[str, object]]:
    """:func:`photo_figures` of every set whose photos are in ``data``, by the set's name,
    each naming its folder and labels: what a model card records."""
    return {
        photo_set.name: {
            "photos": f"{photo_set.folder}, labels in tests/fixtures/{photo_set.labels.name}",
            **photo_figures(classifier, data, photo_set),
        }
        for photo_set in PHOTO_SETS
        if photo_set.present(data)
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m models.labelled_photos",
        description="One JSON line for each labelled photo square a model reads wrong "
        "(calibrated from a start photo of the same session, and with --uncalibrated "
        "without), then one line of the counts.",
    )
    sets = {photo_set.name: photo_set for photo_set in PHOTO_SETS}
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="../shared/data")
    parser.add_argument("--set", choices=sets, default=DAMAS.name, help="which labelled photos")
    parser.add_argument("--labels", type=Path, help="a label file of the set (default: its own)")
    parser.add_argument("--band", action="store_true", help="read band strips too")
    parser.add_argument("--uncalibrated", action="store_true", help="list those errors too")
    ns = parser.parse_args(argv)
    photo_set = sets[ns.set]
    if not photo_set.present(ns.data):
        raise SystemExit(f"labelled photos not found: {ns.data / photo_set.folder}")
    classifier = OnnxSquareClassifier.load(ns.model)
    errors = model_errors(classifier, ns.data, photo_set.read(ns.labels), band=ns.band)
    for error in errors:
        if ns.uncalibrated or error["reading"] == "calibrated":
            print(json.dumps(error))
    counts = Counter(str(error["reading"]) for error in errors)
    print(json.dumps({"model": str(ns.model), "errors": {k: counts[k] for k in READINGS}}))


if __name__ == "__main__":
    main()

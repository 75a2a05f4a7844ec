"""The square classifier's contract, shared by the colour-prototype classifier here and
the ONNX model (``models``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from rules.observation import Top
from vision.band import BAND, BandWindow, band_strips
from vision.camera import crops_and_views
from vision.locate import BoardLocation, Image
from vision.rectify import CELL, CROP_PX, CameraModel, CropWindow

if TYPE_CHECKING:  # vision.reading_memory imports widened_heights from here: a cycle at run time
    from vision.reading_memory import ReadingMemory


class SquareClassifier(Protocol):
    """Reads the top of each square from its crop (:func:`vision.rectify.square_crops`)."""

    def predict(
        self,
        crops: npt.NDArray[np.uint8],
        views: npt.NDArray[np.float64] | None = None,
        strips: npt.NDArray[np.uint8] | None = None,
    ) -> npt.NDArray[np.float64]:
        """(S, crop, crop, 3) uint8 BGR crops -> (S, 5) probabilities over
        :class:`rules.observation.Top`, each row summing to 1. ``views`` (S,): the cells'
        :func:`vision.camera.view_tangents`, for a classifier that weighs a stack's side
        band against them (others ignore them). ``strips``: the squares' band strips, for
        a classifier that names a ``band_window`` (:func:`classifier_strips`)."""
        ...


@runtime_checkable
class StackClassifier(SquareClassifier, Protocol):
    """A classifier that also counts each square's discs (the ONNX model)."""

    def predict_stacks(
        self,
        crops: npt.NDArray[np.uint8],
        views: npt.NDArray[np.float64] | None = None,
        strips: npt.NDArray[np.uint8] | None = None,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """From one reading: :meth:`SquareClassifier.predict`'s ``(S, 5)`` and ``(S, H)``
        probabilities over 0 to H - 1 discs (the last: that many or more)."""
        ...

    def with_strips(
        self,
        tops: npt.NDArray[np.float64],
        heights: npt.NDArray[np.float64],
        views: npt.NDArray[np.float64],
        strips: npt.NDArray[np.uint8],
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Some squares' :meth:`predict_stacks` reading without strips, read again with
        their band strips added (as given where the classifier reads none)."""
        ...


@runtime_checkable
class BoardMeasuring(SquareClassifier, Protocol):
    """A classifier that measures what it needs of the set on the board it is about to
    read, where no start frame told it (the ONNX model, unadapted: the men's height)."""

    def on_board(
        self, crops: npt.NDArray[np.uint8], views: npt.NDArray[np.float64] | None
    ) -> SquareClassifier:
        """The classifier to read this board with: ``crops`` (its window) and ``views``
        of every playable square, as :func:`read_squares` cuts them."""
        ...


HEIGHT_SIGMA_FLOOR = 1.0
"""The least uncertainty, in discs, a height reading is given. The models count the discs
of 83-93% of the towers whose band shows, one off otherwise (docs/models.md), however sure
they are; at one disc a miss costs the recorder half a nat a frame, a tenth of what a
misread top can, so heights tell apart moves whose tops look the same (column digest
§5.5) and never outvote the tops."""

HEIGHT_SIGMA_SHARE = 0.1
"""And the least uncertainty as a share of the count: a tall tower's band is measured
against the cell's view tangent, which the frame gives to a few percent (a tenth on some
cells), so its count is off by that share, whichever way. On held-out renders of towers
up to the full tower the tower reader's counts of 9-24 discs miss by 1.3-2.1 discs (root
mean square) where its own spread says 0.8-1.0; with this floor 1-5% lie more than two
sigmas out (docs/models.md, "Towers to the full height")."""

OPEN_TOP_LIMIT = 0.05
"""A square whose last height class (that many discs or more: eight for the shipped
square models' crops, the full tower of 24 for the tower reader's strips) holds more than
this share gets no height reading: its count may be only a lower bound, and bashni
towers grow past eight (the Code's sample game reaches eight; in 87 of 200 random
bashni games of 120 plies one passes it, in 32 of 200 lasca games)."""


TOWER_SHARE = 0.2
"""A square whose crop reading gives two discs or more at least this share is read
again with its band strip (:meth:`StackClassifier.with_strips`), where the heights are
asked and the classifier reads strips but not every square's was cut: the tower reader
counts to the full tower where the crops stop at eight, reads a tall tower's top past
the crop, and with the crops misses fewer short towers than either (docs/models.md,
"Towers to the full height"); a column game's frame holds a few towers, so their strips
cost a fraction of every square's."""


@dataclass(frozen=True, slots=True)
class SquareReads:
    """One frame's reading of every playable square, in Square order: ``tops`` ``(S, 5)``
    over :class:`rules.observation.Top`; ``heights`` ``(S, H)`` over 0 to H - 1 discs
    where they were asked for and the classifier counts discs, else None; ``band_shows``
    ``(S,)``: whether the camera sees the side of a stack there (its view tangent, in
    the set's men's heights, at least :attr:`vision.band.BandWindow.min_view`)."""

    tops: npt.NDArray[np.float64]
    heights: npt.NDArray[np.float64] | None
    band_shows: npt.NDArray[np.bool_]

    def height_estimates(self) -> list[tuple[float, float] | None]:
        """Per square, the expected disc count and its standard deviation (at least
        :data:`HEIGHT_SIGMA_FLOOR`, and :data:`HEIGHT_SIGMA_SHARE` of the count), or None
        where no heights were read, where the side of the stack is hidden (straight
        down, every stack looks one disc tall) or where the stack may be taller than the
        classifier counts (:data:`OPEN_TOP_LIMIT`)."""
        if self.heights is None:
            return [None] * len(self.tops)
        mean, sigma = height_moments(self.heights)
        counted = self.band_shows & (self.heights[:, -1] <= OPEN_TOP_LIMIT)
        floor = np.maximum(HEIGHT_SIGMA_FLOOR, HEIGHT_SIGMA_SHARE * mean)
        return [
            (float(m), float(max(s, f))) if known else None
            for m, s, f, known in zip(mean, sigma, floor, counted, strict=True)
        ]


def crop_window(classifier: SquareClassifier) -> CropWindow:
    """The crop a classifier reads: its ``window`` attribute where it has one (the ONNX
    model says which it was trained on), else the plain cell."""
    window = getattr(classifier, "window", CELL)
    return window if isinstance(window, CropWindow) else CELL


def classifier_strips(
    classifier: SquareClassifier,
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    views: npt.NDArray[np.float64],
    *,
    turns: int = 0,
    camera: CameraModel | None = None,
    cells: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.uint8] | None:
    """The band strips a classifier reads beside its crops, or None for one that reads
    none: its ``band_window`` attribute (the ONNX model's tower reader's) says which
    strip; ``views`` are taken in the set's men's heights (:func:`men_views`), as it was
    trained to read them. ``cells``: only these squares' (indices in Square order)."""
    window = getattr(classifier, "band_window", None)
    if not isinstance(window, BandWindow):
        return None
    return band_strips(
        image,
        location,
        geometry,
        views=men_views(classifier, views),
        turns=turns,
        camera=camera,
        window=window,
        cells=cells,
    )


def men_views(
    classifier: SquareClassifier, views: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """View tangents in the set's men's heights: times the classifier's ``view_scale``
    where it has one (the ONNX model measures it on the start frame), else as given."""
    return views * float(getattr(classifier, "view_scale", 1.0))


def read_squares(
    classifier: SquareClassifier,
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    *,
    crop_px: int = CROP_PX,
    turns: int = 0,
    camera: CameraModel | None = None,
    stack_height: float = 0.0,
    band: bool,
    heights: bool,
    memory: ReadingMemory | None = None,
) -> SquareReads:
    """Every playable square of one frame, read as ``classifier`` reads: crops of its
    window with the cells' view tangents, and, with ``band``, its band strips where it
    reads them (:func:`classifier_strips`); with ``heights``, each stack's disc count too,
    where the classifier counts (a :class:`StackClassifier`). Without ``band``, a
    classifier with strips still reads those of the towers its crops see
    (:data:`TOWER_SHARE`) when heights are asked: they count to the full tower. With a
    ``memory`` (the live loop's), only the squares it says changed are read; the others
    keep their last reading."""
    crops, views = crops_and_views(
        image,
        location,
        geometry,
        crop_px=crop_px,
        window=crop_window(classifier),
        turns=turns,
        camera=camera,
        stack_height=stack_height,
    )
    band_shows = men_views(classifier, views) >= BAND.min_view
    counting = heights and isinstance(classifier, StackClassifier)
    cells = None
    if memory is not None:
        cut = (crop_px, turns, stack_height, band, counting)
        cells = memory.to_read(classifier, cut, crops, views, TOWER_SHARE if counting else None)
    tops, counts = _read_cells(
        classifier, image, location, geometry, crops if cells is None else crops[cells],
        views, cells, turns=turns, camera=camera, band=band, counting=counting,
    )  # fmt: skip
    if memory is not None and cells is not None:
        tops, counts = memory.remember(cells, tops, counts)
    return SquareReads(tops, counts, band_shows)


def _read_cells(
    classifier: SquareClassifier,
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    crops: npt.NDArray[np.uint8],
    views: npt.NDArray[np.float64],
    cells: npt.NDArray[np.int64] | None,
    *,
    turns: int,
    camera: CameraModel | None,
    band: bool,
    counting: bool,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
    """:func:`read_squares`'s reading of ``cells`` (indices in Square order; None: every
    square), whose ``crops`` are given (``views``: every square's): tops, and with
    ``counting`` (a :class:`StackClassifier` asked for heights) heights."""
    if cells is not None and cells.size == 0:
        return np.zeros((0, len(Top))), np.zeros((0, 0)) if counting else None
    strips = (
        classifier_strips(
            classifier, image, location, geometry, views, turns=turns, camera=camera, cells=cells
        )
        if band
        else None
    )
    own_views = views if cells is None else views[cells]
    if not counting:
        return classifier.predict(crops, own_views, strips), None
    assert isinstance(classifier, StackClassifier)
    tops, counts = classifier.predict_stacks(crops, own_views, strips)
    if strips is not None:  # every square's strip was read already
        return tops, counts
    towers = np.flatnonzero(counts[:, 2:].sum(axis=1) >= TOWER_SHARE)
    if towers.size:
        tower_strips = classifier_strips(
            classifier, image, location, geometry, views, turns=turns, camera=camera,
            cells=towers if cells is None else cells[towers],
        )  # fmt: skip
        if tower_strips is not None:
            tops, counts = _towers_restacked(
                classifier, tops, counts, own_views, towers, tower_strips
            )
    return tops, counts


def _towers_restacked(
    classifier: StackClassifier,
    tops: npt.NDArray[np.float64],
    counts: npt.NDArray[np.float64],
    views: npt.NDArray[np.float64],
    towers: npt.NDArray[np.int64],
    strips: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Every square's reading, the ``towers``' read again with their ``strips``."""
    tower_tops, tower_counts = classifier.with_strips(
        tops[towers], counts[towers], views[towers], strips
    )
    tops = tops.copy()
    tops[towers] = tower_tops
    counts = widened_heights(counts, tower_counts.shape[1])
    counts[towers] = widened_heights(tower_counts, counts.shape[1])
    return tops, counts


def height_moments(
    probs: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Expected disc count and its standard deviation per row of ``probs`` ``(S, H)``,
    probabilities over 0 to H - 1 discs."""
    levels = np.arange(probs.shape[1], dtype=np.float64)
    mean = probs @ levels
    return mean, np.sqrt(np.maximum(probs @ levels**2 - mean**2, 0.0))


def widened_heights(probs: npt.NDArray[np.float64], width: int) -> npt.NDArray[np.float64]:
    """Height probabilities over 0 to ``width`` - 1 discs (at least as many as given),
    none on the heights added: the crops' counts beside the tower reader's."""
    out = np.zeros((len(probs), max(width, probs.shape[1])))
    out[:, : probs.shape[1]] = probs
    return out

"""The square classifier's contract, shared by the colour-prototype classifier here and
the ONNX model (``models``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from vision.band import BAND, BandWindow, band_strips
from vision.camera import crops_and_views
from vision.locate import BoardLocation, Image
from vision.rectify import CELL, CROP_PX, CameraModel, CropWindow


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


HEIGHT_SIGMA_FLOOR = 1.0
"""The least uncertainty, in discs, a height reading is given. The models count the discs
of 83-93% of the towers whose band shows, one off otherwise (docs/models.md), however sure
they are; at one disc a miss costs the recorder half a nat a frame, a tenth of what a
misread top can, so heights tell apart moves whose tops look the same (column digest
§5.5) and never outvote the tops."""

OPEN_TOP_LIMIT = 0.05
"""A square whose last height class (that many discs or more: eight for the shipped
models) holds more than this share gets no height reading: its count is only a lower
bound, and bashni towers grow past eight (the Code's sample game reaches eight; in 87 of
200 random bashni games of 120 plies one passes it, in 32 of 200 lasca games)."""


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
        :data:`HEIGHT_SIGMA_FLOOR`), or None where no heights were read, where the side
        of the stack is hidden (straight down, every stack looks one disc tall) or where
        the stack may be taller than the classifier counts (:data:`OPEN_TOP_LIMIT`)."""
        if self.heights is None:
            return [None] * len(self.tops)
        levels = np.arange(self.heights.shape[1], dtype=np.float64)
        mean = self.heights @ levels
        sigma = np.sqrt(np.maximum(self.heights @ levels**2 - mean**2, 0.0))
        counted = self.band_shows & (self.heights[:, -1] <= OPEN_TOP_LIMIT)
        return [
            (float(m), max(float(s), HEIGHT_SIGMA_FLOOR)) if known else None
            for m, s, known in zip(mean, sigma, counted, strict=True)
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
) -> npt.NDArray[np.uint8] | None:
    """The band strips a classifier reads beside its crops, or None for one that reads
    none: its ``band_window`` attribute (the ONNX model's tower reader's) says which
    strip; ``views`` are taken in the set's men's heights (:func:`men_views`), as it was
    trained to read them."""
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
) -> SquareReads:
    """Every playable square of one frame, read as ``classifier`` reads: crops of its
    window with the cells' view tangents, and, with ``band``, its band strips where it
    reads them (:func:`classifier_strips`); with ``heights``, each stack's disc count too,
    where the classifier counts (a :class:`StackClassifier`)."""
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
    strips = (
        classifier_strips(classifier, image, location, geometry, views, turns=turns, camera=camera)
        if band
        else None
    )
    band_shows = men_views(classifier, views) >= BAND.min_view
    if heights and isinstance(classifier, StackClassifier):
        tops, counts = classifier.predict_stacks(crops, views, strips)
        return SquareReads(tops, counts, band_shows)
    return SquareReads(classifier.predict(crops, views, strips), None, band_shows)

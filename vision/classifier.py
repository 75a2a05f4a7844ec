"""The square classifier's contract, shared by the colour-prototype classifier here and
the ONNX model (``models``)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from vision.band import BandWindow, band_strips
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
    strip; ``views`` are scaled by its ``view_scale`` (the set's man height), as it
    was trained to read them."""
    window = getattr(classifier, "band_window", None)
    if not isinstance(window, BandWindow):
        return None
    scale = float(getattr(classifier, "view_scale", 1.0))
    return band_strips(
        image, location, geometry, views=views * scale, turns=turns, camera=camera, window=window
    )


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
) -> npt.NDArray[np.float64]:
    """``(S, 5)`` probabilities of every playable square's top in one frame, read as
    ``classifier`` reads: crops of its window with the cells' view tangents, and, with
    ``band``, its band strips where it reads them (:func:`classifier_strips`)."""
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
    return classifier.predict(crops, views, strips)

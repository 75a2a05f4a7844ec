"""The square classifier's contract, shared by the colour-prototype classifier here and
the ONNX model (``models``)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from vision.rectify import CELL, CropWindow


class SquareClassifier(Protocol):
    """Reads the top of each square from its crop (:func:`vision.rectify.square_crops`)."""

    def predict(
        self, crops: npt.NDArray[np.uint8], views: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """(S, crop, crop, 3) uint8 BGR crops -> (S, 5) probabilities over
        :class:`rules.observation.Top`, each row summing to 1. ``views`` (S,): the cells'
        :func:`vision.camera.view_tangents`, for a classifier that weighs a stack's side
        band against them (others ignore them)."""
        ...


def crop_window(classifier: SquareClassifier) -> CropWindow:
    """The crop a classifier reads: its ``window`` attribute where it has one (the ONNX
    model says which it was trained on), else the plain cell."""
    window = getattr(classifier, "window", CELL)
    return window if isinstance(window, CropWindow) else CELL

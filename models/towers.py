"""The tower reader, run by onnxruntime: how many discs a column game's stack has, and
what tops it, read from its band strip (:mod:`vision.band`) rather than from the square
crop.

The ONNX file (``square_towers.onnx``) has two inputs, ``strips (N, 3, rows, cols)``
float32 BGR in [-1, 1] and ``views (N, 1)`` (the cells' view tangents in men's heights),
and two outputs, ``height_logits (N, H)`` over 0..H-1 discs (to the full tower) and
``top_logits (N, 5)`` over :class:`rules.observation.Top` (the lighter piece White, as
the square models' trained heads). Its card names the strip
(``band_window``, :class:`vision.band.BandWindow`) it was trained on. The main card names
it as ``towers_model``; :class:`models.classifier.OnnxSquareClassifier` loads it beside
the square models.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from models.onnx_io import (
    MIRROR_OPEN,
    ModelFileError,
    open_session,
    read_card,
    softmax,
    to_input,
)
from rules.observation import Top
from vision.band import BandWindow

TRAIN_HINT = "python -m models.train_towers"
OUTPUTS = ("height_logits", "top_logits")


@dataclass(frozen=True)
class TowerReading:
    """``heights (N, H)`` probabilities over 0..H-1 discs and ``tops (N, 5)`` over
    :class:`rules.observation.Top`, per strip."""

    heights: np.ndarray
    tops: np.ndarray


@dataclass(frozen=True)
class TowerReader:
    """Stack heights from band strips; ``window``: the strip its card says it reads."""

    session: ort.InferenceSession
    path: Path
    card: dict[str, Any]
    window: BandWindow

    @classmethod
    def load(cls, path: Path) -> TowerReader:
        """:raises ModelFileError: the file or its card is missing or unreadable, or the
        file has other outputs than :data:`OUTPUTS`."""
        card = read_card(path, TRAIN_HINT)
        try:
            window = BandWindow(**card["band_window"])
        except (KeyError, TypeError) as exc:
            raise ModelFileError(
                f"model card of {str(path)!r} names no band_window ({exc}); "
                f"rebuild it with {TRAIN_HINT}"
            ) from exc
        session = open_session(path, TRAIN_HINT)
        outputs = [o.name for o in session.get_outputs()]
        if outputs != list(OUTPUTS):
            raise ModelFileError(
                f"tower reader {str(path)!r} has outputs {outputs}, expected {list(OUTPUTS)} "
                f"(a reader from before it read tops); rebuild it with {TRAIN_HINT}"
            )
        return cls(session, path, card, window)

    def read(self, strips: np.ndarray, views: np.ndarray) -> TowerReading:
        """Heights and tops for ``strips (N, rows, cols, 3)`` uint8 BGR and ``views (N,)``;
        each strip read as cut, and where that reading's height or top is open
        (:data:`models.onnx_io.MIRROR_OPEN`) mirrored left to right too (both are real
        views of the stack), the two averaged.

        :raises ValueError: strips of another size than the card's (no silent resize),
            or not one view per strip.
        """
        expected = (self.window.rows, self.window.cols, 3)
        if strips.ndim != 4 or strips.shape[1:] != expected:
            raise ValueError(
                f"band strips of shape {strips.shape} given; {self.path.name} expects "
                f"(N, {expected[0]}, {expected[1]}, 3) uint8 from vision.band.band_strips"
            )
        if np.shape(views) != (len(strips),):
            raise ValueError(
                f"{self.path.name} reads one view tangent per strip; got {np.shape(views)} "
                f"for {len(strips)} strips"
            )
        if len(strips) == 0:
            return TowerReading(np.zeros((0, self.height_classes)), np.zeros((0, len(Top))))
        tangents = np.asarray(views, np.float32).reshape(-1, 1)
        heights, tops = self._run(strips, tangents)
        again = (heights.max(axis=1) < 1 - MIRROR_OPEN) | (tops.max(axis=1) < 1 - MIRROR_OPEN)
        if again.any():
            mirror_heights, mirror_tops = self._run(strips[again, :, ::-1], tangents[again])
            heights[again] = (heights[again] + mirror_heights) / 2
            tops[again] = (tops[again] + mirror_tops) / 2
        return TowerReading(heights, tops)

    def _run(self, strips: np.ndarray, tangents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The file's heights and tops, as probabilities."""
        heights, tops = self.session.run(None, {"strips": to_input(strips), "views": tangents})
        return softmax(heights), softmax(tops)

    @property
    def height_classes(self) -> int:
        """How many heights the reader tells apart (0 to the full tower)."""
        return int(self.session.get_outputs()[0].shape[1])

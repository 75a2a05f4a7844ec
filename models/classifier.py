"""The shipped square classifier, run by onnxruntime (no torch needed).

The ONNX file has one input ``crops`` ``(N, 3, H, W)`` float32 and three outputs:
``top_logits (N, 5)``, ``height_logits (N, 9)`` and ``features (N, 64)``. Its card
(``square_classifier.json`` beside it) names the class order, input size and
normalisation; the code reads them from there rather than hard-coding them.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from rules.observation import Top

log = logging.getLogger(__name__)

MODEL_DIR = Path(__file__).resolve().parent
DEFAULT_MODEL = MODEL_DIR / "square_classifier.onnx"
TRAIN_HINT = "python -m models.train (or damcam train)"


class ModelFileError(ValueError):
    """The model file or its card is missing or unreadable; the message names the file."""


def card_path(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


def to_input(crops: np.ndarray) -> np.ndarray:
    """``(N, H, W, 3)`` uint8 BGR (OpenCV order, as vision crops) -> ``(N, 3, H, W)``
    float32 in [-1, 1] (the card's
    ``normalisation``); shared by training and inference."""
    x = crops.astype(np.float32) / 127.5 - 1.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


@dataclass(frozen=True)
class SquarePrediction:
    """Per-crop outputs: ``tops (N, 5)`` probabilities, ``heights (N, 9)`` probabilities
    over 0..8 discs, ``features (N, 64)``."""

    tops: np.ndarray
    heights: np.ndarray
    features: np.ndarray


@dataclass(frozen=True)
class OnnxSquareClassifier:
    """Implements vision's ``SquareClassifier`` protocol: ``predict(crops) -> (N, 5)``.

    ``prototypes`` (5, 64), when set by :meth:`adapted`, replace the trained top head by
    nearest-prototype scores in feature space (per-set adaptation from one start frame).
    """

    session: ort.InferenceSession
    path: Path
    crop_size: tuple[int, int]
    card: dict[str, Any]
    prototypes: np.ndarray | None = None
    temperature: float = 10.0

    @classmethod
    def load(cls, path: Path | None = None) -> OnnxSquareClassifier:
        """Load the ONNX model (default: the one shipped in ``models/``) and its card.

        :raises ModelFileError: the file or card is missing or not a readable model.
        """
        path = DEFAULT_MODEL if path is None else Path(path)
        if not path.is_file():
            raise ModelFileError(f"model file {str(path)!r} not found; build it with {TRAIN_HINT}")
        card_file = card_path(path)
        try:
            card = json.loads(card_file.read_text())
            height, width = (int(v) for v in card["input_size"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelFileError(
                f"model card {str(card_file)!r} missing or unreadable ({exc}); "
                f"rebuild it with {TRAIN_HINT}"
            ) from exc
        if card.get("classes") != [t.name for t in Top]:
            raise ModelFileError(
                f"model card {str(card_file)!r} has class order {card.get('classes')}, "
                f"expected {[t.name for t in Top]}"
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelFileError(
                f"model file {str(path)!r} is not a readable ONNX model ({exc}); "
                f"rebuild it with {TRAIN_HINT}"
            ) from exc
        return cls(session, path, (height, width), card)

    def run(self, crops: np.ndarray) -> SquarePrediction:
        """All outputs for ``crops (N, H, W, 3)`` uint8 BGR, in one batch.

        :raises ValueError: the crops are not of the model's input size.
        """
        expected = (*self.crop_size, 3)
        if crops.ndim != 4 or crops.shape[1:] != expected:
            raise ValueError(
                f"crops of shape {crops.shape} given; {self.path.name} expects (N, "
                f"{expected[0]}, {expected[1]}, 3) uint8 (no silent resize)"
            )
        if len(crops) == 0:
            return SquarePrediction(np.zeros((0, len(Top))), np.zeros((0, 9)), np.zeros((0, 64)))
        top_logits, height_logits, features = self.session.run(None, {"crops": to_input(crops)})
        if self.prototypes is not None:
            top_logits = self.temperature * _cosine(features, self.prototypes)
        return SquarePrediction(softmax(top_logits), softmax(height_logits), features)

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """``(N, 5)`` probabilities over :class:`rules.observation.Top`."""
        return self.run(crops).tops

    def predict_heights(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Expected disc count and its standard deviation per crop, ``(N,)`` each."""
        probs = self.run(crops).heights
        levels = np.arange(probs.shape[1], dtype=np.float64)
        mean = probs @ levels
        sigma = np.sqrt(np.maximum(probs @ levels**2 - mean**2, 0.0))
        return mean, sigma

    def adapted(self, crops: np.ndarray, tops: np.ndarray) -> OnnxSquareClassifier:
        """A copy whose top classes are the mean features of ``crops`` labelled ``tops``
        (e.g. every square of one start-position frame, labels from the rules); the kings,
        absent from a start position, sit at their man's prototype plus the card's
        ``king_feature_shift``."""
        features = self.run(crops).features
        protos = np.zeros((len(Top), features.shape[1]), np.float64)
        for top in Top:
            chosen = features[tops == top]
            if len(chosen):
                protos[top] = chosen.mean(axis=0)
        # Kings are never on a start position: place each king's prototype at its man's
        # plus the man-to-king offset measured on the training renders (in the card).
        shift = np.asarray(self.card.get("king_feature_shift", np.zeros(protos.shape[1])))
        for king, man in ((Top.WHITE_KING, Top.WHITE_MAN), (Top.BLACK_KING, Top.BLACK_MAN)):
            if not np.any(tops == king):
                protos[king] = protos[man] + shift
        return OnnxSquareClassifier(
            self.session, self.path, self.crop_size, self.card, protos, self.temperature
        )


def _cosine(features: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    f = features / (np.linalg.norm(features, axis=1, keepdims=True) + 1e-9)
    p = prototypes / (np.linalg.norm(prototypes, axis=1, keepdims=True) + 1e-9)
    out: np.ndarray = f @ p.T
    return out

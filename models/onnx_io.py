"""What every shipped model's reader shares: the error that names a missing or unreadable
file, the card beside each ``.onnx`` file, one-thread sessions, and the conversion of
uint8 BGR images to the networks' input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from models.exact_int8 import readable


class ModelFileError(ValueError):
    """The model file or its card is missing or unreadable; the message names the file."""


def card_path(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


def read_card(path: Path, hint: str) -> dict[str, Any]:
    """The card of the model file ``path``; ``hint``: the command that builds both.

    :raises ModelFileError: the model file is missing, or its card missing or not JSON.
    """
    if not path.is_file():
        raise ModelFileError(f"model file {str(path)!r} not found; build it with {hint}")
    card_file = card_path(path)
    try:
        card: dict[str, Any] = json.loads(card_file.read_text())
    except (OSError, ValueError) as exc:
        raise ModelFileError(
            f"model card {str(card_file)!r} missing or unreadable ({exc}); rebuild it with {hint}"
        ) from exc
    return card


def open_session(path: Path, hint: str) -> ort.InferenceSession:
    """A CPU session on one thread (the Pi's loop runs beside it). On a CPU whose int8
    kernels saturate, an int8 file's weights are read as uint8, the same values
    (:mod:`models.exact_int8`), so that it reads as on every other CPU.

    :raises ModelFileError: the file is not a readable ONNX model.
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(readable(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelFileError(
            f"model file {str(path)!r} is not a readable ONNX model ({exc}); rebuild it with {hint}"
        ) from exc


MIRROR_OPEN = 0.03
"""A reading less sure than 1 - this (a kings model's man-or-king split or likeliest
height, the tower reader's height or top) is read once more, mirrored, and the two
averaged (:meth:`models.classifier.OnnxSquareClassifier.run_mirrored`,
:meth:`models.towers.TowerReader.read`; docs/models.md, "Only squares that may hold a
piece")."""


def to_input(crops: np.ndarray) -> np.ndarray:
    """``(N, H, W, 3)`` uint8 BGR (OpenCV order, as vision crops) -> ``(N, 3, H, W)``
    float32 in [-1, 1] (the card's ``normalisation``); shared by training and inference.

    One pass into the output, transposed as it is read: the same float32 values as
    ``crops.astype(np.float32) / 127.5 - 1.0``, bit for bit, at a seventh of the time
    (three temporaries and a transposing copy were a sixth of a 50-crop reading)."""
    n, h, w, channels = crops.shape
    x = np.empty((n, channels, h, w), np.float32)
    np.divide(crops.transpose(0, 3, 1, 2), np.float32(127.5), out=x)
    x -= np.float32(1.0)
    return x


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out

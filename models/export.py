"""ONNX export, int8 quantisation and evaluation of a trained :class:`SquareNet`."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

from models.classifier import OnnxSquareClassifier, to_input
from models.dataset import SquareSet
from models.net import SquareNet

log = logging.getLogger(__name__)

OPSET = 17
INPUT_NAME = "crops"
OUTPUT_NAMES = ["top_logits", "height_logits", "features"]


def export_onnx(net: SquareNet, path: Path, size: int) -> None:
    """Write ``net`` as ONNX with a dynamic batch axis (opset 17)."""
    net.eval()
    dummy = torch.zeros(1, 3, size, size)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        (dummy,),
        str(path),
        input_names=[INPUT_NAME],
        output_names=OUTPUT_NAMES,
        dynamic_axes={INPUT_NAME: {0: "n"}, **{name: {0: "n"} for name in OUTPUT_NAMES}},
        opset_version=OPSET,
        dynamo=False,
    )


class _Calibration(CalibrationDataReader):  # type: ignore[misc]
    def __init__(self, crops: np.ndarray, batch: int = 64) -> None:
        self._batches = [to_input(crops[i : i + batch]) for i in range(0, len(crops), batch)]

    def get_next(self) -> dict[str, np.ndarray] | None:
        if not self._batches:
            return None
        return {INPUT_NAME: self._batches.pop()}


def quantise(fp32: Path, int8: Path, calibration_crops: np.ndarray) -> None:
    """Static int8 quantisation (QDQ, per-channel weights) with onnxruntime's tools."""
    prepared = fp32.with_suffix(".prep.onnx")
    quant_pre_process(str(fp32), str(prepared))
    quantize_static(
        str(prepared),
        str(int8),
        _Calibration(calibration_crops),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        weight_type=QuantType.QInt8,
        activation_type=QuantType.QUInt8,
    )
    prepared.unlink(missing_ok=True)


@dataclass(frozen=True)
class Evaluation:
    """Held-out figures: per-square top error, height accuracy on stacks of 2+ discs."""

    squares: int
    top_errors: int
    towers: int
    tower_height_errors: int
    confusion: list[list[int]]

    @property
    def top_error_rate(self) -> float:
        return self.top_errors / max(self.squares, 1)

    @property
    def tower_height_accuracy(self) -> float:
        return 1.0 - self.tower_height_errors / max(self.towers, 1)

    def as_dict(self) -> dict[str, object]:
        return {
            "squares": self.squares,
            "top_errors": self.top_errors,
            "top_error_rate": self.top_error_rate,
            "towers": self.towers,
            "tower_height_accuracy": self.tower_height_accuracy,
            "confusion_true_by_predicted": self.confusion,
        }


def evaluate(classifier: OnnxSquareClassifier, data: SquareSet, batch: int = 256) -> Evaluation:
    tops: list[np.ndarray] = []
    heights: list[np.ndarray] = []
    for i in range(0, len(data), batch):
        out = classifier.run(data.crops[i : i + batch])
        tops.append(out.tops.argmax(axis=1))
        heights.append(out.heights.argmax(axis=1))
    top_pred = np.concatenate(tops)
    height_pred = np.concatenate(heights)
    n = len(classifier.card["classes"])
    confusion = np.zeros((n, n), np.int64)
    np.add.at(confusion, (data.tops, top_pred), 1)
    towers = data.heights >= 2
    return Evaluation(
        squares=len(data),
        top_errors=int((top_pred != data.tops).sum()),
        towers=int(towers.sum()),
        tower_height_errors=int((height_pred[towers] != data.heights[towers]).sum()),
        confusion=confusion.tolist(),
    )


def latency_ms(classifier: OnnxSquareClassifier, crops: np.ndarray, repeats: int = 30) -> float:
    """Median milliseconds for one batched call on ``crops`` (one intra-op thread)."""
    classifier.run(crops)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        classifier.run(crops)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1000)

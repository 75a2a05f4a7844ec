"""ONNX export, int8 quantisation and evaluation of a trained :class:`SquareNet`."""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
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

from models.channel_pad import pad_file
from models.classifier import OnnxSquareClassifier, to_input
from models.dataset import MIN_BAND_PX_PER_DISC, SquareSet, band_readable, band_seen
from models.net import SquareNet

log = logging.getLogger(__name__)

OPSET = 17
INPUT_NAME = "crops"
VIEWS_NAME = "views"
OUTPUT_NAMES = ["top_logits", "height_logits", "features"]


def export_onnx(net: SquareNet, path: Path, size: int) -> None:
    """Write ``net`` as ONNX with a dynamic batch axis (opset 17); a net that reads view
    tangents gets the second input ``views (N, 1)``."""
    net.eval()
    inputs = [INPUT_NAME, VIEWS_NAME] if net.views else [INPUT_NAME]
    dummy = (torch.zeros(1, 3, size, size), torch.zeros(1, 1))[: len(inputs)]
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        dummy,
        str(path),
        input_names=inputs,
        output_names=OUTPUT_NAMES,
        dynamic_axes={name: {0: "n"} for name in inputs + OUTPUT_NAMES},
        opset_version=OPSET,
        dynamo=False,
    )


class _Calibration(CalibrationDataReader):  # type: ignore[misc]
    def __init__(self, crops: np.ndarray, views: np.ndarray | None, batch: int = 64) -> None:
        self._batches = []
        for i in range(0, len(crops), batch):
            feed = {INPUT_NAME: to_input(crops[i : i + batch])}
            if views is not None:
                feed[VIEWS_NAME] = views[i : i + batch, None].astype(np.float32)
            self._batches.append(feed)

    def get_next(self) -> dict[str, np.ndarray] | None:
        if not self._batches:
            return None
        return self._batches.pop()


def quantise(
    fp32: Path,
    int8: Path,
    calibration_crops: np.ndarray,
    views: np.ndarray | None = None,
    bounded: bool = False,
) -> None:
    """Static int8 quantisation (QDQ, per-channel weights) with onnxruntime's tools, the
    first convolution padded to four input channels (:mod:`models.channel_pad`);
    ``views``: the calibration crops' view tangents, for a model that reads them.
    ``bounded``: weights within :data:`models.exact_int8.PAIR_BOUND` (onnxruntime's
    ``reduce_range``), which AVX2 CPUs read exactly on their fast path; a net trained with
    :func:`models.net.bound_weights` loses nothing to it."""
    prepared = fp32.with_suffix(".prep.onnx")
    quant_pre_process(str(fp32), str(prepared))
    quantize_static(
        str(prepared),
        str(int8),
        _Calibration(calibration_crops, views),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        weight_type=QuantType.QInt8,
        activation_type=QuantType.QUInt8,
        reduce_range=bounded,
    )
    prepared.unlink(missing_ok=True)
    pad_file(int8)


@dataclass(frozen=True)
class Evaluation:
    """Held-out figures: per-square top error, height accuracy on stacks of 2+ discs;
    with side-band truth (renders) the same split by whether the band is visible."""

    squares: int
    top_errors: int
    towers: int
    tower_height_errors: int
    confusion: list[list[int]]
    colour_errors: int
    """Occupancy or colour wrong (empty / White / Black, man and king together)."""
    visible: dict[str, int] | None = None
    by_band: list[dict[str, float]] | None = None
    """Pieces binned by side band per disc (crop px): count, man/king and top errors."""
    by_family: dict[str, dict[str, int]] | None = None
    """Where the set knows each crop's family: squares, top errors, towers and their
    height errors of the draughts and the column games apart."""

    @property
    def top_error_rate(self) -> float:
        return self.top_errors / max(self.squares, 1)

    @property
    def tower_height_accuracy(self) -> float:
        return 1.0 - self.tower_height_errors / max(self.towers, 1)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "squares": self.squares,
            "top_errors": self.top_errors,
            "top_error_rate": self.top_error_rate,
            "colour_errors": self.colour_errors,
            "colour_error_rate": self.colour_errors / max(self.squares, 1),
            "towers": self.towers,
            "tower_height_accuracy": self.tower_height_accuracy,
            "confusion_true_by_predicted": self.confusion,
        }
        if self.visible is not None:
            v = self.visible
            out["band_visible"] = {
                "rule": f"side band >= {MIN_BAND_PX_PER_DISC} crop px per disc, top in the crop",
                **v,
                "top_error_rate": v["top_errors"] / max(v["squares"], 1),
                "man_king_error_rate": v["man_king_errors"] / max(v["pieces"], 1),
                "tower_height_accuracy": 1 - v["tower_height_errors"] / max(v["towers"], 1),
            }
        if self.by_band is not None:
            out["pieces_by_band_px_per_disc"] = self.by_band
        if self.by_family is not None:
            out["by_family"] = self.by_family
        return out


_COLOUR = np.array([0, 1, 1, 2, 2])  # Top -> empty / White / Black
BAND_BINS = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 1e9)
"""Side band per disc (crop px) bins for the man/king error curve."""


def evaluate(
    classifier: OnnxSquareClassifier,
    data: SquareSet,
    batch: int = 256,
    top_limit_px: float | None = None,
) -> Evaluation:
    """Figures on ``data``; ``top_limit_px``: how far above the base a stack's top may
    lie and still be in the crop (the window's far margin), for the visible split. Where
    ``data`` knows each crop's family, each is read as its variant would be
    (:meth:`OnnxSquareClassifier.for_variant`), tops and heights as
    :meth:`OnnxSquareClassifier.predict_stacks` gives them: where ``data`` has strips and
    the classifier a tower reader, a column game's tall towers' heights and tops from
    their band strips (and a draughts piece's king odds, in a reader adapted from a
    start frame)."""
    top_pred = np.empty(len(data), np.int64)
    height_pred = np.empty(len(data), np.int64)
    families = np.zeros(len(data), bool) if data.towers is None else data.towers
    for column_game in (False, True):
        reader = classifier.for_variant(column_game)
        index = np.flatnonzero(families == column_game)
        for i in range(0, len(index), batch):
            chunk = index[i : i + batch]
            part = data.subset(chunk)
            tops, heights = reader.predict_stacks(part.crops, part.views, part.strips)
            top_pred[chunk] = tops.argmax(axis=1)
            height_pred[chunk] = heights.argmax(axis=1)
    n = len(classifier.card["classes"])
    confusion = np.zeros((n, n), np.int64)
    np.add.at(confusion, (data.tops, top_pred), 1)
    towers = data.heights >= 2
    wrong_top = top_pred != data.tops
    wrong_colour = _COLOUR[top_pred] != _COLOUR[data.tops]
    wrong_height = height_pred != data.heights
    visible = None
    by_band = None
    seen = np.zeros(len(data), bool)
    pieces = seen
    if data.band_px is not None:
        per_disc = data.band_px / np.maximum(data.heights, 1)
        limit = np.inf if top_limit_px is None else top_limit_px
        seen = band_seen(data.band_px, data.heights, limit)
        pieces = seen & (data.heights > 0)
        readable = band_readable(data.band_px, data.heights, limit)
        visible = {
            "squares": int(readable.sum()),
            "top_errors": int((wrong_top & readable).sum()),
            "pieces": int(pieces.sum()),
            "man_king_errors": int((pieces & wrong_top & ~wrong_colour).sum()),
            "towers": int((seen & towers).sum()),
            "tower_height_errors": int((seen & towers & wrong_height).sum()),
            "hidden_pieces": int(((data.heights > 0) & ~seen).sum()),
        }
        by_band = []
        for low, high in itertools.pairwise(BAND_BINS):
            inside = (data.heights > 0) & (per_disc >= low) & (per_disc < high)
            count = int(inside.sum())
            by_band.append(
                {
                    "from_px": low,
                    "to_px": high,
                    "pieces": count,
                    "man_king_error_rate": float((inside & wrong_top & ~wrong_colour).sum())
                    / max(count, 1),
                    "top_error_rate": float((inside & wrong_top).sum()) / max(count, 1),
                }
            )
    by_family = None
    if data.towers is not None:
        by_family = {
            name: {
                "squares": int(family.sum()),
                "top_errors": int((family & wrong_top).sum()),
                "towers": int((family & towers).sum()),
                "tower_height_errors": int((family & towers & wrong_height).sum()),
                "visible_towers": int((family & towers & seen).sum()),
                "visible_tower_height_errors": int((family & towers & seen & wrong_height).sum()),
                "visible_pieces": int((family & pieces).sum()),
                "visible_man_king_errors": int((family & pieces & wrong_top & ~wrong_colour).sum()),
            }
            for name, family in (("draughts", ~data.towers), ("columns", data.towers))
        }
    return Evaluation(
        squares=len(data),
        top_errors=int(wrong_top.sum()),
        towers=int(towers.sum()),
        tower_height_errors=int((wrong_height & towers).sum()),
        confusion=confusion.tolist(),
        colour_errors=int(wrong_colour.sum()),
        visible=visible,
        by_band=by_band,
        by_family=by_family,
    )


def latency_ms(
    classifier: OnnxSquareClassifier,
    crops: np.ndarray,
    views: np.ndarray | None = None,
    repeats: int = 30,
) -> float:
    """Median milliseconds for one batched call on ``crops`` (one intra-op thread)."""
    return median_ms(lambda: classifier.run(crops, views), repeats)


def median_ms(call: Callable[[], object], repeats: int = 30) -> float:
    """Median milliseconds of ``call`` over ``repeats`` calls, after one to warm up."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1000)

"""An int8 file's weights brought within the pair bound, after training.

On an x86 CPU without VNNI, onnxruntime reads int8 weights fast only where no two of them
can overflow ``vpmaddubsw``'s 16 bits: each within :data:`models.exact_int8.PAIR_BOUND`
steps of its channel's scale (docs/models.md, "Weights within 64"). Files outside it are
read there as uint8 (:mod:`models.exact_int8`), exactly and about a third slower.
:func:`bounded` rewrites a quantised file's weights onto the coarser grid: each channel's
scale grows by its largest weight over the bound, each weight is rounded onto it, and each
bias (int32, at the input's scale times the weight's) is rescaled with it, so the file
computes nearly what it did. A net trained for the bound (``python -m models.train
--bounded-weights``) loses nothing to it; a file written without it loses what 7-bit
weights lose, which the labelled photos and renders measure.

Hand-written: onnxruntime's quantiser has the grid (``reduce_range``) but only from a
float model, and the shipped files keep none.

``python -m models.pair_bound IN.onnx OUT.onnx`` writes the bounded file and copies the
card beside it.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from models.classifier import card_path
from models.exact_int8 import PAIR_BOUND, WEIGHTED_OPS


def bounded(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of the QDQ ``model`` with every int8 weight of its convolutions and matrix
    products within :data:`PAIR_BOUND` steps, per channel, and their biases to match."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    initializers = {init.name: init for init in graph.initializer}
    producer = {name: node for node in graph.node for name in node.output}

    def value(name: str) -> np.ndarray:
        return numpy_helper.to_array(initializers[name])

    def store(name: str, array: np.ndarray) -> None:
        initializers[name].CopyFrom(numpy_helper.from_array(array, name))

    for node in graph.node:
        if node.op_type not in WEIGHTED_OPS or len(node.input) < 2:
            continue
        weights = producer.get(node.input[1])
        if weights is None or weights.op_type != "DequantizeLinear":
            continue
        q, scale = value(weights.input[0]), value(weights.input[1])
        if q.dtype != np.int8:
            continue
        axis = next((a.i for a in weights.attribute if a.name == "axis"), 1)
        per_channel = np.moveaxis(q.astype(np.int32), axis, 0).reshape(q.shape[axis], -1)
        peak = np.abs(per_channel).max(axis=1).astype(np.float64)
        growth = np.maximum(peak / PAIR_BOUND, 1.0)  # each channel's new scale over its old
        shape = [1] * q.ndim
        shape[axis] = -1
        snapped = np.clip(np.round(q / growth.reshape(shape)), -PAIR_BOUND, PAIR_BOUND)
        store(weights.input[0], snapped.astype(np.int8))
        store(weights.input[1], (scale * growth).astype(np.float32))
        bias = producer.get(node.input[2]) if len(node.input) > 2 else None
        if bias is not None and bias.op_type == "DequantizeLinear":
            qb, bias_scale = value(bias.input[0]), value(bias.input[1])
            store(bias.input[0], np.round(qb / growth).astype(np.int32))
            store(bias.input[1], (bias_scale * growth).astype(np.float32))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m models.pair_bound",
        description="Write an int8 model file with its weights within the pair bound "
        "(read exactly on AVX2's fast path), its card copied beside it.",
    )
    parser.add_argument("model", type=Path, help="an int8 QDQ file (models/*.onnx)")
    parser.add_argument("out", type=Path)
    ns = parser.parse_args(argv)
    if not ns.model.is_file():
        raise SystemExit(f"model file not found: {ns.model}")
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(bounded(onnx.load(str(ns.model))), str(ns.out))
    if card_path(ns.model).is_file() and card_path(ns.model) != card_path(ns.out):
        shutil.copyfile(card_path(ns.model), card_path(ns.out))


if __name__ == "__main__":
    main()

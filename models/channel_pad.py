"""Pad an int8 model's first convolution to a multiple of four input channels.

onnxruntime's int8 convolutions (MLAS) sum products four bytes at a time; a kernel over
three colour channels (27 weights a filter) misses that path. The main file's first
convolution took 2.8 ms of its 6.5 ms reading of 50 crops on one core; padded with a
zero fourth channel, whose weights are zero, it takes 1.8 ms and every output is the same
bit for bit (docs/models.md, "Only squares that may hold a piece"). The pad is an ONNX
``Pad`` between the input's QuantizeLinear and DequantizeLinear, filled with the input's
zero point (the quantised 0.0), so the file still takes ``crops (N, 3, H, W)``.

``python -m models.channel_pad FILE...`` pads files already written; :func:`models.export.
quantise` pads each file it writes. onnxruntime's quantiser has no such option, hence
this module.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

LANES = 4
"""Input channels the int8 kernels take at once."""


def pad_first_conv(model: onnx.ModelProto, input_name: str = "crops") -> bool:
    """Pad, in place, the convolution that reads ``input_name`` (through its QuantizeLinear
    and DequantizeLinear) to a multiple of :data:`LANES` input channels. False where there
    is nothing to pad: no such convolution (a net that joins a view channel first), or its
    channels are a multiple already."""
    graph = model.graph
    producer = {out: node for node in graph.node for out in node.output}
    initializers = {init.name: init for init in graph.initializer}
    for conv in (node for node in graph.node if node.op_type == "Conv"):
        read = producer.get(conv.input[0])
        quantised = None if read is None else producer.get(read.input[0])
        if read is None or read.op_type != "DequantizeLinear" or quantised is None:
            continue
        if quantised.op_type != "QuantizeLinear" or quantised.input[0] != input_name:
            continue
        weights_node = producer[conv.input[1]]  # the weights' DequantizeLinear
        weights = numpy_helper.to_array(initializers[weights_node.input[0]])
        missing = -weights.shape[1] % LANES
        if missing == 0:
            return False
        zeros = np.zeros((weights.shape[0], missing, *weights.shape[2:]), weights.dtype)
        initializers[weights_node.input[0]].CopyFrom(
            numpy_helper.from_array(np.concatenate([weights, zeros], axis=1), weights_node.input[0])
        )
        pads_name, padded = f"{input_name}_channel_pads", f"{input_name}_channel_padded"
        pads = np.array([0, 0, 0, 0, 0, missing, 0, 0], np.int64)  # (N, C, H, W) begins, ends
        graph.initializer.append(numpy_helper.from_array(pads, pads_name))
        # Filled with the zero point: the quantised 0.0, which adds nothing to any sum.
        pad = helper.make_node(
            "Pad", [read.input[0], pads_name, read.input[2]], [padded], mode="constant"
        )
        read.input[0] = padded
        nodes = list(graph.node)
        nodes.insert(nodes.index(read), pad)
        del graph.node[:]
        graph.node.extend(nodes)
        return True
    return False


def pad_file(path: Path) -> bool:
    """:func:`pad_first_conv` on the ONNX file at ``path``, rewritten where padded."""
    model = onnx.load(str(path))
    if not pad_first_conv(model):
        return False
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.channel_pad", description=__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    for path in parser.parse_args(argv).files:
        print(f"{path}: {'padded' if pad_file(path) else 'nothing to pad'}")


if __name__ == "__main__":
    main()

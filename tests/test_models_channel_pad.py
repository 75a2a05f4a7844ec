"""models.channel_pad: a zero fourth input channel changes no output of an int8 model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)

from models.channel_pad import pad_file, pad_first_conv
from models.classifier import DEFAULT_MODEL
from models.onnx_io import open_session


class _Batches(CalibrationDataReader):  # type: ignore[misc]
    def __init__(self, batches: list[np.ndarray]) -> None:
        self._batches = [{"crops": b} for b in batches]

    def get_next(self) -> dict[str, np.ndarray] | None:
        return self._batches.pop() if self._batches else None


def _int8_colour_conv(tmp_path: Path, rng: np.random.Generator) -> Path:
    """A float model whose first convolution reads three colour channels, quantised as
    models.export quantises: static QDQ, per-channel int8 weights."""
    weights = rng.normal(0, 0.5, (8, 3, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["crops", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("Conv", ["r", "w2", "b2"], ["out"], pads=[1, 1, 1, 1]),
        ],
        "colour_conv",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 12, 12])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", 4, 12, 12])],
        [
            numpy_helper.from_array(weights, "w"),
            numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b"),
            numpy_helper.from_array(rng.normal(0, 0.3, (4, 8, 3, 3)).astype(np.float32), "w2"),
            numpy_helper.from_array(np.zeros(4, np.float32), "b2"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    fp32, int8 = tmp_path / "fp32.onnx", tmp_path / "int8.onnx"
    onnx.save(model, str(fp32))
    calibration = [rng.uniform(-1, 1, (16, 3, 12, 12)).astype(np.float32) for _ in range(4)]
    quantize_static(
        str(fp32),
        str(int8),
        _Batches(calibration),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        weight_type=QuantType.QInt8,
        activation_type=QuantType.QUInt8,
    )
    return int8


def _run(path: Path, crops: np.ndarray) -> np.ndarray:
    """As the shipped readers read a file: exactly, also where the CPU's int8 kernels
    saturate (models.exact_int8), which they do differently over three channels and four."""
    session = open_session(path, "this test")
    out: np.ndarray = session.run(None, {"crops": crops})[0]
    return out


def _first_conv_channels(path: Path) -> int:
    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    first = next(n for n in model.graph.node if n.op_type == "Conv")
    dequantise = next(n for n in model.graph.node if n.output[0] == first.input[1])
    return int(weights[dequantise.input[0]].shape[1])


def test_a_padded_first_convolution_gives_every_output_bit_for_bit(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    int8 = _int8_colour_conv(tmp_path, rng)
    crops = rng.uniform(-1, 1, (20, 3, 12, 12)).astype(np.float32)
    before = _run(int8, crops)
    assert _first_conv_channels(int8) == 3

    assert pad_file(int8)

    assert _first_conv_channels(int8) == 4
    assert np.array_equal(_run(int8, crops), before)
    assert not pad_file(int8)  # a multiple of four already: nothing more to pad


def test_the_shipped_main_file_reads_its_colours_through_four_channels() -> None:
    """Its first convolution was padded (python -m models.channel_pad), so the int8
    kernels' fast path reads it; the file still takes three colour channels."""
    assert _first_conv_channels(DEFAULT_MODEL) == 4
    assert not pad_first_conv(onnx.load(str(DEFAULT_MODEL)))
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    assert session.get_inputs()[0].shape[1] == 3

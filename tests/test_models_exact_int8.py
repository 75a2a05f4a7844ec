"""The shipped int8 files read the same on every CPU (models/exact_int8.py): on an x86 CPU
without VNNI onnxruntime's int8 kernels saturate, and the labelled photos read with 7
errors, not 6; stored as uint8 around 128, the same weights take kernels that do not.
Weights within the pair bound (models/pair_bound.py) cannot saturate: read as written."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

from models.classifier import DEFAULT_MODEL
from models.exact_int8 import PAIR_BOUND, float_tensors, saturating, with_unsigned_weights
from models.pair_bound import bounded


@pytest.mark.parametrize(
    ("machine", "flags", "saturates"),
    [
        ("x86_64", "fpu sse2 avx avx2 fma", True),  # AVX2 alone: vpmaddubsw
        ("x86_64", "avx2 avx512f avx512_vnni", False),
        ("AMD64", "avx2 avx_vnni", False),
        ("x86_64", None, True),  # unknown: read exactly
        ("aarch64", "fp asimd asimddp", False),  # the Pi's dot products are exact
    ],
)
def test_which_cpus_saturate(machine: str, flags: str | None, saturates: bool) -> None:
    assert saturating(machine, flags) is saturates


@pytest.mark.parametrize("name", ["square_classifier", "square_kings", "square_columns"])
def test_unsigned_weights_are_the_same_numbers_in_the_same_model(name: str) -> None:
    data = (DEFAULT_MODEL.parent / f"{name}.onnx").read_bytes()
    converted = with_unsigned_weights(data, keep_bounded=False)
    assert converted is not None
    before, after = onnx.load_from_string(data), onnx.load_from_string(converted)
    kinds = {numpy_helper.to_array(i).dtype.name for i in after.graph.initializer}
    assert "int8" not in kinds and "uint8" in kinds
    values, shifted = float_tensors(before), float_tensors(after)
    dequantised = [k for k in values if k.endswith("DequantizeLinear_Output")]
    assert dequantised
    for key in dequantised:
        assert (shifted[key] == values[key]).all(), key
    # everything else as it was: nodes, inputs, outputs, the rest of the initializers
    assert after.graph.node == before.graph.node
    assert after.graph.input == before.graph.input and after.graph.output == before.graph.output
    untouched = {i.name for i in before.graph.initializer if i.data_type != onnx.TensorProto.INT8}
    for old, new in zip(before.graph.initializer, after.graph.initializer, strict=True):
        assert old.name == new.name
        if old.name in untouched:
            assert old == new


def test_a_float_model_is_left_as_it_is() -> None:
    assert with_unsigned_weights((DEFAULT_MODEL.parent / "square_towers.onnx").read_bytes()) is None


def _int8_weights(model: onnx.ModelProto) -> list[np.ndarray]:
    return [w for w in map(numpy_helper.to_array, model.graph.initializer) if w.dtype == np.int8]


@pytest.mark.parametrize("name", ["square_classifier", "square_kings", "square_columns"])
def test_bounded_weights_are_read_as_written_and_read_as_their_uint8_copy_does(name: str) -> None:
    original = onnx.load(DEFAULT_MODEL.parent / f"{name}.onnx")
    model = bounded(original)
    weights = _int8_weights(model)
    assert weights and all(np.abs(w.astype(int)).max() <= PAIR_BOUND for w in weights)
    data = model.SerializeToString()
    assert with_unsigned_weights(data) is None
    unsigned = with_unsigned_weights(data, keep_bounded=False)
    assert unsigned is not None
    # crops of every brightness, from black to white: the activations that saturate
    rng = np.random.default_rng(7)
    level = rng.uniform(-1, 1, (64, 1, 1, 1))
    crops = np.clip(level + rng.normal(0, 0.3, (64, 3, 48, 48)), -1, 1).astype(np.float32)
    views = rng.uniform(0, 2, (64, 1)).astype(np.float32)
    readings = []
    for file in (data, unsigned):
        session = ort.InferenceSession(file, providers=["CPUExecutionProvider"])
        feed = {i.name: crops if i.name == "crops" else views for i in session.get_inputs()}
        readings.append(session.run(None, feed))
    for out, same in zip(*readings, strict=True):
        np.testing.assert_array_equal(out, same)  # exact on every CPU


def test_the_shipped_main_and_kings_files_lie_within_the_bound_and_the_columns_file_not() -> None:
    # the board's two files take AVX2's fast path (docs/models.md, "Weights within 64");
    # bounded after training, the columns file read its towers worse, so it stays as it was
    for name, within in (
        ("square_classifier", True),
        ("square_kings", True),
        ("square_columns", False),
    ):
        data = (DEFAULT_MODEL.parent / f"{name}.onnx").read_bytes()
        assert (with_unsigned_weights(data) is None) is within, name


def test_bounding_moves_each_weight_and_bias_by_at_most_half_its_new_step() -> None:
    original = onnx.load(DEFAULT_MODEL.parent / "square_columns.onnx")
    model = bounded(original)
    before, after = float_tensors(original), float_tensors(model)
    scales = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    moved = 0
    for node in original.graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in scales:
            continue
        step = scales[node.input[1]]
        if step.ndim == 1 and step.size > 1:  # per output channel, as the weights' axis 0
            step = step.reshape(-1, *[1] * (before[node.output[0]].ndim - 1))
        change = np.abs(after[node.output[0]] - before[node.output[0]])
        assert np.all(change <= step / 2 * (1 + 1e-5)), node.output[0]
        moved += int(np.any(change > 0))
    assert moved >= 8  # every convolution's and linear layer's weights, and their biases


def test_a_file_within_the_bound_stays_as_it_is() -> None:
    once = bounded(onnx.load(DEFAULT_MODEL.parent / "square_columns.onnx"))
    values, again = float_tensors(once), float_tensors(bounded(once))
    assert again.keys() == values.keys()
    for key, value in values.items():
        np.testing.assert_array_equal(again[key], value, err_msg=key)

"""The shipped int8 files read the same on every CPU (models/exact_int8.py): on an x86 CPU
without VNNI onnxruntime's int8 kernels saturate, and the labelled photos read with 7
errors, not 6; stored as uint8 around 128, the same weights take kernels that do not."""

from __future__ import annotations

import onnx
import pytest
from onnx import numpy_helper

from models.classifier import DEFAULT_MODEL
from models.exact_int8 import float_tensors, saturating, with_unsigned_weights


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
    converted = with_unsigned_weights(data)
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

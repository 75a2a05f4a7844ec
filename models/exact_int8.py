"""int8 model files that read the same on every CPU.

onnxruntime's int8 kernels (MLAS) multiply uint8 activations by int8 weights. With VNNI
(x86) or the dot-product instructions (ARM64, the Pi) every product is summed into 32
bits, exactly. An x86 CPU without VNNI (AVX2 alone: the AMD EPYC of session 36) adds
pairs of products into 16 bits first (``vpmaddubsw``), which saturates, and the shipped
files read otherwise there: the labelled photos calibrated with 7 errors in 1,088
squares, not 6 (docs/models.md, "The same readings on every CPU"). The same weights
stored as uint8 around a zero point of 128 are the same numbers, and take MLAS's uint8
by uint8 kernels, which widen to 16 bits before they multiply and do not saturate: the
exact readings, and no slower there. Where the int8 kernels are exact the files are read
as written (their symmetric convolutions are the fast path there), and so is a file whose
weights all lie within :data:`PAIR_BOUND`: no pair of them can saturate, and the fast path
reads it exactly on AVX2 too, about a third faster (docs/models.md, "Weights within 64").

Hand-written: onnxruntime has no option for it, and its quantiser's remedy for such CPUs
(``reduce_range``, 7-bit weights) loses precision when applied to a trained model (8
errors on the same photos); a model trained for it (``models.train --bounded-weights``)
does not, and is the bounded case above. The
file is rewritten through protobuf (onnxruntime's own dependency), not the onnx package.
"""

from __future__ import annotations

import functools
import platform
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

if TYPE_CHECKING:
    import onnx

X86 = {"x86_64", "amd64", "i386", "i686"}
VNNI = re.compile(r"\b(avx512_vnni|avx_vnni)\b")
ZERO_SHIFT = 128
"""int8 -> uint8 around this zero point: the same values."""
PAIR_BOUND = 64
"""Largest int8 weight whose products MLAS's AVX2 kernels add in pairs without saturating."""
WEIGHTED_OPS = ("Conv", "Gemm", "MatMul")
"""The operators whose weights (a DequantizeLinear of an int8 initializer) MLAS multiplies."""
INT8, UINT8 = 3, 2
"""ONNX's TensorProto.DataType numbers."""


def saturating(machine: str, cpu_flags: str | None) -> bool:
    """Whether int8 kernels saturate on a CPU of ``machine`` (``platform.machine()``) with
    ``cpu_flags`` (``/proc/cpuinfo``'s; None where unknown, then taken to saturate on x86)."""
    if machine.lower() not in X86:
        return False
    return cpu_flags is None or VNNI.search(cpu_flags) is None


@functools.cache
def _cpuinfo() -> str | None:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return None


def this_cpu_saturates() -> bool:
    """:func:`saturating` for the CPU this runs on."""
    return saturating(platform.machine(), _cpuinfo())


def cpu_name() -> str:
    """This CPU's model name (``/proc/cpuinfo``), else the platform's word for it: timings
    mean little without it (the same files ran 10 ms on one machine, 38 on another)."""
    found = re.search(r"^model name\s*:\s*(.+)$", _cpuinfo() or "", re.MULTILINE)
    return found.group(1).strip() if found else platform.processor() or platform.machine()


def readable(path: Path) -> str | bytes:
    """What onnxruntime should read for the file ``path``: the path itself, or where this
    CPU's int8 kernels saturate and the file has int8 weights, the file with unsigned
    weights (:func:`with_unsigned_weights`)."""
    if not this_cpu_saturates():
        return str(path)
    converted = with_unsigned_weights(path.read_bytes())
    return str(path) if converted is None else converted


def reads_as_uint8(path: Path) -> bool:
    """Whether :func:`readable` rewrites the file at ``path`` on this CPU (a bench reports
    it: the rewritten files take the slower exact kernels)."""
    return this_cpu_saturates() and with_unsigned_weights(path.read_bytes()) is not None


def with_unsigned_weights(model: bytes, keep_bounded: bool = True) -> bytes | None:
    """The serialised ONNX ``model`` with the int8 weights of its convolutions and matrix
    products (a QDQ file's DequantizeLinear of an initializer) stored as uint8 around
    :data:`ZERO_SHIFT`, the zero points with them; None where it has none (a float model)
    or, with ``keep_bounded``, where every one lies within :data:`PAIR_BOUND` (read
    exactly as written).

    Read and written through :func:`_onnx_subset`, not the onnx package, whose import
    (ml_dtypes' 2 s here) alone would break the model's 1 s load."""
    parsed = _onnx_subset()()
    parsed.ParseFromString(model)
    graph = parsed.graph
    initializers = {init.name: init for init in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    found = []
    for node in graph.node:
        if node.op_type not in WEIGHTED_OPS or len(node.input) < 2:
            continue
        weights = producer.get(node.input[1])
        if weights is None or weights.op_type != "DequantizeLinear" or len(weights.input) < 3:
            continue
        tensors = [initializers.get(name) for name in (weights.input[0], weights.input[2])]
        if any(t is None or t.data_type != INT8 for t in tensors):
            continue
        found.append(tensors)
    if not found or (keep_bounded and all(_within_pair_bound(w) for w, _ in found)):
        return None
    for tensors in found:
        for tensor in tensors:
            _shift_to_uint8(tensor)
    out: bytes = parsed.SerializeToString()
    return out


def _within_pair_bound(tensor: Any) -> bool:
    """Whether no two of an int8 TensorProto's weights can overflow ``vpmaddubsw``'s
    16 bits: every one within :data:`PAIR_BOUND`, so that 255 times any two is at most
    32,640."""
    return bool(np.all(np.abs(_int8_values(tensor).astype(np.int16)) <= PAIR_BOUND))


def _int8_values(tensor: Any) -> np.ndarray:
    """An int8 TensorProto's values: its bytes, or its values kept one to an int32 (how
    ONNX stores small tensors)."""
    if tensor.raw_data:
        return np.frombuffer(tensor.raw_data, np.int8)
    return np.asarray(tensor.int32_data, np.int8)


def _shift_to_uint8(tensor: Any) -> None:
    """An int8 TensorProto, in place, as uint8 :data:`ZERO_SHIFT` higher, stored as it was
    (:func:`_int8_values`)."""
    shifted = _int8_values(tensor).astype(np.int16) + ZERO_SHIFT
    if tensor.raw_data:
        tensor.raw_data = shifted.astype(np.uint8).tobytes()
    else:
        del tensor.int32_data[:]
        tensor.int32_data.extend(shifted.tolist())
    tensor.data_type = UINT8


@functools.cache
def _onnx_subset() -> Any:
    """A protobuf message class for an ONNX model that knows only the fields read here (the
    graph's nodes' inputs, outputs and op types; its initializers' names, types and
    values). protobuf keeps every other field as it parsed it and writes it back, so a
    model read and written through it is the same model (tested). Built from a
    descriptor, since onnx's generated classes come only with the onnx package."""
    field = descriptor_pb2.FieldDescriptorProto
    one, many = field.LABEL_OPTIONAL, field.LABEL_REPEATED

    def message(name: str, fields: list[tuple[str, int, int, int, str]]) -> Any:
        proto = descriptor_pb2.DescriptorProto(name=name)
        for field_name, number, kind, label, type_name in fields:
            added = proto.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                added.type_name = f".damcam_onnx.{type_name}"
        return proto

    file = descriptor_pb2.FileDescriptorProto(
        name="damcam_onnx_subset.proto", package="damcam_onnx", syntax="proto2"
    )
    file.message_type.extend(
        [
            message(
                "Tensor",
                [
                    ("data_type", 2, field.TYPE_INT32, one, ""),
                    ("int32_data", 5, field.TYPE_INT32, many, ""),
                    ("name", 8, field.TYPE_STRING, one, ""),
                    ("raw_data", 9, field.TYPE_BYTES, one, ""),
                ],
            ),
            message(
                "Node",
                [
                    ("input", 1, field.TYPE_STRING, many, ""),
                    ("output", 2, field.TYPE_STRING, many, ""),
                    ("op_type", 4, field.TYPE_STRING, one, ""),
                ],
            ),
            message(
                "Graph",
                [
                    ("node", 1, field.TYPE_MESSAGE, many, "Node"),
                    ("initializer", 5, field.TYPE_MESSAGE, many, "Tensor"),
                ],
            ),
            message("Model", [("graph", 7, field.TYPE_MESSAGE, one, "Graph")]),
        ]
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("damcam_onnx.Model"))


def float_tensors(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Every initializer by name, and every DequantizeLinear of initializers, dequantised."""
    from onnx import numpy_helper

    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in values:
            continue
        q, scale, zero = (values[name] for name in node.input[:3])
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        if scale.ndim == 1 and scale.size > 1:  # per channel along ``axis``
            shape = [1] * q.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        values[node.output[0]] = (q.astype(np.float32) - zero.astype(np.float32)) * scale
    return {k: np.asarray(v, np.float32) for k, v in values.items()}

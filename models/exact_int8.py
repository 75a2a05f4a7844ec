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
as written (their symmetric convolutions are the fast path there).

Hand-written: onnxruntime has no option for it, and its quantiser's remedy for such CPUs
(``reduce_range``, 7-bit weights) loses precision (8 errors on the same photos).
"""

from __future__ import annotations

import functools
import platform
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

X86 = {"x86_64", "amd64", "i386", "i686"}
VNNI = re.compile(r"\b(avx512_vnni|avx_vnni)\b")
ZERO_SHIFT = 128
"""int8 -> uint8 around this zero point: the same values."""


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
    weights (:func:`unsigned_weights`). onnx is imported only then: the Pi needs none."""
    if not this_cpu_saturates():
        return str(path)
    import onnx

    model = onnx.load(str(path))
    return model.SerializeToString() if unsigned_weights(model) else str(path)


def unsigned_weights(model: onnx.ModelProto) -> bool:
    """Store, in place, the int8 weights of ``model``'s convolutions and matrix products
    (a QDQ file's DequantizeLinear of an initializer) as uint8 around :data:`ZERO_SHIFT`.
    False where it has none (a float model)."""
    from onnx import numpy_helper

    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    changed = False
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm", "MatMul") or len(node.input) < 2:
            continue
        weights = producer.get(node.input[1])
        if weights is None or weights.op_type != "DequantizeLinear":
            continue
        names = list(weights.input[:3])
        if len(names) < 3 or not all(name in initializers for name in names[::2]):
            continue
        values, zero = (numpy_helper.to_array(initializers[name]) for name in names[::2])
        if values.dtype != np.int8:
            continue
        for name, array in ((names[0], values), (names[2], zero)):
            shifted = (array.astype(np.int16) + ZERO_SHIFT).astype(np.uint8)
            initializers[name].CopyFrom(numpy_helper.from_array(shifted, name))
        changed = True
    return changed


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

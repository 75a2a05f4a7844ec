"""Torch weights from a shipped ONNX model, to fine-tune it when its checkpoint is gone.

The export folded each BatchNorm into its convolution and the int8 file keeps weights as
int8 with per-channel scales. :func:`net_from_onnx` dequantises them into a
:class:`SquareNet` and rebuilds each BatchNorm so that it computes the folded layer: its
running statistics are those of the convolution's output on sample crops, and its scale
and shift undo them. In eval mode the net then reads as the file does (up to rounding);
in training mode a batch's statistics are close to the running ones, so fine-tuning
starts where the shipped model stands rather than from a disturbed copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn

from models.classifier import to_input
from models.exact_int8 import float_tensors
from models.net import SquareNet, conv_norm_pairs


def _unpadded(weight: np.ndarray, channels: int) -> np.ndarray:
    """A convolution's weights without the zero input channels that
    :mod:`models.channel_pad` adds past the net's ``channels``."""
    if weight.shape[1] > channels and not weight[:, channels:].any():
        return weight[:, :channels]
    return weight


def _stride(conv: onnx.NodeProto) -> int:
    """A convolution node's stride (1 where the node gives none)."""
    for attribute in conv.attribute:
        if attribute.name == "strides":
            return int(onnx.helper.get_attribute_value(attribute)[0])
    return 1


def net_from_onnx(
    path: Path,
    sample_crops: np.ndarray,
    sample_views: np.ndarray | None = None,
    *,
    stem_stride: int | None = None,
    second_stride: int | None = None,
) -> SquareNet:
    """A :class:`SquareNet` that reads as the ONNX file at ``path`` does.

    ``sample_crops``: ``(N, H, W, 3)`` uint8 crops (a few hundred) for the BatchNorm
    statistics, with their view tangents ``sample_views (N,)`` where the file reads them
    (a kings model). Outputs the net does not have (a crown probe's) are left behind.
    ``stem_stride`` re-strides the first convolution (None: the file's), so that a fine
    file seeds a coarse net; each BatchNorm's statistics are then those at the new
    stride, and the net reads near the file, not as it; ``second_stride`` likewise the
    second block's first convolution (:class:`SquareNet`). Raises ``ValueError`` when the
    file's layers do not match the net.
    """
    model = onnx.load(str(path))
    values = float_tensors(model)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    reads_views = any(i.name == "views" for i in model.graph.input)
    if reads_views and sample_views is None:
        raise ValueError(f"{path} reads view tangents: give the sample crops' views")
    if not convs:
        raise ValueError(f"{path}: no convolutions, not a SquareNet")
    # the stem is one convolution (fine_convs 1), so the second block starts at convs[1]
    net = SquareNet(
        views=reads_views,
        stem_stride=stem_stride or _stride(convs[0]),
        stem_channels=int(values[convs[0].input[1]].shape[0]),
        second_stride=second_stride or (_stride(convs[1]) if len(convs) > 1 else 1),
    )
    pairs = conv_norm_pairs(net)
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, SquareNet has {len(pairs)}")
    x = torch.from_numpy(to_input(sample_crops))
    v = None
    if reads_views:
        v = torch.from_numpy(np.asarray(sample_views, np.float32))[:, None]
    net.eval()
    captured: list[torch.Tensor] = []
    with torch.no_grad():
        for (conv, norm), node in zip(pairs, convs, strict=True):
            weight, bias = values[node.input[1]], values[node.input[2]]
            weight = _unpadded(weight, conv.in_channels)
            if tuple(weight.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: conv {node.name} is {weight.shape}")
            conv.weight.copy_(torch.from_numpy(weight))
            # The conv's output on the samples, through the layers already set.
            captured.clear()
            hook = conv.register_forward_hook(lambda _m, _i, out: captured.append(out))
            net(x, v)
            hook.remove()
            out = captured[0]
            mean = out.mean(dim=(0, 2, 3))
            var = out.var(dim=(0, 2, 3), unbiased=False)
            assert norm.running_mean is not None and norm.running_var is not None
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(mean + torch.from_numpy(bias))
        for linear, prefix in (
            (net.embed[2], "embed.2."),
            (net.top_head, "top_head."),
            (net.height_head, "height_head."),
        ):
            assert isinstance(linear, nn.Linear)
            node = next((g for g in gemms if g.input[1].startswith(prefix)), None)
            if node is None:
                raise ValueError(f"{path}: no Gemm with weights {prefix}weight")
            weight, bias = values[node.input[1]], values[node.input[2]]
            transposed = any(a.name == "transB" and a.i == 1 for a in node.attribute)
            linear.weight.copy_(torch.from_numpy(weight if transposed else weight.T))
            linear.bias.copy_(torch.from_numpy(bias))
    return net

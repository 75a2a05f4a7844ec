"""The square classifier network: a tiny CNN over one square's crop, two heads.

Needs torch (the optional ``train`` extra); inference never imports this module, it runs
the exported ONNX file through onnxruntime (:mod:`models.classifier`).
"""

from __future__ import annotations

import itertools

import torch
from torch import nn
from torch.nn.utils import parametrize

from models.exact_int8 import PAIR_BOUND

TOP_CLASSES = 5
"""Logits over :class:`rules.observation.Top`, in its order (EMPTY first)."""

HEIGHT_CLASSES = 9
"""Stack height as classes 0..8: 0 is an empty square, 8 means 8 or more discs."""

FEATURE_SIZE = 64
"""Length of the penultimate feature vector (the per-set prototypes live in this space)."""


def conv_layers(c_in: int, c_out: int, stride: int = 1) -> list[nn.Module]:
    """A 3x3 convolution, its BatchNorm (folded into it at export) and a ReLU."""
    conv = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
    return [conv, nn.BatchNorm2d(c_out), nn.ReLU()]


def _block(
    c_in: int, c_out: int, *, convs: int, stride: int = 1, pool: bool = True
) -> nn.Sequential:
    layers = conv_layers(c_in, c_out, stride)
    for _ in range(convs - 1):
        layers += conv_layers(c_out, c_out)
    return nn.Sequential(*layers, nn.MaxPool2d(2)) if pool else nn.Sequential(*layers)


class SquareNet(nn.Module):
    """Input ``(N, 3, H, W)`` float BGR (OpenCV order) scaled to [-1, 1]; H and W divisible by 8.

    Returns ``(top_logits (N, 5), height_logits (N, 9), features (N, 64))``. The features
    are exported too, so a start-position frame can set per-set class prototypes.

    With ``views``, a second input ``(N, 1)``: each cell's view tangent
    (:func:`vision.camera.view_tangents`), the side band one disc shows per unit of disc
    height. A crop cut on the board plane cannot tell a one-disc stack under a steep
    camera from a two-disc one under a gentle camera; the tangent can. It enters as a
    constant fourth channel (every layer may weigh the band against it) and beside the
    features at the heads.

    ``stem_stride`` 2 makes a coarse net: its first convolution samples every other
    pixel, so each later one runs on a quarter of the positions, about 2.4 M
    multiply-adds a crop, four times fewer. Meant for the main file, which beside a kings
    model says only empty, White or Black and gives the prototypes' features. With the
    usual 16 ``stem_channels`` it read the renders as well but lost the real photos' tall
    men seen from low (docs/models.md, "A coarse main file"); with 32 (about 3.1 M) it
    reads them as the full net does, the renders a little worse, and takes 30% off a board's
    cost here: the shipped main file since session 41 (docs/models.md, "The wide coarse
    main file, shipped").
    """

    def __init__(
        self,
        *,
        views: bool = False,
        fine_convs: int = 1,
        stem_stride: int = 1,
        stem_channels: int = 16,
        second_stride: int = 1,
    ) -> None:
        super().__init__()
        if fine_convs < 1:
            raise ValueError(f"fine_convs {fine_convs}: the net needs at least one convolution")
        self.views = views
        self.fine_convs = fine_convs
        self.stem_stride = stem_stride
        self.stem_channels = stem_channels
        self.second_stride = second_stride
        # One conv at full resolution (it dominates the cost), two at each smaller scale:
        # about 9 M multiply-adds per 48x48 crop, 50 crops in a few ms on one core. Each
        # more at full resolution (``fine_convs``) adds 5 M, to measure a side band of
        # 1-3 pixels per disc before the first pooling (kings model run 6, docs/models.md).
        self.body = nn.Sequential(
            _block(4 if views else 3, stem_channels, convs=fine_convs, stride=stem_stride),
            _block(stem_channels, 24, convs=2, stride=second_stride),
            # every net ends on a 6x6 map: a strided one's last block already runs at 6x6
            _block(24, 40, convs=2, pool=stem_stride * second_stride == 1),
        )
        self.embed = nn.Sequential(
            nn.AdaptiveAvgPool2d(2),
            nn.Flatten(),
            nn.Linear(40 * 4, FEATURE_SIZE),
            nn.ReLU(),
        )
        heads_in = FEATURE_SIZE + (1 if views else 0)
        self.top_head = nn.Linear(heads_in, TOP_CLASSES)
        self.height_head = nn.Linear(heads_in, HEIGHT_CLASSES)

    def body_input(self, x: torch.Tensor, views: torch.Tensor | None) -> torch.Tensor:
        """The crops, and for a net that reads them the view tangents as a constant
        fourth channel."""
        if not self.views:
            return x
        if views is None:
            raise ValueError("this net reads view tangents beside the crops")
        plane = views[:, :, None, None].expand(-1, 1, x.shape[2], x.shape[3])
        return torch.cat([x, plane], dim=1)

    def forward(
        self, x: torch.Tensor, views: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        features = self.embed(self.body(self.body_input(x, views)))
        heads_in = features if views is None else torch.cat([features, views], dim=1)
        return self.top_head(heads_in), self.height_head(heads_in), features


def with_views(net: SquareNet) -> SquareNet:
    """A :class:`SquareNet` with the ``views`` input that reads exactly as ``net`` does
    until trained: the tangent's new weights start at zero."""
    out = SquareNet(views=True, **shape(net))
    state = net.state_dict()
    for name, value in out.state_dict().items():
        old = state[name]
        if old.shape != value.shape:  # the first conv's and the heads' extra input
            widened = torch.zeros_like(value)
            widened[:, : old.shape[1]] = old
            old = widened
        value.copy_(old)
    return out


def shape(net: SquareNet, **changes: int) -> dict[str, int]:
    """``net``'s layout as :class:`SquareNet` keyword arguments (strides, widths, fine
    convolutions), with ``changes``: a copy of the net with one thing changed."""
    layout = {
        "fine_convs": net.fine_convs,
        "stem_stride": net.stem_stride,
        "stem_channels": net.stem_channels,
        "second_stride": net.second_stride,
    }
    return layout | changes


def fine_conv_count(state: dict[str, torch.Tensor]) -> int:
    """How many convolutions a :class:`SquareNet` state has at full resolution."""
    return sum(1 for k, v in state.items() if k.startswith("body.0.") and v.ndim == 4)


@torch.no_grad()
def deepened(
    net: SquareNet, fine_convs: int, sample: torch.Tensor, views: torch.Tensor | None
) -> SquareNet:
    """``net`` with more convolutions at full resolution, each added one starting as the
    identity (a Dirac kernel, its BatchNorm set to undo the batch statistics of its input
    on ``sample``), so the deeper net first reads as ``net`` does (a network morphism:
    training starts from what ``net`` learnt rather than from scratch)."""
    old = net.fine_convs
    if fine_convs <= old:
        return net
    out = SquareNet(views=net.views, **shape(net, fine_convs=fine_convs))
    out.load_state_dict(net.state_dict(), strict=False)  # the added layers' keys are new
    out.eval()  # the old layers' running statistics give the added ones their input
    block = out.body[0]
    assert isinstance(block, nn.Sequential)
    x = block[: 3 * old](net.body_input(sample, views))  # the added convs' input
    mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3))
    for conv, norm in conv_norm_pairs(out)[old:fine_convs]:  # the first block's added ones
        nn.init.dirac_(conv.weight)
        assert norm.running_mean is not None and norm.running_var is not None
        norm.weight.copy_(var.add(norm.eps).sqrt())
        norm.bias.copy_(mean)
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
    return out


def conv_norm_pairs(net: SquareNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """The body's convolutions, each with the BatchNorm after it (the ONNX export folds
    each pair into one convolution)."""
    modules = list(net.body.modules())
    return [
        (conv, norm)
        for conv, norm in itertools.pairwise(modules)
        if isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d)
    ]


def parameter_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


class _OnPairBoundGrid(nn.Module):
    """A weight rounded, per output channel, onto the grid whose largest step count is
    :data:`models.exact_int8.PAIR_BOUND`: the int8 values the quantiser writes for it with
    ``reduce_range`` (:func:`models.export.quantise`). The gradient passes straight
    through the rounding (quantisation-aware training). A convolution's BatchNorm scales
    each output channel, which moves no weight off its channel's grid, so the folded
    weights the export writes lie on it too."""

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        peak = weight.detach().flatten(1).abs().amax(dim=1).clamp_min(1e-12)
        step = (peak / PAIR_BOUND).reshape(-1, *([1] * (weight.dim() - 1)))
        snapped = torch.round(weight / step) * step
        return weight + (snapped - weight).detach()


def _weighted_layers(net: nn.Module) -> list[nn.Module]:
    return [m for m in net.modules() if isinstance(m, nn.Conv2d | nn.Linear)]


def bound_weights(net: SquareNet) -> SquareNet:
    """``net``, in place, with every convolution's and linear layer's weights read on their
    pair-bound grid (:class:`_OnPairBoundGrid`) while it trains; :func:`baked` writes the
    snapped values into them for the export."""
    for layer in _weighted_layers(net):
        parametrize.register_parametrization(layer, "weight", _OnPairBoundGrid())
    return net


def baked(net: SquareNet) -> SquareNet:
    """``net``, in place, with each bound weight (:func:`bound_weights`) replaced by its
    snapped values: an ordinary net again, whose checkpoint loads as any other."""
    for layer in _weighted_layers(net):
        if parametrize.is_parametrized(layer, "weight"):
            parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
    return net


def plain_state(net: nn.Module) -> dict[str, torch.Tensor]:
    """``net``'s state with each bound weight under its own name (its values before
    snapping), as a net of the same layout loads it: a checkpoint cut short mid-run."""
    return {
        key.replace("parametrizations.weight.original", "weight"): value
        for key, value in net.state_dict().items()
    }

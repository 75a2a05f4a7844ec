"""The square classifier network: a tiny CNN over one square's crop, two heads.

Needs torch (the optional ``train`` extra); inference never imports this module, it runs
the exported ONNX file through onnxruntime (:mod:`models.classifier`).
"""

from __future__ import annotations

import torch
from torch import nn

TOP_CLASSES = 5
"""Logits over :class:`rules.observation.Top`, in its order (EMPTY first)."""

HEIGHT_CLASSES = 9
"""Stack height as classes 0..8: 0 is an empty square, 8 means 8 or more discs."""

FEATURE_SIZE = 64
"""Length of the penultimate feature vector (the per-set prototypes live in this space)."""


def _conv(c_in: int, c_out: int) -> list[nn.Module]:
    return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]


def _block(c_in: int, c_out: int, *, convs: int) -> nn.Sequential:
    layers = _conv(c_in, c_out)
    for _ in range(convs - 1):
        layers += _conv(c_out, c_out)
    return nn.Sequential(*layers, nn.MaxPool2d(2))


class SquareNet(nn.Module):
    """Input ``(N, 3, H, W)`` float BGR (OpenCV order) scaled to [-1, 1]; H and W divisible by 8.

    Returns ``(top_logits (N, 5), height_logits (N, 9), features (N, 64))``. The features
    are exported too, so a start-position frame can set per-set class prototypes.
    """

    def __init__(self) -> None:
        super().__init__()
        # One conv at full resolution (it dominates the cost), two at each smaller scale:
        # about 9 M multiply-adds per 48x48 crop, 50 crops in a few ms on one core.
        self.body = nn.Sequential(
            _block(3, 16, convs=1), _block(16, 24, convs=2), _block(24, 40, convs=2)
        )
        self.embed = nn.Sequential(
            nn.AdaptiveAvgPool2d(2),
            nn.Flatten(),
            nn.Linear(40 * 4, FEATURE_SIZE),
            nn.ReLU(),
        )
        self.top_head = nn.Linear(FEATURE_SIZE, TOP_CLASSES)
        self.height_head = nn.Linear(FEATURE_SIZE, HEIGHT_CLASSES)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        features = self.embed(self.body(x))
        return self.top_head(features), self.height_head(features), features


def parameter_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())

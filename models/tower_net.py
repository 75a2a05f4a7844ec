"""The tower reader's network: a small CNN over one band strip that says how many discs
the stack has.

Needs torch (the optional ``train`` extra); inference runs the exported ONNX file
(:mod:`models.towers`).
"""

from __future__ import annotations

import torch
from torch import nn

from models.dataset import FULL_TOWER
from models.net import conv_layers
from rules.observation import Top
from vision.band import BAND, BandWindow

TOWER_CLASSES = FULL_TOWER + 1
"""Stack heights the reader tells apart: 0 (an empty square) to the full tower."""


class TowerNet(nn.Module):
    """Input ``(N, 3, rows, cols)`` float BGR in [-1, 1] (:func:`vision.band.band_strips`)
    and ``views (N, 1)``; returns ``height_logits (N, 25)`` over 0..24 discs (the full
    tower) and ``top_logits (N, 5)`` over :class:`rules.observation.Top`: a tall tower's
    top lies past the square crop's far edge, but on the strip.

    The strip shows each disc of band the same number of rows tall, so the height is a
    length along the strip: the body pools the columns away three times as fast as the
    rows (rows ``rows / 4``, columns ``cols / 12``), and a dense layer over the remaining
    rows reads where the band starts and ends. The view tangent enters as a constant
    fourth channel and beside the dense layer, as in :class:`models.net.SquareNet`: a
    strip stretched at the least view (:attr:`vision.band.BandWindow.min_view`) holds
    fewer rows per disc.
    """

    def __init__(self, window: BandWindow = BAND) -> None:
        super().__init__()
        if window.rows % 4 or window.cols % 12:
            raise ValueError(f"strips of {window.rows}x{window.cols}: rows must divide by 4, "
                             "columns by 12")  # fmt: skip
        self.body = nn.Sequential(
            *conv_layers(4, 16),
            nn.MaxPool2d(2),
            *conv_layers(16, 32),
            *conv_layers(32, 32),
            nn.MaxPool2d(2),
            *conv_layers(32, 48),
            *conv_layers(48, 48),
            nn.MaxPool2d((1, 3)),
        )
        self.dense = nn.Sequential(
            nn.Flatten(), nn.Linear(48 * (window.rows // 4) * (window.cols // 12), 96), nn.ReLU()
        )
        self.height_head = nn.Linear(96 + 1, TOWER_CLASSES)
        self.top_head = nn.Linear(96 + 1, len(Top))

    def forward(
        self, strips: torch.Tensor, views: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        plane = views[:, :, None, None].expand(-1, 1, strips.shape[2], strips.shape[3])
        features = self.dense(self.body(torch.cat([strips, plane], dim=1)))
        features = torch.cat([features, views], dim=1)
        return self.height_head(features), self.top_head(features)

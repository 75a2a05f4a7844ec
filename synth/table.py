"""Images for surfaces beside the board: the table top's texture and a written scoresheet.

Both are drawn once per look and cached by the renderer as textures; the table's tiles
across the floor of the scene (``TABLE_TILE_MM`` per repeat).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

TABLE_TILE_MM = 600.0
"""World size of one repeat of the table texture."""
TABLE_PX = 512
SHEET_PX = (296, 420)
_INKS: tuple[tuple[float, float, float], ...] = ((0.15, 0.2, 0.55), (0.1, 0.1, 0.12))


def _smooth_noise(rng: np.random.Generator, side: int, cells: int) -> NDArray[np.float32]:
    """Unit-ish noise varying over ``cells`` cells across, tileable (wrapped before resizing)."""
    small = rng.normal(0, 1, (cells, cells)).astype(np.float32)
    wrapped = np.pad(small, ((0, 1), (0, 1)), mode="wrap")
    big = cv2.resize(
        wrapped, (side + side // cells, side + side // cells), interpolation=cv2.INTER_CUBIC
    )
    return np.asarray(big[:side, :side], dtype=np.float32)


def table_image(kind: str, seed: int = 0) -> NDArray[np.uint8]:
    """Grey bytes (TABLE_PX square, tileable) of a table top's shading, half scale (128 is
    1.0): the shader tints it with the table's colour, so one image serves every colour.

    ``wood``: planks with grain; ``cloth``: a fine weave; ``laminate``: faint mottling;
    ``plain``: even.
    """
    rng = np.random.default_rng((seed, 2113))
    side = TABLE_PX
    shade = np.ones((side, side), dtype=np.float32)
    ys = np.arange(side, dtype=np.float32)[:, None] * (2 * np.pi / side)
    xs = np.arange(side, dtype=np.float32)[None, :] * (2 * np.pi / side)
    if kind == "wood":
        # Planks along x: fine grain streaks, gently bent rings, a seam and a tone per plank.
        bend = _smooth_noise(rng, side, 4)
        rings = np.sin(ys * 40 + bend * 3.0 + 0.8 * np.sin(xs * 3))
        streaks = _smooth_noise(rng, side, 128)[:, :1] * np.ones((1, side), np.float32)
        plank = np.repeat(rng.normal(0, 0.05, 4).astype(np.float32), side // 4)[:, None]
        shade = 1.0 + 0.04 * rings + 0.05 * streaks + plank
        seams = (np.arange(side)[:, None] % (side // 4)) < 2
        shade = np.where(seams, shade * 0.7, shade)
    elif kind == "cloth":
        weave = np.sin(xs * side / 3) * np.sin(ys * side / 3)
        shade = 1.0 + 0.06 * weave + 0.05 * _smooth_noise(rng, side, 16)
    elif kind == "laminate":
        shade = 1.0 + 0.05 * _smooth_noise(rng, side, 8) + 0.03 * _smooth_noise(rng, side, 32)
    return np.asarray(np.clip(shade * 128, 0, 255).round(), dtype=np.uint8)


def scoresheet_image(seed: int) -> NDArray[np.uint8]:
    """RGB bytes of an A5 scoresheet: printed header and rules, moves written in ink."""
    rng = np.random.default_rng((seed, 977))
    w, h = SHEET_PX
    paper = np.full((h, w, 3), 243, dtype=np.uint8)
    grey = (150, 150, 150)
    cv2.rectangle(paper, (12, 12), (w - 12, 58), grey, 1)
    for text, y in (("Name ______________", 30), ("Round ___  Table ___", 50)):
        cv2.putText(paper, text, (18, y), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (90, 90, 90), 1)
    top, rows = 70, 25
    step = (h - top - 14) / rows
    for r in range(rows + 1):
        y = round(top + r * step)
        cv2.line(paper, (12, y), (w - 12, y), grey, 1)
    for x in (12, 40, w // 2 + 14, w - 12):
        cv2.line(paper, (x, top), (x, round(top + rows * step)), grey, 1)
    ink = tuple(int(c * 255) for c in _INKS[int(rng.integers(len(_INKS)))][::-1])
    written = int(rng.integers(3, rows))
    for r in range(written):
        y = round(top + (r + 0.8) * step)
        cv2.putText(paper, str(r + 1), (16, y), cv2.FONT_HERSHEY_PLAIN, 0.8, (90, 90, 90), 1)
        for x0 in (46, w // 2 + 20):
            a, b = rng.integers(1, 51, 2)
            move = f"{a}{'x' if rng.random() < 0.2 else '-'}{b}"
            cv2.putText(
                paper, move, (x0, y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.55, ink, 1, cv2.LINE_AA
            )
    return np.asarray(cv2.cvtColor(paper, cv2.COLOR_BGR2RGB), dtype=np.uint8)

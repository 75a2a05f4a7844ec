"""A contact sheet of renders beside real photos of the same board types, for the docs.

``python -m synth.contact OUT.png [PHOTO ...] [--columns N]``: the photos first, then
renders: the Baxter and damas set-ups, then varied styles (clock, scoresheets, glare,
sleeves, a pinching hand, textured tables). The sheet in docs/ is renders only: real photos
stay in ../shared/data, so a sheet with them is for looking at here, not for committing.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from rules import Position, find_variant
from synth.dataset import random_position
from synth.render import Renderer
from synth.scene import HandStyle, Style

TILE = (200, 150)


def _renders(renderer: Renderer) -> list[NDArray[np.uint8]]:
    brazilian, russian = find_variant("brazilian"), find_variant("russian")
    damas = dataclasses.replace(
        Style.random(21, brazilian, hand=False),
        board="black-white",
        pieces="purple-teal",
        markers=True,
        border_mm=30.0,
        tilt_deg=33.0,
        azimuth_deg=-25.0,
        table=(0.62, 0.50, 0.36),
        table_texture="wood",
        noise_sigma=2.0,
        clock="none",
        scoresheet="none",
        glare=0.0,
    )
    baxter = dataclasses.replace(
        Style.random(22, russian, hand=False),
        board="black-white",
        pieces="red-green",
        tilt_deg=4.0,
        distortion=(-0.3, 0.05),
        roll_deg=1.0,
        azimuth_deg=0.0,
        offset=(0.0, 0.0),
        vignette=0.5,
        coordinates=False,
        table=(0.16, 0.12, 0.09),
        table_texture="wood",
        fill=0.95,
        exposure=1.1,
        border_mm=8.0,
        markers=False,
        glare=1.3,
        lamp=(0.0, 0.05, 0.9),
        clock="none",
        scoresheet="none",
    )
    pinch = HandStyle(
        "right", (1.0, -0.5), 30.0, (0.55, 0.36, 0.25), (0.6, 0.1, 0.1), "short", "pinch"
    )
    sleeve = HandStyle("near", (0.5, 1.0), 70.0, (0.85, 0.66, 0.55), (0.15, 0.2, 0.35), "long")
    tournament = dataclasses.replace(
        Style.random(37, "international", hand=False),
        clock="left",
        scoresheet="both",
        table_texture="cloth",
        table=(0.20, 0.22, 0.25),
        fill=0.62,
        tilt_deg=20.0,
    )
    cases = [
        (Position.initial(russian), baxter),
        (random_position(brazilian, 4, 20), damas),
        (random_position(find_variant("international"), 5, 50), tournament),
        (random_position(find_variant("bashni"), 6, 70), Style.random(32, "bashni", hand=False)),
        (random_position(find_variant("lasca"), 7, 60), Style.random(33, "lasca", hand=False)),
        (
            Position.initial(find_variant("pool")),
            dataclasses.replace(Style.random(34, "pool"), hand=pinch, glare=0.9),
        ),
        (
            random_position(russian, 8, 40),
            dataclasses.replace(Style.random(35, "russian"), hand=sleeve, clock="right"),
        ),
        (random_position(find_variant("english"), 9, 30), Style.random(36, "english", hand=False)),
        (random_position(find_variant("international"), 10, 40), Style.random(41, "international")),
        (random_position(find_variant("bashni"), 11, 50), Style.random(45, "bashni")),
    ]
    return [renderer.render(position, style).image for position, style in cases]


def contact_sheet(photos: list[Path], columns: int = 4) -> NDArray[np.uint8]:
    tiles = []
    for path in photos:
        image = cv2.imread(str(path))
        if image is None:
            raise ValueError(f"cannot read photo {path}")
        tiles.append(cv2.resize(image, TILE, interpolation=cv2.INTER_AREA))
    with Renderer((640, 480)) as renderer:
        tiles += [cv2.resize(r, TILE, interpolation=cv2.INTER_AREA) for r in _renders(renderer)]
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i : i + columns]) for i in range(0, len(tiles), columns)]
    return np.vstack(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("photos", type=Path, nargs="*")
    parser.add_argument("--columns", type=int, default=4)
    args = parser.parse_args()
    sheet = contact_sheet(args.photos, args.columns)
    cv2.imwrite(str(args.out), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()

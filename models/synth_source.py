"""Training crops from synth renders, cut by vision's own crop function.

Each board: a random variant, a random position (men, kings, towers in column games),
a random :class:`synth.scene.Style` (board, pieces, tilt 0-35 degrees, light, hands; kings
two stacked discs or, on a share ``crowns`` of the boards, one crowned disc on tall men),
rendered by :func:`synth.render.render_position`, located from the render's true grid
corners, and cut into squares by :func:`vision.rectify.square_crops`, which is what
inference runs. Labels come from the render's truth, so White is synth's White piece.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import numpy as np

from models.dataset import TOWER_LIMIT, Boards, Family, SquareSet, window_px_per_square
from rules import Position, find_variant
from rules.observation import Top
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Stack, parse_stack
from rules.variants import Variant
from synth.pieces import disc_count
from synth.render import Renderer
from synth.scene import Style
from vision.band import band_strips
from vision.camera import crops_and_views
from vision.locate import BoardLocation
from vision.rectify import CropWindow

log = logging.getLogger(__name__)

DRAUGHTS_VARIANTS = ("international", "international", "russian", "brazilian", "pool", "czech",
                     "italian", "english")  # fmt: skip
COLUMN_VARIANTS = ("bashni", "bashni", "lasca")
VARIANTS = DRAUGHTS_VARIANTS + COLUMN_VARIANTS
"""Drawn uniformly; repeats weight 10x10 boards (more squares) and towers (rarer states)."""
FAMILY_VARIANTS: dict[Family, tuple[str, ...]] = {
    "all": VARIANTS,
    "draughts": DRAUGHTS_VARIANTS,
    "columns": COLUMN_VARIANTS,
}
TALL_SHARE = 0.4
"""Of the towers drawn past :data:`TOWER_LIMIT` (``tower_limit`` above it), the share
taller than it: most real towers stay short, but each height up to the full tower must
be seen often enough to be counted."""
NADIR_VARIANTS = ("international", "russian", "brazilian", "pool", "czech", "italian", "english")
"""Draughts variants only for near-nadir sets: stacked kings are what they are for."""
NADIR_TILT_DEG = 8.0
"""Near-nadir sets look at most this far from straight down: there a stacked king's side
band is hidden and only its top's size, outline and shadow tell it from a man."""


def random_stack(
    rng: np.random.Generator, variant: Variant, tower_limit: int = TOWER_LIMIT
) -> Stack:
    """One stack; a column game's up to ``tower_limit`` discs tall."""
    if not variant.towers:
        return ((WHITE_MAN, BLACK_MAN, WHITE_KING, BLACK_KING)[int(rng.integers(4))],)
    if rng.random() < 0.45:
        height = 1
    elif tower_limit > TOWER_LIMIT and rng.random() < TALL_SHARE:
        height = int(rng.integers(TOWER_LIMIT + 1, tower_limit + 1))
    else:
        height = int(rng.integers(2, min(tower_limit, TOWER_LIMIT) + 1))
    top = (WHITE_MAN, BLACK_MAN, WHITE_KING, BLACK_KING)[int(rng.integers(4))]
    below = tuple((WHITE_MAN, BLACK_MAN)[int(rng.integers(2))] for _ in range(height - 1))
    return (top, *below)


def random_position(
    rng: np.random.Generator, variant: Variant, tower_limit: int = TOWER_LIMIT
) -> Position:
    """Any arrangement (legality does not matter to a camera), 35-90% of squares filled
    (a camera sees empty squares aplenty anyway)."""
    fill = rng.uniform(0.35, 0.9)
    stacks = {  # one draw to fill each square, then its stack: keeps seeds' boards
        sq: random_stack(rng, variant, tower_limit)
        for sq in variant.geometry.squares
        if rng.random() < fill
    }
    return Position.from_stacks(variant, stacks, variant.first_to_move)


def location_from_truth(truth: dict[str, object], size: int) -> BoardLocation:
    """The exact grid the render drew (the camera looks from White's side)."""
    return BoardLocation.from_corners(np.asarray(truth["corners"], np.float64), size, "truth")


def board_crops(
    renderer: Renderer,
    rng: np.random.Generator,
    seed: int,
    size: int,
    window: CropWindow,
    boards: Boards,
) -> SquareSet:
    """Render one random board as ``boards`` says; its crops, tops, disc counts, side-band
    heights in crop pixels (:attr:`models.dataset.SquareSet.band_px`), view tangents times
    the set's man height in discs, whether it is a column game and (``boards.strips``) band
    strips, in Square order, less the squares a hand hides. A ``boards.nadir`` board is a
    draughts board with stacked kings seen from at most :data:`NADIR_TILT_DEG`."""
    names = NADIR_VARIANTS if boards.nadir else FAMILY_VARIANTS[boards.family]
    variant = find_variant(names[int(rng.integers(len(names)))])
    position = random_position(rng, variant, boards.tower_limit)
    style = Style.random(seed, variant, crowns=boards.crowns, tallest=boards.tallest)
    if boards.nadir:
        style = replace(style, tilt_deg=float(rng.uniform(0.0, NADIR_TILT_DEG)))
    rendered = renderer.render(position, style)
    geometry = variant.geometry
    location = location_from_truth(rendered.truth, variant.size)
    crops, tangents = crops_and_views(
        rendered.image, location, geometry, crop_px=size, window=window
    )
    # In units of this set's man height (synth's disc is 1): to the camera, taller men
    # are the usual discs seen more steeply. Inference measures the unit on the start
    # frame (models.classifier.OnnxSquareClassifier.view_scale).
    views = (tangents * style.piece_height).astype(np.float32)
    occlusion: dict[str, float] = rendered.truth["occlusion"]
    keep = np.array([occlusion.get(geometry.name(sq), 0.0) < 0.3 for sq in geometry.squares])
    tops, heights, bands = square_truth(rendered.truth, variant, style, location, size, window)
    heights = np.minimum(heights, boards.tower_limit)
    towers = np.full(len(crops), variant.towers)
    band = (
        band_strips(rendered.image, location, geometry, views=views)[keep]
        if boards.strips
        else None
    )
    return SquareSet(
        crops[keep], tops[keep], heights[keep], bands[keep], views[keep], towers[keep], band
    )


def square_truth(
    truth: dict[str, Any],
    variant: Variant,
    style: Style,
    location: BoardLocation,
    size: int,
    window: CropWindow,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A render's truth per square, in Square order: its top, its disc count and its side
    band's height in crop pixels (:attr:`models.dataset.SquareSet.band_px`: how far the
    top's centre lies from the base's, both seen on the board plane, where the crop
    samples; 0 on an empty square). A hidden square (``truth["occlusion"]``) is not left
    out here."""
    geometry = variant.geometry
    squares: dict[str, str] = truth["squares"]
    centres: dict[str, list[float]] = truth["centres"]
    top_px: dict[str, list[float]] = truth["tops"]
    tops = np.empty(len(geometry.squares), np.int64)
    heights = np.empty(len(geometry.squares), np.int64)
    bands = np.zeros(len(geometry.squares), np.float32)
    for i, sq in enumerate(geometry.squares):
        name = geometry.name(sq)
        stack = parse_stack(squares[name]) if squares[name] else ()
        tops[i] = Top.of(stack[0] if stack else None)
        heights[i] = disc_count(stack, variant.towers, style.king_mark)
        base, top = location.to_board(np.array([centres[name], top_px[name]], np.float64))
        bands[i] = float(np.linalg.norm(top - base)) * window_px_per_square(size, window)
    return tops, heights, bands


def synth_set(count: int, *, seed: int, size: int, window: CropWindow, boards: Boards) -> SquareSet:
    """At least ``count`` labelled crops from ``boards`` rendered with seeds from ``seed``
    (:func:`board_crops`)."""
    rng = np.random.default_rng(seed)
    parts: list[SquareSet] = []
    total = 0
    board = 0
    with Renderer() as renderer:  # one GL context for the whole set
        while total < count:
            part = board_crops(renderer, rng, seed * 100_000 + board, size, window, boards)
            parts.append(part)
            total += len(part)
            board += 1
            if board % 50 == 0:
                log.info("rendered %d boards, %d crops", board, total)
    return SquareSet.concat(parts)

"""A picture kept from before, brought to the light of a new frame.

The hand gate and the arm watch compare each frame with a picture of the board taken
earlier; a tournament hall's light changes in between. A camera's auto exposure hunts
and its white balance drifts (one gain per channel over the whole picture: without it
the e2e's english `ponder` seed 112 video, its exposure made to swing 15 % over 30 s,
was lost at ply 46, the whole board a change while a hand hovered), and a
spectator standing by the table casts a soft shadow over part of the board (a gain
that varies smoothly across it: the e2e's ``hall`` condition, up to 45 % darker over a
third of the frame). Brought over with one gain, the shadow's edge is a change larger
than a hand's, and a picture learned under it differs everywhere once it has gone.

So the reference is brought over in two steps: each channel times its median ratio of
frame to reference, then times a smooth grey field, a quadratic surface over the picture
fitted to the blocks where only light can have changed (the board's light squares, the
border's segments), robustly, so that a hand or an arm over a few blocks stays a change.
A block counts only where its change is grey and no deeper than a shadow: a shadow keeps
the hue of what it falls on, a hand or a sleeve does not.

Hand-written: OpenCV and numpy have no robust surface fit of a handful of points, and
the fit is ten lines of least squares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatImage = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]

GREY_SPREAD = 0.1
"""The largest spread of a block's three channels' log ratios that counts as a change of
light (a rendered piece's shadow spreads 0.02, a skin-coloured hand on pale wood 0.2)."""
DEEPEST = 0.8
"""The largest grey log ratio, either way, that a change of light may be (0.45 darker
is -0.6); a dark sleeve over a light square is -1 or more."""
TOLERANCE = 0.05
"""The least residual a block may keep in the surface's fit (5 % of its light)."""
LEAST_SHARE = 1 / 3
"""The surface is fitted only where at least this share of the blocks take part; else
the one gain per channel stands."""
ROUNDS = 3


@dataclass(frozen=True, slots=True)
class Blocks:
    """Where only light can have changed in a picture of ``shape`` (rows, columns): K
    blocks of P pixels each, as flat pixel indices (K, P), and their centres as shares
    of the picture's height and width (K, 2)."""

    pixels: npt.NDArray[np.intp]
    centres: Floats
    shape: tuple[int, int]

    @classmethod
    def of_boxes(cls, boxes: list[tuple[int, int, int, int]], shape: tuple[int, int]) -> Blocks:
        """Blocks from boxes (top, bottom, left, right) of one area."""
        rows, cols = np.indices(shape)
        flat = rows * shape[1] + cols
        pixels = np.stack(
            [flat[top:bottom, left:right].ravel() for top, bottom, left, right in boxes]
        )
        centres = [
            ((top + bottom) / 2 / shape[0], (left + right) / 2 / shape[1])
            for top, bottom, left, right in boxes
        ]
        return cls(np.asarray(pixels, np.intp), np.asarray(centres, np.float64), shape)


def in_light_of(reference: FloatImage, image: FloatImage, blocks: Blocks) -> FloatImage:
    """``reference`` brought to ``image``'s light (both (H, W, 3), 0..255) over the
    ``blocks`` where only light can have changed (:func:`square_blocks`,
    :func:`ring_blocks`): each channel times its median ratio of the two there, then
    times a smooth grey field fitted to the blocks."""
    now = image.reshape(-1, 3)[blocks.pixels] + 1.0  # (K, P, 3)
    before = reference.reshape(-1, 3)[blocks.pixels] + 1.0
    gain = np.median((now / before).reshape(-1, 3), axis=0)
    logs = np.median(np.log(now / (before * gain)), axis=1)  # (K, 3)
    field = _grey_field(logs, blocks)
    if field is None:
        return np.asarray(reference * gain.astype(np.float32), np.float32)
    return np.asarray(reference * (field[..., None] * gain.astype(np.float32)), np.float32)


def square_blocks(size: int, cell_px: int, cells: npt.NDArray[np.bool_]) -> Blocks:
    """The middles (a quarter of a cell in from each side) of the ``cells`` (an (N, N)
    mask) of a board image of ``size`` squares at ``cell_px``."""
    margin, side = cell_px // 4, size * cell_px
    boxes = [
        (
            r * cell_px + margin,
            (r + 1) * cell_px - margin,
            c * cell_px + margin,
            (c + 1) * cell_px - margin,
        )
        for r, c in zip(*np.nonzero(cells), strict=True)
    ]
    return Blocks.of_boxes(boxes, (side, side))


def ring_blocks(size: int, cell_px: int, ring_px: int) -> Blocks:
    """The segments, a cell long, of the ring ``ring_px`` wide around a board image of
    ``size`` squares at ``cell_px`` (:func:`vision.rectify.warp_board`'s margin); the
    corners left out."""
    far, side = ring_px + size * cell_px, size * cell_px + 2 * ring_px
    boxes = []
    for k in range(size):
        start, end = ring_px + k * cell_px, ring_px + (k + 1) * cell_px
        for across in ((0, ring_px), (far, far + ring_px)):
            boxes.append((*across, start, end))  # top and bottom
            boxes.append((start, end, *across))  # left and right
    return Blocks.of_boxes(boxes, (side, side))


def _grey_field(logs: Floats, blocks: Blocks) -> FloatImage | None:
    """The quadratic surface, as a gain per pixel of the picture, through the blocks' grey
    log ratios ``logs`` (K, 3) where their change is grey and no deeper than a shadow,
    fitted robustly (blocks far off the last round's surface sit it out); None where too
    few blocks take part."""
    level = logs.mean(axis=1)
    eligible = (np.ptp(logs, axis=1) <= GREY_SPREAD) & (np.abs(level) <= DEEPEST)
    if not (eligible & (np.abs(level) > TOLERANCE)).any():
        return None  # one light over the picture: most frames
    down, across = blocks.centres.T - 0.5
    basis = np.stack([np.ones_like(level), across, down, across**2, across * down, down**2], 1)
    least = max(basis.shape[1] + 2, LEAST_SHARE * len(level))
    keep = eligible
    for _ in range(ROUNDS):
        if keep.sum() < least:
            return None
        coef, *_ = np.linalg.lstsq(basis[keep], level[keep], rcond=None)
        residual = np.abs(level - basis @ coef)
        spread = 3.0 * 1.4826 * float(np.median(residual[keep]))
        keep = eligible & (residual <= max(TOLERANCE, spread))
    if keep.sum() < least:
        return None
    # the surface at every pixel, its terms summed along the rows and the columns
    height, width = blocks.shape
    x = (np.arange(width, dtype=np.float32) + 0.5) / width - 0.5
    y = (np.arange(height, dtype=np.float32) + 0.5) / height - 0.5
    c = coef.astype(np.float32)
    surface = (c[0] + c[1] * x + c[3] * x * x)[None, :] + (c[2] * y + c[5] * y * y)[:, None]
    surface += c[4] * np.outer(y, x)
    return np.asarray(np.exp(np.clip(surface, -DEEPEST, DEEPEST)), np.float32)

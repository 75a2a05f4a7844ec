"""The band strip: a tall crop along the way a stack grows, scaled so each disc of the
side band the camera sees takes the same number of rows, for the tower reader.

The square crop (:func:`vision.rectify.square_crops`) holds a cell and its context in
48 px, turned only by quarter turns: there a column game's tower shows 2-3 px per disc,
its band up to 45 degrees off the crop's axis, and the square classifier counts discs
no better than 85% of the time (docs/models.md, "Column towers' heights"). The strip is
cut on the board plane along the line from the camera's foot through the cell's centre,
the line on which a stack's side band and displaced top lie. Along it, a point ``h``
square sides up appears ``h`` times the cell's view tangent further out; so a strip
whose rows span ``rows_per_disc / (disc_height * view)`` rows per square side
(:class:`BandWindow`) shows every disc of the band ``rows_per_disc`` rows tall, whatever
the camera's tilt: a tower of ``n`` discs is a band of about ``5 n`` rows, and the
reader counts at a fixed scale.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from rules.geometry import BoardGeometry
from vision.camera import camera_centre, estimate_camera, view_tangents
from vision.locate import BoardLocation, Image
from vision.rectify import CameraModel, square_centres, white_view_to_board


@dataclass(frozen=True, slots=True)
class BandWindow:
    """What a band strip covers and at which scale.

    ``rows`` x ``cols`` pixels; row 0 is the far end (away from the camera), the last row
    ``near`` square sides short of the cell's centre on the camera's side (a piece's near
    rim, and some board). ``cols`` span ``width`` square sides across, centred on the
    cell. ``rows_per_disc`` rows show one disc of band: the strip spans
    ``rows_per_disc / (disc_height * view)`` rows per square side, where ``view`` is the
    cell's view tangent in units of the set's man height (never less than
    ``min_view``, so a stack seen from nearly straight down is not stretched without
    end). ``disc_height``: a synth disc's band per unit of view tangent, in square sides
    (0.19 tall, and perspective lengthens it: 0.205 measured on renders).
    """

    rows: int = 200
    cols: int = 24
    rows_per_disc: float = 4.0
    disc_height: float = 0.205
    min_view: float = 0.35
    near: float = 0.65
    width: float = 0.9

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__slots__}

    def digest(self) -> str:
        """Six hex digits that change with any field: cached strips name their window."""
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:6]


BAND = BandWindow()
"""The tower reader's strip. 0.65 square sides below the cell's centre: a base's near rim
(0.43 out) and board beyond it, so the band's start shows even for a piece set off-centre
(with 0.45 the rim touched the strip's end, and a prototype missed towers there). 120
rows hold that, eight discs of band and a top's far rim at ``min_view`` (115 rows);
``min_view`` is about where the band gets visible (2 crop px per disc, tangent 0.35)."""


def band_strips(
    image: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    *,
    views: npt.ArrayLike | None = None,
    turns: int = 0,
    camera: CameraModel | None = None,
    window: BandWindow = BAND,
    cells: npt.ArrayLike | None = None,
) -> npt.NDArray[np.uint8]:
    """One strip per playable square, in Square order: ``(S, rows, cols, 3)`` uint8;
    with ``cells`` (indices into the Square order), only theirs, in that order.

    ``views`` (S,): the cells' view tangents in units of the set's man height (what the
    square classifier reads); by default the bare tangents of ``camera`` (else of the
    camera :func:`vision.camera.estimate_camera` fits). The camera also places its foot,
    from which each strip points away.
    """
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    image_size = (colour.shape[1], colour.shape[0])
    camera = camera or estimate_camera(location, image_size)
    if views is None:
        views = view_tangents(location, geometry, image_size, turns=turns, camera=camera)
    view = np.asarray(views, np.float64)
    # On the board plane, where the camera stands (a quarter turn keeps left and right).
    centres = white_view_to_board(square_centres(geometry), turns=turns, size=location.size)
    if view.shape != (len(centres),):
        raise ValueError(f"{view.size} view tangents for {len(centres)} squares")
    if cells is not None:
        chosen = np.asarray(cells, np.int64)
        centres, view = centres[chosen], view[chosen]
    out_dir = centres - camera_centre(camera)[:2]
    out_dir /= np.linalg.norm(out_dir, axis=1, keepdims=True) + 1e-9
    across = np.stack([-out_dir[:, 1], out_dir[:, 0]], axis=1)
    rows_per_square = window.rows_per_disc / (
        window.disc_height * np.maximum(view, window.min_view)
    )
    # Distance out from the cell's centre of each row (row 0 the far end), per cell.
    rows_up = np.arange(window.rows)[::-1] + 0.5
    along = rows_up[None, :] / rows_per_square[:, None] - window.near
    side = ((np.arange(window.cols) + 0.5) / window.cols - 0.5) * window.width
    points = (
        centres[:, None, None, :]
        + along[:, :, None, None] * out_dir[:, None, None, :]
        + side[None, None, :, None] * across[:, None, None, :]
    )
    pixels = location.to_image(points.reshape(-1, 2))
    maps = pixels.reshape(len(centres), window.rows, window.cols, 2).astype(np.float32)
    strips = np.empty((len(centres), window.rows, window.cols, 3), np.uint8)
    for k, cell_map in enumerate(maps):
        strips[k] = cv2.remap(
            colour,
            cell_map[..., 0],
            cell_map[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return strips

"""``damcam read``: the position in one still image (DESIGN.md's CLI contract)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from rules.observation import Top
from rules.pieces import Stack
from rules.position import Position
from rules.variants import Color, Variant
from vision.camera import crops_and_views
from vision.classifier import BoardMeasuring, SquareClassifier, crop_window, read_squares
from vision.locate import BoardLocation, BoardNotFound, Image
from vision.observe import ObserverConfig, Registration, locate
from vision.orient import bottom_facing_turn, checker_contrast, parity_turns
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import square_crops, white_view_to_image

#: Below this probability for the best colour (man and king together) a square reads '?'.
MIN_CONFIDENCE = 0.6
#: What a reading's note says where the image contradicts the calibration's turn.
TURNED_NOTE = "puts the playable squares"


@dataclass(frozen=True, slots=True)
class BoardReading:
    """What ``damcam read`` prints: see :meth:`as_json`."""

    size: int
    corners_px: list[list[float]]
    image_grid: list[str]
    fen: str
    method: str
    checker_contrast: float
    notes: tuple[str, ...] = ()
    """What the reader of this reading should know (not in :meth:`as_json`, whose keys the
    CLI contract fixes): a calibration whose turn this image contradicts."""

    def as_json(self) -> dict[str, object]:
        return {
            "board": self.size,
            "corners_px": self.corners_px,
            "image_grid": self.image_grid,
            "fen": self.fen,
        }


def read_image(
    image: Image,
    variant: Variant,
    *,
    config: ObserverConfig | None = None,
    registration: Registration | None = None,
    prototypes: ColourPrototypes | None = None,
    classifier: SquareClassifier | None = None,
) -> BoardReading | BoardNotFound:
    """Locate, orient and read one image. Without a calibration the turn is the one that
    keeps White at the image's bottom edge and the colours are clustered from the image.
    A ``classifier`` (the ONNX model) reads the crops instead of the colour prototypes;
    one not adapted to the set measures the set on this board first
    (:class:`vision.classifier.BoardMeasuring`)."""
    config = config or ObserverConfig()
    geometry = variant.geometry
    found = locate(image, geometry.size, config.markers)
    if isinstance(found, BoardNotFound):
        return found
    parity = parity_turns(image, found, geometry)
    notes: tuple[str, ...] = ()
    if registration is None:
        registration = Registration(bottom_facing_turn(found, parity))
    elif registration.turns not in parity:
        # A calibration holds one fixed camera's turn. Read under it, this image's pieces
        # would stand on the light squares: every playable cell would be read off a light
        # square (a quarter-turned photo read all 32 as Black men). Read it as an
        # uncalibrated image is read, and say so.
        turned = bottom_facing_turn(found, parity)
        notes = (
            f"the calibration's turn {registration.turns} {TURNED_NOTE} on this image's light "
            f"squares (the camera or board turned since calibration?); read with turn "
            f"{turned}, as without calibration",
        )
        registration = replace(registration, turns=turned)
    turns = registration.turns
    if classifier is not None:  # the model reads its own window, and the view tangents
        if isinstance(classifier, BoardMeasuring):
            crops, views = crops_and_views(
                image, found, geometry, crop_px=config.crop_px, window=crop_window(classifier),
                turns=turns,
            )  # fmt: skip
            classifier = classifier.on_board(crops, views)
        probs = read_squares(
            classifier,
            image,
            found,
            geometry,
            crop_px=config.crop_px,
            turns=turns,
            band=config.band_strips,
            heights=False,  # one image shows a tower's top and height, not what lies inside
        ).tops
    else:  # the colour prototypes read the plain cell
        crops = square_crops(image, found, geometry, crop_px=config.crop_px, turns=turns)
        prototypes = prototypes or ColourPrototypes.cluster(crops)
        if prototypes is None:  # no two piece colours to tell apart: all empty
            probs = np.zeros((len(crops), len(Top)))
            probs[:, Top.EMPTY] = 1.0
        else:
            probs = PrototypeClassifier(prototypes).predict(crops)
    tops = [_symbol(row) for row in probs]
    return BoardReading(
        size=geometry.size,
        corners_px=[[round(float(v), 1) for v in p] for p in found.image_corners_clockwise()],
        image_grid=_image_grid(found, variant, turns, tops),
        fen=_fen(variant, tops),
        method=found.method,
        checker_contrast=checker_contrast(image, found),
        notes=notes,
    )


def _symbol(probs: npt.NDArray[np.float64]) -> str:
    white = probs[Top.WHITE_MAN] + probs[Top.WHITE_KING]
    black = probs[Top.BLACK_MAN] + probs[Top.BLACK_KING]
    best = max((probs[Top.EMPTY], "."), (white, "w"), (black, "b"))
    if best[0] < MIN_CONFIDENCE:
        return "?"
    if best[1] != "." and max(probs[Top.WHITE_KING], probs[Top.BLACK_KING]) > best[0] / 2:
        return best[1].upper()
    return best[1]


def _fen(variant: Variant, symbols: list[str]) -> str:
    stacks: dict[int, Stack] = {}
    for sq, s in zip(variant.geometry.squares, symbols, strict=True):
        piece = Top(".wWbB".index(s)).piece if s != "?" else None
        if piece is not None:
            stacks[sq] = (piece,)
    position = Position.from_stacks(variant, stacks, Color.WHITE)
    return position.fen()


def _image_grid(
    location: BoardLocation, variant: Variant, turns: int, symbols: list[str]
) -> list[str]:
    """Rows as seen in the image, top first: the White-view cells re-ordered by where
    their centres fall in the image."""
    n = variant.geometry.size
    white_view = [["."] * n for _ in range(n)]
    for sq, s in zip(variant.geometry.squares, symbols, strict=True):
        r, c = variant.geometry.rowcol(sq)
        white_view[r][c] = s
    centres = np.array([[c + 0.5, r + 0.5] for r in range(n) for c in range(n)])
    pixels = white_view_to_image(location, centres, turns=turns).reshape(n, n, 2)
    best = max(range(4), key=lambda k: _upright_score(np.rot90(pixels, k)))
    cells = np.rot90(np.array(white_view), best)
    return ["".join(row) for row in cells]


def _upright_score(pixels: npt.NDArray[np.float64]) -> float:
    """Large when rows run down the image and columns run to the right."""
    return float(
        (pixels[-1, :, 1] - pixels[0, :, 1]).mean() + (pixels[:, -1, 0] - pixels[:, 0, 0]).mean()
    )

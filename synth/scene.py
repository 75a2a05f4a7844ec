"""What a rendered table looks like: the seeded style and the board's world geometry.

World units are millimetres. The board lies in the plane z = 0 with its centre at the
origin; +x runs to White's right and +y away from White (towards Black's back row,
row 0 of :mod:`rules.geometry`). The camera sits on White's side looking down.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from rules import find_variant
from rules.variants import Variant
from vision import board_spec

RGB = tuple[float, float, float]

#: Board colour schemes: (light squares, dark squares, border), linear-ish RGB 0..1.
BOARD_SCHEMES: dict[str, tuple[RGB, RGB, RGB]] = {
    "wood-light": ((0.86, 0.72, 0.50), (0.55, 0.33, 0.16), (0.42, 0.25, 0.12)),
    "wood-dark": ((0.72, 0.55, 0.35), (0.30, 0.17, 0.08), (0.22, 0.12, 0.06)),
    "green-buff": ((0.90, 0.84, 0.66), (0.18, 0.42, 0.24), (0.92, 0.90, 0.85)),
    "black-white": ((0.92, 0.92, 0.90), (0.10, 0.10, 0.10), (0.85, 0.85, 0.83)),
    "paper": ((0.97, 0.97, 0.95), (0.45, 0.45, 0.47), (0.97, 0.97, 0.95)),
    "yellow-blue": ((0.93, 0.85, 0.45), (0.16, 0.30, 0.60), (0.90, 0.88, 0.80)),
}

#: Piece colour pairs: (White's colour, Black's colour).
PIECE_SCHEMES: dict[str, tuple[RGB, RGB]] = {
    "white-black": ((0.90, 0.89, 0.86), (0.07, 0.07, 0.08)),
    "cream-brown": ((0.90, 0.82, 0.62), (0.33, 0.17, 0.08)),
    "red-green": ((0.78, 0.10, 0.08), (0.08, 0.38, 0.15)),
    "purple-teal": ((0.45, 0.20, 0.55), (0.05, 0.48, 0.50)),
}

TABLE_COLOURS: tuple[RGB, ...] = (
    (0.35, 0.25, 0.18),
    (0.55, 0.52, 0.48),
    (0.20, 0.22, 0.25),
    (0.62, 0.50, 0.36),
)

#: Hands reach in from a side of the board as seen from White.
HAND_SIDES = ("left", "right", "near", "far")
#: How far a sleeve comes down the forearm: to above the elbow, mid-forearm, the wrist.
SLEEVE_LENGTHS = ("short", "three-quarter", "long")
#: What the fingers do: hang loosely, pinch a piece's rim, press down with the index.
HAND_POSES = ("relaxed", "pinch", "press")
#: The table's top: one colour, or a texture tinted by ``Style.table``.
TABLE_TEXTURES = ("plain", "wood", "cloth", "laminate")
#: Where the chess clock stands, seen from White (the column-draughts code: White's left).
CLOCK_PLACES = ("none", "left", "right")
#: Whose scoresheet lies on the table, in front of that player to his right.
SCORESHEETS = ("none", "white", "black", "both")
#: How a draughts king shows (:attr:`Style.king_mark`).
KING_MARKS = ("stack", "crown")
#: The crown sticker radii :meth:`Style.random` draws for crowned sets, as shares of the
#: disc's (the damas set's reaches about two thirds of the way to the edge).
STICKER_RADII = (0.45, 0.85)


CORNER_PX = 400.0
"""From the centre to a corner of the 640x480 frame that ``Style.focal_px`` is given for."""


def lens_folds(distortion: tuple[float, float], focal_px: float) -> bool:
    """Whether OpenCV's radial model, ``r (1 + k1 r^2 + k2 r^4)`` of the undistorted radius
    ``r``, stops growing before it reaches the frame's corner (``CORNER_PX`` over
    ``focal_px``): such a lens sees nothing in the corners, undistorting them diverges,
    and the render shrank its pinhole camera to a focal length of a few pixels, a blur
    (:meth:`synth.camera.Camera.pinhole`; e2e brazilian, seed 904: k1 -0.21, k2 -0.04 at
    469 px, never calibrated). Why not OpenCV: its undistortion iterates without saying
    whether it converged."""
    k1, k2 = distortion
    corner = CORNER_PX / focal_px
    r = np.linspace(0.0, 3.0 * corner, 3001)
    seen = r * (1.0 + k1 * r**2 + k2 * r**4)
    reached = np.flatnonzero(seen >= corner)
    if reached.size == 0:
        return True
    return bool(np.any(np.diff(seen[: reached[0] + 1]) <= 0.0))


def _within_frame(distortion: tuple[float, float], focal_px: float) -> tuple[float, float]:
    """``distortion`` halved until it no longer folds inside the frame (:func:`lens_folds`)."""
    while lens_folds(distortion, focal_px):
        distortion = (distortion[0] / 2, distortion[1] / 2)
    return distortion


def _check_choice(field: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ValueError(f"unknown {field} {value!r} (expected one of {options})")


@dataclass(frozen=True)
class HandStyle:
    """A forearm and hand held over the board, reaching from ``side`` towards ``target``.

    ``target`` is in square units from the board centre (x right, y away from White);
    ``height_mm`` is how high the hand floats over the board.
    """

    side: str
    target: tuple[float, float]
    height_mm: float
    skin: RGB
    sleeve: RGB
    sleeve_length: str = "three-quarter"
    pose: str = "relaxed"

    def __post_init__(self) -> None:
        _check_choice("hand side", self.side, HAND_SIDES)
        _check_choice("sleeve length", self.sleeve_length, SLEEVE_LENGTHS)
        _check_choice("hand pose", self.pose, HAND_POSES)


@dataclass(frozen=True)
class Style:
    """Everything about a render except the position: board, pieces, camera, light, sensor.

    Build one with :meth:`random` (seeded) and change fields with ``dataclasses.replace``;
    unknown scheme names raise :class:`ValueError` naming the field.
    """

    seed: int
    variant: str
    board: str = "wood-light"
    pieces: str = "white-black"
    square_mm: float = 40.0
    border_mm: float = 25.0
    markers: bool = False
    coordinates: bool = False
    """Files a.. and ranks 1.. printed in the border, as many boards have."""
    table: RGB = (0.35, 0.25, 0.18)
    tilt_deg: float = 0.0
    """Camera tilt away from straight down, towards White's side (0 = overhead)."""
    azimuth_deg: float = 0.0
    """Camera turned about the board's centre (0 = on White's side)."""
    roll_deg: float = 0.0
    focal_px: float = 600.0
    distortion: tuple[float, float] = (0.0, 0.0)
    """Radial lens distortion (k1, k2) as OpenCV models it; negative k1 is barrel."""
    fill: float = 0.85
    """Fraction of the image's shorter side the board spans (sets camera distance)."""
    offset: tuple[float, float] = (0.0, 0.0)
    """Where the camera aims, in board-widths from the centre."""
    light_azimuth_deg: float = 30.0
    light_elevation_deg: float = 60.0
    colour_temp_k: float = 5000.0
    exposure: float = 1.0
    noise_sigma: float = 0.0
    vignette: float = 0.0
    """Fraction of light lost in the image's corners (cheap lenses, lamp over the centre)."""
    blur_sigma: float = 0.0
    jpeg_quality: int = 0
    """0 keeps the image lossless; 1..100 passes it through JPEG."""
    piece_jitter_mm: float = 0.8
    hand: HandStyle | None = None
    table_texture: str = "plain"
    glare: float = 0.0
    """Strength of a lamp's reflection on the board and pieces (0: no lamp)."""
    lamp: tuple[float, float, float] = (0.3, 0.2, 1.5)
    """The lamp's place in board widths: x, y from the board's centre, height above it."""
    clock: str = "none"
    scoresheet: str = "none"
    king_mark: str = "stack"
    """How a draughts king shows: "stack" (two discs) or "crown" (one disc with a crown
    sticker on top, as many real sets do). Column-game kings are always striped."""
    piece_height: float = 1.0
    """Each disc's height as a multiple of synth's usual (a fifth of its diameter): real
    sets that crown kings often have tall men."""
    sticker_radius: float = 0.5
    """A crown sticker's radius as a share of the disc's: real stickers reach from half to
    four fifths of the way to the top's edge."""
    sticker_ink: float = 0.0
    """The crown's ink: 0 a dark shade of the piece's colour, 1 a light, bright tint of its
    hue (the damas set's: a teal crown on a teal piece), or a mix of the two."""

    def __post_init__(self) -> None:
        find_variant(self.variant)  # raises ValueError naming the variant
        if self.board not in BOARD_SCHEMES:
            raise ValueError(
                f"unknown board style {self.board!r} (expected one of {sorted(BOARD_SCHEMES)})"
            )
        if self.pieces not in PIECE_SCHEMES:
            raise ValueError(
                f"unknown piece style {self.pieces!r} (expected one of {sorted(PIECE_SCHEMES)})"
            )
        if not 0.0 <= self.tilt_deg <= 60.0:
            raise ValueError(f"camera tilt {self.tilt_deg} degrees is outside 0..60")
        if self.markers and self.border_mm < board_spec.MIN_BORDER_MM:
            raise ValueError(
                f"border {self.border_mm:.1f} mm is too narrow for the ArUco markers "
                f"(needs {board_spec.MIN_BORDER_MM} mm)"
            )
        if lens_folds(self.distortion, self.focal_px):
            raise ValueError(
                f"lens distortion {self.distortion} folds before the frame's corner at a "
                f"focal length of {self.focal_px:.0f} px: the lens would see nothing there"
            )
        if not 0 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality {self.jpeg_quality} is outside 0..100")
        _check_choice("table texture", self.table_texture, TABLE_TEXTURES)
        _check_choice("clock place", self.clock, CLOCK_PLACES)
        _check_choice("scoresheet", self.scoresheet, SCORESHEETS)
        _check_choice("king mark", self.king_mark, KING_MARKS)
        if not 0.5 <= self.piece_height <= 5.0:
            raise ValueError(f"piece height {self.piece_height} is outside 0.5..5 discs")
        if not 0.3 <= self.sticker_radius <= 0.9:
            raise ValueError(
                f"sticker radius {self.sticker_radius} is outside 0.3..0.9 of the disc's radius"
            )
        if not 0.0 <= self.sticker_ink <= 1.0:
            raise ValueError(f"sticker ink {self.sticker_ink} is outside 0..1")
        if not 0.0 <= self.glare <= 2.0:
            raise ValueError(f"glare {self.glare} is outside 0..2")
        if self.glare > 0 and self.lamp[2] <= 0.1:
            raise ValueError(f"lamp height {self.lamp[2]} board widths is not above the board")

    @property
    def rules_variant(self) -> Variant:
        return find_variant(self.variant)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def plain(cls, variant: Variant | str, seed: int = 0) -> Style:
        """An overhead, noise-free style: the easiest image to check by eye and in tests."""
        name = variant if isinstance(variant, str) else variant.name
        return cls(seed=seed, variant=name)

    @classmethod
    def random(
        cls,
        seed: int,
        variant: Variant | str,
        *,
        hand: bool | None = None,
        crowns: float = 0.0,
        tallest: float = 4.0,
    ) -> Style:
        """A style drawn from ``seed``: the same seed always gives the same style.

        ``crowns``: the chance that draughts kings are crowned discs rather than two stacked,
        on pieces one to ``tallest`` discs tall (0 by default, so every other field and
        every older render stays as it was)."""
        name = variant if isinstance(variant, str) else variant.name
        rng = np.random.default_rng(seed)

        def pick(options: list[str]) -> str:
            return options[int(rng.integers(len(options)))]

        # Features added later draw from their own stream: the older fields keep the values
        # a seed always gave them (other packages' tests and data sets rely on that).
        extra = np.random.default_rng((seed, 8761))
        size = find_variant(name).size
        with_hand = bool(rng.random() < 0.3) if hand is None else hand
        hand_style = None
        if with_hand:
            half = size / 2
            hand_style = HandStyle(
                side=pick(list(HAND_SIDES)),
                target=(float(rng.uniform(-half, half)), float(rng.uniform(-half, half))),
                height_mm=float(rng.uniform(40, 120)),
                skin=_skin(rng),
                sleeve=tuple(float(c) for c in rng.uniform(0.05, 0.8, 3)),  # type: ignore[arg-type]
                sleeve_length=SLEEVE_LENGTHS[int(extra.choice(3, p=[0.3, 0.3, 0.4]))],
                pose="pinch" if extra.random() < 0.5 else "relaxed",
            )
        with_glare = extra.random() < 0.35
        glare = float(extra.uniform(0.4, 1.5)) if with_glare else 0.0
        lamp = (
            float(extra.uniform(-0.6, 0.6)),
            float(extra.uniform(-0.6, 0.6)),
            float(extra.uniform(0.9, 2.0)),
        )
        table_texture = TABLE_TEXTURES[int(extra.choice(4, p=[0.25, 0.35, 0.2, 0.2]))]
        clock = "none"
        if extra.random() < 0.45:
            clock = "left" if extra.random() < 0.6 else "right"
        scoresheet = "none"
        if extra.random() < 0.35:
            scoresheet = SCORESHEETS[1 + int(extra.integers(3))]
        # The stream's last draws. A crowned set's men are one to four discs tall (the
        # damas set's are 0.7 square sides, 3.7 discs).
        king_mark = "crown" if extra.random() < crowns else "stack"
        piece_height = float(extra.uniform(1.0, tallest)) if king_mark == "crown" else 1.0
        sticker: dict[str, float] = {}  # stacked kings keep the fields' defaults
        if king_mark == "crown":  # a stream of its own: crowned sets drawn before keep the rest
            draw = np.random.default_rng((seed, 8762))
            sticker = {
                "sticker_radius": float(draw.uniform(*STICKER_RADII)),
                "sticker_ink": float(draw.uniform(0.0, 1.0)),
            }
        markers = bool(rng.random() < 0.4)
        border = float(rng.uniform(10, 45))
        if markers:
            border = max(border, board_spec.MIN_BORDER_MM + 2.0)
        return cls(
            seed=seed,
            variant=name,
            board=pick(sorted(BOARD_SCHEMES)),
            pieces=pick(sorted(PIECE_SCHEMES)),
            square_mm=float(rng.uniform(32, 50)),
            border_mm=border,
            markers=markers,
            coordinates=bool(rng.random() < 0.4),
            table=TABLE_COLOURS[int(rng.integers(len(TABLE_COLOURS)))],
            tilt_deg=float(rng.uniform(0, 35)),
            azimuth_deg=float(rng.normal(0, 6)),
            roll_deg=float(rng.normal(0, 4)),
            focal_px=(focal := float(rng.uniform(450, 900))),
            fill=float(rng.uniform(0.6, 0.85)),
            offset=(float(rng.normal(0, 0.03)), float(rng.normal(0, 0.03))),
            light_azimuth_deg=float(rng.uniform(0, 360)),
            light_elevation_deg=float(rng.uniform(35, 85)),
            colour_temp_k=float(rng.uniform(2800, 6500)),
            exposure=float(rng.uniform(0.75, 1.25)),
            noise_sigma=float(rng.uniform(0, 6)),
            vignette=float(rng.choice([0.0, rng.uniform(0.1, 0.5)])),
            blur_sigma=float(rng.choice([0.0, 0.0, rng.uniform(0.3, 1.2)])),
            jpeg_quality=int(rng.choice([0, int(rng.integers(55, 95))])),
            piece_jitter_mm=float(rng.uniform(0.3, 1.8)),
            distortion=_within_frame(
                (float(rng.uniform(-0.3, 0.05)), float(rng.uniform(-0.05, 0.1)))
                if rng.random() < 0.35
                else (0.0, 0.0),
                focal,
            ),
            hand=hand_style,
            table_texture=table_texture,
            glare=glare,
            lamp=lamp,
            clock=clock,
            scoresheet=scoresheet,
            king_mark=king_mark,
            piece_height=piece_height,
            **sticker,
        )


def _skin(rng: np.random.Generator) -> RGB:
    """A skin tone between pale and dark brown."""
    t = float(rng.uniform(0, 1))
    pale, dark = np.array([0.92, 0.74, 0.62]), np.array([0.36, 0.22, 0.14])
    c = pale * (1 - t) + dark * t
    return (float(c[0]), float(c[1]), float(c[2]))


def kelvin_to_rgb(kelvin: float) -> NDArray[np.float32]:
    """Light colour of a black body at ``kelvin``, normalised to green = 1.

    Tanner Helland's fit of the CIE tables; close enough for white-balance variety.
    """
    t = kelvin / 100.0
    red = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    green = (
        99.4708025861 * math.log(t) - 161.1195681661
        if t <= 66
        else 288.1221695283 * (t - 60) ** -0.0755148492
    )
    blue = (
        255.0
        if t >= 66
        else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    )
    rgb = np.clip(np.array([red, green, blue], dtype=np.float32), 1.0, 255.0)
    normalised: NDArray[np.float32] = (rgb / rgb[1]).astype(np.float32)
    return normalised

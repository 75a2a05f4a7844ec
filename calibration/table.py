"""One table's calibration, saved as JSON: where the board is, which way White faces, and
the colours of its squares and pieces, all learned from one image of the start position,
and that image itself, from which the square classifier adapts to the set when the table
is read again (``pi.wiring.adapted_to_table``).

In the start position every square's content is known (rules: ``Position.initial``), so
the empty playable squares and both sides' men are measured directly; that is what lets
green/red or purple/teal sets work as well as black/white ones.
"""

from __future__ import annotations

import base64
import binascii
import logging
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from calibration.intrinsics import CameraIntrinsics
from rules.appearance import looks_the_same_swapped
from rules.observation import Top
from rules.position import Position
from rules.variants import Variant, find_variant
from vision.camera import Undistorter
from vision.locate import BoardLocation, BoardNotFound, Image
from vision.observe import ObserverConfig, Registration, locate
from vision.orient import bottom_facing_turn, parity_turns
from vision.prototype import ColourPrototypes, centre_colours, rim_strengths
from vision.rectify import square_crops

log = logging.getLogger(__name__)

Lab = tuple[float, float, float]

#: Lab distance from its group's median colour beyond which a square looks out of place
#: in the start position (on 25 clean renders the farthest was 51, most under 30; a
#: hand's squares are 40 to 140 away).
OFF_COLOUR_LAB = 40.0
#: More squares off colour than this and the image is refused, not learned from...
MAX_OFF_COLOUR_SQUARES = 2
#: ...unless the three groups stand apart by this many times their spread (the median
#: distance from their own median colour), when up to one square in
#: :data:`OFF_COLOUR_SHARE` may be off: a lamp's glare washes out a few men of a start
#: position (the end-to-end bench's hard condition: 3-4 of 32, 100-160 off), while a hand's
#: shadow spreads a whole group and keeps it near the old limit.
SEPARATED_SPREADS = 2.5
OFF_COLOUR_SHARE = 8
#: A square this many times nearer another group's median colour than its own (and within
#: :data:`OFF_COLOUR_LAB` of it) looks like that group: a man moved or taken, a square
#: filled. No glint or shadow does that, so one such square refuses the image (a frame a few
#: plies into the game otherwise passes for the start when glare hides what else moved).
LOOKALIKE_RATIO = 2.0
#: A square's rim strength (:func:`~vision.prototype.rim_strengths`) reads as the wrong
#: kind (a man for an empty square) when it lies :data:`RIM_RATIO` times nearer that kind's
#: median than its own, and the medians stand :data:`RIM_SEPARATED_SPREADS` times their
#: spreads apart. On 900 rendered e2e starts (640x480) the worst square was 1.6 times
#: nearer the wrong median; a far black man under a 30-degree camera at 1280x960, 3.2
#: (his rim weaker than the near men's). The frames one to three plies on that colour let
#: pass read 17 to 13,000.
RIM_RATIO = 8.0
RIM_SEPARATED_SPREADS = 3.0
#: Men whose lightness (Lab L of 255) differs less than this look alike to the user too.
SIMILAR_LIGHTNESS = 15.0


class CalibrationError(ValueError):
    """A calibration could not be made or read; the message names the file or image."""


class TableCalibration(BaseModel):
    """Everything vision needs to know about one table, as saved in its JSON file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: str
    size: int
    image_size: tuple[int, int] = Field(description="width, height of the calibration image")
    method: str = Field(description="how the board was located: aruco, aruco-quad or grid")
    corners_px: list[tuple[float, float]] = Field(description="grid corners, board-plane order")
    turns: int = Field(ge=0, le=3, description="quarter turns from the board plane to White's view")
    empty_lab: Lab
    light_lab: Lab
    dark_lab: Lab
    spread: float = Field(gt=0)
    light_is_white: bool = True
    intrinsics: CameraIntrinsics | None = Field(
        default=None, description="camera intrinsics when measured (damcam calibrate intrinsics)"
    )
    fen: str | None = Field(
        default=None,
        description="the position the image shows, where it is not the variant's start",
    )
    start_image: str | None = Field(
        default=None,
        description="the image calibrated from (the start position, or fen's), before any "
        "undistortion: base64 of its image file; the square classifier adapts to the set "
        "from it",
    )

    @field_validator("start_image")
    @classmethod
    def _base64(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                base64.b64decode(value, validate=True)
            except binascii.Error as exc:
                raise ValueError(f"start_image is not base64 ({exc})") from None
        return value

    def with_start_image(self, encoded: bytes) -> TableCalibration:
        """This calibration keeping ``encoded``, the image file (JPEG, PNG, WebP) of the start
        position it was calibrated from (:func:`encode_frame` for a frame with no file)."""
        return self.model_copy(update={"start_image": base64.b64encode(encoded).decode("ascii")})

    def start_frame(self) -> Image | None:
        """The start-position image this table was calibrated from, undistorted where the
        table has intrinsics; None where the file keeps none (written before session 48).

        :raises CalibrationError: the kept image does not decode.
        """
        if self.start_image is None:
            return None
        encoded = np.frombuffer(base64.b64decode(self.start_image), np.uint8)
        frame = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
        if frame is None:
            raise CalibrationError("the calibration's start_image does not decode as an image")
        intrinsics = self.registration().intrinsics
        if intrinsics is None:
            return np.asarray(frame, np.uint8)
        try:
            return Undistorter(intrinsics)(np.asarray(frame, np.uint8))
        except ValueError as exc:
            raise CalibrationError(f"the calibration's start_image: {exc}") from None

    def position(self) -> Position:
        """The position the calibration image shows: the variant's start, or ``fen``."""
        if self.fen is None:
            return Position.initial(find_variant(self.variant))
        return Position.from_fen(self.variant, self.fen)

    def location(self) -> BoardLocation:
        """The board where calibration found it in :meth:`start_frame` (undistorted where
        the table has intrinsics, as the frame it was found in was)."""
        return BoardLocation.from_corners(self.corners_px, self.size, self.method)

    def registration(self) -> Registration:
        intrinsics = self.intrinsics.intrinsics() if self.intrinsics is not None else None
        return Registration(turns=self.turns, intrinsics=intrinsics)

    def prototypes(self) -> ColourPrototypes:
        return ColourPrototypes(
            self.empty_lab, self.light_lab, self.dark_lab, self.spread, self.light_is_white
        )

    def save(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> TableCalibration:
        try:
            return cls.model_validate_json(path.read_text())
        except OSError as error:
            raise CalibrationError(f"cannot read calibration {path}: {error.strerror}") from error
        except ValidationError as error:
            raise CalibrationError(f"bad calibration file {path}: {error}") from error


def encode_frame(frame: Image) -> bytes:
    """A frame with no image file of its own (a video's, a camera's), as lossless WebP: the
    very pixels the table was calibrated from, in a third of PNG's bytes."""
    ok, encoded = cv2.imencode(".webp", frame, [cv2.IMWRITE_WEBP_QUALITY, 101])  # 101: lossless
    if not ok:
        raise CalibrationError("the start frame could not be encoded as WebP")
    return encoded.tobytes()


def start_tops(variant: Variant) -> list[Top]:
    """What the top of each square shows in the start position, in Square order."""
    return position_tops(Position.initial(variant))


def position_tops(position: Position) -> list[Top]:
    """What the top of each square shows in ``position``, in Square order."""
    return [Top.of(position.piece_at(sq)) for sq in position.variant.geometry.squares]


def calibrate_start_position(
    image: Image,
    variant: Variant,
    *,
    config: ObserverConfig | None = None,
    light_is_white: bool | None = None,
    source: str = "image",
) -> TableCalibration:
    """Calibrate from one image of the start position (:func:`calibrate_position`).

    Of the turns that put the pieces on the playable squares, the one whose bottom side's
    men are the lighter (or, with ``light_is_white`` False, the darker) is White's view.
    With ``light_is_white`` None (the default) the lighter men are White unless both
    sides' men are alike in lightness (:data:`SIMILAR_LIGHTNESS`), when White is the side
    nearer the image's bottom edge (the camera's side).

    :raises CalibrationError: no board, or the image does not look like a start position.
    """
    start = Position.initial(variant)
    return calibrate_position(
        image, start, config=config, light_is_white=light_is_white, source=source
    )


def calibrate_position(
    image: Image,
    position: Position,
    *,
    config: ObserverConfig | None = None,
    light_is_white: bool | None = None,
    source: str = "image",
) -> TableCalibration:
    """Calibrate from one image of a known ``position``: the start position, or a game's
    position where the start will not come back (a device restarted mid-game with no
    calibration kept, a game set up from a FEN).

    A position that looks the same turned half a turn with its colours exchanged, as every
    start position does, is turned by its men's lightness as
    :func:`calibrate_start_position` says. Any other shows its own turn: the one under
    which fewer squares look unlike the rest of their group (then the tighter groups), and
    White's men are then whichever colour stands where the position puts them.

    :raises CalibrationError: no board, or the image does not look like ``position``.
    """
    config = config or ObserverConfig()
    variant = position.variant
    geometry = variant.geometry
    at_start = position == Position.initial(variant)
    what = "start position" if at_start else "position"
    found = locate(image, geometry.size, config.markers)
    if isinstance(found, BoardNotFound):
        raise CalibrationError(f"{source}: {found.reason}")
    tops = position_tops(position)
    white = np.array([t in (Top.WHITE_MAN, Top.WHITE_KING) for t in tops])
    black = np.array([t in (Top.BLACK_MAN, Top.BLACK_KING) for t in tops])
    crops_by_turn = {
        turns: square_crops(image, found, geometry, turns=turns)
        for turns in parity_turns(image, found, geometry)
    }
    colours = {turns: centre_colours(crops) for turns, crops in crops_by_turn.items()}
    # The position's three groups (empty, White's pieces, Black's) look alike within
    # themselves only under the right turn or, for the start, the one opposite it: on an
    # odd board, where parity leaves all four, this rules out the quarter turns.
    scatter = {t: class_scatter(c, white, black) for t, c in colours.items()}
    least = min(scatter, key=scatter.__getitem__)
    candidates = [t for t in (least, (least + 2) % 4) if t in colours]
    lighter = {  # how much lighter White's men are than Black's under each turn
        t: float(np.median(colours[t][white, 0]) - np.median(colours[t][black, 0]))
        for t in candidates
    }
    ambiguous = all(abs(v) < SIMILAR_LIGHTNESS for v in lighter.values())
    odd_by_turn = {t: off_colour_squares(colours[t], white, black) for t in candidates}
    if not looks_the_same_swapped(position):
        turns = min(candidates, key=lambda t: (int(odd_by_turn[t].sum()), scatter[t]))
        if light_is_white is not None and light_is_white != (lighter[turns] > 0):
            raise CalibrationError(
                f"{source}: White's men are the {'lighter' if lighter[turns] > 0 else 'darker'}"
                " where the position puts them"
            )
    elif light_is_white is None and ambiguous:
        # Men alike in lightness: White is taken on the camera's side, as `damcam read`
        # does without a calibration.
        turns = bottom_facing_turn(found, candidates)
        log.warning(
            "%s: the two sides' men differ little in lightness (%.0f of 255): White was"
            " taken as the side nearer the image's bottom edge",
            source,
            abs(lighter[turns]),
        )
    else:
        wanted = 1.0 if light_is_white is None or light_is_white else -1.0
        turns = max(candidates, key=lambda t: wanted * lighter[t])
        if wanted * lighter[turns] <= 0:
            raise CalibrationError(f"{source}: no turn of the board shows the {what}")
        if ambiguous:
            log.warning(
                "%s: the two sides' men differ little in lightness (%.0f of 255): check"
                " which side was taken as White",
                source,
                abs(lighter[turns]),
            )
    light_is_white = lighter[turns] > 0
    squares = np.array(geometry.squares)
    odd = odd_by_turn[turns]
    crops = crops_by_turn[turns]
    rims = rim_strengths(crops)
    if odd.sum() > off_colour_allowance(colours[turns], white, black, odd, rims):
        names = ", ".join(geometry.name(sq) for sq in squares[odd][:8])
        raise CalibrationError(
            f"{source}: {int(odd.sum())} squares do not look like the rest of the {what}"
            f" ({names}): a hand over the board, or pieces out of place"
        )
    if len(_merge_alike(colours[turns], _groups(white, black))) < 2:
        # One group: no square could look like another group, and any board would pass,
        # an empty one (a table before the players set up) or one plies into the game
        # (e2e portuguese `hard`, seed 758: calibrated at frame 508 under a hand).
        raise CalibrationError(
            f"{source}: the {what}'s men and empty squares all look alike: the {what} not"
            " set up (no pieces yet, or pieces moved), or a hand over it"
        )
    lookalike = lookalike_squares(colours[turns], white, black, rims)
    if lookalike.any() and not _lone_lookalike(lookalike, odd, rims, white, black):
        names = ", ".join(geometry.name(sq) for sq in squares[lookalike][:8])
        raise CalibrationError(
            f"{source}: {int(lookalike.sum())} squares look like another part of the {what}"
            f" ({names}): pieces moved (not the {what}), or a hand over them"
        )
    # the few odd squares allowed (a glint, a stray shadow) and a lone look-alike are left out
    keep = ~odd & ~lookalike
    kept_tops = [t for t, k in zip(tops, keep, strict=True) if k]
    prototypes = ColourPrototypes.learn(crops[keep], kept_tops, light_is_white=light_is_white)
    fen = None if at_start else position.fen()
    return _calibration(variant, image, found, turns, prototypes, fen)


def off_colour_squares(
    colours: npt.NDArray[np.float64], white: npt.NDArray[np.bool_], black: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Squares whose centre colour is far (:data:`OFF_COLOUR_LAB`) from the median colour
    of its group (empty, White's men, Black's men): a hand, its shadow, a glint, a piece
    astray."""
    own, _, _ = _group_distances(colours, _groups(white, black))
    return np.asarray(own > OFF_COLOUR_LAB, np.bool_)


def lookalike_squares(
    colours: npt.NDArray[np.float64],
    white: npt.NDArray[np.bool_],
    black: npt.NDArray[np.bool_],
    rims: npt.NDArray[np.float64],
) -> npt.NDArray[np.bool_]:
    """Squares that look like another group's (:data:`LOOKALIKE_RATIO`): where a piece
    stands that the start position has not, or none where it has one.

    By colour, two groups that look alike (:func:`_merge_alike`: a set's dark men on its
    dark squares) are one: a dark man nearer the empty squares' median than his own tells
    nothing (e2e `ponder` seed 91, black men on black squares: every frame of russian's
    start was refused). Such a set shows a man moved only by his rim (``rims``,
    :func:`~vision.prototype.rim_strengths`): a man leaves a flat square and makes a rim
    where he lands. So a square whose rim reads as the other kind (:func:`_rim_reads`)
    looks like it whatever its colour, and one whose colour reads as the other kind while
    its rim reads as its own does not: a green man in a lamp's shade is as dark as the
    green squares, but his rim still shows (e2e `ponder` seed 163: every frame of
    italian's start was refused)."""
    groups = _merge_alike(colours, _groups(white, black))
    own, other, nearest = _group_distances(colours, groups)
    by_colour = (LOOKALIKE_RATIO * other < own) & (other <= OFF_COLOUR_LAB)
    men = white | black
    kinds = np.array([1 if men[g].all() else 0 if not men[g].any() else -1 for g in groups])
    other_kind = (kinds[nearest] >= 0) & (kinds[nearest] != men)
    rim_own, rim_other = _rim_reads(rims, white, black)
    return np.asarray((by_colour & ~(other_kind & rim_own)) | rim_other, np.bool_)


def _lone_lookalike(
    lookalike: npt.NDArray[np.bool_],
    odd: npt.NDArray[np.bool_],
    rims: npt.NDArray[np.float64],
    white: npt.NDArray[np.bool_],
    black: npt.NDArray[np.bool_],
) -> bool:
    """Whether the one square that looks like another group (``lookalike``) can be no move:
    every other square looks as the position puts it (no other look-alike, and none off
    colour, ``odd``, but men whose rims read as men: a man in a lamp's shade, his colour
    off and his shape right), and its rim does not read as the other kind. A ply from the
    start empties one square and fills another, and a capture empties more, so a lone
    square is a man in a shade or a glint, not a man moved (e2e international `default`,
    seed 591: Black's brown man in the dark corner of a dark wood board read nearer the
    empty squares than his own, and every frame of the start was refused; bashni
    `knocked`, seed 908: Black's men on h8 and h6, in the shade of a black and white
    board's right edge, both off colour, h6 as dark as the dark squares). The frames a
    few plies on that glare partly hides still show an off-colour square where no man
    stands, and are refused."""
    if lookalike.sum() != 1:
        return False
    rim_own, rim_other = _rim_reads(rims, white, black)
    if (odd & ~lookalike & ~(rim_own & (white | black))).any():
        return False
    return not bool(rim_other[lookalike].any())


def _rim_reads(
    rims: npt.NDArray[np.float64], white: npt.NDArray[np.bool_], black: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Squares whose rim strength reads as what the start puts there (by
    :data:`LOOKALIKE_RATIO`, as it only overrules the colour), and those whose reads as
    the other kind, a man for an empty square or the reverse (by :data:`RIM_RATIO`, as it
    refuses the image on its own). Each side's men are a group of their own, as a white
    man on a dark square shows a stronger edge than a black one. Neither where a side's
    men do not stand :data:`RIM_SEPARATED_SPREADS` apart from the empty squares (a wood
    grain, a lamp's glare)."""
    empty = ~(white | black)
    medians, spreads = [], []
    for group in (empty, white, black):
        medians.append(float(np.median(rims[group])))
        spreads.append(float(np.median(np.abs(rims[group] - medians[-1]))))
    nothing = np.zeros(len(rims), np.bool_)
    for k in (1, 2):
        if abs(medians[k] - medians[0]) < RIM_SEPARATED_SPREADS * (spreads[k] + spreads[0]):
            return nothing, nothing
    to_empty = np.abs(rims - medians[0])
    to_white, to_black = np.abs(rims - medians[1]), np.abs(rims - medians[2])
    to_own = np.where(white, to_white, np.where(black, to_black, to_empty))
    to_other = np.where(empty, np.minimum(to_white, to_black), to_empty)
    return LOOKALIKE_RATIO * to_own < to_other, RIM_RATIO * to_other < to_own


def off_colour_allowance(
    colours: npt.NDArray[np.float64],
    white: npt.NDArray[np.bool_],
    black: npt.NDArray[np.bool_],
    odd: npt.NDArray[np.bool_],
    rims: npt.NDArray[np.float64],
) -> int:
    """How many off-colour squares (``odd``) a start position may have: a few
    (:data:`MAX_OFF_COLOUR_SQUARES`), or one in :data:`OFF_COLOUR_SHARE` when every two
    groups stand :data:`SEPARATED_SPREADS` times their spreads apart (then a square that
    moved would look like another group, which :func:`lookalike_squares` catches), or when
    every odd square's rim (``rims``) reads as what the position puts there
    (:func:`_rim_reads`): a man of another colour standing in for a lost one, a phone's
    shadow over empty squares, the shape right and only the colour off (the damas photo
    WA0167: a grey man, a pale one and a shadowed square). A hand's fingers cross the
    squares they cover with edges of their own.

    Where the groups do not all stand apart, the share is allowed when every odd square
    is a man lighter than his group (a lamp's glare washes out glossy men, while a hand
    over the board covers squares of every kind) and the empty squares stand apart from
    each group of men, alike groups taken as one: a man moved still looks like the other
    kind. So a set whose dark men match the dark squares (green on green: docs/vision.md,
    "Sets whose dark men match the dark squares"), and one whose two sides' men stand
    less far apart than their spreads (e2e portuguese `hard`, seed 758: red men, three
    of them washed out by the lamp, 50 Lab from the green ones)."""
    groups = _groups(white, black)
    share = max(MAX_OFF_COLOUR_SQUARES, len(colours) // OFF_COLOUR_SHARE)
    if _all_apart(colours, groups) or np.all(_rim_reads(rims, white, black)[0][odd]):
        return share
    merged = _merge_alike(colours, groups)
    washed = np.all(_washed_men(colours, white, black)[odd])
    empties = next(g for g in merged if (g & ~(white | black)).any())
    if washed and all(_stand_apart(colours, empties, g) for g in merged if g is not empties):
        return share
    return MAX_OFF_COLOUR_SQUARES


def _washed_men(
    colours: npt.NDArray[np.float64], white: npt.NDArray[np.bool_], black: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Men lighter (Lab L) than their group's median: what a lamp's glare leaves."""
    median_lightness = np.zeros(len(colours))
    for group in (white, black):
        median_lightness[group] = np.median(colours[group, 0])
    return np.asarray((white | black) & (colours[:, 0] > median_lightness), np.bool_)


def _all_apart(colours: npt.NDArray[np.float64], groups: list[npt.NDArray[np.bool_]]) -> bool:
    """Two groups at least, every two standing apart (:func:`_stand_apart`)."""
    return len(groups) >= 2 and all(
        _stand_apart(colours, a, b) for i, a in enumerate(groups) for b in groups[i + 1 :]
    )


def _spread(colours: npt.NDArray[np.float64], group: npt.NDArray[np.bool_]) -> float:
    """Median Lab distance of a group's squares from the group's median colour, over the
    squares within :data:`OFF_COLOUR_LAB` of it: the off-colour ones are judged apart,
    and would widen the spread they are judged by (e2e russian under `hard`, seed 752: a
    lamp's glare washed out four of the twelve purple men, and with them in, no two
    groups stood apart, and a man moved from the start looked like the merged group)."""
    members = colours[group]
    distances = np.linalg.norm(members - np.median(members, axis=0), axis=1)
    near = distances[distances <= OFF_COLOUR_LAB]
    return float(np.median(near if near.size else distances))


def _median_distance(
    colours: npt.NDArray[np.float64], a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]
) -> float:
    """Lab distance between two groups' median colours."""
    return float(np.linalg.norm(np.median(colours[a], axis=0) - np.median(colours[b], axis=0)))


def _stand_apart(
    colours: npt.NDArray[np.float64], a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]
) -> bool:
    """The two groups' median colours lie :data:`SEPARATED_SPREADS` times their spreads
    apart."""
    spreads = _spread(colours, a) + _spread(colours, b)
    return _median_distance(colours, a, b) >= SEPARATED_SPREADS * spreads


def _merge_alike(
    colours: npt.NDArray[np.float64], groups: list[npt.NDArray[np.bool_]]
) -> list[npt.NDArray[np.bool_]]:
    """The groups, any two that look alike (within :data:`OFF_COLOUR_LAB`, not standing
    apart) merged into one."""
    for i, a in enumerate(groups):
        for j in range(i + 1, len(groups)):
            b = groups[j]
            alike = _median_distance(colours, a, b) < OFF_COLOUR_LAB
            if alike and not _stand_apart(colours, a, b):
                rest = [g for k, g in enumerate(groups) if k not in (i, j)]
                return _merge_alike(colours, [a | b, *rest])
    return groups


def _groups(
    white: npt.NDArray[np.bool_], black: npt.NDArray[np.bool_]
) -> list[npt.NDArray[np.bool_]]:
    """The start position's groups: empty squares, White's men, Black's men (those it
    has)."""
    return [g for g in (~(white | black), white, black) if g.any()]


def _group_distances(
    colours: npt.NDArray[np.float64], groups: list[npt.NDArray[np.bool_]]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """Each square's Lab distance from its own group's median colour, from the nearest
    other group's (infinite when there is none), and that group's index."""
    medians = np.array([np.median(colours[g], axis=0) for g in groups])
    distances = np.linalg.norm(colours[:, None, :] - medians[None, :, :], axis=2)
    member = np.stack(groups, axis=1)
    own = np.where(member, distances, np.inf).min(axis=1)
    to_others = np.where(member, np.inf, distances)
    other, nearest = to_others.min(axis=1), to_others.argmin(axis=1)
    return np.asarray(own, np.float64), np.asarray(other, np.float64), nearest


def class_scatter(
    colours: npt.NDArray[np.float64], white: npt.NDArray[np.bool_], black: npt.NDArray[np.bool_]
) -> float:
    """Mean squared Lab distance of each square's centre colour from its group's mean, the
    groups being the empty squares, White's men and Black's men."""
    total = 0.0
    for group in (white, black, ~(white | black)):
        if group.any():
            total += float(((colours[group] - colours[group].mean(axis=0)) ** 2).sum())
    return total / len(colours)


def _calibration(
    variant: Variant,
    image: Image,
    found: BoardLocation,
    turns: int,
    prototypes: ColourPrototypes,
    fen: str | None,
) -> TableCalibration:
    height, width = image.shape[:2]
    return TableCalibration(
        variant=variant.name,
        size=found.size,
        image_size=(width, height),
        method=found.method,
        corners_px=[(float(x), float(y)) for x, y in found.corners_px],
        turns=turns,
        empty_lab=prototypes.empty,
        light_lab=prototypes.light,
        dark_lab=prototypes.dark,
        spread=prototypes.spread,
        light_is_white=prototypes.light_is_white,
        fen=fen,
    )

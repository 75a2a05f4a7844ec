"""Hands and motion: which squares are hidden, and whether the frame has settled.

A square is occluded where its rectified pixels differ from the last *stable* board image
and that difference is skin-coloured or still moving. A settled difference that is
neither is a piece that was moved, which the classifier must see, not a hand. The stable
image is refreshed once the whole board has been still for a few frames and what differs
is piece-sized (a moved man may well be skin-coloured: cream, red or wooden sets); a
large or edge-reaching difference is an arm and waits, and so does any change on a light
square, where no piece ever stands (a hand the colour of the board shows little more
than its outline), unless the square was not bare in the stable image either (a tall
tower's lean, top or shadow lay there, and has changed) or the change is the shadow of a
piece put down beside it (every channel darkened alike). A change that has stood still as
long as the whole board's stale refresh waits for settles there alone. Differences are
taken against the 3x3 neighbourhood, so the sway of a camera by a pixel is not motion,
and against the stable image brought to the frame's light over the light squares
(:mod:`vision.light`), so a camera's exposure or a spectator's shadow is no change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from vision.light import Blocks, in_light_of, square_blocks
from vision.locate import Image

FloatGrid = npt.NDArray[np.float64]
FloatImage = npt.NDArray[np.float32]
_Cell = TypeVar("_Cell", bound=np.generic)

SHADOW_HUE = 0.1
"""Largest spread of the three channels' ratios (now over stable) in a shadow: a piece's
shadow on a rendered light square spreads 0.02, a skin-coloured hand on pale wood 0.2."""
SHADOW_DARKER = 0.9
"""A shadow keeps less than this share of the light it falls on (0.45 measured)."""


def darkened_evenly(
    colour: FloatImage, stable: FloatImage, least_levels: float = 0.0
) -> npt.NDArray[np.bool_]:
    """Pixels (the last axis their channels) darker than in the stable image by one factor
    in every channel: a shadow, which keeps the hue of what it falls on (a hand, a sleeve
    or a finger does not). A channel under ``least_levels`` in the stable image is too
    dark to tell its ratio (the blue of dark wood, 10-15 levels, which a shadow leaves at
    2-4, where a level of the video's noise moves the ratio by 0.1) and is left out, unless
    every channel is."""
    ratio = colour / np.maximum(stable, 1.0)
    told = stable >= least_levels
    told |= ~told.any(axis=-1, keepdims=True)
    high = np.where(told, ratio, -np.inf).max(axis=-1)
    low = np.where(told, ratio, np.inf).min(axis=-1)
    even = (high - low <= SHADOW_HUE) & (ratio.mean(axis=-1) < SHADOW_DARKER)
    return np.asarray(even, np.bool_)


@dataclass(frozen=True, slots=True)
class OcclusionSettings:
    """Thresholds: ``change`` in levels (0..255) of any colour channel, ``still_frames``
    before a board image becomes the stable reference, ``cell_px`` the side of a cell in the
    rectified board image given to :meth:`OcclusionGate.update`. A changed region larger
    than ``hand_cells`` cells, or reaching the board's edge (an arm comes from outside), is
    a hand and keeps the stable image from refreshing, unless the board has been still for
    ``stale_frames`` (a reference taken with a hand in it, or before a bump, must not hold
    forever); a change that has itself stood still that long settles there alone, however
    much moves elsewhere. Neither ever takes in a change larger than ``hand_cells`` that
    covers over ``cover_cells`` cells (in a column game, whose towers lean, a change no
    larger than ``piece_cells`` over ``tower_cover_cells``) more of the bare light squares
    than it uncovers: a hand held still over the board (:meth:`OcclusionGate._covers`). One
    that uncovers more than it covers, by over ``cover_cells``, is a hand gone that the
    stable image had taken in, and settles once the board has been still for
    ``piece_frames`` (:meth:`OcclusionGate._revealed`). A
    light square (no piece ever stands there) whose inner part has changed by more than
    ``light_change`` also keeps the stable image from refreshing: a hand, an arm or their
    shadow is there, however piece-sized its change looks (a skin-coloured hand on a light
    wooden board changes little but its outline). With that check one still frame is enough
    to refresh (it was 3 before it): a moved cream man, skin-coloured to the gate, is hidden
    only until then, and the recorder's own 4 frames start a frame after the hand has gone
    rather than three. Once the board has been still for ``piece_frames``, a change that
    covers the middle of a playable square, is at most ``piece_cells`` cells and touches the
    edge over at most ``piece_edge_cells`` (in a column game, a change no larger than
    ``tower_edge_cells`` over as much, if it is no hand's cover) is a piece with its lean
    and shadow (a tall
    tower, a tilted camera, pale wood; a tall tower on an edge square leans and casts its
    shadow along the edge, over more than the cell an arm is allowed; a tall tower moved one
    square, where it stood and where it stands each leaning two cells, is one change of four
    or five cells, which at a limit of 3 waited for the stale refresh): it neither counts as
    a hand nor trips the light-square check. Not at once: a hand over the board pausing for
    a frame, its arm out of the picture, looks the same. Nor does a change where the stable
    image did not show the bare light square (within ``change`` of its light squares'
    median): what lay there changed, nothing was put on it; nor, once the board has been
    still for ``piece_frames``, a settled piece's shadow cast onto the light square beyond
    it (:meth:`OcclusionGate._shadows`), nor in a column game any shadow. While
    something holds the stable image, a settled piece at least ``apart_cells`` from every
    other change is not hidden (:meth:`OcclusionGate._apart`)."""

    change: float = 25.0
    still_frames: int = 1
    still_motion: float = 0.005
    cell_px: int = 16
    hand_cells: float = 1.5
    stale_frames: int = 90
    light_change: float = 0.1
    piece_cells: float = 6.0
    piece_edge_cells: float = 1.5
    piece_frames: int = 5
    cover_cells: float = 0.25
    tower_cover_cells: float = 0.8
    tower_edge_cells: float = 2.0
    apart_cells: float = 1.0


@dataclass(frozen=True, slots=True)
class Gate:
    """Per-cell occlusion (N, N) in [0, 1], White view; board occlusion and motion in [0, 1]."""

    cells: FloatGrid
    occlusion: float
    motion: float


def skin_mask(bgr: Image) -> npt.NDArray[np.bool_]:
    """Skin-coloured pixels by the classic YCrCb box (Chai and Ngan, 1999).

    Hand-written because OpenCV has no skin model; the box is wide on purpose, since a
    false positive only delays a reading until the hand has gone.
    """
    ycrcb = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycrcb[..., 1], ycrcb[..., 2]
    return np.asarray((cr >= 135) & (cr <= 180) & (cb >= 85) & (cb <= 135), np.bool_)


def changed_pixels(
    image: FloatImage, reference: FloatImage, threshold: float
) -> npt.NDArray[np.bool_]:
    """Pixels outside the range of their 3x3 neighbourhood in ``reference`` by more than
    ``threshold`` in any colour channel: a change, where a board shifted by a pixel
    (camera sway, a tracked fit kept exactly) changes nothing at the edges of squares and
    pieces. Per channel, because a hand can be as light as a wooden board in grey."""
    kernel = np.ones((3, 3), np.uint8)
    high = cv2.dilate(reference, kernel)
    low = cv2.erode(reference, kernel)
    outside = (image > high + threshold) | (image < low - threshold)
    return np.asarray(outside.any(axis=2) if outside.ndim == 3 else outside, np.bool_)


@dataclass
class OcclusionGate:
    """Keeps the previous and the last stable rectified boards of one camera."""

    size: int
    settings: OcclusionSettings = field(default_factory=OcclusionSettings)
    dark_parity: int = 1
    """Pieces stand on the cells whose ``(row + column) % 2`` is this, as in
    :attr:`rules.geometry.BoardGeometry.dark_parity` (Lasca's are the other colour)."""
    towers: bool = False
    """A column game's board: its towers lean over the light squares beside them
    (:meth:`_covers`)."""
    _previous: npt.NDArray[np.float32] | None = None
    _stable: npt.NDArray[np.float32] | None = None
    _still_count: int = 0
    _unmoved: npt.NDArray[np.int32] | None = None
    """Per pixel, the frames it has shown a still change (:meth:`_count_unmoved`)."""
    _cover: npt.NDArray[np.bool_] | None = None
    """The last frame's hand held over the board (:meth:`_covers`), None if it was not
    looked for."""
    _blocks: Blocks | None = None

    def update(
        self, board_bgr: Image, *, arm: bool = False, leans: npt.NDArray[np.bool_] | None = None
    ) -> Gate:
        """Gate one rectified board image (N*cell_px square, BGR). While an ``arm``
        crosses the board's border (:mod:`vision.arms`) nothing settles into the stable
        image: its hand is over the board, maybe held still and the colour of what it
        covers. ``leans``: the pixels a column game's stacks may cover
        (:mod:`vision.leans`), where a change on a light square is a tower's top."""
        s = self.settings
        colour = np.asarray(cv2.GaussianBlur(board_bgr, (3, 3), 0), np.float32)
        previous = self._previous if self._previous is not None else colour
        moving = changed_pixels(colour, previous, s.change)
        stable = colour
        if self._stable is not None:
            stable = in_light_of(self._stable, colour, self._light_blocks())
        changed = changed_pixels(colour, stable, s.change)
        # Where the frame shows the stable board again (a hand has just left) nothing is
        # moving: the frame after the hand is good evidence at once (200 ms latency).
        motion = float((moving & changed).mean())
        unmoved = self._count_unmoved(changed, moving)
        # Skin or moving; or part of a large change however coloured (a sleeve, a glove,
        # dark skin the colour box misses, an arm held still).
        hidden = changed & (moving | skin_mask(board_bgr)) | self._hand_regions(changed)
        self._previous = colour
        self._still_count = self._still_count + 1 if motion < s.still_motion else 0
        if arm and self._stable is not None:
            return self._gate(hidden, moving, motion)
        still = self._still_count >= s.still_frames
        pieces = self._settled_pieces(changed, colour, stable) if still else np.zeros_like(changed)
        if self._stable is None or (
            still
            and not self._hand_regions(hidden & ~pieces).any()
            and not self._light_covered(changed & ~pieces, colour, stable, leans)
        ):
            self._stable = colour
            self._cover = None
        elif self._still_count >= s.stale_frames or (unmoved >= s.stale_frames).any():
            # Stale: what has stood still that long settles (the whole board, or a
            # change on its own), but never a hand held over the board.
            stale = self._still_count >= s.stale_frames
            self._cover = self._covers(changed, colour, stable, self._cover)
            settled = ~self._cover
            if not stale:
                settled &= changed & (unmoved >= s.stale_frames)
            self._stable = np.where(settled[..., None], colour, stable)
        else:
            self._cover = None
            if self._still_count >= s.piece_frames:
                revealed = self._revealed(changed, colour, stable)
                self._stable = np.where(revealed[..., None], colour, stable)
                hidden &= ~self._apart(pieces, changed & ~pieces)
        return self._gate(hidden, moving, motion)

    def _gate(
        self, hidden: npt.NDArray[np.bool_], moving: npt.NDArray[np.bool_], motion: float
    ) -> Gate:
        cells = self._per_cell(self._around_hands(hidden, moving))
        return Gate(cells=cells, occlusion=float(hidden.mean()), motion=motion)

    def _count_unmoved(
        self, changed: npt.NDArray[np.bool_], moving: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int32]:
        """Per pixel, the frames it has shown a change from the stable image without
        moving. Where that reaches ``stale_frames`` the change settles into the stable
        image, there only, however much moves elsewhere: the whole board's stale refresh
        waits for a board still that long, which a fast game never gives, and one change
        the gate cannot tell from an arm (a tall tower's lean along the edge, bashni
        generated#2 hard in the e2e run) held every later move for good. A hand held
        still that long was taken in by the whole board's refresh before, its twitching
        fingertips under ``still_motion``. A pixel that shows the stable image again
        starts anew, so a hand's shadow creeping in slowly is not taken for a still
        change."""
        before = self._unmoved if self._unmoved is not None else np.zeros(moving.shape, np.int32)
        self._unmoved = np.where(changed & ~moving, before + 1, 0).astype(np.int32)
        return self._unmoved

    def _covers(
        self,
        changed: npt.NDArray[np.bool_],
        colour: FloatImage,
        stable: FloatImage,
        held: npt.NDArray[np.bool_] | None = None,
    ) -> npt.NDArray[np.bool_]:
        """The parts of ``changed`` that are a hand or arm held over the board: larger than
        ``hand_cells`` and covering more of the bare light squares than they uncover, by
        over ``cover_cells`` (a shadow, darkening every channel alike, covers nothing).
        However long such a change stays still it must not settle into the stable image, or
        the squares under it read as whatever the hand looks like (a player thinking with
        his hand over a piece for 12 s lost the game at that ply in the e2e run, before
        this). A hand in the stable image that has gone uncovers, and a lamp dimmed or a
        player leaning into the light darkens every channel alike: those settle. Parts
        within a quarter of a cell of each other count as one: a sleeve the colour of the
        board splits an arm into pieces that must not settle one by one.

        A draughts man or king leans no further than its own square; in a column game a
        tall tower moved leans over the light square beside it, so a change no larger than
        a tower with its lean (``piece_cells``) needs ``tower_cover_cells`` (bashni
        generated#2 hard in the e2e run: a tower's change of 2 cells covering 0.6 cell of
        light square, held as a hand, lost the game at ply 54; pondering hands over bashni
        boards covered 0.97-2.2). A part of the last frame's cover (``held``) stays one
        while it covers over ``cover_cells``: a hand's sway must not take it under the
        column margin for one frame and settle it (bashni generated#0 under ponder, lost
        at ply 9 before this)."""
        if not changed.any():
            return changed
        px = self.settings.cell_px
        grid, area, added, uncovered = self._light_balance(changed, colour, stable)
        s = self.settings
        # A tower with its lean is at most piece_cells: past that, the draughts margin.
        tower_sized = area <= s.piece_cells * px**2
        margin = np.where(self.towers & tower_sized, s.tower_cover_cells, s.cover_cells)
        large = area > s.hand_cells * px**2
        cover = large & (added > uncovered + margin * px**2)
        if held is not None:  # once a hand, the draughts margin keeps it one
            still_held = np.bincount(grid[held & changed], minlength=len(area)) > 0
            cover |= large & still_held & (added > uncovered + s.cover_cells * px**2)
        cover[0] = False  # the background label
        # With the pixels around them: refreshed, those would bring the hand's edge into
        # the 3x3 neighbourhoods its change is measured against, and each stale refresh
        # would eat a pixel's rim off it.
        return np.asarray(cover[grid], np.bool_)

    def _apart(
        self, pieces: npt.NDArray[np.bool_], rest: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.bool_]:
        """The settled ``pieces`` (:meth:`_settled_pieces`) at least ``apart_cells`` from
        every other change (``rest``): while something else holds the stable image, they
        are what the board shows, not a hand. Hidden as skin until the whole board
        refreshed, moved cream men stayed hidden in lasca generated#0 under ``hard``
        (seed 139) while a tower's shadow squares away held the board, the whole board
        counted over the recorder's limit, and four plies were caught up in the wrong
        order. A hand the colour of the board shows in bits, but within a cell of one
        another: none of the kept ``ponder`` videos of runs 28-30 changed a ply or a
        flag with this (docs/vision.md)."""
        if not pieces.any() or not rest.any():
            return np.zeros_like(pieces)
        reach = int(2 * self.settings.apart_cells * self.settings.cell_px) | 1
        near = cv2.dilate(rest.astype(np.uint8), np.ones((reach, reach), np.uint8)) > 0
        grid, area, _ = self._regions(pieces)
        touched = np.bincount(grid[pieces & near], minlength=len(area)) > 0
        touched[0] = True  # the background label
        return np.asarray(pieces & ~touched[grid], np.bool_)

    def _revealed(
        self, changed: npt.NDArray[np.bool_], colour: FloatImage, stable: FloatImage
    ) -> npt.NDArray[np.bool_]:
        """The parts of ``changed`` that show more of the bare light squares than the stable
        image did, by over ``cover_cells``: a hand the stable image took in has gone, and
        the board shows again what it and its shadow hid. A hand held still the colour of
        the light squares changes the board only over the dark squares and the pieces,
        square by square, and is taken in as pieces put down once the board has been still
        for ``piece_frames`` (brazilian generated#0 under ponder in the e2e run). Gone, it
        left a change of a hand's size, which held the stable image until the whole board
        stood still for ``stale_frames``, every frame meanwhile dropped (17 s and two
        moves unseen after ply 6). A hand coming in covers light squares; it reveals none."""
        if not changed.any():
            return changed
        grid, _, added, uncovered = self._light_balance(changed, colour, stable)
        revealed = uncovered > added + self.settings.cover_cells * self.settings.cell_px**2
        revealed[0] = False  # the background label
        return np.asarray(changed & revealed[grid], np.bool_)

    def _light_balance(
        self, changed: npt.NDArray[np.bool_], colour: FloatImage, stable: FloatImage
    ) -> tuple[
        npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
    ]:
        """The parts of ``changed`` (those within a quarter of a cell of each other joined)
        and, per part, its area and how many pixels of bare light square it covers and
        uncovers (:meth:`_covered`; a shadow, darkening every channel alike, covers
        nothing)."""
        px = self.settings.cell_px
        now, before = self._covered(colour), self._covered(stable)
        reach = np.ones((px // 4 + 1, px // 4 + 1), np.uint8)
        joined = cv2.dilate(changed.astype(np.uint8), reach) > 0
        grid, area, _ = self._regions(changed, joined)
        added = np.bincount(
            grid[changed & now & ~before & ~darkened_evenly(colour, stable)],
            minlength=len(area),
        )
        uncovered = np.bincount(grid[changed & before & ~now], minlength=len(area))
        return grid, area, added, uncovered

    def _around_hands(
        self, hidden: npt.NDArray[np.bool_], moving: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.bool_]:
        """``hidden`` with its hands and whatever moves grown by half a square: where a
        hand's colour matches the board's its pixels do not change, fingertips coming in
        show only their tips, and the edge of a hand a few pixels off a square still hides
        part of a piece's side."""
        hands = self._hand_regions(hidden) | (hidden & moving)
        if not hands.any():
            return hidden
        reach = self.settings.cell_px | 1
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        grown = cv2.dilate(hands.astype(np.uint8), kernel)
        return np.asarray(hidden | (grown > 0), np.bool_)

    def _hand_regions(self, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The parts of ``mask`` that are a hand rather than a piece put down: connected
        regions larger than ``hand_cells`` cells, or a quarter of that reaching over more
        than a cell of the board's edge."""
        if not mask.any():
            return mask
        grid, area, contact = self._regions(mask)
        limit = self.settings.hand_cells * self.settings.cell_px**2
        across = contact > self.settings.cell_px
        hand = (area > limit) | (across & (area > limit / 4))
        hand[0] = False  # the background label
        return np.asarray(hand[grid], np.bool_)

    def _settled_pieces(
        self, changed: npt.NDArray[np.bool_], colour: FloatImage, stable: FloatImage
    ) -> npt.NDArray[np.bool_]:
        """:meth:`_pieces` and their :meth:`_shadows` once the board has been still for
        ``piece_frames``; else none. In a column game also a tower along the edge: a change
        no larger than ``tower_edge_cells`` that touches the edge over up to as much and is
        no hand's cover (:meth:`_covers`). A taller tower leans further along the edge:
        bashni's five-disc tower on a5 under the e2e's hard condition touched it over 1.6
        cells, was held as an arm, and the stable image stood still from then on, every
        moved red man hidden as skin until the board was too hidden to read (seed 88, lost
        at ply 52). A hand held at the edge covers the light squares beside it, a tower's
        lean less; a wrist left at the edge of the last frame's cover stays one; and a hand
        resting at the edge is larger (3.8-4.8 cells in lasca generated#0 under ``ponder``,
        seed 31, where taking it in held three plies back 20 s)."""
        if self._still_count < self.settings.piece_frames:
            return np.zeros_like(changed)
        pieces = self._pieces(changed)
        if self.towers:
            edge = self.settings.tower_edge_cells
            edge_towers = self._pieces(changed & ~pieces, edge, largest_cells=edge)
            if edge_towers.any():
                pieces |= edge_towers & ~self._covers(changed, colour, stable, self._cover)
        return pieces | self._shadows(changed & ~pieces, pieces, colour, stable)

    def _pieces(
        self,
        changed: npt.NDArray[np.bool_],
        edge_cells: float | None = None,
        largest_cells: float | None = None,
    ) -> npt.NDArray[np.bool_]:
        """The connected parts of ``changed`` that are a piece put down or taken away:
        covering at least half the middle of a playable square (where a man stands), no
        larger than ``largest_cells`` (``piece_cells`` by default) and touching the board's
        edge over at most ``edge_cells`` (``piece_edge_cells`` by default). With its shadow
        or its top leaning into the next squares a tall tower (bashni, lasca) is two cells
        or more, and reaches into the middle of a light square; a hand on the board is
        larger or comes in across the edge, and a skin-coloured one on a board of its colour
        changes only in bits, square by square (see :meth:`_light_changed`). Gaps of a pixel
        or two are closed before the parts are told apart, each part measured by its own
        pixels: in low light an officer's dark stripe, or a dark tower's side on a dark
        square, does not change, and cuts a tower into parts none of which covers its square
        (lasca generated#0 hard)."""
        if not changed.any():
            return changed
        closing = np.ones((3, 3), np.uint8)
        joined = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, closing) > 0
        grid, area, contact = self._regions(changed, joined)
        grid = np.where(changed, grid, 0)
        n, px = self.size, self.settings.cell_px
        inner = self._middles(grid)
        per_cell = inner.transpose(0, 2, 1, 3).reshape(n * n, -1)[~self._light_cells().ravel()]
        labels = len(area)
        counts = np.stack([np.bincount(cell, minlength=labels) for cell in per_cell])
        covers = counts.max(axis=0) >= per_cell.shape[1] / 2
        within = contact <= (edge_cells or self.settings.piece_edge_cells) * px
        largest = largest_cells or self.settings.piece_cells
        piece = covers & (area <= largest * px**2) & within
        piece[0] = False  # the background label
        return np.asarray(piece[grid], np.bool_)

    def _shadows(
        self,
        changed: npt.NDArray[np.bool_],
        pieces: npt.NDArray[np.bool_],
        colour: FloatImage,
        stable: FloatImage,
    ) -> npt.NDArray[np.bool_]:
        """The changed pixels of the light squares that are a piece's shadow: darker than
        the stable image by one factor in every channel (a shadow keeps the hue of what it
        falls on; a hand, a sleeve or a finger does not), and within a quarter of a cell of
        a settled piece, the two together no larger than ``piece_cells``. A shadow cast
        across a square's edge is cut off from its piece by a blind line of 1-4 px: there
        the 3x3 neighbourhood of the reference spans both squares' colours, and the
        piece's dark rim matches the dark square. On an edge square a piece and its
        shadow may span more than a cell along the edge, so the edge is not asked about;
        a shadow let in wrongly (a still hand's, beside a moved piece) costs little: the
        stable image holds a shadow, not a hand, and the hand is seen where it is. bashni
        generated#1 in the e2e run: a man's shadow on the light square beyond it held the
        stable image for good."""
        if not pieces.any():
            return pieces
        px = self.settings.cell_px
        even = darkened_evenly(colour, stable)
        shadows = np.asarray(changed & self._light_pixels(changed.shape) & even, np.bool_)
        if not shadows.any():
            return shadows
        reach = np.ones((px // 4 + 1, px // 4 + 1), np.uint8)  # joins gaps up to px // 4
        joined = cv2.dilate((pieces | shadows).astype(np.uint8), reach) > 0
        grid, area, _ = self._regions(pieces | shadows, joined)  # not the gaps joined
        with_piece = np.bincount(grid[pieces], minlength=len(area)) > 0
        cast = with_piece & (area <= self.settings.piece_cells * px**2)
        cast[0] = False  # the background label
        return np.asarray(shadows & cast[grid], np.bool_)

    def _regions(
        self, mask: npt.NDArray[np.bool_], joined: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The connected regions of ``mask``: their labels, each label's area, and how many
        pixels of the board's edge it touches. With ``joined`` (``mask`` with gaps bridged),
        the regions are ``joined``'s, each measured by the pixels of ``mask`` it holds.
        An arm crosses the edge over more than a cell; a man on an edge square touches it
        over less. Measured where the region meets the edge, not by its extent along it: a
        man emptied from or put on an edge square, with its shadow or its top leaning out,
        spans more than a cell along the edge (pale wood, a tilted camera) while touching
        it over half of one. The outermost two pixels, because they flicker as the edge
        shifts by a fraction of a pixel."""
        _, labels, stats, _ = cv2.connectedComponentsWithStats(
            (mask if joined is None else joined).astype(np.uint8), connectivity=8
        )
        grid = np.asarray(labels, np.int32)
        area = np.asarray(stats, np.int64)[:, cv2.CC_STAT_AREA]
        if joined is not None:
            area = np.bincount(grid[mask], minlength=len(area)).astype(np.int64)
        band = (grid[:2], grid[-2:], grid[:, :2].T, grid[:, -2:].T)
        lines = [np.bincount(line, minlength=len(area)) for edge in band for line in edge]
        contact = np.asarray(np.max(lines, axis=0), np.int64)
        return grid, area, contact

    def _light_covered(
        self,
        changed: npt.NDArray[np.bool_],
        colour: FloatImage,
        stable: FloatImage,
        leans: npt.NDArray[np.bool_] | None = None,
    ) -> bool:
        """:meth:`_light_changed`, counting only what changed where the stable image showed
        the bare light square (:meth:`_covered`; worked out only where a light square
        has changed at all: most frames pay nothing for it). In a column game, not a
        shadow either (darkened evenly): a tall tower's shadow reaches further across the
        light square than a quarter cell from the tower's change, which on a dark square
        may show only at the tower's top (lasca generated#0 under ``hard``, seed 139:
        every new shadow held the board, and 16 plies went unseen). In a draughts game a
        piece's shadow lies beside its change (:meth:`_shadows`), and a shadow further
        off is a hand's (portuguese generated#0 under ``ponder``, seed 97: let off, it
        let a still hand in, and plies 51-60 were lost). Nor, in a column game, what a
        stack read may cover (``leans``): a tower's top leaning over the light square
        beside it, whose side on its dark square changed too little to be seen (lasca
        generated#0 under ``hard``, seed 189, purple men on dark wood: the stable image
        held from ply 48, and the game was lost at ply 50)."""
        if not self._light_changed(changed):
            return False
        bare = changed & ~self._covered(stable)
        if self.towers:
            bare &= ~darkened_evenly(colour, stable)
            if leans is not None:
                bare &= ~leans
        return self._light_changed(bare)

    def _covered(self, image: FloatImage) -> npt.NDArray[np.bool_]:
        """Pixels of the light squares that do not show the bare light square in ``image``.
        In the stable image: a tall tower's lean, its top or a shadow lay there. What changes
        there is what covered it: the tower taken down or away, its top captured or
        crowned (lasca generated#3, bashni generated#0 hard in the e2e run); a hand put
        over a light square covers the bare square beside. The bare colour is the median
        of ``image``'s own light squares: for the stable image its own, not the new
        frame's, since a board fitted a row off shows no light square bare and its change
        must count (lasca generated#1 hard, whose grid fit slipped for 50 frames). In a new
        frame: what a hand covers (:meth:`_covers`), against the new frame's bare colour,
        as the light may have changed."""
        middles = self._middles(image).transpose(0, 2, 1, 3, 4)[self._light_cells()]
        bare = np.median(middles.reshape(-1, image.shape[2]), axis=0)
        is_bare = (np.abs(image - bare) <= self.settings.change).all(axis=2)
        covered = self._light_pixels(image.shape[:2]) & ~is_bare
        return np.asarray(covered, np.bool_)

    def _light_changed(self, changed: npt.NDArray[np.bool_]) -> bool:
        """Whether the inner part of a light square has changed: pieces stand only on
        playable squares, so a change there is a hand, an arm or a shadow (in the square's
        :meth:`_middles`)."""
        inner = self._middles(changed).mean(axis=(1, 3))
        return bool((inner[self._light_cells()] > self.settings.light_change).any())

    def _light_blocks(self) -> Blocks:
        """The light squares' middles, where the stable image is brought to the frame's
        light (:func:`vision.light.in_light_of`): no piece stands there."""
        if self._blocks is None:
            self._blocks = square_blocks(self.size, self.settings.cell_px, self._light_cells())
        return self._blocks

    def _light_pixels(self, shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
        """A mask of ``shape`` (the board image's rows and columns): the light squares'
        pixels."""
        n, px = self.size, self.settings.cell_px
        light = np.zeros(shape, np.bool_)
        light[: n * px, : n * px] = np.kron(self._light_cells(), np.ones((px, px), np.bool_))
        return light

    def _light_cells(self) -> npt.NDArray[np.bool_]:
        """(N, N): the light squares, where no piece stands."""
        rows, cols = np.indices((self.size, self.size))
        return np.asarray((rows + cols) % 2 != self.dark_parity, np.bool_)

    def _middles(self, image: npt.NDArray[_Cell]) -> npt.NDArray[_Cell]:
        """``image`` (the board, N*cell_px square, any channels after) as (N, middle, N,
        middle, ...): each square without a quarter of it along each side, where a leaning
        piece's top or the blur of a square's edge may reach."""
        n, px = self.size, self.settings.cell_px
        margin = px // 4
        cells = image[: n * px, : n * px].reshape(n, px, n, px, *image.shape[2:])
        return cells[:, margin : px - margin, :, margin : px - margin]

    def _per_cell(self, mask: npt.NDArray[np.bool_]) -> FloatGrid:
        n, px = self.size, self.settings.cell_px
        return np.asarray(
            mask[: n * px, : n * px].reshape(n, px, n, px).mean(axis=(1, 3)), np.float64
        )

"""An arm reaching over the board, seen where it must cross: the ring of the board's
border just outside the playing grid.

Why: a hand held still over the board, the colour of its light squares or of its men,
changes the grid only in fragments, which the hand gate can take for pieces put down
(docs/vision.md, "A still hand taken for pieces"); the recorder then read a move that was
never played. Every hand over the board comes with an arm, and the arm crosses the
board's border on its way in: a change there that runs from the ring's outer edge to
its inner edge is an arm, wherever its hand is and whatever colour it is. A man's
shadow or a glint touches the ring from the grid's side only, a hand resting on the
table beside the board from outside only. A tall tower on an edge square, under a
tilted camera, leans right across it (e2e lasca `hard` seed 139: an arm for 1,068
frames), so in column games the watch leaves out the ring's pixels the stacks read may
cover (:mod:`vision.leans`), now or when its reference was learned. Its cast shadow
crosses the ring too, darker by one factor in every channel or, once the tower has gone,
lighter so: where the stacks' shadows may fall, now or then, such a change is left out
as well (an arm's sleeve seldom keeps the hue of the border it covers, and its hand is
the gate's to see). The ring's corners, where the markers lie, are left out too: a fit
a fraction of a pixel off changes a marker's edges from one side of the ring to the
other.

The ring is compared with its last picture without an arm (the *bare* ring), taken
again once the ring has stood still for ``settle_frames``, has hardly changed from it and
the hand gate saw nothing over the grid: a hand's shadow or wrist, learned, would make
the hand's going look like an arm, or hide it while it stays. The first frame's ring is
the bare one until then, and a device restarted mid-game may first see a player's arm:
its going looked like an arm for good (the demo video cut at frame 664: no move recorded
after it). So until the bare ring has stood still, a ring that stands still in two spells,
with motion between, crossed from the first frame's each time, is taken as bare instead
(a still arm rarely comes back to the very pixels it left). What changes the ring by
less than an arm's change (a hand the colour of a pale border in dim light, an arm's
shadow on dark wood) is learned all the same, so a ring that stands still crossed from
the bare ring is compared too with the bare ring from before the still spell that
learned it, and is bare again if that one does not cross it. A change of light (the
camera's exposure, a spectator's shadow) is taken out by bringing the reference to the
frame's light along the ring (:mod:`vision.light`). A crossing change that stands
still for ``stale_frames`` is learned too, as the *left* picture (something left lying
across the border must not blind the recorder for good), and is forgotten when the ring
shows its bare picture again. Both are kept as the camera's frames and cut again
whenever the tracker fits the board anew: a picture cut through a fit a row off (under
an arm, in low light) would otherwise differ from every later frame; but only where the
new fit fits the kept frame's board too, not a board knocked since (:meth:`ArmWatch._refit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.leans import Mask
from vision.light import Blocks, in_light_of, ring_blocks
from vision.locate import BoardLocation, Image
from vision.occlusion import changed_pixels, darkened_evenly
from vision.rectify import warp_board

FloatImage = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ArmSettings:
    """``ring_cells``: the ring's width outside the grid, in cells (printed boards and the
    e2e renders have borders of 0.7 cells or more); ``change``: levels of any channel, as
    the hand gate's; ``crossing_share``: the least share of the ring a crossing change
    covers (an arm across one side covers 0.03-0.2 of it); ``still_motion``: the largest
    share of the ring changing from one frame to the next that counts as still;
    ``settle_frames`` and ``stale_frames`` as in the module's docstring (the e2e's
    pondering hands hover 12 s, 120 frames); ``widest_share``: the largest share of the
    grid's side a crossing change may run along and be an arm (arms over 8x8 boards in
    the kept e2e videos: 2 cells at the median, 5.6 at the 99th percentile, 6.9 at
    most); ``shadow_least_levels``: a channel of the ring's reference darker than this
    tells no shadow's ratio (:func:`vision.occlusion.darkened_evenly`): the border is
    often dark wood, whose blue channel of 10-15 levels a tower's shadow leaves at 2-4, a
    ratio the video's noise spreads from 0.15 to 0.3 where the others read 0.4 (e2e lasca
    `default` seed 600: a corner tower's shadow was an arm every other frame, and the
    last three plies were lost)."""

    ring_cells: float = 0.5
    change: float = 25.0
    crossing_share: float = 0.005
    still_motion: float = 0.002
    settle_frames: int = 10
    stale_frames: int = 600
    widest_share: float = 0.75
    shadow_least_levels: float = 24.0


@dataclass
class _Picture:
    """A camera frame kept as a reference, its ring cut through a fit of its board, the
    ring's pixels the stacks standing then may cover, and those their shadows may."""

    frame: Image
    ring: FloatImage
    hidden: Mask
    shade: Mask
    fit: BoardLocation
    """The fit ``ring`` is cut through: the one the frame was kept under, or a later fit
    of a board that had not moved since (:meth:`ArmWatch._refit`)."""


@dataclass
class ArmWatch:
    """Watches the ring around one camera's board."""

    size: int
    cell_px: int
    settings: ArmSettings = field(default_factory=ArmSettings)
    turns: int = 0
    """Quarter turns to the White view, in which the ring is cut."""
    _bare: _Picture | None = None
    _left: _Picture | None = None
    _fit: BoardLocation | None = None
    _previous: FloatImage | None = None
    _still_count: int = 0
    _bare_settled: bool = False
    """Whether the bare ring has stood still (not yet: it is the first frame's)."""
    _candidate: _Picture | None = None
    """While it has not: the last ring that stood still crossed from the first frame's."""
    _earlier: _Picture | None = None
    """The bare ring as it was before the present still spell first learned it again."""
    _learned_in_spell: bool = False
    """Whether the present still spell has learned the bare ring again yet."""
    _ring: npt.NDArray[np.bool_] = field(init=False)
    _outer: npt.NDArray[np.bool_] = field(init=False)
    _inner: npt.NDArray[np.bool_] = field(init=False)
    _least: float = field(init=False)
    _blocks: Blocks = field(init=False)

    def __post_init__(self) -> None:
        ring = self.ring_px
        side = self.size * self.cell_px + 2 * ring
        self._ring = np.ones((side, side), np.bool_)
        self._ring[ring : side - ring, ring : side - ring] = False
        for y in (slice(0, ring), slice(side - ring, side)):
            for x in (slice(0, ring), slice(side - ring, side)):
                self._ring[y, x] = False  # the corners, where the markers lie
        self._outer = self._ring.copy()  # its outermost two pixels
        self._outer[2 : side - 2, 2 : side - 2] = False
        self._inner = self._ring.copy()  # its innermost two
        self._inner[: ring - 2] = self._inner[side - ring + 2 :] = False
        self._inner[:, : ring - 2] = self._inner[:, side - ring + 2 :] = False
        self._least = self.settings.crossing_share * float(self._ring.sum())
        self._blocks = ring_blocks(self.size, self.cell_px, ring)

    @property
    def ring_px(self) -> int:
        """The ring's width in pixels, at ``cell_px`` a cell."""
        return max(4, round(self.settings.ring_cells * self.cell_px))

    def update(
        self,
        frame: Image,
        location: BoardLocation,
        *,
        board_clear: bool = True,
        hidden: Mask | None = None,
        shade: Mask | None = None,
    ) -> bool:
        """Whether an arm crosses the ring around the board ``location`` in ``frame``,
        leaving out the pixels of the framed board that stacks may cover, ``hidden``
        (:func:`vision.leans.lean_mask`), and the shadows' changes where their shadows
        may fall, ``shade`` (:func:`vision.leans.stack_shadows`).

        The bare ring is learned again only where it has hardly changed (less than a
        crossing change's least share) and the hand gate saw nothing over the grid in the
        last frame (``board_clear``): a hand held still, the colour of the board, leaves
        the gate clear and its wrist over a wooden border may change the ring too little
        to cross it (e2e pool `ponder` seed 175: learned, the hand was lost to sight)."""
        s = self.settings
        ring = self._cut(frame, location)
        hidden = self._ring & hidden if hidden is not None else np.zeros_like(self._ring)
        shade = self._ring & shade if shade is not None else np.zeros_like(self._ring)
        if location is not self._fit:
            self._refit(location, ring)

        def kept() -> _Picture:
            return _Picture(frame.copy(), ring, hidden, shade, location)

        previous = self._previous if self._previous is not None else ring
        self._previous = ring
        moving = changed_pixels(ring, previous, s.change) & self._ring
        still = moving.sum() <= s.still_motion * self._ring.sum()
        self._still_count = self._still_count + 1 if still else 0
        self._learned_in_spell &= still
        if self._bare is None:
            self._bare = kept()
        changed = self._changed(ring, self._bare, hidden, shade)
        crosses_bare = self._crossing(changed)
        arm = crosses_bare
        if arm and self._left is not None:
            arm = self._crossing(self._changed(ring, self._left, hidden, shade))
        if not arm and self._left is not None and not crosses_bare:
            self._left = None  # what was left across the border has gone
        settled = self._still_count >= s.settle_frames
        spell_begins = self._still_count == s.settle_frames
        if spell_begins and crosses_bare and not self._bare_settled:
            if self._bare_if_still_twice(kept()):
                arm = False
        elif board_clear and self._left is None and settled and self._slight(changed):
            if not self._learned_in_spell:
                self._earlier, self._learned_in_spell = self._bare, True
            self._bare = kept()
            self._bare_settled, self._candidate = True, None
        elif arm and settled and self._left is None and self._as_before(ring, hidden, shade):
            self._bare = kept()
            self._learned_in_spell, arm = True, False
        elif arm and self._still_count >= s.stale_frames:
            self._left = kept()
            arm = False
        return arm

    def _refit(self, location: BoardLocation, board: FloatImage) -> None:
        """Cut again through ``location``, a new fit, each reference whose own board it
        fits too: one whose frame, so cut, differs from ``board`` (the present frame's
        board and ring, cut through ``location``) no more than as cut through its own fit.
        So a ring kept through a fit a row off (under an arm, in low light) is right
        again once the fit is (bashni `hard`, seed 88), while one kept before the board
        was knocked stays cut where the board then lay (e2e `knocked`, seed 900: cut
        through the new fit, the old frames were an arm for good, and the game was lost
        from the knock on). The whole framed board is compared, on the mean change: a
        hand over it changes as much against either cut."""
        self._fit, self._previous = location, None
        for picture in (self._bare, self._left, self._candidate, self._earlier):
            if picture is None or picture.fit is location:
                continue
            again = self._cut(picture.frame, location)
            if _mean_change(board, again) <= _mean_change(board, picture.ring):
                picture.ring, picture.fit = again, location

    def _as_before(self, ring: FloatImage, hidden: Mask, shade: Mask) -> bool:
        """Whether ``ring``, standing still and crossed from the bare ring, has hardly
        changed from :attr:`_earlier` (as the bare ring is learned: less than a crossing
        change's least share): what the bare ring took in during a still spell was no
        bare border, and has gone. In dim light a hand the colour of a pale border, held
        still, or an arm's shadow cast ahead of it on dark wood changes the ring by less
        than an arm's change (18 levels in e2e english `hall`, seed 653), is learned with
        it, and its going was an arm for good (english lost from ply 7, pool from ply 18
        under seed 651's `hall`). Merely crossed from none of :attr:`_earlier` is not
        enough: a player's arms cross the same part of the border each time, and an
        earlier ring learned as the last arm came in let the next one through, held still
        (e2e bashni `ponder`, seed 579: lost at ply 14)."""
        if self._earlier is None:
            return False
        return self._slight(self._changed(ring, self._earlier, hidden, shade))

    def _bare_if_still_twice(self, still: _Picture) -> bool:
        """Take ``still``, a ring standing still that an arm crosses from the first
        frame's, as the bare ring if it stood so in the still spell before too (the arm
        was the first frame's); else keep it as the candidate. Whether it was taken."""
        candidate, self._candidate = self._candidate, still
        if candidate is None:
            return False
        if not self._slight(self._changed(still.ring, candidate, still.hidden, still.shade)):
            return False
        self._bare, self._left, self._candidate, self._bare_settled = still, None, None, True
        return True

    def _cut(self, frame: Image, location: BoardLocation) -> FloatImage:
        """The board framed by the ring, blurred as the gate blurs its board."""
        framed = warp_board(
            frame, location, px_per_square=self.cell_px, turns=self.turns, margin_px=self.ring_px
        )
        return np.asarray(cv2.GaussianBlur(framed, (3, 3), 0), np.float32)

    def _changed(
        self, ring: FloatImage, picture: _Picture, hidden: Mask, shade: Mask
    ) -> npt.NDArray[np.bool_]:
        """The ring's pixels changed against ``picture``'s, brought first to the ring's
        light (:func:`vision.light.in_light_of`, fitted along the ring's segments): a lamp
        turned up, the camera's exposure or a spectator's shadow changes the ring smoothly
        along its length, an arm a part. Not those the stacks may cover, now
        (``hidden``) or in the picture, nor where their shadows may fall (``shade``) those
        darkened or lightened by one factor in every channel: a shadow come or gone."""
        lit = in_light_of(picture.ring, ring, self._blocks)
        changed = changed_pixels(ring, lit, self.settings.change) & self._ring
        changed &= ~(hidden | picture.hidden)
        shadowed = changed & (shade | picture.shade)
        if shadowed.any():  # a stack's shadow may lie across the ring
            now, then = ring[shadowed], lit[shadowed]
            dark = self.settings.shadow_least_levels
            came, went = darkened_evenly(now, then, dark), darkened_evenly(then, now, dark)
            changed[shadowed] = ~(came | went)
        return np.asarray(changed, np.bool_)

    def _slight(self, changed: npt.NDArray[np.bool_]) -> bool:
        """Whether ``changed`` covers less of the ring than a crossing arm's least share."""
        return bool(changed.sum() < self._least)

    def _crossing(self, changed: npt.NDArray[np.bool_]) -> bool:
        """A part of ``changed`` that joins the ring's outer edge to its inner one, over
        :attr:`ArmSettings.crossing_share` of the ring and along no more than
        :attr:`ArmSettings.widest_share` of a side: a change along most of a side is
        light, not an arm (a spectator's shadow passing while the bare ring was learned
        left such a change behind, and an arm was seen for good: e2e international
        under `hall`, seed 200, lost at ply 7). The corners cut the ring into its four
        sides, so a part's longer extent is its run along one."""
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            changed.astype(np.uint8), connectivity=8
        )
        if count <= 1:
            return False
        at_outer = set(np.unique(labels[self._outer])) - {0}
        at_inner = set(np.unique(labels[self._inner])) - {0}
        widest = self.settings.widest_share * self.size * self.cell_px
        return any(
            stats[k, cv2.CC_STAT_AREA] >= self._least
            and max(stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]) <= widest
            for k in at_outer & at_inner
        )


def _mean_change(a: FloatImage, b: FloatImage) -> float:
    return float(np.abs(a - b).mean())

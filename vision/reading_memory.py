"""The live loop's memory of each square's last reading: a square whose crop has not
changed since it was read is not read again.

The square classifier is most of a live frame's cost (a 10x10 board's reading 16-28 ms
of CPU on a VNNI x86 core, 83 ms on an AVX2 one; docs/models.md), while between two
moves nearly every square of a frame looks as it did a frame before. Its readings are
per square (each crop, view tangent and strip alone make a square's reading), so a
square whose crop is the same reads the same. "The same" is judged on the crop's block
means against the frame's own noise (:class:`MemorySettings`): a piece placed, taken or
crowned, a hand or a shadow coming moves some block by tens of grey levels, a camera's
noise hardly any, a compressed video's artefacts most squares' blocks alike.

Some squares are read anew however still the crop: every square at least once every
:attr:`MemorySettings.refresh_frames` frames (staggered, a few squares a frame), so that
whatever the block test missed is read within a second; every square last read unsure;
in a game whose heights are asked, every square last read as a tower, whose top may lie
past its crop (the tower reader reads it from the strip); and every square whenever the
reader, the crop or the board's orientation changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.classifier import widened_heights

Cut = tuple[object, ...]
"""How a memory's crops were cut and read (crop size, orientation, what was asked)."""


@dataclass(frozen=True, slots=True)
class MemorySettings:
    blocks: int = 8
    """A crop's signature: the mean of each of ``blocks`` x ``blocks`` blocks, per channel."""
    tolerance: float = 3.0
    """A square changed where a block mean of its crop lies more than this many grey
    levels from the crop it was last read from (docs/vision.md, "A square read again
    only when it changes"), and more than :attr:`noise_factor` times the frame's noise."""
    noise_factor: float = 2.5
    """The frame's noise: the median over the squares of their largest block change
    (most squares of a frame are as they were). A compressed video's blocks move their
    means together: H.264 at CRF 20 moved a still square's largest block mean by 13 grey
    levels (median), where a disc's edge moved by two pixels moves one by about 50."""
    ceiling: float = 40.0
    """A block mean moved by more than this many grey levels is a change, whatever the
    noise (a frame where most squares changed)."""
    view_tolerance: float = 0.01
    """A square changed, too, where its view tangent moved by more than this share."""
    refresh_frames: int = 10
    """Every square is read anew at least once in this many frames."""
    sure: float = 0.99
    """A square whose last reading gave its likeliest top less than this is read every
    frame: where a reading is unsure, a compressed video's noise moves it from frame to
    frame, and the recorder weighs many frames' readings, not one repeated (on an
    international `hall` video, readings kept from earlier frames differed from fresh
    ones by 0.2 at the median frame without this rule; docs/vision.md). 0.99 is the
    recorder's probability floor's complement: a reading it weighs by degree is never
    repeated. At 0.9, a king read as a man by 0.93 on one frame (and from man 0.93 to
    king 0.9 on the fresh frames around it) was read so on all six frames that judged
    him, and flagged `not_crowned` (e2e italian `ponder`, seed 804)."""


class ReadingMemory:
    """Each square's last reading (``tops (S, 5)``, ``heights (S, H)`` or None), the
    signature of the crop it was read from and the frame it was read at."""

    def __init__(self, settings: MemorySettings | None = None) -> None:
        self.settings = settings or MemorySettings()
        self._reader: object = None
        self._cut: Cut | None = None
        self._frame = 0
        self._signatures = np.zeros((0,))
        self._views = np.zeros((0,))
        self._read_at = np.zeros((0,), np.int64)
        self._tops = np.zeros((0, 0))
        self._heights: npt.NDArray[np.float64] | None = None
        self.read_count = 0
        """Squares read so far (beside :attr:`square_count`: the share read)."""
        self.square_count = 0
        """Squares asked for so far."""

    def to_read(
        self,
        reader: object,
        cut: Cut,
        crops: npt.NDArray[np.uint8],
        views: npt.NDArray[np.float64],
        tower_share: float | None = None,
    ) -> npt.NDArray[np.int64]:
        """The squares (indices) of this frame to read: those whose crop or view tangent
        changed since their last reading, those due a fresh reading, those last read
        unsure (:attr:`MemorySettings.sure`) and, with a ``tower_share``, those last
        read as towers (:meth:`last_towers`); every square where the ``reader`` (the
        classifier itself) or the ``cut`` is not the last frame's. Counts one frame."""
        self._frame += 1
        signatures = signature(crops, self.settings.blocks)
        same = reader is self._reader and cut == self._cut
        if not same or len(signatures) != len(self._signatures):
            self._start(reader, cut, signatures, views)
            return np.arange(len(crops))
        moved = np.abs(signatures - self._signatures).max(axis=(1, 2, 3))
        noise = self.settings.noise_factor * float(np.median(moved))
        changed = moved > min(max(self.settings.tolerance, noise), self.settings.ceiling)
        changed |= np.abs(views - self._views) > self.settings.view_tolerance * np.abs(self._views)
        changed |= self._frame - self._read_at >= self.settings.refresh_frames
        changed |= self._tops.max(axis=1) < self.settings.sure
        towers = None if tower_share is None else self.last_towers(tower_share)
        if towers is not None:
            changed |= towers
        cells = np.flatnonzero(changed)
        self._signatures[cells], self._views[cells] = signatures[cells], views[cells]
        return cells

    def _start(self, reader: object, cut: Cut, signatures: np.ndarray, views: np.ndarray) -> None:
        """Forget every reading: a new reader, or crops cut otherwise. The squares'
        fresh readings are spread over :attr:`MemorySettings.refresh_frames` frames
        from here, as if read at staggered frames before."""
        self._reader, self._cut = reader, cut
        self._signatures, self._views = signatures, views.copy()
        stagger = np.arange(len(signatures)) % self.settings.refresh_frames
        self._read_at = self._frame - stagger
        self._tops = np.zeros((len(signatures), 0))
        self._heights = None

    def remember(
        self,
        cells: npt.NDArray[np.int64],
        tops: npt.NDArray[np.float64],
        heights: npt.NDArray[np.float64] | None,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        """Store the readings of ``cells`` (this frame's :meth:`to_read`), and return
        every square's: these, and the others' last ones."""
        squares = len(self._signatures)
        self.read_count += len(cells)
        self.square_count += squares
        starting = self._tops.shape[1] == 0  # the first reading since :meth:`_start`
        if starting:
            self._tops = np.zeros((squares, tops.shape[1]))
        else:  # the start's staggered frames stand
            self._read_at[cells] = self._frame
        self._tops[cells] = tops
        if heights is None:
            self._heights = None
        else:
            last = np.zeros((squares, 0)) if self._heights is None else self._heights
            self._heights = widened_heights(last, heights.shape[1])
            self._heights[cells] = widened_heights(heights, self._heights.shape[1])
        return self._tops.copy(), None if self._heights is None else self._heights.copy()

    def last_towers(self, share: float) -> npt.NDArray[np.bool_] | None:
        """``(S,)``: the squares whose last reading gave two discs or more at least
        ``share``; None before any heights were read."""
        if self._heights is None:
            return None
        towers: npt.NDArray[np.bool_] = self._heights[:, 2:].sum(axis=1) >= share
        return towers


def signature(crops: npt.NDArray[np.uint8], blocks: int) -> npt.NDArray[np.float32]:
    """``(N, blocks, blocks, 3)``: each crop's mean per block and channel (the crop cut
    to a multiple of the block's size)."""
    n, h, w, c = crops.shape
    bh, bw = h // blocks, w // blocks
    cut = crops[:, : bh * blocks, : bw * blocks].reshape(n, blocks, bh, blocks, bw, c)
    means: npt.NDArray[np.float32] = cut.mean(axis=(2, 4), dtype=np.float32)
    return means

"""Labelled square crops for training and evaluation, cached as ``.npz``.

Two sources: ``synth`` (whole boards rendered by :mod:`synth.render`, cut up by vision's
own crop function, so training and inference crop the same way) and ``procedural``
(:mod:`models.procedural`, hand-drawn crops for fast tests). Every set is a pure function
of (source, count, seed, crop size, window, :class:`Boards`); the cache file name says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from models.procedural import procedural_set
from vision.band import BAND
from vision.rectify import CELL, CONTEXT, CropWindow

Source = Literal["synth", "procedural"]

log = logging.getLogger(__name__)

DEFAULT_CACHE = Path("out/models-cache")
TOWER_LIMIT = 8
"""Column games' towers drawn at most this tall by default (the square models' height
head's last class is 8 or more)."""
FULL_TOWER = 24
"""The tallest tower of the column games, all of bashni's 24 men in one: the tower
reader's boards draw towers up to it (:mod:`models.train_towers`)."""

"""Where built sets are cached (gitignored ``out/``)."""


WindowName = Literal["context", "cell"]

Family = Literal["all", "draughts", "columns"]
"""Which variants a synth set renders: all, the draughts family alone (kings are two
stacked discs or a crowned one), or the column games alone (bashni, lasca: towers, kings
striped), for a kings model of that family (``models.classifier``, ``columns_model``)."""

FAMILIES: tuple[Family, ...] = get_args(Family)
"""The families by name, for command lines' ``--family``."""

WINDOWS: dict[str, CropWindow] = {"context": CONTEXT, "cell": CELL}
"""Crop windows by name: the model's context window, or the plain cell (for comparison)."""


MIN_BAND_PX_PER_DISC = 2.0
"""A disc's side band is *visible* when the camera sees it at least this many crop pixels
tall: two pixels survive blur, JPEG and a pixel of misregistration, so a king (two
discs, a band of 4+ px) differs from a man (2+ px) by at least two pixels. Nearer the
camera's nadir a king seen from above is a man, and no crop can tell them apart."""


def window_name(window: CropWindow) -> WindowName:
    """The name of a model's crop window in :data:`WINDOWS`."""
    for name, known in WINDOWS.items():
        if known == window:
            return name  # type: ignore[return-value]
    raise ValueError(f"crop window {window} is none of {sorted(WINDOWS)}")


def window_px_per_square(size: int, window: CropWindow = CONTEXT) -> float:
    """Crop pixels per square side in a ``size`` crop of the model's window."""
    return size / (1.0 + window.left + window.right)


def top_limit_px(size: int, window: CropWindow = CONTEXT) -> float:
    """How far above its base (crop pixels) a stack's top centre may lie and stay in the
    crop: half the cell plus the window's far margin."""
    return (0.5 + window.top) * window_px_per_square(size, window)


def band_seen(band_px: np.ndarray, heights: np.ndarray, top_limit: float = np.inf) -> np.ndarray:
    """(N,) bool: the stacks whose side band shows (:data:`MIN_BAND_PX_PER_DISC` a disc)
    with the top in the crop (at most ``top_limit`` crop px above the base,
    :func:`top_limit_px`); never an empty square (no band)."""
    seen: np.ndarray = (band_px / np.maximum(heights, 1) >= MIN_BAND_PX_PER_DISC) & (
        band_px <= top_limit
    )
    return seen


def band_readable(
    band_px: np.ndarray, heights: np.ndarray, top_limit: float = np.inf
) -> np.ndarray:
    """(N,) bool: the squares a crop can in principle read whole: empty, or a stack whose
    side band shows (:func:`band_seen`)."""
    readable: np.ndarray = (heights == 0) | band_seen(band_px, heights, top_limit)
    return readable


@dataclass(frozen=True)
class SquareSet:
    """``crops (N, H, W, 3)`` uint8 BGR, ``tops (N,)`` :class:`rules.observation.Top`
    values, ``heights (N,)`` disc counts (0 on an empty square); ``band_px (N,)``, where
    known (renders), how far the stack's top centre lies from its base centre in crop
    pixels: the height of the side band the camera sees (0 on an empty square);
    ``views (N,)``, where known (renders), the cell's :func:`vision.camera.view_tangents`
    as inference computes it, times the set's man height in synth discs (1 but on crowned
    sets of tall men; inference measures it: ``OnnxSquareClassifier.view_scale``);
    ``towers (N,)`` bool, where known (renders), whether the crop is of a column game;
    ``strips (N, rows, cols, 3)`` uint8 BGR, where asked for (renders), each square's
    :func:`vision.band.band_strips` strip, for the tower reader."""

    crops: np.ndarray
    tops: np.ndarray
    heights: np.ndarray
    band_px: np.ndarray | None = None
    views: np.ndarray | None = None
    towers: np.ndarray | None = None
    strips: np.ndarray | None = None

    EXTRAS = ("band_px", "views", "towers", "strips")
    """The truths only renders know, in field order after ``heights``."""

    def __len__(self) -> int:
        return len(self.tops)

    def _extras(self) -> list[np.ndarray | None]:
        return [getattr(self, name) for name in self.EXTRAS]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        extras: dict[str, Any] = {  # Any: savez reads a key "allow_pickle" as its flag
            name: np.zeros(0, np.float32) if value is None else value
            for name, value in zip(self.EXTRAS, self._extras(), strict=True)
        }
        np.savez_compressed(tmp, crops=self.crops, tops=self.tops, heights=self.heights, **extras)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> SquareSet:
        with np.load(path) as data:
            # An empty or absent extra: a set without that truth (procedural crops)
            extras = [
                data[name] if name in data.files and len(data[name]) == len(data["tops"]) else None
                for name in cls.EXTRAS
            ]
            return cls(data["crops"], data["tops"], data["heights"], *extras)

    @classmethod
    def concat(cls, parts: list[SquareSet]) -> SquareSet:
        def joined(values: list[np.ndarray | None]) -> np.ndarray | None:
            known = [v for v in values if v is not None]
            return np.concatenate(known) if len(known) == len(values) else None

        return cls(
            np.concatenate([p.crops for p in parts]),
            np.concatenate([p.tops for p in parts]),
            np.concatenate([p.heights for p in parts]),
            *(joined(list(values)) for values in zip(*(p._extras() for p in parts), strict=True)),
        )

    def subset(self, index: np.ndarray | slice) -> SquareSet:
        return SquareSet(
            self.crops[index],
            self.tops[index],
            self.heights[index],
            *(None if values is None else values[index] for values in self._extras()),
        )


@dataclass(frozen=True)
class Boards:
    """Which boards a synth set renders (a procedural set draws its own crops and ignores
    it). ``crowns``: the share of draughts boards whose kings are one crowned disc on men
    one to ``tallest`` discs tall; ``nadir``: draughts boards seen from near straight down
    only; ``family``: which variants; ``strips``: each square's band strip too;
    ``tower_limit``: a column game's tallest tower."""

    crowns: float = 0.0
    tallest: float = 4.0
    nadir: bool = False
    family: Family = "all"
    strips: bool = False
    tower_limit: int = TOWER_LIMIT

    def tag(self) -> str:
        """This choice in a cache file's name; the default's is empty, so that sets
        cached before a field came in keep their names."""
        tag = ""
        if self.crowns > 0:  # a crowned share renders other boards: another file
            tag += f"-crowns{round(100 * self.crowns)}"
            tag += "" if self.tallest == 4.0 else f"-tall{self.tallest:g}"
            if self.tallest > 1:  # views in men's heights; sets cached before held bare tangents
                tag += "-mh"
            tag += "-st"  # stickers of many sizes and inks; sets cached before had one sticker
        if self.nadir:  # near-nadir draughts boards only: another file
            tag += "-nadir"
        if self.family != "all":
            tag += f"-{self.family}"
        if self.tower_limit != TOWER_LIMIT:  # other towers: another file
            tag += f"-towers{self.tower_limit}"
        if self.strips:  # the same boards, each square's band strip beside its crop
            tag += f"-band{BAND.digest()}"
        return tag


def build_set(
    source: Source,
    count: int,
    *,
    seed: int,
    size: int,
    window: WindowName = "context",
    boards: Boards = Boards(),
) -> SquareSet:
    """About ``count`` labelled crops from ``source`` (synth gives whole boards, so it
    may overshoot by one board), from ``boards`` where synth renders them."""
    if source == "procedural":
        return SquareSet(*procedural_set(count, seed=seed, size=size))
    from models.synth_source import synth_set  # needs synth's GL renderer

    built: SquareSet = synth_set(count, seed=seed, size=size, window=WINDOWS[window], boards=boards)
    return built


def cached_set(
    source: Source,
    count: int,
    *,
    seed: int,
    size: int,
    cache: Path = DEFAULT_CACHE,
    window: WindowName = "context",
    boards: Boards = Boards(),
) -> SquareSet:
    """:func:`build_set`, read from or written to ``cache``."""
    window_tag = "ctx" if window == "context" else window  # sets from before windows are stale
    tag = window_tag + boards.tag()
    path = cache / f"{source}-n{count}-s{seed}-{size}px-{tag}.npz"
    if path.exists():
        log.info("reading cached set %s", path)
        cached = SquareSet.load(path)
        if source != "synth" or (cached.views is not None and cached.towers is not None):
            return cached
        log.info("%s predates view tangents or families: rendering it again", path)
    data = build_set(source, count, seed=seed, size=size, window=window, boards=boards)
    data.save(path)
    log.info("wrote %d crops to %s", len(data), path)
    return data

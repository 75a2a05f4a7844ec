"""Labelled square crops for training and evaluation, cached as ``.npz``.

Two sources: ``synth`` (whole boards rendered by :mod:`synth.render`, cut up by vision's
own crop function, so training and inference crop the same way) and ``procedural``
(:mod:`models.procedural`, hand-drawn crops for fast tests). Every set is a pure function
of (source, count, seed, crop size); the cache file name says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from models.procedural import procedural_set

Source = Literal["synth", "procedural"]

log = logging.getLogger(__name__)

DEFAULT_CACHE = Path("out/models-cache")
"""Where built sets are cached (gitignored ``out/``)."""


@dataclass(frozen=True)
class SquareSet:
    """``crops (N, H, W, 3)`` uint8 BGR, ``tops (N,)`` :class:`rules.observation.Top`
    values, ``heights (N,)`` disc counts (0 on an empty square)."""

    crops: np.ndarray
    tops: np.ndarray
    heights: np.ndarray

    def __len__(self) -> int:
        return len(self.tops)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, crops=self.crops, tops=self.tops, heights=self.heights)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> SquareSet:
        with np.load(path) as data:
            return cls(data["crops"], data["tops"], data["heights"])

    @classmethod
    def concat(cls, parts: list[SquareSet]) -> SquareSet:
        return cls(
            np.concatenate([p.crops for p in parts]),
            np.concatenate([p.tops for p in parts]),
            np.concatenate([p.heights for p in parts]),
        )

    def subset(self, index: np.ndarray) -> SquareSet:
        return SquareSet(self.crops[index], self.tops[index], self.heights[index])


def build_set(source: Source, count: int, *, seed: int, size: int) -> SquareSet:
    """About ``count`` labelled crops from ``source`` (synth gives whole boards, so it
    may overshoot by one board)."""
    if source == "procedural":
        return SquareSet(*procedural_set(count, seed=seed, size=size))
    from models.synth_source import synth_set  # needs synth's GL renderer

    built: SquareSet = synth_set(count, seed=seed, size=size)
    return built


def cached_set(
    source: Source, count: int, *, seed: int, size: int, cache: Path = DEFAULT_CACHE
) -> SquareSet:
    """:func:`build_set`, read from or written to ``cache``."""
    path = cache / f"{source}-n{count}-s{seed}-{size}px.npz"
    if path.exists():
        log.info("reading cached set %s", path)
        return SquareSet.load(path)
    data = build_set(source, count, seed=seed, size=size)
    data.save(path)
    log.info("wrote %d crops to %s", len(data), path)
    return data

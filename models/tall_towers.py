"""Figures on column-game towers up to the full tower: how many the square crops and the
tower reader's band strips count exactly, and how many tops each reads right where a
tall tower's top lies past the crop's far edge.

The square models' height head stops at "eight or more" and their crops end 0.6 square
sides past the cell; a bashni tower grows to 24 discs (docs/models.md, "Towers to the
full height"). Read by :mod:`bench.classifier` and the tower reader's card.
"""

from __future__ import annotations

import numpy as np

from models.classifier import OnnxSquareClassifier
from models.dataset import MIN_BAND_PX_PER_DISC, SquareSet, top_limit_px, window_px_per_square
from vision.band import BandWindow

TOP_RADIUS = 0.43
"""A synth disc's radius in square sides: a top's far rim lies this far past its centre."""
HEIGHT_RANGES = ((2, 8), (9, 24))
"""Towers the crops can count (to eight) and those only the strips can."""


def top_in_strip(data: SquareSet, window: BandWindow, crop_size: int) -> np.ndarray:
    """(N,) bool: the stack's top, rim and all, lies inside its band strip."""
    assert data.band_px is not None and data.views is not None  # renders know both
    along = data.band_px / window_px_per_square(crop_size)
    rows_per_square = window.rows_per_disc / (
        window.disc_height * np.maximum(data.views, window.min_view)
    )
    inside: np.ndarray = (window.near + along + TOP_RADIUS) * rows_per_square <= window.rows
    return inside


def tall_tower_figures(classifier: OnnxSquareClassifier, data: SquareSet) -> dict[str, object]:
    """On a column set with strips (``data``): per height range, the towers whose band
    shows (:data:`models.dataset.MIN_BAND_PX_PER_DISC`) and whose top is on the strip,
    and how many of them are counted exactly and within one disc by the crops alone, by
    the tower reader alone, and as :meth:`OnnxSquareClassifier.predict_stacks` reads
    them (the crops' reading given to :meth:`~OnnxSquareClassifier.with_strips`, so the
    crop models run once); over the pieces whose top centre lies past the crop, how many
    tops the crops read wrong and how many ``predict_stacks`` does (the reader's top past
    the crop); and all squares' top errors both ways."""
    reader = classifier.for_variant(True)
    towers = reader.tower_reader
    if towers is None or data.strips is None or data.views is None:
        raise ValueError("tall towers are read from band strips: a tower reader and strips")
    assert data.band_px is not None  # renders
    size = classifier.crop_size[0]
    heights = {name: np.empty(len(data), np.int64) for name in ("crops", "reader", "read")}
    tops = {name: np.empty(len(data), np.int64) for name in ("crops", "read")}
    for start in range(0, len(data), 256):
        part = data.subset(slice(start, start + 256))
        chunk = slice(start, start + len(part))
        assert part.strips is not None and part.views is not None
        out = reader.run(part.crops, part.views, part.strips)
        stack_tops, stack_heights = reader.with_strips(
            out.tops, out.heights, part.views, part.strips
        )
        on_strips = towers.read(part.strips, part.views * reader.view_scale)
        heights["crops"][chunk] = out.heights.argmax(axis=1)
        heights["reader"][chunk] = on_strips.heights.argmax(axis=1)
        heights["read"][chunk] = stack_heights.argmax(axis=1)
        tops["crops"][chunk] = out.tops.argmax(axis=1)
        tops["read"][chunk] = stack_tops.argmax(axis=1)
    per_disc = data.band_px / np.maximum(data.heights, 1)
    shown = (per_disc >= MIN_BAND_PX_PER_DISC) & top_in_strip(data, towers.window, size)
    figures: dict[str, object] = {"squares": len(data)}
    for low, high in HEIGHT_RANGES:
        chosen = shown & (data.heights >= low) & (data.heights <= high)
        count = max(int(chosen.sum()), 1)
        figures[f"heights_{low}_to_{high}"] = {
            "towers": int(chosen.sum()),
            **{
                f"{source}_{measure}_pct": round(100 * float((chosen & hit).sum()) / count, 2)
                for source, read in heights.items()
                for measure, hit in (
                    ("exact", read == data.heights),
                    ("within_one", np.abs(read - data.heights) <= 1),
                )
            },
        }
    past = (data.heights > 0) & (data.band_px > top_limit_px(size, classifier.window))
    wrong = {source: read != data.tops for source, read in tops.items()}
    figures["tops_past_crop"] = {
        "pieces": int(past.sum()),
        **{f"{source}_errors": int((past & miss).sum()) for source, miss in wrong.items()},
    }
    figures["top_errors"] = {source: int(miss.sum()) for source, miss in wrong.items()}
    return figures

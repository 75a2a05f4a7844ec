"""How well the model reads renders once adapted to their set, as the live path uses it.

Each set: a random variant and :class:`synth.scene.Style` (no hand), a render of the start
position to adapt from (labels from the rules), then renders of random positions in the
same style, read by the unadapted model and by the adapted one (colour from the
prototypes alone, and weighed with the trained head's: :meth:`OnnxSquareClassifier.adapted`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from models.classifier import OnnxSquareClassifier
from models.synth_source import VARIANTS, location_from_truth, random_position
from rules import Position, find_variant
from rules.observation import Top
from rules.pieces import parse_stack
from synth.scene import Style
from vision.camera import crops_and_views

if TYPE_CHECKING:
    from rules.variants import Variant
    from synth.render import Renderer

Crops = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A render's crops, their true tops and their view tangents."""
COLOUR = np.array([0, 1, 1, 2, 2])
"""Top -> empty / White / Black."""


@dataclass(frozen=True)
class Tally:
    squares: int = 0
    errors: int = 0
    colour_errors: int = 0

    def add(self, predicted: np.ndarray, truth: np.ndarray) -> Tally:
        return Tally(
            self.squares + len(truth),
            self.errors + int((predicted != truth).sum()),
            self.colour_errors + int((COLOUR[predicted] != COLOUR[truth]).sum()),
        )

    def as_dict(self) -> dict[str, float | int]:
        n = max(self.squares, 1)
        return {
            "squares": self.squares,
            "errors": self.errors,
            "per_square_error_pct": round(100 * self.errors / n, 3),
            "colour_errors": self.colour_errors,
            "colour_error_pct": round(100 * self.colour_errors / n, 3),
        }


@dataclass(frozen=True)
class RenderedSet:
    """One rendered set: its variant, the start position's crops (the frame adaptation
    reads) and those of random positions in the same style, each as crops, true tops
    and view tangents."""

    variant: Variant
    start: Crops
    positions: list[Crops]


def rendered_sets(
    classifier: OnnxSquareClassifier, *, sets: int, positions: int, seed: int, crowns: float
) -> Iterator[RenderedSet]:
    """``sets`` random sets (a random variant and :class:`synth.scene.Style`, no hand), a
    share ``crowns`` of the draughts sets crowning kings on men one to four discs tall,
    cut at ``classifier``'s crop size and window. The same arguments give the same sets."""
    from synth.render import Renderer  # needs GL

    rng = np.random.default_rng(seed)
    with Renderer() as renderer:
        for k in range(sets):
            variant = find_variant(VARIANTS[int(rng.integers(len(VARIANTS)))])
            style = Style.random(seed * 1000 + k, variant, hand=False, crowns=crowns)
            start = _crops_and_tops(renderer, Position.initial(variant), style, classifier)
            shown = [
                _crops_and_tops(renderer, random_position(rng, variant), style, classifier)
                for _ in range(positions)
            ]
            yield RenderedSet(variant, start, shown)


def adapted_render_figures(
    classifier: OnnxSquareClassifier,
    *,
    sets: int = 20,
    positions: int = 3,
    seed: int = 2026,
    crowns: float = 0.0,
) -> dict[str, dict[str, float | int]]:
    """Errors of the unadapted and adapted readers over ``sets`` rendered sets, a share
    ``crowns`` of the draughts sets crowning kings on men one to four discs tall."""
    tallies = {"unadapted": Tally(), "adapted_prototypes": Tally(), "adapted": Tally()}
    for rendered in rendered_sets(
        classifier, sets=sets, positions=positions, seed=seed, crowns=crowns
    ):
        towers = rendered.variant.towers
        readers = {
            "unadapted": classifier.for_variant(towers),
            "adapted_prototypes": classifier.adapted(
                *rendered.start, head_weight=0.0, towers=towers
            ),
            "adapted": classifier.adapted(*rendered.start, towers=towers),
        }
        for crops, tops, views in rendered.positions:
            for name, reader in readers.items():
                read = reader.predict(crops, views).argmax(axis=1)
                tallies[name] = tallies[name].add(read, tops)
    return {name: tally.as_dict() for name, tally in tallies.items()}


def _crops_and_tops(
    renderer: Renderer, position: Position, style: Style, classifier: OnnxSquareClassifier
) -> Crops:
    """A render's crops (the classifier's window and size), true tops and view tangents."""
    rendered = renderer.render(position, style)
    variant = position.variant
    location = location_from_truth(rendered.truth, variant.size)
    crops, views = crops_and_views(
        rendered.image,
        location,
        variant.geometry,
        crop_px=classifier.crop_size[0],
        window=classifier.window,
    )
    squares: dict[str, str] = rendered.truth["squares"]
    names = [variant.geometry.name(sq) for sq in variant.geometry.squares]
    stacks = [parse_stack(squares[n]) if squares[n] else () for n in names]
    return crops, np.array([Top.of(s[0] if s else None) for s in stacks]), views

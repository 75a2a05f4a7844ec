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
from models.dataset import band_readable, top_limit_px
from models.synth_source import VARIANTS, location_from_truth, random_position, square_truth
from rules import Position, find_variant
from synth.scene import Style
from vision.camera import crops_and_views
from vision.classifier import SquareClassifier, read_squares
from vision.locate import BoardLocation

if TYPE_CHECKING:
    from rules.geometry import BoardGeometry
    from rules.variants import Variant
    from synth.render import Renderer

Crops = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A render's crops, their true tops and their view tangents."""


@dataclass(frozen=True)
class Shot:
    """A render as a reader sees it: the image and the board located from its truth,
    with :data:`Crops` of the classifier's window, and which squares a crop can read
    whole (``readable``: :func:`models.dataset.band_readable`, as the held-out renders'
    ``band_visible`` counts them)."""

    image: np.ndarray
    location: BoardLocation
    crops: Crops
    readable: np.ndarray

    def read(
        self, reader: SquareClassifier, geometry: BoardGeometry, crop_px: int, *, band: bool
    ) -> np.ndarray:
        """``(S, 5)`` probabilities, read as the live path reads a frame
        (:func:`vision.classifier.read_squares`), with ``band`` its band strips too
        (``ObserverConfig.band_strips``)."""
        return read_squares(
            reader, self.image, self.location, geometry, crop_px=crop_px, band=band, heights=False
        ).tops


COLOUR = np.array([0, 1, 1, 2, 2])
"""Top -> empty / White / Black."""


@dataclass(frozen=True)
class Tally:
    squares: int = 0
    errors: int = 0
    colour_errors: int = 0
    readable_squares: int = 0
    readable_errors: int = 0

    def add(self, predicted: np.ndarray, shot: Shot) -> Tally:
        truth, wrong = shot.crops[1], predicted != shot.crops[1]
        return Tally(
            self.squares + len(truth),
            self.errors + int(wrong.sum()),
            self.colour_errors + int((COLOUR[predicted] != COLOUR[truth]).sum()),
            self.readable_squares + int(shot.readable.sum()),
            self.readable_errors + int((wrong & shot.readable).sum()),
        )

    def as_dict(self) -> dict[str, object]:
        n = max(self.squares, 1)
        return {
            "squares": self.squares,
            "errors": self.errors,
            "per_square_error_pct": round(100 * self.errors / n, 3),
            "colour_errors": self.colour_errors,
            "colour_error_pct": round(100 * self.colour_errors / n, 3),
            "band_visible": {
                "squares": self.readable_squares,
                "errors": self.readable_errors,
                "per_square_error_pct": round(
                    100 * self.readable_errors / max(self.readable_squares, 1), 3
                ),
            },
        }


@dataclass(frozen=True)
class RenderedSet:
    """One rendered set: its variant, the start position's render (the frame adaptation
    reads) and those of random positions in the same style, each with its crops, true
    tops and view tangents."""

    variant: Variant
    start_shot: Shot
    shots: list[Shot]

    @property
    def start(self) -> Crops:
        return self.start_shot.crops

    @property
    def positions(self) -> list[Crops]:
        return [shot.crops for shot in self.shots]

    def adapted(self, classifier: OnnxSquareClassifier) -> OnnxSquareClassifier:
        """``classifier`` adapted from the start render, as the live path adapts it
        (:meth:`OnnxSquareClassifier.adapted_on_frame`)."""
        start = self.start_shot
        return classifier.adapted_on_frame(
            start.image,
            start.location,
            self.variant.geometry,
            start.crops[1],
            towers=self.variant.towers,
        )


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
            start = _shot(renderer, Position.initial(variant), style, classifier)
            shown = [
                _shot(renderer, random_position(rng, variant), style, classifier)
                for _ in range(positions)
            ]
            yield RenderedSet(variant, start, shown)


def rendered_start(classifier: OnnxSquareClassifier, variant: Variant, seed: int) -> RenderedSet:
    """A set of ``variant`` in a random style (``seed``, no hand) with its start position
    alone, cut as :func:`rendered_sets` cuts them."""
    from synth.render import Renderer  # needs GL

    with Renderer() as renderer:
        style = Style.random(seed, variant, hand=False)
        start = _shot(renderer, Position.initial(variant), style, classifier)
    return RenderedSet(variant, start, [])


def adapted_render_figures(
    classifier: OnnxSquareClassifier,
    *,
    sets: int = 20,
    positions: int = 3,
    seed: int = 2026,
    crowns: float = 0.0,
) -> dict[str, dict[str, object]]:
    """Errors of the unadapted and adapted readers over ``sets`` rendered sets, a share
    ``crowns`` of the draughts sets crowning kings on men one to four discs tall; the
    adapted reader also with band strips (``adapted_with_strips``: the live observer
    with ``band_strips`` on)."""
    tallies = {
        "unadapted": Tally(),
        "adapted_prototypes": Tally(),
        "adapted": Tally(),
        "adapted_with_strips": Tally(),
    }
    for rendered in rendered_sets(
        classifier, sets=sets, positions=positions, seed=seed, crowns=crowns
    ):
        towers = rendered.variant.towers
        readers = {
            "unadapted": classifier.for_variant(towers),
            "adapted_prototypes": classifier.adapted(
                *rendered.start, head_weight=0.0, towers=towers
            ),
            "adapted": rendered.adapted(classifier),
        }
        geometry, crop_px = rendered.variant.geometry, classifier.crop_size[0]
        for shot in rendered.shots:
            for name, reader in readers.items():
                read = shot.read(reader, geometry, crop_px, band=False).argmax(axis=1)
                tallies[name] = tallies[name].add(read, shot)
            read = shot.read(readers["adapted"], geometry, crop_px, band=True).argmax(axis=1)
            tallies["adapted_with_strips"] = tallies["adapted_with_strips"].add(read, shot)
    return {name: tally.as_dict() for name, tally in tallies.items()}


def _shot(
    renderer: Renderer, position: Position, style: Style, classifier: OnnxSquareClassifier
) -> Shot:
    """A render, its crops (the classifier's window and size), true tops and view
    tangents, and the squares a crop can read whole."""
    rendered = renderer.render(position, style)
    variant = position.variant
    location = location_from_truth(rendered.truth, variant.size)
    size, window = classifier.crop_size[0], classifier.window
    crops, views = crops_and_views(
        rendered.image, location, variant.geometry, crop_px=size, window=window
    )
    tops, heights, bands = square_truth(rendered.truth, variant, style, location, size, window)
    readable = band_readable(bands, heights, top_limit_px(size, window))
    return Shot(rendered.image, location, (crops, tops, views), readable)

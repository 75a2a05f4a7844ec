"""The shipped square classifier adapted to a rendered set from a render of its start
position, as the live path adapts it (``pi.wiring``): the tests that run the observer on
renders share it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from calibration.table import start_tops
from models.classifier import OnnxSquareClassifier
from models.synth_source import location_from_truth

if TYPE_CHECKING:
    from rules.variants import Variant
    from synth.render import Rendered


def adapted_on_start(start: Rendered, variant: Variant) -> OnnxSquareClassifier:
    """The model adapted from ``start``, a render of ``variant``'s start position, located
    from the render's truth."""
    return OnnxSquareClassifier.load().adapted_on_frame(
        start.image,
        location_from_truth(start.truth, variant.size),
        variant.geometry,
        np.array(start_tops(variant)),
        towers=variant.towers,
    )

"""A board no rule explains, and how long the tests leave such boards standing; shared
by the recorder's tests and the pipeline's."""

from __future__ import annotations

from rules.position import Position
from rules.variants import find_variant

STAND_FRAMES = 40
"""An irregular board left standing 4 s (10 frames a second), past the I 5.5 grace."""


def three_white_men_moved_at_once() -> tuple[Position, Position]:
    """The international start, and the board after three white men moved at once (31-26,
    32-27, 33-29), Black to move: no named irregularity fits it."""
    variant = find_variant("international")
    start = Position.initial(variant)
    stacks = dict(start.stacks())
    g = variant.geometry
    for frm, to in (("31", "26"), ("32", "27"), ("33", "29")):
        stacks[g.parse_square(to)] = stacks.pop(g.parse_square(frm))
    return start, Position.from_stacks(variant, stacks, start.turn.other)

"""The arithmetic on a square's readings (models.top_odds): each function against the
property the reader relies on, over random probability vectors."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models import top_odds
from rules.observation import Top

SEEDS = st.integers(0, 2**32 - 1)


def _probabilities(seed: int, rows: int = 16, classes: int = len(Top)) -> np.ndarray:
    """``rows`` random probability vectors over ``classes``, some nearly sure."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, rng.uniform(0.5, 6.0), (rows, classes))
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return out


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_colours_sum_each_colours_man_and_king_and_swap_white_for_black(seed: int) -> None:
    tops = _probabilities(seed)
    three = top_odds.colours(tops, swapped=False)
    np.testing.assert_allclose(three.sum(axis=1), 1.0)
    np.testing.assert_allclose(three[:, 0], tops[:, Top.EMPTY])
    np.testing.assert_allclose(three[:, 1], tops[:, Top.WHITE_MAN] + tops[:, Top.WHITE_KING])
    np.testing.assert_allclose(top_odds.colours(tops, swapped=True), three[:, [0, 2, 1]])
    # Swapping the five tops' colours is the same as swapping the three colours.
    np.testing.assert_allclose(
        top_odds.colours(top_odds.colours_swapped(tops), swapped=False), three[:, [0, 2, 1]]
    )


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_splitting_kings_keeps_each_colours_mass_and_a_bias_moves_it_to_men(seed: int) -> None:
    tops = _probabilities(seed)
    colour = _probabilities(seed + 1, classes=3)
    split = top_odds.split_kings(colour, tops, (0.0, 0.0))
    np.testing.assert_allclose(top_odds.colours(split, swapped=False), colour, atol=1e-12)
    # Unbiased, a colour's pieces split between man and king as the trained head splits them.
    np.testing.assert_allclose(
        1.0 - top_odds.man_share(split), 1.0 / (1.0 + np.exp(-top_odds.king_odds(tops))), atol=1e-6
    )
    # A king bias lowers the king share of that colour alone, and a crown raises it.
    biased = top_odds.split_kings(colour, tops, (2.0, 0.0))
    assert np.all(biased[:, Top.WHITE_KING] <= split[:, Top.WHITE_KING] + 1e-15)
    np.testing.assert_allclose(biased[:, Top.BLACK_KING], split[:, Top.BLACK_KING])
    crowned = top_odds.split_kings(colour, tops, (0.0, 0.0), crowned=np.full(len(tops), 3.0))
    assert np.all(crowned[:, Top.BLACK_KING] >= split[:, Top.BLACK_KING] - 1e-15)


def test_king_and_two_disc_odds_read_the_even_case_as_zero() -> None:
    even = np.array([[0.2, 0.2, 0.2, 0.2, 0.2]])
    assert abs(float(top_odds.king_odds(even)[0])) < 1e-9
    kings = np.array([[0.0, 0.1, 0.4, 0.1, 0.4]])
    np.testing.assert_allclose(top_odds.king_odds(kings), [np.log(4.0)], atol=1e-6)
    heights = np.zeros((2, 9))
    heights[0, [1, 2]] = 0.5  # one disc or two, evenly
    heights[1, 1], heights[1, 3] = 0.2, 0.8  # three discs, four times as likely as one
    np.testing.assert_allclose(top_odds.two_disc_log_odds(heights), [0.0, np.log(4.0)], atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(SEEDS, st.floats(0.0, 2.0))
def test_a_weighed_colour_is_a_distribution_that_the_head_can_only_pull_its_way(
    seed: int, weight: float
) -> None:
    colour = _probabilities(seed, classes=3)
    tops = _probabilities(seed + 1)
    weighed = top_odds.weighed_colour(colour, tops, weight, swapped=False)
    np.testing.assert_allclose(weighed.sum(axis=1), 1.0)
    np.testing.assert_allclose(top_odds.weighed_colour(colour, tops, 0.0, False), colour)
    # Where the head is surest of a colour, weighing it in never lowers that colour.
    head = top_odds.colours(tops, swapped=False)
    rows = np.arange(len(tops))
    best = head.argmax(axis=1)
    assert np.all(weighed[rows, best] >= colour[rows, best] - 1e-12)


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_two_readings_agree_on_colour_and_leave_man_or_king_to_the_crops(seed: int) -> None:
    crops, strips = _probabilities(seed), _probabilities(seed + 1)
    both = top_odds.agreed(crops, strips)
    np.testing.assert_allclose(both.sum(axis=1), 1.0)
    for man, king in ((Top.WHITE_MAN, Top.WHITE_KING), (Top.BLACK_MAN, Top.BLACK_KING)):
        within = both[:, man] / (both[:, man] + both[:, king])
        np.testing.assert_allclose(
            within, (crops[:, man] + 1e-6) / (crops[:, man] + crops[:, king] + 2e-6)
        )
    # A reading that agrees with itself is itself, up to the floor on each probability.
    np.testing.assert_allclose(top_odds.agreed(crops, crops), crops, atol=1e-5)
    # A colour the strip is sure against stays unlikely, however sure the crops are.
    sure_white = np.array([[0.0, 0.99, 0.01, 0.0, 0.0]])
    sure_black = np.array([[0.0, 0.0, 0.0, 0.99, 0.01]])
    assert top_odds.colours(top_odds.agreed(sure_white, sure_black), swapped=False)[0, 1] < 0.6


def test_cosine_is_one_for_a_scaled_copy_and_zero_for_a_right_angle() -> None:
    features = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    prototypes = np.array([[3.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(top_odds.cosine(features, prototypes), [[1, 0], [0, 0]], atol=1e-9)

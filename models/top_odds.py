"""Arithmetic on a square's readings: the five tops' probabilities
(:class:`rules.observation.Top`) and the heights'.

Pure numpy. :class:`models.classifier.OnnxSquareClassifier` reads a square's colour
(empty, White or Black) and its man or king from separate models and cues; these
functions turn five tops into three colours and back, give a piece's log-odds of king
over man or of two discs over one, and split a colour's mass into man and king by such
odds.
"""

from __future__ import annotations

import numpy as np

from rules.appearance import SWAPPED_TOP
from rules.observation import Top


def king_odds(trained: np.ndarray) -> np.ndarray:
    """(N,) log-odds of king over man from the trained (N, 5) probabilities, whatever
    colour the head gives the piece (the prototypes decide the colour)."""
    eps = 1e-9
    kings = trained[:, Top.WHITE_KING] + trained[:, Top.BLACK_KING]
    men = trained[:, Top.WHITE_MAN] + trained[:, Top.BLACK_MAN]
    odds: np.ndarray = np.log(kings + eps) - np.log(men + eps)
    return odds


def two_disc_log_odds(heights: np.ndarray) -> np.ndarray:
    """(N,) log-odds of two discs or more over one, from (N, H) height probabilities."""
    eps = 1e-6
    odds: np.ndarray = np.log(heights[:, 2:].sum(axis=1) + eps) - np.log(heights[:, 1] + eps)
    return odds


def colours(trained: np.ndarray, *, swapped: bool) -> np.ndarray:
    """(N, 5) trained probabilities -> (N, 3) empty / White / Black, the colours swapped
    where the head's White is this set's Black."""
    white = trained[:, Top.WHITE_MAN] + trained[:, Top.WHITE_KING]
    black = trained[:, Top.BLACK_MAN] + trained[:, Top.BLACK_KING]
    if swapped:
        white, black = black, white
    out: np.ndarray = np.stack([trained[:, Top.EMPTY], white, black], axis=1)
    return out


def colours_swapped(tops: np.ndarray) -> np.ndarray:
    """``(N, 5)`` top probabilities with White's and Black's classes exchanged."""
    out: np.ndarray = tops[:, list(SWAPPED_TOP)]
    return out


def weighed_colour(
    colour: np.ndarray, trained: np.ndarray, weight: float, swapped: bool
) -> np.ndarray:
    """(N, 3) empty / White / Black from the prototypes times the trained head's to the
    power ``weight``, normalised: where the two disagree the surer one wins."""
    product = colour * (colours(trained, swapped=swapped) + 1e-9) ** weight
    out: np.ndarray = product / product.sum(axis=1, keepdims=True)
    return out


def split_kings(
    colour: np.ndarray,
    trained: np.ndarray,
    king_bias: tuple[float, float],
    crowned: np.ndarray | float = 0.0,
) -> np.ndarray:
    """(N, 3) empty/White/Black probabilities and the trained (N, 5) ones -> (N, 5): each
    colour's mass is split into man and king as the trained head splits pieces, its king
    log-odds lowered by that colour's ``king_bias`` and raised by ``crowned`` (a crown
    sticker's, per square)."""
    odds = king_odds(trained) + crowned
    white_king = 1.0 / (1.0 + np.exp(-(odds - king_bias[0])))
    black_king = 1.0 / (1.0 + np.exp(-(odds - king_bias[1])))
    out = np.empty_like(trained)
    out[:, Top.EMPTY] = colour[:, 0]
    out[:, Top.WHITE_MAN] = colour[:, 1] * (1 - white_king)
    out[:, Top.WHITE_KING] = colour[:, 1] * white_king
    out[:, Top.BLACK_MAN] = colour[:, 2] * (1 - black_king)
    out[:, Top.BLACK_KING] = colour[:, 2] * black_king
    return out


def man_share(split: np.ndarray) -> np.ndarray:
    """(N,) chance that each square's piece is a man, from (N, 5) probabilities."""
    pieces = np.maximum(split[:, Top.WHITE_MAN :].sum(axis=1), 1e-9)
    out: np.ndarray = (split[:, Top.WHITE_MAN] + split[:, Top.BLACK_MAN]) / pieces
    return out


def agreed(crops: np.ndarray, strips: np.ndarray) -> np.ndarray:
    """Two ``(N, 5)`` readings of the same tops as one. Empty, White or Black from both:
    their geometric mean, normalised (a product of experts: a colour either reading is
    sure against stays unlikely, where the plain mean keeps half of it). Man or king,
    within that colour, from the crops alone: they see the top face, where a column
    game's officer is striped, and the strip sees the stack's side (a strip sure of a
    king where the crops are sure of a man was wrong on the held-out renders)."""
    mix = colours(np.sqrt(np.maximum(crops, 1e-6) * np.maximum(strips, 1e-6)), swapped=False)
    mix /= mix.sum(axis=1, keepdims=True)
    out = np.empty_like(crops)
    out[:, Top.EMPTY] = mix[:, 0]
    for column, (man, king) in (
        (1, (Top.WHITE_MAN, Top.WHITE_KING)),
        (2, (Top.BLACK_MAN, Top.BLACK_KING)),
    ):
        kinds = crops[:, [man, king]] + 1e-6
        out[:, [man, king]] = mix[:, column, None] * kinds / kinds.sum(axis=1, keepdims=True)
    return out


def cosine(features: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    """(N, K) cosine similarity of each of ``features`` (N, D) to each of ``prototypes``
    (K, D)."""
    f = features / (np.linalg.norm(features, axis=1, keepdims=True) + 1e-9)
    p = prototypes / (np.linalg.norm(prototypes, axis=1, keepdims=True) + 1e-9)
    out: np.ndarray = f @ p.T
    return out

"""The hue cue that re-splits a piece between White and Black: shading does not move it,
glare is left out, a king's crown sticker does not move it, and a set of two greys gets no
say from it; and the occupancy cue, which speaks near even only: for a piece where a
piece's hue shows, for an empty square where no pixel of a hued set's piece does."""

from __future__ import annotations

import warnings
from dataclasses import replace

import cv2
import numpy as np

from models.chromaticity import (
    CUE_LIMIT,
    OCCUPANCY_CUE_LIMIT,
    PieceChromaticity,
    _row_medians,
    piece_chromaticity,
)
from rules.observation import Top
from vision.rectify import CONTEXT, CROP_PX

BOARD = (200, 215, 225)  # BGR: a light square
PURPLE = (150, 50, 120)
TEAL = (125, 120, 15)


def _crop(
    piece: tuple[int, int, int] | None,
    shade: float = 1.0,
    sticker: float = 0.0,
    off_centre: float = 0.0,
) -> np.ndarray:
    """A context crop of one cell: the light square, a disc of ``piece`` on its centre,
    all lit at ``shade`` of the start frame's light; ``sticker``: a white crown sticker
    of that share of the disc's radius on it; ``off_centre``: the disc moved sideways by
    that share of the cell (a man seen askew, or a grid a little off)."""
    crop = np.full((CROP_PX, CROP_PX, 3), BOARD, np.float64)
    if piece is not None:
        cell = CROP_PX / (1 + CONTEXT.left + CONTEXT.right)
        x = CONTEXT.left + 0.5 + off_centre
        centre = (round(x * cell), round((CONTEXT.top + 0.5) * cell))
        cv2.circle(crop, centre, round(0.4 * cell), piece, -1)
        if sticker:
            cv2.circle(crop, centre, round(0.4 * sticker * cell), (235, 240, 240), -1)
    return np.clip(crop * shade, 0, 255).astype(np.uint8)


def _start(
    white: tuple[int, int, int],
    black: tuple[int, int, int],
    off_centre: float = 0.0,
    shade: float = 1.0,
) -> PieceChromaticity:
    men = [_crop(white, shade, off_centre=off_centre)] * 4
    men += [_crop(black, shade, off_centre=off_centre)] * 4
    crops = np.stack(men + [_crop(None, shade)] * 2)
    tops = np.array([Top.WHITE_MAN] * 4 + [Top.BLACK_MAN] * 4 + [Top.EMPTY] * 2)
    return PieceChromaticity.learn(crops, tops, CONTEXT)


def test_shaded_pieces_keep_their_colour() -> None:
    cue = _start(PURPLE, TEAL)
    lit = cue.white_log_odds(np.stack([_crop(PURPLE), _crop(TEAL)]))
    shaded = cue.white_log_odds(np.stack([_crop(PURPLE, 0.35), _crop(TEAL, 0.35)]))
    assert lit[0] > 1.0 and lit[1] < -1.0
    np.testing.assert_allclose(shaded, lit, rtol=0.2)


def test_the_cue_settles_only_what_the_model_leaves_open() -> None:
    cue = _start(PURPLE, TEAL)
    crops = np.stack([_crop(PURPLE, 0.4), _crop(PURPLE, 0.4), _crop(None)])
    colour = np.array([[0.02, 0.47, 0.51], [0.0, 0.001, 0.999], [0.9, 0.05, 0.05]])
    split = cue.resplit(colour, cue.shares(crops), np.ones(3))
    assert split[0].argmax() == 1  # a near tie goes to the hue
    assert split[1].argmax() == 2  # a sure reading outvotes it
    assert split[1, 1] / split[1, 2] <= np.exp(CUE_LIMIT) * 0.001 / 0.999 * 1.0001
    np.testing.assert_allclose(split[:, 0], colour[:, 0])  # occupancy is the model's
    np.testing.assert_allclose(split.sum(axis=1), 1.0)


def test_where_the_model_is_blind_to_the_colours_the_hue_alone_splits_the_pieces() -> None:
    """Flat red and green stickers read as one colour by the model: where the cue
    decides, a sure but blind reading no longer outvotes it (docs/models.md, "Sets told
    apart by hue alone")."""
    red, green = (60, 70, 200), (90, 140, 60)
    cue = _start(green, red)
    assert cue.can_decide and not _start((235, 235, 235), (30, 30, 30)).can_decide
    crops = np.stack([_crop(green, 0.8), _crop(red, 0.8), _crop(None)])
    colour = np.array([[0.01, 0.02, 0.97], [0.01, 0.97, 0.02], [0.9, 0.05, 0.05]])
    assert cue.resplit(colour, cue.shares(crops), np.ones(3))[:2].argmax(axis=1).tolist() == [2, 1]
    decisive = replace(cue, decides=True)
    split = decisive.resplit(colour, decisive.shares(crops), np.ones(3))
    assert split[:2].argmax(axis=1).tolist() == [1, 2]
    assert split[0, 1] > 0.9 and split[1, 2] > 0.9
    np.testing.assert_allclose(split[:, 0], colour[:, 0])  # occupancy is still the model's
    np.testing.assert_allclose(split.sum(axis=1), 1.0)


def test_a_crown_sticker_does_not_move_a_kings_hue() -> None:
    cue = _start(PURPLE, TEAL)
    kings = np.stack([_crop(PURPLE, 0.6, sticker=0.8), _crop(TEAL, 0.6, sticker=0.8)])
    as_kings = cue.white_log_odds(kings, kings=True)
    assert as_kings[0] > 1.0 and as_kings[1] < -1.0
    # Read whole, a sticker this large makes the teal king's top grey: no word for teal
    # from the men's Gaussians, so read as a man he is told by his vivid pixels too.
    whole = cue.shares(kings)[0]
    assert cue.men.white_log_odds(whole)[1] >= 0.0
    assert cue.white_log_odds(kings)[1] < -1.0
    colour = np.array([[0.0, 0.5, 0.5], [0.0, 0.5, 0.5]])
    for men in (np.zeros(2), np.ones(2)):
        assert cue.resplit(colour, cue.shares(kings), men).argmax(axis=1).tolist() == [1, 2]


def test_a_black_symbol_on_a_flat_king_does_not_move_its_hue() -> None:
    """The sticker set's kings bear a black star or square over most of the piece area:
    near-black pixels carry no hue, and the kings' cue leaves them out."""
    red, green = (60, 70, 200), (90, 140, 60)
    cue = _start(green, red)
    kings = np.stack([_crop(green, 0.8), _crop(red, 0.8)])
    cell = CROP_PX / (1 + CONTEXT.left + CONTEXT.right)
    centre = (round((CONTEXT.left + 0.5) * cell), round((CONTEXT.top + 0.5) * cell))
    for king in kings:
        cv2.circle(king, centre, round(0.3 * cell), (12, 12, 12), -1)
    as_kings = cue.white_log_odds(kings, kings=True)
    assert as_kings[0] > 2.0 and as_kings[1] < -2.0
    whole = cue.shares(kings)[0]
    assert np.all(np.abs(cue.men.white_log_odds(whole)) < np.abs(as_kings))  # read whole: greyer


def test_a_set_of_two_greys_gets_little_say() -> None:
    cue = _start((235, 235, 235), (30, 30, 30))
    odds = cue.white_log_odds(np.stack([_crop((235, 235, 235), 0.5), _crop((30, 30, 30))]))
    assert np.all(np.abs(odds) < 0.5)


def test_glare_is_not_the_pieces_colour() -> None:
    glare = _crop(PURPLE)
    glare[:, : CROP_PX // 2] = 255  # a lamp's highlight over half the piece area
    assert np.allclose(
        piece_chromaticity(glare[None], CONTEXT),
        piece_chromaticity(_crop(PURPLE)[None], CONTEXT),
        atol=0.5,
    )
    all_glare = np.full((1, CROP_PX, CROP_PX, 3), 255, np.uint8)
    assert _start(PURPLE, TEAL).white_log_odds(all_glare).tolist() == [0.0]


def test_a_set_of_two_hues_reads_its_men_without_the_light_squares_pale_pixels() -> None:
    # The start frame's men stand off their cells' centres (a photo taken askew), so the
    # light square shows in their piece areas: read without its pale pixels, purple and
    # teal lie further apart, and the men's cue leaves pale pixels out.
    cue = _start(PURPLE, TEAL, off_centre=0.4)
    assert not cue.men_pale
    # A teal man further aside shows more light square than teal: read whole, his median
    # is the square's grey, which says nothing for teal.
    askew = np.stack([_crop(TEAL, off_centre=0.45), _crop(PURPLE, off_centre=0.45)])
    odds = cue.white_log_odds(askew)
    assert odds[0] < -1.0 and odds[1] > 1.0
    assert cue.men.white_log_odds(cue.shares(askew)[0])[0] >= 0.0
    # A set of white and black men, whose white men are pale themselves, reads them whole.
    assert _start((235, 235, 235), (30, 30, 30), off_centre=0.4).men_pale


def test_a_vivid_piece_under_a_lamp_does_not_read_as_the_pale_colour() -> None:
    """Brazilian under the e2e's ``hard`` condition (seed 104, ply 38): a lamp's
    highlight, not bright enough to be left out as glare, washed a brown man on g1 to
    pink-white, and the cue took him for one of the set's cream men. White light draws
    a colour towards grey, never away from it: a piece on the line from brown to grey
    may be brown washed out, so the cue says nothing for cream there. A brown piece in
    shade still reads brown, and the cream men's hue, which lies on that line, is left
    to the model. The hall is dim (the e2e's ``hard`` light), so no pixel is pale."""
    cream, brown, dim = (200, 225, 240), (40, 60, 120), 0.45
    cue = _start(cream, brown, shade=dim)
    washed = (0.35 * _crop(brown, dim) + 0.65 * 235 * dim).astype(np.uint8)  # white light
    pieces = np.stack([washed, _crop(brown, 0.4 * dim), _crop(cream, dim)])
    odds = cue.white_log_odds(pieces)
    assert odds[0] <= 0.0  # no word for cream
    assert odds[1] < -1.0  # shaded brown is brown
    assert odds[2] == 0.0
    # Where the paler colour does not lie on that line (purple and teal), both speak.
    both = _start(PURPLE, TEAL).white_log_odds(np.stack([_crop(PURPLE), _crop(TEAL)]))
    assert both[0] > 1.0 and both[1] < -1.0


def test_a_piece_areas_median_is_numpys_nanmedian_bit_for_bit() -> None:
    """The hue cue's own median (numpy's is slow on rows this short) gives what
    np.nanmedian gives: NaN (glare, pale pixels) left out, odd and even counts, rows
    with one value or none."""
    rng = np.random.default_rng(5)
    shares = rng.uniform(10, 60, (60, 171, 2))
    shares[rng.uniform(size=shares.shape) < 0.3] = np.nan
    shares[0] = np.nan
    shares[1, 1:] = np.nan
    shares[2, 2:] = np.nan
    with warnings.catch_warnings():  # the all-NaN row
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanmedian(shares, axis=1)
    assert np.array_equal(_row_medians(shares), expected, equal_nan=True)


def test_a_square_showing_a_pieces_hue_is_not_read_empty_on_a_near_tie() -> None:
    """The damas photos' tall men seen from the side (WA0051 sq 4, WA0052 sq 0) read
    0.54-0.57 empty: their tops lie past the crop, which shows their side. Their piece
    area is purple or teal where an empty square's is the board's grey."""
    cue = _start(PURPLE, TEAL)
    crops = np.stack([_crop(PURPLE), _crop(TEAL, 0.5), _crop(PURPLE)])
    colour = np.array([[0.57, 0.40, 0.03], [0.55, 0.05, 0.40], [0.95, 0.04, 0.01]])
    read = cue.occupied(colour, cue.shares(crops))
    assert read[:2].argmax(axis=1).tolist() == [1, 2]  # the near ties go to the pieces
    assert read[2].argmax() == 0  # a sure empty reading outvotes it
    odds = np.log(read[:, 0] / read[:, 1:].sum(axis=1))
    before = np.log(colour[:, 0] / colour[:, 1:].sum(axis=1))
    assert np.all(before - odds <= OCCUPANCY_CUE_LIMIT + 1e-9)
    np.testing.assert_allclose(read[:, 1] / read[:, 2], colour[:, 1] / colour[:, 2])
    np.testing.assert_allclose(read.sum(axis=1), 1.0)


def test_a_square_showing_no_pixel_of_a_hued_piece_is_not_read_a_piece_on_a_near_tie() -> None:
    """The damas photos' empty light squares beside a tall man (WA0067 sq 15, WA0045 sq
    13) read 0.54-0.57 empty, 0.43-0.46 purple: their piece area shows only the board's
    pale grey, which no purple or teal man on the start frame did."""
    cue = _start(PURPLE, TEAL)
    grey = np.stack([_crop(None), _crop(None), _crop(None)])
    colour = np.array([[0.55, 0.43, 0.02], [0.1, 0.45, 0.45], [0.02, 0.96, 0.02]])
    read = cue.occupied(colour, cue.shares(grey))
    assert read[0].argmax() == 0  # the near tie goes to the empty square
    assert read[2].argmax() == 1  # a sure piece reading outvotes it
    odds = np.log(read[:, 1:] / read[:, :1])
    before = np.log(colour[:, 1:] / colour[:, :1])
    assert np.all(before - odds <= OCCUPANCY_CUE_LIMIT + 1e-9)
    assert np.all(before - odds > 1.0)
    # A purple man's piece area, even in shade, shows his hue: no word for empty.
    purple = np.stack([_crop(PURPLE, 0.5)])
    assert cue.occupied(colour[:1], cue.shares(purple))[0, 0] <= colour[0, 0]


def test_the_occupancy_cue_never_speaks_for_an_empty_square_of_a_white_and_black_set() -> None:
    # A black man on a dark board looks like the board: the cue says nothing for empty,
    # and a set of white and black men on a grey board gets little say for a piece. Its
    # men show no vivid pixel, as the empty squares do not: no word for empty either.
    cue = _start((235, 235, 235), (30, 30, 30))
    assert cue.occupancy is not None
    dark = np.stack([_crop((30, 30, 30), 0.3), _crop(None, 0.3)])
    colour = np.array([[0.3, 0.1, 0.6], [0.6, 0.2, 0.2]])
    read = cue.occupied(colour, cue.shares(dark))
    assert np.all(read[:, 0] <= colour[:, 0] + 1e-12)
    odds = cue.occupancy.piece_log_odds(
        piece_chromaticity(np.stack([_crop((235, 235, 235))]), CONTEXT)
    )
    assert odds[0] < 0.5


def test_a_man_whose_piece_area_shows_mostly_the_board_is_told_by_his_vivid_pixels() -> None:
    """A man seen from the side over a light square (WA0069's 55, read through WA0049 and
    WA0051: 0.41 purple, 0.52 teal): most of his piece area is the square's pale grey,
    which the men's cue, reading pale pixels too, cannot tell from a vivid man washed
    out, and so says nothing; his own pixels are teal."""
    cue = _start(PURPLE, TEAL)
    assert cue.men_pale  # the men's cue reads pale pixels too
    crops = np.stack([_crop(TEAL, off_centre=0.35), _crop(PURPLE, off_centre=0.35)])
    shares = cue.shares(crops)
    assert np.all(cue.men.white_log_odds(shares[0]) == 0)  # the board's grey: no word
    split = cue.resplit(np.array([[0.07, 0.41, 0.52], [0.07, 0.52, 0.41]]), shares, np.ones(2))
    assert split.argmax(axis=1).tolist() == [2, 1]
    # all glare: no word from either
    glare = np.stack([np.full_like(crops[0], 255)])
    np.testing.assert_allclose(
        cue.resplit(np.array([[0.1, 0.5, 0.4]]), cue.shares(glare), np.ones(1)), [[0.1, 0.5, 0.4]]
    )

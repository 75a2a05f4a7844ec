"""Which colour a piece is, from its chromaticity: a cue that shading does not move.

The model's features (and its head) see brightness, so a piece in a darker corner than
on the start frame, or a frame the camera's auto-exposure lit otherwise, can drift
towards the other colour: the damas photos' purple men in shadow read as teal.
Chromaticity, the red and green shares of the pixel's sum (``r, g = R, G / (R + G + B)``,
the usual rg chromaticity; blue's share is what is left), stays put when light dims or
brightens a surface. A set whose two colours differ in hue is told apart by it whatever
the light; a white and a black set has two nearly equal chromaticities, so the cue stays
weak there and the model decides.

A king's top may wear a crown sticker: white or a pale tint, printed in another ink, as
large as most of the top (the damas set's reach two thirds of the way to the edge). Its
pixels would pull the median to grey, so a king's hue is read from the pixels that are
not pale (:data:`PALE_SATURATION`, :data:`PALE_LEVEL`): the rim of the top and its side.

The same statistic also tells a piece from an empty square where the set's hues are not
the board's (:class:`OccupancyGaussians`): a tall man seen from the side, whose top lies
past the crop, still shows his colour on his cell.

Written here rather than taken from a library: it is a per-set two- or three-class
Gaussian on a median statistic, a few lines of numpy.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from rules.observation import Top
from vision.rectify import CropWindow

SPREAD_FLOOR = 8.0
"""Least spread of a colour's chromaticity, in percent of the pixel sum. One start
frame's pieces of a colour lie within 1-3 points of each other; other frames of the
same table move by more (white balance, light), and the cue must not outvote the model
on a few points. 6 and 8 read the labelled photos best among 3-16 (docs/models.md)."""

CUE_LIMIT = 3.0
"""Most log-odds the cue adds to White against Black: it settles the pieces the model
is unsure of and leaves those it reads surely to it, since glare or a hand's shadow can
drain a piece's hue. Not where the model cannot tell the set's colours apart
(:attr:`PieceChromaticity.decides`)."""
DECISIVE_SEPARATION = 2.0
"""Least separation (:attr:`ColourGaussians.separation`, in spreads) of a start frame's
two colours of men for the cue to split the pieces alone where the model is blind to the
set's colours: red and green stickers lie 3.4 apart, the damas set's purple and teal
1.8-5.1 on its 18 start photos, synth's sets 0.3-10.9 (white and black ones under 1)."""
GLARE_LEVEL = 250.0
"""Pixels with a channel above this (of 255, plus one) are a lamp's highlight, not the
piece's colour."""
WASHED_SPREADS = 0.5
"""A piece whose chromaticity lies within this many spreads of the line from the more
vivid colour's mean to grey may be that colour washed out by a lamp's highlight: half
the floor is 4 points, about how far one frame's pieces of a colour stray from their
mean. (A whole spread took a purple king near grey for washed teal, on a webcam photo.)"""
OCCUPANCY_CUE_LIMIT = 1.5
"""Most log-odds the occupancy cue (:class:`OccupancyGaussians`) adds to a piece against
an empty square: it settles squares the model leaves near even (the damas photos' tall
men seen from the side, read 0.54-0.57 empty, whose crops show more of their side than
of their top) and never overrules a sure empty reading (0.95 empty is 2.9 log-odds)."""
GREY = np.array([100 / 3, 100 / 3])
"""The chromaticity of white light, and of any grey."""
DARK_LEVEL = 32.0
"""A pixel whose brightest channel is under this (of 255, plus one) is near black, and
its chromaticity noise about grey: left out with the pale ones, so that a king's black
star or square printed on a flat sticker, or the black square beside a piece a bent lens
shows off its cell, does not pull the piece's hue to grey (two kings of the labelled
sticker photos read a tie before; 20-45 read them right, the damas photos and the
adapted render sets alike, docs/models.md, "Sets told apart by hue alone")."""
PALE_SATURATION = 0.3
PALE_LEVEL = 120.0
"""A pixel whose saturation ((max - min) / max) is under :data:`PALE_SATURATION` and
whose brightest channel is over :data:`PALE_LEVEL` is pale: a crown sticker's, in the
kings' cue. 0.3 and 120 leave out the stickers of the damas photos and of synth's sets
while keeping the rim of a purple or teal top (docs/models.md)."""


def piece_chromaticity(crops: np.ndarray, window: CropWindow, *, pale: bool = True) -> np.ndarray:
    """``(N, 2)`` median rg chromaticity (percent of R + G + B) of each BGR crop's piece
    area: the middle of the cell and above it, where a stack stands and grows in an
    image-upright crop. ``pale=False`` leaves pale pixels out (a crown sticker's), and
    near-black ones (:data:`DARK_LEVEL`); NaN where none are left."""
    whole, vivid = both_chromaticities(crops, window)
    return whole if pale else vivid


def both_chromaticities(crops: np.ndarray, window: CropWindow) -> tuple[np.ndarray, np.ndarray]:
    """:func:`piece_chromaticity` with pale pixels and without (nor near-black ones),
    the pixels read once."""
    height, width = crops.shape[1:3]
    cell_w = width / (1 + window.left + window.right)
    cell_h = height / (1 + window.top + window.bottom)
    cx, cy = (window.left + 0.5) * cell_w, (window.top + 0.5) * cell_h
    x0, x1 = int(cx - 0.2 * cell_w), int(cx + 0.2 * cell_w) + 1
    y0, y1 = int(cy - 0.35 * cell_h), int(cy + 0.15 * cell_h) + 1
    pixels = crops[:, y0:y1, x0:x1].reshape(len(crops), (y1 - y0) * (x1 - x0), 3) + 1.0
    # Channel by channel: numpy reduces a length-3 axis slowly, and these sums of whole
    # numbers are exact in any order.
    blue, green, red = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    shares = 100.0 * np.stack([red, green], axis=2) / (blue + green + red)[:, :, None]
    brightest = np.maximum(np.maximum(blue, green), red)
    shares[brightest > GLARE_LEVEL] = np.nan  # a highlight is the lamp's colour
    saturation = (brightest - np.minimum(np.minimum(blue, green), red)) / brightest
    vivid = shares.copy()
    vivid[(saturation < PALE_SATURATION) & (brightest > PALE_LEVEL)] = np.nan
    vivid[brightest < DARK_LEVEL] = np.nan
    return _row_medians(shares), _row_medians(vivid)


def _row_medians(values: np.ndarray) -> np.ndarray:
    """``np.nanmedian(values, axis=1)`` bit for bit (NaN where a row has none), at a
    tenth of its time: for rows as short as a piece area's (under 600) numpy's median
    goes through masked arrays, which made the hue cue a fifth of an adapted reading
    of 50 crops. One sort puts each row's NaN last; its median lies mid-way along the
    rest. The rows are laid out contiguous first: sorted and counted along the last axis
    they take under half the time they take along the middle one."""
    rows = np.ascontiguousarray(np.moveaxis(values, 1, -1))
    rows.sort(axis=-1)
    count = np.count_nonzero(~np.isnan(rows), axis=-1)[..., None]
    low = np.take_along_axis(rows, np.maximum(count - 1, 0) // 2, axis=-1)
    high = np.take_along_axis(rows, np.minimum(count // 2, rows.shape[-1] - 1), axis=-1)
    out: np.ndarray = np.where(count > 0, (low + high) / 2, np.nan)[..., 0]
    return out


@dataclass(frozen=True)
class ColourGaussians:
    """Mean chromaticity of White's and Black's men on one start frame, and the spread a
    piece may stray from its colour's mean: two Gaussians of equal spread."""

    means: np.ndarray
    """(2, 2): White's, Black's (r, g)."""
    spread: np.ndarray
    """(2,): of r and of g."""

    @classmethod
    def learn(cls, shares: np.ndarray, tops: np.ndarray) -> ColourGaussians:
        """From a start frame's ``(N, 2)`` chromaticities and labels (both colours' men)."""
        white, black = shares[tops == Top.WHITE_MAN], shares[tops == Top.BLACK_MAN]
        with warnings.catch_warnings():  # a colour all pale (a white set's men): NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.stack([np.nanmean(white, axis=0), np.nanmean(black, axis=0)])
            spread = np.nanstd(np.concatenate([white - means[0], black - means[1]]), axis=0)
        return cls(np.nan_to_num(means, nan=100 / 3), np.fmax(spread, SPREAD_FLOOR))

    def white_log_odds(self, shares: np.ndarray) -> np.ndarray:
        """``(N,)`` log-odds of White over Black for ``(N, 2)`` chromaticities; 0 for NaN.

        A lamp's highlight adds white light, which draws a piece's chromaticity towards
        grey: a brown man under the lamp reads as a cream one, while no light makes a
        cream man read brown. So where a piece may be the more vivid colour washed out
        (:meth:`_washed`), the cue does not speak for the paler colour."""
        to_white = ((shares - self.means[0]) / self.spread) ** 2
        to_black = ((shares - self.means[1]) / self.spread) ** 2
        odds = 0.5 * (to_black - to_white).sum(axis=1)
        vivid = int(self._vividness(1) > self._vividness(0))  # 0: White, 1: Black
        washed = self._washed(shares, self.means[vivid])
        odds = np.where(washed, np.minimum(odds, 0) if vivid else np.maximum(odds, 0), odds)
        out: np.ndarray = np.nan_to_num(odds)
        return out

    def _vividness(self, colour: int) -> float:
        """How far, in spreads, a colour's mean lies from grey."""
        return float(np.linalg.norm((self.means[colour] - GREY) / self.spread))

    def _washed(self, shares: np.ndarray, vivid: np.ndarray) -> np.ndarray:
        """``(N,)`` whether each chromaticity lies within :data:`WASHED_SPREADS` of the
        line from ``vivid`` to grey: that colour with white light added."""
        line = (vivid - GREY) / self.spread
        offset = (shares - GREY) / self.spread
        along = np.clip(offset @ line / max(float(line @ line), 1e-12), 0.0, 1.0)
        distance = np.linalg.norm(offset - along[:, None] * line, axis=1)
        out: np.ndarray = distance <= WASHED_SPREADS
        return out

    @property
    def separation(self) -> float:
        """How many spreads apart White's and Black's means lie."""
        return float(np.linalg.norm((self.means[0] - self.means[1]) / self.spread))


@dataclass(frozen=True)
class OccupancyGaussians:
    """Mean chromaticity (pale pixels kept) of a start frame's empty playable squares and
    of each colour's men, and the spread about them: whether a square's piece area shows
    the board or a piece.

    A set of two hues on a grey board (the damas photos' purple and teal on black and
    white) parts pieces from empty squares by it whatever the light; a white and a black
    set on light and dark squares hardly does, and the spread keeps the cue weak there. The
    Gaussians speak only for a piece: a dark piece in shadow, or on a square of its own colour,
    looks like the board, while an empty square does not take a piece's hue (a highlight
    greys it, which draws it away from a hued set's pieces; pixels past
    :data:`GLARE_LEVEL` are left out).

    What speaks for an empty square is a piece area with no pixel of a piece's kind at
    all, where the start frame's men always showed one (:meth:`empty_log_odds`): on the
    damas photos every one of 853 labelled pieces shows a pixel neither pale nor near
    black, and 505 of 523 empty light squares none, while the main file read some of
    those empty squares, beside a tall man, near even with a purple one."""

    means: np.ndarray
    """(3, 2): empty, White's and Black's (r, g)."""
    spread: np.ndarray
    """(2,): of r and of g."""
    plain: np.ndarray
    """(3,): the share of the start frame's empty squares, White's men and Black's men
    whose piece area shows no vivid pixel (:func:`both_chromaticities`), counted with one
    of each kind added (so never 0 or 1)."""

    @classmethod
    def learn(cls, shares: tuple[np.ndarray, np.ndarray], tops: np.ndarray) -> OccupancyGaussians:
        """From a start frame's ``(N, 2)`` chromaticities (:func:`both_chromaticities`:
        pale pixels kept, then without pale or near-black ones) and labels."""
        whole, vivid = shares
        kinds = [tops == t for t in (Top.EMPTY, Top.WHITE_MAN, Top.BLACK_MAN)]
        groups = [whole[kind] for kind in kinds]
        with warnings.catch_warnings():  # a group all glare: NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.stack([np.nanmean(g, axis=0) for g in groups])
            spread = np.nanstd(
                np.concatenate([g - m for g, m in zip(groups, means, strict=True)]), axis=0
            )
        no_vivid = np.isnan(vivid[:, 0])
        plain = np.array([(no_vivid[kind].sum() + 1) / (kind.sum() + 2) for kind in kinds])
        return cls(
            np.nan_to_num(means, nan=100 / 3), np.fmax(np.nan_to_num(spread), SPREAD_FLOOR), plain
        )

    def empty_log_odds(self, vivid: np.ndarray) -> np.ndarray:
        """``(N, 2)`` log-odds that each crop is empty rather than White's piece, and
        rather than Black's, from its ``(N, 2)`` chromaticity without pale or near-black
        pixels: where its piece area shows no such pixel (NaN), how much likelier that
        was on the start frame's empty squares than on that colour's men, from 0 to
        :data:`OCCUPANCY_CUE_LIMIT`; 0 where it shows one. So nothing for a white or a
        black set, whose men show none either, nor where the empty squares are dark."""
        against = np.clip(np.log(self.plain[0] / self.plain[1:]), 0.0, OCCUPANCY_CUE_LIMIT)
        out: np.ndarray = np.isnan(vivid[:, :1]) * against[None, :]
        return out

    def piece_log_odds(self, shares: np.ndarray) -> np.ndarray:
        """``(N,)`` log-odds that each ``(N, 2)`` chromaticity is a piece's rather than an
        empty square's, the nearer colour's, from 0 to :data:`OCCUPANCY_CUE_LIMIT` (0 for
        NaN)."""
        distance = (((shares[:, None, :] - self.means[None]) / self.spread) ** 2).sum(axis=2)
        odds = 0.5 * (distance[:, 0] - np.minimum(distance[:, 1], distance[:, 2]))
        out: np.ndarray = np.clip(np.nan_to_num(odds), 0.0, OCCUPANCY_CUE_LIMIT)
        return out


@dataclass(frozen=True)
class PieceChromaticity:
    """The start frame's men's chromaticity, read without pale pixels (the kings' cue,
    which a crown sticker does not move) and, for the men's cue, whole or without pale
    pixels, whichever parts the start frame's two colours of men further."""

    men: ColourGaussians
    kings: ColourGaussians
    window: CropWindow
    men_pale: bool = True
    """The men's cue reads pale pixels too: a set of white and black men, whose white
    men are pale themselves. A set of two hues (the damas set's purple and teal) reads
    them better without: a light square's pale pixels beside a man seen from the side
    pull his median towards grey, which a teal man's lies nearer purple than teal."""
    occupancy: OccupancyGaussians | None = None
    """The start frame's empty squares and men, for :meth:`occupied`; None: no cue."""
    decides: bool = False
    """The cue alone splits each piece between White and Black (:meth:`resplit`), without
    :data:`CUE_LIMIT`: set where the model reads the start frame's two colours of men as
    one (:meth:`models.classifier.OnnxSquareClassifier.adapted`), as it reads flat red and
    green stickers on a lit paper board, both "dark pieces" to features learnt on
    lightness, and the hue parts them (:meth:`can_decide`)."""

    @classmethod
    def learn(cls, crops: np.ndarray, tops: np.ndarray, window: CropWindow) -> PieceChromaticity:
        """From a start frame's crops and their labels (both colours' men on it)."""
        shares = both_chromaticities(crops, window)
        whole, vivid = (ColourGaussians.learn(s, tops) for s in shares)
        men_pale = whole.separation >= vivid.separation
        occupancy = OccupancyGaussians.learn(shares, tops)
        return cls(whole if men_pale else vivid, vivid, window, men_pale, occupancy)

    @property
    def can_decide(self) -> bool:
        """The start frame's two colours of men stand :data:`DECISIVE_SEPARATION` apart
        in this cue, men and kings alike."""
        return min(self.men.separation, self.kings.separation) >= DECISIVE_SEPARATION

    def shares(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The crops' piece areas' chromaticities, with pale pixels and without
        (:func:`both_chromaticities`): what :meth:`occupied` and :meth:`resplit` read, the
        pixels read once for both."""
        return both_chromaticities(crops, self.window)

    def occupied(self, colour: np.ndarray, shares: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """``(N, 3)`` empty / White / Black weighed by the occupancy cue
        (:class:`OccupancyGaussians`) on the crops' :meth:`shares`: the empty share
        lowered where a piece's hue shows, or each colour's where no pixel of a piece's
        kind shows at all."""
        if self.occupancy is None:
            return colour
        out = colour.copy()
        out[:, 0] *= np.exp(-self.occupancy.piece_log_odds(shares[0]))
        out[:, 1:] *= np.exp(-self.occupancy.empty_log_odds(shares[1]))
        out /= out.sum(axis=1, keepdims=True)
        return out

    def white_log_odds(self, crops: np.ndarray, *, kings: bool = False) -> np.ndarray:
        """``(N,)`` log-odds that each crop's piece is White rather than Black, read as a
        man's or (``kings``) as a king's; meaningful only where a piece stands; 0 where
        the crop is all glare (or, with pale pixels left out, all pale)."""
        as_men, as_kings = self._both_log_odds(self.shares(crops))
        return as_kings if kings else as_men

    def _both_log_odds(
        self, shares: tuple[np.ndarray, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`white_log_odds` as a man's and as a king's, from the crops' :meth:`shares`.
        Where the men's cue reads pale pixels too and says nothing (0: the piece area all
        glare, or grey that may be the more vivid colour washed out, as a man seen from
        the side over a light square shows), his vivid pixels speak, as a king's do."""
        whole, vivid = shares
        as_kings = self.kings.white_log_odds(vivid)
        if not self.men_pale:  # the men's Gaussians are the kings'
            return as_kings, as_kings
        as_men = self.men.white_log_odds(whole)
        return np.where(as_men == 0, as_kings, as_men), as_kings

    def resplit(
        self, colour: np.ndarray, shares: tuple[np.ndarray, np.ndarray], men: np.ndarray
    ) -> np.ndarray:
        """``(N, 3)`` empty / White / Black with the pieces' share split anew between
        White and Black by this cue on the crops' :meth:`shares` times the given split;
        the empty share is kept (the model reads occupancy well; the occupancy cue,
        :meth:`occupied`, has had its say before). The cue moves the split by at most
        :data:`CUE_LIMIT` log-odds: the men's cue times ``men`` ``(N,)``, the chance that
        the piece is a man, and the kings' cue times the rest. Where it :attr:`decides`,
        the split is the cue's alone."""
        limit = np.inf if self.decides else CUE_LIMIT
        as_men, as_kings = (np.clip(odds, -limit, limit) for odds in self._both_log_odds(shares))
        odds = men * as_men + (1 - men) * as_kings
        if self.decides:
            colour = colour.copy()
            colour[:, 1] = colour[:, 2] = (colour[:, 1] + colour[:, 2]) / 2
        white = colour[:, 1] * np.exp(odds / 2)
        black = colour[:, 2] * np.exp(-odds / 2)
        keep = (colour[:, 1] + colour[:, 2]) / np.maximum(white + black, 1e-300)
        out = colour.copy()
        out[:, 1], out[:, 2] = white * keep, black * keep
        return out

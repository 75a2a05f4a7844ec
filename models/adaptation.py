"""Adaptation: a reader fitted to one set of pieces and one board.

From one frame of the start position (:func:`adapted`, :func:`adapted_on_frame`) the
reader learns this set's own colours (prototypes of its empty squares, White men and
Black men in the main file's feature space, and the pieces' hue), the height its men
stand in synth discs (:func:`man_height`), and how far its men's own readings lean to
king, crown or two discs, so that only a piece past all of them reads as a king. Without
a start frame, :func:`on_board` measures the men's height on a board's own pieces.

Each margin and limit below says what measurement set it (docs/models.md). The
functions return copies of :class:`models.classifier.OnnxSquareClassifier`, and are its
methods of the same names.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from models import top_odds
from models.chromaticity import PieceChromaticity
from rules.geometry import BoardGeometry
from rules.observation import Top
from vision.band import band_strips
from vision.camera import crops_and_views
from vision.locate import BoardLocation, Image
from vision.rectify import CameraModel

if TYPE_CHECKING:
    from models.classifier import OnnxSquareClassifier

log = logging.getLogger(__name__)

NEAREST = True
"""Adapt by nearest start square rather than class mean (fewer colour errors on the
labelled photos: docs/models.md)."""
KING_MARGIN = 1.0
"""Log-odds margin past the start frame's men before a piece of that set reads as a king."""
TALL_MEN_KING_FLOOR = 1.0
"""Least king bias of a set whose men stand taller than synth's discs (a measured
``view_scale`` over 1). The kings model reads such men through scaled view tangents, and
their king odds wander further from the start frame's as the view changes: the damas
set's purple men read under -2 at the start photo's tangents and up to +1.3 from lower,
where a bias of 0 made kings of them. With 1: 11 errors instead of 21 on the 34 labelled
photos, 145 instead of 155 over 40 adapted render sets of tall men; sets of synth's
discs (scale 1) keep a floor of 0 (docs/models.md, "A king bar for tall men")."""
VIEW_SCALES = np.geomspace(0.4, 6.0, 17)
"""Scales of the view tangents that adaptation tries on the start frame's men."""
MAN_HEIGHT_VIEW_POWER = 3.0
"""Each start-frame man weighs in the men's height (:func:`man_height`) as his view
tangent to this power. A man seen from straight above shows no side band:
the kings model reads him alike at every scale, and counted evenly such men put a nearly
overhead start photo's tall men at synth's one disc (damas WA0171 and WA0172: 1.09 and
1.00 against 1.5-2.2 from the session's other start photos), so that the session's
photos taken from lower read men as kings. Through ``damcam read --calibration``
from every damas start photo (``bench.photo_sessions``), powers 0, 2, 3, 4 and 6 misread
58, 42, 37, 39 and 44 squares of 5,728 playable ones (session 52, before webcam-k2);
adapted render sets 56 and 57 of 4,338 (0, 3)."""
ONE_PIECE_LIMIT = 1.5
"""A stack of up to this many men's heights reads as one piece (halfway to two)."""
MIN_BOARD_PIECE_SHARE = 0.375
"""Least share of a board's playable squares holding pieces for a reader without a start
frame to measure its men's height on them (:func:`on_board`): 12 of an 8x8 board's 32,
half a start position. The measure takes every piece for a man and
reads the height at which half of them read as one piece, so it needs the kings fewer
than half. In the real games of ../shared/data (about 38,900 positions: international,
russian, english, italian) a board with half its start's pieces or more held kings as at
most 42% of them (english; international none); with fewer, an endgame's kings may be
most of the board (docs/models.md, "A board's own men, without calibration")."""
CROWN_MARGIN = 1.0
"""Log-odds margin past the start frame's most crown-like man before a piece's crown
sticker counts (the reader's ``crown_bias``)."""
HEIGHT_MARGIN = 1.0
"""Log-odds margin past the start frame's most two-disc-like man before the kings
model's own reading of two discs counts towards king in a draughts set
(the reader's ``height_bias``): the margin of :data:`KING_MARGIN` and :data:`CROWN_MARGIN`."""
BAND_MARGIN = 6.0
"""Log-odds margin past the start frame's most two-disc-like man before a draughts
piece's band strip counts (the reader's ``band_bias``). With 1, four men of the damas
photos seen nearly from above (view tangents 0.17-0.21) read as kings. For the
tower reader that counts to the full tower, 3-5 leave one of them a king, 6 keeps them
men and still reads 2 more kings right over 40 adapted render sets (docs/models.md,
"Draughts kings from the band strip", "Towers to the full height")."""
MIN_COLOUR_SIGHT = 0.9
"""Least share of a start frame's men whose colour an adapted model reads right, each
read against the frame's other squares (leave-one-out), for its colour to count beside
the hue. On every damas start photo it reads all of them; on flat red and green stickers
under a lamp, 62% (both are "dark pieces" to features learnt on lightness), and there
the hue alone splits the pieces (:attr:`models.chromaticity.PieceChromaticity.decides`):
on the labelled sticker photos 44 squares of 608 read in the wrong colour before, none
after (docs/models.md, "Sets told apart by hue alone")."""
HEAD_COLOUR_WEIGHT = 0.5
"""An adapted model's colour (empty / White / Black) is the start-frame prototypes' times
the trained head's to this power: the head alone knows renders' occupancy best, the
prototypes the real set's colours; 0.5 reads both the labelled photos and adapted renders
better than either alone (docs/models.md)."""


def adapted(
    reader: OnnxSquareClassifier,
    crops: np.ndarray,
    tops: np.ndarray,
    views: np.ndarray | None = None,
    *,
    nearest: bool = NEAREST,
    head_weight: float = HEAD_COLOUR_WEIGHT,
    towers: bool = False,
) -> OnnxSquareClassifier:
    """``reader`` adapted to one set: it tells empty / White / Black by the features of
    ``crops`` labelled ``tops`` (one start-position frame, labels from the rules), so
    this set's own colours decide which piece is White: the most similar single square (``nearest``:
    lit and shadowed pieces of a colour stay apart) or the most similar class mean.
    Man or king still comes from the trained head, shifted so that the frame's men
    read as men (no king stands on a start position). ``head_weight``: how much the
    trained head's colours count beside the prototypes (:data:`HEAD_COLOUR_WEIGHT`),
    swapped if the head reads most of this frame's White men as Black. Then the
    pieces' colour, and near even their occupancy, is weighed once more by their hue
    (:class:`models.chromaticity.PieceChromaticity`), but not in a column game
    (``towers``): a tower's side shows the colours under its top, and its kings'
    tops are striped. The kings model is the family's (``for_variant``), its unit of
    height the men's (``view_scale``, :func:`man_height`). A draughts reader's
    ``first_look`` is adapted on the same crops, by its own kings model."""
    men = (tops == Top.WHITE_MAN) | (tops == Top.BLACK_MAN)
    first_look = None
    if reader.first_look is not None and not towers:
        first_look = adapted(
            reader.first_look, crops, tops, views, nearest=nearest, head_weight=head_weight
        )
    family = replace(reader.for_variant(towers), first_look=None)
    scale = man_height(family, crops[men], views[men]) if views is not None else 1.0
    start = replace(family, view_scale=scale).run(crops, views)
    features = start.features
    groups = [Top.EMPTY, Top.WHITE_MAN, Top.BLACK_MAN]
    missing = [t.name for t in groups if not np.any(tops == t)]
    if missing:
        raise ValueError(f"adaptation crops hold no {', '.join(missing)}: use a start position")
    kinds = np.select([tops == t for t in groups], [0, 1, 2], default=-1)
    if nearest:
        protos, proto_kinds = features[kinds >= 0], kinds[kinds >= 0]
    else:
        protos = np.stack([features[kinds == k].mean(axis=0) for k in range(3)])
        proto_kinds = np.arange(3)
    # The trained head tells a king by a taller stack; a set of taller pieces than
    # synth's discs looks all kings to it. Its men on the start frame say how far to
    # shift: past the 90th percentile of their king log-odds, with a margin.
    # Each colour apart: a set's two colours need not look equally tall.
    odds = top_odds.king_odds(start.tops)
    head = top_odds.colours(start.tops[men], swapped=False)
    agree = float(np.mean((head[:, 1] > head[:, 2]) == (tops[men] == Top.WHITE_MAN)))
    floor = TALL_MEN_KING_FLOOR if scale > 1.0 else 0.0
    bias = tuple(
        max(floor, float(np.percentile(odds[tops == man], 90)) + KING_MARGIN)
        for man in (Top.WHITE_MAN, Top.BLACK_MAN)
    )
    crown_bias = None
    if start.crowns is not None and not towers:  # a column game's kings are striped
        crown_bias = float(start.crowns[men].max()) + CROWN_MARGIN
    height_bias = None
    if not towers and family.kings is not None:  # in a column game, two discs are a tower
        height_bias = float(top_odds.two_disc_log_odds(start.heights)[men].max()) + HEIGHT_MARGIN
    own_set = replace(
        family,
        prototypes=protos,
        prototype_kinds=proto_kinds,
        king_bias=(bias[0], bias[1]),
        head_weight=head_weight,
        head_swapped=agree < 0.5,
        chromaticity=None if towers else PieceChromaticity.learn(crops, tops, family.window),
        view_scale=scale,
        crown_bias=crown_bias,
        height_bias=height_bias,
        first_look=first_look,
    )
    hue = own_set.chromaticity
    if hue is None or not hue.can_decide:
        return own_set
    own = np.full(len(tops), -1)
    if nearest:
        own[kinds >= 0] = np.arange(len(protos))
    colour = own_set.set_colour(features, start.tops, own)
    assert colour is not None  # adapted
    sight = float(np.mean((colour[men, 1] > colour[men, 2]) == (tops[men] == Top.WHITE_MAN)))
    if sight >= MIN_COLOUR_SIGHT:
        return own_set
    log.info("the model reads %.0f%% of the start frame's men's colours: the hue decides",
             100 * sight)  # fmt: skip
    return replace(own_set, chromaticity=replace(hue, decides=True))


def adapted_on_frame(
    reader: OnnxSquareClassifier,
    frame: Image,
    location: BoardLocation,
    geometry: BoardGeometry,
    tops: np.ndarray,
    *,
    turns: int = 0,
    camera: CameraModel | None = None,
    towers: bool = False,
) -> OnnxSquareClassifier:
    """:func:`adapted` on a start-position frame, cut at the reader's crop size and
    window, with the cells' view tangents; ``tops`` in Square order. In a draughts
    game with a tower reader, the start frame's band strips set its ``band_bias``, and
    its ``first_look``'s from the same strips, which the caller cuts at this
    reader's scale of the view tangents."""
    crops, views = crops_and_views(
        frame,
        location,
        geometry,
        crop_px=reader.crop_size[0],
        window=reader.window,
        turns=turns,
        camera=camera,
    )
    tops = np.asarray(tops, np.int64)
    own_set = adapted(reader, crops, tops, views, towers=towers)
    if towers or reader.tower_reader is None:
        return own_set
    strips = band_strips(
        frame,
        location,
        geometry,
        views=views * own_set.view_scale,
        turns=turns,
        camera=camera,
        window=reader.tower_reader.window,
    )
    men = (tops == Top.WHITE_MAN) | (tops == Top.BLACK_MAN)

    def band_biased(model: OnnxSquareClassifier) -> OnnxSquareClassifier:
        odds = model.two_disc_odds(views, strips)
        assert odds is not None  # a draughts game's reader, with strips
        return replace(model, band_bias=float(odds[men].max()) + BAND_MARGIN)

    first_look = None if own_set.first_look is None else band_biased(own_set.first_look)
    return replace(band_biased(own_set), first_look=first_look)


def on_board(
    reader: OnnxSquareClassifier, crops: np.ndarray, views: np.ndarray | None
) -> OnnxSquareClassifier:
    """``reader`` for one board read without a start frame (``damcam read`` without a
    calibration; vision's ``BoardMeasuring``): ``crops`` and ``views`` are the board's
    playable squares, and the men's height is measured on its own pieces as
    :func:`adapted` measures it on a start frame's men (:func:`man_height`), every
    piece taken for a man. Unadapted, the kings model reads a set of men taller than
    synth's discs as kings: the damas photos' tall men, 135 of their 165 squares
    read wrong. Where they stand taller, the king bias is adaptation's least,
    :data:`TALL_MEN_KING_FLOOR`: no start frame's men say more. Measured only where it
    can be: in a draughts game (a column game's towers are not men), by a reader not
    yet adapted, on a board whose pieces fill at least :data:`MIN_BOARD_PIECE_SHARE`
    of it; else ``reader`` as it is."""
    if reader.towers or reader.kings is None or reader.prototypes is not None or views is None:
        return reader
    pieces = reader.main_reading(crops, views).tops.argmax(axis=1) != Top.EMPTY
    if pieces.sum() < MIN_BOARD_PIECE_SHARE * len(crops):
        return reader

    def measured(model: OnnxSquareClassifier) -> OnnxSquareClassifier:
        scale = man_height(replace(model, first_look=None), crops[pieces], views[pieces])
        floor = TALL_MEN_KING_FLOOR if scale > 1.0 else 0.0  # as adaptation's least bias
        return replace(model, view_scale=scale, king_bias=(floor, floor))

    first_look = None if reader.first_look is None else measured(reader.first_look)
    return replace(measured(reader), first_look=first_look)


def man_height(reader: OnnxSquareClassifier, men: np.ndarray, views: np.ndarray) -> float:
    """The men's height in synth discs, from crops of men, as ``reader``'s kings model
    reads them: a man H tall seen through
    tangents scaled by s shows H / s men's heights, so the kings model reads him as
    one piece from about s = H / :data:`ONE_PIECE_LIMIT` up. The scale at which it
    reads half of them so (mean probability, between :data:`VIEW_SCALES`, each man
    weighed as :data:`MAN_HEIGHT_VIEW_POWER` says), times the limit, is H. At least
    1: men of synth's usual discs read as one piece at every scale tried (their look
    says man), so a crossing under 1 measures nothing."""
    kings_reader = reader.kings_reader
    if kings_reader is None or len(men) == 0:
        return 1.0
    weights = views**MAN_HEIGHT_VIEW_POWER
    single = np.array(
        [
            reader.kings_reading(kings_reader, men, views * scale).heights[:, 1] @ weights
            for scale in VIEW_SCALES
        ]
    ) / max(float(weights.sum()), 1e-9)
    reached = np.flatnonzero(single >= 0.5)
    if len(reached) == 0:  # never one piece: no height to measure
        return 1.0
    k = int(reached[0])
    log_scale = np.log(VIEW_SCALES[k])
    if k > 0:  # interpolate the crossing between the scales either side, in log scale
        below, above = single[k - 1], single[k]
        step = np.log(VIEW_SCALES[k]) - np.log(VIEW_SCALES[k - 1])
        log_scale -= step * (above - 0.5) / (above - below)
    height = float(np.clip(ONE_PIECE_LIMIT * np.exp(log_scale), 1.0, 5.0))  # as Style
    log.info("the men stand %.2f synth discs tall", height)
    return height

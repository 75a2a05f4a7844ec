"""The shipped square classifier, run by onnxruntime (no torch needed).

The ONNX file has one input ``crops`` ``(N, 3, H, W)`` float32 (and, for a model trained
with view tangents, ``views`` ``(N, 1)``: :func:`vision.camera.view_tangents`) and three
outputs: ``top_logits (N, 5)``, ``height_logits (N, 9)`` and ``features (N, 64)``. Its
card (``square_classifier.json`` beside it) names the class order, input size and
normalisation; the code reads them from there rather than hard-coding them.

A card may name a second model, ``kings_model``: then this file says only empty, White
or Black (and gives the features the per-set prototypes live in), and the kings model,
which reads the view tangents, says man or king and how tall the stack is. So a model
that learns kings and heights cannot move the colours that the real sets' calibration
was measured with (every fine-tune of one network did: docs/models.md). It may also
name ``columns_model`` (the kings model of column games), ``towers_model`` (the tower
reader, :mod:`models.towers`: column games' heights from band strips) and
``quick_kings_model``, a draughts kings model half as dear that reads every piece first
(:attr:`OnnxSquareClassifier.first_look`).

Fitting a reader to one set from its start frame is :mod:`models.adaptation`'s job, and
the arithmetic on the five tops' probabilities :mod:`models.top_odds`'.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from models import adaptation, top_odds
from models.chromaticity import PieceChromaticity
from models.onnx_io import MIRROR_OPEN as MIRROR_OPEN  # part of this module's API
from models.onnx_io import ModelFileError as ModelFileError  # part of this module's API
from models.onnx_io import card_path as card_path
from models.onnx_io import open_session, read_card, softmax
from models.onnx_io import to_input as to_input
from models.towers import TowerReader, TowerReading
from rules.observation import Top
from vision.band import BandWindow
from vision.classifier import OPEN_TOP_LIMIT, height_moments, widened_heights
from vision.rectify import CELL, CropWindow

MODEL_DIR = Path(__file__).resolve().parent
DEFAULT_MODEL = MODEL_DIR / "square_classifier.onnx"
TRAIN_HINT = "python -m models.train (or damcam train)"
CROWN_CUE_LIMIT = 3.0
"""Most log-odds a crown sticker adds to a piece's king odds, as the hue cue's limit:
it settles what the kings model leaves open."""
HEIGHT_KING_LIMIT = 4.0
"""Most log-odds the kings model's reading of two discs adds to a piece's king odds, as
a band strip's (:data:`BAND_KING_LIMIT`)."""
CROWN_VIEW_LIMIT = 1.0
"""Widest view tangent at which a crown sticker counts: the probe learnt stickers on
renders whose cells are seen within 1.02 of the vertical (tilts up to 35 degrees; 99% of
its pieces within 0.92). Seen from lower, a tall man's side fills the crop and the probe
takes it for a sticker: purple men of the damas photos at tangents 1.5-1.9 gained 0.8-1.6
log-odds from it and read as kings (docs/models.md, "A king bar for tall men")."""
BAND_KING_LIMIT = 4.0
"""Most log-odds a band strip adds to a draughts piece's king odds. It never takes any
away: a crowned king is one disc."""
BAND_READ_BELOW = 3.0
"""How far below even a piece's king log-odds may lie for its band strip to be read: the
kings the strips turned on 40 adapted render sets lay within 2.2; reading every piece's
strip made the live loop's frames 2.5 times as dear, these 1.8 (docs/models.md)."""
TOP_IN_CROP = 0.45
"""How far inside the crop's far edge (square sides) a stack's displaced top must lie for
the crop to read it: a top's radius (0.43) and a little. Past it, in a column game read
with strips, the tower reader's top head says what tops the stack."""
EMPTY_SURE = 0.9
"""A square read empty with at least this probability holds no piece for the kings model
or the tower reader to read (:meth:`OnnxSquareClassifier._read_pieces`,
:meth:`OnnxSquareClassifier._tippable`). The main file's surest empty is 0.984 (it
learnt from labels smoothed by 0.02), so the 0.99 this was set to never held; no piece
of the held-out renders or the labelled photos reads empty above 0.79 (0.57 adapted)."""
NO_CROWN = -20.0
"""The crown log-odds of a square the kings model does not read (sure empty): no sticker."""
SECOND_LOOK_OPEN = 0.15
"""A piece whose first look (:attr:`OnnxSquareClassifier.first_look`) leaves its king
share past this either way (between 0.15 and 0.85 king) is read again by the kings model:
1 to 7 of the 40 pieces of three rendered 10x10 starts. The held-out renders and the
labelled photos read as well as with the kings model alone or better; at 0.25 the renders
read 10 squares worse, at 0.10 nothing better (docs/models.md, "A first look by a quick
kings model")."""


@dataclass(frozen=True)
class SquarePrediction:
    """Per-crop outputs: ``tops (N, 5)`` probabilities, ``heights (N, 9)`` probabilities
    over 0..8 discs, ``features (N, 64)``, and ``crowns (N,)``, the log-odds that a crown
    sticker tops the piece, where the kings model has a crown probe
    (:mod:`models.crown_probe`)."""

    tops: np.ndarray
    heights: np.ndarray
    features: np.ndarray
    crowns: np.ndarray | None = None

    def with_rows(self, rows: np.ndarray, other: SquarePrediction) -> SquarePrediction:
        """This prediction with ``other``'s tops, heights and crowns in ``rows`` (bool)."""
        tops, heights = self.tops.copy(), self.heights.copy()
        tops[rows], heights[rows] = other.tops, other.heights
        crowns = self.crowns
        if crowns is not None and other.crowns is not None:
            crowns = crowns.copy()
            crowns[rows] = other.crowns
        return SquarePrediction(tops, heights, self.features, crowns)


@dataclass(frozen=True)
class MainReading:
    """The main file's reading of some crops (:meth:`OnnxSquareClassifier.main_reading`):
    its tops, heights, features and crowns; an adapted reader's colour (empty / White /
    Black) and the pieces' chromaticity shares; and the squares that may hold a piece
    (not read empty with :data:`EMPTY_SURE`)."""

    tops: np.ndarray
    heights: np.ndarray
    features: np.ndarray
    crowns: np.ndarray | None
    colour: np.ndarray | None
    shares: tuple[np.ndarray, np.ndarray] | None
    may_hold: np.ndarray

    def at(self, rows: np.ndarray) -> MainReading:
        """The reading of the crops in ``rows``."""
        return MainReading(
            self.tops[rows],
            self.heights[rows],
            self.features[rows],
            _at(self.crowns, rows),
            _at(self.colour, rows),
            None if self.shares is None else (self.shares[0][rows], self.shares[1][rows]),
            self.may_hold[rows],
        )


@dataclass(frozen=True)
class OnnxSquareClassifier:
    """Implements vision's ``SquareClassifier`` protocol: ``predict(crops) -> (N, 5)``.

    ``prototypes`` (K, 64) with ``prototype_kinds`` (K,) (0 empty, 1 White, 2 Black):
    features of one start frame's squares set by :meth:`adapted`; a square's colour is the
    kind of its most similar prototype (cosine), the trained head says only man or king.
    """

    session: ort.InferenceSession
    path: Path
    crop_size: tuple[int, int]
    card: dict[str, Any]
    prototypes: np.ndarray | None = None
    prototype_kinds: np.ndarray | None = None
    temperature: float = 10.0
    king_bias: tuple[float, float] = (0.0, 0.0)
    """Subtracted from the trained head's king-vs-man log-odds of White's and Black's
    pieces: set by :meth:`adapted` so that this set's men (all men on a start position)
    read as men, and by :meth:`on_board` where a board's men stand tall."""
    head_weight: float = 0.0
    """Power of the trained head's colours in an adapted model's colour (0: the
    prototypes alone decide)."""
    head_swapped: bool = False
    """The trained head's White is this set's Black (it reads the lighter piece as White,
    and this set's White may be the darker)."""
    kings: OnnxSquareClassifier | None = None
    """The card's ``kings_model``: man or king and stack height come from it (in a column
    game from :attr:`columns` where the card names one)."""
    columns: OnnxSquareClassifier | None = None
    """The card's ``columns_model``: the kings model of the column games, where a king is
    a striped top and a stack of two may be a man on a man (in draughts it is a king)."""
    tower_reader: TowerReader | None = None
    """The card's ``towers_model``: a column game's stack heights from band strips
    (:mod:`models.towers`), where the caller cuts them (:meth:`predict_stacks`)."""
    towers: bool = False
    """This reader reads a column game's boards (:meth:`for_variant`, :meth:`adapted`)."""
    chromaticity: PieceChromaticity | None = None
    """The start frame's pieces' chromaticity, set by :meth:`adapted` (not in a column
    game): it splits a piece between White and Black again by a cue that shading does
    not move (a king's without its crown sticker's pale pixels), and first says, near
    even, that a square showing a piece's hue is not empty (docs/models.md, "A piece's
    hue on its cell")."""
    view_scale: float = 1.0
    """This set's man height in synth discs, set by :meth:`adapted`: the kings model reads
    view tangents in that unit, since to the camera taller men are the usual discs seen
    more steeply (it was trained so: :func:`models.synth_source.board_crops`)."""
    crown_bias: float | None = None
    """Set by :meth:`adapted` where the kings model has a crown probe (not in a column game):
    the start frame's most crown-like man's crown log-odds plus
    :data:`models.adaptation.CROWN_MARGIN`. A piece's crown log-odds past it add to its
    king odds, up to :data:`CROWN_CUE_LIMIT`; never less than none, since a stacked king
    wears no sticker."""

    height_bias: float | None = None
    """Set by :meth:`adapted` in a draughts game: the start frame's most two-disc-like man's
    log-odds of two discs over one, from the kings model's own height reading, plus
    :data:`models.adaptation.HEIGHT_MARGIN`. A piece's log-odds past it add to its king
    odds, up to :data:`HEIGHT_KING_LIMIT`. The kings model's man-or-king head and its
    height head read the same crop, but on the held-out renders' draughts pieces the
    height head alone calls man or king wrong on 104 of 3,025 and the top head on 122.
    Counted for every set it took real sets' tall men for kings; past the start frame's
    men it changed no reading of the labelled photos or of the crowned sets of tall men
    (docs/models.md, "Two discs from the kings model's own height reading")."""

    first_look: OnnxSquareClassifier | None = None
    """This reader with the card's ``quick_kings_model`` for its kings model, adapted
    beside it: in a draughts game it reads every piece, and the pieces it leaves between
    man and king (:data:`SECOND_LOOK_OPEN`) the kings model reads again (:meth:`run`;
    none without a kings model, the main file alone).
    The quick model strides its second convolution: a quarter of the kings model's
    compute past it, and alone it reads the held-out renders' draughts pieces worse
    (3.5% of squares wrong against 2.7%) and 6 labelled photo squares wrong against 3."""

    mirrored: bool = True
    """The kings model reads the crops it leaves open once more, mirrored
    (:meth:`run_mirrored`); the :attr:`first_look` reads once, adapted as it reads, since
    the kings model reads again what it leaves open."""

    band_bias: float | None = None
    """Set by :meth:`adapted_on_frame` where the tower reader reads a draughts game's start
    frame: its most two-disc-like man's log-odds of two discs over one (from his band
    strip) plus :data:`models.adaptation.BAND_MARGIN`. A piece's log-odds past it add to
    its king odds, up to :data:`BAND_KING_LIMIT`. None: strips add nothing (unadapted,
    or adapted from crops alone), since the reader learnt renders' discs and may take a
    real set's tall men for two (docs/models.md, "Draughts kings from the band strip")."""

    @classmethod
    def load(cls, path: Path | None = None) -> OnnxSquareClassifier:
        """Load the ONNX model (default: the one shipped in ``models/``) and its card.

        :raises ModelFileError: the file or card is missing or not a readable model.
        """
        path = DEFAULT_MODEL if path is None else Path(path)
        card = read_card(path, TRAIN_HINT)
        card_file = card_path(path)
        try:
            height, width = (int(v) for v in card["input_size"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelFileError(
                f"model card {str(card_file)!r} has no input size ({exc}); "
                f"rebuild it with {TRAIN_HINT}"
            ) from exc
        if card.get("classes") != [t.name for t in Top]:
            raise ModelFileError(
                f"model card {str(card_file)!r} has class order {card.get('classes')}, "
                f"expected {[t.name for t in Top]}"
            )
        session = open_session(path, TRAIN_HINT)
        kings, columns = (
            cls._load_companion(path, card, key) for key in ("kings_model", "columns_model")
        )
        tower_reader = (
            TowerReader.load(path.parent / str(card["towers_model"]))
            if card.get("towers_model")
            else None
        )
        reader = cls(
            session,
            path,
            (height, width),
            card,
            kings=kings,
            columns=columns,
            tower_reader=tower_reader,
        )
        quick = cls._load_companion(path, card, "quick_kings_model")
        if quick is None:
            return reader
        return replace(reader, first_look=replace(reader, kings=quick, mirrored=False))

    @classmethod
    def _load_companion(
        cls, path: Path, card: dict[str, Any], key: str
    ) -> OnnxSquareClassifier | None:
        """The model file that ``card[key]`` names beside ``path``, which must read the
        same crops, or None where the card names none."""
        if not card.get(key):
            return None
        companion = cls.load(path.parent / str(card[key]))
        same_crops = companion.card.get("crop_window") == card.get("crop_window")
        if companion.crop_size != tuple(int(v) for v in card["input_size"]) or not same_crops:
            raise ModelFileError(
                f"{key} {str(companion.path)!r} reads other crops than {str(path)!r}"
            )
        return companion

    def model_files(self) -> list[Path]:
        """This model's file, then its kings, quick kings, columns and tower models', where
        it has them."""
        quick = None if self.first_look is None else self.first_look.kings
        companions = [m for m in (self.kings, quick, self.columns) if m is not None]
        towers = [] if self.tower_reader is None else [self.tower_reader.path]
        return [self.path] + [f for m in companions for f in m.model_files()] + towers

    def for_variant(self, towers: bool) -> OnnxSquareClassifier:
        """A copy that reads a column game's boards (``towers``) or a draughts game's:
        each family's kings model tells its own kings."""
        return replace(self, towers=towers)

    @property
    def kings_reader(self) -> OnnxSquareClassifier | None:
        """The kings model of this reader's family."""
        if self.towers and self.columns is not None:
            return self.columns
        return self.kings

    @property
    def window(self) -> CropWindow:
        """The crop window the model was trained on (the card's ``crop_window``; cards
        from before it had one were trained on the plain cell)."""
        spec = self.card.get("crop_window")
        return CELL if spec is None else CropWindow(**spec)

    @property
    def band_window(self) -> BandWindow | None:
        """The band strip read beside the crops, where one is read: with a tower reader,
        a column game's heights (:meth:`predict_stacks`) and a draughts set's kings once
        adapted from its start frame (:meth:`_band_king_odds`)."""
        if self.tower_reader is None or (self.band_bias is None and not self.towers):
            return None
        return self.tower_reader.window

    @property
    def reads_views(self) -> bool:
        """This file has the ``views`` input (a kings model); not its kings model's."""
        return any(i.name == "views" for i in self.session.get_inputs())

    def run(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> SquarePrediction:
        """All outputs for ``crops (N, H, W, 3)`` uint8 BGR, in one batch; ``views (N,)``:
        the cells' view tangents, for a model that reads them (its ONNX file has a ``views``
        input, or its kings model's has); ``strips``: the squares' band strips
        (:attr:`band_window`), which in a draughts set adapted from its start frame add
        the tower reader's word that a piece is two discs tall to its king odds
        (:meth:`_band_king_odds`).

        :raises ValueError: the crops are not of the model's input size, or the model
            reads view tangents and none (or not one per crop) were given.
        """
        expected = (*self.crop_size, 3)
        if crops.ndim != 4 or crops.shape[1:] != expected:
            raise ValueError(
                f"crops of shape {crops.shape} given; {self.path.name} expects (N, "
                f"{expected[0]}, {expected[1]}, 3) uint8 (no silent resize)"
            )
        if len(crops) == 0:
            empty = np.zeros((0,))
            crowns = empty if "crown_logits" in self._output_names else None
            return SquarePrediction(
                np.zeros((0, len(Top))), np.zeros((0, 9)), np.zeros((0, 64)), crowns
            )
        for model in (self, self.kings_reader):
            if model is not None and model.reads_views:
                model._check_views(len(crops), views)
        main = self.main_reading(crops, views)
        first_look = None if self.towers or self.kings is None else self.first_look
        if first_look is None:
            return self._pieces(main, crops, views, strips)
        first = first_look._pieces(main, crops, views, strips)
        again = _between_man_and_king(first.tops)
        if not again.any():
            return first
        second = self._pieces(main.at(again), crops[again], _at(views, again), _at(strips, again))
        return first.with_rows(again, second)

    def main_reading(self, crops: np.ndarray, views: np.ndarray | None) -> MainReading:
        """This file's reading of ``crops``, in this set's colours where adapted."""
        inputs = {"crops": to_input(crops)}
        if self.reads_views:
            inputs["views"] = np.asarray(views, np.float32).reshape(-1, 1)
        outputs = dict(zip(self._output_names, self.session.run(None, inputs), strict=True))
        tops = softmax(outputs["top_logits"])
        crowns = outputs.get("crown_logits")
        colour = self.set_colour(outputs["features"], tops)
        shares = None
        if colour is not None and self.chromaticity is not None:
            shares = self.chromaticity.shares(crops)  # read once, for both cues
            colour = self.chromaticity.occupied(colour, shares)
        empty = tops[:, Top.EMPTY] if colour is None else colour[:, 0]
        return MainReading(
            tops,
            softmax(outputs["height_logits"]),
            outputs["features"],
            None if crowns is None else crowns[:, 0],
            colour,
            shares,
            empty < EMPTY_SURE,
        )

    def _pieces(
        self,
        main: MainReading,
        crops: np.ndarray,
        views: np.ndarray | None,
        strips: np.ndarray | None,
    ) -> SquarePrediction:
        """The main file's reading ``main`` with man or king and height from this reader's
        kings model, weighed with this set's cues."""
        tops, heights, crowns, colour = main.tops, main.heights, main.crowns, main.colour
        kings_reader = self.kings_reader
        if kings_reader is not None:
            kings_tops, heights, crowns = self._read_pieces(
                kings_reader, crops, views, main.may_hold, tops, heights
            )
            # Unadapted, the king bias is :meth:`on_board`'s; adapted, it splits the set's
            # colours below.
            bias = self.king_bias if colour is None else (0.0, 0.0)
            tops = top_odds.split_kings(top_odds.colours(tops, swapped=False), kings_tops, bias)
        if colour is not None:
            crowned = self._crown_odds(crowns, views)
            crowned = crowned + self._height_king_odds(heights, main.may_hold)
            crowned = crowned + self._band_king_odds(views, strips, self._tippable(tops, crowned))
            if self.chromaticity is not None and main.shares is not None:
                men = top_odds.man_share(
                    top_odds.split_kings(colour, tops, self.king_bias, crowned)
                )
                colour = self.chromaticity.resplit(colour, main.shares, men)
            tops = top_odds.split_kings(colour, tops, self.king_bias, crowned)
        return SquarePrediction(tops, heights, main.features, crowns)

    def set_colour(
        self, features: np.ndarray, tops: np.ndarray, own: np.ndarray | None = None
    ) -> np.ndarray | None:
        """(N, 3) empty / White / Black of an adapted reader: the start frame's
        prototypes, weighed with the trained head's colours (``tops``, the main file's)
        as :attr:`head_weight` says; None where not adapted. ``own`` (N,): each crop's
        own prototype, left out (-1: none), for the start frame read leave-one-out."""
        if self.prototypes is None or self.prototype_kinds is None:
            return None
        similarity = top_odds.cosine(features, self.prototypes)
        if own is not None:
            rows = np.flatnonzero(own >= 0)
            similarity[rows, own[rows]] = -np.inf
        best = np.stack(
            [similarity[:, self.prototype_kinds == k].max(axis=1) for k in range(3)], axis=1
        )
        colour = softmax(self.temperature * best)
        if self.head_weight > 0:
            colour = top_odds.weighed_colour(colour, tops, self.head_weight, self.head_swapped)
        return colour

    def _check_views(self, crops: int, views: np.ndarray | None) -> None:
        """:raises ValueError: ``views`` are not one view tangent for each of ``crops``."""
        if views is None or np.shape(views) != (crops,):
            given = None if views is None else np.shape(views)
            raise ValueError(
                f"{self.path.name} reads one view tangent per crop "
                f"(vision.camera.view_tangents); got {given} for {crops} crops"
            )

    def _read_pieces(
        self,
        reader: OnnxSquareClassifier,
        crops: np.ndarray,
        views: np.ndarray | None,
        may_hold: np.ndarray,
        tops: np.ndarray,
        heights: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The kings model ``reader``'s tops, heights and crowns (:meth:`kings_reading`)
        on the squares that ``may_hold`` a piece: those not read empty with
        :data:`EMPTY_SURE`. Any other square keeps the main file's own reading (``tops``,
        ``heights``) and :data:`NO_CROWN`: what the kings model would say there splits
        at most a tenth of the square between man and king. ChessCog too reads pieces
        only on the squares its occupancy model finds occupied; here the kings model was
        two thirds of a board's reading, and a 10x10 board has at least 10 empty squares
        of its 50, mid-game about 30 (docs/models.md, "Only squares that may hold a
        piece")."""
        scaled = None if views is None else views * self.view_scale
        read = self.kings_reading(reader, crops[may_hold], _at(scaled, may_hold))
        pieces_tops, pieces_heights = tops.copy(), heights.copy()
        pieces_tops[may_hold], pieces_heights[may_hold] = read.tops, read.heights
        crowns = None
        if read.crowns is not None:
            crowns = np.full(len(crops), NO_CROWN, read.crowns.dtype)
            crowns[may_hold] = read.crowns
        return pieces_tops, pieces_heights, crowns

    @property
    def _output_names(self) -> list[str]:
        return [o.name for o in self.session.get_outputs()]

    def _crown_odds(
        self, crowns: np.ndarray | None, views: np.ndarray | None
    ) -> np.ndarray | float:
        """The king log-odds each piece's crown sticker adds (:attr:`crown_bias`), none
        where its cell is seen from lower than :data:`CROWN_VIEW_LIMIT`."""
        if self.crown_bias is None or crowns is None:
            return 0.0
        out: np.ndarray = np.clip(crowns - self.crown_bias, 0.0, CROWN_CUE_LIMIT)
        if views is not None:
            out = np.where(np.asarray(views) <= CROWN_VIEW_LIMIT, out, 0.0)
        return out

    def _height_king_odds(self, heights: np.ndarray, may_hold: np.ndarray) -> np.ndarray | float:
        """The king log-odds each draughts piece's reading of two discs or more adds
        (:attr:`height_bias`), none on a square read empty."""
        if self.height_bias is None:
            return 0.0
        odds = np.clip(
            top_odds.two_disc_log_odds(heights) - self.height_bias, 0.0, HEIGHT_KING_LIMIT
        )
        out: np.ndarray = np.where(may_hold, odds, 0.0)
        return out

    def kings_reading(
        self, reader: OnnxSquareClassifier, crops: np.ndarray, views: np.ndarray | None
    ) -> SquarePrediction:
        """The kings model ``reader``'s reading of ``crops``: :meth:`run_mirrored`, or
        :meth:`run` where this reader reads once (:attr:`mirrored`)."""
        return reader.run_mirrored(crops, views) if self.mirrored else reader.run(crops, views)

    def run_mirrored(self, crops: np.ndarray, views: np.ndarray | None = None) -> SquarePrediction:
        """:meth:`run`, and where that reading leaves man or king or the height open
        (:func:`_open`), :meth:`run` on the crop's mirror image too, the probabilities
        averaged (features and crowns are the plain crop's). A crop of a window as wide
        left as right mirrors into another true view of the same stack, whose height and
        king do not change; averaging the two readings evens out what either alone gets
        wrong (docs/models.md, "Hue and mirror"). Where the first reading is sure, a
        second changed no reading measured (docs/models.md, "Only squares that may hold
        a piece"). A lopsided window is read once."""
        once = self.run(crops, views)
        if self.window.left != self.window.right:
            return once
        again = _open(once)
        if not again.any():
            return once
        mirror = self.run(crops[again, :, ::-1], None if views is None else views[again])
        tops, heights = once.tops.copy(), once.heights.copy()
        tops[again] = (tops[again] + mirror.tops) / 2
        heights[again] = (heights[again] + mirror.heights) / 2
        return SquarePrediction(tops, heights, once.features, once.crowns)

    def predict(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> np.ndarray:
        """``(N, 5)`` probabilities over :class:`rules.observation.Top`."""
        return self.run(crops, views, strips).tops

    def predict_stacks(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`predict`'s ``(N, 5)`` and ``(N, H)`` probabilities over 0 to H - 1 discs,
        from one reading (vision's ``StackClassifier``: the live observer's heights in a
        column game): the crops count to "eight or more" (H = 9); with a column game's
        strips, :meth:`with_strips` reads them too."""
        out = self.run(crops, views, strips)
        if strips is None or views is None:
            return out.tops, out.heights
        return self.with_strips(out.tops, out.heights, views, strips)

    def with_strips(
        self, tops: np.ndarray, heights: np.ndarray, views: np.ndarray, strips: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The crops' reading of some squares (:meth:`predict_stacks` without strips) with
        their band strips read too, where the card names a tower reader and this reads a
        column game (else as given). The reader counts to the full tower (H = 25): alone
        where the crops' count is open-ended (more than
        :data:`vision.classifier.OPEN_TOP_LIMIT` on eight or more), else the two readings'
        mean (two views of the stack: they miss fewer towers together than either alone,
        docs/models.md, "Towers to the full height"). A tower whose top it places past the
        crop's far edge gets the top it reads there (:meth:`_tops_past_crop`); any other
        square's top is both readings' :func:`top_odds.agreed` (docs/models.md, "Tops from both
        readings")."""
        reading = self._column_strips(views, strips)
        if reading is None:
            return tops, heights
        past = self._tops_past_crop(reading.heights, views)
        strip_tops = top_odds.colours_swapped(reading.tops) if self.head_swapped else reading.tops
        both = (widened_heights(heights, reading.heights.shape[1]) + reading.heights) / 2
        open_ended = heights[:, -1] > OPEN_TOP_LIMIT
        return (
            np.where(past[:, None], strip_tops, top_odds.agreed(tops, strip_tops)),
            np.where(open_ended[:, None], reading.heights, both),
        )

    def _column_strips(
        self, views: np.ndarray | None, strips: np.ndarray | None
    ) -> TowerReading | None:
        """The tower reader's reading of a column game's strips, or None (a draughts game,
        no reader or no strips)."""
        return self._read_strips(views, strips) if self.towers else None

    def _read_strips(
        self, views: np.ndarray | None, strips: np.ndarray | None
    ) -> TowerReading | None:
        """The tower reader's reading, or None without reader or strips."""
        if self.tower_reader is None or strips is None:
            return None
        if views is None:
            raise ValueError("the tower reader reads view tangents beside the strips")
        return self.tower_reader.read(strips, views * self.view_scale)

    def _tops_past_crop(self, heights: np.ndarray, views: np.ndarray) -> np.ndarray:
        """(N,) bool: stacks whose top, ``heights`` tall, the camera sees displaced past
        the crop's far edge (:data:`TOP_IN_CROP`), so that only the strip shows it."""
        assert self.tower_reader is not None  # heights came from it
        shift = (
            height_moments(heights)[0]
            * self.tower_reader.window.disc_height
            * views
            * self.view_scale
        )
        past: np.ndarray = shift > self.window.top + 0.5 - TOP_IN_CROP
        return past

    def _tippable(self, tops: np.ndarray, crowned: np.ndarray | float) -> np.ndarray:
        """(N,) bool: the pieces whose strips are read (the reader costs twice the square
        models): those the main model does not read empty with :data:`EMPTY_SURE` and
        whose king log-odds, after this set's biases and crown stickers, lie at most
        :data:`BAND_READ_BELOW` below even, and not above (a king already)."""
        odds = top_odds.king_odds(tops) + crowned
        tippable: np.ndarray = (
            (tops[:, Top.EMPTY] < EMPTY_SURE)
            & (odds >= min(self.king_bias) - BAND_READ_BELOW)
            & (odds <= max(self.king_bias))
        )
        return tippable

    def _band_king_odds(
        self, views: np.ndarray | None, strips: np.ndarray | None, tippable: np.ndarray
    ) -> np.ndarray | float:
        """What each draughts piece's band strip adds to its king log-odds: the tower
        reader's log-odds of two discs or more over one, past :attr:`band_bias`, up to
        :data:`BAND_KING_LIMIT`, read only where ``tippable`` (:meth:`_tippable`). Where
        the side band shows, a second disc is plain on the strip (5 rows a disc) when the
        48 px crop gives it 2-4 px. Nothing in a column game, whose kings are striped
        tops (:meth:`predict_stacks` reads its heights)."""
        if self.band_bias is None or strips is None or views is None or not tippable.any():
            return 0.0
        odds = self.two_disc_odds(views[tippable], strips[tippable])
        if odds is None:
            return 0.0
        out = np.zeros(len(tippable))
        out[tippable] = np.clip(odds - self.band_bias, 0.0, BAND_KING_LIMIT)
        return out

    def two_disc_odds(
        self, views: np.ndarray | None, strips: np.ndarray | None
    ) -> np.ndarray | None:
        """The tower reader's log-odds of two discs or more over one per draughts square,
        or None (a column game, no reader or no strips)."""
        reading = None if self.towers else self._read_strips(views, strips)
        if reading is None:
            return None
        return top_odds.two_disc_log_odds(reading.heights)

    def height_probs(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> np.ndarray:
        """``(N, H)`` probabilities over 0 to H - 1 discs per square (:meth:`predict_stacks`)."""
        return self.predict_stacks(crops, views, strips)[1]

    def predict_heights(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Expected disc count and its standard deviation per square, ``(N,)`` each
        (:meth:`height_probs`)."""
        return height_moments(self.height_probs(crops, views, strips))

    # Fitting a reader to one set is models.adaptation's job; its functions of a reader
    # are this class's methods.
    adapted = adaptation.adapted
    adapted_on_frame = adaptation.adapted_on_frame
    on_board = adaptation.on_board


def _open(reading: SquarePrediction) -> np.ndarray:
    """(N,) bool: the squares whose man-or-king split or height ``reading`` leaves open
    (:data:`MIRROR_OPEN`)."""
    kings = reading.tops[:, Top.WHITE_KING] + reading.tops[:, Top.BLACK_KING]
    share = kings / np.maximum(1.0 - reading.tops[:, Top.EMPTY], 1e-9)
    split_open = np.minimum(share, 1.0 - share) > MIRROR_OPEN
    out: np.ndarray = split_open | (reading.heights.max(axis=1) < 1.0 - MIRROR_OPEN)
    return out


def _between_man_and_king(tops: np.ndarray) -> np.ndarray:
    """(N,) bool: the likely pieces whose ``tops`` leave man or king open
    (:data:`SECOND_LOOK_OPEN`)."""
    pieces = 1.0 - tops[:, Top.EMPTY]
    share = (tops[:, Top.WHITE_KING] + tops[:, Top.BLACK_KING]) / np.maximum(pieces, 1e-9)
    out: np.ndarray = (pieces > 0.5) & (np.minimum(share, 1.0 - share) > SECOND_LOOK_OPEN)
    return out


def _at(values: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    """``values[rows]``, or None."""
    return None if values is None else values[rows]

"""The shipped tower reader: the main card names it, it counts rendered towers' discs
from their band strips, and it refuses bad input and bad files with their names."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from bench.observation_sim import heights_of
from calibration.table import start_tops
from models.adapted_renders import RenderedSet, rendered_sets
from models.classifier import DEFAULT_MODEL, ModelFileError, OnnxSquareClassifier, card_path
from models.dataset import MIN_BAND_PX_PER_DISC, window_px_per_square
from models.onnx_io import MIRROR_OPEN, softmax, to_input
from models.synth_source import location_from_truth
from models.towers import TowerReader
from rules import Position, find_variant
from rules.events import MoveRecorded
from rules.observation import Observation, Top
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Piece, Stack, parse_stack
from rules.recorder import Recorder
from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER, disc_count
from tests.adapted_model import adapted_on_start
from vision.band import BAND, BandWindow, band_strips
from vision.camera import crops_and_views
from vision.classifier import HEIGHT_SIGMA_FLOOR, HEIGHT_SIGMA_SHARE, SquareReads
from vision.observe import Observer, ObserverConfig, Registration
from vision.rectify import CONTEXT, CROP_PX, CropWindow

if TYPE_CHECKING:
    from synth.render import Rendered

TOWERS = DEFAULT_MODEL.parent / str(
    json.loads(card_path(DEFAULT_MODEL).read_text())["towers_model"]
)
BAND_PX_PER_TANGENT = DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER * window_px_per_square(CROP_PX)
"""Crop pixels one synth disc's side band spans per unit of view tangent (as the bench)."""


@pytest.fixture(scope="module")
def reader() -> TowerReader:
    return TowerReader.load(TOWERS)


def _tower(height: int, top: Piece = WHITE_MAN) -> Stack:
    """A tower of ``height`` discs, colours alternating under ``top``."""
    below = tuple((BLACK_MAN, WHITE_MAN)[k % 2] for k in range(height - 1))
    return (top, *below)


def test_the_main_card_names_the_tower_reader_and_it_reads_the_cards_strip() -> None:
    classifier = OnnxSquareClassifier.load()
    assert classifier.tower_reader is not None
    assert classifier.tower_reader.path == TOWERS
    assert classifier.tower_reader.window == BAND
    assert TOWERS in classifier.model_files()


@dataclass(frozen=True)
class _TowerBoard:
    """A bashni board's towers of 2..8 discs (kings' striped tops among them) seen at 30
    degrees, read as inference reads them: crops, views and strips of the squares whose
    band shows, with their true disc counts and tops."""

    crops: np.ndarray
    views: np.ndarray
    strips: np.ndarray
    discs: np.ndarray
    tops: np.ndarray


@pytest.fixture(scope="module")
def tower_board() -> _TowerBoard:
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    variant = find_variant("bashni")
    heights = [2, 3, 4, 5, 6, 7, 8]
    stacks = {
        sq: _tower(heights[k % len(heights)], WHITE_KING if k % 3 == 0 else WHITE_MAN)
        for k, sq in enumerate(range(1, 33, 2))
    }
    position = Position.from_stacks(variant, stacks, variant.first_to_move)
    rendered = render.render_position(position, Style(seed=5, variant="bashni", tilt_deg=30.0))
    geometry = variant.geometry
    location = location_from_truth(rendered.truth, variant.size)
    crops, views = crops_and_views(rendered.image, location, geometry, window=CONTEXT)
    strips = band_strips(rendered.image, location, geometry, views=views)
    truth = [parse_stack(rendered.truth["squares"][geometry.name(sq)]) for sq in geometry.squares]
    discs = np.array([disc_count(s, towers=True) for s in truth])
    shown = (discs >= 2) & (views * BAND_PX_PER_TANGENT >= MIN_BAND_PX_PER_DISC)
    assert shown.sum() >= 10
    tops = np.array([int(Top.of(s[0] if s else None)) for s in truth])
    return _TowerBoard(crops[shown], views[shown], strips[shown], discs[shown], tops[shown])


def test_towers_of_two_to_eight_discs_are_counted_where_their_band_shows(
    tower_board: _TowerBoard,
) -> None:
    board = tower_board
    classifier = OnnxSquareClassifier.load().for_variant(towers=True)
    read = classifier.height_probs(board.crops, board.views, board.strips).argmax(axis=1)
    assert read.tolist() == board.discs.tolist()


def test_a_strip_whose_reading_is_open_is_read_mirrored_too(
    tower_board: _TowerBoard, reader: TowerReader
) -> None:
    # A strip mirrored is another true view of the stack: where the first reading's
    # height or top is open, the two are averaged; a sure one stands alone.
    board = tower_board
    views = board.views.astype(np.float32)
    read = reader.read(board.strips, views)
    plain = [softmax(x) for x in reader.session.run(None, _strip_feed(board.strips, views))]
    flipped = [
        softmax(x) for x in reader.session.run(None, _strip_feed(board.strips[:, :, ::-1], views))
    ]
    sure = (plain[0].max(axis=1) >= 1 - MIRROR_OPEN) & (plain[1].max(axis=1) >= 1 - MIRROR_OPEN)
    assert sure.any() and not sure.all()
    for got, once, mirrored in zip((read.heights, read.tops), plain, flipped, strict=True):
        np.testing.assert_array_equal(got[sure], once[sure])
        np.testing.assert_allclose(got[~sure], (once[~sure] + mirrored[~sure]) / 2, atol=1e-6)


def _strip_feed(strips: np.ndarray, views: np.ndarray) -> dict[str, np.ndarray]:
    return {"strips": to_input(np.ascontiguousarray(strips)), "views": views.reshape(-1, 1)}


def test_a_towers_top_is_read_from_its_crop_and_its_strip_together(
    tower_board: _TowerBoard,
) -> None:
    # Two views of one top (docs/models.md, "Tops from both readings"): where the crops
    # see what kind of piece it is but lean to the wrong colour (a cream top in low
    # light), the strip's reading tells the colour; where they are sure, it agrees.
    board = tower_board
    classifier = OnnxSquareClassifier.load().for_variant(towers=True)
    counts = classifier.run(board.crops, board.views).heights
    assert set(board.tops.tolist()) == {Top.WHITE_MAN, Top.WHITE_KING}
    kings = board.tops == Top.WHITE_KING
    king, man = [0.0, 0.05, 0.4, 0.05, 0.5], [0.0, 0.4, 0.05, 0.5, 0.05]
    leaning_black = np.where(kings[:, None], king, man)
    tops, _ = classifier.with_strips(leaning_black, counts, board.views, board.strips)
    assert tops.argmax(axis=1).tolist() == board.tops.tolist()
    sure = np.full((len(board.tops), len(Top)), 0.025)
    sure[np.arange(len(board.tops)), board.tops] = 0.9
    tops, _ = classifier.with_strips(sure, counts, board.views, board.strips)
    assert tops.argmax(axis=1).tolist() == board.tops.tolist()


TALL = (9, 11, 13, 15, 17, 19, 21, 24)
"""Towers past the square models' eight, up to bashni's full tower."""


@pytest.fixture(scope="module")
def tall_boards() -> list[tuple[Position, Rendered]]:
    """Bashni boards, each with one tall tower on d6 (a white or black king, a striped
    top, on discs of both colours) among a few men, seen at 30 degrees."""
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    variant = find_variant("bashni")
    d6 = variant.geometry.parse_square("d6")
    men = {variant.geometry.parse_square(name): (WHITE_MAN,) for name in ("a1", "c3", "h2")}
    boards = []
    with render.Renderer() as renderer:
        for k, height in enumerate(TALL):
            top = WHITE_KING if k % 2 == 0 else BLACK_KING
            stacks = {**men, d6: _tower(height, top)}
            position = Position.from_stacks(variant, stacks, variant.first_to_move)
            boards.append((position, renderer.render(position, Style(seed=k, variant="bashni",
                                                                      tilt_deg=30.0))))  # fmt: skip
    return boards


def test_towers_past_eight_are_counted_to_the_full_tower_and_their_tops_read(
    tall_boards: list[tuple[Position, Rendered]],
) -> None:
    # The square models count to "eight or more", and a tower this tall shows its top
    # past the crop's far edge: the band strip holds both, and the tower reader reads
    # them.
    classifier = OnnxSquareClassifier.load().for_variant(towers=True)
    geometry = find_variant("bashni").geometry
    d6 = geometry.squares.index(geometry.parse_square("d6"))
    counted, tops = [], []
    for _, rendered in tall_boards:
        location = location_from_truth(rendered.truth, 8)
        crops, views = crops_and_views(rendered.image, location, geometry, window=CONTEXT)
        strips = band_strips(rendered.image, location, geometry, views=views)
        read_tops, heights = classifier.predict_stacks(crops, views, strips)
        assert classifier.run(crops, views).heights.shape[1] == 9  # the crops stop at 8
        counted.append(int(heights[d6].argmax()))
        tops.append(Top(int(read_tops[d6].argmax())))
    truth = [Top.of(p.stack(p.variant.geometry.parse_square("d6"))[0]) for p, _ in tall_boards]
    assert tops == truth
    # Measured against a view tangent known to a few percent, a tall tower's count is
    # off by up to a tenth of it, as the observer's uncertainty says (HEIGHT_SIGMA_SHARE).
    assert all(
        abs(c - h) <= max(HEIGHT_SIGMA_FLOOR, HEIGHT_SIGMA_SHARE * h)
        for c, h in zip(counted, TALL, strict=True)
    ), counted
    assert counted[:2] == list(TALL[:2])


def test_without_every_strip_the_observer_still_reads_the_towers_strips(
    tall_boards: list[tuple[Position, Rendered]],
) -> None:
    # Band strips for every square cost a column game's frame 2.5 times the CPU; the
    # towers' alone give their heights to the full tower, and the men keep the crops'.
    variant = find_variant("bashni")
    recording = _Recording(OnnxSquareClassifier.load().for_variant(towers=True))
    observer = Observer(ObserverConfig(markers=None), variant, Registration(), recording)
    _, rendered = tall_boards[2]
    seen = observer.observe(rendered.image, 0.0)
    first, towers = recording.given
    # d6's, and maybe a square behind it that its band covers: not the 32 of the board.
    assert first is None and towers is not None and 1 <= len(towers) <= 3
    heights = dict(zip(variant.geometry.squares, seen.squares, strict=True))
    d6 = heights[variant.geometry.parse_square("d6")]
    assert d6.height is not None and d6.height_sigma is not None
    assert d6.height_sigma >= HEIGHT_SIGMA_SHARE * d6.height
    assert abs(d6.height - TALL[2]) <= d6.height_sigma
    for name in ("a1", "c3", "h2"):
        man = heights[variant.geometry.parse_square(name)]
        assert man.height is None or round(man.height) == 1


def test_wrong_strip_size_and_missing_views_are_refused(reader: TowerReader) -> None:
    with pytest.raises(ValueError, match=f"expects \\(N, {BAND.rows}, {BAND.cols}, 3\\)"):
        reader.read(np.zeros((2, BAND.rows, BAND.cols + 4, 3), np.uint8), np.ones(2))
    with pytest.raises(ValueError, match="one view tangent per strip"):
        reader.read(np.zeros((2, BAND.rows, BAND.cols, 3), np.uint8), np.ones(3))


def test_missing_or_broken_tower_files_name_the_file_and_the_command(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"nothing\.onnx.*models\.train_towers"):
        TowerReader.load(tmp_path / "nothing.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf at all")
    shutil.copy(card_path(TOWERS), card_path(broken))
    with pytest.raises(ModelFileError, match=r"broken\.onnx.*models\.train_towers"):
        TowerReader.load(broken)
    unscaled = tmp_path / "unscaled.onnx"
    shutil.copy(TOWERS, unscaled)
    card = json.loads(card_path(TOWERS).read_text())
    del card["band_window"]
    card_path(unscaled).write_text(json.dumps(card))
    with pytest.raises(ModelFileError, match=r"unscaled\.onnx.*band_window"):
        TowerReader.load(unscaled)


def test_a_reader_without_the_top_output_is_refused_with_its_name(tmp_path: Path) -> None:
    # A reader file from before it read tops (its one output the heights): a clear
    # error at load, not a failed unpacking on the first frame.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["views"], ["height_logits"])],
        "heights_only",
        [helper.make_tensor_value_info("views", TensorProto.FLOAT, [None, 1])],
        [helper.make_tensor_value_info("height_logits", TensorProto.FLOAT, [None, 1])],
    )
    old = tmp_path / "old_towers.onnx"
    onnx.save(helper.make_model(graph), str(old))
    shutil.copy(card_path(TOWERS), card_path(old))
    with pytest.raises(ModelFileError, match=r"old_towers\.onnx.*top_logits.*train_towers"):
        TowerReader.load(old)


def test_a_main_card_naming_a_missing_tower_reader_says_which_file(tmp_path: Path) -> None:
    for source in (DEFAULT_MODEL, card_path(DEFAULT_MODEL)):
        shutil.copy(source, tmp_path / source.name)
    card = json.loads(card_path(DEFAULT_MODEL).read_text())
    for key in ("kings_model", "quick_kings_model", "columns_model"):
        card[key] = None  # only the tower reader is asked for
    card["towers_model"] = "gone.onnx"
    card_path(tmp_path / DEFAULT_MODEL.name).write_text(json.dumps(card))
    with pytest.raises(ModelFileError, match=r"gone\.onnx"):
        OnnxSquareClassifier.load(tmp_path / DEFAULT_MODEL.name)


def _king_odds(probs: np.ndarray) -> np.ndarray:
    kings = probs[:, Top.WHITE_KING] + probs[:, Top.BLACK_KING]
    men = probs[:, Top.WHITE_MAN] + probs[:, Top.BLACK_MAN]
    odds: np.ndarray = np.log(kings + 1e-9) - np.log(men + 1e-9)
    return odds


@pytest.fixture(scope="module")
def english_set() -> RenderedSet:
    """The bench's adapted render sets (seed 2026): the sixth, an english set."""
    pytest.importorskip("synth.render")
    model = OnnxSquareClassifier.load()
    *_, english = rendered_sets(model, sets=6, positions=3, seed=2026, crowns=0.0)
    assert english.variant.name == "english"
    return english


def test_a_draughts_set_adapted_on_its_start_frame_reads_kings_from_their_band_strips(
    english_set: RenderedSet,
) -> None:
    # In the english set, the crops alone read one king as a man in each of the first two
    # positions with the kings file before session 47's, which reads them right and so
    # leaves its strips unread (BAND_READ_BELOW). Adapted from the set's start render (as
    # the live path adapts), the model reads the strips too and gets every square right;
    # a strip never takes king odds away (a crowned king is one disc). The kings model's
    # own two-disc reading (height_bias) reads those kings right from the crops too (the
    # next test); it is left out here, where the strips are tested, and so is the quick
    # kings model's first look, which reads the strips by the same rule.
    model = OnnxSquareClassifier.load()
    adapted = replace(english_set.adapted(model), height_bias=None, first_look=None)
    assert adapted.band_bias is not None and adapted.band_window == BAND
    geometry = english_set.variant.geometry
    for shot in english_set.shots[:2]:
        truth = shot.crops[1]
        with_strips = shot.read(adapted, geometry, CROP_PX, band=True)
        crops_only = shot.read(adapted, geometry, CROP_PX, band=False)
        assert with_strips.argmax(axis=1).tolist() == truth.tolist()
        kings = np.isin(truth, (Top.WHITE_KING, Top.BLACK_KING))
        missed = crops_only.argmax(axis=1) != truth
        assert missed.sum() <= 1 and np.all(kings[missed])
        pieces = truth != Top.EMPTY
        assert np.all(_king_odds(with_strips)[pieces] >= _king_odds(crops_only)[pieces] - 1e-3)


def test_the_kings_models_own_two_disc_reading_finds_those_kings_in_the_crops(
    english_set: RenderedSet,
) -> None:
    # Past the start frame's most two-disc-like man (height_bias), the kings model's
    # reading of two discs counts towards king: both kings are read from the crops
    # alone. The start frame's men read exactly as without it; a column game has none.
    model = OnnxSquareClassifier.load()
    adapted = english_set.adapted(model)
    assert adapted.height_bias is not None
    geometry = english_set.variant.geometry
    for shot in english_set.shots[:2]:
        crops_only = shot.read(adapted, geometry, CROP_PX, band=False)
        assert crops_only.argmax(axis=1).tolist() == shot.crops[1].tolist()
    crops, tops, views = english_set.start
    np.testing.assert_allclose(
        adapted.predict(crops, views), replace(adapted, height_bias=None).predict(crops, views)
    )
    assert model.adapted(crops, tops, views, towers=True).height_bias is None


def test_an_unadapted_model_reads_no_strips() -> None:
    # Without a start frame to measure this set's men against, strips add nothing: the
    # reader learnt renders' discs, and real sets' tall men can look like two of them.
    model = OnnxSquareClassifier.load()
    assert model.band_bias is None and model.band_window is None


@dataclass
class _Recording:
    """The adapted model, keeping the strips each call was given (it counts discs too)."""

    inner: OnnxSquareClassifier
    given: list[np.ndarray | None] = field(default_factory=list)

    @property
    def window(self) -> CropWindow:
        return self.inner.window

    @property
    def band_window(self) -> BandWindow | None:
        return self.inner.band_window

    @property
    def view_scale(self) -> float:
        return self.inner.view_scale

    def predict(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> np.ndarray:
        self.given.append(strips)
        return self.inner.predict(crops, views, strips)

    def predict_stacks(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        self.given.append(strips)
        return self.inner.predict_stacks(crops, views, strips)

    def with_strips(
        self, tops: np.ndarray, heights: np.ndarray, views: np.ndarray, strips: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        self.given.append(strips)
        return self.inner.with_strips(tops, heights, views, strips)


@pytest.mark.parametrize("band_strips", [False, True])
def test_the_observer_reads_band_strips_only_when_configured(band_strips: bool) -> None:
    # They cost the live loop 15 ms a frame (docs/models.md), so it reads them on request.
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    variant = find_variant("russian")
    start = render.render_position(
        Position.initial(variant), Style(seed=2, variant="russian", tilt_deg=25.0)
    )
    recording = _Recording(adapted_on_start(start, variant))
    observer = Observer(
        ObserverConfig(markers=None, band_strips=band_strips), variant, Registration(), recording
    )
    seen = observer.observe(start.image, 0.0)
    assert seen.board_found and len(recording.given) == 1
    strips = recording.given[0]
    if band_strips:
        assert strips is not None and strips.shape == (32, BAND.rows, BAND.cols, 3)
    else:
        assert strips is None
    tops = [max(range(len(Top)), key=r.probs.__getitem__) for r in seen.squares]
    assert tops == [int(t) for t in start_tops(variant)]
    assert all(r.height is None for r in seen.squares)  # a draughts board has no towers


def test_heights_are_given_where_the_side_shows_and_the_count_is_not_open_ended() -> None:
    # Four squares read over 0..8 discs: three discs for sure (sigma floored); the same
    # where the side of the stack is hidden; seven or eight-or-more (only a lower bound:
    # bashni towers grow past eight); anything from one to five.
    heights = np.zeros((4, 9))
    heights[[0, 1], 3] = 1.0
    heights[2, [7, 8]] = 0.5
    heights[3, 1:6] = 0.2
    reads = SquareReads(np.zeros((4, 5)), heights, np.array([True, False, True, True]))
    assert reads.height_estimates() == [
        (3.0, HEIGHT_SIGMA_FLOOR),
        None,
        None,
        (pytest.approx(3.0), pytest.approx(np.sqrt(2.0))),
    ]
    assert SquareReads(np.zeros((4, 5)), None, np.ones(4, bool)).height_estimates() == [None] * 4


LOOK_ALIKE = "W:Wg1(Wb):Be7(bbw),b2(bb),d2(bb),f2(bbb)"
"""The white king's captures g1:c5:f8 and g1:e3:c1:a3:f8 leave the same tops and other
heights (column digest §5.5; tests/test_appearance.py)."""


def _without_heights(seen: Observation) -> Observation:
    return replace(
        seen, squares=tuple(replace(s, height=None, height_sigma=None) for s in seen.squares)
    )


def _recorded(start: Position, frames: list[Observation]) -> list[tuple[str, tuple[str, ...]]]:
    recorder = Recorder(start.variant, start=start)
    for seen in frames:
        recorder.feed(seen)
    return [(e.notation, e.alternatives) for e in recorder.events if isinstance(e, MoveRecorded)]


@pytest.mark.parametrize(
    ("route", "tilt", "band_strips"),
    [("g1:c5:f8", 30.0, False), ("g1:c5:f8", 30.0, True), ("g1:e3:c1:a3:f8", 20.0, False)],
)
def test_heights_read_live_tell_apart_captures_that_look_the_same_from_above(
    route: str, tilt: float, band_strips: bool
) -> None:
    # A bashni board, the model adapted on the set's start position as the live path
    # adapts it: the observer hands the recorder each stack's height where its side
    # shows (from the crops, or from the band strips when configured), and the recorder
    # records the capture that was played. Without heights it does not record it
    # unasked: the two captures leave the same tops. (The six-disc tower on f8 at 20
    # degrees, whose top the crops read as empty about as often as not, is read from its
    # strip: its top lies past the crop.)
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    variant = find_variant("bashni")
    style = Style(seed=3 if tilt == 30.0 else 4, variant="bashni", tilt_deg=tilt)
    start = Position.from_fen("bashni", LOOK_ALIKE)
    after = start.play(start.parse_move(route))
    with render.Renderer() as renderer:
        set_up = renderer.render(Position.initial(variant), style)
        before_image, after_image = (renderer.render(p, style).image for p in (start, after))
    model = adapted_on_start(set_up, variant)
    observer = Observer(
        ObserverConfig(markers=None, band_strips=band_strips), variant, Registration(), model
    )
    # Still before the move (1 s), hidden by the hand (4 frames), still after it (2 s),
    # at 15 frames a second.
    frames = [before_image] * 15 + [None] * 4 + [after_image] * 30
    seen = [
        Observation(k / 15, (), board_found=False)
        if image is None
        else observer.observe(image, k / 15)
        for k, image in enumerate(frames)
    ]
    for position, last in ((start, seen[14]), (after, seen[-1])):
        pairs = [
            (round(r.height), discs)
            for r, discs in zip(last.squares, heights_of(position), strict=True)
            if discs and r.height is not None
        ]
        assert pairs  # the far rows' towers at least
        read, stacks = zip(*pairs, strict=True)
        assert read == stacks
    assert _recorded(start, seen) == [(route, ())]
    without = [_without_heights(o) if o.board_found else o for o in seen]
    assert _recorded(start, without) != [(route, ())]

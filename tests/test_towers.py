"""The shipped tower reader: the main card names it, it counts rendered towers' discs
from their band strips, and it refuses bad input and bad files with their names."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.table import start_tops
from models.classifier import DEFAULT_MODEL, ModelFileError, OnnxSquareClassifier, card_path
from models.dataset import MIN_BAND_PX_PER_DISC, window_px_per_square
from models.synth_source import location_from_truth
from models.towers import TowerReader
from rules import Position, find_variant
from rules.observation import Top
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Stack, parse_stack
from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER, disc_count
from vision.band import BAND, band_strips
from vision.camera import crops_and_views
from vision.classifier import read_squares
from vision.rectify import CONTEXT, CROP_PX

TOWERS = DEFAULT_MODEL.parent / str(
    json.loads(card_path(DEFAULT_MODEL).read_text())["towers_model"]
)
BAND_PX_PER_TANGENT = DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER * window_px_per_square(CROP_PX)
"""Crop pixels one synth disc's side band spans per unit of view tangent (as the bench)."""


@pytest.fixture(scope="module")
def reader() -> TowerReader:
    return TowerReader.load(TOWERS)


def _tower(height: int, top: str = WHITE_MAN) -> Stack:
    """A tower of ``height`` discs, colours alternating under ``top``."""
    below = tuple((BLACK_MAN, WHITE_MAN)[k % 2] for k in range(height - 1))
    return (top, *below)


def test_the_main_card_names_the_tower_reader_and_it_reads_the_cards_strip() -> None:
    classifier = OnnxSquareClassifier.load()
    assert classifier.tower_reader is not None
    assert classifier.tower_reader.path == TOWERS
    assert classifier.tower_reader.window == BAND
    assert TOWERS in classifier.model_files()


def test_towers_of_two_to_eight_discs_are_counted_where_their_band_shows() -> None:
    # A bashni board of towers 2..8 discs tall (kings' striped tops among them), seen
    # at 30 degrees: strips cut as inference cuts them (the camera fitted to the board).
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
    _, views = crops_and_views(rendered.image, location, geometry, window=CONTEXT)
    strips = band_strips(rendered.image, location, geometry, views=views)
    truth = [parse_stack(rendered.truth["squares"][geometry.name(sq)]) for sq in geometry.squares]
    discs = np.array([disc_count(s, towers=True) for s in truth])
    shown = (discs >= 2) & (views * BAND_PX_PER_TANGENT >= MIN_BAND_PX_PER_DISC)
    assert shown.sum() >= 10

    classifier = OnnxSquareClassifier.load().for_variant(towers=True)
    read = classifier.height_probs(np.zeros((0,)), views[shown], strips[shown]).argmax(axis=1)

    assert read.tolist() == discs[shown].tolist()


def test_wrong_strip_size_and_missing_views_are_refused(reader: TowerReader) -> None:
    with pytest.raises(ValueError, match=f"expects \\(N, {BAND.rows}, {BAND.cols}, 3\\)"):
        reader.heights(np.zeros((2, BAND.rows, BAND.cols + 4, 3), np.uint8), np.ones(2))
    with pytest.raises(ValueError, match="one view tangent per strip"):
        reader.heights(np.zeros((2, BAND.rows, BAND.cols, 3), np.uint8), np.ones(3))


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


def test_a_main_card_naming_a_missing_tower_reader_says_which_file(tmp_path: Path) -> None:
    for source in (DEFAULT_MODEL, card_path(DEFAULT_MODEL)):
        shutil.copy(source, tmp_path / source.name)
    card = json.loads(card_path(DEFAULT_MODEL).read_text())
    for key in ("kings_model", "columns_model"):
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


def test_a_draughts_set_adapted_on_its_start_frame_reads_kings_from_their_band_strips() -> None:
    # Russian kings (two stacked discs) among men at 30 degrees. The model adapted from a
    # render of the start position (as the live path adapts it) reads the strips too:
    # where the band shows, each king's second disc adds to his king odds, the men's
    # single disc adds next to nothing, and no strip ever takes king odds away (a
    # crowned king is one disc).
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    variant = find_variant("russian")
    geometry = variant.geometry
    style = Style(seed=1, variant="russian", tilt_deg=30.0)
    start = render.render_position(Position.initial(variant), style)
    location = location_from_truth(start.truth, variant.size)
    adapted = OnnxSquareClassifier.load().adapted_on_frame(
        start.image, location, geometry, np.array(start_tops(variant))
    )
    assert adapted.band_bias is not None and adapted.band_window == BAND
    pieces = (WHITE_KING, BLACK_KING, WHITE_MAN, BLACK_MAN)
    stacks = {sq: (pieces[k % 4],) for k, sq in enumerate(range(1, 33, 2))}
    position = Position.from_stacks(variant, stacks, variant.first_to_move)
    shown = render.render_position(position, style)
    located = location_from_truth(shown.truth, variant.size)
    truth = np.array([Top.of(stacks[sq][0] if sq in stacks else None) for sq in geometry.squares])
    with_strips = read_squares(adapted, shown.image, located, geometry)
    crops_only = read_squares(replace(adapted, band_bias=None), shown.image, located, geometry)
    _, views = crops_and_views(shown.image, located, geometry, window=CONTEXT)
    band_shows = views * BAND_PX_PER_TANGENT >= MIN_BAND_PX_PER_DISC
    gain = _king_odds(with_strips) - _king_odds(crops_only)
    kings = band_shows & np.isin(truth, (Top.WHITE_KING, Top.BLACK_KING))
    men = band_shows & np.isin(truth, (Top.WHITE_MAN, Top.BLACK_MAN))
    assert kings.sum() >= 4 and men.sum() >= 4
    assert np.all(gain[truth != Top.EMPTY] >= -1e-6)
    assert np.all(gain[kings] >= 1.0)
    assert np.mean(gain[men]) <= 0.5
    assert with_strips.argmax(axis=1)[band_shows].tolist() == truth[band_shows].tolist()


def test_an_unadapted_model_reads_no_strips() -> None:
    # Without a start frame to measure this set's men against, strips add nothing: the
    # reader learnt renders' discs, and real sets' tall men can look like two of them.
    model = OnnxSquareClassifier.load()
    assert model.band_bias is None and model.band_window is None

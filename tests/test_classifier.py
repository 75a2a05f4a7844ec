"""The shipped square classifier: loads, reads freshly rendered squares, refuses bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models.adaptation import TALL_MEN_KING_FLOOR
from models.classifier import (
    DEFAULT_MODEL,
    EMPTY_SURE,
    MIRROR_OPEN,
    NO_CROWN,
    SECOND_LOOK_OPEN,
    ModelFileError,
    OnnxSquareClassifier,
    card_path,
)
from models.dataset import MIN_BAND_PX_PER_DISC, band_seen, top_limit_px, window_px_per_square
from models.synth_source import location_from_truth, square_truth
from rules import Position, Variant, find_variant
from rules.geometry import Square
from rules.observation import Top
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Stack
from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER
from vision.camera import crops_and_views, view_tangents
from vision.classifier import BoardMeasuring
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import (
    CONTEXT,
    CROP_PX,
    CropWindow,
    nadir_point,
)

BAND_PX_PER_TANGENT = DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER * window_px_per_square(CROP_PX)
"""Crop pixels one synth disc's side band spans per unit of view tangent."""


@pytest.fixture(scope="module")
def classifier() -> OnnxSquareClassifier:
    return OnnxSquareClassifier.load()


def _render_crops(
    position: Position, seed: int, window: CropWindow = CONTEXT, **style_fields: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Crops (the model's window), true tops, true disc counts and view tangents of a
    render of ``position`` with the camera tilted 10 degrees (or as ``style_fields`` say)."""
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    fields = {"tilt_deg": 10.0, **style_fields}
    style = Style(seed=seed, variant=position.variant.name, **fields)
    rendered = render.render_position(position, style)
    location = location_from_truth(rendered.truth, position.variant.size)
    geometry = position.variant.geometry
    crops, views = crops_and_views(rendered.image, location, geometry, window=window)
    tops, heights, _ = square_truth(
        rendered.truth, position.variant, style, location, CROP_PX, window
    )
    return crops, tops, heights, views


def test_a_renders_truth_gives_each_stacks_side_band() -> None:
    # The figures "where the side band shows" (bench.classifier) rest on this truth:
    # a stack's band is its discs times a disc's band at its view tangent.
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    v = find_variant("russian")
    stacks: dict[Square, Stack] = {
        sq: (WHITE_KING,) if sq % 2 else (BLACK_MAN,) for sq in range(1, 33, 3)
    }
    style = Style(seed=5, variant=v.name, tilt_deg=25.0)
    rendered = render.render_position(Position.from_stacks(v, stacks, v.first_to_move), style)
    location = location_from_truth(rendered.truth, v.size)
    tops, heights, bands = square_truth(rendered.truth, v, style, location, CROP_PX, CONTEXT)
    views = view_tangents(location, v.geometry, rendered.image.shape[1::-1])
    kings, men = tops == Top.WHITE_KING, tops == Top.BLACK_MAN
    assert kings.sum() + men.sum() == len(stacks)
    assert heights[kings].tolist() == [2] * int(kings.sum())
    assert heights[men].tolist() == [1] * int(men.sum())
    empty = tops == Top.EMPTY
    assert np.all(heights[empty] == 0) and np.all(bands[empty] == 0)
    pieces = ~empty
    np.testing.assert_allclose(
        bands[pieces], heights[pieces] * views[pieces] * BAND_PX_PER_TANGENT, rtol=0.2
    )
    seen = band_seen(bands, heights, top_limit_px(CROP_PX))
    assert not seen[empty].any()
    # A disc's band shows from MIN_BAND_PX_PER_DISC: on the far side of a board tilted 25
    # degrees, not on the near side (judged where the tangent is clearly either side).
    per_disc = views * BAND_PX_PER_TANGENT
    clear = pieces & (np.abs(per_disc / MIN_BAND_PX_PER_DISC - 1) > 0.2)
    assert seen[clear].tolist() == (per_disc[clear] >= MIN_BAND_PX_PER_DISC).tolist()
    assert 0 < seen[kings].sum() < kings.sum()


def test_card_matches_the_model_and_vision_crop(classifier: OnnxSquareClassifier) -> None:
    card = json.loads(card_path(DEFAULT_MODEL).read_text())
    assert card["classes"] == [t.name for t in Top]
    assert tuple(card["input_size"]) == (CROP_PX, CROP_PX) == classifier.crop_size
    assert DEFAULT_MODEL.stat().st_size <= 5 * 1024 * 1024


def _colours(tops: np.ndarray) -> str:
    """'.', 'w', 'b' per square: occupancy and colour, man and king together."""
    return "".join(Top(int(t)).symbol.lower() for t in tops)


def test_reads_occupancy_and_colour_of_a_fresh_render(classifier: OnnxSquareClassifier) -> None:
    v = find_variant("russian")
    crops, tops, _, views = _render_crops(Position.initial(v), seed=3)
    probs = classifier.predict(crops, views)
    assert probs.shape == (v.geometry.square_count, len(Top))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert _colours(probs.argmax(axis=1)) == _colours(tops)


def test_reads_every_square_of_a_fresh_render(classifier: OnnxSquareClassifier) -> None:
    v = find_variant("russian")
    g = v.geometry
    stacks: dict[Square, Stack] = {
        g.parse_square("a1"): (WHITE_MAN,),
        g.parse_square("c3"): (WHITE_KING,),
        g.parse_square("f6"): (BLACK_MAN,),
        g.parse_square("h8"): (BLACK_KING,),
        g.parse_square("d4"): (WHITE_MAN,),
        g.parse_square("e5"): (BLACK_MAN,),
    }
    crops, tops, _, views = _render_crops(Position.from_stacks(v, stacks, v.first_to_move), seed=3)
    probs = classifier.predict(crops, views)
    assert probs.shape == (g.square_count, len(Top))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert [Top(t).name for t in probs.argmax(axis=1)] == [Top(t).name for t in tops]


def test_kings_model_reads_a_crop_it_leaves_open_mirrored_too(
    classifier: OnnxSquareClassifier,
) -> None:
    # A stack mirrored is the same stack: where the first reading leaves man or king or
    # the height open, the two readings are averaged; a sure reading stands alone.
    v = find_variant("russian")
    stacks = {sq: (WHITE_KING,) if sq % 2 else (BLACK_MAN,) for sq in range(0, 32, 3)}
    position = Position.from_stacks(v, stacks, v.first_to_move)
    crops, _, _, views = _render_crops(position, seed=6, tilt_deg=25.0)
    kings = classifier.kings
    assert kings is not None
    both = kings.run_mirrored(crops, views)
    plain, flipped = kings.run(crops, views), kings.run(crops[:, :, ::-1].copy(), views)
    king_share = plain.tops[:, [Top.WHITE_KING, Top.BLACK_KING]].sum(axis=1) / (
        1 - plain.tops[:, Top.EMPTY]
    )
    sure = (np.minimum(king_share, 1 - king_share) <= MIRROR_OPEN) & (
        plain.heights.max(axis=1) >= 1 - MIRROR_OPEN
    )
    assert sure.any() and not sure.all()
    np.testing.assert_array_equal(both.tops[sure], plain.tops[sure])
    np.testing.assert_array_equal(both.heights[sure], plain.heights[sure])
    np.testing.assert_allclose(
        both.heights[~sure], (plain.heights[~sure] + flipped.heights[~sure]) / 2, atol=1e-5
    )
    np.testing.assert_allclose(
        both.tops[~sure], (plain.tops[~sure] + flipped.tops[~sure]) / 2, atol=1e-5
    )
    assert not np.allclose(plain.tops[~sure], flipped.tops[~sure], atol=1e-3)  # views differ


def test_the_kings_model_reads_only_squares_that_may_hold_a_piece(
    classifier: OnnxSquareClassifier,
) -> None:
    # Its reading of a square the main file reads surely empty would split at most a tenth
    # of it between man and king: such a square keeps the main file's own reading.
    v = find_variant("international")
    stacks = {sq: (WHITE_KING,) if sq % 2 else (BLACK_MAN,) for sq in range(0, 50, 4)}
    crops, tops, _, views = _render_crops(Position.from_stacks(v, stacks, v.first_to_move), seed=4)
    classifier = replace(classifier, first_look=None)  # the kings model reads every piece
    kings = classifier.kings
    assert kings is not None
    main_alone = replace(classifier, kings=None).run(crops)
    may_hold = main_alone.tops[:, Top.EMPTY] < EMPTY_SURE
    assert may_hold[tops != Top.EMPTY].all() and not may_hold.all()

    read = classifier.run(crops, views)

    assert read.crowns is not None
    assert np.all(read.crowns[~may_hold] == NO_CROWN)
    np.testing.assert_array_equal(read.heights[~may_hold], main_alone.heights[~may_hold])
    pieces = kings.run_mirrored(crops[may_hold], views[may_hold])
    np.testing.assert_array_equal(read.heights[may_hold], pieces.heights)
    assert pieces.crowns is not None
    np.testing.assert_array_equal(read.crowns[may_hold], pieces.crowns)
    np.testing.assert_array_equal(read.tops[:, Top.EMPTY], main_alone.tops[:, Top.EMPTY])
    assert [Top(t).name for t in read.tops.argmax(axis=1)] == [Top(t).name for t in tops]


def test_the_kings_model_reads_again_the_pieces_the_first_look_leaves_open(
    classifier: OnnxSquareClassifier,
) -> None:
    # The quick kings model reads every piece first. Of this render it reads two pieces
    # wrong, both left between man and king (SECOND_LOOK_OPEN): the kings model reads
    # those again and the board reads right; the pieces the first look was sure of keep
    # its reading. A column game's reader has its own kings model and no first look.
    v = find_variant("international")
    kinds = (WHITE_KING, BLACK_MAN, WHITE_MAN, BLACK_KING)
    stacks = {sq: (kinds[sq % 4],) for sq in range(0, 50, 2)}
    crops, tops, _, views = _render_crops(Position.from_stacks(v, stacks, v.first_to_move), seed=4)
    first_look = classifier.first_look
    assert first_look is not None and first_look.kings is not None
    assert first_look.kings.path.name == "square_kings_quick.onnx"
    first = first_look.run(crops, views)
    pieces = 1.0 - first.tops[:, Top.EMPTY]
    share = (first.tops[:, Top.WHITE_KING] + first.tops[:, Top.BLACK_KING]) / pieces
    again = (pieces > 0.5) & (np.minimum(share, 1.0 - share) > SECOND_LOOK_OPEN)
    wrong = first.tops.argmax(axis=1) != tops
    assert wrong.sum() == 2 and np.all(again[wrong]) and again.sum() < len(stacks) / 2

    read = classifier.run(crops, views)

    assert read.tops.argmax(axis=1).tolist() == tops.tolist()
    np.testing.assert_array_equal(read.tops[~again], first.tops[~again])
    kings_alone = replace(classifier, first_look=None)
    np.testing.assert_allclose(
        read.tops[again], kings_alone.run(crops[again], views[again]).tops, atol=1e-3
    )
    np.testing.assert_array_equal(
        classifier.for_variant(True).run(crops, views).tops,
        kings_alone.for_variant(True).run(crops, views).tops,
    )


def test_reads_tower_heights(classifier: OnnxSquareClassifier) -> None:
    v = find_variant("bashni")
    g = v.geometry
    stacks: dict[Square, Stack] = {
        g.parse_square("c3"): (WHITE_MAN, BLACK_MAN, BLACK_MAN),
        g.parse_square("e5"): (BLACK_MAN,),
        g.parse_square("f6"): (BLACK_MAN, WHITE_MAN),
    }
    # Heights are read where the side band shows (the target): at 25 degrees the
    # three-disc tower on c3 shows 2 crop px per disc; at 10 it showed 0.7, and whether
    # it read 3 or 2 was luck (run 2 read 2 on seed 6, run 3 on seed 5).
    crops, _, heights, views = _render_crops(
        Position.from_stacks(v, stacks, v.first_to_move), seed=5, tilt_deg=25.0
    )
    mean, sigma = classifier.for_variant(v.towers).predict_heights(crops, views)
    assert np.round(mean).astype(int).tolist() == heights.tolist()
    assert np.all(sigma >= 0)


@pytest.mark.parametrize(
    ("name", "stack"), [("russian", (WHITE_KING,)), ("bashni", (WHITE_MAN, WHITE_MAN))]
)
def test_two_white_discs_are_a_king_in_draughts_and_a_tower_in_column_games(
    classifier: OnnxSquareClassifier, name: str, stack: Stack
) -> None:
    # Seen alike, the two stacks differ by the rules: in russian two discs are a king,
    # in bashni a man on a man (its kings wear a stripe). Each family's kings model
    # reads its own (models.classifier.OnnxSquareClassifier.for_variant).
    v = find_variant(name)
    stacks = {sq: stack for sq in range(1, 32, 3)}
    crops, tops, heights, views = _render_crops(
        Position.from_stacks(v, stacks, v.first_to_move), seed=6, tilt_deg=25.0
    )
    assert set(heights[tops != Top.EMPTY]) == {2}
    # Judged where the side band shows (the target): a disc seen at tangent t
    # stands t * BAND_PX_PER_TANGENT crop px tall, visible from MIN_BAND_PX_PER_DISC.
    shown = views * BAND_PX_PER_TANGENT >= MIN_BAND_PX_PER_DISC
    assert shown.sum() >= 20  # most of the board at 25 degrees
    reader = classifier.for_variant(v.towers)
    read = reader.predict(crops[shown], views[shown]).argmax(axis=1)
    assert read.tolist() == tops[shown].tolist()
    expected = reader.predict_heights(crops[shown], views[shown])[0]
    assert np.round(expected).astype(int).tolist() == heights[shown].tolist()


def test_start_position_adaptation_keeps_every_square(classifier: OnnxSquareClassifier) -> None:
    position = Position.initial(find_variant("russian"))
    crops, tops, _, views = _render_crops(position, seed=11)
    adapted = classifier.adapted(crops, tops, views)
    assert adapted.prototype_kinds is not None and set(adapted.prototype_kinds) == {0, 1, 2}
    other_crops, other_tops, _, other_views = _render_crops(position, seed=12)
    read = adapted.predict(other_crops, other_views).argmax(axis=1)
    assert _colours(read) == _colours(other_tops)
    np.testing.assert_allclose(adapted.predict(crops, views).sum(axis=1), 1.0, atol=1e-4)
    # The hue cue reads draughts pieces; a column game's towers show other colours.
    assert adapted.chromaticity is not None
    assert classifier.adapted(crops, tops, views, towers=True).chromaticity is None


def test_adaptation_follows_the_set_whose_white_is_the_darker_piece(
    classifier: OnnxSquareClassifier,
) -> None:
    # The head reads the lighter piece as White; a set whose White is the darker one says
    # so on its start frame, and the head's colours then count swapped, never against it.
    position = Position.initial(find_variant("russian"))
    crops, tops, _, views = _render_crops(position, seed=11)
    swap = np.array([0, 3, 4, 1, 2])  # White <-> Black, man and king kept
    adapted = classifier.adapted(crops, swap[tops], views)
    assert adapted.head_swapped and adapted.head_weight > 0
    other_crops, other_tops, _, other_views = _render_crops(position, seed=12)
    read = adapted.predict(other_crops, other_views).argmax(axis=1)
    assert _colours(read) == _colours(swap[other_tops])


def test_adaptation_measures_how_tall_the_sets_men_are(classifier: OnnxSquareClassifier) -> None:
    # Men three discs tall under a camera tilted 30 degrees show the side band that the
    # usual discs show 60 degrees from vertical; adaptation measures them on the start
    # frame, and the crowned kings of that set are then told from its men by the crown.
    russian = find_variant("russian")
    tall = {"tilt_deg": 30.0, "king_mark": "crown", "piece_height": 3.0}
    usual = classifier.adapted(*_start_frame(russian, tilt_deg=30.0))
    assert 0.8 <= usual.view_scale <= 1.25
    adapted = classifier.adapted(*_start_frame(russian, **tall))
    assert 2.4 <= adapted.view_scale <= 3.6
    stacks = {sq: (WHITE_KING,) if sq % 3 else (BLACK_MAN,) for sq in range(0, 32, 2)}
    position = Position.from_stacks(russian, stacks, russian.first_to_move)
    crops, tops, _, views = _render_crops(position, seed=5, **tall)
    assert adapted.predict(crops, views).argmax(axis=1).tolist() == tops.tolist()


def _middle_game(variant: Variant, kings: int) -> Position:
    """A quarter of the squares of each side's men, and ``kings`` kings a side mid-board:
    a board half a start position's pieces or more."""
    n = variant.geometry.square_count
    stacks: dict[Square, Stack] = {sq: (BLACK_MAN,) for sq in range(n // 4)}
    stacks |= {sq: (WHITE_MAN,) for sq in range(n - n // 4, n)}
    for k in range(kings):
        stacks[n // 2 - 1 - 2 * k], stacks[n // 2 + 1 + 2 * k] = (WHITE_KING,), (BLACK_KING,)
    return Position.from_stacks(variant, stacks, variant.first_to_move)


def test_a_board_read_alone_measures_how_tall_its_men_stand(
    classifier: OnnxSquareClassifier,
) -> None:
    # Without a start frame (damcam read without a calibration) men three discs tall read
    # as kings, most of them; measured on the board's own pieces, as adaptation
    # measures a start frame's men, they read as men, and its crowned kings as kings.
    russian = find_variant("russian")
    tall = {"tilt_deg": 30.0, "king_mark": "crown", "piece_height": 3.0}
    crops, tops, _, views = _render_crops(_middle_game(russian, kings=1), seed=5, **tall)
    men = (tops == Top.WHITE_MAN) | (tops == Top.BLACK_MAN)
    unadapted = classifier.predict(crops, views).argmax(axis=1)
    assert (unadapted[men] != tops[men]).sum() >= men.sum() // 2
    alone = classifier.on_board(crops, views)
    assert 2.2 <= alone.view_scale <= 3.6
    assert alone.king_bias == (TALL_MEN_KING_FLOOR, TALL_MEN_KING_FLOOR)
    assert alone.first_look is not None and alone.first_look.view_scale > 2.0
    assert alone.predict(crops, views).argmax(axis=1).tolist() == tops.tolist()


def test_a_board_of_usual_discs_read_alone_keeps_its_stacked_kings(
    classifier: OnnxSquareClassifier,
) -> None:
    # Two kings a side among 24 men: the men, not the kings, give the height.
    international = find_variant("international")
    crops, tops, _, views = _render_crops(_middle_game(international, kings=2), seed=7)
    alone = classifier.on_board(crops, views)
    assert alone.view_scale <= 1.25
    assert alone.predict(crops, views).argmax(axis=1).tolist() == tops.tolist()


def test_a_board_read_alone_is_measured_only_where_it_can_be(
    classifier: OnnxSquareClassifier,
) -> None:
    russian = find_variant("russian")
    g = russian.geometry
    # An endgame's kings may be most of its pieces: under 12 of 32 squares, no measure.
    stacks: dict[Square, Stack] = {
        g.parse_square(name): (piece,)
        for name, piece in (("c3", WHITE_KING), ("e3", WHITE_MAN), ("f6", BLACK_KING))
    }
    endgame = Position.from_stacks(russian, stacks, russian.first_to_move)
    crops, _, _, views = _render_crops(endgame, seed=5)
    assert classifier.on_board(crops, views) is classifier
    # A column game's towers are not men; an adapted reader knows its men already.
    crops, tops, views = _start_frame(russian)
    columns = classifier.for_variant(towers=True)
    assert columns.on_board(crops, views) is columns
    adapted = classifier.adapted(crops, tops, views)
    assert adapted.on_board(crops, views) is adapted
    assert isinstance(classifier, BoardMeasuring)
    assert not isinstance(
        PrototypeClassifier(ColourPrototypes.learn(crops, list(map(Top, tops)))), BoardMeasuring
    )


def _start_frame(variant: Variant, **style_fields: Any) -> tuple[np.ndarray, ...]:
    """A start position's crops, tops and view tangents (adaptation's inputs)."""
    crops, tops, _, views = _render_crops(Position.initial(variant), 4, **style_fields)
    return crops, tops, views


def test_adaptation_needs_a_start_position(classifier: OnnxSquareClassifier) -> None:
    crops = np.zeros((3, CROP_PX, CROP_PX, 3), np.uint8)
    with pytest.raises(ValueError, match="WHITE_MAN"):
        classifier.adapted(crops, np.array([Top.EMPTY, Top.BLACK_MAN, Top.EMPTY]), np.zeros(3))


def test_wrong_crop_size_is_refused(classifier: OnnxSquareClassifier) -> None:
    with pytest.raises(ValueError, match=f"{CROP_PX}, {CROP_PX}, 3"):
        classifier.predict(np.zeros((4, CROP_PX + 2, CROP_PX, 3), np.uint8))


def test_missing_model_names_the_file_and_the_command(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.onnx"
    with pytest.raises(ModelFileError, match=r"nothing\.onnx.*models\.train"):
        OnnxSquareClassifier.load(missing)


def test_corrupt_model_names_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf at all")
    card_path(broken).write_text(card_path(DEFAULT_MODEL).read_text())
    with pytest.raises(ModelFileError, match=r"broken\.onnx.*models\.train"):
        OnnxSquareClassifier.load(broken)


def test_a_card_naming_a_missing_quick_kings_model_names_the_file(tmp_path: Path) -> None:
    card = json.loads(card_path(DEFAULT_MODEL).read_text())
    for key in ("kings_model", "columns_model", "towers_model"):
        card[key] = None  # only the quick kings model is asked for
    card["quick_kings_model"] = "gone_quick.onnx"
    main = tmp_path / DEFAULT_MODEL.name
    main.write_bytes(DEFAULT_MODEL.read_bytes())
    card_path(main).write_text(json.dumps(card))
    with pytest.raises(ModelFileError, match=r"gone_quick\.onnx.*models\.train"):
        OnnxSquareClassifier.load(main)


def test_missing_card_names_the_card(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely.onnx"
    lonely.write_bytes(DEFAULT_MODEL.read_bytes())
    with pytest.raises(ModelFileError, match=r"lonely\.json"):
        OnnxSquareClassifier.load(lonely)


def test_damcam_read_uses_the_model_on_a_render(tmp_path: Path) -> None:
    """``damcam read --reader model`` reads a rendered start position's men."""
    render = pytest.importorskip("synth.render")
    import cv2
    from typer.testing import CliRunner

    from damcam.cli import app
    from synth.scene import Style

    position = Position.initial(find_variant("russian"))
    rendered = render.render_position(
        position, Style(seed=2, variant="russian", markers=True, border_mm=30.0)
    )
    image = tmp_path / "start.png"
    cv2.imwrite(str(image), rendered.image)
    result = CliRunner().invoke(
        app, ["read", str(image), "--variant", "russian", "--reader", "model", "--json"]
    )
    assert result.exit_code == 0, result.output
    # Squares and colours exact; man or king of a king seen from nearly above is a guess.
    assert json.loads(result.stdout)["fen"].replace("K", "") == position.fen()


def test_damcam_read_without_calibration_measures_the_sets_men(
    classifier: OnnxSquareClassifier,
) -> None:
    """``damcam read`` without a calibration reads a set of men three discs tall as men
    (vision.read.read_image asks the model to measure the board first)."""
    render = pytest.importorskip("synth.render")
    from synth.scene import Style
    from vision.read import BoardReading, read_image

    russian = find_variant("russian")
    position = _middle_game(russian, kings=1)
    style = Style(seed=2, variant="russian", markers=True, border_mm=30.0, tilt_deg=30.0,
                  king_mark="crown", piece_height=3.0)  # fmt: skip
    rendered = render.render_position(position, style)
    reading = read_image(rendered.image, russian, classifier=classifier)
    assert isinstance(reading, BoardReading)
    assert reading.fen == position.fen()


def test_crop_window_turns_each_crop_the_way_stacks_grow() -> None:
    """On a tilted render, the nadir estimated from the homography alone points each
    stack's growth within a few degrees of where the renderer drew its top."""
    render = pytest.importorskip("synth.render")
    from synth.scene import Style

    v = find_variant("bashni")
    g = v.geometry
    tall: Stack = (WHITE_MAN,) * 3 + (BLACK_MAN,) * 3
    stacks = {g.parse_square(name): tall for name in ("a1", "c5", "e3", "h8", "g1")}
    style = Style(seed=4, variant="bashni", tilt_deg=30.0, azimuth_deg=70.0, focal_px=700.0)
    rendered = render.render_position(Position.from_stacks(v, stacks, v.first_to_move), style)
    location = location_from_truth(rendered.truth, v.size)
    nadir = nadir_point(location, (rendered.image.shape[1], rendered.image.shape[0]))
    for name in ("a1", "c5", "e3", "h8", "g1"):
        base = np.array(rendered.truth["centres"][name])
        top = np.array(rendered.truth["tops"][name])
        grow = base - nadir[:2] / nadir[2]
        cos = (top - base) @ grow / np.linalg.norm(top - base) / np.linalg.norm(grow)
        assert cos > np.cos(np.radians(15)), name


def test_view_tangents_measure_how_far_a_stack_top_is_displaced() -> None:
    """On a tilted render, a stack's top seen on the board plane lies the view tangent
    times its height from its base (up to the small perspective growth of the top), on
    near and far squares alike: the tangent is what a side band is read against."""
    render = pytest.importorskip("synth.render")
    from synth.pieces import DIAMETER_OF_SQUARE, HEIGHT_OF_DIAMETER
    from synth.scene import Style

    v = find_variant("bashni")
    g = v.geometry
    names = ("a1", "c5", "e3", "h8", "g1", "b8")
    stacks = {g.parse_square(name): (WHITE_MAN,) * 2 for name in names}
    # (the truth's corners keep White's side at the image bottom: a small azimuth)
    style = Style(seed=4, variant="bashni", tilt_deg=30.0, azimuth_deg=10.0, focal_px=700.0)
    rendered = render.render_position(Position.from_stacks(v, stacks, v.first_to_move), style)
    location = location_from_truth(rendered.truth, v.size)
    tangents = view_tangents(location, g, (rendered.image.shape[1], rendered.image.shape[0]))
    height = 2 * DIAMETER_OF_SQUARE * HEIGHT_OF_DIAMETER * style.piece_height  # square sides
    ratios = []
    for name in names:
        points = [rendered.truth["centres"][name], rendered.truth["tops"][name]]
        base, top = location.to_board(np.array(points, np.float64))
        ratios.append(np.linalg.norm(top - base) / (tangents[g.parse_square(name)] * height))
    assert max(tangents) > 1.5 * min(tangents)  # near and far squares differ...
    assert min(ratios) > 0.95 and max(ratios) < 1.15, ratios  # ...the ratio does not


def test_crop_windows_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="upright"):
        CropWindow(upright="sideways")
    with pytest.raises(ValueError, match="negative"):
        CropWindow(top=-0.2)


def test_labelled_photos_fixture_is_complete() -> None:
    from models.labelled_photos import PHOTO_SETS

    for photo_set in PHOTO_SETS:
        photos = photo_set.read()
        assert len(photos) >= 15, photo_set.name
        assert all(len(p.rows) == 8 and all(len(r) == 8 for r in p.rows) for p in photos)
        for session in {p.session for p in photos}:
            assert any(p.start for p in photos if p.session == session), session


def _photo_scores(
    shared_data: Path,
    classifier: OnnxSquareClassifier,
    band: bool = False,
    photo_set: str = "damas",
) -> dict[str, float]:
    from models.labelled_photos import PHOTO_SETS, PhotoShot, read_photos, score_photos

    def calibrated(start: PhotoShot) -> OnnxSquareClassifier:
        return start.adapted(classifier)

    (labels,) = [s.read() for s in PHOTO_SETS if s.name == photo_set]
    scores = score_photos(
        read_photos(
            shared_data,
            classifier.crop_size[0],
            lambda _: classifier,
            calibrated,
            labels,
            band=band,
        )
    )
    return {k: float(v.as_dict()["per_square_pct"]) for k, v in scores.items()}


#: The issue's target for the labelled photos after calibration from a start photo of
#: the same session is 99.5%. The 38 photos (1,120 squares calibrated) read 99.73% (3
#: errors) with session 47's kings file ("Weights within 64"), 99.55% (5) before it since
#: an adapted reader hears a piece's hue on its cell before it calls the square empty
#: (models.chromaticity.OccupancyGaussians; 99.38% before, docs/models.md, "A piece's hue
#: on its cell"), on top of session 21's king bar for tall men, men's hue without pale
#: pixels and crown view limit (98.07% before them). This floor is the target: a sixth
#: error fails it.
PHOTO_FLOOR_PCT = 99.5


def test_labelled_photos_read_better_after_calibration(
    shared_data: Path, classifier: OnnxSquareClassifier
) -> None:
    scores = _photo_scores(shared_data, classifier)
    assert scores["calibrated"] >= PHOTO_FLOOR_PCT
    assert scores["calibrated"] > scores["plain"] + 10
    # With band strips (ObserverConfig.band_strips), whose reader learnt renders' discs,
    # the set's tall men must still read as men (models.adaptation.BAND_MARGIN).
    assert _photo_scores(shared_data, classifier, band=True)["calibrated"] >= PHOTO_FLOOR_PCT


def test_sticker_photos_read_by_their_hue_after_calibration(
    shared_data: Path, classifier: OnnxSquareClassifier
) -> None:
    """Flat red and green stickers seen from above: the model reads the start photo's two
    colours of men as one, so the hue alone splits the pieces (session 51: 45 squares
    wrong of 608 before, 1 after, a man read as a king); the damas set's readers keep
    their own colours beside the hue."""
    from models.labelled_photos import DAMAS, STICKERS, PhotoShot

    if not STICKERS.present(shared_data):
        pytest.skip(f"no {STICKERS.folder} in {shared_data}")
    scores = _photo_scores(shared_data, classifier, photo_set=STICKERS.name)
    assert scores["calibrated"] >= PHOTO_FLOOR_PCT
    assert scores["calibrated"] > scores["plain"] + 20
    for photo_set, decides in ((STICKERS, True), (DAMAS, False)):
        start = next(p for p in photo_set.read() if p.start)
        image = cv2.imread(str(start.file(shared_data)))
        adapted = PhotoShot.of(start, image).adapted(classifier)
        assert adapted.chromaticity is not None
        assert adapted.chromaticity.decides is decides, photo_set.name


def test_damcam_read_without_calibration_prints_no_king_on_the_damas_start_photos(
    shared_data: Path, classifier: OnnxSquareClassifier
) -> None:
    """Every labelled damas start photo (24 men, no king) read as ``damcam read`` reads it
    without a calibration. Before the model measured the set's tall men on the photo's
    own board, it printed 1 to 7 kings on each (docs/models.md, "A board's own men,
    without calibration"). The overhead webcam-k2 session is left out: there the kings
    model never reads the men as one piece by half at any scale, so their height is not
    measured, on a start frame either ("The webcam session's men's height is not
    measured")."""
    from models.labelled_photos import DAMAS
    from vision.read import BoardReading, read_image

    if not DAMAS.present(shared_data):
        pytest.skip(f"no {DAMAS.folder} in {shared_data}")
    starts = [p for p in DAMAS.read() if p.start and p.session != "webcam-k2"]
    assert len(starts) >= 15
    reader, brazilian = classifier.for_variant(towers=False), find_variant("brazilian")
    kings = {}
    for photo in starts:
        reading = read_image(cv2.imread(str(photo.file(shared_data))), brazilian, classifier=reader)
        assert isinstance(reading, BoardReading), photo.path
        kings[photo.path] = sum(cell in "WB" for cell in "".join(reading.image_grid))
    assert kings == {photo.path: 0 for photo in starts}


def test_live_vision_calibrates_and_reads_with_the_adapted_model() -> None:
    """The live recognizer calibrates from a rendered start frame, then reads a later
    frame of the same set with the model adapted from that frame."""
    render = pytest.importorskip("synth.render")
    from pi.capture import Frame
    from pi.wiring import CalibratingRecognizer
    from synth.scene import Style

    v = find_variant("russian")
    style = Style(seed=21, variant="russian", markers=True, border_mm=30.0, tilt_deg=15.0)
    start = render.render_position(Position.initial(v), style)
    recognizer = CalibratingRecognizer(v, None)
    first = recognizer(Frame(0, 0.0, start.image))
    assert recognizer.calibrated and first.board_found
    assert recognizer.observer is not None
    model = recognizer.observer.classifier
    assert isinstance(model, OnnxSquareClassifier) and model.prototypes is not None
    g = v.geometry
    later: dict[Square, Stack] = {
        g.parse_square("c3"): (WHITE_MAN,),
        g.parse_square("f6"): (BLACK_MAN,),
        g.parse_square("d8"): (WHITE_MAN,),
    }
    seen = recognizer(Frame(1, 1.0, render.render_position(
        Position.from_stacks(v, later, v.first_to_move), style).image))  # fmt: skip
    tops = [Top(int(np.argmax(r.probs))) for r in seen.squares]
    assert _colours(np.array(tops)) == _colours(
        np.array([Top.of(later[sq][0]) if sq in later else Top.EMPTY for sq in g.squares])
    )


def test_bad_photo_labels_name_the_line(tmp_path: Path) -> None:
    from models.labelled_photos import read_labels

    bad = tmp_path / "labels.txt"
    bad.write_text("photo img/x.jpg start\ncorners 1,2 3,4 5,6 7,8\n" + "........\n" * 8)
    with pytest.raises(ValueError, match=r"labels\.txt:1: expected 'photo PATH session"):
        read_labels(bad)
    bad.write_text("photo img/x.jpg session s\ncorners 1,2 3,4 5,6 7,8\n" + "....x...\n" * 8)
    with pytest.raises(ValueError, match=r"img/x\.jpg needs 8 rows of 8"):
        read_labels(bad)


def test_a_labelled_photo_path_may_hold_spaces(tmp_path: Path) -> None:
    """Upstream's folders have spaces ("webcam_frames/fotos K2"): the path runs up to the
    last " session "."""
    from models.labelled_photos import read_labels

    labels = tmp_path / "labels.txt"
    labels.write_text(
        "photo webcam_frames/fotos K2/a b.jpg session webcam-k2 start\n"
        "corners 1,2 3,4 5,6 7,8\n" + "........\n" * 8
    )
    (photo,) = read_labels(labels)
    assert photo.path == "webcam_frames/fotos K2/a b.jpg"
    assert (photo.session, photo.start) == ("webcam-k2", True)

"""The tower reader's training end to end on a few rendered boards of both families: band
strips cached beside the crops, train, export, card, attach to a main card, read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier, card_path
from models.dataset import Boards, cached_set
from vision.band import BAND


def test_column_sets_with_strips_are_cached_apart_and_keep_the_same_boards(
    tmp_path: Path,
) -> None:
    pytest.importorskip("synth.render")
    columns, banded_columns = Boards(family="columns"), Boards(family="columns", strips=True)
    plain = cached_set("synth", 100, seed=9, size=48, cache=tmp_path, boards=columns)
    banded = cached_set("synth", 100, seed=9, size=48, cache=tmp_path, boards=banded_columns)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"synth-n100-s9-48px-ctx-columns-band{BAND.digest()}.npz",
        "synth-n100-s9-48px-ctx-columns.npz",
    ]
    assert plain.strips is None
    assert banded.strips is not None and banded.strips.shape == (len(banded), BAND.rows,
                                                                   BAND.cols, 3)  # fmt: skip
    assert np.array_equal(plain.crops, banded.crops)  # the strips draw no random numbers
    again = cached_set("synth", 100, seed=9, size=48, cache=tmp_path, boards=banded_columns)
    assert again.strips is not None and np.array_equal(again.strips, banded.strips)


def test_train_towers_exports_a_reader_that_the_main_card_can_name(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("synth.render")
    from models.tower_net import TOWER_CLASSES
    from models.train_towers import main

    shipped = OnnxSquareClassifier.load()
    for model_file in shipped.model_files():
        if model_file.parent == DEFAULT_MODEL.parent and "towers" not in model_file.name:
            for source in (model_file, card_path(model_file)):
                shutil.copy(source, tmp_path / source.name)
    main_card = json.loads(card_path(DEFAULT_MODEL).read_text())
    main_card.pop("towers_model", None)
    card_path(tmp_path / DEFAULT_MODEL.name).write_text(json.dumps(main_card))
    out = tmp_path / "towers_tiny.onnx"

    main(["--train-count", "300", "--train-parts", "2", "--test-count", "150", "--minutes",
          "0.05", "--threads", "1", "--out", str(out), "--cache", str(tmp_path / "cache"),
          "--families", "columns", "draughts", "--attach"])  # fmt: skip

    card = json.loads(card_path(out).read_text())
    assert card["band_window"] == BAND.as_dict()
    assert card["data"]["families"] == ["columns", "draughts"]
    assert card["data"]["test_seeds"] == {"columns": 3000, "draughts": 3500}
    with_reader = card["metrics"]["held_out_with_tower_reader"]
    alone = card["metrics"]["held_out_square_model_alone"]
    columns, draughts = with_reader["columns"], with_reader["draughts"]
    assert 0 <= columns["visible_tower_height_errors"] <= columns["visible_towers"]
    assert 0 <= draughts["visible_man_king_errors"] <= draughts["visible_pieces"]
    assert draughts["visible_pieces"] > 0 and draughts["squares"] > 0
    for family in ("columns", "draughts"):  # the same boards, read with and without
        assert alone[family]["squares"] == with_reader[family]["squares"]
        assert alone[family]["visible_towers"] == with_reader[family]["visible_towers"]
    attached = OnnxSquareClassifier.load(tmp_path / DEFAULT_MODEL.name)
    assert attached.tower_reader is not None and attached.tower_reader.path == out
    strips = np.zeros((3, BAND.rows, BAND.cols, 3), np.uint8)
    probs = attached.for_variant(towers=True).height_probs(
        np.zeros((3, 48, 48, 3), np.uint8), np.full(3, 0.5), strips
    )
    assert probs.shape == (3, TOWER_CLASSES)  # to the full tower
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    tall = card["metrics"]["held_out_tall_towers"]
    assert tall["squares"] == with_reader["columns"]["squares"]
    for low, high in ((2, 8), (9, 24)):
        assert 0.0 <= tall[f"heights_{low}_to_{high}"]["read_exact_pct"] <= 100.0
    assert 0 <= tall["tops_past_crop"]["read_errors"] <= tall["tops_past_crop"]["pieces"]

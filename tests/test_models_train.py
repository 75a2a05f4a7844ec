"""The training pipeline end to end on a tiny procedural set: train, export, card, load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.classifier import OnnxSquareClassifier, card_path
from models.procedural import procedural_set
from rules.observation import Top


def test_train_exports_a_loadable_model_with_its_card(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.train import TrainConfig, run

    out = tmp_path / "tiny.onnx"
    config = TrainConfig(
        source="procedural", train_count=512, test_count=200, size=48, seed=3,
        minutes=0.1, threads=1, out=out, cache=tmp_path / "cache",
    )  # fmt: skip
    run(config)
    assert out.is_file() and card_path(out).is_file()
    written = json.loads(card_path(out).read_text())
    assert written["classes"] == [t.name for t in Top]
    assert written["input_size"] == [48, 48]
    assert written["data"]["source"] == "procedural"
    assert 0.0 <= written["metrics"]["held_out"]["top_error_rate"] <= 1.0
    classifier = OnnxSquareClassifier.load(out)
    crops, _, _ = procedural_set(7, seed=99)
    probs = classifier.predict(crops)
    assert probs.shape == (7, len(Top))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)


def test_procedural_crops_are_seeded() -> None:
    a = procedural_set(5, seed=1)
    b = procedural_set(5, seed=1)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)

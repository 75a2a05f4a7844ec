"""The kings model's crown probe: its regression, its ONNX output, and how adaptation
weighs it (docs/models.md, "The crown probe")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import models.classifier
from models.classifier import OnnxSquareClassifier, to_input
from models.crown_probe import OUTPUT, fit_logistic, with_crown_output
from models.labelled_photos import PHOTOS, LabelledPhoto, photo_squares, read_labels
from models.procedural import procedural_set
from rules import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Position, find_variant
from rules.observation import Top
from tests.test_classifier import _render_crops


def test_fit_logistic_recovers_a_known_model() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4000, 3))
    true_weights, true_bias = np.array([2.0, -1.0, 0.5]), 0.3
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ true_weights + true_bias)))).astype(float)
    weights, bias = fit_logistic(x, y, l2=0.01)
    np.testing.assert_allclose(weights, true_weights, atol=0.2)
    assert abs(bias - true_bias) < 0.15


def test_fit_logistic_stays_finite_on_separable_data() -> None:
    # Without the penalty, separable classes send the weights to infinity.
    x = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    weights, bias = fit_logistic(x, np.array([0.0, 0.0, 1.0, 1.0]), l2=1.0)
    assert np.all(np.isfinite(weights)) and 0 < weights[0] < 10 and abs(bias) < 1e-6


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_the_crown_output_is_the_probe_on_the_features() -> None:
    kings = OnnxSquareClassifier.load().kings
    assert kings is not None
    crops, _, _ = procedural_set(8, seed=1, size=kings.crop_size[0])
    inputs = {"crops": to_input(crops), "views": np.full((len(crops), 1), 0.3, np.float32)}
    rng = np.random.default_rng(0)
    model = onnx.load(str(kings.path))
    for _ in range(2):  # a second probe replaces the first
        weights, bias = rng.normal(size=64), float(rng.normal())
        probed = with_crown_output(model, weights, bias)
        session = _session(probed)
        names = [o.name for o in session.get_outputs()]
        assert names.count(OUTPUT) == 1
        out = dict(zip(names, session.run(None, inputs), strict=True))
        np.testing.assert_allclose(
            out[OUTPUT][:, 0], out["features"] @ weights + bias, rtol=1e-4, atol=1e-4
        )
        model = probed


def test_a_start_frames_men_gain_no_king_odds_from_their_crowns() -> None:
    # The cue counts only crown log-odds past the start frame's most crown-like man (each
    # kings model's own: the first look's and the kings model's), so the men it was
    # learnt from read exactly as without it; a column game has none.
    classifier = OnnxSquareClassifier.load()
    russian = find_variant("russian")
    crops, tops, _, views = _render_crops(
        Position.initial(russian), 4, tilt_deg=20.0, king_mark="crown", piece_height=2.0
    )
    adapted = classifier.adapted(crops, tops, views)
    for reader in (replace(adapted, first_look=None), adapted.first_look):
        assert reader is not None and reader.crown_bias is not None
        start = reader.run(crops, views)
        assert start.crowns is not None and np.all(start.crowns < reader.crown_bias)
    np.testing.assert_allclose(
        adapted.predict(crops, views), _without_crowns(adapted).predict(crops, views)
    )
    assert classifier.adapted(crops, tops, views, towers=True).crown_bias is None


def test_a_crown_counts_only_where_the_probe_learnt_to_see_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The probe learnt stickers on cells seen within CROWN_VIEW_LIMIT of the vertical;
    # from lower, a tall man's side is what fills the crop, and the cue says nothing.
    classifier = OnnxSquareClassifier.load()
    russian = find_variant("russian")
    g = russian.geometry
    style = {"tilt_deg": 20.0, "king_mark": "crown", "piece_height": 2.0}
    start_crops, start_tops, _, start_views = _render_crops(Position.initial(russian), 4, **style)
    adapted = classifier.adapted(start_crops, start_tops, start_views)
    stacks = {g.parse_square(name): (piece,) for name, piece in (
        ("c3", WHITE_KING), ("e5", WHITE_KING), ("d6", BLACK_KING), ("f4", BLACK_KING),
        ("a1", WHITE_MAN), ("h8", BLACK_MAN))}  # fmt: skip
    crops, tops, _, views = _render_crops(
        Position.from_stacks(russian, stacks, russian.first_to_move), 4, **style
    )
    plain = _without_crowns(adapted).predict(crops, views)
    kings = np.isin(tops, (Top.WHITE_KING, Top.BLACK_KING))
    king_share = adapted.predict(crops, views)[:, [Top.WHITE_KING, Top.BLACK_KING]].sum(axis=1)
    assert np.any(king_share[kings] > plain[kings][:, [Top.WHITE_KING, Top.BLACK_KING]].sum(axis=1))
    monkeypatch.setattr(models.classifier, "CROWN_VIEW_LIMIT", float(views.min()) - 0.01)
    np.testing.assert_allclose(adapted.predict(crops, views), plain)


def test_the_webcams_crowned_kings_read_as_kings_by_their_crowns(shared_data: Path) -> None:
    # The damas set marks kings by a crown sticker on men three discs tall; seen from
    # nearly above, the webcam session's two crowned Black kings read as men but for the
    # probe (docs/models.md).
    classifier = OnnxSquareClassifier.load()
    labels = read_labels()
    webcam = [p for p in labels if p.session == "webcam"]
    start = next(p for p in webcam if p.start)  # as models.labelled_photos calibrates
    crowned = 0
    for photo in (p for p in webcam if not p.start):
        squares = [
            photo_squares(p, _image(shared_data, p), classifier.window, classifier.crop_size[0])
            for p in (start, photo)
        ]
        adapted = classifier.adapted(*squares[0])
        crops, tops, views = squares[1]
        kings = np.isin(tops, (Top.WHITE_KING, Top.BLACK_KING))
        with_probe = adapted.predict(crops, views).argmax(axis=1)
        plain = _without_crowns(adapted).predict(crops, views).argmax(axis=1)
        assert np.array_equal(with_probe[kings], tops[kings])
        crowned += int(np.sum(plain[kings] != tops[kings]))
    assert crowned >= 1  # the probe is what reads them


def _without_crowns(adapted: OnnxSquareClassifier) -> OnnxSquareClassifier:
    """``adapted`` and its first look weighing no crown sticker."""
    first_look = adapted.first_look
    if first_look is not None:
        first_look = replace(first_look, crown_bias=None)
    return replace(adapted, crown_bias=None, first_look=first_look)


def _image(shared_data: Path, photo: LabelledPhoto) -> np.ndarray:
    image = cv2.imread(str(shared_data / PHOTOS / photo.path))
    assert image is not None, photo.path
    return np.asarray(image, np.uint8)

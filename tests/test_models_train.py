"""The training pipeline end to end on a tiny procedural set: train, export, card, load."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from damcam.cli import app
from models.classifier import OnnxSquareClassifier, card_path, to_input
from models.dataset import SquareSet
from models.procedural import procedural_set
from rules.observation import Top


@pytest.mark.parametrize("bounded", [False, True])
def test_train_exports_a_loadable_model_with_its_card(tmp_path: Path, bounded: bool) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "tiny.onnx"
    args = [
        "train", "--source", "procedural", "--train-count", "512", "--test-count", "200",
        "--size", "48", "--seed", "3", "--minutes", "0.1", "--threads", "1",
        "--out", str(out), "--cache", str(tmp_path / "cache"),
        *(["--bounded-weights"] if bounded else []),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)  # damcam train: python -m models.train's parser
    assert result.exit_code == 0, result.output
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
    # its weights, to continue from, are named by the run's folder: another run of the
    # same model elsewhere keeps its own
    assert (tmp_path / "cache" / f"{tmp_path.name}-tiny.pt").is_file()
    assert written["training"]["bounded_weights"] is bounded
    if bounded:  # int8 whatever the tolerance, its weights within the pair bound
        from models.exact_int8 import with_unsigned_weights

        assert written["precision"] == "int8 (static QDQ, per-channel, weights within ±64)"
        assert with_unsigned_weights(out.read_bytes()) is None


def test_procedural_crops_are_seeded() -> None:
    a = procedural_set(5, seed=1)
    b = procedural_set(5, seed=1)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_crowned_king_is_labelled_one_disc() -> None:
    from rules.pieces import BLACK_MAN, WHITE_KING
    from synth.pieces import disc_count

    assert disc_count((WHITE_KING,), towers=False) == 2  # two stacked discs
    assert disc_count((WHITE_KING,), towers=False, king_mark="crown") == 1
    assert disc_count((WHITE_KING, BLACK_MAN), towers=True, king_mark="crown") == 2


def test_towers_are_drawn_into_batches_as_often_as_weighted() -> None:
    pytest.importorskip("torch")
    from models.dataset import SquareSet
    from models.train import _batches, sample_weights

    heights = np.array([0, 1, 2, 3, 5, 8] * 500)
    data = SquareSet(np.zeros((len(heights), 2, 2, 3), np.uint8), heights * 0, heights)
    even = np.concatenate(_batches(np.random.default_rng(0), sample_weights(data, 1.0), 100))
    assert sorted(even.tolist()) == list(range(len(heights)))  # every crop once
    drawn = np.concatenate(_batches(np.random.default_rng(0), sample_weights(data, 4.0), 100))
    towers = (heights[drawn] >= 3).mean()
    assert towers == pytest.approx(3 * 4 / (3 * 4 + 3), abs=0.03)  # 12 of 15 weight units


def test_a_shipped_onnx_model_seeds_a_net_that_reads_as_it_does() -> None:
    pytest.importorskip("torch")
    import torch

    from models.classifier import DEFAULT_MODEL, to_input
    from models.onnx_init import net_from_onnx

    crops, _, _ = procedural_set(300, seed=5)
    net = net_from_onnx(DEFAULT_MODEL, crops[:200])
    with torch.no_grad():
        tops, heights, _ = net(torch.from_numpy(to_input(crops[200:])))
    # The main file alone (its card's kings model is another net)
    shipped = replace(OnnxSquareClassifier.load(), kings=None).run(crops[200:])
    # Up to the file's int8 rounding: the same tops, the same expected disc counts.
    assert (tops.argmax(1).numpy() == shipped.tops.argmax(1)).mean() >= 0.95
    expected = (torch.softmax(heights, 1).numpy() - shipped.heights) @ np.arange(9)
    assert np.abs(expected).mean() < 0.15


def test_a_model_of_another_shape_cannot_seed_the_net(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from models.onnx_init import net_from_onnx

    weight = numpy_helper.from_array(np.zeros((4, 3, 3, 3), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"])],
        "one_conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
        [weight],
    )
    path = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), str(path))
    crops, _, _ = procedural_set(8, seed=1)
    with pytest.raises(ValueError, match="1 convolutions, SquareNet has 5"):
        net_from_onnx(path, crops)


def test_a_shipped_kings_model_seeds_a_net_that_reads_it_with_views() -> None:
    pytest.importorskip("torch")
    import torch

    from models.classifier import to_input
    from models.onnx_init import net_from_onnx

    kings = OnnxSquareClassifier.load().kings
    assert kings is not None
    # 800 crops to compare on: on the first 100 alone one crop more or less moves the
    # share a point (96% for the kings file before session 47, 94% for its own; 98% and
    # 96.6% over all 800)
    crops, _, _ = procedural_set(1000, seed=5)
    views = np.random.default_rng(5).uniform(0.0, 0.7, 1000)
    with pytest.raises(ValueError, match="view tangents"):
        net_from_onnx(kings.path, crops[:200])
    net = net_from_onnx(kings.path, crops[:200], views[:200])  # its crown probe left behind
    assert net.views
    with torch.no_grad():
        tops, _, _ = net(
            torch.from_numpy(to_input(crops[200:])),
            torch.from_numpy(views[200:].astype(np.float32))[:, None],
        )
    shipped = kings.run(crops[200:], views[200:])
    assert (tops.argmax(1).numpy() == shipped.tops.argmax(1)).mean() >= 0.95


def test_family_sets_render_their_own_variants(tmp_path: Path) -> None:
    pytest.importorskip("synth.render")
    from models.dataset import Boards, cached_set

    draughts = cached_set(
        "synth", 200, seed=4, size=48, cache=tmp_path, boards=Boards(family="draughts")
    )
    columns = cached_set(
        "synth", 200, seed=4, size=48, cache=tmp_path, boards=Boards(family="columns")
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "synth-n200-s4-48px-ctx-columns.npz",
        "synth-n200-s4-48px-ctx-draughts.npz",
    ]
    assert draughts.towers is not None and not draughts.towers.any()
    assert draughts.heights.max() <= 2  # men and stacked kings
    assert columns.towers is not None and columns.towers.all()
    assert columns.heights.max() > 2  # towers
    # Saved and read back, the family travels with the crops.
    again = cached_set(
        "synth", 200, seed=4, size=48, cache=tmp_path, boards=Boards(family="columns")
    )
    assert again.towers is not None and np.array_equal(again.tops, columns.tops)


def test_every_choice_of_boards_names_its_own_cache_file(tmp_path: Path) -> None:
    """Each field of ``Boards`` renders other boards, so each must change the file name,
    in the order sets were first cached in: a set cached before stays found."""
    from models.dataset import FULL_TOWER, Boards, cached_set
    from vision.band import BAND

    choices = [
        Boards(),
        Boards(crowns=0.3),
        Boards(crowns=0.3, tallest=1.0),
        Boards(nadir=True),
        Boards(family="columns", strips=True, tower_limit=FULL_TOWER),
        Boards(crowns=0.3, family="draughts"),
        Boards(crowns=0.3, nadir=True, family="draughts"),
    ]
    for boards in choices:
        cached_set("procedural", 4, seed=2, size=48, cache=tmp_path, boards=boards)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"procedural-n4-s2-48px-ctx-columns-towers24-band{BAND.digest()}.npz",
        # view tangents in men's heights; stickers of many sizes and inks
        "procedural-n4-s2-48px-ctx-crowns30-mh-st-draughts.npz",
        "procedural-n4-s2-48px-ctx-crowns30-mh-st-nadir-draughts.npz",
        "procedural-n4-s2-48px-ctx-crowns30-mh-st.npz",
        "procedural-n4-s2-48px-ctx-crowns30-tall1-st.npz",
        "procedural-n4-s2-48px-ctx-nadir.npz",
        "procedural-n4-s2-48px-ctx.npz",
    ]


def test_pieces_are_drawn_into_batches_as_often_as_weighted() -> None:
    pytest.importorskip("torch")
    from models.dataset import SquareSet
    from models.train import _batches, sample_weights

    tops = np.array([Top.EMPTY, Top.EMPTY, Top.WHITE_MAN, Top.BLACK_KING] * 500)
    data = SquareSet(np.zeros((len(tops), 2, 2, 3), np.uint8), tops, (tops > 0).astype(np.int64))
    drawn = np.concatenate(_batches(np.random.default_rng(0), sample_weights(data, 1.0, 2.0), 100))
    assert (tops[drawn] != Top.EMPTY).mean() == pytest.approx(4 / 6, abs=0.03)  # 2x2 of 2+2x2


def test_near_nadir_sets_hold_draughts_boards_seen_from_above(tmp_path: Path) -> None:
    pytest.importorskip("synth.render")
    from models.dataset import Boards, cached_set

    nadir = cached_set("synth", 300, seed=4, size=48, cache=tmp_path, boards=Boards(nadir=True))
    usual = cached_set("synth", 300, seed=4, size=48, cache=tmp_path)
    assert (tmp_path / "synth-n300-s4-48px-ctx-nadir.npz").is_file()
    assert nadir.heights.max() <= 2  # men and stacked kings, no towers
    assert nadir.band_px is not None and usual.band_px is not None

    def band_per_disc(data: SquareSet) -> float:
        pieces = data.heights > 0
        return float(np.mean(data.band_px[pieces] / data.heights[pieces]))  # type: ignore[index]

    assert band_per_disc(nadir) < 0.6 * band_per_disc(usual)


def _kings_model(tmp_path: Path, king_per_view: float) -> Path:
    """The shipped model's weights with the view-tangent input, its king logits raised by
    ``king_per_view`` per unit of tangent, exported as a kings model beside a copy of the
    shipped model whose card names it."""
    import torch

    from models.classifier import DEFAULT_MODEL
    from models.export import export_onnx
    from models.net import with_views
    from models.onnx_init import net_from_onnx

    crops, _, _ = procedural_set(200, seed=5)
    net = with_views(net_from_onnx(DEFAULT_MODEL, crops))
    with torch.no_grad():
        net.top_head.weight[[Top.WHITE_KING, Top.BLACK_KING], -1] = king_per_view
    export_onnx(net, tmp_path / "kings.onnx", 48)
    card = json.loads(card_path(DEFAULT_MODEL).read_text())
    for companion in ("kings_model", "quick_kings_model", "columns_model", "towers_model"):
        card.pop(companion, None)
    card_path(tmp_path / "kings.onnx").write_text(json.dumps(card))
    main = tmp_path / "main.onnx"
    main.write_bytes(DEFAULT_MODEL.read_bytes())
    card_path(main).write_text(json.dumps({**card, "kings_model": "kings.onnx"}))
    return main


def test_a_kings_model_says_man_or_king_and_the_main_model_the_colour(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.classifier import DEFAULT_MODEL
    from models.top_odds import colours

    composed = OnnxSquareClassifier.load(_kings_model(tmp_path, king_per_view=100.0))
    assert composed.kings is not None
    crops, _, _ = procedural_set(40, seed=8)
    with pytest.raises(ValueError, match="view_tangents"):
        composed.predict(crops)
    main_alone = replace(OnnxSquareClassifier.load(DEFAULT_MODEL), kings=None)
    colour = colours(main_alone.predict(crops), swapped=False)
    steep = composed.predict(crops, np.full(40, 0.6))
    above = composed.predict(crops, np.zeros(40))
    # Colours are the main model's to the last digit, whatever the view...
    np.testing.assert_allclose(colours(steep, swapped=False), colour, atol=1e-6)
    np.testing.assert_allclose(colours(above, swapped=False), colour, atol=1e-6)
    # ...man or king is the kings model's: its king logits grow with the tangent.
    pieces = colour[:, 0] < 0.5
    assert pieces.sum() > 10
    kings = steep[:, Top.WHITE_KING] + steep[:, Top.BLACK_KING]
    assert np.all(kings[pieces] > 0.9 * (1 - colour[pieces, 0]))
    heights, _ = composed.predict_heights(crops, np.zeros(40))
    assert heights.shape == (40,)


def test_training_with_view_tangents_exports_a_model_that_reads_them(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("synth.render")
    from models.train import main

    out = tmp_path / "kings.onnx"
    main(["--views", "--train-count", "300", "--train-parts", "1", "--test-count", "150",
          "--minutes", "0.05", "--threads", "1", "--fine-convs", "2", "--out", str(out),
          "--cache", str(tmp_path / "cache")])  # fmt: skip
    card = json.loads(card_path(out).read_text())
    assert card["training"]["views"] is True and "view_tangents" in card["input"]
    assert card["training"]["fine_convs"] == 2
    import onnx

    convs = [n for n in onnx.load(str(out)).graph.node if n.op_type == "Conv"]
    assert len(convs) == 6  # two at full resolution, two at each smaller scale
    data = SquareSet.load(next((tmp_path / "cache").glob("synth-n150-*.npz")))
    assert data.views is not None and np.all((data.views >= 0) & (data.views < 2))
    model = OnnxSquareClassifier.load(out)
    assert model.predict(data.crops[:5], data.views[:5]).shape == (5, len(Top))
    with pytest.raises(ValueError, match="view tangent"):
        model.predict(data.crops[:5])


@pytest.mark.parametrize("views", [False, True])
def test_a_deepened_net_reads_as_the_net_it_grew_from(tmp_path: Path, views: bool) -> None:
    pytest.importorskip("torch")
    import torch

    from models.classifier import to_input
    from models.net import SquareNet, deepened
    from models.train import TrainConfig, checkpoint_path, initial_net

    crops, _, _ = procedural_set(96, seed=3)
    x = torch.from_numpy(to_input(crops))
    tangents = torch.linspace(0.0, 0.8, len(crops))[:, None] if views else None
    torch.manual_seed(0)
    net = SquareNet(views=views)
    net.train()
    with torch.no_grad():  # running statistics other than the defaults, as after training
        for _ in range(3):
            net(x, tangents)
    net.eval()
    sample, rest = (None, None) if tangents is None else (tangents[:64], tangents[64:])
    deep = deepened(net, 2, x[:64], sample)
    assert deep.fine_convs == 2 and len(deep.body[0]) == len(net.body[0]) + 3
    with torch.no_grad():
        before, after = net(x[64:], rest), deep(x[64:], rest)
    for old, new in zip(before, after, strict=True):
        assert torch.allclose(old, new, atol=1e-4)
    # Its checkpoint continues as the deeper net.
    config = TrainConfig(out=tmp_path / "run" / "square_kings.onnx", cache=tmp_path)
    torch.save(deep.state_dict(), checkpoint_path(config))
    data = SquareSet(
        crops,
        np.zeros(96, np.int64),
        np.zeros(96, np.int64),
        views=None if tangents is None else tangents[:, 0].numpy(),
    )
    again = initial_net(checkpoint_path(config), data, views)
    assert again.fine_convs == 2
    # And a one-convolution checkpoint asked for two is deepened as it loads.
    torch.save(net.state_dict(), checkpoint_path(config))
    grown = initial_net(checkpoint_path(config), data, views, fine_convs=2).eval()
    assert grown.fine_convs == 2
    with torch.no_grad():
        torch.testing.assert_close(grown(x[64:], rest)[0], before[0], atol=1e-4, rtol=1e-4)


def _trained_briefly(out: Path, *flags: str) -> tuple[Path, dict[str, Any], list[list[int]]]:
    """A few seconds of training on procedural crops with ``flags``: the file, its card,
    and each of its convolutions' strides."""
    import onnx

    from models.train import main

    main(["--source", "procedural", "--train-count", "512", "--test-count", "200",
          "--seed", "3", "--minutes", "0.05", "--threads", "1", "--out", str(out),
          "--cache", str(out.parent / "cache"), *flags])  # fmt: skip
    card = json.loads(card_path(out).read_text())
    convs = [n for n in onnx.load(str(out)).graph.node if n.op_type == "Conv"]
    strides = [next(list(a.ints) for a in n.attribute if a.name == "strides") for n in convs]
    return out, card, strides


def _agreement(net: Any, path: Path, crops: np.ndarray) -> float:
    """Share of ``crops`` whose top the torch ``net`` and the ONNX file at ``path`` read
    alike (the file alone, without a kings model)."""
    import torch

    from models.classifier import to_input

    with torch.no_grad():
        tops, _, _ = net(torch.from_numpy(to_input(crops)))
    read = replace(OnnxSquareClassifier.load(path), kings=None).run(crops)
    return float((tops.argmax(1).numpy() == read.tops.argmax(1)).mean())


def test_a_coarse_net_samples_every_other_pixel_and_seeds_a_net_like_it(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import torch

    from models.classifier import to_input
    from models.net import SquareNet
    from models.onnx_init import net_from_onnx

    out, card, strides = _trained_briefly(tmp_path / "coarse.onnx", "--stem-stride", "2",
                                          "--stem-channels", "32")  # fmt: skip
    assert card["training"]["stem_stride"] == 2 and card["training"]["stem_channels"] == 32
    assert strides == [[2, 2]] + [[1, 1]] * 4
    # a quarter of the usual net's positions after the first convolution, the same 6x6
    # map at the end (so the same features and heads)
    x = torch.from_numpy(to_input(procedural_set(4, seed=8)[0]))
    coarse, usual = SquareNet(stem_stride=2).eval(), SquareNet().eval()
    with torch.no_grad():
        assert coarse.body[0](x).shape[2:] == (12, 12)
        assert usual.body[0](x).shape[2:] == (24, 24)
        assert coarse.body(x).shape == usual.body(x).shape == (4, 40, 6, 6)
    # a file of the coarse net seeds a coarse net, which reads as the file does
    crops, _, _ = procedural_set(300, seed=5)
    net = net_from_onnx(out, crops[:200])
    assert net.stem_stride == 2 and net.stem_channels == 32
    assert _agreement(net, out, crops[200:]) >= 0.95
    # asked for, another stride: the file's weights seed a net at full resolution
    fine = net_from_onnx(out, crops[:200], stem_stride=1).eval()
    assert fine.stem_stride == 1 and fine.stem_channels == 32
    with torch.no_grad():
        assert fine.body[0](x).shape[2:] == (24, 24)
        assert torch.equal(fine.body[0][0].weight, net.body[0][0].weight)


def test_a_net_strided_after_its_first_convolution_keeps_that_one_at_full_resolution(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    import torch

    from models.classifier import to_input
    from models.net import SquareNet
    from models.onnx_init import net_from_onnx

    out, card, strides = _trained_briefly(tmp_path / "strided.onnx", "--second-stride", "2")
    assert card["training"]["stem_stride"] == 1 and card["training"]["second_stride"] == 2
    assert strides == [[1, 1], [2, 2]] + [[1, 1]] * 3
    # the first convolution sees every pixel; the second block runs on a quarter of the
    # usual net's positions; the same 6x6 map at the end
    x = torch.from_numpy(to_input(procedural_set(4, seed=8)[0]))
    strided, usual = SquareNet(second_stride=2).eval(), SquareNet().eval()
    with torch.no_grad():
        assert strided.body[0](x).shape[2:] == usual.body[0](x).shape[2:] == (24, 24)
        assert strided.body[:2](x).shape[2:] == (6, 6)
        assert usual.body[:2](x).shape[2:] == (12, 12)
        assert strided.body(x).shape == usual.body(x).shape == (4, 40, 6, 6)
    # the file seeds a net strided as it is, which reads as the file does
    crops, _, _ = procedural_set(300, seed=5)
    net = net_from_onnx(out, crops[:200])
    assert net.stem_stride == 1 and net.second_stride == 2
    assert _agreement(net, out, crops[200:]) >= 0.95
    # asked for, another stride: the file's very weights in the usual net
    restrided = net_from_onnx(out, crops[:200], second_stride=1)
    assert restrided.second_stride == 1
    assert torch.equal(restrided.body[1][0].weight, net.body[1][0].weight)


def test_a_net_trained_with_bounded_weights_writes_them_into_the_int8_file(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import onnx

    from models.exact_int8 import PAIR_BOUND, float_tensors, with_unsigned_weights
    from models.export import export_onnx, quantise
    from models.net import SquareNet, baked, bound_weights, plain_state

    crops, tops, _ = procedural_set(64, seed=5)
    net = bound_weights(SquareNet())
    optimiser = torch.optim.SGD(net.parameters(), lr=0.5)
    for _ in range(2):  # the weights move off the grid; what the net reads stays on it
        top_logits, _, _ = net(torch.from_numpy(to_input(crops)))
        optimiser.zero_grad()
        torch.nn.functional.cross_entropy(top_logits, torch.from_numpy(tops)).backward()
        optimiser.step()
    SquareNet().load_state_dict(plain_state(net))  # a checkpoint cut short mid-run loads
    baked(net).eval()
    fp32, int8 = tmp_path / "net.onnx", tmp_path / "net.int8.onnx"
    export_onnx(net, fp32, 48)
    quantise(fp32, int8, crops, bounded=True)
    assert with_unsigned_weights(int8.read_bytes()) is None  # read as written, on any CPU
    folded, written = float_tensors(onnx.load(fp32)), float_tensors(onnx.load(int8))
    compared = 0
    for name, weights in folded.items():
        dequantised = written.get(f"{name}_DequantizeLinear_Output")
        if dequantised is None or weights.ndim < 2:
            continue
        # the quantiser loses nothing: the int8 weights are the trained ones (the first
        # convolution padded with zero input channels, models.channel_pad)
        step = np.abs(weights.reshape(len(weights), -1)).max(axis=1) / PAIR_BOUND
        np.testing.assert_allclose(
            dequantised[:, : weights.shape[1]], weights, rtol=0, atol=1e-4 * step.max()
        )
        compared += 1
    assert compared >= 8  # five convolutions, three linear layers

"""A model between a shipped model and its fine-tune: their weights interpolated.

Fine-tuning the main model on renders of new sets (crown stickers of many sizes and
inks) reads those renders better but moves the real photos' colours, as every
retraining of it did (docs/models.md). A net part of the way from the shipped weights to
the fine-tuned ones keeps most of either's gains: weight-space ensembling (WiSE-FT,
Wortsman et al., 2022), which works when one net was fine-tuned from the other.

Each convolution is taken with its BatchNorm folded in (as the ONNX export folds it), so
that what is interpolated is the function each net computes in eval mode, not two
parametrisations of it (:func:`models.onnx_init.net_from_onnx` rebuilds a shipped
file's BatchNorms otherwise than training left the fine-tune's). Written here rather
than taken from a library: torch has no weight interpolation of folded nets, and it is a
few lines.

    python -m models.interpolate models/square_classifier.onnx \\
        out/models-cache/main2-square_classifier.pt --share 0.85 \\
        --end-card out/main2/square_classifier.json --out out/mix/square_classifier.onnx
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from functools import partial
from pathlib import Path
from typing import Any

import torch
from torch import nn

from models.classifier import OnnxSquareClassifier, card_path
from models.dataset import FAMILIES, Boards, cached_set, top_limit_px, window_name
from models.export import evaluate, export_onnx, latency_ms, quantise
from models.labelled_photos import card_photo_figures
from models.net import SquareNet, conv_norm_pairs, shape
from models.train import initial_net

KEPT = ("classes", "height_classes", "input_size", "input", "crop_window", "normalisation",
        "outputs", "colour", "parameters", "kings_model")  # fmt: skip
"""What the start model's card says of the file's interface: the mixed model keeps it."""
RUN_KEYS = ("command", "seed", "init", "data", "training", "metrics")
"""What each run's card says of how it was trained, kept under ``interpolation``."""


def folded_weights(net: SquareNet) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Each convolution's weight and bias with its BatchNorm's eval-mode affine folded in."""
    out = []
    for conv, norm in conv_norm_pairs(net):
        assert norm.running_mean is not None and norm.running_var is not None
        scale = norm.weight / torch.sqrt(norm.running_var + norm.eps)
        weight = conv.weight * scale[:, None, None, None]
        out.append((weight, norm.bias - norm.running_mean * scale))
    return out


def interpolate(start: SquareNet, end: SquareNet, share: float) -> SquareNet:
    """A net whose folded weights are ``share`` of the way from ``start``'s to ``end``'s
    (0: reads as ``start``, 1: as ``end``, in eval mode). Both nets must have the same
    layout (both read view tangents or neither; the same convolutions at full resolution,
    strides and widths: :func:`models.net.shape`)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share {share} is not between 0 and 1")
    if start.views != end.views:
        raise ValueError("one net reads view tangents and the other does not")
    if start.fine_convs != end.fine_convs:
        raise ValueError(
            f"the nets have {start.fine_convs} and {end.fine_convs} convolutions at full resolution"
        )
    if shape(start) != shape(end):
        raise ValueError(f"the nets are laid out otherwise: {shape(start)} and {shape(end)}")
    out = SquareNet(views=start.views, **shape(start))
    out.eval()
    with torch.no_grad():
        for (conv, norm), (weight_a, bias_a), (weight_b, bias_b) in zip(
            conv_norm_pairs(out), folded_weights(start), folded_weights(end), strict=True
        ):
            conv.weight.copy_(torch.lerp(weight_a, weight_b, share))
            # An identity BatchNorm that adds the folded bias.
            assert norm.running_mean is not None and norm.running_var is not None
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.lerp(bias_a, bias_b, share))
        for name in ("embed.2", "top_head", "height_head"):
            linear, first, last = (net.get_submodule(name) for net in (out, start, end))
            assert isinstance(linear, nn.Linear)
            assert isinstance(first, nn.Linear) and isinstance(last, nn.Linear)
            linear.weight.copy_(torch.lerp(first.weight, last.weight, share))
            linear.bias.copy_(torch.lerp(first.bias, last.bias, share))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.interpolate", description=__doc__)
    parser.add_argument("start", type=Path, help="the shipped model (.onnx or checkpoint)")
    parser.add_argument("end", type=Path, help="its fine-tune (.onnx or checkpoint)")
    parser.add_argument("--share", type=float, required=True, help="0: start, 1: end")
    # a checkpoint keeps no stride: a strided pair's (models.train --second-stride) is given
    parser.add_argument(
        "--second-stride", type=int, default=None,
        help="both nets' second block's stride (models.train --second-stride)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the int8 .onnx to write")
    parser.add_argument(
        "--end-card", type=Path, default=None, help="the fine-tune's card, kept in this card"
    )
    # The quantiser calibrates on the fine-tune's first training part, and the card's
    # held-out figures are on its test set: its run's --seed and --crowns name them.
    parser.add_argument("--seed", type=int, default=79, help="the fine-tune's --seed")
    parser.add_argument("--crowns", type=float, default=0.3, help="the fine-tune's --crowns")
    parser.add_argument(
        "--family", choices=FAMILIES, default="all",
        help="the fine-tune's --family",
    )  # fmt: skip
    ns = parser.parse_args(argv)
    classifier = OnnxSquareClassifier.load(ns.start)
    size, window = classifier.crop_size[0], window_name(classifier.window)
    views = classifier.reads_views
    boards = Boards(crowns=ns.crowns, family=ns.family)
    rendered = partial(cached_set, "synth", size=size, window=window, boards=boards)
    part, test = rendered(4000, seed=ns.seed), rendered(6000, seed=ns.seed + 1000)
    nets = [
        initial_net(path, part, views, second_stride=ns.second_stride)
        for path in (ns.start, ns.end)
    ]
    fp32 = ns.out.with_suffix(".fp32.onnx")
    export_onnx(interpolate(nets[0], nets[1], ns.share), fp32, size)
    calibration = part.subset(slice(None, None, 40))
    quantise(fp32, ns.out, calibration.crops, calibration.views if views else None)
    fp32.unlink()

    card = _card(classifier.card, _read_card(ns.end_card), ns)
    card_path(ns.out).write_text(json.dumps(card, indent=1) + "\n")  # load() reads it
    for companion in classifier.model_files()[1:]:  # the card names them: it reads with them
        beside = ns.out.parent / companion.name
        if not beside.exists():
            shutil.copy(companion, beside)
            shutil.copy(card_path(companion), card_path(beside))
    mixed = OnnxSquareClassifier.load(ns.out)
    held_out = evaluate(mixed, test, top_limit_px=top_limit_px(size, mixed.window))
    first = test.subset(slice(50))  # the speed figure's batch, as models.train's
    card.update(
        metrics={"held_out": held_out.as_dict(), "test_seed": ns.seed + 1000},
        size_bytes=ns.out.stat().st_size,
        speed={"ms_50_crops_one_thread": latency_ms(mixed, first.crops, first.views)},
    )
    card["real_photos"] = card_photo_figures(mixed)
    card_path(ns.out).write_text(json.dumps(card, indent=1) + "\n")
    print(json.dumps({"model": str(ns.out), "held_out": held_out.as_dict()}))


def _card(start: dict[str, Any], end: dict[str, Any], ns: argparse.Namespace) -> dict[str, Any]:
    """The mixed model's card before its figures: START's interface, both runs' records."""
    card = {key: start[key] for key in KEPT if key in start}
    runs = {"start": (ns.start, start), "end": (ns.end, end)}
    card.update(
        model=ns.out.name,
        precision="int8 (static QDQ, per-channel)",
        command="python -m models.interpolate " + " ".join(sys.argv[1:]),
        interpolation={
            "share": ns.share,
            **{
                name: {"path": str(path), **{k: run[k] for k in RUN_KEYS if k in run}}
                for name, (path, run) in runs.items()
            },
        },
    )
    return card


def _read_card(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        card: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read the fine-tune's card {str(path)!r}: {exc}") from exc
    return card


if __name__ == "__main__":
    main()

"""A crown probe: the kings model's features read once more for a crown sticker.

Real sets often mark a king by a sticker on a man rather than by a second disc. The
kings model learned stickers from crowned renders, but weakly beside the side band it
weighs: on the labelled webcam photos two crowned kings read as men (0.4 king) although
their stickers are plain to see (docs/models.md). Its features hold the sticker all the
same: a logistic regression on them, fitted on renders (crowned kings against men and
stacked kings), tells the photos' crowned kings from their men. So this command fits that
probe and writes the kings model again with one more output, ``crown_logits (N, 1)``,
the probe's log-odds (a MatMul and an Add on ``features``, inside the ONNX file, so that
onnxruntime runs it with the rest).

At inference (:meth:`models.classifier.OnnxSquareClassifier.adapted`) only log-odds past
the start frame's men's count, and only towards king: a stacked king wears no sticker, so
a missing one says nothing.

    python -m models.crown_probe --out out/crowns

writes ``out/crowns/square_kings.onnx`` with its card, and the main file (and a columns
model where its card names one) beside it unchanged, so that ``python -m bench.classifier
--model out/crowns/square_classifier.onnx`` reads them together; copy both kings files
into ``models/`` to ship them.

The regression is fitted here by Newton's method rather than with a library: 65
parameters, a few lines of numpy, and no dependency the runtime does not have.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from models.adapted_renders import rendered_sets
from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier, card_path
from rules.observation import Top

OUTPUT = "crown_logits"
KINGS = (Top.WHITE_KING, Top.BLACK_KING)
PIECES = (Top.WHITE_MAN, Top.BLACK_MAN, *KINGS)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 30
) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularised logistic regression of ``y (N,)`` (0 or 1)
    on ``x (N, D)`` by Newton's method (the bias is not regularised)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    penalty = l2 * np.eye(design.shape[1])
    penalty[-1, -1] = 0.0
    w = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + penalty
        w -= np.linalg.solve(hessian, gradient)
    return w[:-1], float(w[-1])


def probe_data(
    classifier: OnnxSquareClassifier, *, sets: int, usual_sets: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The kings model's features of every piece on rendered draughts sets (start frames
    included), as adaptation reads them (tangents in the measured men's heights), and
    whether each wears a crown sticker: ``sets`` sets whose kings are crowned, then
    ``usual_sets`` whose kings are stacked (none wears one). Column games are left out:
    their kings are striped, and adaptation turns the cue off there."""
    kings = classifier.kings
    if kings is None:
        raise ValueError(f"{classifier.path.name} names no kings model to probe")
    features, crowned = [], []
    for crowns, count, set_seed in ((1.0, sets, seed), (0.0, usual_sets, seed + 1)):
        for rendered in rendered_sets(
            classifier, sets=count, positions=3, seed=set_seed, crowns=crowns
        ):
            if rendered.variant.towers:
                continue
            scale = classifier.adapted(*rendered.start).view_scale
            for crops, tops, views in [rendered.start, *rendered.positions]:
                pieces = np.isin(tops, PIECES)
                read = kings.run(crops[pieces], views[pieces] * scale)
                features.append(read.features)
                crowned.append(np.isin(tops[pieces], KINGS) & (crowns > 0))
    return np.concatenate(features), np.concatenate(crowned).astype(np.float64)


def with_crown_output(model: onnx.ModelProto, weights: np.ndarray, bias: float) -> onnx.ModelProto:
    """A copy of ``model`` with the output ``crown_logits (N, 1)`` = features @ weights +
    bias; an older probe's output is replaced."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    names = {OUTPUT, "crown_weights", "crown_bias", "crown_product"}
    kept_nodes = [n for n in graph.node if not names & set(n.output)]
    del graph.node[:]
    graph.node.extend(kept_nodes)
    kept_inits = [i for i in graph.initializer if i.name not in names]
    del graph.initializer[:]
    graph.initializer.extend(kept_inits)
    kept_outputs = [o for o in graph.output if o.name != OUTPUT]
    del graph.output[:]
    graph.output.extend(kept_outputs)
    graph.initializer.extend(
        [
            numpy_helper.from_array(weights.astype(np.float32).reshape(-1, 1), "crown_weights"),
            numpy_helper.from_array(np.array([bias], np.float32), "crown_bias"),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("MatMul", ["features", "crown_weights"], ["crown_product"]),
            helper.make_node("Add", ["crown_product", "crown_bias"], [OUTPUT]),
        ]
    )
    graph.output.append(helper.make_tensor_value_info(OUTPUT, onnx.TensorProto.FLOAT, ["N", 1]))
    onnx.checker.check_model(out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.crown_probe", description=__doc__)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="main model file")
    parser.add_argument("--out", type=Path, required=True, help="folder for the model pair")
    parser.add_argument("--sets", type=int, default=120, help="rendered sets of crowned kings")
    parser.add_argument("--usual-sets", type=int, default=60, help="sets of stacked kings")
    parser.add_argument("--test-sets", type=int, default=40, help="held-out sets of each kind")
    parser.add_argument("--seed", type=int, default=7000, help="render seed (bench: 2026)")
    parser.add_argument("--l2", type=float, default=1.0, help="the regression's penalty")
    ns = parser.parse_args(argv)
    classifier = OnnxSquareClassifier.load(ns.model)
    if classifier.kings is None:
        raise SystemExit(f"{ns.model}: its card names no kings model to probe")
    x, y = probe_data(classifier, sets=ns.sets, usual_sets=ns.usual_sets, seed=ns.seed)
    weights, bias = fit_logistic(x, y, l2=ns.l2)
    held_x, held_y = probe_data(
        classifier, sets=ns.test_sets, usual_sets=ns.test_sets, seed=ns.seed + 2
    )
    accuracy = {
        "train": _accuracy(x, y, weights, bias),
        "held_out": _accuracy(held_x, held_y, weights, bias),
    }

    ns.out.mkdir(parents=True, exist_ok=True)
    for model_file in classifier.model_files():  # the main file reads the rest beside it
        if model_file != classifier.kings.path:
            for source in (model_file, card_path(model_file)):
                shutil.copy(source, ns.out / source.name)
    kings_path = ns.out / classifier.kings.path.name
    onnx.save(with_crown_output(onnx.load(str(classifier.kings.path)), weights, bias), kings_path)
    card_path(kings_path).write_text(
        json.dumps(_card(classifier.kings.card, ns, len(y), int(y.sum()), accuracy), indent=1)
        + "\n"
    )
    print(json.dumps({"model": str(kings_path), "pieces": len(y), "accuracy": accuracy}))


def _accuracy(x: np.ndarray, y: np.ndarray, weights: np.ndarray, bias: float) -> float:
    """Share of pieces whose crown the probe calls right (log-odds past 0)."""
    return round(float(np.mean(((x @ weights + bias) > 0) == (y > 0))), 4)


def _card(
    card: dict[str, Any],
    ns: argparse.Namespace,
    pieces: int,
    crowned: int,
    accuracy: dict[str, float],
) -> dict[str, Any]:
    out = dict(card)
    outputs = [o for o in out.get("outputs", []) if not o.startswith(OUTPUT)]
    out["outputs"] = [*outputs, f"{OUTPUT} (N, 1)"]
    out["crown_probe"] = {
        "command": "python -m models.crown_probe " + " ".join(sys.argv[1:]),
        "what": "L2 logistic regression on features: crown sticker against none",
        "data": {
            "source": "synth (models.adapted_renders.rendered_sets, draughts sets only)",
            "crowned_sets": ns.sets,
            "usual_sets": ns.usual_sets,
            "seeds": [ns.seed, ns.seed + 1],
            "pieces": pieces,
            "crowned_pieces": crowned,
            "held_out": {"sets_each": ns.test_sets, "seeds": [ns.seed + 2, ns.seed + 3]},
        },
        "l2": ns.l2,
        "accuracy": accuracy,
    }
    return out


if __name__ == "__main__":
    main()

"""Train the tower reader: ``python -m models.train_towers``.

Renders (or reads from cache) column-game boards with towers up to the full tower and
draughts boards (``--families``; a draughts king is two stacked discs) with each square's
band strip (:mod:`vision.band`), trains :class:`models.tower_net.TowerNet` (heights and
tops) on the CPU within a time budget, exports ``models/square_towers.onnx`` (fp32: int8
is not worth its risk at this size) with its card, and measures it on held-out boards
against the square model's heights, and on the towers past eight
(:mod:`models.tall_towers`).
``--attach`` names the file in the card of the main model beside it (``towers_model``).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.augment import augment_batch, augment_strip
from models.classifier import DEFAULT_MODEL, MODEL_DIR, OnnxSquareClassifier, card_path
from models.dataset import (
    DEFAULT_CACHE,
    FAMILIES,
    FULL_TOWER,
    TOWER_LIMIT,
    Boards,
    Family,
    SquareSet,
    cached_set,
    top_limit_px,
)
from models.export import OPSET, evaluate, median_ms
from models.onnx_io import to_input
from models.tall_towers import tall_tower_figures
from models.tower_net import TOWER_CLASSES, TowerNet
from models.towers import TowerReader
from models.train import lr_schedule
from vision.band import BAND

log = logging.getLogger(__name__)

DEFAULT_TOWERS = MODEL_DIR / "square_towers.onnx"


@dataclass(frozen=True)
class TowerConfig:
    """Everything that decides the shipped tower reader; copied into its card."""

    train_count: int = 120_000
    train_parts: int = 30
    test_count: int = 6_000
    seed: int = 2000
    minutes: float = 60.0
    batch: int = 128
    learning_rate: float = 2e-3
    tower_weight: float = 2.0
    """Loss weight of stacks of two discs or more against empty squares and single men."""
    top_weight: float = 0.5
    """Loss weight of the top head against the height head's (whose count is the job)."""
    threads: int = 2
    out: Path = DEFAULT_TOWERS
    cache: Path = DEFAULT_CACHE
    attach: bool = False
    """Name the file in the card of the main model beside it (``towers_model``), so that
    model reads column games' heights with it."""
    families: tuple[Family, ...] = ("columns", "draughts")
    """Whose boards it learns from, ``train_count`` squares of each. The defaults are the
    shipped reader's (its card's ``command`` spells them out)."""

    def family_seed(self, family: Family, offset: int) -> int:
        """Each family's boards have seeds of their own, 500 apart (the test boards
        ``seed + 1000`` on): columns keep the seeds they had before draughts came in."""
        return self.seed + offset + 500 * self.families.index(family)


def family_boards(family: Family, count: int, seed: int, cache: Path) -> SquareSet:
    """One family's squares with their band strips (crops as the square models see them),
    column games' towers up to the full tower."""
    tower_limit = FULL_TOWER if family == "columns" else TOWER_LIMIT
    boards = Boards(family=family, strips=True, tower_limit=tower_limit)
    return cached_set("synth", count, seed=seed, size=48, cache=cache, boards=boards)


def train_net(config: TowerConfig, data: SquareSet) -> tuple[TowerNet, dict[str, float]]:
    """Train until the time budget runs out (warm-up, then cosine in wall-clock time)."""
    if data.strips is None or data.views is None:
        raise ValueError("the tower reader trains on renders with band strips and views")
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed + 1)
    net = TowerNet()
    optimiser = torch.optim.AdamW(net.parameters(), lr=config.learning_rate, weight_decay=1e-4)
    weights = torch.ones(TOWER_CLASSES)
    weights[2:] = config.tower_weight
    height_loss = nn.CrossEntropyLoss(weight=weights)
    top_loss = nn.CrossEntropyLoss()
    budget_s = config.minutes * 60
    start = time.monotonic()
    step, loss_value = 0, float("nan")
    while (elapsed := time.monotonic() - start) < budget_s:
        for group in optimiser.param_groups:
            group["lr"] = config.learning_rate * lr_schedule(elapsed / budget_s)
        index = rng.integers(0, len(data), config.batch)
        strips = torch.from_numpy(to_input(augment_batch(rng, data.strips[index], augment_strip)))
        views = torch.from_numpy(data.views[index].astype(np.float32))[:, None]
        heights = torch.from_numpy(np.minimum(data.heights[index], TOWER_CLASSES - 1))
        tops = torch.from_numpy(data.tops[index])
        height_logits, top_logits = net(strips, views)
        loss = height_loss(height_logits, heights) + config.top_weight * top_loss(top_logits, tops)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step += 1
        loss_value = float(loss.detach())
        if step % 500 == 0:
            log.info("step %d loss %.4f %.0fs", step, loss_value, elapsed)
    net.eval()
    return net, {"steps": step, "final_loss": loss_value}


def export_onnx(net: TowerNet, path: Path) -> None:
    """``strips (N, 3, rows, cols)`` and ``views (N, 1)`` in, ``height_logits`` and
    ``top_logits`` out."""
    dummy = (torch.zeros(1, 3, BAND.rows, BAND.cols), torch.zeros(1, 1))
    names = ["strips", "views", "height_logits", "top_logits"]
    torch.onnx.export(net, dummy, str(path), input_names=names[:2], output_names=names[2:],
                      dynamic_axes={n: {0: "n"} for n in names}, opset_version=OPSET,
                      dynamo=False)  # fmt: skip


def tower_figures(
    classifier: OnnxSquareClassifier, test: SquareSet, families: tuple[Family, ...]
) -> dict[str, dict[str, int]]:
    """Per family: towers whose band shows and how many of their heights ``classifier``
    gets wrong, pieces whose band shows and how many it reads as man for king or back."""
    figures = evaluate(classifier, test, top_limit_px=top_limit_px(48)).by_family
    assert figures is not None  # renders know their family
    return {family: figures[family] for family in families}


def run(config: TowerConfig) -> dict[str, object]:
    """The whole pipeline; returns the card (also written beside the model)."""
    torch.set_num_threads(config.threads)
    part = config.train_count // config.train_parts
    train = SquareSet.concat(
        [
            family_boards(family, part, config.family_seed(family, k), config.cache)
            for family in config.families
            for k in range(config.train_parts)
        ]
    )
    test = SquareSet.concat(
        [
            family_boards(family, config.test_count, config.family_seed(family, 1000), config.cache)
            for family in config.families
        ]
    )
    net, stats = train_net(config, train)
    config.out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(net, config.out)
    card: dict[str, object] = {
        "model": config.out.name,
        "input": "strips (N, 3, rows, cols) float32 BGR from vision.band.band_strips, "
        "x / 127.5 - 1; views (N, 1) float32, view tangents in men's heights",
        "outputs": [
            f"height_logits (N, {TOWER_CLASSES}): 0..{TOWER_CLASSES - 1} discs",
            "top_logits (N, 5): the stack's top, as the square models' classes",
        ],
        "band_window": BAND.as_dict(),
        "parameters": sum(p.numel() for p in net.parameters()),
    }
    card_path(config.out).write_text(json.dumps(card))
    load_start = time.perf_counter()
    reader = TowerReader.load(config.out)
    load_s = time.perf_counter() - load_start
    square = OnnxSquareClassifier.load(DEFAULT_MODEL)
    strips, views = test.strips[:32], test.views[:32]  # type: ignore[index]  # one 8x8 board
    card.update(
        {
            "data": {
                "source": "synth",
                "families": list(config.families),
                "train_squares": len(train),
                "test_squares": len(test),
                "train_seeds": {
                    family: [config.family_seed(family, k) for k in range(config.train_parts)]
                    for family in config.families
                },
                "test_seeds": {f: config.family_seed(f, 1000) for f in config.families},
                "augmentation": "left-right mirror, shift 2 px, turn 3 degrees (never "
                "scaled), colour jitter, glare, blur, noise, JPEG",
            },
            "command": "python -m models.train_towers " + " ".join(sys.argv[1:]),
            "seed": config.seed,
            "training": {
                **stats,
                "minutes": config.minutes,
                "threads": config.threads,
                "learning_rate": config.learning_rate,
                "tower_weight": config.tower_weight,
                "top_weight": config.top_weight,
            },
            "metrics": {
                "held_out_with_tower_reader": tower_figures(
                    replace(square, tower_reader=reader), test, config.families
                ),
                "held_out_square_model_alone": tower_figures(
                    replace(square, tower_reader=None), test, config.families
                ),
                **(
                    {
                        "held_out_tall_towers": tall_tower_figures(
                            replace(square, tower_reader=reader),
                            test.subset(np.flatnonzero(test.towers)),
                        )
                    }
                    if "columns" in config.families and test.towers is not None
                    else {}
                ),
            },
            "size_bytes": config.out.stat().st_size,
            "speed": {
                "ms_32_strips_one_thread": median_ms(lambda: reader.read(strips, views)),
                "load_seconds": load_s,
                "machine": platform.processor() or platform.machine(),
            },
            "torch": torch.__version__,
        }
    )
    card_path(config.out).write_text(json.dumps(card, indent=1) + "\n")
    if config.attach:
        main_card_path = card_path(config.out.parent / DEFAULT_MODEL.name)
        main_card = json.loads(main_card_path.read_text())
        main_card["towers_model"] = config.out.name
        main_card_path.write_text(json.dumps(main_card, indent=1) + "\n")
    return card


def parse_args(argv: list[str] | None = None) -> TowerConfig:
    parser = argparse.ArgumentParser(prog="python -m models.train_towers", description=__doc__)
    defaults = TowerConfig()
    parser.add_argument("--train-count", type=int, default=defaults.train_count)
    parser.add_argument("--train-parts", type=int, default=defaults.train_parts)
    parser.add_argument("--test-count", type=int, default=defaults.test_count)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--minutes", type=float, default=defaults.minutes)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--tower-weight", type=float, default=defaults.tower_weight)
    parser.add_argument("--top-weight", type=float, default=defaults.top_weight)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--out", type=Path, default=defaults.out)
    parser.add_argument("--cache", type=Path, default=defaults.cache)
    parser.add_argument(
        "--families", nargs="+", choices=[f for f in FAMILIES if f != "all"],
        default=list(defaults.families), help="whose boards to learn from",
    )  # fmt: skip
    parser.add_argument(
        "--attach",
        action="store_true",
        help="name the file in the card of the main model beside it",
    )
    ns = parser.parse_args(argv)
    return TowerConfig(
        train_count=ns.train_count, train_parts=ns.train_parts, test_count=ns.test_count,
        seed=ns.seed, minutes=ns.minutes, learning_rate=ns.learning_rate,
        tower_weight=ns.tower_weight, top_weight=ns.top_weight, threads=ns.threads,
        out=ns.out, cache=ns.cache, attach=ns.attach, families=tuple(dict.fromkeys(ns.families)),
    )  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    config = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    card = run(config)
    print(json.dumps({"metrics": card["metrics"], "speed": card["speed"]}))


if __name__ == "__main__":
    main()

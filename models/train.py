"""Train the square classifier: ``python -m models.train`` (or ``damcam train``).

Builds (or reads from cache) a labelled crop set, trains :class:`models.net.SquareNet` on
the CPU within a time budget with heavy augmentation, exports ONNX, quantises to int8 if
the held-out accuracy holds, and writes the model card beside the ``.onnx`` file.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn

from models.augment import augment_batch
from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier, card_path, to_input
from models.crown_probe import OUTPUT as CROWN_OUTPUT
from models.crown_probe import with_crown_output
from models.dataset import (
    DEFAULT_CACHE,
    FAMILIES,
    WINDOWS,
    Boards,
    Family,
    Source,
    SquareSet,
    WindowName,
    cached_set,
    top_limit_px,
)
from models.distil import Teacher, crown_kl, distillation_loss, reading_disagreement
from models.export import evaluate, export_onnx, latency_ms, quantise
from models.labelled_photos import SHARED_DATA, card_photo_figures
from models.net import (
    FEATURE_SIZE,
    HEIGHT_CLASSES,
    SquareNet,
    baked,
    bound_weights,
    deepened,
    fine_conv_count,
    parameter_count,
    plain_state,
    with_views,
)
from models.photo_pool import MinedDraw, PhotoPool, photo_pool
from rules.observation import Top
from synth.scene import STICKER_RADII

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the shipped model; it is copied into the card."""

    source: Source = "synth"
    train_count: int = 128_000
    train_parts: int = 32
    """The training set is cached in this many parts of ``train_count / train_parts`` crops
    (seeds ``seed, seed + 1, ...``), so renders can be made ahead, part by part."""
    test_count: int = 6_000
    size: int = 48
    window: WindowName = "context"
    """The crop window (:data:`models.dataset.WINDOWS`); "cell" only to compare."""
    seed: int = 7
    family: Family = "all"
    """Which variants the renders draw (train and test): a kings model for one family
    (:data:`models.dataset.Family`) learns what a king is there, and only there."""
    crowns: float = 0.0
    """Share of draughts boards rendered with crowned kings on tall men (train and test)."""
    tallest: float = 4.0
    """The tallest a crowned set's men are drawn, in discs (1: the usual discs)."""
    minutes: float = 60.0
    batch: int = 128
    learning_rate: float = 3e-3
    height_weight: float = 0.5
    tower_weight: float = 1.0
    """How much more often a tower of 3+ discs is drawn into a batch than another crop:
    towers are a few percent of the squares but the height head's hardest cases."""
    piece_weight: float = 1.0
    """How much more often a square with a piece (man or king) is drawn than an empty one:
    empty squares are nearly all read right, man or king is the top head's hard part."""
    nadir_parts: int = 0
    """Extra training parts of draughts boards seen from near straight down
    (:data:`models.synth_source.NADIR_TILT_DEG`), seeds from ``seed + 500``: stacked kings
    whose side band is hidden, the most common king read as a man."""
    threads: int = 2
    out: Path = DEFAULT_MODEL
    cache: Path = DEFAULT_CACHE
    int8_tolerance: float = 0.0005
    init: Path | None = None
    """Weights to start from, to train on in steps: a previous run's torch checkpoint, or a
    shipped ``.onnx`` file (:func:`models.onnx_init.net_from_onnx`)."""
    distil: Path | None = None
    """A teacher model file (:mod:`models.distil`): the student keeps its colours and
    features while it learns the rest."""
    distil_weight: float = 1.0
    """Weight of KL(teacher || student) over empty / White / Black, with ``distil``."""
    distil_features: float = 0.0
    """Weight of the features' cosine distance to the teacher's, with ``distil``."""
    distil_readings: float = 0.0
    """Weight of KL(teacher || student) over the whole top and height distributions, with
    ``distil``: for a student that does the teacher's job (a cheaper kings model)."""
    distil_photos: float = 0.0
    """Weight of the same distillation terms on cells of unlabelled real photos
    (:mod:`models.photo_pool`), ``photo_batch`` of them beside each batch, with
    ``distil``: what the teacher reads on real pieces, which renders do not show."""
    photo_batch: int = 32
    photo_mining: float = 0.0
    """Draw the photo cells the student reads furthest from its teacher the more often:
    the power of each cell's latest disagreement (:class:`models.photo_pool.MinedDraw`;
    0 draws them alike)."""
    distil_crowns: float = 0.0
    """Weight of the crown KL to the teacher's crown log-odds (:func:`models.distil.crown_kl`),
    read by a crown head trained with the net on its features, on the renders and (times
    ``distil_photos``) on the photo cells, with ``distil`` from a file with a crown probe.
    The head is written into the model file as its ``crown_logits`` output, where
    :mod:`models.crown_probe` would write a probe fitted afterwards."""
    photos: Path = SHARED_DATA
    """``../shared/data``, whose damas photos ``distil_photos`` reads."""
    views: bool = False
    """Train a net that reads each cell's view tangent beside its crop
    (:class:`models.net.SquareNet` ``views``): a kings model, for a card's ``kings_model``."""
    fine_convs: int = 1
    """Convolutions at full resolution (:class:`models.net.SquareNet`); more than ``init``
    has are added as identities (:func:`models.net.deepened`)."""
    stem_stride: int | None = None
    """The first convolution's stride (:class:`models.net.SquareNet`): 2 for the coarse
    net of a main file read beside a kings model, a quarter of the cost. None: an
    ``init`` ``.onnx`` file's stride, else 1 (a checkpoint keeps no trace of it); given,
    it re-strides that file's net."""
    stem_channels: int = 16
    """The first convolution's channels (:class:`models.net.SquareNet`): 32 for the wide
    coarse main file, the shipped one."""
    second_stride: int | None = None
    """The second block's first convolution's stride (:class:`models.net.SquareNet`): 2
    for a kings model that keeps its first convolution at full resolution. None: as
    ``stem_stride``, an ``init`` ``.onnx`` file's, else 1."""
    bounded_weights: bool = False
    """Train with every weight on its int8 grid within :data:`models.exact_int8.PAIR_BOUND`
    (:func:`models.net.bound_weights`) and write the int8 file so: AVX2 CPUs then read it on
    MLAS's fast path, exactly, where wider weights are read as uint8 (docs/models.md, "Weights
    within 64")."""
    extra: dict[str, str] = field(default_factory=dict)


def checkpoint_path(config: TrainConfig) -> Path:
    """The run's torch weights in the cache (``--init`` continues from them), named by
    the ``--out`` folder and file: named by the file alone, the next run of that model
    overwrote them, its own ``--init`` included."""
    return config.cache / f"{config.out.parent.name}-{config.out.stem}.pt"


def _batches(rng: np.random.Generator, weights: np.ndarray, batch: int) -> list[np.ndarray]:
    """One epoch of batches: every crop once when the weights are equal, else as many
    crops drawn in proportion to their weights."""
    n = len(weights)
    if np.all(weights == weights[0]):
        order = rng.permutation(n)
    else:
        order = rng.choice(n, size=n, p=weights / weights.sum())
    return [order[i : i + batch] for i in range(0, n - batch + 1, batch)]


def sample_weights(data: SquareSet, tower_weight: float, piece_weight: float = 1.0) -> np.ndarray:
    """Per-crop draw weights: ``piece_weight`` for a square with a piece, times
    ``tower_weight`` for stacks of three or more discs."""
    pieces = np.where(data.tops != Top.EMPTY, piece_weight, 1.0)
    return pieces * np.where(data.heights >= 3, tower_weight, 1.0)


def initial_net(
    init: Path | None,
    data: SquareSet,
    views: bool = False,
    fine_convs: int = 1,
    stem_stride: int | None = None,
    stem_channels: int = 16,
    second_stride: int | None = None,
) -> SquareNet:
    """A fresh net (``fine_convs`` at full resolution), or one with the weights of a
    checkpoint or a shipped ONNX file; with ``views``, one that reads view tangents, and
    with more ``fine_convs`` than those weights have, the rest added (both starting as
    the weights it is given read: :func:`models.net.with_views`,
    :func:`models.net.deepened`)."""
    # a stride leaves no trace in a checkpoint's weights: none given, 1
    strides = {"stem_stride": stem_stride or 1, "second_stride": second_stride or 1}
    if init is None:
        return SquareNet(views=views, fine_convs=fine_convs, stem_channels=stem_channels, **strides)
    sample = data.subset(slice(None, None, max(len(data) // 512, 1)))  # a few hundred crops
    if init.suffix == ".onnx":
        from models.onnx_init import net_from_onnx

        net = net_from_onnx(
            init,
            sample.crops,
            sample.views,
            stem_stride=stem_stride,
            second_stride=second_stride,
        )
    else:
        state = torch.load(init, weights_only=True)
        net = SquareNet(
            views=state["body.0.0.weight"].shape[1] == 4,
            fine_convs=fine_conv_count(state),
            stem_channels=state["body.0.0.weight"].shape[0],
            **strides,
        )
        net.load_state_dict(state)
    if views and not net.views:
        net = with_views(net)
    if fine_convs > net.fine_convs:
        tangents = sample.views if net.views else None
        net = deepened(
            net,
            fine_convs,
            torch.from_numpy(to_input(sample.crops)),
            None if tangents is None else torch.from_numpy(tangents.astype(np.float32))[:, None],
        )
    return net


def lr_schedule(progress: float, warm: float = 0.03) -> float:
    """Learning-rate factor at ``progress`` (0..1) through the budget: warm-up, then cosine
    (both trainers run in wall-clock time)."""
    if progress < warm:
        return progress / warm
    return 0.5 * (1 + float(np.cos(np.pi * min((progress - warm) / (1 - warm), 1.0))))


def train_net(
    config: TrainConfig, data: SquareSet
) -> tuple[SquareNet, dict[str, float], nn.Linear | None]:
    """Train until the time budget runs out (one-cycle schedule over the estimated steps);
    the net, its figures, and with ``distil_crowns`` its crown head."""
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed + 1)
    if config.views and data.views is None:
        raise ValueError("--views needs sets with view tangents (synth renders)")
    net = initial_net(
        config.init,
        data,
        config.views,
        config.fine_convs,
        config.stem_stride,
        config.stem_channels,
        config.second_stride,
    )
    if config.bounded_weights:
        bound_weights(net)
    teacher = None if config.distil is None else Teacher.load(config.distil)
    pool = _photo_pool(config, teacher)
    draw = None if pool is None else MinedDraw(len(pool), config.photo_mining)
    crown_head = _crown_head(config, teacher)
    weights = sample_weights(data, config.tower_weight, config.piece_weight)
    trained = [*net.parameters(), *([] if crown_head is None else crown_head.parameters())]
    optimiser = torch.optim.AdamW(trained, lr=config.learning_rate, weight_decay=1e-4)
    top_loss = nn.CrossEntropyLoss(label_smoothing=0.02)
    height_loss = nn.CrossEntropyLoss()
    budget_s = config.minutes * 60
    checkpoint = checkpoint_path(config)
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    saved_at = start
    step = 0
    lr = config.learning_rate
    epoch = 0
    loss_value = float("nan")
    distil_value = float("nan")
    while time.monotonic() - start < budget_s:
        epoch += 1
        net.train()
        for index in _batches(rng, weights, config.batch):
            now = time.monotonic()
            elapsed = now - start
            if elapsed >= budget_s:
                break
            # Warm-up then cosine, both in wall-clock time: the budget, not a step count
            # guessed from the first steps, decides the schedule on a shared machine.
            lr = config.learning_rate * lr_schedule(elapsed / budget_s)
            for group in optimiser.param_groups:
                group["lr"] = lr
            if now - saved_at > 300:  # a cut-short run still leaves its latest weights
                torch.save(plain_state(net), checkpoint)
                saved_at = now
            crops = data.crops[index]
            views_np = None if data.views is None else data.views[index]
            extra = None
            if pool is not None and draw is not None:  # photo cells ride after the batch's own
                extra = draw.draw(rng, config.photo_batch)
                crops = np.concatenate([crops, pool.crops[extra]])
                if views_np is not None:
                    views_np = np.concatenate([views_np, pool.views[extra]])
            x_np = to_input(augment_batch(rng, crops))
            x = torch.from_numpy(x_np)
            tops = torch.from_numpy(data.tops[index])
            heights = torch.from_numpy(np.minimum(data.heights[index], HEIGHT_CLASSES - 1))
            views = None
            if config.views:
                views = torch.from_numpy(views_np.astype(np.float32))[:, None]  # type: ignore[union-attr]
            top_logits, height_logits, features = net(x, views)
            crowns = None if crown_head is None else crown_head(features)[:, 0]
            rendered, photo_rows = slice(len(index)), slice(len(index), None)
            loss = top_loss(top_logits[rendered], tops) + config.height_weight * height_loss(
                height_logits[rendered], heights
            )
            if teacher is not None:
                reading = teacher.read(x_np, None if views is None else views.numpy())
                distil = top_logits.new_zeros(())
                # pool is None where distil_photos is 0: the photo rows are then none
                for weight, rows in ((1.0, rendered), (config.distil_photos, photo_rows)):
                    if weight > 0:
                        distil = distil + weight * distillation_loss(
                            top_logits[rows],
                            features[rows],
                            reading.rows(rows),
                            colour_weight=config.distil_weight,
                            feature_weight=config.distil_features,
                            reading_weight=config.distil_readings,
                            student_height_logits=height_logits[rows],
                        )
                        if crowns is not None:
                            crown_rows = crown_kl(crowns[rows], reading.rows(rows))
                            distil = distil + weight * config.distil_crowns * crown_rows.mean()
                if draw is not None and extra is not None:
                    draw.update(
                        extra,
                        reading_disagreement(
                            top_logits[photo_rows], height_logits[photo_rows],
                            reading.rows(photo_rows),
                            None if crowns is None else crowns[photo_rows],
                        ),
                    )  # fmt: skip
                loss = loss + distil
                distil_value = float(distil.detach())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            step += 1
            loss_value = float(loss.detach())
            if step % 200 == 0:
                log.info(
                    "epoch %d step %d loss %.4f (distil %.4f) lr %.5f %.0fs",
                    *(epoch, step, loss_value, distil_value, lr, elapsed),
                )
    baked(net).eval()
    stats = {"steps": step, "epochs": epoch, "final_loss": loss_value}
    if teacher is not None:
        stats["final_distil_loss"] = distil_value
    return net, stats, crown_head


def _crown_head(config: TrainConfig, teacher: Teacher | None) -> nn.Linear | None:
    """The crown head that ``distil_crowns`` trains, starting at even odds, or None."""
    if config.distil_crowns <= 0:
        return None
    if teacher is None or not teacher.has_crowns:
        raise ValueError(
            "--distil-crowns needs a teacher with a crown probe (python -m models.crown_probe)"
        )
    head = nn.Linear(FEATURE_SIZE, 1)
    nn.init.zeros_(head.weight)
    nn.init.zeros_(head.bias)
    return head


def _photo_pool(config: TrainConfig, teacher: Teacher | None) -> PhotoPool | None:
    """The unlabelled photos' cells that ``distil_photos`` asks for, cut as the teacher
    reads them."""
    if config.distil_photos <= 0:
        return None
    if teacher is None:
        raise ValueError("--distil-photos needs a teacher: give --distil")
    if teacher.classifier.crop_size != (config.size, config.size):
        raise ValueError(
            f"--distil-photos: teacher {teacher.classifier.path.name} reads "
            f"{teacher.classifier.crop_size} crops, the student {config.size} px"
        )
    pool = photo_pool(config.photos, teacher.classifier.window, config.size)
    log.info("%d cells of %d unlabelled photos for distillation", len(pool), len(pool.photos))
    return pool


def run(config: TrainConfig) -> dict[str, object]:
    """The whole pipeline; returns the model card (also written beside the model)."""
    if config.family == "columns" and config.nadir_parts:
        raise ValueError("--nadir-parts renders draughts boards: not for --family columns")
    torch.set_num_threads(config.threads)
    started = time.monotonic()
    train, test = training_sets(config)
    data_s = time.monotonic() - started
    net, train_stats, crown_head = train_net(config, train)
    torch.save(net.state_dict(), checkpoint_path(config))  # for --init: continue this run
    card = _interface(config, net, crowns=crown_head is not None)
    evaluations = _write_model(config, net, card, train, test, crown_head)
    shipped = OnnxSquareClassifier.load(config.out)
    first = test.subset(slice(50))  # the speed figure's batch
    load_start = time.perf_counter()
    OnnxSquareClassifier.load(config.out)
    load_s = time.perf_counter() - load_start
    card.update(
        {
            "data": _data_record(config, train, test),
            "command": "python -m models.train " + " ".join(sys.argv[1:]),
            "seed": config.seed,
            "init": None if config.init is None else str(config.init),
            "training": {
                **train_stats,
                **_training_record(config, net),
                "data_seconds": round(data_s, 1),
            },
            "metrics": evaluations,
            "size_bytes": config.out.stat().st_size,
            "speed": {
                "ms_50_crops_one_thread": latency_ms(shipped, first.crops, first.views),
                "load_seconds": load_s,
                "machine": platform.processor() or platform.machine(),
            },
            "torch": torch.__version__,
        }
    )
    if config.source == "synth":
        card["real_photos"] = card_photo_figures(shipped)
    card_path(config.out).write_text(json.dumps(card, indent=1) + "\n")
    return card


def training_sets(config: TrainConfig) -> tuple[SquareSet, SquareSet]:
    """The run's training and test sets, rendered (or read from the cache) alike: only
    the count, the seed and near-nadir differ."""
    part_count = config.train_count // config.train_parts
    boards = Boards(crowns=config.crowns, tallest=config.tallest, family=config.family)
    rendered = partial(
        cached_set,
        config.source,
        size=config.size,
        cache=config.cache,
        window=config.window,
        boards=boards,
    )
    train = SquareSet.concat(
        [rendered(part_count, seed=config.seed + k) for k in range(config.train_parts)]
        + [
            rendered(part_count, seed=config.seed + 500 + k, boards=replace(boards, nadir=True))
            for k in range(config.nadir_parts)
        ]
    )
    return train, rendered(config.test_count, seed=config.seed + 1000)


def _interface(config: TrainConfig, net: SquareNet, *, crowns: bool) -> dict[str, object]:
    """The card's part that code reads the file by: classes, input, window, outputs
    (``crowns``: the crown head's too)."""
    outputs = ["top_logits (N, 5)", "height_logits (N, 9)", "features (N, 64)"]
    return {
        "model": config.out.name,
        "classes": [t.name for t in Top],
        "height_classes": "0..8 discs (0 = empty square, 8 = eight or more)",
        "input_size": [config.size, config.size],
        "input": "crops (N, 3, H, W) float32 BGR from vision.rectify.square_crops with "
        "window=crop_window, x / 127.5 - 1"
        + ("; views (N, 1) float32 from vision.camera.view_tangents" if config.views else ""),
        "crop_window": WINDOWS[config.window].as_dict(),
        "normalisation": {"scale": 1 / 127.5, "offset": -1.0, "channel_order": "BGR"},
        "outputs": outputs + ([f"{CROWN_OUTPUT} (N, 1)"] if crowns else []),
        "colour": "the lighter piece colour is WHITE; per-set calibration may say otherwise",
        "parameters": parameter_count(net),
    }


def _write_model(
    config: TrainConfig,
    net: SquareNet,
    card: dict[str, object],
    train: SquareSet,
    test: SquareSet,
    crown_head: nn.Linear | None,
) -> dict[str, object]:
    """Export ``net`` to ONNX, quantise it to int8 (static, calibrated on a thousandth of
    ``train``), keep int8 where its held-out error is within ``int8_tolerance`` of fp32's
    (always, with bounded weights: they were trained for it), add the crown head's
    output, and write the file and ``card`` (its precision added) at ``config.out``.
    Returns the held-out metrics."""
    fp32_path = config.out.with_suffix(".fp32.onnx")
    int8_path = config.out.with_suffix(".int8.onnx")
    top_limit = top_limit_px(config.size, WINDOWS[config.window])
    export_onnx(net, fp32_path, config.size)
    card_path(fp32_path).write_text(json.dumps(card))
    fp32_eval = evaluate(OnnxSquareClassifier.load(fp32_path), test, top_limit_px=top_limit)
    calibration = train.subset(slice(None, None, max(len(train) // 1000, 1)))
    quantise(
        fp32_path,
        int8_path,
        calibration.crops,
        calibration.views if config.views else None,
        bounded=config.bounded_weights,
    )
    card_path(int8_path).write_text(json.dumps(card))
    int8_eval = evaluate(OnnxSquareClassifier.load(int8_path), test, top_limit_px=top_limit)
    use_int8 = config.bounded_weights or (
        int8_eval.top_error_rate <= fp32_eval.top_error_rate + config.int8_tolerance
    )
    chosen_path, chosen_eval = (int8_path, int8_eval) if use_int8 else (fp32_path, fp32_eval)
    chosen_path.replace(config.out)
    for leftover in (fp32_path, int8_path, card_path(fp32_path), card_path(int8_path)):
        leftover.unlink(missing_ok=True)
    if crown_head is not None:  # the head reads the features, as a fitted probe would
        weights = crown_head.weight.detach().numpy()[0]
        bias = float(crown_head.bias.detach()[0])
        onnx.save(with_crown_output(onnx.load(str(config.out)), weights, bias), config.out)
    card["precision"] = (
        "fp32 (int8 lost accuracy)"
        if not use_int8
        else "int8 (static QDQ, per-channel, weights within ±64)"
        if config.bounded_weights
        else "int8 (static QDQ, per-channel)"
    )
    card_path(config.out).write_text(json.dumps(card))
    return {
        "held_out": chosen_eval.as_dict(),
        "fp32_top_error_rate": fp32_eval.top_error_rate,
        "int8_top_error_rate": int8_eval.top_error_rate,
    }


def _data_record(config: TrainConfig, train: SquareSet, test: SquareSet) -> dict[str, object]:
    """The card's account of the data: sources, seeds, kings, augmentation."""
    return {
        "source": config.source,
        "family": config.family,
        "train_squares": len(train),
        "test_squares": len(test),
        "train_seeds": [config.seed + k for k in range(config.train_parts)],
        "nadir_seeds": [config.seed + 500 + k for k in range(config.nadir_parts)],
        "test_seed": config.seed + 1000,
        "kings": "two stacked discs (draughts), striped (column games); on "
        f"{config.crowns:.0%} of draughts boards one crowned disc, men 1-"
        f"{config.tallest:g} discs tall, its crown sticker {STICKER_RADII[0]:g}-"
        f"{STICKER_RADII[1]:g} of the "
        "top's radius, inked dark to light",
        "augmentation": "left-right mirror, shift/rotate/scale, colour jitter, glare, "
        "edge occlusion, "
        "blur, noise, JPEG",
    }


def _training_record(config: TrainConfig, net: SquareNet) -> dict[str, object]:
    """The card's account of how the net was trained: budget, weights, shape, teacher."""
    return {
        "minutes": config.minutes,
        "threads": config.threads,
        "learning_rate": config.learning_rate,
        "height_weight": config.height_weight,
        "tower_weight": config.tower_weight,
        "piece_weight": config.piece_weight,
        "nadir_parts": config.nadir_parts,
        "crowns": config.crowns,
        "tallest": config.tallest,
        "views": config.views,
        "fine_convs": net.fine_convs,
        "stem_stride": net.stem_stride,
        "stem_channels": net.stem_channels,
        "second_stride": net.second_stride,
        "bounded_weights": config.bounded_weights,
        "distil": None
        if config.distil is None
        else {
            "teacher": str(config.distil),
            "colour_weight": config.distil_weight,
            "feature_weight": config.distil_features,
            "reading_weight": config.distil_readings,
            "photo_weight": config.distil_photos,
            "photo_batch": config.photo_batch,
            "photo_mining": config.photo_mining,
            "crown_weight": config.distil_crowns,
        },
    }


def parse_args(argv: list[str] | None = None, prog: str = "python -m models.train") -> TrainConfig:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    defaults = TrainConfig()
    parser.add_argument("--source", choices=["synth", "procedural"], default=defaults.source)
    parser.add_argument("--train-count", type=int, default=defaults.train_count)
    parser.add_argument("--train-parts", type=int, default=defaults.train_parts)
    parser.add_argument("--test-count", type=int, default=defaults.test_count)
    parser.add_argument("--size", type=int, default=defaults.size)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--window", choices=sorted(WINDOWS), default=defaults.window)
    parser.add_argument("--minutes", type=float, default=defaults.minutes)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--out", type=Path, default=defaults.out)
    parser.add_argument("--cache", type=Path, default=defaults.cache)
    parser.add_argument(
        "--init", type=Path, default=None, help="torch checkpoint or .onnx model to start from"
    )
    parser.add_argument(
        "--family", choices=FAMILIES, default=defaults.family,
        help="render these variants only: a kings model of one family",
    )  # fmt: skip
    parser.add_argument("--crowns", type=float, default=defaults.crowns)
    parser.add_argument("--tallest", type=float, default=defaults.tallest)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--height-weight", type=float, default=defaults.height_weight)
    parser.add_argument("--tower-weight", type=float, default=defaults.tower_weight)
    parser.add_argument("--piece-weight", type=float, default=defaults.piece_weight)
    parser.add_argument(
        "--nadir-parts", type=int, default=defaults.nadir_parts,
        help="extra parts of near-nadir draughts boards (stacked kings seen from above)",
    )  # fmt: skip
    parser.add_argument(
        "--views", action="store_true",
        help="read each cell's view tangent beside its crop (a kings model)",
    )  # fmt: skip
    parser.add_argument(
        "--distil", type=Path, default=None,
        help="teacher .onnx model: keep its colours (and features) while fine-tuning",
    )  # fmt: skip
    parser.add_argument(
        "--distil-weight", type=float, default=defaults.distil_weight,
        help="weight of the teacher's empty/White/Black distribution (KL), with --distil",
    )  # fmt: skip
    parser.add_argument(
        "--distil-features", type=float, default=defaults.distil_features,
        help="weight of the features' cosine distance to the teacher's, with --distil",
    )  # fmt: skip
    parser.add_argument(
        "--distil-readings", type=float, default=defaults.distil_readings,
        help="weight of the teacher's whole top and height distributions (KL), with --distil",
    )  # fmt: skip
    parser.add_argument(
        "--distil-photos", type=float, default=defaults.distil_photos,
        help="weight of the same terms on cells of unlabelled real photos, with --distil",
    )  # fmt: skip
    parser.add_argument("--photo-batch", type=int, default=defaults.photo_batch)
    parser.add_argument(
        "--photo-mining", type=float, default=defaults.photo_mining,
        help="draw the photo cells the student reads furthest from its teacher more often: "
        "the power of each cell's disagreement (0: alike)",
    )  # fmt: skip
    parser.add_argument(
        "--distil-crowns", type=float, default=defaults.distil_crowns,
        help="weight of the teacher's crown log-odds (KL), learnt by a crown head written "
        "into the file, with --distil from a file with a crown probe",
    )  # fmt: skip
    parser.add_argument("--photos", type=Path, default=defaults.photos, help="../shared/data")
    parser.add_argument(
        "--fine-convs", type=int, default=defaults.fine_convs,
        help="convolutions at full resolution (more than --init has start as identities)",
    )  # fmt: skip
    parser.add_argument(
        "--stem-stride", type=int, choices=(1, 2), default=defaults.stem_stride,
        help="the first convolution's stride: 2 for a coarse main file, a quarter of the cost"
        " (default: an --init .onnx file's, else 1)",
    )  # fmt: skip
    parser.add_argument(
        "--stem-channels", type=int, default=defaults.stem_channels,
        help="the first convolution's channels (32: the wide coarse main file)",
    )  # fmt: skip
    parser.add_argument(
        "--second-stride", type=int, choices=(1, 2), default=defaults.second_stride,
        help="the second block's first convolution's stride: 2 for a kings model a third"
        " the cost, its first convolution still at full resolution (default: as --stem-stride)",
    )  # fmt: skip
    parser.add_argument(
        "--bounded-weights", action="store_true",
        help="train and write int8 weights within 64 steps a channel: exact on AVX2's fast path",
    )  # fmt: skip
    ns = parser.parse_args(argv)
    return TrainConfig(
        source=ns.source, train_count=ns.train_count, train_parts=ns.train_parts,
        test_count=ns.test_count, size=ns.size, window=ns.window, seed=ns.seed, minutes=ns.minutes,
        threads=ns.threads, out=ns.out, cache=ns.cache, init=ns.init,
        learning_rate=ns.learning_rate, height_weight=ns.height_weight,
        tower_weight=ns.tower_weight, crowns=ns.crowns, tallest=ns.tallest,
        piece_weight=ns.piece_weight, nadir_parts=ns.nadir_parts, distil=ns.distil,
        distil_weight=ns.distil_weight, distil_features=ns.distil_features,
        distil_readings=ns.distil_readings, distil_photos=ns.distil_photos,
        photo_batch=ns.photo_batch, photo_mining=ns.photo_mining, distil_crowns=ns.distil_crowns,
        photos=ns.photos, views=ns.views,
        fine_convs=ns.fine_convs, family=ns.family, stem_stride=ns.stem_stride,
        stem_channels=ns.stem_channels, second_stride=ns.second_stride,
        bounded_weights=ns.bounded_weights,
    )  # fmt: skip


def main(argv: list[str] | None = None, prog: str = "python -m models.train") -> None:
    config = parse_args(argv, prog)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    card = run(config)
    print(json.dumps({"metrics": card["metrics"], "speed": card["speed"]}))


if __name__ == "__main__":
    main()

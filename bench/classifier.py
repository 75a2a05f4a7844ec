"""Square classifier bench: ``python -m bench.classifier [--squares N] [--seed S]``.

Prints JSON lines: one for held-out synth renders (per-square top error, stack height
accuracy on towers, confusion matrix, and the same where the side band is visible), one
for each set of hand-labelled real photos (``"set"``: the damas set's tall men, flat
stickers from above; model and colour prototypes, each without and with calibration from
a start photo of the same session; skipped when ../shared/data is absent), one for
renders read after adaptation from a start render of the same set (as the live path
reads; colour prototypes alone and weighed with the head), the same for sets of tall
crowned men, one for column towers up to the full tower (counted from
crops and from band strips, and the tops of those taller than the crop), and one for
speed (load time, one batched call on 50 crops with one intra-op thread, as for all
squares of a 10x10 board; wall and CPU time; the same call on a rendered 10x10 start
position, adapted from it as the live loop reads; the labelled photos' 8x8 boards read
so, adapted from a start photo of their session, where ../shared/data is there; and
where the card names a tower reader, its call on the 32 band strips of an 8x8 board;
the CPU's name, and the files whose weights are read as uint8 there, where its int8
kernels saturate and a file's weights lie outside the pair bound: models.exact_int8).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from models.adapted_renders import adapted_render_figures, rendered_start
from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier
from models.dataset import FULL_TOWER, Boards, cached_set, top_limit_px, window_name
from models.exact_int8 import cpu_name, reads_as_uint8
from models.export import evaluate, latency_ms, median_ms
from models.labelled_photos import PHOTOS, SHARED_DATA, calibrated_boards, card_photo_figures
from models.tall_towers import tall_tower_figures
from rules import find_variant


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.classifier", description=__doc__)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--squares", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1007, help="render seed, unseen in training")
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="../shared/data")
    parser.add_argument(
        "--crowns", type=float, default=0.0, help="share of boards with crowned kings on tall men"
    )
    parser.add_argument(
        "--adapted-sets", type=int, default=40, help="rendered sets read after adaptation"
    )
    parser.add_argument(
        "--tall-squares", type=int, default=4000, help="column squares, towers to the full height"
    )
    ns = parser.parse_args(argv)

    start = time.perf_counter()
    classifier = OnnxSquareClassifier.load(ns.model)
    load_s = time.perf_counter() - start
    size = classifier.crop_size[0]
    window = window_name(classifier.window)
    towers = classifier.tower_reader
    data = cached_set(
        "synth",
        ns.squares,
        seed=ns.seed,
        size=size,
        window=window,
        # column games' heights come from band strips where a tower reader reads them
        boards=Boards(crowns=ns.crowns, strips=towers is not None),
    )
    result = evaluate(classifier, data, top_limit_px=top_limit_px(size, classifier.window))
    print(
        json.dumps(
            {
                "bench": "classifier.held_out_renders",
                "model": ns.model.name,
                "seed": ns.seed,
                "crowns": ns.crowns,
                **result.as_dict(),
                "per_square_error_pct": 100 * result.top_error_rate,
                "tower_height_exact_pct": 100 * result.tower_height_accuracy,
                "target_error_pct": 0.05,
                "target_height_pct": 99.5,
            }
        )
    )
    for name, photo_figures in card_photo_figures(classifier, ns.data).items():
        print(
            json.dumps(
                {
                    "bench": "classifier.labelled_photos",
                    "model": ns.model.name,
                    "set": name,
                    **photo_figures,
                    "target_calibrated_pct": 99.5,
                }
            )
        )
    # Then sets whose draughts kings are crowned men one to four discs tall, as the
    # labelled photos' set: adaptation must measure the men's height.
    for bench, crowns in (("adapted_renders", 0.0), ("adapted_crowned_renders", 1.0)):
        if ns.adapted_sets > 0:
            figures = adapted_render_figures(classifier, sets=ns.adapted_sets, crowns=crowns)
            print(
                json.dumps(
                    {
                        "bench": f"classifier.{bench}",
                        "model": ns.model.name,
                        "sets": ns.adapted_sets,
                        "positions_per_set": 3,
                        "crowns": crowns,
                        **figures,
                    }
                )
            )
    if towers is not None and ns.tall_squares > 0:
        tall_boards = Boards(family="columns", strips=True, tower_limit=FULL_TOWER)
        tall = cached_set(
            "synth", ns.tall_squares, seed=ns.seed + 1, size=size, window=window, boards=tall_boards
        )
        print(
            json.dumps(
                {
                    "bench": "classifier.tall_towers",
                    "model": ns.model.name,
                    "seed": ns.seed + 1,
                    **tall_tower_figures(classifier, tall),
                    "target_height_pct": 99.5,
                }
            )
        )
    first = data.subset(slice(50))
    cpu_start = time.process_time()
    wall_ms = latency_ms(classifier, first.crops, first.views)
    cpu_ms = (time.process_time() - cpu_start) * 1000 / 31  # latency_ms makes 31 calls
    tower_ms = None
    if towers is not None and data.strips is not None and data.views is not None:
        # A column game's 8x8 board: its 32 squares' strips in one call (beside the crops).
        strips, views = data.strips[:32], data.views[:32]
        tower_ms = median_ms(lambda: towers.read(strips, views))
    # A board as the live loop reads it: the 50 squares of an international start
    # position (40 pieces, the most a 10x10 board holds), adapted from that frame.
    board = rendered_start(classifier, find_variant("international"), ns.seed)
    crops, _, views = board.start
    adapted = board.adapted(classifier)
    board_ms = median_ms(lambda: adapted.run(crops, views))
    # Real boards: every labelled photo's 8x8 board (32 squares) as the live loop reads it,
    # adapted from a start photo of its session; real pieces leave the kings models more
    # open than renders do, and an open reading costs a second look.
    photo_ms = None
    if (ns.data / PHOTOS).is_dir():
        boards = calibrated_boards(classifier, ns.data)

        def read_boards() -> None:
            for reader, board_crops, board_views in boards:
                reader.run(board_crops, board_views)

        photo_ms = median_ms(read_boards, repeats=9) / len(boards)
    print(
        json.dumps(
            {
                "bench": "classifier.speed",
                "model": ns.model.name,
                "cpu": cpu_name(),
                "files_read_as_uint8": [
                    f.name for f in classifier.model_files() if reads_as_uint8(f)
                ],
                "size_bytes": sum(f.stat().st_size for f in classifier.model_files()),
                "load_s": load_s,
                "ms_per_50_crops_one_thread": wall_ms,
                "cpu_ms_per_50_crops": cpu_ms,
                "ms_per_10x10_start_position_adapted": board_ms,
                **({} if photo_ms is None else {"ms_per_8x8_labelled_photo_adapted": photo_ms}),
                **({} if towers is None else {"ms_per_32_strips_one_thread": tower_ms}),
                "target_ms": 15.0,
                "target_load_s": 1.0,
            }
        )
    )


if __name__ == "__main__":
    main()

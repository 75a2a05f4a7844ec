"""Vision benchmark: board localisation on the real photos, and time per frame.

Prints JSON lines: markerless corner error on the 171 labelled chess photos (fraction of
a square side), ArUco success on the damas photos, and milliseconds per 1280x960 frame
for tracking versus fresh detection (locate + rectify + crops), on one thread.

    python -m bench.vision [--data ../shared/data] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from rules import find_variant
from rules.position import Position
from vision.board_spec import MarkerBoardSpec
from vision.locate import (
    BoardLocation,
    Image,
    LocateResult,
    locate_markerless,
    order_clockwise_from_top_left,
)
from vision.observe import locate
from vision.orient import checker_contrast
from vision.rectify import square_crops, warp_board
from vision.tracker import BoardTracker

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RUSSIAN = find_variant("russian")
#: A middlegame with few pieces, where more of the grid shows (markerless timing).
MIDGAME = "W:Wc3,e3,g3,d2:Bb6,d6,f6,h6"


def chess_corners(data: Path, limit: int | None) -> dict[str, object]:
    root = data / "photos/chess-8x8-corners/corners_labeled"
    photos = sorted(root.glob("*/images/*.jpg"))[:limit]
    errors, times = [], []
    for photo in photos:
        image = np.asarray(cv2.imread(str(photo)), np.uint8)
        rows = (photo.parent.parent / "labels" / (photo.stem + ".txt")).read_text().split("\n")
        h, w = image.shape[:2]
        truth = np.array(
            [[float(r.split()[1]) * w, float(r.split()[2]) * h] for r in rows if r.strip()]
        )
        truth = order_clockwise_from_top_left(truth)
        start = time.perf_counter()
        found = locate_markerless(image, 8)
        times.append(time.perf_counter() - start)
        if isinstance(found, BoardLocation):
            side = np.linalg.norm(np.diff(np.vstack([truth, truth[:1]]), axis=0), axis=1).mean() / 8
            errors.append(
                float(np.linalg.norm(found.image_corners_clockwise() - truth, axis=1).max() / side)
            )
    within = [e for e in errors if e < 0.5]
    return {
        "bench": "vision.chess_corners",
        "photos": len(photos),
        "found_share": round(len(errors) / len(photos), 3),
        "within_half_square_share": round(len(within) / len(photos), 3),
        "median_corner_error_squares": round(statistics.median(errors), 3) if errors else None,
        "median_ms_2048x1371": round(1000 * statistics.median(times), 1),
    }


def damas_aruco(data: Path, limit: int | None) -> dict[str, object]:
    root = data / "photos/checkers-8x8-aruco-damas"
    photos = sorted(p for p in root.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))[
        :limit
    ]
    spec = MarkerBoardSpec(dictionary=cv2.aruco.DICT_ARUCO_ORIGINAL)
    read = located = alternating = 0
    for photo in photos:
        loaded = cv2.imread(str(photo))
        if loaded is None:
            continue
        image = np.asarray(loaded, np.uint8)
        read += 1
        found = locate(image, 8, spec)
        if isinstance(found, BoardLocation) and found.method.startswith("aruco"):
            located += 1
            alternating += checker_contrast(image, found) > 0.6
    return {
        "bench": "vision.damas_aruco",
        "photos": read,
        "aruco_located": located,
        "aruco_located_share": round(located / read, 3),
        "grid_verified": alternating,
    }


def per_frame_ms(run: Callable[[], object], repeats: int) -> float:
    run()
    start = time.perf_counter()
    for _ in range(repeats):
        run()
    return round(1000 * (time.perf_counter() - start) / repeats, 2)


def frame_speed(markers: MarkerBoardSpec | None, fen: str, repeats: int) -> dict[str, object]:
    """Fresh detection versus tracking on one rendered 1280x960 frame."""
    image = synthetic_frame(fen)

    def locator(frame: Image) -> LocateResult:
        return locate(frame, 8, markers)

    tracker = BoardTracker(locator)
    found = locator(image)
    return {
        "bench": "vision.frame_ms",
        "locator": "aruco" if markers else "markerless",
        "frame": "1280x960 synth render, 30 degree tilt",
        "fen": fen,
        "located": isinstance(found, BoardLocation),
        "fresh_ms": per_frame_ms(lambda: rectify(image, locator(image)), repeats),
        "tracking_ms": per_frame_ms(lambda: rectify(image, tracker.update(image)), repeats * 5),
        "targets_ms": {"fresh": 100, "tracking": 10},
    }


def rectify(image: Image, found: object) -> object:
    if not isinstance(found, BoardLocation):
        return found
    return warp_board(image, found, px_per_square=16), square_crops(image, found, RUSSIAN.geometry)


def synthetic_frame(fen: str) -> Image:
    from synth.render import render_position
    from synth.scene import Style

    style = Style(seed=2, variant="russian", markers=True, tilt_deg=30.0, border_mm=32.0)
    return render_position(Position.from_fen(RUSSIAN, fen), style, (1280, 960)).image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--quick", action="store_true", help="20 photos of each set, fewer repeats")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    limit = 20 if args.quick else None
    for line in (chess_corners(args.data, limit), damas_aruco(args.data, limit)):
        print(json.dumps(line), flush=True)
    repeats = 3 if args.quick else 10
    start = Position.initial(RUSSIAN).fen()
    for markers, fen in ((MarkerBoardSpec(), start), (None, start), (None, MIDGAME)):
        print(json.dumps(frame_speed(markers, fen, repeats)), flush=True)


if __name__ == "__main__":
    main()

"""Vision benchmark: board localisation on the real photos, and time per frame.

Prints JSON lines:

- ``vision.chess_corners``: the markerless locator on the 171 labelled chess photos: share
  found, corner error as a fraction of a square side (mean of the four corners and the
  worst corner; median and p95), milliseconds per 2048x1371 photo;
- ``vision.damas``: the 8x8 damas photos with ArUco markers: boards located by their
  markers, of those how many the markerless grid finds at the same place (the grid fit),
  and how many the markerless locator finds on its own;
- ``vision.frame_ms``: milliseconds per 1280x960 frame, one thread, locate + rectify (top-down
  board and square crops): fresh markerless and fresh ArUco detection on synth renders and
  on real photos scaled to 1280x960, tracking (a still board, and a hand over it), and
  undistorting a frame;
- ``vision.observe_ms``: the whole live step per 1280x960 frame (``Observer.observe``:
  tracking, camera model, gate, crops, prototype classifier), fresh and tracking;
- ``vision.synth_markerless``: the markerless locator on random synth renders with truth.

Other vision benches: ``bench.camera`` (stack tops without intrinsics), ``bench.occlusion``
(the gate on rendered games), ``bench.calibration`` (start-position calibration).

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
from vision.camera import Intrinsics, Undistorter
from vision.locate import (
    BoardLocation,
    FloatArray,
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
CHESS = "photos/chess-8x8-corners/corners_labeled"
DAMAS = "photos/checkers-8x8-aruco-damas"
#: A middlegame with few pieces, where more of the grid shows.
MIDGAME = "W:Wc3,e3,g3,d2:Bb6,d6,f6,h6"


def chess_photos(data: Path, limit: int | None) -> list[tuple[Path, FloatArray]]:
    """Labelled chess photos and their four grid corners (image TL first, clockwise)."""
    photos = sorted((data / CHESS).glob("*/images/*.jpg"))[:limit]
    labelled = []
    for photo in photos:
        width, height = _image_size(photo)
        label = photo.parent.parent / "labels" / (photo.stem + ".txt")
        rows = [r.split() for r in label.read_text().splitlines() if r.strip()]
        truth = np.array([[float(r[1]) * width, float(r[2]) * height] for r in rows])
        labelled.append((photo, order_clockwise_from_top_left(truth)))
    return labelled


def _image_size(photo: Path) -> tuple[int, int]:
    image = cv2.imread(str(photo))
    if image is None:
        raise ValueError(f"{photo}: unreadable image")
    return image.shape[1], image.shape[0]


def corner_errors(found: BoardLocation, truth: FloatArray) -> FloatArray:
    """Distance of each found corner from the labelled one, in square sides."""
    side = np.linalg.norm(np.diff(np.vstack([truth, truth[:1]]), axis=0), axis=1).mean()
    return np.asarray(
        np.linalg.norm(found.image_corners_clockwise() - truth, axis=1) / (side / found.size),
        np.float64,
    )


def _stats(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    return round(statistics.median(values), 3), round(float(np.percentile(values, 95)), 3)


def chess_corners(data: Path, limit: int | None) -> dict[str, object]:
    labelled = chess_photos(data, limit)
    mean_errors, worst_errors, times = [], [], []
    for photo, truth in labelled:
        image = np.asarray(cv2.imread(str(photo)), np.uint8)
        start = time.perf_counter()
        found = locate_markerless(image, 8)
        times.append(time.perf_counter() - start)
        if isinstance(found, BoardLocation):
            errors = corner_errors(found, truth)
            mean_errors.append(float(errors.mean()))
            worst_errors.append(float(errors.max()))
    n = max(len(labelled), 1)
    mean_median, mean_p95 = _stats(mean_errors)
    worst_median, worst_p95 = _stats(worst_errors)
    return {
        "bench": "vision.chess_corners",
        "photos": len(labelled),
        "found_share": round(len(worst_errors) / n, 3),
        "within_half_square_share": round(sum(e < 0.5 for e in worst_errors) / n, 3),
        "corner_error_squares_median": mean_median,
        "corner_error_squares_p95": mean_p95,
        "worst_corner_error_squares_median": worst_median,
        "worst_corner_error_squares_p95": worst_p95,
        "ms_2048x1371_median": round(1000 * statistics.median(times), 1) if times else None,
        "ms_2048x1371_p95": round(1000 * float(np.percentile(times, 95)), 1) if times else None,
    }


def damas(data: Path, limit: int | None) -> dict[str, object]:
    """ArUco and markerless on the damas photos; where both find the board, how far the
    markerless grid's corners lie from the marker-located grid's."""
    root = data / DAMAS
    photos = sorted(p for p in root.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    photos = photos[:limit]
    spec = MarkerBoardSpec(dictionary=cv2.aruco.DICT_ARUCO_ORIGINAL)
    read = located = verified = grid_found = agree = 0
    gaps: list[float] = []
    for photo in photos:
        loaded = cv2.imread(str(photo))
        if loaded is None:
            continue
        image = np.asarray(loaded, np.uint8)
        read += 1
        by_markers = locate(image, 8, spec)
        by_grid = locate_markerless(image, 8)
        grid_found += isinstance(by_grid, BoardLocation)
        if not (isinstance(by_markers, BoardLocation) and by_markers.method.startswith("aruco")):
            continue
        located += 1
        verified += checker_contrast(image, by_markers) > 0.6
        if isinstance(by_grid, BoardLocation):
            gap = float(corner_errors(by_grid, by_markers.image_corners_clockwise()).max())
            gaps.append(gap)
            agree += gap < 0.25
    n = max(read, 1)
    return {
        "bench": "vision.damas",
        "photos": read,
        "aruco_located": located,
        "aruco_located_share": round(located / n, 3),
        "aruco_grid_verified": verified,
        "markerless_found": grid_found,
        "markerless_found_share": round(grid_found / n, 3),
        "markerless_agrees_with_aruco": agree,
        "markerless_vs_aruco_corner_gap_squares_median": _stats(gaps)[0],
    }


def per_frame_ms(run: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall milliseconds per call, and mean CPU milliseconds of this process (less
    swayed by other jobs on a shared machine)."""
    run()
    times = []
    cpu_start = time.process_time()
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    cpu = (time.process_time() - cpu_start) / repeats
    return round(1000 * statistics.median(times), 2), round(1000 * cpu, 2)


def _timed(line: dict[str, object], name: str, run: Callable[[], object], repeats: int) -> None:
    line[f"{name}_ms"], line[f"{name}_cpu_ms"] = per_frame_ms(run, repeats)


def rectify(image: Image, found: LocateResult) -> object:
    if not isinstance(found, BoardLocation):
        return found
    return warp_board(image, found, px_per_square=16), square_crops(image, found, RUSSIAN.geometry)


def with_hand(image: Image, found: BoardLocation) -> Image:
    """The frame with a skin-coloured forearm reaching over a quarter of the board."""
    covered = image.copy()
    n = found.size
    arm = found.to_image(np.array([[-2.0, n * 0.3], [n * 0.35, n * 0.45], [-2.0, n * 0.7]]))
    cv2.fillPoly(covered, [arm.astype(np.int32)], (120, 150, 205))
    return covered


def frame_speed(
    name: str, image: Image, markers: MarkerBoardSpec | None, repeats: int
) -> dict[str, object]:
    """Fresh detection versus tracking on one 1280x960 frame (locate + rectify)."""

    def locator(frame: Image) -> LocateResult:
        return locate(frame, 8, markers)

    found = locator(image)
    line: dict[str, object] = {
        "bench": "vision.frame_ms",
        "frame": name,
        "locator": "aruco" if markers else "markerless",
        "located": isinstance(found, BoardLocation),
        "threads": 1,
    }
    _timed(line, "fresh", lambda: rectify(image, locator(image)), repeats)
    if isinstance(found, BoardLocation):
        tracker = BoardTracker(locator)
        tracker.update(image)
        hand = with_hand(image, found)
        _timed(line, "tracking", lambda: rectify(image, tracker.update(image)), repeats)
        _timed(line, "tracking_hand", lambda: rectify(hand, tracker.update(hand)), repeats)
        line["redetections"] = tracker.redetections
    line["targets_ms"] = {"fresh": 100, "tracking": 10}
    return line


def observer_speed(name: str, image: Image, repeats: int) -> dict[str, object]:
    """The whole live step per 1280x960 frame (``Observer.observe``: track, camera model,
    top-down board, occlusion gate, 32 crops, prototype classifier), one thread."""
    from vision.observe import Observer, ObserverConfig, Registration
    from vision.prototype import ColourPrototypes, PrototypeClassifier

    prototypes = ColourPrototypes((120, 128, 128), (220, 128, 128), (30, 128, 128))

    def observer() -> Observer:
        classifier = PrototypeClassifier(prototypes)
        return Observer(ObserverConfig(markers=None), RUSSIAN, Registration(), classifier)

    line: dict[str, object] = {"bench": "vision.observe_ms", "frame": name, "threads": 1}
    _timed(line, "fresh", lambda: observer().observe(image, 0.0), repeats)
    live = observer()
    live.observe(image, 0.0)
    _timed(line, "tracking", lambda: live.observe(image, 0.0), repeats)
    found = locate_markerless(image, 8)
    if isinstance(found, BoardLocation):
        hand = with_hand(image, found)
        _timed(line, "tracking_hand", lambda: live.observe(hand, 0.0), repeats)
    line["targets_ms"] = {"fresh": 100, "tracking": 10}
    return line


def real_frames_speed(data: Path, count: int) -> dict[str, object]:
    """Fresh markerless detection + rectify on chess photos scaled to 1280x960."""
    times: list[float] = []
    cpu: list[float] = []
    found = 0
    for photo, _ in chess_photos(data, None)[:: max(1, 171 // count)][:count]:
        photo_image = np.asarray(cv2.imread(str(photo)), np.uint8)
        image = np.asarray(cv2.resize(photo_image, (1280, 960)), np.uint8)
        start, cpu_start = time.perf_counter(), time.process_time()
        result = locate_markerless(image, 8)
        rectify(image, result)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
        found += isinstance(result, BoardLocation)
    return {
        "bench": "vision.frame_ms",
        "frame": f"{len(times)} labelled chess photos scaled to 1280x960",
        "locator": "markerless",
        "located": found,
        "threads": 1,
        "fresh_ms_median": round(1000 * statistics.median(times), 1),
        "fresh_ms_p95": round(1000 * float(np.percentile(times, 95)), 1),
        "fresh_cpu_ms_median": round(1000 * statistics.median(cpu), 1),
        "fresh_cpu_ms_p95": round(1000 * float(np.percentile(cpu, 95)), 1),
        "targets_ms": {"fresh": 100},
    }


def synth_markerless(count: int) -> dict[str, object]:
    """The markerless locator on random synth styles (``Style.random``: 7x7/8x8/10x10,
    tilt to 35 degrees, boards, light, noise, hands in 30 %, lens distortion in 35 %)."""
    from synth.render import Renderer
    from synth.scene import Style

    names = ("russian", "international", "lasca", "italian", "english")
    worst: list[float] = []
    missed: dict[str, int] = {}
    with_hands = hands_found = 0
    with Renderer((1280, 960)) as renderer:
        for seed in range(count):
            variant = find_variant(names[seed % len(names)])
            style = Style.random(seed, variant)
            rendered = renderer.render(Position.initial(variant), style)
            found = locate_markerless(rendered.image, variant.size)
            with_hands += style.hand is not None
            if isinstance(found, BoardLocation):
                hands_found += style.hand is not None
                worst.append(float(corner_errors(found, np.array(rendered.truth["corners"])).max()))
            else:
                reason = found.reason.split(":")[0]
                missed[reason] = missed.get(reason, 0) + 1
    median, p95 = _stats(worst)
    return {
        "bench": "vision.synth_markerless",
        "renders": count,
        "found_share": round(len(worst) / count, 3),
        "with_hand": with_hands,
        "with_hand_found": hands_found,
        "worst_corner_error_squares_median": median,
        "worst_corner_error_squares_p95": p95,
        "not_found": missed,
    }


def undistort_speed(repeats: int) -> dict[str, object]:
    """Undistorting a 1280x960 frame (when a calibration has intrinsics), one thread."""
    matrix = np.array([[1000.0, 0, 640], [0, 1000.0, 480], [0, 0, 1]])
    undistort = Undistorter(Intrinsics(matrix, np.array([-0.2, 0.05, 0, 0, 0]), (1280, 960)))
    frame = np.zeros((960, 1280, 3), np.uint8)
    line: dict[str, object] = {
        "bench": "vision.frame_ms",
        "frame": "1280x960",
        "step": "undistort (cv2.remap, maps cached)",
        "threads": 1,
    }
    _timed(line, "undistort", lambda: undistort(frame), repeats)
    return line


def synthetic_frame(fen: str, markers: bool) -> Image:
    from synth.render import render_position
    from synth.scene import Style

    style = Style(seed=2, variant="russian", markers=markers, tilt_deg=30.0, border_mm=32.0)
    return render_position(Position.from_fen(RUSSIAN, fen), style, (1280, 960)).image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--quick", action="store_true", help="20 photos of each set, fewer repeats")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    limit = 20 if args.quick else None
    repeats = 5 if args.quick else 20
    start = Position.initial(RUSSIAN).fen()
    frames = (
        ("synth render 30 deg, start, markers", synthetic_frame(start, True), MarkerBoardSpec()),
        ("synth render 30 deg, start", synthetic_frame(start, False), None),
        ("synth render 30 deg, middlegame", synthetic_frame(MIDGAME, False), None),
    )
    for name, image, markers in frames:
        print(json.dumps(frame_speed(name, image, markers, repeats)), flush=True)
    print(json.dumps(observer_speed(frames[1][0], frames[1][1], repeats)), flush=True)
    print(json.dumps(undistort_speed(repeats)), flush=True)
    print(json.dumps(synth_markerless(10 if args.quick else 60)), flush=True)
    if not (args.data / CHESS).is_dir():
        print(json.dumps({"bench": "vision", "skipped": f"no photos under {args.data}"}))
        return
    print(json.dumps(real_frames_speed(args.data, 10 if args.quick else 40)), flush=True)
    print(json.dumps(chess_corners(args.data, limit)), flush=True)
    print(json.dumps(damas(args.data, limit)), flush=True)


if __name__ == "__main__":
    main()

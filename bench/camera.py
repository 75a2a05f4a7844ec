"""The camera model without intrinsics: where the tops of stacks land, against synth's truth.

For camera tilts 0-35 degrees (random boards, light, focal lengths 450-900 px at 640x480,
azimuth and roll jitter; no lens distortion, which needs measured intrinsics), a bashni
position with towers of 1 to 6 pieces is rendered and located as the live loop does
(ArUco markers when the style has them, else the markerless grid; a grid off by more
than a quarter square is counted as ``located_wrongly`` and left out). The model
from :func:`vision.camera.estimate_camera` (focal length from the board's perspective,
principal point at the image centre) projects each tower's top; the distance to the
top synth drew is given in square sides, beside the same with the renderer's true K,
and with no model at all (the top taken at the square's centre, as a homography must).

    python -m bench.camera [--per-tilt 6] [--size 1280x960]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import cv2
import numpy as np

from rules import find_variant
from rules.pieces import Piece
from rules.position import Position
from rules.variants import Color
from vision.board_spec import MarkerBoardSpec
from vision.camera import camera_from_homography, estimate_camera, focal_from_homography
from vision.locate import BoardLocation, FloatArray
from vision.observe import locate

BASHNI = find_variant("bashni")
TILTS = (0, 5, 10, 15, 20, 25, 30, 35)


def towers(seed: int) -> Position:
    """The start squares with towers of 1 to 6 pieces, the top of either colour."""
    rng = np.random.default_rng(seed)
    white, black = BASHNI.start_squares
    stacks = {}
    for square in (*white, *black):
        height = int(rng.integers(1, 7))
        stacks[square] = tuple(
            Piece(Color.WHITE if rng.random() < 0.5 else Color.BLACK) for _ in range(height)
        )
    return Position.from_stacks(BASHNI, stacks, Color.WHITE)


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def top_errors(
    found: BoardLocation, truth: dict[str, object], size: tuple[int, int]
) -> dict[str, FloatArray]:
    """Per occupied square: distance (square sides) of the projected top from synth's."""
    from synth.board_texture import layout_for
    from synth.pieces import stack_height
    from synth.scene import Style

    fields = truth["style"]
    assert isinstance(fields, dict)
    style = Style(**{k: v for k, v in fields.items() if k != "hand"})
    layout = layout_for(style, BASHNI.geometry)
    squares = truth["squares"]
    centres, tops = truth["centres"], truth["tops"]
    assert isinstance(squares, dict) and isinstance(centres, dict) and isinstance(tops, dict)
    names = [name for name, text in squares.items() if text]
    heights = []
    for name in names:
        stack = tuple(Piece.from_symbol(s) for s in squares[name])
        heights.append(stack_height(stack, True, layout) / layout.square_mm)
    plane = found.to_board(np.array([centres[n] for n in names], np.float64))
    points = np.column_stack([plane, heights])
    drawn = np.array([tops[n] for n in names], np.float64)
    board_to_image = np.asarray(np.linalg.inv(found.homography), np.float64)
    true_k = camera_from_homography(board_to_image, np.array(truth["camera_matrix"]))
    side = found.square_side_px()
    return {
        "estimated": np.linalg.norm(estimate_camera(found, size).project(points) - drawn, axis=1)
        / side,
        "true_k": np.linalg.norm(true_k.project(points) - drawn, axis=1) / side,
        "no_model": np.linalg.norm(found.to_image(plane) - drawn, axis=1) / side,
        "height": np.array(heights),
    }


def run(per_tilt: int, size: tuple[int, int]) -> list[dict[str, object]]:
    from synth.render import Renderer
    from synth.scene import Style

    lines = []
    with Renderer(size) as renderer:
        for tilt in TILTS:
            focal_errors: list[float] = []
            errors: dict[str, list[float]] = {"estimated": [], "true_k": [], "no_model": []}
            located = misplaced = 0
            cpu = 0.0
            for k in range(per_tilt):
                seed = 500 + 10 * tilt + k
                style = dataclasses.replace(
                    Style.random(seed, BASHNI, hand=False),
                    tilt_deg=float(tilt),
                    distortion=(0.0, 0.0),
                )
                rendered = renderer.render(towers(seed), style)
                found = locate(rendered.image, BASHNI.size, MarkerBoardSpec())
                if not isinstance(found, BoardLocation):
                    continue
                truth_corners = np.array(rendered.truth["corners"], np.float64)
                off = np.abs(found.image_corners_clockwise() - truth_corners).max()
                if off > 0.25 * found.square_side_px():
                    misplaced += 1  # a wrong grid: its stack tops say nothing of the model
                    continue
                located += 1
                start = time.process_time()
                focal = focal_from_homography(
                    np.asarray(np.linalg.inv(found.homography), np.float64), size
                )
                cpu += time.process_time() - start
                true_focal = float(rendered.truth["camera_matrix"][0][0])
                focal_errors.append(abs(focal - true_focal) / true_focal)
                for key, per_square in top_errors(found, rendered.truth, size).items():
                    if key in errors:
                        errors[key].extend(per_square.tolist())
            line: dict[str, object] = {
                "bench": "vision.stack_tops",
                "tilt_deg": tilt,
                "renders": per_tilt,
                "located": located,
                "located_wrongly": misplaced,
                "focal_rel_error_median": _pct(focal_errors, 50),
                "focal_rel_error_max": round(max(focal_errors), 3) if focal_errors else None,
            }
            for key, values in errors.items():
                line[f"top_error_squares_{key}_median"] = _pct(values, 50)
                line[f"top_error_squares_{key}_p95"] = _pct(values, 95)
            line["focal_cpu_ms"] = round(1000 * cpu / max(located, 1), 3)
            lines.append(line)
            print(json.dumps(line), flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-tilt", type=int, default=6, help="renders per tilt")
    parser.add_argument("--size", default="1280x960", help="render size WxH")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    width, height = (int(v) for v in args.size.split("x"))
    run(args.per_tilt, (width, height))


if __name__ == "__main__":
    main()

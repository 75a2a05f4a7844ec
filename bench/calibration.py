"""Calibration robustness: ``calibrate_start_position`` on rendered start positions.

For every variant size (7x7 lasca, 8x8 russian, 10x10 international) and random styles
(``Style.random`` without hands: tilt to 35 degrees, low light, markers or not, lens
distortion, coordinates), render the start position, calibrate from it, and check the
result against the renderer's truth: every square's centre, placed through the
calibration's grid and turn, must land within half a square of where synth drew it
(a wrong turn misses by whole squares), and the colours it learned must read that start
position square for square.

``--hands``: a hand over each render (calibrated too soon); what was learned is checked
on the same table without the hand. ``--hard``: markers, 35 degrees of tilt and 0.45 of
the light (the end-to-end bench's hard condition). Calibration decides which colour is
White as ``damcam calibrate --white auto`` does (the lighter, or the side nearer the
image's bottom when the men look alike: purple/teal men can be within a few levels of
each other, ``similar_lightness``); ``--tell-white`` tells it instead, from the men's
lightness as rendered. One JSON line per variant, the failures' reasons counted.

    python -m bench.calibration [--count 30] [--size 1280x960] [--hands] [--hard] [--tell-white]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import Counter

import cv2
import numpy as np

from calibration.table import (
    CalibrationError,
    TableCalibration,
    calibrate_start_position,
    start_tops,
)
from rules import find_variant
from rules.position import Position
from rules.variants import Variant
from vision.board_spec import MIN_BORDER_MM
from vision.locate import Image
from vision.prototype import PrototypeClassifier
from vision.rectify import square_centres, square_crops, white_view_to_image

VARIANTS = ("lasca", "russian", "international")
#: Men whose lightness differs by less than this (Lab L, 0..255) look alike in lightness.
SIMILAR_L = 15.0


def centre_error_squares(
    table: TableCalibration, variant: Variant, truth: dict[str, object]
) -> float:
    """Worst distance, in square sides, between each square's centre as the calibration
    places it and where the renderer drew it."""
    geometry = variant.geometry
    location = table.location()
    found = white_view_to_image(location, square_centres(geometry), turns=table.turns)
    centres = truth["centres"]
    assert isinstance(centres, dict)
    drawn = np.array([centres[geometry.name(sq)] for sq in geometry.squares], np.float64)
    return float(np.linalg.norm(found - drawn, axis=1).max() / location.square_side_px())


def men_lightness(image: Image, variant: Variant, truth: dict[str, object]) -> tuple[float, float]:
    """Mean L (OpenCV Lab, 0..255) of White's and of Black's men as the image shows them,
    sampled around the tops synth drew: what a user looks at to say which is lighter."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    squares, tops = truth["squares"], truth["tops"]
    assert isinstance(squares, dict) and isinstance(tops, dict)
    means = []
    for colour in ("w", "b"):
        values = []
        for name, stack in squares.items():
            if stack == colour:
                x, y = (round(v) for v in tops[name])
                values.append(float(lab[y - 2 : y + 3, x - 2 : x + 3, 0].mean()))
        means.append(float(np.mean(values)))
    return means[0], means[1]


def misread_squares(table: TableCalibration, variant: Variant, image: Image) -> int:
    """Squares of a start position image that the calibration's own colour prototypes
    read wrongly (through its grid and turn)."""
    crops = square_crops(image, table.location(), variant.geometry, turns=table.turns)
    probs = PrototypeClassifier(table.prototypes()).predict(crops)
    expected = [int(t) for t in start_tops(variant)]
    return int((probs.argmax(axis=1) != np.array(expected)).sum())


def run(
    count: int, size: tuple[int, int], *, hands: bool, hard: bool = False, tell_white: bool = False
) -> list[dict[str, object]]:
    from synth.render import Renderer
    from synth.scene import Style

    lines: list[dict[str, object]] = []
    with Renderer(size) as renderer:
        for name in VARIANTS:
            variant = find_variant(name)
            tally: Counter[str] = Counter()
            reasons: Counter[str] = Counter()
            errors: list[float] = []
            cpu: list[float] = []
            failed: list[int] = []
            for seed in range(1000, 1000 + count):
                style = Style.random(seed, variant, hand=hands)
                if hard:  # the end-to-end bench's hard condition: markers, 35 deg, dim
                    style = dataclasses.replace(
                        style,
                        markers=True,
                        border_mm=max(style.border_mm, MIN_BORDER_MM + 3.0),
                        tilt_deg=35.0,
                        exposure=style.exposure * 0.45,
                    )
                rendered = renderer.render(Position.initial(variant), style)
                clean = rendered
                if hands:  # the same table without the hand, to check what was learned
                    clean_style = dataclasses.replace(style, hand=None)
                    clean = renderer.render(Position.initial(variant), clean_style)
                tally["renders"] += 1
                tally["with_markers"] += style.markers
                start = time.process_time()
                white_l, black_l = men_lightness(clean.image, variant, clean.truth)
                light_is_white = white_l > black_l
                tally["white_darker"] += not light_is_white
                tally["similar_lightness"] += abs(white_l - black_l) < SIMILAR_L
                try:
                    table = calibrate_start_position(
                        rendered.image,
                        variant,
                        light_is_white=light_is_white if tell_white else None,
                        source="render",
                    )
                except CalibrationError as error:
                    reasons[_reason(str(error))] += 1
                    failed.append(seed)
                    continue
                finally:
                    cpu.append(time.process_time() - start)
                tally["calibrated"] += 1
                error_squares = centre_error_squares(table, variant, clean.truth)
                errors.append(error_squares)
                if error_squares < 0.5:
                    tally["oriented"] += 1
                    misread = misread_squares(table, variant, clean.image)
                    tally["reads_start"] += misread == 0
                    if misread:
                        reasons["learned colours misread the start"] += 1
                        failed.append(seed)
                else:
                    reasons["calibrated but misplaced"] += 1
                    failed.append(seed)
            line = _line(name, tally, errors, reasons, failed, cpu)
            line["hands"] = hands
            line["hard"] = hard
            line["white_told"] = tell_white
            lines.append(line)
    return lines


def _reason(message: str) -> str:
    """The gist of a calibration error, without the numbers that vary per image."""
    text = message.split(": ", 1)[-1].split(" (")[0]
    return "".join("#" if ch.isdigit() else ch for ch in text)[:80]


def _line(
    name: str,
    tally: Counter[str],
    errors: list[float],
    reasons: Counter[str],
    failed: list[int],
    cpu: list[float],
) -> dict[str, object]:
    n = max(tally["renders"], 1)
    return {
        "bench": "calibration.start_position",
        "variant": name,
        "renders": tally["renders"],
        "with_markers": tally["with_markers"],
        "white_darker": tally["white_darker"],
        "similar_lightness": tally["similar_lightness"],
        "calibrated_share": round(tally["calibrated"] / n, 3),
        "oriented_correctly_share": round(tally["oriented"] / n, 3),
        "reads_start_share": round(tally["reads_start"] / n, 3),
        "centre_error_squares_median": round(float(np.median(errors)), 3) if errors else None,
        "centre_error_squares_max": round(max(errors), 3) if errors else None,
        "failures": dict(reasons),
        "failed_seeds": failed,
        "cpu_ms_median": round(1000 * float(np.median(cpu)), 1) if cpu else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=30, help="renders per variant")
    parser.add_argument("--size", default="1280x960", help="render size WxH")
    parser.add_argument(
        "--tell-white",
        action="store_true",
        help="tell calibration which colour is White (else it decides: --white auto)",
    )
    parser.add_argument(
        "--hard", action="store_true", help="markers, 35 degrees of tilt, 0.45 of the light"
    )
    parser.add_argument(
        "--hands", action="store_true", help="a hand over every render (calibrating too soon)"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    width, height = (int(v) for v in args.size.split("x"))
    lines = run(
        args.count, (width, height), hands=args.hands, hard=args.hard, tell_white=args.tell_white
    )
    for line in lines:
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()

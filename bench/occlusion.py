"""The occlusion gate against synth's truth, on rendered game frames.

Random legal games (seeded; captures and crownings as they come) are rendered frame by
frame with ``synth.game``: a hand enters, carries the piece, takes the captured men off,
leaves, and the board stands still. The table is calibrated from the first (still)
frame and every frame goes through the live loop's :class:`vision.observe.Observer`
(:func:`pi.wiring.observer_for`: the shipped model adapted from that frame, whose column
heights the gate's leans and the arm watch use). Against the truth it measures:

- per square: "occluded" as the recorder reads it (``occluded`` above its
  ``square_occluded_fraction``) against synth's per-square hand coverage above the same
  fraction: precision and recall;
- per frame: the recorder's frame gate (no arm across the board's border, board
  occlusion and motion under its limits)
  against ``hand_present`` with the hand over the board: how many hand frames pass the
  gate (``hand_frames_accepted``) and, of those, squares under the hand that were not
  flagged (``hidden_squares_read``: a hand read as a piece, the dangerous case); how
  many still frames the gate holds back (``still_frames_rejected``, which delays), and
  after how many plies the board was still not passed by the last still frame
  (``last_still_frames_rejected``: a move the recorder could not have seen).

    python -m bench.occlusion [--games 4] [--plies 10] [--size 640x480] [--still 10]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import cv2
import numpy as np

from calibration.table import CalibrationError, calibrate_start_position
from pi.wiring import observer_for
from rules import find_variant
from rules.move import Move
from rules.position import Position
from rules.recorder import RecorderConfig
from rules.variants import Variant

VARIANTS = ("russian", "international", "lasca")


def random_game(variant: Variant, plies: int, seed: int) -> tuple[Position, list[Move]]:
    """A seeded random legal game from the start position."""
    rng = np.random.default_rng(seed)
    start = position = Position.initial(variant)
    moves: list[Move] = []
    for _ in range(plies):
        legal = position.legal_moves()
        if not legal:
            break
        move = legal[int(rng.integers(len(legal)))]
        moves.append(move)
        position = position.play(move)
    return start, moves


def run(games: int, plies: int, size: tuple[int, int], still: int) -> dict[str, object]:
    from synth.game import Timing, game_frames
    from synth.render import Renderer
    from synth.scene import Style

    limits = RecorderConfig()
    tally: Counter[str] = Counter()
    cpu = 0.0
    with Renderer(size) as renderer:
        for game in range(games):
            variant = find_variant(VARIANTS[game % len(VARIANTS)])
            style = Style.random(2000 + game, variant, hand=True)
            start, moves = random_game(variant, plies, 2000 + game)
            frames = game_frames(renderer, start, moves, style, Timing(still=still))
            first, _ = next(frames)
            try:
                table = calibrate_start_position(first, variant, source=f"game {game}")
            except CalibrationError as error:
                tally["games_not_calibrated"] += 1
                print(json.dumps({"game": game, "not calibrated": str(error)}), flush=True)
                continue
            tally["games"] += 1
            observer = observer_for(variant, table, first)  # as the live loop reads
            names = [variant.geometry.name(sq) for sq in variant.geometry.squares]
            observer.observe(first, 0.0)
            last_still: bool | None = None
            for image, truth in frames:
                started = time.process_time()
                obs = observer.observe(image, float(truth["time"]))
                cpu += time.process_time() - started
                tally["frames"] += 1
                coverage = np.array([truth["occlusion"][n] for n in names])
                over_board = bool(truth["hand_present"]) and bool(coverage.max() > 0)
                if not obs.board_found:
                    tally["board_lost"] += 1
                    tally["hand_frames"] += over_board
                    tally["hand_frames_rejected"] += over_board
                    continue
                hidden = coverage > limits.square_occluded_fraction
                flagged = (
                    np.array([r.occluded for r in obs.squares]) > limits.square_occluded_fraction
                )
                tally["squares_hidden"] += int(hidden.sum())
                tally["squares_flagged"] += int(flagged.sum())
                tally["squares_hidden_flagged"] += int((hidden & flagged).sum())
                accepted = (
                    not obs.arm
                    and obs.occlusion <= limits.max_occlusion_fraction
                    and obs.motion <= limits.max_motion_fraction
                )
                if over_board:
                    tally["hand_frames"] += 1
                    tally["hand_frames_rejected"] += not accepted
                    if accepted:
                        tally["hidden_squares_read"] += int((hidden & ~flagged).sum())
                elif truth["phase"] == "still":
                    tally["still_frames"] += 1
                    tally["still_frames_rejected"] += not accepted
                    tally["still_squares_flagged"] += int(flagged.sum())
                if truth["phase"] != "still" and last_still is not None:
                    # the board stood still up to the previous frame: was it read by then?
                    tally["last_still_frames"] += 1
                    tally["last_still_frames_rejected"] += not last_still
                last_still = accepted if truth["phase"] == "still" else None
    return _line(tally, cpu, size)


def _share(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _line(tally: Counter[str], cpu: float, size: tuple[int, int]) -> dict[str, object]:
    t = tally
    return {
        "bench": "vision.occlusion_gate",
        "size": list(size),
        "games": t["games"],
        "games_not_calibrated": t["games_not_calibrated"],
        "frames": t["frames"],
        "board_lost_frames": t["board_lost"],
        "square_occluded_precision": _share(t["squares_hidden_flagged"], t["squares_flagged"]),
        "square_occluded_recall": _share(t["squares_hidden_flagged"], t["squares_hidden"]),
        "hand_frames": t["hand_frames"],
        "hand_frames_rejected_share": _share(t["hand_frames_rejected"], t["hand_frames"]),
        "hand_frames_accepted": t["hand_frames"] - t["hand_frames_rejected"],
        "hidden_squares_read": t["hidden_squares_read"],
        "still_frames": t["still_frames"],
        "still_frames_rejected_share": _share(t["still_frames_rejected"], t["still_frames"]),
        "still_squares_flagged": t["still_squares_flagged"],
        "last_still_frames": t["last_still_frames"],
        "last_still_frames_rejected": t["last_still_frames_rejected"],
        "observe_cpu_ms_per_frame": round(1000 * cpu / max(t["frames"], 1), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--plies", type=int, default=10)
    parser.add_argument("--size", default="640x480", help="render size WxH")
    parser.add_argument("--still", type=int, default=10, help="still frames after each ply")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    width, height = (int(v) for v in args.size.split("x"))
    print(json.dumps(run(args.games, args.plies, (width, height), args.still)), flush=True)


if __name__ == "__main__":
    main()

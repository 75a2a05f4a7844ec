"""A game as a sequence of frames: a hand enters, moves the piece, takes the captured
pieces off one by one, crowns, leaves; then the board stands still for a moment.

Each frame comes with its truth: the stacks on the squares *as they stand in that frame*
(a piece in the hand is on no square), whether a hand is in view, and which ply it is.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.move import Move
from rules.pieces import Stack
from rules.position import Position
from rules.variants import Color
from synth.board_texture import BoardLayout, layout_for
from synth.pieces import Placement, stack_height
from synth.render import Renderer, check_fits
from synth.scene import HandStyle, Style

log = logging.getLogger(__name__)

LIFT_MM = 12.0
"""How high a carried piece rides above the board."""


@dataclass(frozen=True)
class Timing:
    """Frames per phase of one ply, at ``fps`` frames a second."""

    fps: float = 10.0
    enter: int = 4
    carry: int = 6
    per_capture: int = 3
    crown: int = 4
    leave: int = 4
    still: int = 3


@dataclass(frozen=True)
class _State:
    """The table at one instant: stacks on squares, maybe one in the hand, the hand."""

    squares: dict[int, Stack]
    carried: Placement | None
    hand: tuple[float, float, float] | None
    ply: int
    phase: str
    side: str = "near"
    """Where the hand comes from: White's side ("near") or Black's ("far")."""


def _ease(t: float) -> float:
    """Smooth start and stop, as a hand moves."""
    return 0.5 - 0.5 * math.cos(math.pi * t)


def _lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _states(
    start: Position, moves: list[Move], layout: BoardLayout, timing: Timing
) -> Iterator[tuple[_State, Position]]:
    """Every frame's table, with the position it belongs to (for variant and truth)."""
    geometry = start.variant.geometry
    towers = start.variant.towers

    def centre(square: int) -> tuple[float, float]:
        return layout.cell_centre(*geometry.rowcol(square))

    def hand_at(xy: tuple[float, float], stack: Stack = ()) -> tuple[float, float, float]:
        return (xy[0], xy[1], LIFT_MM + stack_height(stack, towers, layout) + 10.0)

    position = start
    squares = dict(position.stacks())
    for _ in range(timing.still):
        yield _State(dict(squares), None, None, 0, "still"), position
    for ply, move in enumerate(moves, start=1):
        after = position.play(move)  # raises IllegalMoveError naming the move
        mover = position.stack(move.path[0])
        away = -1.0 if position.turn is Color.WHITE else 1.0  # hands come from the player's side
        side = "near" if position.turn is Color.WHITE else "far"
        origin = centre(move.path[0])
        outside = (origin[0], away * layout.width_mm)
        for i in range(timing.enter):
            xy = _lerp(outside, origin, _ease((i + 1) / timing.enter))
            yield _State(dict(squares), None, hand_at(xy, mover), ply, "enter", side), position
        # Lift the mover; what stays on the origin is what the position after says, except
        # that captured pieces have not been taken off yet.
        squares.pop(move.path[0], None)
        if towers and after.stack(move.path[0]):
            squares[move.path[0]] = after.stack(move.path[0])
        waypoints = [centre(sq) for sq in move.path]
        legs = max(1, len(waypoints) - 1)
        for i in range(timing.carry * legs):
            t = (i + 1) / (timing.carry * legs) * legs
            leg = min(int(t), legs - 1)
            xy = _lerp(waypoints[leg], waypoints[min(leg + 1, len(waypoints) - 1)], _ease(t - leg))
            carried = Placement(mover, xy[0], xy[1], None, LIFT_MM)
            yield _State(dict(squares), carried, hand_at(xy, mover), ply, "carry", side), position
        target = move.path[-1]
        # Put the man down as it arrived (a promotion shows a moment later).
        squares[target] = mover
        for captured in move.captures:
            remaining = after.stack(captured)
            if remaining:
                squares[captured] = remaining
            else:
                squares.pop(captured, None)
            for _ in range(timing.per_capture):
                yield (
                    _State(dict(squares), None, hand_at(centre(captured)), ply, "capture", side),
                    position,
                )
        if move.promotes:
            for i in range(timing.crown):
                if i == timing.crown // 2:
                    squares[target] = after.stack(target)
                yield (
                    _State(dict(squares), None, hand_at(centre(target)), ply, "crown", side),
                    position,
                )
        squares = dict(after.stacks())
        last = centre(target)
        for i in range(timing.leave):
            xy = _lerp(last, (last[0], away * layout.width_mm), _ease((i + 1) / timing.leave))
            yield _State(dict(squares), None, hand_at(xy), ply, "leave", side), after
        for _ in range(timing.still):
            yield _State(dict(squares), None, None, ply, "still"), after
        position = after


def game_frames(
    renderer: Renderer,
    start: Position,
    moves: list[Move],
    style: Style,
    timing: Timing = Timing(),
) -> Iterator[tuple[NDArray[np.uint8], dict[str, Any]]]:
    """Render every frame of the game: (BGR image, truth) pairs.

    The camera sways a little and the light drifts across the game, both seeded by the
    style, so two renders of one game are identical.
    """
    check_fits(start, style)
    layout = layout_for(style, start.variant.geometry)
    rng = np.random.default_rng((style.seed, 104729))
    sway = np.zeros(2)
    base_hand = style.hand or HandStyle(
        side="near",
        target=(0.0, 0.0),
        height_mm=60.0,
        skin=(0.78, 0.58, 0.45),
        sleeve=(0.2, 0.25, 0.4),
    )
    for index, (state, position) in enumerate(_states(start, moves, layout, timing)):
        sway = 0.9 * sway + rng.normal(0.0, 0.4, 2)
        frame_style = dataclasses.replace(
            style,
            exposure=style.exposure * (1.0 + 0.03 * math.sin(index / 37.0)),
            hand=dataclasses.replace(base_hand, side=state.side) if state.hand else None,
        )
        placed = [
            Placement(stack, *layout.cell_centre(*start.variant.geometry.rowcol(sq)), sq)
            for sq, stack in state.squares.items()
            if stack
        ]
        if state.carried is not None:
            placed.append(state.carried)
        rendered = renderer.render_placements(
            position,
            placed,
            frame_style,
            hand_target=state.hand,
            camera_jitter=(float(sway[0]), float(sway[1])),
            frame_seed=index,
        )
        truth = {
            "frame": index,
            "time": round(index / timing.fps, 4),
            "ply": state.ply,
            "phase": state.phase,
            "hand_present": state.hand is not None,
            "carrying": state.carried is not None,
            **{k: v for k, v in rendered.truth.items() if k != "style"},
        }
        yield rendered.image, truth


def write_game(
    start: Position,
    moves: list[Move],
    style: Style,
    out: Path,
    *,
    video: bool = True,
    timing: Timing = Timing(),
    size: tuple[int, int] = (640, 480),
) -> int:
    """Render the game into ``out`` (a folder): ``game.mp4`` or ``frames/NNNNN.png``, and
    ``truth.jsonl`` with one line per frame. Returns the number of frames."""
    out.mkdir(parents=True, exist_ok=True)
    writer = None
    if video:
        fourcc = cv2.VideoWriter.fourcc(*"mp4v")
        writer = cv2.VideoWriter(str(out / "game.mp4"), fourcc, timing.fps, size)
        if not writer.isOpened():
            raise ValueError(f"cannot write a video to {out / 'game.mp4'}")
    else:
        (out / "frames").mkdir(exist_ok=True)
    count = 0
    with Renderer(size) as renderer, (out / "truth.jsonl").open("w") as lines:
        lines.write(
            json.dumps({"style": style.as_dict(), "start": start.fen(), "fps": timing.fps}) + "\n"
        )
        for image, truth in game_frames(renderer, start, moves, style, timing):
            if writer is not None:
                writer.write(image)
            else:
                cv2.imwrite(str(out / "frames" / f"{truth['frame']:05d}.png"), image)
            lines.write(json.dumps(truth) + "\n")
            count += 1
    if writer is not None:
        writer.release()
    log.info("rendered %d frames into %s", count, out)
    return count

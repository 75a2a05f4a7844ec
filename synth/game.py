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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.geometry import BoardGeometry
from rules.move import Move
from rules.pieces import Piece, Stack
from rules.position import Position
from rules.variants import Color
from synth.board_texture import BoardLayout, layout_for
from synth.clutter import place_clock
from synth.pieces import Placement, disc_size, stack_height
from synth.render import Renderer, check_fits
from synth.scene import HandStyle, Style

log = logging.getLogger(__name__)

LIFT_MM = 12.0
"""How high a carried piece rides above the board."""
HOVER_MM = 40.0
"""How high over a stack the hand comes in and goes away."""
TREMOR_MM = 0.5
"""Frame-to-frame sway of a hand held still over the board (a steady adult hand's
physiological tremor is of the order of a millimetre)."""


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
    clock: int = 4
    """From the last square to the clock, the last of them pressing the button."""
    ponder: int = 0
    """Frames the mover's hand hovers over the piece before taking it, on every
    ``ponder_every``-th ply (a player thinking with his hand over the board)."""
    ponder_every: int = 0
    """Which plies are thought over so (0: none)."""
    knock_every: int = 0
    """On every ``knock_every``-th ply the mover's hand knocks the board as it comes in
    (0: never): the board stands ``knock_mm`` from where it stood at the start, in a new
    random direction, turned by up to ``knock_degrees``, until the next knock (a board
    knocked and pushed back roughly; drawn as the camera moving, which the image shows as
    the board moving)."""
    knock_mm: float = 12.0
    knock_degrees: float = 2.0
    sloppy_mm: float = 0.0
    """How far off its square's centre a piece may be put down (uniformly over a disc of
    that radius; 0: at the centre): players seldom centre a piece (:class:`PutDown`)."""
    adjust_every: int = 0
    """On every ``adjust_every``-th ply (0: never) the mover first straightens one of his
    other pieces, as the rules let him on his turn (I 3.13, S1 §4.2: "I adjust"): the hand
    comes down on it, slides it to its square's centre, rises and goes on to the piece it
    moves (:func:`_adjust`)."""


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
    pose: str = "pinch"
    clock_pressed: Color = Color.BLACK
    """Whose clock button is down (before the first move: Black's, White's clock runs)."""
    sliding: tuple[int, float] | None = None
    """A piece the hand slides towards its square's centre in this frame, and the share
    of its offset it keeps (:class:`PutDown`)."""


def _ease(t: float) -> float:
    """Smooth start and stop, as a hand moves."""
    return 0.5 - 0.5 * math.cos(math.pi * t)


def _lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def game_style(style: Style) -> Style:
    """The style a game is rendered in: games are played on the clock, so a style without
    one gets a clock on White's left (where the column-draughts code puts it)."""
    return style if style.clock != "none" else dataclasses.replace(style, clock="left")


def _states(
    start: Position, moves: list[Move], style: Style, layout: BoardLayout, timing: Timing
) -> Iterator[tuple[_State, Position]]:
    """Every frame's table, with the position it belongs to (for variant and truth).

    Draughts: the man is carried along its path, then the captured pieces are taken off
    one by one. Column games (captured pieces go *under* the capturing tower at once,
    code of column draughts §1.6.1, §1.8): the tower jumps one leg, the hand takes the
    top piece off the jumped tower and puts it under the tower, and so on for each leg.
    Then the crowning, and the player presses the clock with the hand that moved.
    """
    geometry = start.variant.geometry
    towers = start.variant.towers
    clock = place_clock(style, layout)

    def centre(square: int) -> tuple[float, float]:
        return layout.cell_centre(*geometry.rowcol(square))

    def grip_at(xy: tuple[float, float], stack: Stack, lift: float = 0.0) -> tuple[float, ...]:
        """Where the fingers close on a stack: near the top of its rim."""
        height = stack_height(stack, towers, layout, style)
        return (xy[0], xy[1], lift + max(height / 2, height - 8.0))

    def above(xy: tuple[float, float], stack: Stack = ()) -> tuple[float, float, float]:
        return (xy[0], xy[1], stack_height(stack, towers, layout, style) + HOVER_MM)

    position = start
    table = _Table(dict(position.stacks()), pressed=start.turn.other)
    for _ in range(timing.still):
        yield table.frame("still"), position
    for ply, move in enumerate(moves, start=1):
        after = position.play(move)  # raises IllegalMoveError naming the move
        mover = position.turn
        table.ply, table.side = ply, ("near" if mover is Color.WHITE else "far")
        away = -1.0 if mover is Color.WHITE else 1.0  # hands come from the player's side
        squares = table.squares
        tower = position.stack(move.path[0])
        origin = centre(move.path[0])
        outside = (origin[0], away * layout.width_mm)
        if timing.ponder and timing.ponder_every and ply % timing.ponder_every == 0:
            for frame in _ponder(table, outside, above(origin, tower), timing):
                yield frame, position
            outside = origin  # the hand comes down from where it hovered
        straightened = _straightened(squares, mover, move.path[0], ply, timing)
        if straightened is not None:
            xy = centre(straightened)
            hand = grip_at(xy, squares[straightened])
            over = above(xy, squares[straightened])
            for frame in _adjust(table, outside, straightened, hand, over, timing):
                yield frame, position
            outside = xy  # and comes down on the piece it moves from there
        for i in range(timing.enter):
            t = _ease((i + 1) / timing.enter)
            x, y, z = grip_at(_lerp(outside, origin, t), tower)
            yield table.frame("enter", (x, y, z + (1 - t) * HOVER_MM)), position
        squares.pop(move.path[0], None)
        if not move.captures or not towers:
            for frame in _carry(table, move.path, tower, centre, grip_at, timing):
                yield frame, position
            squares[move.path[-1]] = tower  # put down as it arrived (crowned a moment later)
        for leg, captured in enumerate(move.captures):
            landing = move.path[leg + 1]
            if towers:  # jump one leg, then put the prisoner under the tower
                squares.pop(move.path[leg], None)  # the tower is lifted again
                for frame in _carry(
                    table, move.path[leg : leg + 2], tower, centre, grip_at, timing
                ):
                    yield frame, position
                squares[landing] = tower
            jumped = squares[captured]
            prisoner: Stack = jumped[:1]
            if jumped[1:]:
                squares[captured] = jumped[1:]
            else:
                squares.pop(captured)
            start_xy = centre(captured)
            end_xy = centre(landing) if towers else (start_xy[0], away * layout.width_mm)
            for i in range(timing.per_capture):
                xy = _lerp(start_xy, end_xy, _ease(i / max(1, timing.per_capture)) * 0.8)
                held = Placement(prisoner, xy[0], xy[1], None, LIFT_MM)
                yield table.frame("capture", grip_at(xy, prisoner, LIFT_MM), held), position
            if towers:
                tower = tower + prisoner
                squares[landing] = tower
        target = move.path[-1]
        if move.promotes:
            # The hand brings the crowning disc down: a second man on the man (draughts),
            # or the striped king that replaces the top man (column games).
            crown: Stack = (Piece(mover, king=towers),)
            xy = centre(target)
            half = max(1, timing.crown // 2)
            for i in range(timing.crown):
                if i == timing.crown // 2:
                    squares[target] = after.stack(target)
                disc: Placement | None = None
                if i < timing.crown // 2:
                    rest = stack_height(squares[target], towers, layout, style)
                    disc = Placement(crown, xy[0], xy[1], None, rest + LIFT_MM * (1 - i / half))
                    hand = grip_at(xy, crown, disc.lift_mm)
                else:
                    hand = grip_at(xy, squares[target])
                yield table.frame("crown", hand, disc), position
        table.squares = dict(after.stacks())
        last = above(centre(target), after.stack(target))
        leave_from = (last[0], last[1])
        if clock is not None and timing.clock:
            button = clock.button(mover, pressed=True)
            for i in range(timing.clock):
                final = i == timing.clock - 1
                t = _ease((i + 1) / timing.clock)
                if final:  # the button goes down: the mover's clock stops
                    table.pressed = mover
                xy = _lerp(leave_from, (float(button[0]), float(button[1])), t)
                z = float(button[2]) + (0.0 if final else HOVER_MM * (1.2 - t))
                yield table.frame("clock", (xy[0], xy[1], z), pose="press"), after
            leave_from = (float(button[0]), float(button[1]))
            last = (last[0], last[1], max(last[2], float(button[2]) + HOVER_MM / 2))
        for i in range(timing.leave):
            t = _ease((i + 1) / timing.leave)
            xy = _lerp(leave_from, (leave_from[0], away * layout.width_mm), t)
            yield table.frame("leave", (xy[0], xy[1], last[2]), pose="relaxed"), after
        for _ in range(timing.still):
            yield table.frame("still"), after
        position = after


@dataclass
class _Table:
    """What a game changes as it goes: the stacks on squares, whose clock button is down,
    and which ply the hand from which side is playing."""

    squares: dict[int, Stack]
    pressed: Color = Color.BLACK
    """The player who is not to move pressed last: his button is down."""
    ply: int = 0
    side: str = "near"

    def frame(
        self,
        phase: str,
        hand: tuple[float, ...] | None = None,
        carried: Placement | None = None,
        pose: str = "pinch",
        sliding: tuple[int, float] | None = None,
    ) -> _State:
        """The table now; the hand's fingers act at ``hand`` (none while ``still``)."""
        target = None if hand is None else (hand[0], hand[1], hand[2])
        return _State(
            dict(self.squares),
            carried,
            target,
            self.ply,
            phase,
            self.side,
            pose,
            self.pressed,
            sliding,
        )


def _straightened(
    squares: Mapping[int, Stack], mover: Color, moving: int, ply: int, timing: Timing
) -> int | None:
    """The square of the piece the mover straightens before he plays (:attr:`Timing.
    adjust_every`): one of his others, drawn by the ply (so two renders agree); None on
    other plies, or when he has no other."""
    if not timing.adjust_every or ply % timing.adjust_every:
        return None
    own = sorted(
        sq for sq, stack in squares.items() if stack and stack[0].color is mover and sq != moving
    )
    if not own:
        return None
    return own[int(np.random.default_rng((ply, 7933)).integers(len(own)))]


SLIDE_KEEPS = 0.4
"""The share of a straightened piece's offset left after each frame of the slide: three
frames leave it within a few percent of its square's centre."""


def _adjust(
    table: _Table,
    outside: tuple[float, float],
    square: int,
    grip: tuple[float, ...],
    over: tuple[float, float, float],
    timing: Timing,
) -> Iterator[_State]:
    """The mover's hand comes down on the piece on ``square`` (fingers at ``grip``),
    slides it to the centre over three frames and rises to ``over`` it."""
    for i in range(timing.enter):
        t = _ease((i + 1) / timing.enter)
        x, y = _lerp(outside, (grip[0], grip[1]), t)
        yield table.frame("adjust", (x, y, grip[2] + (1 - t) * HOVER_MM))
    for _ in range(3):
        yield table.frame("adjust", grip, sliding=(square, SLIDE_KEEPS))
    for i in range(2):
        t = _ease((i + 1) / 2)
        yield table.frame("adjust", (over[0], over[1], grip[2] + t * (over[2] - grip[2])))


def _ponder(
    table: _Table, outside: tuple[float, float], over: tuple[float, float, float], timing: Timing
) -> Iterator[_State]:
    """The mover's hand comes in over the piece and hovers there, all but still, for
    ``timing.ponder`` frames: the slow sway of a hand held in the air (seeded by the ply,
    so two renders agree)."""
    for i in range(timing.enter):
        x, y = _lerp(outside, (over[0], over[1]), _ease((i + 1) / timing.enter))
        yield table.frame("ponder", (x, y, over[2]), pose="relaxed")
    rng = np.random.default_rng((table.ply, 7919))
    sway = np.zeros(3)
    for _ in range(timing.ponder):
        sway = 0.9 * sway + rng.normal(0.0, TREMOR_MM, 3)
        yield table.frame("ponder", tuple(float(v) for v in np.add(over, sway)), pose="relaxed")


def _carry(
    table: _Table,
    path: tuple[int, ...] | list[int],
    tower: Stack,
    centre: Callable[[int], tuple[float, float]],
    grip_at: Callable[..., tuple[float, ...]],
    timing: Timing,
) -> Iterator[_State]:
    """The stack in the hand, lifted, along the path's squares (eased per leg)."""
    waypoints = [centre(sq) for sq in path]
    legs = max(1, len(waypoints) - 1)
    for i in range(timing.carry * legs):
        t = (i + 1) / (timing.carry * legs) * legs
        leg = min(int(t), legs - 1)
        xy = _lerp(waypoints[leg], waypoints[min(leg + 1, len(waypoints) - 1)], _ease(t - leg))
        carried = Placement(tower, xy[0], xy[1], None, LIFT_MM)
        yield table.frame("carry", grip_at(xy, tower, LIFT_MM), carried)


class Knocks:
    """Where the last knock (:attr:`Timing.knock_every`) left the view: ``shift`` in mm of
    the aim point and ``turn`` in degrees of roll. Their own random stream (seeded by the
    style's seed), so a game without knocks renders as before they existed."""

    def __init__(self, timing: Timing, seed: int) -> None:
        self._timing, self._rng = timing, np.random.default_rng((seed, 7919))
        self._last_ply = 0
        self.shift = np.zeros(2)
        self.turn = 0.0

    def follow(self, ply: int, entering: bool) -> None:
        """The frame shows ``ply``'s hand coming in (``entering``) or not: the board is
        knocked on the first such frame of a knocked ply."""
        every = self._timing.knock_every
        if not every or not entering or ply % every or ply == self._last_ply:
            return
        self._last_ply = ply
        angle = self._rng.uniform(0.0, 2.0 * math.pi)
        self.shift = self._timing.knock_mm * np.array([math.cos(angle), math.sin(angle)])
        self.turn = self._rng.uniform(-1.0, 1.0) * self._timing.knock_degrees


class PutDown:
    """Where each piece stands on its square: up to :attr:`Timing.sloppy_mm` off the
    centre, drawn as it arrives on an empty square and kept until it leaves (a crown, or
    a prisoner put under a tower, moves nothing). Its own random stream, so a game of
    centred pieces renders as before it existed."""

    def __init__(self, timing: Timing, seed: int) -> None:
        self._most = timing.sloppy_mm
        self._rng = np.random.default_rng((seed, 7927))
        self._offsets: dict[int, tuple[float, float]] = {}

    def placed(
        self,
        squares: Mapping[int, Stack],
        layout: BoardLayout,
        geometry: BoardGeometry,
        sliding: tuple[int, float] | None = None,
    ) -> list[Placement]:
        """The stacks on ``squares`` where they stand now; ``sliding``: a square whose
        piece a hand slides towards the centre, keeping that share of its offset."""
        for sq in [sq for sq in self._offsets if not squares.get(sq)]:
            del self._offsets[sq]
        if sliding is not None and sliding[0] in self._offsets:
            sq, keep = sliding
            self._offsets[sq] = (self._offsets[sq][0] * keep, self._offsets[sq][1] * keep)
        placed = []
        for sq, stack in squares.items():
            if not stack:
                continue
            if sq not in self._offsets:
                self._offsets[sq] = self._draw()
            x, y = layout.cell_centre(*geometry.rowcol(sq))
            dx, dy = self._offsets[sq]
            placed.append(Placement(stack, x + dx, y + dy, sq))
        return placed

    def _draw(self) -> tuple[float, float]:
        if not self._most:
            return (0.0, 0.0)
        reach = self._most * math.sqrt(self._rng.uniform())
        angle = self._rng.uniform(0.0, 2.0 * math.pi)
        return (reach * math.cos(angle), reach * math.sin(angle))


def game_frames(
    renderer: Renderer,
    start: Position,
    moves: list[Move],
    style: Style,
    timing: Timing = Timing(),
) -> Iterator[tuple[NDArray[np.uint8], dict[str, Any]]]:
    """Render every frame of the game: (BGR image, truth) pairs.

    The camera sways a little and the light drifts across the game, both seeded by the
    style, so two renders of one game are identical. A style without a clock gets one
    (:func:`game_style`).
    """
    check_fits(start, style)
    style = game_style(style)
    layout = layout_for(style, start.variant.geometry)
    grip_radius, _ = disc_size(layout)
    rng = np.random.default_rng((style.seed, 104729))
    sway = np.zeros(2)
    knocks, put_down = Knocks(timing, style.seed), PutDown(timing, style.seed)
    base_hand = style.hand or HandStyle(
        side="near",
        target=(0.0, 0.0),
        height_mm=60.0,
        skin=(0.78, 0.58, 0.45),
        sleeve=(0.2, 0.25, 0.4),
    )
    for index, (state, position) in enumerate(_states(start, moves, style, layout, timing)):
        sway = 0.9 * sway + rng.normal(0.0, 0.4, 2)
        knocks.follow(state.ply, state.phase == "enter")
        frame_style = dataclasses.replace(
            style,
            roll_deg=style.roll_deg + knocks.turn,
            exposure=style.exposure * (1.0 + 0.03 * math.sin(index / 37.0)),
            hand=dataclasses.replace(base_hand, side=state.side) if state.hand else None,
        )
        placed = put_down.placed(state.squares, layout, start.variant.geometry, state.sliding)
        if state.carried is not None:
            placed.append(state.carried)
        rendered = renderer.render_placements(
            position,
            placed,
            frame_style,
            hand_target=state.hand,
            camera_jitter=(float(sway[0] + knocks.shift[0]), float(sway[1] + knocks.shift[1])),
            frame_seed=index,
            hand_pose=state.pose,
            grip_radius_mm=grip_radius,
            clock_pressed=state.clock_pressed,
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
            json.dumps(
                {"style": game_style(style).as_dict(), "start": start.fen(), "fps": timing.fps}
            )
            + "\n"
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

"""The scoresheet of a recorded game: PDN 3.0, with flags as comments and move times.

A recorded game is legal moves, interrupted where an irregularity changed the board in a
way no legal move can (I 5.7: play goes on from the position on the board). PDN can only
hold legal moves, so the record is cut into *segments*, each a :class:`rules.game.Game`
from its own start position: the first from the start of the game, each later one from
the position play continued from, with a ``FEN`` tag and a first comment saying why.
Every move carries its time in seconds (the frame timestamp when the board settled) as
``{[%time 73.4]}``, and every flag a comment ``{ply 23: capture not taken (I 5.4.6): ...}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.events import IrregularityFlagged
from rules.game import Game
from rules.position import Position

if TYPE_CHECKING:
    from rules.recorder import RecordedPly


@dataclass(frozen=True, slots=True)
class Segment:
    """Plies ``first_ply + 1 ..`` played legally from ``start``."""

    first_ply: int
    start: Position
    plies: tuple[RecordedPly, ...]
    reason: str = ""
    """Why play continued from a new position ('' for the game's start)."""


def segments(start: Position, record: Sequence[RecordedPly], position: Position) -> list[Segment]:
    """Cut the record where it stops being one legal game: at an irregular ply (no move),
    and wherever a ply does not start from the position the previous one left (the board
    was resynchronised between plies). ``position`` is where the recorder stands now."""
    out: list[Segment] = []
    plies: list[RecordedPly] = []
    seg_start, seg_first, reason = start, 0, ""
    current = start
    for r in record:
        if r.move is None or r.before != current:
            out.append(Segment(seg_first, seg_start, tuple(plies), reason))
            reason = f"ply {r.number}: {r.notation}" if r.move is None else "board resynchronised"
            seg_first = r.number if r.move is None else r.number - 1
            seg_start = r.after if r.move is None else r.before
            plies = [] if r.move is None else [r]
        else:
            plies.append(r)
        current = r.after
    if position != current:
        out.append(Segment(seg_first, seg_start, tuple(plies), reason))
        seg_start, seg_first, reason = position, len(record), "board resynchronised"
        plies = []
    out.append(Segment(seg_first, seg_start, tuple(plies), reason))
    return out


def games(
    start: Position,
    record: Sequence[RecordedPly],
    position: Position,
    *,
    flags: Sequence[IrregularityFlagged] = (),
    tags: dict[str, str] | None = None,
    result: str = "*",
) -> list[Game]:
    """The record as PDN-ready games, one per segment, with times and flags as comments."""
    out = []
    segs = segments(start, record, position)
    # each flag goes to the first segment that reaches its ply
    ends = [seg.first_ply for seg in segs[1:]] + [len(record)]
    placed: dict[int, list[IrregularityFlagged]] = {}
    for f in flags:
        i = next((i for i, end in enumerate(ends) if f.ply <= end), len(segs) - 1)
        placed.setdefault(i, []).append(f)
    for i, seg in enumerate(segs):
        game = Game(start.variant, seg.start, dict(tags or {}))
        notes: dict[int, list[str]] = {}
        if seg.reason:
            notes[0] = [f"play continued after {seg.reason}"]
        for r in seg.plies:
            assert r.move is not None
            game.push(r.move)
            notes.setdefault(game.ply, []).append(f"[%time {r.time:.1f}]")
            if r.alternatives:
                notes[game.ply].append("camera could not tell: " + " / ".join(r.alternatives))
        for f in placed.get(i, []):
            where = min(max(f.ply - seg.first_ply, 0), game.ply)
            text = f"ply {f.ply}: {f.kind.value.replace('_', ' ')} ({f.article}): {f.evidence}"
            notes.setdefault(where, []).append(text)
        game.comments = {ply: " ".join(texts) for ply, texts in notes.items()}
        game.result = result if i == len(segs) - 1 else "*"
        out.append(game)
    return out


def pdn(games_: Sequence[Game]) -> str:
    """The games as one PDN text."""
    return "\n".join(g.pdn() for g in games_)

"""What an overhead camera sees of a position, and which legal moves it cannot tell apart.

From above, a square shows only its top piece (colour, king stripe) and, at best, the
height of its stack; the pieces underneath are known only from the move history
(digest ``column-draughts.md`` §5). The recorder matches each observation against the
view after every legal move, so it needs to know when two legal moves leave the same
view but different positions: then it must ask for height evidence, or, when the
heights agree too, for an arbiter's choice (digest 5.5: such positions exist).

This works for every variant: in the draughts family each occupied square holds one
piece (height 1; a draughts king is one piece, physically two discs), so two different
positions never look alike there.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.move import Move
from rules.observation import Top

if TYPE_CHECKING:
    from rules.position import Position


@dataclass(frozen=True, slots=True)
class SquareView:
    """One square seen from above: the top piece and the number of pieces in its stack."""

    top: Top
    height: int


View = tuple[SquareView, ...]
"""A board seen from above, indexed by :data:`rules.geometry.Square`."""


def view(position: Position) -> View:
    """The overhead view of a position.

    >>> from rules import Position, find_variant
    >>> v = view(Position.from_fen("bashni", "W:Wc1(Wbbbb):Bd8"))
    >>> v[29], v[1]
    (SquareView(top=<Top.WHITE_KING: 2>, height=5), SquareView(top=<Top.BLACK_MAN: 3>, height=1))
    """
    return tuple(
        SquareView(Top.of(position.piece_at(sq)), len(position.stack(sq)))
        for sq in position.variant.geometry.squares
    )


SWAPPED_TOP = (Top.EMPTY, Top.BLACK_MAN, Top.BLACK_KING, Top.WHITE_MAN, Top.WHITE_KING)
"""Each top (by its value) with its colour exchanged."""


def looks_the_same_swapped(position: Position) -> bool:
    """Whether the position looks the same from above turned half a turn with its colours
    exchanged (every start position of a variant whose two sides start alike): a camera
    that cannot tell the two sets' colours apart cannot tell which side is White's."""
    seen = view(position)
    last = len(seen) - 1
    return all(
        seen[last - sq].top == SWAPPED_TOP[sv.top] and seen[last - sq].height == sv.height
        for sq, sv in enumerate(seen)
    )


def tops(v: View) -> tuple[Top, ...]:
    """Only the colours and stripes of a view: what a camera that cannot judge height sees."""
    return tuple(s.top for s in v)


def view_after(position: Position, move: Move) -> View:
    """What the camera will see once ``move`` (a legal move) has been played."""
    return view(position.play(move))


@dataclass(frozen=True)
class LookAlike:
    """Legal moves that leave identical tops but different positions.

    ``moves`` holds one move per different resulting position. ``by_height`` splits
    them by the heights they leave: a group of one is told apart by a height reading;
    a larger group looks the same from above in every respect and needs an arbiter (or
    the intermediate frames, or the side walls of the towers).
    """

    moves: tuple[Move, ...]
    by_height: tuple[tuple[Move, ...], ...]

    @property
    def heights_decide(self) -> bool:
        """Whether a correct height on every square tells all of these moves apart."""
        return all(len(group) == 1 for group in self.by_height)


def look_alikes(position: Position, moves: list[Move] | None = None) -> list[LookAlike]:
    """Groups of legal moves (or of ``moves``) that an overhead camera sees as one.

    Moves reaching the same position are one move for the record and count once.
    """
    moves = position.legal_moves() if moves is None else moves
    by_position: dict[Position, Move] = {}
    for move in moves:
        by_position.setdefault(position.play(move), move)
    by_tops: dict[tuple[Top, ...], list[tuple[View, Move]]] = defaultdict(list)
    for after, move in by_position.items():
        v = view(after)
        by_tops[tops(v)].append((v, move))
    groups = []
    for members in by_tops.values():
        if len(members) < 2:
            continue
        by_height: dict[View, list[Move]] = defaultdict(list)
        for v, move in members:
            by_height[v].append(move)
        groups.append(
            LookAlike(
                tuple(m for _v, m in members),
                tuple(tuple(ms) for ms in by_height.values()),
            )
        )
    return groups

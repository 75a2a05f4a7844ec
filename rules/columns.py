"""Column draughts (bashni, lasca): tower moves in the same Position type.

A tower moves and captures with the rights of its top piece (Code §1.5.1). What makes
the capture search differ from :mod:`rules.movegen` (and why it is a separate search
rather than a switch there) is the Code's rule that every capture takes effect *at once*
(§1.6.1): only the top piece of the jumped tower is taken, it goes under the capturing
tower immediately, in the order taken, and the jumped tower's next piece is its new top
straight away. So a tower may be jumped again in the same move, squares emptied
mid-capture are empty at once, and a freed tower may change owner mid-move. The search
therefore runs on a list of stacks that it changes and restores, not on bitboards.

What is the same as the draughts family is reused: quiet moves depend only on the top
pieces and come from :func:`rules.movegen.quiet_moves`, and the diagonal rays come from
the geometry.

Defaults the Code leaves open (digest ``../shared/rules/column-draughts.md``):

* a capture may not turn back 180 degrees over the tower it has just jumped (2.6.10;
  ``Variant.capture_reversal`` switches it on);
* the capturing tower's start square counts as empty during the move (2.6.10);
* free choice among captures, every capture carried to its end, a flying king landing
  where it can go on capturing when such a square exists (§1.6.3a, §1.6.3b);
* bashni: a man reaching the far row mid-capture goes on as a king (§1.6.3b); lasca: it
  is crowned and the move ends (§2.4.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from rules.errors import IllegalMoveError
from rules.geometry import Square
from rules.move import Move
from rules.movegen import quiet_moves
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Piece, Stack
from rules.variants import Color, CrowningInCapture, Variant

if TYPE_CHECKING:
    from rules.position import Position

_OPPOSITE = (3, 2, 1, 0)
"""Direction index turned 180 degrees (up-left, up-right, down-left, down-right)."""
_KING = {Color.WHITE: WHITE_KING, Color.BLACK: BLACK_KING}
_FORWARD = {Color.WHITE: (0, 1), Color.BLACK: (2, 3)}
"""Directions toward the far row (White plays up the board, towards row 0)."""


@dataclass(frozen=True)
class _Tables:
    rays: tuple[tuple[tuple[Square, ...], ...], ...]
    """``rays[sq][d]``: squares met walking from ``sq`` in direction ``d``, nearest first."""
    promotion: tuple[frozenset[Square], frozenset[Square]]
    """Far-row squares of White's and Black's men, by ``Color.value``."""


@cache
def _tables(variant: Variant) -> _Tables:
    g = variant.geometry
    sq_of = g.square_of_bit
    rays = tuple(tuple(tuple(sq_of[b] for b in ray) for ray in g.rays[sq]) for sq in g.squares)
    promotion = tuple(
        frozenset(g.squares_of(g.row_mask(variant.promotion_row(c))))
        for c in (Color.WHITE, Color.BLACK)
    )
    return _Tables(rays, (promotion[0], promotion[1]))


def tower_possible(stack: Stack) -> bool:
    """Whether some sequence of captures can build this tower (digest 2.4).

    A tower is one or more pieces of its owner's colour on top, then zero or more
    prisoners of the other colour: a capture adds a prisoner at the bottom and takes only
    the top piece of the tower it jumps, so no tower ever holds three colour blocks.

    >>> from rules.pieces import parse_stack
    >>> tower_possible(parse_stack("WwbB")), tower_possible(parse_stack("wbw"))
    (True, False)
    """
    if not stack:
        return False
    owner = stack[0].color
    i = 0
    while i < len(stack) and stack[i].color is owner:
        i += 1
    return all(p.color is not owner for p in stack[i:])


def legal_moves(position: Position, *, keep_duplicates: bool = False) -> list[Move]:
    """Every legal move: captures only when one exists (§1.6.1), all of them (free choice).

    Two capture routes that leave the same position with the same start and end are one
    move unless ``keep_duplicates`` (the order of the prisoners is part of the position,
    so routes taking the same towers in another order stay apart when their towers differ).
    """
    variant = position.variant
    search = _CaptureSearch(variant, _board(position), position.turn, keep_duplicates)
    captures = search.run()
    if captures:
        return captures
    white = position.turn is Color.WHITE
    me, opp = (position.white, position.black) if white else (position.black, position.white)
    return quiet_moves(variant, me, opp, position.kings, white)


def _board(position: Position) -> list[Stack]:
    """Every square's stack, top first."""
    return [_stack_at(position, sq) for sq in position.variant.geometry.squares]


class _CaptureSearch:
    """Depth-first search of every complete capture, the board changed as it goes."""

    def __init__(
        self, variant: Variant, board: list[Stack], turn: Color, keep_duplicates: bool
    ) -> None:
        self.variant = variant
        self.board = board
        self.turn = turn
        t = _tables(variant)
        self.rays = t.rays
        self.promotion = t.promotion[turn.value]
        self.man_dirs = (0, 1, 2, 3) if variant.men_capture_backward else _FORWARD[turn]
        self.crown_continues = variant.crowning_in_capture is CrowningInCapture.CONTINUE_AS_KING
        self.moves: list[Move] = []
        self.keep_duplicates = keep_duplicates
        self.seen: dict[tuple[Square, Square, tuple[Square, ...]], list[Stack]] = {}
        """Towers built so far by routes with the same ends and the same jumps."""

    def run(self) -> list[Move]:
        board = self.board
        for sq, tower in enumerate(board):
            if tower and tower[0].color is self.turn:
                board[sq] = ()  # the start square is empty while the tower is in the air
                self._extend(sq, tower, [sq], [], None, False)
                board[sq] = tower
        return self.moves

    def _emit(self, tower: Stack, path: list[Square], caps: list[Square], crowned: bool) -> None:
        if not self.keep_duplicates:
            # Same ends, same towers jumped as often, same tower built: same position.
            built = self.seen.setdefault((path[0], path[-1], tuple(sorted(caps))), [])
            if tower in built:
                return
            built.append(tower)
        self.moves.append(Move(tuple(path), tuple(caps), crowned, self.variant))

    def _extend(
        self,
        at: Square,
        tower: Stack,
        path: list[Square],
        caps: list[Square],
        last_dir: int | None,
        crowned: bool,
    ) -> bool:
        """Try every jump from ``at``; record finished routes; False if none was possible."""
        board = self.board
        king = tower[0].king
        flying = king and self.variant.flying_kings
        reversal = self.variant.capture_reversal
        extended = False
        for d in (0, 1, 2, 3) if king else self.man_dirs:
            if last_dir is not None and d == _OPPOSITE[last_dir] and not reversal:
                continue
            ray = self.rays[at][d]
            i = 0
            if flying:
                while i < len(ray) and not board[ray[i]]:
                    i += 1
            if i + 1 >= len(ray):
                continue
            victim = ray[i]
            victim_tower = board[victim]
            if not victim_tower or victim_tower[0].color is self.turn or board[ray[i + 1]]:
                continue
            landings = [ray[i + 1]]
            if flying:
                j = i + 2
                while j < len(ray) and not board[ray[j]]:
                    landings.append(ray[j])
                    j += 1
            extended = True
            # Take the top piece at once; it goes under the capturing tower (§1.6.1).
            board[victim] = victim_tower[1:]
            grown = (*tower, victim_tower[0])
            caps.append(victim)
            if flying:
                self._king_landings(grown, path, caps, d, landings, crowned)
            else:
                self._man_landing(grown, path, caps, d, landings[0], crowned)
            caps.pop()
            board[victim] = victim_tower
        return extended

    def _king_landings(
        self,
        tower: Stack,
        path: list[Square],
        caps: list[Square],
        d: int,
        landings: list[Square],
        crowned: bool,
    ) -> None:
        """A flying king must land where it can go on capturing, if it can (§1.6.3b)."""
        continuing = False
        for land in landings:
            path.append(land)
            if self._extend(land, tower, path, caps, d, crowned):
                continuing = True
            path.pop()
        if not continuing:
            for land in landings:
                path.append(land)
                self._emit(tower, path, caps, crowned)
                path.pop()

    def _man_landing(
        self,
        tower: Stack,
        path: list[Square],
        caps: list[Square],
        d: int,
        land: Square,
        crowned: bool,
    ) -> None:
        path.append(land)
        if not tower[0].king and land in self.promotion:
            tower = (_KING[self.turn], *tower[1:])
            crowned = True
            if not self.crown_continues:
                self._emit(tower, path, caps, crowned)  # lasca: crowning ends the move
                path.pop()
                return
        if not self._extend(land, tower, path, caps, d, crowned):
            self._emit(tower, path, caps, crowned)
        path.pop()


def play(position: Position, move: Move) -> Position:
    """The position after a tower move.

    Each jump takes the top piece of the jumped tower and puts it under the moving tower
    at once (§1.6.1); a man-topped tower is crowned on the far row, mid-capture too
    (§1.5.2, §1.6.3b). The move's squares are checked as it is applied (the start holds
    a tower of the side to move, every jumped square an enemy top on the diagonal between
    two landings, every landing is empty), so a move that jumps an empty square raises
    :class:`IllegalMoveError` and nothing is changed. Whether the move is the one the
    rules demand (compulsory, complete capture) is for :func:`legal_moves` to say.
    """
    from rules.position import Position

    variant, g, turn = position.variant, position.variant.geometry, position.turn
    changed: dict[Square, Stack] = {}  # the squares the move touches, as they are now

    def stack(sq: Square) -> Stack:
        return changed[sq] if sq in changed else _stack_at(position, sq)

    def refuse(why: str) -> IllegalMoveError:
        return IllegalMoveError(
            f"illegal move {move.notation(full=True)!r} in {position.fen()}: {why}"
        )

    tower = stack(move.path[0])
    if not tower or tower[0].color is not turn:
        raise refuse(f"no {turn.name.lower()} tower on {g.name(move.path[0])}")
    if move.captures and len(move.path) != len(move.captures) + 1:
        raise refuse("a capture needs one landing square per captured square")
    if not move.captures and len(move.path) != 2:
        raise refuse("a plain move has two squares")
    changed[move.path[0]] = ()
    promotion = _tables(variant).promotion[turn.value]
    for step, (start, land) in enumerate(zip(move.path, move.path[1:], strict=False)):
        between = g.diagonal_between(start, land)
        if between is None:
            raise refuse(f"{g.name(start)} and {g.name(land)} are not on one diagonal")
        if stack(land):
            raise refuse(f"{g.name(land)} is occupied")
        reach_error = _reach_error(variant, tower[0], start, land, bool(move.captures))
        if reach_error:
            raise refuse(reach_error)
        occupied = [sq for sq in between if stack(sq)]
        if move.captures:
            victim = move.captures[step]
            if occupied != [victim]:
                raise refuse(
                    f"the jump {g.name(start)}:{g.name(land)} must pass exactly one tower, "
                    f"on {g.name(victim)}"
                )
            victim_tower = stack(victim)
            if victim_tower[0].color is turn:
                raise refuse(f"{g.name(victim)} is not an enemy tower")
            changed[victim] = victim_tower[1:]
            tower = (*tower, victim_tower[0])
        elif occupied:
            raise refuse(f"the way from {g.name(start)} to {g.name(land)} is blocked")
        if not tower[0].king and land in promotion:
            tower = (_KING[turn], *tower[1:])
            more = step + 1 < len(move.captures)
            if more and variant.crowning_in_capture is not CrowningInCapture.CONTINUE_AS_KING:
                raise refuse(f"crowning on {g.name(land)} ends the move (§2.4.2)")
    changed[move.path[-1]] = tower
    white, black, kings, below = position.white, position.black, position.kings, [*position.below]
    for sq, new in changed.items():
        bit = g.bits[sq]
        white, black, kings = white & ~bit, black & ~bit, kings & ~bit
        below[sq] = new[1:]
        if new:
            if new[0].color is Color.WHITE:
                white |= bit
            else:
                black |= bit
            if new[0].king:
                kings |= bit
    return Position(variant, white, black, kings, turn.other, tuple(below))


def _stack_at(position: Position, sq: Square) -> Stack:
    bit = position.variant.geometry.bits[sq]
    if position.white & bit:
        return (WHITE_KING if position.kings & bit else WHITE_MAN, *position.below[sq])
    if position.black & bit:
        return (BLACK_KING if position.kings & bit else BLACK_MAN, *position.below[sq])
    return ()


def _reach_error(variant: Variant, top: Piece, start: Square, land: Square, capture: bool) -> str:
    """Why ``top`` cannot go from ``start`` to ``land`` in one step or jump ('' if it can)."""
    g = variant.geometry
    (r0, _c0), (r1, _c1) = g.rowcol(start), g.rowcol(land)
    distance = abs(r1 - r0)
    forward = (r1 < r0) if top.color is Color.WHITE else (r1 > r0)
    what = f"{g.name(start)} to {g.name(land)}"
    if top.king:
        if not variant.flying_kings and distance != (2 if capture else 1):
            return f"a {variant.name} king cannot go from {what} (§2.4.1)"
        return ""
    if distance != (2 if capture else 1):
        return f"a man cannot go from {what}"
    if not forward and not (capture and variant.men_capture_backward):
        return f"a man cannot go backward from {what}"
    return ""

"""Legal move generation for the draughts family, on bitboards held in Python ints.

Why hand-written: no maintained library covers all these variants with the speed the
live recorder needs (it searches several plies after an occlusion). The generator uses
the padded bit layout of :mod:`rules.geometry`: men's quiet moves are whole-board
shifts, and captures are a depth-first search over precomputed diagonal rays.

Capture rules common to every variant here (I 4.x; S1 §5; WCDF):

* capturing is compulsory and a capture is carried to its end: the search returns only
  maximal sequences, and a flying king must land where it can go on capturing when
  such a square exists;
* the Turkish strike rule: jumped pieces stay on the board until the move ends, so they
  block the way and cannot be jumped twice (I 4.11, S1 §5.10);
* the moving piece's own start square counts as empty during the move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.move import Move
from rules.variants import CaptureRule, Color, CrowningInCapture, Variant

if TYPE_CHECKING:
    from rules.position import Position

_Rays = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]


_WHITE = Color.WHITE  # a global is ten times faster to read than an Enum member (3.11)

_RayMoves = tuple[tuple[tuple[int, Move], ...], ...]


@dataclass(frozen=True)
class _Tables:
    """Per-variant lookup tables, built once.

    Quiet moves are values that depend only on their two squares, so they are built here
    once and shared: generating them is then a dictionary lookup per move (moves are
    immutable, so sharing is safe).
    """

    square_of_bit: dict[int, int]
    rays: dict[int, _Rays]
    all_squares: int
    promotion_mask: tuple[int, int]  # by Color.value
    up_left: int
    up_right: int
    man_steps: tuple[tuple[dict[int, Move], dict[int, Move]], tuple[dict[int, Move], ...]]
    """``man_steps[color][i][to_bit]``: the man's step onto ``to_bit`` along shift ``i``."""
    king_steps: dict[int, _RayMoves]
    """``king_steps[bit][d]``: (square bit, quiet king move there) along ray ``d``."""
    start_masks: tuple[int, int]
    """White's and Black's men at the start."""
    square_by_name: dict[str, int]
    """Official square names (as FEN writes them) to squares."""


_TABLES: dict[str, _Tables] = {}


def tables(variant: Variant) -> _Tables:
    t = _TABLES.get(variant.name)
    if t is None:
        t = _build_tables(variant)
        _TABLES[variant.name] = t
    return t


def _build_tables(variant: Variant) -> _Tables:
    g = variant.geometry
    sq_of = g.square_of_bit
    promotion_mask = (
        g.row_mask(variant.promotion_row(Color.WHITE)),
        g.row_mask(variant.promotion_row(Color.BLACK)),
    )
    shifts = (g.size + 2, g.size)
    man_steps: list[tuple[dict[int, Move], ...]] = []
    for color in (Color.WHITE, Color.BLACK):
        per_shift = []
        for shift in shifts:
            table = {}
            for frm in g.bits:
                to = (frm >> shift) if color is Color.WHITE else (frm << shift)
                if to in sq_of:
                    promotes = bool(to & promotion_mask[color.value])
                    table[to] = Move((sq_of[frm], sq_of[to]), (), promotes, variant)
            per_shift.append(table)
        man_steps.append(tuple(per_shift))
    king_steps = {
        g.bits[sq]: tuple(
            tuple((b, Move((sq, sq_of[b]), (), False, variant)) for b in ray) for ray in g.rays[sq]
        )
        for sq in g.squares
    }
    return _Tables(
        square_of_bit=sq_of,
        rays={g.bits[sq]: g.rays[sq] for sq in g.squares},  # type: ignore[misc]
        all_squares=g.all_squares,
        promotion_mask=promotion_mask,
        up_left=shifts[0],
        up_right=shifts[1],
        man_steps=(man_steps[0], man_steps[1]),  # type: ignore[arg-type]
        king_steps=king_steps,
        start_masks=(g.mask_of(variant.start_squares[0]), g.mask_of(variant.start_squares[1])),
        square_by_name={name: sq for sq, name in enumerate(g.names)},
    )


@dataclass(frozen=True, slots=True)
class _Capture:
    """A capture sequence as found, before the variant's choice rule filters it."""

    path: tuple[int, ...]  # bits
    captures: tuple[int, ...]  # bits
    promotes: bool
    by_king: bool


def legal_moves(position: Position, *, keep_duplicates: bool = False) -> list[Move]:
    """Every legal move, captures first-and-only when one exists.

    ``keep_duplicates`` keeps capture routes that take the same pieces to the same
    square (perft tables are published both ways); play never wants them.
    """
    variant = position.variant
    t = tables(variant)
    white_to_move = position.turn is _WHITE
    me, opp = (
        (position.white, position.black) if white_to_move else (position.black, position.white)
    )
    kings = position.kings
    capturers = _capturers(variant, t, me, opp, kings, white_to_move)
    chosen = (
        _legal_captures(variant, t, capturers, me, opp, kings, white_to_move, keep_duplicates)
        if capturers
        else None
    )
    if not chosen:
        return _quiet_moves(variant, t, me, opp, kings, white_to_move)
    sq = t.square_of_bit
    return [
        Move(
            tuple([sq[b] for b in c.path]), tuple([sq[b] for b in c.captures]), c.promotes, variant
        )
        for c in chosen
    ]


def _legal_captures(
    variant: Variant,
    t: _Tables,
    capturers: int,
    me: int,
    opp: int,
    kings: int,
    white_to_move: bool,
    keep_duplicates: bool,
) -> list[_Capture]:
    """The captures the variant's choice rule allows, duplicates merged unless kept."""
    found = _captures(variant, t, capturers, me, opp, kings, white_to_move)
    if not found:
        return found
    chosen = _apply_capture_rule(variant.capture_rule, found, kings)
    if keep_duplicates:
        return chosen
    unique: dict[tuple[int, int, frozenset[int]], _Capture] = {}
    for c in chosen:
        unique.setdefault((c.path[0], c.path[-1], frozenset(c.captures)), c)
    return list(unique.values())


def _quiet_moves(
    variant: Variant, t: _Tables, me: int, opp: int, kings: int, white_to_move: bool
) -> list[Move]:
    empty = t.all_squares & ~(me | opp)
    men = me & ~kings
    steps = t.man_steps[0 if white_to_move else 1]
    moves: list[Move] = []
    for shift, table in ((t.up_left, steps[0]), (t.up_right, steps[1])):
        targets = ((men >> shift) if white_to_move else (men << shift)) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            moves.append(table[to])
    if me & kings:
        moves += _king_quiet_moves(t, me & kings, empty, variant.flying_kings)
    return moves


def quiet_moves(variant: Variant, me: int, opp: int, kings: int, white_to_move: bool) -> list[Move]:
    """Every non-capturing move of the side whose pieces are ``me`` (bitboards), whether or
    not a capture is compulsory: the arbiter and column draughts need them on their own."""
    return _quiet_moves(variant, tables(variant), me, opp, kings, white_to_move)


def _king_quiet_moves(t: _Tables, my_kings: int, empty: int, flying: bool) -> list[Move]:
    moves: list[Move] = []
    while my_kings:
        k = my_kings & -my_kings
        my_kings ^= k
        for ray in t.king_steps[k]:
            for b, move in ray:
                if not b & empty:
                    break
                moves.append(move)
                if not flying:
                    break
    return moves


def count_legal_moves(position: Position, *, keep_duplicates: bool = False) -> int:
    """``len(legal_moves(position))`` without building any move (perft's bulk count at
    the last ply)."""
    variant = position.variant
    t = tables(variant)
    white_to_move = position.turn is _WHITE
    me, opp = (
        (position.white, position.black) if white_to_move else (position.black, position.white)
    )
    kings = position.kings
    capturers = _capturers(variant, t, me, opp, kings, white_to_move)
    if capturers:
        chosen = _legal_captures(
            variant, t, capturers, me, opp, kings, white_to_move, keep_duplicates
        )
        if chosen:
            return len(chosen)
    empty = t.all_squares & ~(me | opp)
    men = me & ~kings
    count = 0
    for shift in (t.up_left, t.up_right):
        count += (((men >> shift) if white_to_move else (men << shift)) & empty).bit_count()
    if me & kings:  # kings are few: listing their moves costs little
        count += len(_king_quiet_moves(t, me & kings, empty, variant.flying_kings))
    return count


def _capturers(
    variant: Variant, t: _Tables, me: int, opp: int, kings: int, white_to_move: bool
) -> int:
    """The pieces that have a capture: whole-board shifts for men and short kings, a ray
    scan for flying kings. Most positions have none, and then no capture search runs."""
    empty = t.all_squares & ~(me | opp)
    men = me & ~kings
    men_prey = opp if variant.men_capture_kings else opp & ~kings
    forward_only = not variant.men_capture_backward
    found = 0
    for shift in (t.up_left, t.up_right):
        # A right shift moves toward row 0: White's forward.
        if not forward_only or white_to_move:
            found |= ((((men >> shift) & men_prey) >> shift) & empty) << (2 * shift)
        if not forward_only or not white_to_move:
            found |= ((((men << shift) & men_prey) << shift) & empty) >> (2 * shift)
    my_kings = me & kings
    if not my_kings:
        return found
    if not variant.flying_kings:
        for shift in (t.up_left, t.up_right):
            found |= ((((my_kings >> shift) & opp) >> shift) & empty) << (2 * shift)
            found |= ((((my_kings << shift) & opp) << shift) & empty) >> (2 * shift)
        return found
    occupied = me | opp
    while my_kings:
        k = my_kings & -my_kings
        my_kings ^= k
        for ray in t.rays[k]:
            for i, b in enumerate(ray):
                if b & occupied:
                    if b & opp and i + 1 < len(ray) and ray[i + 1] & empty:
                        found |= k
                    break
    return found


def _captures(
    variant: Variant,
    t: _Tables,
    capturers: int,
    me: int,
    opp: int,
    kings: int,
    white_to_move: bool,
) -> list[_Capture]:
    """Every maximal capture sequence of the ``capturers`` (pieces of ``me``)."""
    rays = t.rays
    promo = t.promotion_mask[0 if white_to_move else 1]
    flying = variant.flying_kings
    men_dirs = (
        (0, 1, 2, 3) if variant.men_capture_backward else ((0, 1) if white_to_move else (2, 3))
    )
    men_take_kings = variant.men_capture_kings
    crown_and_continue = variant.crowning_in_capture is CrowningInCapture.CONTINUE_AS_KING
    out: list[_Capture] = []
    by_king = False  # whether the piece being searched started the move as a king

    def search(
        at: int, king: bool, occ: int, taken: int, path: list[int], caps: list[int], crowned: bool
    ) -> bool:
        """Extend the sequence ending at ``at``; return False if it cannot be extended."""
        extended = False
        if king and flying:
            for ray in rays[at]:
                n = len(ray)
                i = 0
                while i < n and not ray[i] & occ:
                    i += 1
                if i + 1 >= n:
                    continue
                over = ray[i]
                if not over & opp or over & taken or ray[i + 1] & occ:
                    continue
                landings = []
                j = i + 1
                while j < n and not ray[j] & occ:
                    landings.append(ray[j])
                    j += 1
                caps.append(over)
                # A king must land where it can go on capturing, if such a square exists.
                continuing = False
                for land in landings:
                    path.append(land)
                    if search(land, True, occ, taken | over, path, caps, crowned):
                        continuing = True
                    path.pop()
                if not continuing:
                    for land in landings:
                        out.append(_Capture((*path, land), tuple(caps), crowned, by_king))
                caps.pop()
                extended = True
            return extended
        dirs = (0, 1, 2, 3) if king else men_dirs
        for d in dirs:
            ray = rays[at][d]
            if len(ray) < 2:
                continue
            over, land = ray[0], ray[1]
            if not over & opp or over & taken or land & occ:
                continue
            if not king and not men_take_kings and over & kings:
                continue
            extended = True
            path.append(land)
            caps.append(over)
            now_king, now_crowned = king, crowned
            if not king and land & promo and crown_and_continue:
                now_king, now_crowned = True, True
            if not search(land, now_king, occ, taken | over, path, caps, now_crowned):
                promotes = now_crowned or (not king and bool(land & promo))
                out.append(_Capture(tuple(path), tuple(caps), promotes, by_king))
            path.pop()
            caps.pop()
        return extended

    pieces = capturers
    occupied = me | opp
    while pieces:
        b = pieces & -pieces
        pieces ^= b
        by_king = bool(b & kings)
        search(b, by_king, occupied ^ b, 0, [b], [], False)
    return out


def _apply_capture_rule(rule: CaptureRule, caps: list[_Capture], kings: int) -> list[_Capture]:
    if rule is CaptureRule.FREE:
        return caps
    if rule is CaptureRule.KING_PRIORITY:
        by_king = [c for c in caps if c.by_king]
        return by_king or caps
    most = max(len(c.captures) for c in caps)
    caps = [c for c in caps if len(c.captures) == most]
    if rule is CaptureRule.MAJORITY:
        return caps
    if rule is CaptureRule.ITALIAN:
        by_king = [c for c in caps if c.by_king]
        caps = by_king or caps

    def king_count(c: _Capture) -> int:
        return sum(1 for b in c.captures if b & kings)

    most_kings = max(king_count(c) for c in caps)
    caps = [c for c in caps if king_count(c) == most_kings]
    if rule is CaptureRule.ITALIAN and most_kings:

        def first_king(c: _Capture) -> int:
            return next(i for i, b in enumerate(c.captures) if b & kings)

        earliest = min(first_king(c) for c in caps)
        caps = [c for c in caps if first_king(c) == earliest]
    return caps

"""A deliberately simple second mover for column draughts, to check the engine's perft.

It shares nothing with :mod:`rules.columns` but the start position: the board is a dict
from ``(file, rank)`` (0-based, rank 0 White's back row, a1 dark) to a tower string top
first (``"Wbb"``), the rules are read straight from the digest
(``../shared/rules/column-draughts.md`` 2.6, 3.4, 4), and every step copies the dict.
Slow on purpose: it is only as fast as it needs to be to count a few thousand leaves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rules import Color, Position

Coord = tuple[int, int]
Board = dict[Coord, str]
DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


@dataclass(frozen=True)
class Rules:
    size: int
    men_back: bool  # men capture backward (bashni)
    flying: bool  # kings fly (bashni)
    crown_goes_on: bool  # a man crowned mid-capture goes on capturing as a king (bashni)


BASHNI_RULES = Rules(8, men_back=True, flying=True, crown_goes_on=True)
LASCA_RULES = Rules(7, men_back=False, flying=False, crown_goes_on=False)


def from_position(position: Position) -> tuple[Board, str]:
    """The engine's position as a reference board and the side to move (``w``/``b``)."""
    g = position.variant.geometry
    board: Board = {}
    for sq, stack in position.stacks():
        row, col = g.rowcol(sq)
        board[(col, g.size - 1 - row)] = "".join(p.symbol for p in stack)
    return board, "w" if position.turn is Color.WHITE else "b"


def _on(rules: Rules, c: Coord) -> bool:
    return 0 <= c[0] < rules.size and 0 <= c[1] < rules.size


def _owner(tower: str) -> str:
    return tower[0].lower()


def _far_rank(rules: Rules, side: str) -> int:
    return rules.size - 1 if side == "w" else 0


def _crowned(tower: str) -> str:
    return tower[0].upper() + tower[1:]


def _jumps(
    rules: Rules, board: Board, side: str, at: Coord, tower: str, came: Coord | None
) -> Iterator[tuple[Coord, Coord, Coord]]:
    """(direction, victim, landing) for every single jump from ``at``."""
    king = tower[0].isupper()
    ahead = 1 if side == "w" else -1
    for d in DIRECTIONS:
        if came is not None and d == (-came[0], -came[1]):
            continue  # no turning back 180 degrees (digest 2.6.10)
        if not king and not rules.men_back and d[1] != ahead:
            continue
        step = 1
        victim = (at[0] + d[0], at[1] + d[1])
        if king and rules.flying:
            while _on(rules, victim) and victim not in board:
                step += 1
                victim = (at[0] + step * d[0], at[1] + step * d[1])
        if not _on(rules, victim) or victim not in board or _owner(board[victim]) == side:
            continue
        land = (victim[0] + d[0], victim[1] + d[1])
        while _on(rules, land) and land not in board:
            yield d, victim, land
            if not (king and rules.flying):
                break
            land = (land[0] + d[0], land[1] + d[1])


def _captures(
    rules: Rules, board: Board, side: str, at: Coord, tower: str, came: Coord | None
) -> list[tuple[Coord, Board]]:
    """Every finished capture from ``at``: (end square, board after with the tower placed)."""
    landings: dict[tuple[Coord, Coord], list[Coord]] = {}
    for d, victim, land in _jumps(rules, board, side, at, tower, came):
        landings.setdefault((d, victim), []).append(land)
    out: list[tuple[Coord, Board]] = []
    for (d, victim), lands in landings.items():
        after = dict(board)
        taken = after.pop(victim)  # only the top piece goes, at once (§1.6.1)
        if taken[1:]:
            after[victim] = taken[1:]
        grown = tower + taken[0]
        tries = []
        for land in lands:
            moved, stop = grown, False
            if moved[0].islower() and land[1] == _far_rank(rules, side):
                moved, stop = _crowned(moved), not rules.crown_goes_on
            more = [] if stop else _captures(rules, after, side, land, moved, d)
            tries.append((land, moved, more))
        if any(more for _land, _moved, more in tries):
            for _land, _moved, more in tries:  # a king lands where it can go on (§1.6.3b)
                out.extend(more)
        else:
            out.extend((land, {**after, land: moved}) for land, moved, _more in tries)
    return out


def moves(rules: Rules, board: Board, side: str) -> list[tuple[Coord, Coord, Board]]:
    """Every legal move as (from, to, board after), one per different result."""
    found: list[tuple[Coord, Coord, Board]] = []
    for at, tower in board.items():
        if _owner(tower) != side:
            continue
        empty_start = {c: t for c, t in board.items() if c != at}
        for end, after in _captures(rules, empty_start, side, at, tower, None):
            found.append((at, end, after))
    if not found:
        ahead = 1 if side == "w" else -1
        for at, tower in board.items():
            if _owner(tower) != side:
                continue
            king = tower[0].isupper()
            for d in DIRECTIONS:
                if not king and d[1] != ahead:
                    continue
                to = (at[0] + d[0], at[1] + d[1])
                while _on(rules, to) and to not in board:
                    after = {c: t for c, t in board.items() if c != at}
                    crown = not king and to[1] == _far_rank(rules, side)
                    after[to] = _crowned(tower) if crown else tower
                    found.append((at, to, after))
                    if not (king and rules.flying):
                        break
                    to = (to[0] + d[0], to[1] + d[1])
    unique: dict[tuple[Coord, Coord, frozenset[tuple[Coord, str]]], tuple[Coord, Coord, Board]]
    unique = {}
    for frm, to, after in found:
        unique.setdefault((frm, to, frozenset(after.items())), (frm, to, after))
    return list(unique.values())


def perft(rules: Rules, board: Board, side: str, depth: int) -> int:
    if depth == 0:
        return 1
    other = "b" if side == "w" else "w"
    return sum(perft(rules, after, other, depth - 1) for _f, _t, after in moves(rules, board, side))

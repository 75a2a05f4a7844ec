"""Notation of the column-draughts Code: moves (§1.10, §2.3) and positions with towers.

Moves are written ``c3-b4``, ``a3:a7``, ``9-12``, ``15:9``; a long capture may list the
squares where its direction changes, or every landing square
(``b2:d4:f6:d8D:a5:d2:h6``); the capital ``D`` marks the square where a man was
crowned. Bashni also has the short form (``cb4`` = c3-b4, ``a:a7``). The printed Code
has Cyrillic look-alike letters (``с1``, ``аЗ``) and spaces (``1: 9``); the parser
takes them (digest section 0).

Positions are written as own pieces over prisoners, top first, ``0`` a man, ``1`` a
king: ``White: c1 - 1/0000, d6 - 000000, f4 - 0000 (3); Black: a1 - 110101/1, b2 - 00 (2)``
(digest 2.10). A single man is its square alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rules.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError, InvalidMoveError
from rules.geometry import Square
from rules.move import Move
from rules.pieces import Piece, Stack
from rules.variants import Color, Variant

if TYPE_CHECKING:
    from rules.position import Position

_LOOK_ALIKES = str.maketrans(
    {
        "а": "a",
        "с": "c",
        "е": "e",
        "О": "0",
        "о": "0",
        "З": "3",
        "—": "-",
        "–": "-",
        "×": ":",
    }
)
"""Cyrillic letters and dashes the printed Code uses for Latin ones (digest section 0)."""

_SHORT = re.compile(r"^([a-h])(:?)([a-h][1-8])(D?)$")
"""Bashni short form: origin file, optional colon, destination square (§1.10 note)."""


def normalise(text: str) -> str:
    """Move text with look-alikes replaced and spaces, annotations and move numbers gone.

    >>> normalise("13: 5"), normalise("с1-d2"), normalise("11.b2:d4")
    ('13:5', 'c1-d2', 'b2:d4')
    """
    cleaned = text.translate(_LOOK_ALIKES).replace(" ", "").rstrip("!?+#*")
    return re.sub(r"^\d+\.+", "", cleaned)


def parse_move(position: Position, text: str) -> Move:
    """The legal move that ``text`` names, in the Code's notation.

    Any in-order subset of the landing squares is accepted, and a move's every landing
    square written out names that move alone; a ``D`` must stand on the
    square where the move crowns a man. Raises :class:`InvalidMoveError` for text that is
    not a move, :class:`IllegalMoveError` when no legal move fits, and
    :class:`AmbiguousMoveError` when moves that fit lead to different positions.
    """
    from rules.position import _route_fits

    g = position.variant.geometry
    cleaned = normalise(text)
    moves = position.legal_moves()
    short = _SHORT.match(cleaned) if g.size == 8 else None
    if short:
        file, colon, dest, mark = short.groups()
        target = g.parse_square(dest)
        crown_marks = {target} if mark else set()
        matches = [
            m
            for m in moves
            if g.name(m.from_square)[0] == file
            and m.to_square == target
            and m.is_capture == bool(colon)
        ]
    else:
        parts = [p for p in re.split(r"[-:x]", cleaned) if p]
        if len(parts) < 2:
            raise InvalidMoveError(f"not a move: {text!r}")
        squares: list[Square] = []
        crown_marks = set()
        try:
            for part in parts:
                name = part[:-1] if part.endswith("D") and len(part) > 1 else part
                sq = g.numeric_square(int(name)) if name.isdigit() else g.parse_square(name)
                squares.append(sq)
                if name != part:
                    crown_marks.add(sq)
        except ValueError as exc:
            raise InvalidMoveError(f"not a move: {text!r} ({exc})") from None
        capture = ":" in cleaned or "x" in cleaned
        matches = [m for m in moves if _route_fits(m, squares) and m.is_capture == capture]
        # The full record names its move even when it is also a shortened form of a
        # longer route (bashni c3:a5 beside c3:e5:g3:e1D:a5, both ending on a5).
        matches = [m for m in matches if m.path == tuple(squares)] or matches
    matches = [m for m in matches if crown_marks <= {crown_square(position, m)}]
    if not matches:
        raise IllegalMoveError(f"illegal move: {text!r} in {position.fen()}")
    if len({position.play(m) for m in matches}) > 1:
        options = ", ".join(move_name(position, m, moves) for m in matches)
        raise AmbiguousMoveError(
            f"ambiguous move: {text!r} in {position.fen()} (could be {options})"
        )
    return matches[0]


def crown_square(position: Position, move: Move) -> Square | None:
    """Where the move crowns its top man (the first landing on the far row), or None."""
    if not move.promotes:
        return None
    g = position.variant.geometry
    far_row = position.variant.promotion_row(position.turn)
    return next(sq for sq in move.path[1:] if g.rowcol(sq)[0] == far_row)


def turning_squares(position: Position, move: Move) -> tuple[Square, ...]:
    """The start, every landing where the direction changes, and the end (§1.10)."""
    g = position.variant.geometry

    def direction(a: Square, b: Square) -> tuple[bool, bool]:
        (ra, ca), (rb, cb) = g.rowcol(a), g.rowcol(b)
        return (rb > ra, cb > ca)

    path = move.path
    kept = [path[0]]
    for i in range(1, len(path) - 1):
        if direction(path[i - 1], path[i]) != direction(path[i], path[i + 1]):
            kept.append(path[i])
    kept.append(path[-1])
    return tuple(kept)


def move_text(position: Position, move: Move, squares: tuple[Square, ...]) -> str:
    """The move written through ``squares``, with ``D`` on the crowning square."""
    g = position.variant.geometry
    crown = crown_square(position, move)
    if crown is not None and crown not in squares:
        # Mid-capture crowning always turns the tower (it cannot go on past the far row).
        squares = turning_squares(position, move)
    sep = ":" if move.captures else "-"
    return sep.join(g.name(sq) + ("D" if sq == crown else "") for sq in squares)


def move_name(
    position: Position, move: Move, moves: list[Move] | None = None, *, full: bool = False
) -> str:
    """The shortest of ``from:to``, the turning squares, every landing square, that no
    other legal move leading elsewhere shares (§1.10: the full record when needed).

    ``full`` writes every landing square, as the Code's own example does
    (``b2:d4:f6:d8D:a5:d2:h6``).
    """
    from rules.position import _route_fits

    if full:
        return move_text(position, move, move.path)
    moves = position.legal_moves() if moves is None else moves
    after = position.play(move)
    others = [m for m in moves if m != move]
    for squares in ((move.path[0], move.path[-1]), turning_squares(position, move)):
        clash = [m for m in others if _route_fits(m, list(squares)) and position.play(m) != after]
        if not clash:
            return move_text(position, move, squares)
    return move_text(position, move, move.path)


# -- positions in the Code's form -------------------------------------------------------------

_LABELS = {
    "white": Color.WHITE,
    "w": Color.WHITE,
    "белые": Color.WHITE,
    "black": Color.BLACK,
    "b": Color.BLACK,
    "черные": Color.BLACK,
    "чёрные": Color.BLACK,
}
_SIDE = re.compile(r"^\s*([^\W\d_]+)\s*[:\-]?\s*(.*?)\s*(?:\((\d+)\))?\s*$", re.DOTALL)
_ENTRY = re.compile(r"^([a-h]?\d+)(?:-([01]+)(?:/([01]*))?)?$")


def code_string(stack: Stack) -> str:
    """A tower in the Code's digits: own pieces, ``/``, prisoners, top first (``1/0000``).

    >>> from rules.pieces import parse_stack
    >>> code_string(parse_stack("Wbbbb")), code_string(parse_stack("ww"))
    ('1/0000', '00')
    """
    owner = stack[0].color
    own = "".join("1" if p.king else "0" for p in stack if p.color is owner)
    prisoners = "".join("1" if p.king else "0" for p in stack if p.color is not owner)
    return f"{own}/{prisoners}" if prisoners else own


def code_position(position: Position) -> str:
    """The position in the Code's notation, White then Black, each with its tower count."""
    g = position.variant.geometry
    sides = []
    for color in (Color.WHITE, Color.BLACK):
        entries = []
        for sq, stack in sorted(position.stacks(), key=lambda e: _sort_key(g.name(e[0]))):
            if stack[0].color is not color:
                continue
            single_man = len(stack) == 1 and not stack[0].king
            entries.append(g.name(sq) if single_man else f"{g.name(sq)} - {code_string(stack)}")
        label = "White" if color is Color.WHITE else "Black"
        sides.append(f"{label}: {', '.join(entries)} ({len(entries)})")
    return "; ".join(sides)


def _sort_key(name: str) -> tuple[str, int]:
    """The Code's order: by number, or by file then rank (``a1, a3, b2, c1``, §1.10)."""
    return ("", int(name)) if name.isdigit() else (name[0], int(name[1:]))


def parse_code_position(variant: Variant, text: str, turn: Color = Color.WHITE) -> Position:
    """Read a position written in the Code's notation (digest 2.10, 3.3).

    Raises :class:`InvalidFenError` naming the text and the part at fault: an unknown
    side, a square given twice, a tower count that disagrees with the list.

    >>> from rules.variants import BASHNI
    >>> p = parse_code_position(BASHNI, "White: c1 - 1/0000, d6 (2); Black: a1 - 00 (1)")
    >>> code_position(p)
    'White: c1 - 1/0000, d6 (2); Black: a1 - 00 (1)'
    """
    from rules.position import Position

    g = variant.geometry
    stacks: dict[Square, Stack] = {}
    for part in filter(None, (p.strip() for p in text.translate(_LOOK_ALIKES).split(";"))):
        side = _SIDE.match(part)
        label = side.group(1).lower() if side else ""
        if side is None or label not in _LABELS:
            raise InvalidFenError(f"bad position {text!r}: {part!r} does not start with a side")
        color = _LABELS[label]
        body, count = side.group(2), side.group(3)
        entries = [e.replace(" ", "") for e in body.split(",") if e.strip()]
        if count is not None and int(count) != len(entries):
            raise InvalidFenError(
                f"bad position {text!r}: {label} lists {len(entries)} towers but says ({count})"
            )
        for entry in entries:
            m = _ENTRY.match(entry)
            if not m:
                raise InvalidFenError(f"bad position {text!r}: {entry!r} is not a tower")
            name, own, prisoners = m.groups()
            try:
                sq = g.numeric_square(int(name)) if name.isdigit() else g.parse_square(name)
            except ValueError as exc:
                raise InvalidFenError(f"bad position {text!r}: {entry!r}: {exc}") from None
            if sq in stacks:
                raise InvalidFenError(f"bad position {text!r}: square {name} is given twice")
            stack = tuple(Piece(color, d == "1") for d in own or "0")
            stacks[sq] = stack + tuple(Piece(color.other, d == "1") for d in prisoners or "")
    try:
        return Position.from_stacks(variant, stacks, turn)
    except ValueError as exc:
        raise InvalidFenError(f"bad position {text!r}: {exc}") from None

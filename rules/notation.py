"""Foreign move notations met in real data, converted to official notation.

The EricCJoyce transcripts (``../shared/data/games/english-acf`` and
``international-selfplay``) number the playable squares from 0, row by row starting at
the *first mover's* back row, left to right as that player sees the board (their
``REF.png``). For English checkers the first mover is Black, so the board is seen from
Black's side; for international draughts it is White. A move is its landing squares
joined by ``-`` (``27-18-11`` for a double jump), a game is one line of moves, a TAB and
the result.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import InvalidMoveError
from rules.variants import Color, Variant


def joyce_square(variant: Variant, index: int) -> str:
    """Official name of a 0-based Joyce square in a variant (English or international).

    >>> from rules.variants import ENGLISH, INTERNATIONAL
    >>> joyce_square(ENGLISH, 0), joyce_square(ENGLISH, 31), joyce_square(INTERNATIONAL, 15)
    ('4', '29', '31')
    """
    per_row = variant.size // 2
    if not 0 <= index < variant.geometry.square_count:
        raise InvalidMoveError(f"Joyce square {index} is not on the {variant.name} board")
    row, col = divmod(index, per_row)
    if variant.first_to_move is Color.BLACK:
        # Seen from Black: row 0 is Black's back row (our row 0), left is White's right.
        return str(row * per_row + (per_row - 1 - col) + 1)
    # Seen from White: row 0 is White's back row (our last row), numbered left to right.
    return str((variant.size - 1 - row) * per_row + col + 1)


def joyce_move(variant: Variant, text: str) -> str:
    """A Joyce move (``10-13``, ``27-18-11``) in official numbers joined by ``-``."""
    try:
        squares = [int(part) for part in text.split("-")]
    except ValueError:
        raise InvalidMoveError(f"not a Joyce move: {text!r}") from None
    if len(squares) < 2:
        raise InvalidMoveError(f"not a Joyce move: {text!r}")
    return "-".join(joyce_square(variant, sq) for sq in squares)


@dataclass(frozen=True, slots=True)
class Transcript:
    """One line of a Joyce file: moves in official numbers and the PDN result."""

    moves: tuple[str, ...]
    result: str


_RESULTS = {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}


def parse_joyce_line(variant: Variant, line: str) -> Transcript | None:
    """A transcript from one line, or None for comments and blank lines.

    The first mover's win (``1-0``) becomes ``2-0`` when the first mover is White and
    ``0-2`` when it is Black (English); any other text (``Drawn by repetition``) is a draw.
    """
    line = line.rstrip("\n")
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    moves_text, _, result_text = line.partition("\t")
    moves = tuple(joyce_move(variant, m) for m in moves_text.split())
    result = _RESULTS.get(result_text.strip(), "1-1")
    if variant.first_to_move is Color.BLACK and result != "1-1":
        result = "0-2" if result == "2-0" else "2-0"
    return Transcript(moves, result)

"""The scoresheet of a recorded game: PDN text and the rows of the printable sheet.

The PDN follows PDN 3.0: the tags (Event, Site, Date, Round, White, Black, Result,
GameType, FEN when the game did not start from the initial position), the moves in
official notation with move numbers, and the arbiter's flags as comments after the ply
they concern (R-REC-06: irregularity annotations go on the scoresheet).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

from pi.record import GameRecord

RESULT_TEXT = {
    "2-0": "2-0 (White wins)",
    "0-2": "0-2 (Black wins)",
    "1-1": "1-1 (draw)",
    "0-0": "0-0 (double forfeit)",
    "*": "not finished",
}


def game_pdn(record: GameRecord, *, columns: int = 80) -> str:
    """The game as one PDN game (tags, movetext, result), ending with a blank line."""
    tags = record.all_tags()
    head = "".join(f'[{k} "{_escape(v)}"]\n' for k, v in tags.items())
    notes: dict[int, list[str]] = {}
    for f in record.flags:
        text = f.kind + (f" ({f.article})" if f.article else "")
        text += f": {f.message}" if f.message else ""
        notes.setdefault(f.ply, []).append(text)
    for r in record.resyncs:
        notes.setdefault(r.after_ply, []).append(
            f"position from the board: {r.position.fen()}" + (f" ({r.reason})" if r.reason else "")
        )
    for p in record.plies:
        if p.corrected:
            notes.setdefault(p.number, []).append("corrected by the arbiter")
    tokens: list[str] = []
    if 0 in notes:
        tokens.append(_comment(notes[0]))
    offset = 0 if record.start.turn is record.variant.first_to_move else 1
    for p in record.plies:
        k = p.number - 1 + offset
        if k % 2 == 0:
            tokens.append(f"{k // 2 + 1}.")
        elif p.number == 1 or (p.number - 1) in notes:
            tokens.append(f"{k // 2 + 1}...")
        tokens.append(p.notation)
        if p.number in notes:
            tokens.append(_comment(notes[p.number]))
    tokens.append(record.result)
    body = textwrap.fill(" ".join(tokens), width=columns, break_long_words=False)
    return f"{head}\n{body}\n\n"


def games_pdn(records: list[GameRecord]) -> str:
    """Several games in one PDN file (the broadcast feed)."""
    return "".join(game_pdn(r) for r in records)


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One numbered line: the move of the side that moves first, then the other's."""

    number: int
    first: str = ""
    second: str = ""


def sheet_columns(record: GameRecord, *, min_rows: int = 25) -> list[list[SheetRow]]:
    """Numbered move rows split into the two columns of an FMJD sheet (at least 25 rows
    each, so a blank sheet still has the 50 lines of the first time control)."""
    rows: dict[int, SheetRow] = {}
    offset = 0 if record.start.turn is record.variant.first_to_move else 1
    for p in record.plies:
        k = p.number - 1 + offset
        number = k // 2 + 1
        row = rows.get(number, SheetRow(number))
        text = p.notation + ("*" if p.corrected else "")
        rows[number] = (
            SheetRow(number, text, row.second) if k % 2 == 0 else SheetRow(number, row.first, text)
        )
    count = max(len(rows), 2 * min_rows)
    per_column = max(min_rows, math.ceil(count / 2))
    ordered = [rows.get(n, SheetRow(n)) for n in range(1, 2 * per_column + 1)]
    return [ordered[:per_column], ordered[per_column:]]


def _comment(lines: list[str]) -> str:
    return "{" + "; ".join(s.replace("{", "(").replace("}", ")") for s in lines) + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')

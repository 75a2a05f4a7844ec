"""The scoresheet of a recorded game: PDN text and the rows of the printable sheet.

The PDN follows PDN 3.0: the tags (Event, Site, Date, Round, White, Black, Result,
GameType, FEN when the game did not start from the initial position), the moves in
official notation with move numbers, and the arbiter's flags as comments after the ply
they concern (R-REC-06: irregularity annotations go on the scoresheet).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pi.record import GameRecord
from rules.pdn import StringExporter

RESULT_TEXT = {
    "2-0": "2-0 (White wins)",
    "0-2": "0-2 (Black wins)",
    "1-1": "1-1 (draw)",
    "0-0": "0-0 (double forfeit)",
    "*": "not finished",
}


def game_pdn(record: GameRecord, *, columns: int = 80) -> str:
    """The game as one PDN game (tags, movetext, result), ending with a blank line.

    Written with the rules core's :class:`~rules.pdn.StringExporter`, driven from the
    record rather than from a ``Game``: after a resync (the game went on from a position no
    legal move reaches, I 5.7) the moves no longer replay from the start, and the
    comment says from which position they do.
    """
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
    writer = StringExporter(columns=columns)
    writer.begin_game(record.variant, record.start)
    for name, value in record.all_tags().items():
        writer.visit_tag(name, value)
    writer.end_tags()
    if 0 in notes:
        writer.visit_comment("; ".join(notes[0]))
    for p in record.plies:
        writer.visit_move(p.notation)
        if p.number in notes:
            writer.visit_comment("; ".join(notes[p.number]))
    writer.visit_result(record.result)
    return writer.result() + "\n"


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

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
from rules import scoresheet as rules_scoresheet
from rules.game import Game
from rules.recorder import RecordedPly

RESULT_TEXT = {
    "2-0": "2-0 (White wins)",
    "0-2": "0-2 (Black wins)",
    "1-1": "1-1 (draw)",
    "0-0": "0-0 (double forfeit)",
    "*": "not finished",
}


def scoresheet_games(record: GameRecord) -> list[Game]:
    """The record as PDN-ready games, cut like the recorder's scoresheet
    (:mod:`rules.scoresheet`): one game per stretch of legal play, a new one (with its FEN)
    wherever play went on from a position no legal move reaches (I 5.7). Each move carries
    its time since the game started (from a recorded source, its time in the recording);
    the arbiter's flags, the resyncs and the corrections are comments after the ply they
    concern."""
    plies = [
        RecordedPly(
            p.number,
            p.notation,
            p.move,
            p.before,
            p.after,
            p.clock if p.clock is not None else p.time - record.started,
        )
        for p in record.plies
    ]
    games = rules_scoresheet.games(
        record.start, plies, record.position, tags=record.sheet_tags(), result=record.result
    )
    segments = rules_scoresheet.segments(record.start, plies, record.position)
    ends = [s.first_ply for s in segments[1:]] + [record.ply]
    for ply, text in _notes(record):
        i = next((i for i, end in enumerate(ends) if ply <= end), len(segments) - 1)
        where = min(max(ply - segments[i].first_ply, 0), games[i].ply)
        games[i].comments[where] = f"{games[i].comments.get(where, '')} {text}".strip()
    return games


def game_pdn(record: GameRecord) -> str:
    """The scoresheet as PDN text: one game, or several after a resync (see above)."""
    return "".join(g.pdn() + "\n" for g in scoresheet_games(record))


def games_pdn(records: list[GameRecord]) -> str:
    """Several tables' games in one PDN file (the broadcast feed)."""
    return "".join(game_pdn(r) for r in records)


def _notes(record: GameRecord) -> list[tuple[int, str]]:
    notes = []
    for f in record.flags:
        text = f"ply {f.ply}: {f.kind.replace('_', ' ')}" + (f" ({f.article})" if f.article else "")
        text += f": {f.message}" if f.message else ""
        notes.append((f.ply, text + (" [resolved]" if f.resolved else "")))
    notes += [(r.after_ply, f"board: {r.reason}") for r in record.resyncs if r.reason]
    notes += [(p.number, "corrected by the arbiter") for p in record.plies if p.corrected]
    return notes


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

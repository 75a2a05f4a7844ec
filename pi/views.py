"""JSON views of a game: what the demonstration board, the REST API and the WebSocket send.

One function builds the state from a :class:`~pi.record.GameRecord`, so the board page,
the broadcast endpoints and the live stream can never disagree.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pi.record import GameRecord
from rules import Color, Variant
from rules.pieces import stack_string


@cache
def board_geometry(variant: Variant) -> dict[str, Any]:
    """The board drawn from the rules core: size, and every playable square's cell and name."""
    g = variant.geometry
    return {
        "size": g.size,
        "dark_parity": g.dark_parity,
        "squares": [
            {"index": sq, "row": g.rowcol(sq)[0], "col": g.rowcol(sq)[1], "name": g.name(sq)}
            for sq in g.squares
        ],
    }


def game_state(record: GameRecord, *, include_flags: bool = True) -> dict[str, Any]:
    """The whole state of a game as JSON (public views pass ``include_flags=False``:
    irregularity flags are for the arbiter, R-IRR-02)."""
    v = record.variant
    position = record.position
    last = record.last_move
    offset = 0 if record.start.turn is v.first_to_move else 1  # PDN numbering from "1..."
    state: dict[str, Any] = {
        "table": record.table_id,
        "game": record.game_id,
        "seq": record.last_seq,
        "variant": {
            "name": v.name,
            "title": v.title,
            "towers": v.towers,
            "first_to_move": v.first_to_move.name.lower(),
            **board_geometry(v),
        },
        "fen": position.fen(),
        "turn": position.turn.name.lower(),
        "pieces": [{"square": sq, "stack": stack_string(st)} for sq, st in position.stacks()],
        "last_move": None
        if last is None or last.move is None or last.after != position
        else {
            "ply": last.number,
            "notation": last.notation,
            "path": list(last.move.path),
            "captures": list(last.move.captures),
        },
        "moves": [
            {
                "ply": p.number,
                "number": (p.number - 1 + offset) // 2 + 1,
                "side": p.before.turn.name.lower(),
                "notation": p.notation,
                "irregular": p.move is None,
                "confirmed": p.confirmed,
                "corrected": p.corrected,
            }
            for p in record.plies
        ],
        "moves_text": record.moves_text(),
        # Moves completed per player: the arbiter can prove the count at any time
        # (FMJD III 6.4, 6.15; R-REC-04/05).
        "move_counts": {
            color.name.lower(): sum(1 for p in record.plies if p.before.turn is color)
            for color in (Color.WHITE, Color.BLACK)
        },
        "tags": record.all_tags(),
        "result": record.result,
        "updated": record.updated,
    }
    if include_flags:
        state["flags"] = [f.to_json() for f in record.flags]
    return state


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """A state with the arbiter-only parts removed (for broadcast clients)."""
    return {k: v for k, v in state.items() if k != "flags"}

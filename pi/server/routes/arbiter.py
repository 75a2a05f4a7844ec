"""Arbiter actions, behind the token: confirm or correct a move, take back, tags, result.

Every action is a journal event (R-BC-07: an audit log of arbiter decisions); it is
checked against the game before it is written, so a correction that would make a later
move illegal is refused with the ply that breaks (422), and no recorded move is lost.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pi.record import RecordError
from pi.server.deps import ArbiterDep, SettingsDep, TablesDep
from pi.server.schemas import (
    CorrectionBody,
    EventPublic,
    MoveBody,
    NewGameBody,
    PlyBody,
    ResolveBody,
    ResultBody,
    TagsBody,
)

router = APIRouter(prefix="/api/tables/{table}/arbiter", tags=["arbiter"])

ARBITER = {"source": "arbiter"}


def _public(event: Any) -> dict[str, Any]:
    return event.to_json()  # type: ignore[no-any-return]


@router.post("/confirm", response_model=EventPublic)
def confirm(table: str, body: PlyBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Confirm the move at a ply (it stays as recorded)."""
    return _public(tables.record(table, "confirm", {"ply": body.ply, **ARBITER}))


@router.post("/correct", response_model=EventPublic)
def correct(table: str, body: CorrectionBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Replace the move at a ply; the later moves are replayed after it and must stay legal."""
    tables.current(table).check_correction(body.ply, body.notation)
    return _public(
        tables.record(table, "correct", {"ply": body.ply, "notation": body.notation, **ARBITER})
    )


@router.post("/takeback", response_model=EventPublic)
def takeback(table: str, body: PlyBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Take the game back so that ``ply`` moves remain (the removed ones stay in the journal)."""
    return _public(tables.record(table, "takeback", {"ply": body.ply, **ARBITER}))


@router.post("/move", response_model=EventPublic)
def enter_move(table: str, body: MoveBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Enter a move by hand (the camera missed it, or it is switched off)."""
    notation = tables.current(table).check_move(body.notation)
    return _public(tables.record(table, "move", {"notation": notation, **ARBITER}))


@router.post("/tags", response_model=EventPublic)
def set_tags(table: str, body: TagsBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Set players, event, round and other PDN tags."""
    return _public(tables.record(table, "tags", {"tags": body.tags, **ARBITER}))


@router.post("/result", response_model=EventPublic)
def set_result(table: str, body: ResultBody, tables: TablesDep, _: ArbiterDep) -> dict[str, Any]:
    """Set the result (resignations and agreed draws cannot be seen on the board, R-RES-01)."""
    return _public(tables.record(table, "result", {"result": body.result, **ARBITER}))


@router.post("/flags/{seq}/resolve", response_model=EventPublic)
def resolve_flag(
    table: str, seq: int, body: ResolveBody, tables: TablesDep, _: ArbiterDep
) -> dict[str, Any]:
    """Mark a flag as dealt with."""
    if not any(f.seq == seq for f in tables.current(table).flags):
        raise RecordError(f"no flag with seq {seq} in the current game at table {table!r}")
    data = {"seq": seq, "note": body.note, **ARBITER}
    return _public(tables.record(table, "flag_resolved", data))


@router.post("/games", response_model=EventPublic)
def new_game(
    table: str, body: NewGameBody, tables: TablesDep, settings: SettingsDep, _: ArbiterDep
) -> dict[str, Any]:
    """Start a new game at the table (the previous one stays in the journal)."""
    from rules import RulesError

    current = tables.current(table)
    tags = {**settings.event.tags(), **body.tags} if table == settings.table else body.tags
    try:
        record = tables.start_game(
            table, body.variant or current.variant.name, fen=body.fen, tags=tags
        )
    except (RulesError, ValueError) as exc:
        raise RecordError(str(exc)) from None
    return _public(tables.journal.events(table, record.game_id)[0])

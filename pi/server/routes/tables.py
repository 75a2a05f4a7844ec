"""Tables and games: the state, position, scoresheet and flags of each table's games."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from pi.record import GameRecord
from pi.scoresheet import game_pdn
from pi.server.deps import ArbiterDep, TablesDep
from pi.server.schemas import EventPublic, GameSummary, PositionPublic, TableSummary
from pi.views import game_state, public_state

router = APIRouter(prefix="/api/tables", tags=["tables"])

PDN_MEDIA_TYPE = "application/x-chess-pdn"


def summary(record: GameRecord) -> dict[str, Any]:
    return {
        "game": record.game_id,
        "variant": record.variant.name,
        "ply": record.ply,
        "result": record.result,
        "white": record.tags.get("White", "?"),
        "black": record.tags.get("Black", "?"),
        "started": record.started,
    }


@router.get("", response_model=list[TableSummary])
def list_tables(tables: TablesDep) -> list[dict[str, Any]]:
    """Every table this device knows, with its current game."""
    return [{"table": t, **summary(tables.current(t))} for t in tables.tables()]


@router.get("/{table}")
def table_state(table: str, tables: TablesDep) -> dict[str, Any]:
    """The current game: board, moves, tags, result (flags are on the arbiter's route)."""
    return public_state(tables.state(table))


@router.get("/{table}/position", response_model=PositionPublic)
def position(table: str, tables: TablesDep) -> dict[str, Any]:
    """The current position as FEN (PDN 3.0), and whose turn it is."""
    record = tables.current(table)
    p = record.position
    return {
        "table": table,
        "game": record.game_id,
        "ply": record.ply,
        "fen": p.fen(),
        "turn": p.turn.name.lower(),
    }


@router.get("/{table}/pdn", response_class=PlainTextResponse)
def current_pdn(table: str, tables: TablesDep) -> PlainTextResponse:
    """The scoresheet of the current game as PDN."""
    return PlainTextResponse(game_pdn(tables.current(table)), media_type=PDN_MEDIA_TYPE)


@router.get("/{table}/flags")
def flags(table: str, tables: TablesDep, _: ArbiterDep) -> list[dict[str, Any]]:
    """The arbiter's flags for the current game (irregularities, draw rules, faults)."""
    return [f.to_json() for f in tables.current(table).flags]


@router.get("/{table}/games", response_model=list[GameSummary])
def list_games(table: str, tables: TablesDep) -> list[dict[str, Any]]:
    """Every game recorded at a table, oldest first."""
    return [summary(tables.game(table, g)) for g in tables.games(table)]


@router.get("/{table}/games/{game}")
def game(table: str, game: str, tables: TablesDep) -> dict[str, Any]:
    return game_state(tables.game(table, game), include_flags=False)


@router.get("/{table}/games/{game}/events", response_model=list[EventPublic])
def game_events(
    table: str, game: str, tables: TablesDep, _: ArbiterDep, after: int = 0
) -> list[dict[str, Any]]:
    """The game's journal from sequence number ``after`` on: the audit log (R-BC-07), and
    what a hall hub pulls; ``(table, game, seq)`` makes importing it twice harmless."""
    tables.game(table, game)  # 404 for an unknown game
    return [e.to_json() for e in tables.journal.events(table, game, after_seq=after)]


@router.get("/{table}/games/{game}/pdn", response_class=PlainTextResponse)
def game_pdn_route(table: str, game: str, tables: TablesDep) -> PlainTextResponse:
    return PlainTextResponse(game_pdn(tables.game(table, game)), media_type=PDN_MEDIA_TYPE)

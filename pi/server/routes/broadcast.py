"""Public, read-only feeds for broadcast: the games as PDN (for relays that poll, like
lidraughts' broadcasts) and as JSON. Only moves already played are shown, never analysis
(FMJD III 8.8, R-BC-01), and never the arbiter's flags (R-IRR-02)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from pi.scoresheet import game_pdn, games_pdn
from pi.server.deps import TablesDep
from pi.server.routes.tables import PDN_MEDIA_TYPE
from pi.views import public_state

router = APIRouter(prefix="/broadcast", tags=["broadcast"])


@router.get("/games.pdn", response_class=PlainTextResponse)
def all_games(tables: TablesDep) -> PlainTextResponse:
    """The current game of every table, one PDN file; poll it for a live relay."""
    records = [tables.current(t) for t in tables.tables()]
    return PlainTextResponse(
        games_pdn(records), media_type=PDN_MEDIA_TYPE, headers={"Cache-Control": "no-cache"}
    )


@router.get("/tables/{table}.json")
def table_json(table: str, tables: TablesDep) -> dict[str, Any]:
    return public_state(tables.state(table))


@router.get("/tables/{table}/game.pdn", response_class=PlainTextResponse)
def table_pdn(table: str, tables: TablesDep) -> PlainTextResponse:
    return PlainTextResponse(
        game_pdn(tables.current(table)),
        media_type=PDN_MEDIA_TYPE,
        headers={"Cache-Control": "no-cache"},
    )

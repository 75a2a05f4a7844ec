"""Public, read-only feeds for broadcast: the games as PDN (for relays that poll, like
lidraughts' broadcasts) and as JSON. Only moves already played are shown, never analysis
(FMJD III 8.8, R-BC-01), never the arbiter's flags (R-IRR-02), and, with
``broadcast_delay_s``, only moves older than the delay (R-BC-02)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from pi.record import GameRecord
from pi.scoresheet import game_pdn, games_pdn
from pi.server.deps import SettingsDep, TablesDep
from pi.server.routes.tables import PDN_MEDIA_TYPE
from pi.views import game_state

router = APIRouter(prefix="/broadcast", tags=["broadcast"])


def delayed(record: GameRecord, delay_s: float) -> GameRecord:
    """The game as the public may see it: ``delay_s`` behind, never the arbiter's flags."""
    return record.as_of(time.time() - delay_s)


@router.get("/games.pdn", response_class=PlainTextResponse)
def all_games(tables: TablesDep, settings: SettingsDep) -> PlainTextResponse:
    """The current game of every table, one PDN file; poll it for a live relay."""
    records = [delayed(tables.current(t), settings.broadcast_delay_s) for t in tables.tables()]
    return PlainTextResponse(
        games_pdn(records), media_type=PDN_MEDIA_TYPE, headers={"Cache-Control": "no-cache"}
    )


@router.get("/tables/{table}.json")
def table_json(table: str, tables: TablesDep, settings: SettingsDep) -> dict[str, Any]:
    record = delayed(tables.current(table), settings.broadcast_delay_s)
    return game_state(record, include_flags=False)


@router.get("/tables/{table}/game.pdn", response_class=PlainTextResponse)
def table_pdn(table: str, tables: TablesDep, settings: SettingsDep) -> PlainTextResponse:
    return PlainTextResponse(
        game_pdn(delayed(tables.current(table), settings.broadcast_delay_s)),
        media_type=PDN_MEDIA_TYPE,
        headers={"Cache-Control": "no-cache"},
    )

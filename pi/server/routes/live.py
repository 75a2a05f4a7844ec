"""The live stream: ``/ws/tables/{table}`` sends the state on connect and after each event.

Messages are JSON: ``{"type": "state", "state": {...}}`` (see :mod:`pi.views`) and
``{"type": "health", "health": {...}}`` once a second while a pipeline runs. With
``?token=`` set to the arbiter token the state includes the flags.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from pi.config import Settings
from pi.server.deps import token_ok
from pi.server.hub import Client, LiveHub
from pi.tables import TableService, UnknownTableError
from pi.views import public_state

log = logging.getLogger(__name__)

router = APIRouter(tags=["live"])


@router.websocket("/ws/tables/{table}")
async def table_stream(websocket: WebSocket, table: str, token: str | None = None) -> None:
    tables: TableService = websocket.app.state.tables
    hub: LiveHub = websocket.app.state.hub
    settings: Settings = websocket.app.state.settings
    await websocket.accept()
    try:
        state = tables.state(table)
    except UnknownTableError as exc:
        await websocket.close(code=4404, reason=str(exc))
        return
    if token is not None and not token_ok(settings, token):
        await websocket.close(code=4403, reason="wrong arbiter token")
        return
    client = Client(websocket, table, arbiter=token is not None)
    await websocket.send_json(
        {"type": "state", "state": state if client.arbiter else public_state(state)}
    )
    pipeline = websocket.app.state.pipeline
    if pipeline is not None:
        await websocket.send_json({"type": "health", "health": pipeline.health().to_json()})
    hub.clients.add(client)
    try:
        while True:  # the client sends nothing useful; this just notices it leaving
            await websocket.receive_text()
    except WebSocketDisconnect:
        pass
    finally:
        hub.clients.discard(client)

"""Live updates: every WebSocket client of a table gets the new state after each event.

The :class:`~pi.tables.TableService` calls its listeners from whichever thread wrote the
event (usually the capture pipeline's); :meth:`LiveHub.on_event` hands the state over to
the server's event loop, which sends it to the clients of that table. Public clients get
the state without the arbiter's flags (R-IRR-02); arbiter clients get everything.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket

from pi.journal import JournalEvent
from pi.views import public_state

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Client:
    websocket: WebSocket
    table_id: str
    arbiter: bool


class LiveHub:
    """The set of connected clients, and the bridge from recording threads to them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clients: set[Client] = set()

    def on_event(self, event: JournalEvent, state: dict[str, Any]) -> None:
        """TableService listener: may be called from any thread."""
        self.loop.call_soon_threadsafe(
            lambda: self.loop.create_task(self.send_state(event.table_id, state))
        )

    async def send_state(self, table_id: str, state: dict[str, Any]) -> None:
        public = {"type": "state", "state": public_state(state)}
        full = {"type": "state", "state": state}
        await self._send(
            [(c, full if c.arbiter else public) for c in self.clients if c.table_id == table_id]
        )

    async def send_all(self, message: dict[str, Any]) -> None:
        await self._send([(c, message) for c in self.clients])

    async def _send(self, targets: list[tuple[Client, dict[str, Any]]]) -> None:
        results = await asyncio.gather(
            *(c.websocket.send_json(m) for c, m in targets), return_exceptions=True
        )
        for (client, _m), result in zip(targets, results, strict=True):
            if isinstance(result, Exception):  # a closed browser tab: forget it
                log.debug("dropping client: %s", result)
                self.clients.discard(client)

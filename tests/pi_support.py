"""Helpers for the device tests: a real server on loopback, and real games to play."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

WK2003 = Path("games/pdn-fmjd-testgames/games/succeed/wk2003.pdn")
USSR1947 = Path("games/pdn-fmjd-testgames/games/succeed/ussr1947.pdn")

_MOVE = re.compile(r"^[a-h]?\d+(?:[-x:][a-h]?\d+)+$")


def first_game_moves(shared_data: Path, file: Path, *, limit: int | None = None) -> list[str]:
    """The moves of the first game in a real PDN file, as written there."""
    text = (shared_data / file).read_text(encoding="utf-8", errors="replace")
    game = re.split(r"\n\s*\n(?=\[)", text.strip(), maxsplit=1)[0]
    movetext = "\n".join(line for line in game.splitlines() if not line.startswith("["))
    movetext = re.sub(r"\{[^}]*\}", " ", movetext)
    results = {"1-0", "0-1", "2-0", "0-2", "1-1", "0-0"}
    moves = [t for t in movetext.split() if _MOVE.match(t) and t not in results]
    return moves[:limit] if limit else moves


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    """Run ``app`` with uvicorn on a loopback port in a thread; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)

"""Crash recovery: kill the device mid-game (SIGKILL, no clean shutdown), restart it, and
check that every move it had acknowledged is still there and the game goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from pi.journal import Journal
from pi.tables import TableService
from tests.pi_support import WK2003, first_game_moves, free_port

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "recovery-token-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def device(config: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``damcam serve`` as its own process, killed hard at the end if still alive."""
    env = {**os.environ, "DAMCAM_ARBITER_TOKEN": TOKEN, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "damcam", "serve", "--config", str(config), "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"device did not start: {proc.stderr and proc.stderr.read()!r}")
            time.sleep(0.1)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_killed_server_resumes_the_game_from_the_journal(tmp_path: Path, shared_data: Path) -> None:
    moves = first_game_moves(shared_data, WK2003, limit=30)
    config = tmp_path / "damcam.toml"
    config.write_text(
        f'table = "3"\nvariant = "international"\njournal = "{tmp_path / "j.sqlite"}"\n'
        '[event]\nwhite = "Ndjofang"\nblack = "Heusdens"\n',
        encoding="utf-8",
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}/api/tables/3"
    with device(config, port) as proc:
        for m in moves[:17]:
            r = httpx.post(f"{base}/arbiter/move", json={"notation": m}, headers=AUTH)
            assert r.status_code == 200, r.text
        proc.send_signal(signal.SIGKILL)  # a power cut: no shutdown, no flush
        proc.wait(10)
    with device(config, port):
        state = httpx.get(base).json()
        assert [m["notation"] for m in state["moves"]] == moves[:17]
        assert state["tags"]["White"] == "Ndjofang"
        for m in moves[17:]:
            r = httpx.post(f"{base}/arbiter/move", json={"notation": m}, headers=AUTH)
            assert r.status_code == 200, r.text
        assert [m["notation"] for m in httpx.get(base).json()["moves"]] == moves
        assert len(httpx.get(f"{base}/games").json()) == 1  # the same game, not a new one


WRITER = """
import sys
from pi.journal import Journal
from pi.tables import TableService
service = TableService(Journal(sys.argv[1]))
service.ensure_game("t", "international")
for notation in sys.argv[2:]:
    service.record("t", "move", {"notation": notation})
    print(notation, flush=True)  # acknowledged: durable from here on
input()  # wait to be killed
"""


def test_every_acknowledged_move_survives_a_kill(tmp_path: Path, shared_data: Path) -> None:
    moves = first_game_moves(shared_data, WK2003)
    path = tmp_path / "j.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), *moves],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acknowledged = [proc.stdout.readline().strip() for _ in range(25)]
    proc.kill()  # mid-game, while it may be writing move 26
    proc.wait(10)
    with Journal(path) as journal:
        record = TableService(journal).current("t")
        assert record.notations()[:25] == acknowledged == moves[:25]
        assert record.notations() == moves[: record.ply]  # whatever else landed is whole

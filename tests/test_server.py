"""The real server on loopback: uvicorn in a thread, HTTP and WebSocket clients."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from pi.config import EventSettings, Settings
from pi.journal import Journal, JournalEvent
from pi.server import create_app
from pi.tables import TableService
from rules import Position, find_variant
from rules.pdn import read_games_text
from tests.pi_support import WK2003, first_game_moves, live_server

TOKEN = "arbiter-secret-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    settings = Settings(
        table="7",
        variant="international",
        journal=tmp_path / "journal.sqlite",
        arbiter_token=TOKEN,
        event=EventSettings(event="Test Open", round="3", white="Sijbrands", black="Baba"),
    )
    with live_server(create_app(settings)) as url:
        yield url


def ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


def play(base: str, moves: list[str]) -> None:
    for m in moves:
        r = httpx.post(f"{base}/api/tables/7/arbiter/move", json={"notation": m}, headers=AUTH)
        assert r.status_code == 200, r.text


def test_table_starts_with_the_configured_game(server: str) -> None:
    tables = httpx.get(f"{server}/api/tables").json()
    assert [(t["table"], t["variant"], t["ply"], t["white"]) for t in tables] == [
        ("7", "international", 0, "Sijbrands")
    ]
    position = httpx.get(f"{server}/api/tables/7/position").json()
    assert position["fen"] == "W:W31-50:B1-20"


def test_moves_reach_position_pdn_and_broadcast(server: str, shared_data: Path) -> None:
    moves = first_game_moves(shared_data, WK2003, limit=20)
    play(server, moves)
    expected = Position.initial(find_variant("international"))
    for m in moves:
        expected = expected.push_text(m)
    assert httpx.get(f"{server}/api/tables/7/position").json()["fen"] == expected.fen()
    pdn = httpx.get(f"{server}/api/tables/7/pdn").text
    assert '[White "Sijbrands"]' in pdn and '[Round "3"]' in pdn
    (game,) = read_games_text(pdn)
    assert game.errors == [] and game.notations == moves
    feed = httpx.get(f"{server}/broadcast/games.pdn")
    assert feed.headers["content-type"].startswith("application/x-chess-pdn")
    assert feed.text == pdn


def test_websocket_sends_the_state_after_each_move(server: str) -> None:
    with connect(ws_url(server, "/ws/tables/7")) as ws:
        first = json.loads(ws.recv(timeout=5))
        assert first["type"] == "state" and first["state"]["moves"] == []
        play(server, ["32-28"])
        update = json.loads(ws.recv(timeout=5))
        state = update["state"]
        assert state["fen"] == "B:W28,31,33-50:B1-20"
        assert state["last_move"]["notation"] == "32-28"
        assert state["move_counts"] == {"white": 1, "black": 0}
        assert "flags" not in state  # public view


def test_arbiter_websocket_gets_flags_and_public_does_not(server: str) -> None:
    play(server, ["32-28"])
    with connect(ws_url(server, f"/ws/tables/7?token={TOKEN}")) as ws:
        assert json.loads(ws.recv(timeout=5))["state"]["flags"] == []
    with connect(ws_url(server, "/ws/tables/7?token=wrong-token")) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


def test_unknown_table_is_a_clear_404(server: str) -> None:
    r = httpx.get(f"{server}/api/tables/99")
    assert (r.status_code, r.json()["detail"]) == (404, "unknown table '99'")
    assert httpx.get(f"{server}/board/99").status_code == 404
    with connect(ws_url(server, "/ws/tables/99")) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4404, "unknown table '99'")


def test_arbiter_actions_need_the_token(server: str) -> None:
    url = f"{server}/api/tables/7/arbiter/result"
    missing = httpx.post(url, json={"result": "1-1"})
    assert missing.status_code == 401
    assert "arbiter token required" in missing.json()["detail"]
    wrong = httpx.post(url, json={"result": "1-1"}, headers={"Authorization": "Bearer nope"})
    assert (wrong.status_code, wrong.json()["detail"]) == (403, "wrong arbiter token")
    assert httpx.get(f"{server}/api/tables/7/flags").status_code == 401
    assert httpx.get(f"{server}/api/tables/7").json()["result"] == "*"


def test_arbiter_corrects_takes_back_tags_and_result(server: str) -> None:
    play(server, ["32-28", "18-23", "37-32", "16-21"])
    base = f"{server}/api/tables/7/arbiter"
    r = httpx.post(f"{base}/correct", json={"ply": 2, "notation": "19-24"}, headers=AUTH)
    assert r.status_code == 200, r.text
    broken = httpx.post(f"{base}/correct", json={"ply": 2, "notation": "17-22"}, headers=AUTH)
    assert broken.status_code == 422 and "ply 3" in broken.json()["detail"]
    assert httpx.post(f"{base}/takeback", json={"ply": 3}, headers=AUTH).status_code == 200
    tags = {"tags": {"White": "Boomstra", "Black": "Georgiev"}}
    assert httpx.post(f"{base}/tags", json=tags, headers=AUTH).status_code == 200
    bad = httpx.post(f"{base}/tags", json={"tags": {"Result": "2-0"}}, headers=AUTH)
    assert bad.status_code == 422
    assert httpx.post(f"{base}/result", json={"result": "1-1"}, headers=AUTH).status_code == 200
    assert httpx.post(f"{base}/result", json={"result": "1-0"}, headers=AUTH).status_code == 422
    state = httpx.get(f"{server}/api/tables/7").json()
    assert [m["notation"] for m in state["moves"]] == ["32-28", "19-24", "37-32"]
    pdn = httpx.get(f"{server}/api/tables/7/pdn").text
    assert '[White "Boomstra"]' in pdn and '[Result "1-1"]' in pdn
    assert pdn.rstrip().endswith("1-1")
    assert "corrected by the arbiter" in pdn


def test_illegal_move_entry_names_the_ply_and_position(server: str) -> None:
    play(server, ["32-28"])
    r = httpx.post(f"{server}/api/tables/7/arbiter/move", json={"notation": "28-22"}, headers=AUTH)
    assert r.status_code == 422
    assert r.json()["detail"] == "ply 2: illegal move: '28-22' in B:W28,31,33-50:B1-20"


def test_new_game_keeps_the_old_one(server: str) -> None:
    play(server, ["32-28"])
    r = httpx.post(
        f"{server}/api/tables/7/arbiter/games",
        json={"fen": "W:WK46:B5"},
        headers=AUTH,
    )
    assert r.status_code == 200, r.text
    games = httpx.get(f"{server}/api/tables/7/games").json()
    assert [g["ply"] for g in games] == [1, 0]
    old = httpx.get(f"{server}/api/tables/7/games/{games[0]['game']}/pdn").text
    assert "1. 32-28" in old
    bad = httpx.post(
        f"{server}/api/tables/7/arbiter/games", json={"fen": "X:nonsense"}, headers=AUTH
    )
    assert bad.status_code == 422 and "nonsense" in bad.json()["detail"]


def test_scoresheet_page_has_players_moves_and_signatures(server: str) -> None:
    play(server, ["32-28", "17-22", "28x17", "12x21"])
    html = httpx.get(f"{server}/scoresheet/7").text
    assert "Sijbrands" in html and "Baba" in html and "Test Open" in html
    assert "<td>28x17</td><td>12x21</td>" in html
    assert html.count("<tbody>") == 2  # two columns of numbered moves
    assert "Signature White" in html and "Signature Black" in html
    # no Site was set: the printed sheet leaves a blank to write in, not PDN's "?"
    assert '<td class="label">Site</td><td></td>' in html
    assert "from the camera, game" in html  # no correction, none claimed


def test_scoresheet_marks_the_arbiters_corrections(server: str) -> None:
    play(server, ["32-28", "17-22"])
    r = httpx.post(
        f"{server}/api/tables/7/arbiter/correct", json={"ply": 1, "notation": "33-28"}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    html = httpx.get(f"{server}/scoresheet/7").text
    assert "<td>33-28*</td><td>17-22</td>" in html
    assert "with the arbiter's\ncorrections (the moves marked *)" in html


def test_health_and_openapi(server: str) -> None:
    health = httpx.get(f"{server}/api/health").json()
    assert health == {"table": "7", "tables": ["7"], "pipeline": None}
    paths = httpx.get(f"{server}/openapi.json").json()["paths"]
    assert "/api/tables/{table}/arbiter/correct" in paths
    assert "/broadcast/games.pdn" in paths
    assert httpx.get(f"{server}/docs").status_code == 200


def test_arbiter_actions_refused_when_no_token_is_configured(tmp_path: Path) -> None:
    settings = Settings(journal=tmp_path / "j.sqlite")
    with live_server(create_app(settings)) as url:
        r = httpx.post(f"{url}/api/tables/1/arbiter/move", json={"notation": "32-28"})
        assert r.status_code == 403
        assert "no arbiter_token is configured" in r.json()["detail"]


def upload(base: str, text: str | bytes) -> httpx.Response:
    return httpx.post(
        f"{base}/api/tables/7/arbiter/games/pdn",
        content=text,
        headers={**AUTH, "Content-Type": "application/x-chess-pdn"},
    )


def test_pdn_upload_starts_a_game_from_a_real_sheet(server: str, shared_data: Path) -> None:
    text = (shared_data / WK2003).read_text(encoding="utf-8").split("\n\n\n")[0]
    r = upload(server, text)
    assert r.status_code == 200, r.text
    state = httpx.get(f"{server}/api/tables/7").json()
    assert [m["notation"] for m in state["moves"]] == first_game_moves(shared_data, WK2003)
    assert state["tags"]["White"] == "Ndjofang, J.M." and state["result"] == "1-1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "exactly one game, not 0"),
        ("1. 32-28 19-23 2. 28x19 14x23 3. 99-98 *", "game 1, ply 5: not a move: '99-98'"),
        ("1. 32-28 32-28 *", "game 1, ply 2: illegal move: '32-28'"),
        (b"\xff\xfe1. 32-28", "not UTF-8"),
    ],
)
def test_malformed_pdn_upload_is_refused_and_changes_nothing(
    server: str, text: str | bytes, message: str
) -> None:
    play(server, ["32-28"])
    r = upload(server, text)
    assert r.status_code == 422 and message in r.json()["detail"], r.text
    assert len(httpx.get(f"{server}/api/tables/7/games").json()) == 1
    assert httpx.get(f"{server}/api/tables/7").json()["moves"][0]["notation"] == "32-28"


def test_broadcast_delay_holds_back_recent_moves(tmp_path: Path) -> None:
    settings = Settings(
        table="7", journal=tmp_path / "j.sqlite", arbiter_token=TOKEN, broadcast_delay_s=900
    )
    with live_server(create_app(settings)) as url:
        play(url, ["32-28", "19-23"])
        httpx.post(f"{url}/api/tables/7/arbiter/result", json={"result": "2-0"}, headers=AUTH)
        (game,) = read_games_text(httpx.get(f"{url}/api/tables/7/pdn").text)
        assert (game.notations, game.result) == (["32-28", "19-23"], "2-0")
        feed = httpx.get(f"{url}/broadcast/games.pdn").text
        assert "32-28" not in feed and '[Result "*"]' in feed  # 15 minutes behind
        public = httpx.get(f"{url}/broadcast/tables/7.json").json()
        assert public["moves"] == [] and public["fen"] == "W:W31-50:B1-20"
        assert "flags" not in public


def test_event_log_replays_idempotently_into_a_hub(server: str, tmp_path: Path) -> None:
    play(server, ["32-28", "19-23", "28x19"])
    httpx.post(f"{server}/api/tables/7/arbiter/takeback", json={"ply": 2}, headers=AUTH)
    game = httpx.get(f"{server}/api/tables/7").json()["game"]
    url = f"{server}/api/tables/7/games/{game}/events"
    assert httpx.get(url).status_code == 401  # the audit log is the arbiter's
    events = [JournalEvent.from_json(e) for e in httpx.get(url, headers=AUTH).json()]
    assert [e.seq for e in events] == list(range(1, 6))
    assert [e.kind for e in events] == ["game_started", "move", "move", "move", "takeback"]
    later = httpx.get(url, params={"after": 3}, headers=AUTH).json()
    assert [e["seq"] for e in later] == [4, 5]
    with Journal(tmp_path / "hub.sqlite") as hub:
        assert hub.import_events(events) == 5
        assert hub.import_events(events) == 0  # replaying twice stores nothing twice
        folded = TableService(hub).current("7")
    assert folded.notations() == ["32-28", "19-23"]

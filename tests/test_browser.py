"""The demonstration board in a real browser (Playwright driving Debian's chromium)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from pi.capture import Frame, FrameSource
from pi.config import EventSettings, Settings
from pi.pipeline import LivePipeline
from pi.server import create_app
from pi.tables import TableService
from pi.wiring import build_pipeline
from rules import Position, find_variant
from rules.pieces import stack_string
from tests.pi_support import USSR1947, WK2003, StalledCamera, first_game_moves, live_server

CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "browser-token-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SCREENSHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium not installed at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


def make_server(tmp_path: Path, variant: str) -> Any:
    settings = Settings(
        table="5",
        variant=variant,
        journal=tmp_path / "j.sqlite",
        arbiter_token=TOKEN,
        event=EventSettings(
            event="Hall test", round="2", white="White player", black="Black player"
        ),
    )
    return create_app(settings)


def shown_pieces(page: Any) -> dict[str, str]:
    """Square name -> stack string, as the SVG board draws them."""
    items = page.eval_on_selector_all(
        "#board g.piece", "els => els.map(e => [e.dataset.square, e.dataset.stack])"
    )
    return dict(items)


def expected_pieces(position: Position) -> dict[str, str]:
    g = position.variant.geometry
    return {g.name(sq): stack_string(st) for sq, st in position.stacks()}


def save(page: Any, name: str, tmp_path: Path) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
    return path


@pytest.mark.parametrize(("variant", "file"), [("international", WK2003), ("russian", USSR1947)])
def test_board_follows_the_moves(
    browser: Any, tmp_path: Path, shared_data: Path, variant: str, file: Path
) -> None:
    moves = first_game_moves(shared_data, file, limit=12)
    with live_server(make_server(tmp_path, variant)) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}/board/5")
        start = Position.initial(find_variant(variant))
        page.wait_for_selector(f"#board[data-fen='{start.fen()}']")
        assert shown_pieces(page) == expected_pieces(start)
        position, names = start, []
        for m in moves:
            r = httpx.post(f"{url}/api/tables/5/arbiter/move", json={"notation": m}, headers=AUTH)
            assert r.status_code == 200, r.text
            move = position.parse_move(m)
            names.append(position.move_name(move))
            position = position.play(move)
        page.wait_for_selector(f"#board[data-fen='{position.fen()}']", timeout=5000)
        assert shown_pieces(page) == expected_pieces(position)
        # The last move is highlighted and listed in official notation.
        assert page.locator("#board rect.last").count() == 2
        assert page.locator("#moves td.current").inner_text() == names[-1]
        listed = page.eval_on_selector_all(
            "#moves td[data-ply]", "els => els.map(e => e.textContent)"
        )
        assert listed == names
        numbers = page.eval_on_selector_all("#moves td.num", "els => els.map(e => e.textContent)")
        assert numbers == [f"{n}." for n in range(1, len(moves) // 2 + 1)]
        assert page.locator("#white").inner_text() == "White player"
        save(page, f"board-{variant}.png", tmp_path)
        page.close()


def test_towers_and_kings_on_a_7x7_board(browser: Any, tmp_path: Path) -> None:
    # Lasca (column draughts, 7x7): a white man on two black men, a black king on a white
    # man, plain men and a white king.
    fen = "W:W8(wbb),K12,5:B15(Bw),20"
    app = make_server(tmp_path, "lasca")
    with live_server(app) as url:
        r = httpx.post(f"{url}/api/tables/5/arbiter/games", json={"fen": fen}, headers=AUTH)
        assert r.status_code == 200, r.text
        page = browser.new_page(viewport={"width": 1100, "height": 720})
        page.goto(f"{url}/board/5")
        expected = Position.from_fen("lasca", fen)
        page.wait_for_selector(f"#board[data-fen='{expected.fen()}']")
        assert shown_pieces(page) == expected_pieces(expected)
        assert page.locator("#board rect.dark").count() == 25  # 7x7: 25 playable squares
        # Each tower shows its height and one layer per piece, top first.
        tower = page.locator("#board g.piece[data-square='8']")
        assert tower.locator("text.height").text_content() == "3"
        assert tower.locator("rect.layer").count() == 3
        assert page.locator("#board g.piece[data-square='12'] text.crown").count() == 1
        assert page.locator("#moves td.empty").inner_text() == "No moves yet"
        save(page, "board-lasca-towers.png", tmp_path)
        page.close()


def test_arbiter_view_shows_flags_and_hall_mode_hides_tools(browser: Any, tmp_path: Path) -> None:
    app = make_server(tmp_path, "international")
    with live_server(app) as url:
        httpx.post(f"{url}/api/tables/5/arbiter/move", json={"notation": "32-28"}, headers=AUTH)
        app.state.tables.record(
            "5",
            "flag",
            {"kind": "capture_not_taken", "ply": 1, "article": "I 5.4.6", "message": "x"},
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}/board/5?arbiter&token={TOKEN}")
        page.wait_for_selector("#flags li.open")
        assert "capture_not_taken (I 5.4.6)" in page.locator("#flags li").inner_text()
        page.locator("#flags li button").click()  # resolve it through the REST API
        page.wait_for_selector("#flags li.resolved")
        # Enter a move by hand, then an illegal one: the refusal is shown, nothing changes.
        page.fill("#move-input", "19-23")
        page.click("#move-form button[type=submit]")
        page.wait_for_selector("#moves td[data-ply='2']")
        page.fill("#move-input", "28-22")
        page.click("#move-form button[type=submit]")
        page.wait_for_selector("#arbiter-message:has-text('422')")
        assert "illegal move: '28-22'" in page.locator("#arbiter-message").inner_text()
        # Correct the first move from the move list (the browser asks for the notation).
        page.once("dialog", lambda dialog: dialog.accept("33-28"))
        page.click("#moves td[data-ply='1']")
        page.wait_for_selector("#moves td[data-ply='1']:has-text('33-28')")
        assert (
            page.locator("#board").get_attribute("data-fen")
            == Position.initial(find_variant("international"))
            .push_text("33-28")
            .push_text("19-23")
            .fen()
        )
        save(page, "board-arbiter.png", tmp_path)
        public = browser.new_page(viewport={"width": 1280, "height": 800})
        public.goto(f"{url}/board/5?hall=1")
        public.wait_for_selector("#board g.piece")
        assert public.locator("#arbiter-panel").is_hidden()
        assert public.locator("#fullscreen").is_hidden()
        assert public.locator("#flags li").count() == 0
        save(public, "board-hall.png", tmp_path)
        page.close()
        public.close()


def test_board_page_shows_a_lost_camera(browser: Any, tmp_path: Path) -> None:
    settings = Settings(table="5", journal=tmp_path / "j.sqlite", camera={"stale_seconds": 0.5})

    def stalled_pipeline(s: Settings, service: TableService) -> LivePipeline:
        record = service.ensure_game(s.table, s.variant)
        return build_pipeline(s, service, source=StalledCamera(record.position))

    with live_server(create_app(settings, pipeline_factory=stalled_pipeline)) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}/board/5")
        page.wait_for_selector("#status[data-status='camera lost']", timeout=5000)
        assert page.locator("#status").inner_text().startswith("Camera lost")
        assert page.locator("#board g.piece").count() == 40  # the game is still shown
        # no players set: the header names the sides rather than PDN's "?"
        assert page.locator("#white").inner_text() == "White"
        assert page.locator("#black").inner_text() == "Black"
        save(page, "board-camera-lost.png", tmp_path)
        page.close()


class _CameraOverAnEmptyTable(FrameSource):
    """A live camera that sees no board yet: nothing to calibrate the table from."""

    live = True

    def __init__(self) -> None:
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while not self.closed.wait(0.1):
            yield Frame(index, index * 0.1, np.full((480, 640, 3), 128, np.uint8))
            index += 1


def test_board_page_says_the_table_waits_to_calibrate(browser: Any, tmp_path: Path) -> None:
    settings = Settings(table="5", journal=tmp_path / "j.sqlite")

    def waiting_pipeline(s: Settings, service: TableService) -> LivePipeline:
        return build_pipeline(s, service, source=_CameraOverAnEmptyTable())

    with live_server(create_app(settings, pipeline_factory=waiting_pipeline)) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}/board/5")
        page.wait_for_selector("#status[data-status='not calibrated']", timeout=5000)
        banner = page.locator("#status").inner_text()
        assert banner.startswith("Not calibrated: the table waits to calibrate (frame "), banner
        page.close()


def test_scoresheet_prints_to_pdf(browser: Any, tmp_path: Path, shared_data: Path) -> None:
    moves = first_game_moves(shared_data, WK2003, limit=61)  # 30 full moves and one more
    with live_server(make_server(tmp_path, "international")) as url:
        for m in moves:
            httpx.post(f"{url}/api/tables/5/arbiter/move", json={"notation": m}, headers=AUTH)
        httpx.post(f"{url}/api/tables/5/arbiter/result", json={"result": "1-1"}, headers=AUTH)
        page = browser.new_page(viewport={"width": 900, "height": 1270})
        page.goto(f"{url}/scoresheet/5")
        columns = page.locator(".moves table")
        assert columns.count() == 2
        # The 50 lines of the first time control in two columns of 25 (FMJD sheet).
        first, second = columns.nth(0).locator("tbody tr"), columns.nth(1).locator("tbody tr")
        assert (first.count(), second.count()) == (25, 25)
        assert first.nth(0).inner_text().split() == ["1", moves[0], moves[1]]
        assert second.nth(0).inner_text().split() == ["26", moves[50], moves[51]]
        assert second.nth(5).inner_text().split() == ["31", moves[60]]
        assert "1-1 (draw)" in page.locator(".result").inner_text()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "scoresheet.png"), full_page=True)
        pdf = SCREENSHOTS / "scoresheet.pdf"
        page.emulate_media(media="print")
        page.pdf(path=str(pdf), format="A4")
        data = pdf.read_bytes()
        assert data.startswith(b"%PDF")
        assert len(re.findall(rb"/Type\s*/Page[^s]", data)) == 1  # one A4 page
        assert page.locator(".noprint").is_hidden()  # the print button is not printed
        page.close()

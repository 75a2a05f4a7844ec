"""HTML pages: the demonstration board and the printable scoresheet."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from pi.scoresheet import RESULT_TEXT, sheet_columns
from pi.server.deps import SettingsDep, TablesDep

router = APIRouter(tags=["pages"], include_in_schema=False)


def _templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


@router.get("/")
def home(settings: SettingsDep) -> RedirectResponse:
    return RedirectResponse(f"/board/{settings.table}")


@router.get("/board/{table}", response_class=HTMLResponse)
def board(request: Request, table: str, tables: TablesDep) -> HTMLResponse:
    """The demonstration board (``?hall=1`` full screen, ``?arbiter`` the arbiter's view,
    ``?flip=1`` seen from Black)."""
    tables.current(table)  # 404 for an unknown table
    return _templates(request).TemplateResponse(request, "board.html", {"table": table})


@router.get("/scoresheet/{table}", response_class=HTMLResponse)
def scoresheet_current(request: Request, table: str, tables: TablesDep) -> HTMLResponse:
    return scoresheet(request, table, tables.current(table).game_id, tables)


@router.get("/scoresheet/{table}/{game}", response_class=HTMLResponse)
def scoresheet(request: Request, table: str, game: str, tables: TablesDep) -> HTMLResponse:
    """A printable FMJD scoresheet (print it to PDF from the browser)."""
    record = tables.game(table, game)
    first = record.variant.first_to_move
    return _templates(request).TemplateResponse(
        request,
        "scoresheet.html",
        {
            "table": table,
            "game": record.game_id,
            "tags": record.all_tags(),
            "variant_title": record.variant.title,
            "columns": sheet_columns(record),
            "first_side": first.name.title(),
            "second_side": first.other.name.title(),
            "flags": record.flags,
            "corrected": any(p.corrected for p in record.plies),
            "result_text": RESULT_TEXT.get(record.result, record.result),
        },
    )

"""The server factory: ``create_app(settings)`` builds the whole FastAPI application.

The lifespan opens the journal, restores every table's game from it (the device resumes
after a restart), makes sure this table has a game, and starts the live pipeline when a
camera source is configured; all of it goes on ``app.state``. Nothing is global, so tests
build as many apps as they like.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from pi.config import Settings
from pi.journal import Journal
from pi.pipeline import LivePipeline
from pi.record import RecordError
from pi.server.hub import LiveHub
from pi.server.routes import arbiter, broadcast, health, live, pages, tables
from pi.tables import TableService, UnknownTableError

log = logging.getLogger(__name__)

HERE = Path(__file__).parent

PipelineFactory = Callable[[Settings, TableService], LivePipeline | None]
"""Builds the live pipeline for the settings (None: no capture, the server alone)."""

HEALTH_PERIOD_S = 1.0


def default_pipeline(settings: Settings, service: TableService) -> LivePipeline | None:
    """The camera pipeline named by ``settings.camera.source`` (None when there is none)."""
    if not settings.camera.source:
        return None
    from pi.wiring import build_pipeline

    return build_pipeline(settings, service)


def create_app(
    settings: Settings | None = None, *, pipeline_factory: PipelineFactory = default_pipeline
) -> FastAPI:
    """The damcam device server for ``settings`` (default: from the environment)."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with Journal(settings.journal) as journal:
            service = TableService(journal)
            service.ensure_game(settings.table, settings.variant, tags=settings.event.tags())
            hub = LiveHub(asyncio.get_running_loop())
            unsubscribe = service.subscribe(hub.on_event)
            pipeline = pipeline_factory(settings, service)
            app.state.settings = settings
            app.state.tables = service
            app.state.hub = hub
            app.state.pipeline = pipeline
            if pipeline is not None:
                pipeline.start()
            ticker = asyncio.create_task(_send_health(app))
            try:
                yield
            finally:
                ticker.cancel()
                if pipeline is not None:
                    await asyncio.to_thread(pipeline.stop)
                unsubscribe()

    app = FastAPI(
        title="damcam",
        summary="A draughts table recorded by camera: live board, scoresheet, arbiter tools.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.templates = Jinja2Templates(directory=HERE / "templates")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for module in (tables, arbiter, broadcast, health, live, pages):
        app.include_router(module.router)

    @app.exception_handler(UnknownTableError)
    async def _unknown(request: Request, exc: UnknownTableError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(RecordError)
    async def _does_not_fit(request: Request, exc: RecordError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    return app


async def _send_health(app: FastAPI) -> None:
    """Push the pipeline's health to every client once a second (the board's status line)."""
    while True:
        await asyncio.sleep(HEALTH_PERIOD_S)
        pipeline: LivePipeline | None = app.state.pipeline
        if pipeline is not None and app.state.hub.clients:
            await app.state.hub.send_all({"type": "health", "health": pipeline.health().to_json()})

"""Device commands: ``damcam serve``, ``damcam record`` and ``damcam demo``."""

from __future__ import annotations

import logging
import secrets
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from fastapi import FastAPI

    from pi.config import Settings

err = Console(stderr=True)
log = logging.getLogger(__name__)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the app."""
    app.command("serve")(serve_command)
    app.command("record")(record_command)
    app.command("demo")(demo_command)


ConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="TOML settings file (deploy/damcam.toml).")
]


def serve_command(
    config: ConfigOption = None,
    source: Annotated[
        str | None,
        typer.Option("--source", help="Camera: picamera, 0, a video, a folder, synthetic:PATH."),
    ] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="Variant name.")] = None,
    table: Annotated[str | None, typer.Option("--table", help="Table id.")] = None,
    journal: Annotated[Path | None, typer.Option("--journal", help="SQLite journal.")] = None,
    host: Annotated[str | None, typer.Option("--host")] = None,
    port: Annotated[int | None, typer.Option("--port")] = None,
) -> None:
    """The live pipeline and the web server (demonstration board, REST API, scoresheet)."""
    from pi.config import ConfigError, load_settings

    try:
        settings = load_settings(
            config, table=table, variant=variant, journal=journal, host=host, port=port
        )
        if source is not None:
            settings = settings.model_copy(
                update={"camera": settings.camera.model_copy(update={"source": source})}
            )
    except (ConfigError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    if settings.camera.source:
        from pi.wiring import VisionUnavailableError, vision_recognizer

        try:  # fail here, with a clear message, rather than inside the server's start-up
            vision_recognizer(settings)
        except VisionUnavailableError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    _serve(settings)


def _serve(settings: Settings, app: FastAPI | None = None, *, source: str | None = None) -> None:
    import uvicorn

    from pi.server import create_app

    app = app or create_app(settings)
    shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    err.print(
        f"damcam: table {settings.table} ({settings.variant}), "
        f"source {source or settings.camera.source or 'none (arbiter input only)'}, "
        f"journal {settings.journal}"
    )
    err.print(
        f"demonstration board: [bold]http://{shown}:{settings.port}/board/{settings.table}[/]"
    )
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")


def record_command(
    source: Annotated[str, typer.Argument(help="A video file, a folder of frames, or a camera.")],
    variant: Annotated[str, typer.Option("--variant", help="Variant name.")] = "international",
    calibration: Annotated[
        Path | None, typer.Option("--calibration", help="Calibration file of the table.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write the PDN here.")] = None,
    journal: Annotated[
        Path | None, typer.Option("--journal", help="Keep the journal here (default: temporary).")
    ] = None,
) -> None:
    """Record a game from a video, a folder of frames or a camera; write the PDN scoresheet."""
    from pi.capture import CameraError
    from pi.config import CameraSettings, ConfigError, load_settings
    from pi.journal import Journal
    from pi.scoresheet import game_pdn
    from pi.tables import TableService
    from pi.wiring import CalibratingRecognizer, VisionUnavailableError, build_pipeline

    with tempfile.TemporaryDirectory(prefix="damcam-record-") as tmp:
        try:
            settings = load_settings(
                None,
                variant=variant,
                calibration=calibration,
                journal=journal or Path(tmp) / "journal.sqlite",
                camera=CameraSettings(source=source),
            )
            with Journal(settings.journal) as jr:
                service = TableService(jr)
                service.start_game(settings.table, settings.variant)
                pipeline = build_pipeline(settings, service)
                with pipeline.source:  # fail now, with the reason, if it cannot be opened
                    pass
                err.print(f"recording {pipeline.source} ({settings.variant}); Ctrl-C to stop")
                try:
                    health = pipeline.run()
                except KeyboardInterrupt:
                    pipeline.stop()
                    health = pipeline.health()
                record = service.current(settings.table)
                vision = pipeline.recognize
        except (
            ConfigError,
            CameraError,
            FileNotFoundError,
            ValueError,
            VisionUnavailableError,
        ) as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    text = game_pdn(record)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
    err.print(
        f"{record.ply} moves, {len(record.flags)} flags; {health.frames_processed} frames "
        f"analysed at {health.fps} fps ({health.frames_corrupt} corrupt, {health.errors} errors)"
        + (f"; PDN in {out}" if out else "")
    )
    if isinstance(vision, CalibratingRecognizer) and not vision.calibrated:
        err.print(f"[red]error:[/red] the table was never calibrated: {vision.waiting_reason}")
        raise typer.Exit(1)


def demo_command(
    source: Annotated[
        str | None,
        typer.Option("--source", help="Play this rendered video or folder instead."),
    ] = None,
    variant: Annotated[
        str | None, typer.Option("--variant", help="Variant (default: the render's JSON).")
    ] = None,
    port: Annotated[int, typer.Option("--port")] = 8000,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
) -> None:
    """Play a game through the live pipeline and show it on the demonstration board."""
    from pi.config import load_settings
    from pi.demo import DemoNotFoundError, plan_demo
    from pi.server import create_app
    from pi.wiring import build_pipeline

    token = secrets.token_urlsafe(12)
    journal = Path(tempfile.mkdtemp(prefix="damcam-demo-")) / "journal.sqlite"
    settings = load_settings(
        None, table="demo", journal=journal, host=host, port=port, arbiter_token=token
    )
    try:
        plan = plan_demo(settings, source, variant=variant)
    except (DemoNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    settings = settings.model_copy(update={"variant": plan.variant})
    err.print(f"damcam demo plays {plan.description}")
    err.print(f"arbiter view: http://{host}:{port}/board/demo?arbiter (token {token})")
    app = create_app(
        settings, pipeline_factory=lambda s, service: build_pipeline(s, service, source=plan.source)
    )
    _serve(settings, app, source=plan.source.description)

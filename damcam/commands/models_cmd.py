"""Models commands: ``damcam train`` (the square classifier)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the app."""
    app.command("train")(train_command)


def train_command(
    source: Annotated[
        str, typer.Option("--source", help="Training data: synth renders or procedural crops.")
    ] = "synth",
    train_count: Annotated[int, typer.Option("--train-count", min=100)] = 128_000,
    train_parts: Annotated[
        int, typer.Option("--train-parts", min=1, help="Cache the training set in parts.")
    ] = 32,
    test_count: Annotated[int, typer.Option("--test-count", min=100)] = 6_000,
    seed: Annotated[int, typer.Option("--seed")] = 7,
    minutes: Annotated[float, typer.Option("--minutes", help="Training time budget.")] = 60.0,
    threads: Annotated[int, typer.Option("--threads", min=1)] = 2,
    out: Annotated[Path | None, typer.Option("--out", help="ONNX file to write.")] = None,
) -> None:
    """Render a data set, train the square classifier, export ONNX and its model card."""
    try:
        from models.train import TrainConfig, run  # torch is the optional `train` extra
    except ImportError as exc:
        err.print(f"[red]error:[/red] {exc}; install it with: pip install torch==2.13.0")
        raise typer.Exit(2) from None
    if source not in ("synth", "procedural"):
        err.print(f"[red]error:[/red] unknown --source {source!r}: use synth or procedural")
        raise typer.Exit(2)
    defaults = TrainConfig()
    config = TrainConfig(
        source="synth" if source == "synth" else "procedural",
        train_count=train_count,
        train_parts=train_parts,
        test_count=test_count,
        seed=seed,
        minutes=minutes,
        threads=threads,
        out=out or defaults.out,
    )
    card = run(config)
    typer.echo(json.dumps({"metrics": card["metrics"], "speed": card["speed"]}))

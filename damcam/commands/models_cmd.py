"""Models commands: ``damcam train`` (the square classifier)."""

from __future__ import annotations

import typer
from rich.console import Console

err = Console(stderr=True)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the app."""
    app.command(
        "train",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )(train_command)


def train_command(ctx: typer.Context) -> None:
    """Render a data set, train the square classifier, export ONNX and its model card.

    Every option is ``python -m models.train``'s (``damcam train --help`` lists them):
    the two faces take one parser, so neither falls behind the other.
    """
    try:
        from models.train import main  # torch is the optional `train` extra
    except ImportError as exc:
        err.print(f"[red]error:[/red] {exc}; install it with: pip install torch==2.13.0")
        raise typer.Exit(2) from None
    main(ctx.args, prog="damcam train")

"""CLI commands of this area (registered by :mod:`damcam.cli`)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this area's commands to the app."""

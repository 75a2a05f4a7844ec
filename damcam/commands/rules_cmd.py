"""Rules commands: ``damcam perft`` and ``damcam pdn check``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from rules import Position, RulesError, find_variant
from rules.perft import perft

err = Console(stderr=True)


def register(app: typer.Typer) -> None:
    app.command("perft")(perft_command)


def perft_command(
    variant: Annotated[str, typer.Option("--variant", help="Variant name, e.g. international.")],
    depth: Annotated[int, typer.Option("--depth", min=1, help="Deepest ply to count.")],
    fen: Annotated[str | None, typer.Option("--fen", help="Start position (PDN FEN).")] = None,
    keep_duplicates: Annotated[
        bool,
        typer.Option("--keep-duplicates", help="Count capture routes to the same result apart."),
    ] = False,
) -> None:
    """Count move sequences: one line per depth, ``D COUNT``."""
    try:
        v = find_variant(variant)
        position = Position.from_fen(v, fen) if fen else Position.initial(v)
    except RulesError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    for d in range(1, depth + 1):
        typer.echo(f"{d} {perft(position, d, keep_duplicates=keep_duplicates)}")

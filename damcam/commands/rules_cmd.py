"""Rules commands: ``damcam perft`` and ``damcam pdn check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from rules import Position, RulesError, find_variant
from rules.game import Game
from rules.pdn import iter_games
from rules.perft import perft

err = Console(stderr=True)


def register(app: typer.Typer) -> None:
    app.command("perft")(perft_command)
    pdn = typer.Typer(help="Read, check and write PDN game files.", no_args_is_help=True)
    pdn.command("check")(pdn_check_command)
    app.add_typer(pdn, name="pdn")


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


def pdn_check_command(
    file: Annotated[Path, typer.Argument(help="PDN file to replay.", exists=True, dir_okay=False)],
    variant: Annotated[
        str | None,
        typer.Option("--variant", help="Variant of games without a GameType tag (else guessed)."),
    ] = None,
) -> None:
    """Replay every game: one JSON object per game on stdout; exit 1 if any is rejected."""
    try:
        default = find_variant(variant) if variant else None
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    rejected = total = 0
    with file.open(encoding="utf-8", errors="replace", newline=None) as handle:
        for game in iter_games(handle, variant=default):
            total += 1
            report = check_report(game, total)
            rejected += not report["ok"]
            typer.echo(json.dumps(report, ensure_ascii=False))
    typer.echo(f"{file}: {total} games, {rejected} rejected", err=True)
    if rejected:
        raise typer.Exit(1)


def check_report(game: Game, index: int) -> dict[str, object]:
    """The ``pdn check`` line of one game (DESIGN.md CLI contract)."""
    report: dict[str, object] = {
        "game": index,
        "moves": game.ply,
        "ok": not game.errors,
        "error": "",
        "ply": game.ply,
        "variant": game.variant.name,
    }
    if game.errors:
        first = game.errors[0]
        report["error"] = str(first)
        report["ply"] = first.ply if first.ply is not None else game.ply
    if game.warnings:
        report["warnings"] = list(game.warnings)
    return report

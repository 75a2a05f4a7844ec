"""Synthetic data commands: ``damcam render image|dataset|game``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from rules import Position, RulesError, find_variant

err = Console(stderr=True)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the app."""
    render = typer.Typer(
        help="Synthetic images and game videos with ground truth.", no_args_is_help=True
    )
    render.command("image")(image_command)
    render.command("dataset")(dataset_command)
    render.command("game")(game_command)
    app.add_typer(render, name="render")


VariantOption = Annotated[str, typer.Option("--variant", help="Variant name, e.g. international.")]
SizeOption = Annotated[tuple[int, int], typer.Option("--size", help="Image width and height.")]


def _fail(exc: Exception) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}")
    return typer.Exit(2)


def image_command(
    out: Annotated[
        Path, typer.Argument(help="Image file to write (.png or .jpg); truth beside it as .json.")
    ],
    variant: VariantOption = "international",
    fen: Annotated[
        str | None, typer.Option("--fen", help="Position (PDN FEN); default the start.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Style seed.")] = 0,
    board: Annotated[str | None, typer.Option("--board", help="Board colour scheme.")] = None,
    pieces: Annotated[str | None, typer.Option("--pieces", help="Piece colour pair.")] = None,
    hand: Annotated[
        bool | None, typer.Option("--hand/--no-hand", help="Force a hand in or out.")
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", help="Table top: plain, wood, cloth, laminate.")
    ] = None,
    clock: Annotated[
        str | None, typer.Option("--clock", help="Chess clock: none, left, right.")
    ] = None,
    glare: Annotated[
        float | None, typer.Option("--glare", help="Lamp glare strength, 0 (none) to 2.")
    ] = None,
    size: SizeOption = (640, 480),
) -> None:
    """Render one position: the image and ``<out>.json`` with its truth."""
    import cv2

    from synth.render import render_position
    from synth.scene import Style

    try:
        v = find_variant(variant)
        position = Position.from_fen(v, fen) if fen else Position.initial(v)
        style = Style.random(seed, v, hand=hand)
        chosen = (
            ("board", board),
            ("pieces", pieces),
            ("table_texture", table),
            ("clock", clock),
            ("glare", glare),
        )
        changes = {k: val for k, val in chosen if val is not None}
        style = dataclasses.replace(style, **changes)  # type: ignore[arg-type]
        rendered = render_position(position, style, size)
    except (RulesError, ValueError) as exc:
        raise _fail(exc) from None
    cv2.imwrite(str(out), rendered.image)
    out.with_suffix(".json").write_text(json.dumps(rendered.truth, indent=1))
    typer.echo(str(out))


def dataset_command(
    out: Annotated[Path, typer.Argument(help="Folder for images/NNNNNN.jpg and truth.jsonl.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many images.")] = 100,
    variants: Annotated[
        str, typer.Option("--variants", help="Comma-separated variants to draw from.")
    ] = "international,russian,bashni,lasca",
    seed: Annotated[int, typer.Option("--seed", help="First seed; image i uses seed + i.")] = 0,
    plies: Annotated[int, typer.Option("--plies", help="Most random plies from the start.")] = 60,
    size: SizeOption = (640, 480),
) -> None:
    """Render random positions in random styles, with a progress bar."""
    import cv2

    from synth.dataset import random_position
    from synth.render import Renderer
    from synth.scene import Style

    try:
        chosen = [find_variant(name.strip()) for name in variants.split(",") if name.strip()]
    except ValueError as exc:
        raise _fail(exc) from None
    (out / "images").mkdir(parents=True, exist_ok=True)
    columns = (TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with (
        Renderer(size) as renderer,
        (out / "truth.jsonl").open("w") as lines,
        Progress(*columns, console=err) as progress,
    ):
        task = progress.add_task("render", total=count)
        for i in range(count):
            variant = chosen[(seed + i) % len(chosen)]
            position = random_position(variant, seed + i, plies)
            rendered = renderer.render(position, Style.random(seed + i, variant))
            name = f"images/{i:06d}.jpg"
            cv2.imwrite(str(out / name), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            lines.write(json.dumps({"image": name, "fen": position.fen(), **rendered.truth}) + "\n")
            progress.advance(task)
    typer.echo(f"{count} images in {out}")


def game_command(
    pdn: Annotated[
        Path,
        typer.Argument(help="PDN file; its first game is rendered.", exists=True, dir_okay=False),
    ],
    out: Annotated[Path, typer.Argument(help="Folder for game.mp4 (or frames/) and truth.jsonl.")],
    seed: Annotated[int, typer.Option("--seed", help="Style seed.")] = 0,
    game_number: Annotated[int, typer.Option("--game", min=1, help="Which game of the file.")] = 1,
    frames: Annotated[bool, typer.Option("--frames", help="PNG frames instead of an mp4.")] = False,
    fps: Annotated[float, typer.Option("--fps", help="Frames a second.")] = 10.0,
    size: SizeOption = (640, 480),
) -> None:
    """Render a PDN game as a video (or frames) with per-frame truth."""
    from rules.pdn import iter_games
    from synth.game import Timing, write_game
    from synth.scene import Style

    with pdn.open(encoding="utf-8", errors="replace") as handle:
        game = next(
            (g for i, g in enumerate(iter_games(handle), start=1) if i == game_number), None
        )
    if game is None:
        raise _fail(ValueError(f"{pdn} has no game {game_number}"))
    if game.errors:
        raise _fail(ValueError(f"{pdn} game {game_number}: {game.errors[0]}"))
    start = game.start or Position.initial(game.variant)
    try:
        style = Style.random(seed, game.variant, hand=False)
        count = write_game(
            start, list(game.moves), style, out, video=not frames, timing=Timing(fps=fps), size=size
        )
    except (RulesError, ValueError) as exc:
        raise _fail(exc) from None
    typer.echo(f"{count} frames in {out}")

"""Vision commands: ``damcam read``, ``damcam calibrate`` and ``damcam calibrate markers``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import cv2
import numpy as np
import typer
from rich.console import Console

from calibration.table import CalibrationError, TableCalibration, calibrate_start_position
from rules import find_variant
from rules.variants import Variant
from vision.board_spec import MarkerBoardSpec
from vision.classifier import SquareClassifier
from vision.locate import BoardNotFound, Image
from vision.read import read_image

err = Console(stderr=True)

#: Tried in turn when ``damcam read`` is given no variant: the board size decides.
DEFAULT_VARIANTS = ("international", "russian")


def register(app: typer.Typer) -> None:
    app.command("read")(read_command)
    app.command("calibrate")(calibrate_command)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


def _variant(name: str) -> Variant:
    try:
        return find_variant(name)
    except ValueError as exc:
        raise _fail(str(exc)) from None


def _first_frame(path: Path) -> Image:
    """An image file, or the first frame of a video file."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        capture = cv2.VideoCapture(str(path))
        ok, frame = capture.read()
        capture.release()
        if not ok or frame is None:
            raise _fail(f"{path}: not a readable image or video")
        image = frame
    return np.asarray(image, np.uint8)


def read_command(
    image: Annotated[Path, typer.Argument(help="Photo of the board.", exists=True, dir_okay=False)],
    variant: Annotated[
        str | None,
        typer.Option("--variant", help="Variant (else 10x10 international or 8x8 russian)."),
    ] = None,
    calibration: Annotated[
        Path | None, typer.Option("--calibration", help="Table calibration JSON.", dir_okay=False)
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    reader: Annotated[
        str,
        typer.Option(
            "--reader",
            help="'colours' (learned from the image or calibration) or 'model' (the ONNX "
            "classifier, which also reads crowns and towers).",
        ),
    ] = "colours",
) -> None:
    """Read the position in one image; exit 1 when no board is found."""
    if reader not in ("colours", "model"):
        raise _fail(f"unknown reader {reader!r}: use 'colours' or 'model'")
    frame = _first_frame(image)
    table = None
    if calibration is not None:
        try:
            table = TableCalibration.load(calibration)
        except CalibrationError as exc:
            raise _fail(str(exc)) from None
    # Colours are the default while they read better than the ONNX model (docs/models.md:
    # the model still confuses men and kings); a calibration's colour prototypes know which
    # colour is White at this table, so they take over when one is given.
    classifier = _onnx_classifier() if reader == "model" and table is None else None
    names = [variant] if variant else [table.variant] if table else list(DEFAULT_VARIANTS)
    reasons, readings = [], []
    for name in names:
        v = _variant(name)
        result = read_image(
            frame,
            v,
            registration=table.registration() if table else None,
            prototypes=table.prototypes() if table else None,
            classifier=classifier,
        )
        if isinstance(result, BoardNotFound):
            reasons.append(f"{v.name} ({v.geometry.size}x{v.geometry.size}): {result.reason}")
        else:
            readings.append(result)
    if readings:
        best = max(readings, key=lambda r: r.checker_contrast)
        if as_json:
            typer.echo(json.dumps(best.as_json()))
        else:
            typer.echo("\n".join(best.image_grid))
            typer.echo(f"fen {best.fen}  ({best.method})")
        return
    raise _fail(f"{image}: no board found: " + "; ".join(reasons), code=1)


def calibrate_command(
    source: Annotated[
        str, typer.Argument(help="Photo or video of the start position, or 'markers'.")
    ],
    variant: Annotated[str, typer.Option("--variant", help="Variant being played.")] = "russian",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="File to write (calibration.json, or markers.png)."),
    ] = None,
    white: Annotated[
        str, typer.Option("--white", help="Which piece colour is White: light or dark.")
    ] = "light",
    square_mm: Annotated[
        float, typer.Option("--square-mm", help="Marker sheet: square side in mm.")
    ] = 40.0,
    dpi: Annotated[int, typer.Option("--dpi", help="Marker sheet: print resolution.")] = 150,
) -> None:
    """Calibrate a table from its start position and write the JSON;
    ``damcam calibrate markers`` prints the marker sheet for the variant's board instead."""
    if source == "markers":
        markers_command(out or Path("markers.png"), _variant(variant).geometry.size, square_mm, dpi)
        return
    path = Path(source)
    if not path.is_file():
        raise _fail(f"{path}: no such file")
    if white not in ("light", "dark"):
        raise _fail(f"--white must be light or dark, not {white!r}")
    try:
        table = calibrate_start_position(
            _first_frame(path), _variant(variant), light_is_white=white == "light", source=source
        )
    except CalibrationError as exc:
        raise _fail(str(exc), code=1) from None
    out = out or Path("calibration.json")
    table.save(out)
    typer.echo(
        f"wrote {out} (board {table.size}x{table.size} by {table.method}, turns {table.turns})"
    )


def markers_command(out: Path, size: int, square_mm: float, dpi: int) -> None:
    """Print the marker sheet: the grid outline and the four ArUco markers, to scale."""
    px_per_square = round(square_mm / 25.4 * dpi)
    sheet = MarkerBoardSpec().scaled(square_mm).sheet(size, px_per_square)
    if not cv2.imwrite(str(out), sheet):
        raise _fail(f"cannot write {out}")
    typer.echo(f"wrote {out} ({sheet.shape[1]}x{sheet.shape[0]} px at {dpi} dpi)")


def _onnx_classifier() -> SquareClassifier:
    from models.classifier import ModelFileError, OnnxSquareClassifier

    try:
        return OnnxSquareClassifier.load()
    except ModelFileError as exc:
        raise _fail(str(exc)) from None

"""Vision commands: ``damcam read``, ``damcam calibrate``, ``damcam calibrate markers`` and
``damcam calibrate intrinsics``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import cv2
import numpy as np
import typer
from rich.console import Console

from calibration.intrinsics import CameraIntrinsics, calibrate_intrinsics, charuco_sheet
from calibration.table import (
    SIMILAR_LIGHTNESS,
    CalibrationError,
    TableCalibration,
    calibrate_position,
    encode_frame,
)
from rules import Position, find_variant
from rules.appearance import looks_the_same_swapped
from rules.variants import Variant
from vision.board_spec import MarkerBoardSpec
from vision.camera import Undistorter, distort_points
from vision.locate import BoardNotFound, Image
from vision.read import read_image

if TYPE_CHECKING:
    from models.classifier import OnnxSquareClassifier

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
            help="'model' (the ONNX classifier, adapted to the set from the start image a "
            "calibration keeps; it also reads crowns and towers), 'colours' (learned from "
            "the image or calibration), or 'auto': the model, but the colours with a "
            "calibration that keeps no start image.",
        ),
    ] = "auto",
) -> None:
    """Read the position in one image; exit 1 when no board is found."""
    if reader not in ("auto", "colours", "model"):
        raise _fail(f"unknown reader {reader!r}: use 'auto', 'colours' or 'model'")
    frame = _first_frame(image)
    raw_size = (frame.shape[1], frame.shape[0])
    table = None
    if calibration is not None:
        try:
            table = TableCalibration.load(calibration)
        except CalibrationError as exc:
            raise _fail(str(exc)) from None
        if table.intrinsics is not None:
            frame = _undistort(frame, table.intrinsics, calibration)
    model = _reading_model(reader, table, calibration)
    names = [variant] if variant else [table.variant] if table else list(DEFAULT_VARIANTS)
    reasons, readings = [], []
    for name in names:
        v = _variant(name)
        result = read_image(
            frame,
            v,
            registration=table.registration() if table else None,
            prototypes=table.prototypes() if table else None,
            classifier=None if model is None else model.for_variant(v.towers),
        )
        if isinstance(result, BoardNotFound):
            reasons.append(f"{v.name} ({v.geometry.size}x{v.geometry.size}): {result.reason}")
        else:
            readings.append(result)
    if readings:
        best = max(readings, key=lambda r: r.checker_contrast)
        for note in best.notes:
            err.print(f"[yellow]warning:[/yellow] {calibration}: {note}")
        if table is not None and table.intrinsics is not None:
            # Corners are reported in the photo as given, not in its undistorted copy.
            lens = table.intrinsics.intrinsics().for_size(*raw_size)
            raw = distort_points(lens, np.array(best.corners_px, np.float64))
            best = replace(best, corners_px=[[round(float(v), 1) for v in p] for p in raw])
        if as_json:
            typer.echo(json.dumps(best.as_json()))
        else:
            typer.echo("\n".join(best.image_grid))
            typer.echo(f"fen {best.fen}  ({best.method})")
        return
    raise _fail(f"{image}: no board found: " + "; ".join(reasons), code=1)


def calibrate_command(
    source: Annotated[
        str,
        typer.Argument(help="Photo or video of the start position, 'markers' or 'intrinsics'."),
    ],
    variant: Annotated[str, typer.Option("--variant", help="Variant being played.")] = "russian",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="File to write (calibration.json, markers.png, intrinsics.json, charuco.png).",
        ),
    ] = None,
    white: Annotated[
        str,
        typer.Option(
            "--white",
            help="Which piece colour is White: light, dark, or auto (the lighter, or the"
            " side nearer the image's bottom when both look alike).",
        ),
    ] = "auto",
    square_mm: Annotated[
        float, typer.Option("--square-mm", help="Marker sheet: square side in mm.")
    ] = 40.0,
    dpi: Annotated[
        int, typer.Option("--dpi", help="Marker or ChArUco sheet: print resolution.")
    ] = 150,
    intrinsics: Annotated[
        Path | None,
        typer.Option(
            "--intrinsics",
            help="Table: intrinsics JSON (damcam calibrate intrinsics) to undistort with; "
            "kept in the calibration.",
            dir_okay=False,
        ),
    ] = None,
    views: Annotated[
        Path | None,
        typer.Option("--views", help="Intrinsics: a folder of ChArUco photos, or a video."),
    ] = None,
    sheet: Annotated[
        bool, typer.Option("--sheet", help="Intrinsics: write the ChArUco sheet to print.")
    ] = False,
    fen: Annotated[
        str | None,
        typer.Option(
            "--fen",
            help="Table: the photo shows this position, not the start (a game under way, or "
            "set up from a FEN).",
        ),
    ] = None,
) -> None:
    """Calibrate a table from its start position (or ``--fen``'s) and write the JSON;
    ``damcam calibrate markers`` prints the marker sheet for the variant's board instead, and
    ``damcam calibrate intrinsics --views VIEWS`` measures the camera from photos of
    the ChArUco sheet (``--sheet`` prints it)."""
    if source == "markers":
        markers_command(out or Path("markers.png"), _variant(variant).geometry.size, square_mm, dpi)
        return
    if source == "intrinsics":
        intrinsics_command(views, out, sheet, dpi)
        return
    path = Path(source)
    if not path.is_file():
        raise _fail(f"{path}: no such file")
    if white not in ("light", "dark", "auto"):
        raise _fail(f"--white must be light, dark or auto, not {white!r}")
    frame = _first_frame(path)
    start_image = path.read_bytes() if cv2.haveImageReader(str(path)) else encode_frame(frame)
    camera = None
    if intrinsics is not None:
        try:
            camera = CameraIntrinsics.load(intrinsics)
        except ValueError as exc:
            raise _fail(str(exc)) from None
        frame = _undistort(frame, camera, intrinsics)
    game_variant = _variant(variant)
    try:
        position = (
            Position.initial(game_variant) if fen is None else Position.from_fen(game_variant, fen)
        )
    except ValueError as exc:
        raise _fail(f"--fen {fen!r}: {exc}") from None
    try:
        table = calibrate_position(
            frame,
            position,
            light_is_white=None if white == "auto" else white == "light",
            source=source,
        )
    except CalibrationError as exc:
        raise _fail(str(exc), code=1) from None
    # The image as given (before undistortion; a photo's own bytes), for the model to adapt from
    table = table.with_start_image(start_image)
    if camera is not None:
        table = table.model_copy(update={"intrinsics": camera})
    out = out or Path("calibration.json")
    table.save(out)
    typer.echo(
        f"wrote {out} (board {table.size}x{table.size} by {table.method}, turns {table.turns})"
    )
    light, dark = table.light_lab[0], table.dark_lab[0]
    # a position that does not look the same turned and exchanged shows its own turn
    if abs(light - dark) < SIMILAR_LIGHTNESS and looks_the_same_swapped(position):
        side = "the side nearer the image's bottom" if white == "auto" else f"the {white}er men"
        typer.echo(
            f"warning: the two sides' men are alike in lightness (L {light:.0f} and"
            f" {dark:.0f}): White was taken as {side}; check it, or pass --white light|dark",
            err=True,
        )


def intrinsics_command(views: Path | None, out: Path | None, sheet: bool, dpi: int) -> None:
    """Write the ChArUco sheet, or the camera's intrinsics from photos of it."""
    if sheet:
        out = out or Path("charuco.png")
        if not cv2.imwrite(str(out), charuco_sheet(dpi)):
            raise _fail(f"cannot write {out}")
        typer.echo(f"wrote {out} (ChArUco sheet at {dpi} dpi)")
        return
    if views is None:
        raise _fail("calibrate intrinsics needs --views FOLDER_OR_VIDEO of ChArUco photos")
    try:
        camera = calibrate_intrinsics(_views(views))
    except ValueError as exc:
        raise _fail(f"{views}: {exc}", code=1) from None
    out = out or Path("intrinsics.json")
    camera.save(out)
    typer.echo(
        f"wrote {out} (fx {camera.fx:.1f} fy {camera.fy:.1f} px, k1 {camera.distortion[0]:+.3f},"
        f" {camera.views} views, rms {camera.rms_error_px:.2f} px)"
    )


#: Frames taken from a calibration video: every n-th, so that the views differ.
VIDEO_VIEW_STEP = 15


def _views(path: Path) -> list[Image]:
    """The images in a folder (sorted by name), or every ``VIDEO_VIEW_STEP``-th video frame."""
    if path.is_dir():
        images = []
        for file in sorted(p for p in path.iterdir() if p.is_file()):
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is not None:
                images.append(np.asarray(image, np.uint8))
        if not images:
            raise _fail(f"{path}: no readable images")
        return images
    capture = cv2.VideoCapture(str(path))
    frames: list[Image] = []
    index = 0
    while True:
        ok, frame = capture.read()
        if not ok or frame is None:
            break
        if index % VIDEO_VIEW_STEP == 0:
            frames.append(np.asarray(frame, np.uint8))
        index += 1
    capture.release()
    if not frames:
        raise _fail(f"{path}: not a folder of images or a readable video")
    return frames


def _undistort(frame: Image, camera: CameraIntrinsics, source: Path) -> Image:
    try:
        return Undistorter(camera.intrinsics())(frame)
    except ValueError as exc:
        raise _fail(f"{source}: {exc}") from None


def markers_command(out: Path, size: int, square_mm: float, dpi: int) -> None:
    """Print the marker sheet: the grid outline and the four ArUco markers, to scale."""
    px_per_square = round(square_mm / 25.4 * dpi)
    sheet = MarkerBoardSpec().scaled(square_mm).sheet(size, px_per_square)
    if not cv2.imwrite(str(out), sheet):
        raise _fail(f"cannot write {out}")
    typer.echo(f"wrote {out} ({sheet.shape[1]}x{sheet.shape[0]} px at {dpi} dpi)")


def _reading_model(
    reader: str, table: TableCalibration | None, calibration: Path | None
) -> OnnxSquareClassifier | None:
    """The model ``damcam read`` reads with, None for the colour prototypes. ``auto`` reads
    with the model, adapted to the set from the start image a calibration keeps; with the
    colours where a calibration keeps none (it knows this table's colours, and no start
    frame to adapt from) or the model file is missing (a warning). On the labelled photos
    the model reads 97% of the squares uncalibrated (the set's men measured on each
    photo's board) against the colours' 71% (``bench.classifier``), and 99.7% through a
    calibration against 86% (``bench.photo_sessions``; docs/models.md, "Which reader
    vision uses")."""
    from models.classifier import ModelFileError, OnnxSquareClassifier  # onnxruntime: lazily

    if reader == "colours" or (reader == "auto" and table and table.start_image is None):
        return None
    try:
        model = OnnxSquareClassifier.load()
    except ModelFileError as exc:
        if reader == "model":
            raise _fail(str(exc)) from None
        err.print(f"[yellow]warning:[/yellow] reading with the colours: {exc}")
        return None
    if table is None:
        return model
    from pi.wiring import adapted_to_table

    try:
        return adapted_to_table(model, _variant(table.variant), table)
    except CalibrationError as exc:
        raise _fail(f"{calibration}: {exc}") from None

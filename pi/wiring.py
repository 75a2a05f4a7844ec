"""Putting the live pipeline together from the settings: source, vision, recorder."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from calibration.table import (
    CalibrationError,
    TableCalibration,
    calibrate_position,
    encode_frame,
    position_tops,
)
from models.classifier import ModelFileError, OnnxSquareClassifier
from pi.capture import Frame, FrameSource, open_source
from pi.config import CameraSettings, Settings, load_settings
from pi.journal import Journal, JournalError
from pi.pipeline import LivePipeline, Recognizer
from pi.record import GameRecord
from pi.recording import RecorderAdapter
from pi.tables import TableService
from rules import Position, Variant, find_variant
from rules.observation import Observation
from vision.classifier import SquareClassifier
from vision.locate import Image
from vision.observe import Observer, ObserverConfig
from vision.prototype import PrototypeClassifier

log = logging.getLogger(__name__)


class VisionUnavailableError(RuntimeError):
    """This build has no vision stage that turns camera frames into observations."""


def vision_recognizer(settings: Settings, service: TableService | None = None) -> Recognizer:
    """Vision for the table: frame -> Observation, with the table's calibration.

    With a calibration file in the settings, vision reads with its orientation and the
    model adapted from the start image the file keeps (its colour prototypes where it keeps
    none). Without one, the table calibrates itself from the first frame that shows
    the start position (as an arbiter calibrates when the pieces are set up); frames before
    that carry no board, so the live loop carries on (its health: "not calibrated", and
    why). With the tables' ``service``, that calibration is kept in the journal; a game
    already under way there reads on with the table's last one (:func:`resumed_calibration`)
    or, where none of its variant is kept, calibrates from a frame that shows the game's
    position as the journal has it (as does a game set up from a FEN).

    :raises VisionUnavailableError: the calibration file cannot be read.
    """
    variant = find_variant(settings.variant)
    if settings.calibration is not None:
        try:
            table = TableCalibration.load(settings.calibration)
        except CalibrationError as exc:
            raise VisionUnavailableError(str(exc)) from exc
        return CalibratingRecognizer(variant, observer_for(variant, table))
    if service is None:
        return CalibratingRecognizer(variant, None)
    journal, table_id = service.journal, settings.table

    def keep(table: TableCalibration) -> None:
        journal.keep_calibration(table_id, table.model_dump_json())

    def position() -> Position:
        return service.current(table_id).position

    try:
        resumed = resumed_calibration(journal, service.current(table_id))
    except CalibrationError as exc:
        log.warning("table %s: %s", table_id, exc)
        return CalibratingRecognizer(
            variant, None, keep=keep, position=position, cannot_resume=str(exc)
        )
    observer = None if resumed is None else observer_for(variant, resumed)
    return CalibratingRecognizer(variant, observer, keep=keep, position=position)


def resumed_calibration(journal: Journal, game: GameRecord) -> TableCalibration | None:
    """The calibration a device restarted during ``game`` reads on with: its table's last
    one kept in the journal, where the game is under way. A game at its start position
    calibrates afresh from it, under today's light, and perhaps with another set (None).

    :raises CalibrationError: the game is under way and no calibration of its variant is
        kept (the message says which).
    """
    if game.position == Position.initial(game.variant):
        return None
    under_way = f"game {game.game_id} is under way"
    text = journal.kept_calibration(game.table_id)
    if text is None:
        raise CalibrationError(f"{under_way} and the journal keeps no calibration of the table")
    try:
        table = TableCalibration.model_validate_json(text)
    except ValidationError as exc:
        raise CalibrationError(f"{under_way}: the calibration kept is bad ({exc})") from None
    if table.variant != game.variant.name:
        # another board, or the same one numbered and turned otherwise (english's)
        raise CalibrationError(
            f"{under_way}: the calibration kept is {table.variant}'s, not {game.variant.name}'s"
        )
    log.info("table %s: game %s reads on with the calibration kept", game.table_id, game.game_id)
    return table


def observer_for(
    variant: Variant, table: TableCalibration, start_frame: Image | None = None
) -> Observer:
    """Vision with this table's calibration, reading with the square classifier model
    adapted to this set from its start-position frame (default: the image the calibration
    keeps). The model reads renders and the labelled photos better than the colour
    prototypes, and tells kings (docs/models.md); the prototypes read where there is no
    start frame or no model file (logged)."""
    config = ObserverConfig()
    classifier: SquareClassifier = PrototypeClassifier(table.prototypes())
    try:
        classifier = adapted_to_table(OnnxSquareClassifier.load(), variant, table, start_frame)
    except (ModelFileError, CalibrationError) as exc:
        log.warning("reading with the colour prototypes: %s", exc)
    return Observer(config, variant, table.registration(), classifier)


def adapted_to_table(
    model: OnnxSquareClassifier,
    variant: Variant,
    table: TableCalibration,
    start_frame: Image | None = None,
) -> OnnxSquareClassifier:
    """``model`` adapted to this table's set from its calibration frame (default: the
    image the calibration keeps, of the position it names), where the calibration found
    the board and under its turn.

    :raises CalibrationError: there is no start frame.
    """
    frame = table.start_frame() if start_frame is None else start_frame
    if frame is None:
        raise CalibrationError(
            "the calibration keeps no start image (written before they did): "
            "calibrate again with damcam calibrate to read with the model"
        )
    registration = table.registration()
    try:
        return model.adapted_on_frame(
            frame,
            table.location(),
            variant.geometry,
            np.array(position_tops(table.position())),
            turns=registration.turns,
            camera=registration.camera,
            towers=variant.towers,
        )
    except ValueError as exc:  # a position without men of one side, say
        raise CalibrationError(f"the model cannot adapt to this frame: {exc}") from None


class CalibratingRecognizer:
    """Runs vision's Observer on each frame, calibrating the table first from a frame of
    the start position (or of the game's position, where the start will not come back).

    ``calibrated`` tells whether it has a calibration; ``waiting_reason`` why not yet, and
    ``waiting`` the same for the live loop's health (None once calibrated). ``position``
    gives the position to calibrate from (default: the start position; the live path's is
    the game's, as the journal has it). ``keep`` is given the calibration it makes, with
    the frame it made it from. ``cannot_resume``: why a game under way could not read on
    with a kept calibration (said with every wait).
    """

    def __init__(
        self,
        variant: Variant,
        observer: Observer | None,
        *,
        keep: Callable[[TableCalibration], None] | None = None,
        position: Callable[[], Position] | None = None,
        cannot_resume: str | None = None,
    ) -> None:
        self.variant = variant
        self.observer = observer
        self.keep = keep
        self.position = position or (lambda: Position.initial(variant))
        self.cannot_resume = cannot_resume
        at_start = self.position() == Position.initial(variant)
        shown = "the start position" if at_start else "the game's position"
        self.waiting_reason = self._why(f"waiting for {shown} to calibrate the table")

    @property
    def calibrated(self) -> bool:
        return self.observer is not None

    @property
    def waiting(self) -> str | None:
        return None if self.calibrated else self.waiting_reason

    def __call__(self, frame: Frame) -> Observation:
        if frame.image is None:
            return Observation(frame.time, (), board_found=False, frame_index=frame.index)
        if self.observer is None:
            try:
                table = calibrate_position(
                    frame.image, self.position(), source=f"frame {frame.index}"
                )
            except CalibrationError as exc:
                self.waiting_reason = self._why(str(exc))
                return Observation(frame.time, (), board_found=False, frame_index=frame.index)
            log.info("table calibrated from frame %d (%s)", frame.index, table.method)
            self.observer = observer_for(self.variant, table, frame.image)
            self._keep(table, frame.image)
        return self.observer.observe(frame.image, frame.time)

    def _why(self, reason: str) -> str:
        return reason if self.cannot_resume is None else f"{self.cannot_resume}; {reason}"

    def _keep(self, table: TableCalibration, frame: Image) -> None:
        if self.keep is None:
            return
        try:
            self.keep(table.with_start_image(encode_frame(frame)))
        except (CalibrationError, JournalError) as exc:
            # the game goes on with the calibration in hand; only a restart would miss it
            log.warning("the table's calibration is not kept: %s", exc)


def build_pipeline(
    settings: Settings,
    service: TableService,
    *,
    source: FrameSource | None = None,
    recognize: Recognizer | None = None,
) -> LivePipeline:
    """The pipeline for this table; the game goes on from the journal (or starts)."""
    record = service.ensure_game(settings.table, settings.variant, tags=settings.game_tags())
    if source is None:
        if not settings.camera.source:
            raise ValueError("no camera source configured (settings.camera.source)")
        source = open_source(settings.camera.source, settings.camera)
    if recognize is None and source.needs_vision:
        recognize = vision_recognizer(settings, service)
    return LivePipeline(
        source,
        recognize,
        # a file's own clock times its moves; a live camera's is the wall clock's
        RecorderAdapter(record, clock=not source.live),
        service,
        settings.table,
        stale_seconds=settings.camera.stale_seconds,
    )


@contextmanager
def throwaway_recording(video: Path, variant: str) -> Iterator[tuple[LivePipeline, TableService]]:
    """``damcam record VIDEO --variant VARIANT``'s pipeline over a journal in a temporary
    folder, for benches and tests that look inside the chain (tap a stage, drop frames)
    before they run it; the game is ``service.current(pipeline.table_id)``."""
    with tempfile.TemporaryDirectory(prefix="damcam-record-") as tmp:
        settings = load_settings(
            None,
            variant=variant,
            journal=Path(tmp) / "journal.sqlite",
            camera=CameraSettings(source=str(video)),
        )
        with Journal(settings.journal) as journal:
            service = TableService(journal)
            service.start_game(settings.table, settings.variant)
            yield build_pipeline(settings, service), service

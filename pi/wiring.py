"""Putting the live pipeline together from the settings: source, vision, recorder."""

from __future__ import annotations

import logging

from calibration.table import CalibrationError, TableCalibration, calibrate_start_position
from pi.capture import Frame, FrameSource, open_source
from pi.config import Settings
from pi.pipeline import LivePipeline, Recognizer
from pi.recording import RecorderAdapter
from pi.tables import TableService
from rules import Variant, find_variant
from rules.observation import Observation
from vision.observe import Observer, ObserverConfig
from vision.prototype import PrototypeClassifier

log = logging.getLogger(__name__)


class VisionUnavailableError(RuntimeError):
    """This build has no vision stage that turns camera frames into observations."""


def vision_recognizer(settings: Settings) -> Recognizer:
    """Vision for the table: frame -> Observation, with the table's calibration.

    With a calibration file in the settings, vision reads with its colour prototypes and
    orientation. Without one, the table calibrates itself from the first frame that shows
    the start position (as an arbiter calibrates when the pieces are set up); frames before
    that read as "board not found", so the live loop carries on.

    :raises VisionUnavailableError: the calibration file cannot be read.
    """
    variant = find_variant(settings.variant)
    if settings.calibration is not None:
        try:
            table = TableCalibration.load(settings.calibration)
        except CalibrationError as exc:
            raise VisionUnavailableError(str(exc)) from exc
        return CalibratingRecognizer(variant, _observer(variant, table))
    return CalibratingRecognizer(variant, None)


def _observer(variant: Variant, table: TableCalibration) -> Observer:
    classifier = PrototypeClassifier(table.prototypes())
    return Observer(ObserverConfig(), variant, table.registration(), classifier)


class CalibratingRecognizer:
    """Runs vision's Observer on each frame, calibrating from the start position first.

    ``calibrated`` tells whether it has a calibration; ``waiting_reason`` why not yet.
    """

    def __init__(self, variant: Variant, observer: Observer | None) -> None:
        self.variant = variant
        self.observer = observer
        self.waiting_reason = "waiting for the start position to calibrate the table"

    @property
    def calibrated(self) -> bool:
        return self.observer is not None

    def __call__(self, frame: Frame) -> Observation:
        if frame.image is None:
            return Observation(frame.time, (), board_found=False, frame_index=frame.index)
        if self.observer is None:
            try:
                table = calibrate_start_position(
                    frame.image, self.variant, source=f"frame {frame.index}"
                )
            except CalibrationError as exc:
                self.waiting_reason = str(exc)
                return Observation(frame.time, (), board_found=False, frame_index=frame.index)
            log.info("table calibrated from frame %d (%s)", frame.index, table.method)
            self.observer = _observer(self.variant, table)
        return self.observer.observe(frame.image, frame.time)


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
        recognize = vision_recognizer(settings)
    return LivePipeline(
        source,
        recognize,
        RecorderAdapter(record),
        service,
        settings.table,
        stale_seconds=settings.camera.stale_seconds,
    )

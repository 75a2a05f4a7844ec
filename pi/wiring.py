"""Putting the live pipeline together from the settings: source, vision, recorder."""

from __future__ import annotations

import logging

from pi.capture import FrameSource, open_source
from pi.config import Settings
from pi.pipeline import LivePipeline, Recognizer
from pi.recording import RecorderAdapter
from pi.tables import TableService

log = logging.getLogger(__name__)


class VisionUnavailableError(RuntimeError):
    """This build has no vision stage that turns camera frames into observations."""


def vision_recognizer(settings: Settings) -> Recognizer:
    """Vision for the table: frame -> Observation, with the table's calibration.

    :raises VisionUnavailableError: the vision package offers no frame reader (yet).
    """
    raise VisionUnavailableError(
        "this build has no vision stage: camera frames cannot be turned into observations; "
        "'damcam demo' plays a scripted game through the rest of the pipeline instead"
    )


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

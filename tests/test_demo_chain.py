"""``damcam demo``'s chain on the demo game: a rendered H.264 video through capture,
vision, the recorder and the journal, and the moves it records.

The video is the bundled one in ``pi/demo/`` (the whole 30-ply game); without it, the
first plies of the same game, rendered and compressed here by :mod:`pi.demo_video` in the
same style. It is read frame by frame (``damcam record``'s path) rather than in real time,
so a busy machine drops no frame and the test says the same thing every run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi.capture import Frame, FrameSource, VideoFileSource
from pi.config import Settings
from pi.demo import bundled_video, plan_demo
from pi.demo_video import build_demo
from pi.journal import Journal
from pi.tables import TableService
from pi.wiring import build_pipeline

pytestmark = pytest.mark.slow

SHORT_CUT_PLIES = 6


@dataclass(frozen=True)
class DemoRun:
    video: Path
    played: list[str]
    recorded: list[str]
    flags: list[str]
    errors: int
    frames: int


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    tmp = tmp_path_factory.mktemp("demo")
    video = bundled_video() or build_demo(tmp / "video", plies=SHORT_CUT_PLIES)
    played = json.loads(video.with_suffix(".json").read_text(encoding="utf-8"))["moves"]
    settings = Settings(table="d", variant="international", journal=tmp / "j.sqlite")
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.start_game("d", "international")
        health = build_pipeline(settings, service, source=VideoFileSource(video)).run()
        record = service.current("d")
    flags = [f"{f.kind} at ply {f.ply}: {f.message}" for f in record.flags]
    return DemoRun(video, played, record.notations(), flags, health.errors, health.frames_processed)


def test_demo_plays_the_video_through_vision(demo_run: DemoRun, tmp_path: Path) -> None:
    plan = plan_demo(Settings(journal=tmp_path / "j.sqlite"), str(demo_run.video))
    assert plan.source.needs_vision and plan.source.live  # camera playback, real time
    assert "vision" in plan.description and "perfect" not in plan.description


def test_demo_chain_records_only_moves_played(demo_run: DemoRun) -> None:
    assert demo_run.errors == 0
    assert demo_run.frames > 20 * len(demo_run.played)  # every frame was analysed
    # Whatever vision misses, no move that was not played gets onto the scoresheet.
    assert demo_run.recorded == demo_run.played[: len(demo_run.recorded)]


def test_demo_chain_records_the_game_exactly(demo_run: DemoRun) -> None:
    # The whole bundled game (30 plies with captures), or its first plies without it;
    # nothing for the arbiter to look at.
    assert demo_run.recorded == demo_run.played
    assert demo_run.flags == []


class _Part(FrameSource):
    """The frames ``start`` to ``stop`` (excluded) of a video, as a device that was off
    before ``start`` or lost its power at ``stop`` saw them."""

    def __init__(self, video: Path, start: int, stop: int | None = None) -> None:
        self.video = VideoFileSource(video)
        self.start, self.stop = start, stop

    def close(self) -> None:
        self.video.close()

    def __iter__(self) -> Iterator[Frame]:
        for frame in self.video:
            if self.stop is not None and frame.index >= self.stop:
                return
            if frame.index >= self.start:
                yield frame


def test_a_device_restarted_mid_game_records_the_rest(demo_run: DemoRun, tmp_path: Path) -> None:
    """No calibration file: the table calibrated itself from the start position, which
    will not come back after a power cut mid-game; the restarted device reads on with the
    calibration the journal kept (pi.wiring.resumed_calibration)."""
    cut = demo_run.frames // 2
    settings = Settings(table="d", variant="international", journal=tmp_path / "j.sqlite")
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.start_game("d", "international")
        build_pipeline(settings, service, source=_Part(demo_run.video, 0, cut)).run()
        before = service.current("d").notations()
    assert 0 < len(before) < len(demo_run.played)
    with Journal(settings.journal) as journal:
        service = TableService(journal)
        service.ensure_game("d", "international")
        health = build_pipeline(settings, service, source=_Part(demo_run.video, cut)).run()
        record = service.current("d")
    assert health.errors == 0
    assert record.notations() == demo_run.recorded and record.flags == []

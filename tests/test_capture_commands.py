"""The device commands: ``damcam serve``, ``record`` and ``demo`` (Typer's CliRunner)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from damcam.cli import app
from pi.config import Settings
from pi.demo import GENERATED_PLIES, GENERATED_SEED, plan_demo
from pi.journal import Journal
from pi.pipeline import LivePipeline
from pi.recording import RecorderAdapter
from pi.replay import ObservationSource, generated_game
from pi.tables import TableService
from rules import Position, find_variant

runner = CliRunner()


def test_serve_refuses_a_bad_config_file(tmp_path: Path) -> None:
    config = tmp_path / "damcam.toml"
    config.write_text('variant = "chess"\n', encoding="utf-8")
    result = runner.invoke(app, ["serve", "--config", str(config)])
    assert result.exit_code == 2
    assert "chess" in result.output


def test_record_names_a_missing_source() -> None:
    result = runner.invoke(app, ["record", "no/such/video.mp4", "--variant", "russian"])
    assert result.exit_code == 2
    assert "no capture source 'no/such/video.mp4'" in result.output


def test_record_without_a_board_says_why_and_still_writes_the_sheet(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.zeros((48, 64, 3), np.uint8))
    out = tmp_path / "game.pdn"
    result = runner.invoke(
        app, ["record", str(frames), "--variant", "international", "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "never calibrated" in result.output and "frame 0" in result.output
    assert '[GameType "20"]' in out.read_text()


def test_demo_without_a_video_says_what_it_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pi.demo.BUNDLED", tmp_path / "no-demo")
    plan = plan_demo(Settings(journal=tmp_path / "j.sqlite"), variant="russian")
    assert plan.variant == "russian"
    assert isinstance(plan.source, ObservationSource) and plan.source.live
    assert "generated legal russian game" in plan.description
    assert "camera and vision are skipped" in plan.description
    # What it plays is what gets recorded, move for move (same frames, not paced).
    start = Position.initial(find_variant("russian"))
    played = generated_game(start, GENERATED_PLIES, seed=GENERATED_SEED)
    service = TableService(Journal(":memory:"))
    record = service.start_game("demo", "russian")
    source = ObservationSource(plan.source.observations)
    LivePipeline(source, None, RecorderAdapter(record), service, "demo").run()
    expected, position = [], start
    for move in played:
        expected.append(position.move_name(move))
        position = position.play(move)
    assert service.current("demo").notations() == expected


def test_demo_names_a_missing_source() -> None:
    result = runner.invoke(app, ["demo", "--source", "no/such/game.mp4"])
    assert result.exit_code == 2
    assert "demo source not found" in result.output


def test_demo_plays_the_bundled_video_by_default(tmp_path: Path) -> None:
    plan = plan_demo(Settings(journal=tmp_path / "j.sqlite"))
    assert plan.variant == "international"
    assert plan.source.needs_vision and plan.source.live
    assert "pi/demo/demo.mp4" in plan.description and "vision" in plan.description


def test_demo_of_another_variant_does_not_play_the_international_video(tmp_path: Path) -> None:
    plan = plan_demo(Settings(journal=tmp_path / "j.sqlite"), variant="russian")
    assert plan.variant == "russian" and not plan.source.needs_vision
    assert "the bundled video is a game of international, not russian" in plan.description


def test_demo_refuses_a_video_of_another_variant(tmp_path: Path) -> None:
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    (tmp_path / "game.json").write_text('{"variant": "international"}', encoding="utf-8")
    result = runner.invoke(app, ["demo", "--source", str(video), "--variant", "russian"])
    assert result.exit_code == 2
    assert "is a game of international, not russian" in " ".join(result.output.split())

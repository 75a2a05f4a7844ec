"""Device settings: the example TOML, environment overrides, and bad values named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.config import ConfigError, load_settings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "deploy" / "damcam.toml"


def test_example_config_loads() -> None:
    settings = load_settings(EXAMPLE)
    assert (settings.table, settings.variant, settings.camera.source) == (
        "1",
        "international",
        "picamera",
    )
    assert settings.event.tags()["Event"] == "Open Championship"
    assert settings.arbiter_token is None  # kept out of the file


def test_environment_beats_the_file_and_arguments_beat_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DAMCAM_TABLE", "12")
    monkeypatch.setenv("DAMCAM_EVENT__ROUND", "5")
    monkeypatch.setenv("DAMCAM_ARBITER_TOKEN", "a-long-secret")
    settings = load_settings(EXAMPLE, port=9001)
    assert (settings.table, settings.event.round, settings.port) == ("12", "5", 9001)
    assert settings.arbiter_token == "a-long-secret"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('variant = "chess"', "chess"),
        ('arbiter_token = "short"', "at least 8 characters"),
        ('table = "hall 1"', "table id"),
        ("[camera]\nfps = -3", "fps"),
        ("[camera]\nsoruce = 'picamera'", "soruce"),
        ("table = ", "cannot read"),
    ],
)
def test_bad_config_is_refused_naming_the_value(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(config)


def test_missing_config_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.toml")

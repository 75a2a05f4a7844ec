"""Device settings: one TOML file per table, overridable by ``DAMCAM_`` environment variables.

>>> s = Settings(table="12", variant="russian")
>>> s.table, s.variant, s.camera.width
('12', 'russian', 1280)

Nested fields take ``__`` in the environment: ``DAMCAM_EVENT__ROUND=3``. See
``deploy/damcam.toml`` for a commented example.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from rules import find_variant


class CameraSettings(BaseModel):
    """How frames are captured (see :func:`pi.capture.open_source` for ``source``)."""

    model_config = {"extra": "forbid"}

    source: str | None = None
    """``picamera``, a camera index (``0``), a video file, a folder of frames, or
    ``synthetic:PATH`` to play a rendered game in real time. None: no capture (the
    server only shows the journal and takes arbiter input)."""
    width: int = Field(default=1280, ge=64)
    height: int = Field(default=960, ge=48)
    lores_width: int = Field(default=640, ge=64)
    """Analysis stream on a Raspberry Pi camera (picamera2 ``lores``)."""
    lores_height: int = Field(default=480, ge=48)
    fps: float = Field(default=15.0, gt=0)
    settle_seconds: float = Field(default=2.0, ge=0)
    """How long auto-exposure and white balance run before they are fixed."""
    stale_seconds: float = Field(default=2.0, gt=0)
    """No new frame for this long: the camera is reported lost on the board page."""


class EventSettings(BaseModel):
    """PDN tags for the games of this table (FMJD III 3.9, R-REC-06)."""

    model_config = {"extra": "forbid"}

    event: str = "?"
    site: str = "?"
    date: str = "????.??.??"
    round: str = "?"
    white: str = "?"
    black: str = "?"

    def tags(self) -> dict[str, str]:
        return {
            "Event": self.event,
            "Site": self.site,
            "Date": self.date,
            "Round": self.round,
            "White": self.white,
            "Black": self.black,
        }


class Settings(BaseSettings):
    """Everything a device needs to know about its table."""

    model_config = SettingsConfigDict(
        env_prefix="DAMCAM_", env_nested_delimiter="__", extra="ignore"
    )

    table: str = "1"
    variant: str = "international"
    calibration: Path | None = None
    journal: Path = Path("damcam-journal.sqlite")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    arbiter_token: str | None = None
    """Shared secret for arbiter actions; None refuses them all (nothing is open by default)."""
    camera: CameraSettings = CameraSettings()
    event: EventSettings = EventSettings()

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        return find_variant(value).name

    @field_validator("arbiter_token")
    @classmethod
    def _strong_token(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 8:
            raise ValueError("arbiter_token must be at least 8 characters")
        return value

    @field_validator("table")
    @classmethod
    def _table_id(cls, value: str) -> str:
        if not value or not all(c.isalnum() or c in "-_" for c in value):
            raise ValueError(f"table id {value!r} must be letters, digits, - or _")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Arguments beat the environment, which beats the TOML file.
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))


class ConfigError(ValueError):
    """The configuration file is missing or wrong."""


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Settings from a TOML file (if given), the environment and ``overrides``.

    :raises ConfigError: the file is missing or holds a bad value (the message names it).
    """
    from pydantic import ValidationError

    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        if config is None:
            return Settings(**clean)
        if not config.is_file():
            raise ConfigError(f"config file not found: {config}")

        class FileSettings(Settings):
            model_config = SettingsConfigDict(**{**Settings.model_config, "toml_file": config})

        return FileSettings(**clean)
    except ValidationError as exc:
        where = f" in {config}" if config else ""
        raise ConfigError(f"bad settings{where}: {exc}") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"cannot read {config}: {exc}") from None

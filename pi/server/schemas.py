"""Request and response bodies (one model per direction, as in the FastAPI template)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

_TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class TableSummary(BaseModel):
    table: str
    game: str
    variant: str
    ply: int
    result: str
    white: str
    black: str


class GameSummary(BaseModel):
    game: str
    variant: str
    ply: int
    result: str
    white: str
    black: str
    started: float


class PositionPublic(BaseModel):
    table: str
    game: str
    ply: int
    fen: str
    turn: str


class PlyBody(BaseModel):
    ply: int = Field(ge=0, description="A ply (half-move) number, 1 for the first move.")


class CorrectionBody(BaseModel):
    ply: int = Field(ge=1)
    notation: str = Field(min_length=3, max_length=80, examples=["32-28"])


class MoveBody(BaseModel):
    notation: str = Field(min_length=3, max_length=80, examples=["32-28"])


class TagsBody(BaseModel):
    tags: dict[str, str] = Field(examples=[{"White": "Sijbrands, Ton", "Round": "3"}])

    @field_validator("tags")
    @classmethod
    def _tag_names(cls, tags: dict[str, str]) -> dict[str, str]:
        for name, value in tags.items():
            if not _TAG_NAME.match(name):
                raise ValueError(f"bad PDN tag name {name!r}")
            if name in ("Result", "GameType", "FEN"):
                raise ValueError(f"tag {name} is set by the game itself, not by hand")
            if len(value) > 200 or "\n" in value:
                raise ValueError(f"tag {name} value is too long or has a line break")
        return tags


class ResultBody(BaseModel):
    result: str = Field(pattern=r"^(2-0|0-2|1-1|0-0|\*)$", examples=["1-1"])


class ResolveBody(BaseModel):
    note: str = ""


class NewGameBody(BaseModel):
    variant: str | None = None
    fen: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)


class EventPublic(BaseModel):
    """One journal event as JSON (:meth:`pi.journal.JournalEvent.to_json`)."""

    table: str
    game: str
    seq: int
    time: float
    kind: str
    data: dict[str, object]

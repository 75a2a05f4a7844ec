"""Dependencies of the routes, as ``Annotated`` aliases (FastAPI template ``deps.py``)."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from pi.config import Settings
from pi.pipeline import LivePipeline
from pi.tables import TableService


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_tables(request: Request) -> TableService:
    tables: TableService = request.app.state.tables
    return tables


def get_pipeline(request: Request) -> LivePipeline | None:
    pipeline: LivePipeline | None = request.app.state.pipeline
    return pipeline


SettingsDep = Annotated[Settings, Depends(get_settings)]
TablesDep = Annotated[TableService, Depends(get_tables)]
PipelineDep = Annotated[LivePipeline | None, Depends(get_pipeline)]

_bearer = HTTPBearer(auto_error=False, description="The arbiter token from the device settings.")


def token_ok(settings: Settings, token: str | None) -> bool:
    """Whether ``token`` is the configured arbiter token (never true when none is set)."""
    expected = settings.arbiter_token
    return bool(expected and token and secrets.compare_digest(token, expected))


def require_arbiter(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Refuse arbiter actions without the right ``Authorization: Bearer <token>``."""
    if not settings.arbiter_token:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            detail="arbiter actions are disabled: no arbiter_token is configured on this device",
        )
    if credentials is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="arbiter token required (Authorization: Bearer <token>)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not token_ok(settings, credentials.credentials):
        raise HTTPException(status.HTTP_403_FORBIDDEN, detail="wrong arbiter token")


ArbiterDep = Annotated[None, Depends(require_arbiter)]

"""Health of the device: the live loop's figures and the tables it serves."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pi.server.deps import PipelineDep, SettingsDep, TablesDep

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health")
def health(settings: SettingsDep, tables: TablesDep, pipeline: PipelineDep) -> dict[str, Any]:
    """``pipeline`` is None when no camera is configured (the server still records arbiter
    input); otherwise fps, latency, dropped and corrupt frames, board quality, status."""
    return {
        "table": settings.table,
        "tables": tables.tables(),
        "pipeline": None if pipeline is None else pipeline.health().to_json(),
    }

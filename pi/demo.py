"""What ``damcam demo`` plays: a rendered game video and what is known about it.

The bundled demonstration lives in ``pi/demo/`` (a video rendered by synth, with the JSON
synth writes beside every render: the variant and the game). A video or folder given on
the command line is played instead; its variant is read from the JSON beside it when
there is one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.capture import IMAGE_SUFFIXES, VIDEO_SUFFIXES

BUNDLED = Path(__file__).parent / "demo"


class DemoNotFoundError(FileNotFoundError):
    """No demonstration game to play."""


@dataclass(frozen=True, slots=True)
class Demo:
    path: Path
    variant: str
    description: str
    truth: dict[str, Any] | None = None
    """The render's ground truth (the game as played), when synth wrote one."""


def find_demo(source: str | None = None, *, variant: str | None = None) -> Demo:
    """The named video/folder, or the bundled one.

    :raises DemoNotFoundError: saying what was looked for and how to make one.
    """
    if source is not None:
        path = Path(source)
        if not path.exists():
            raise DemoNotFoundError(f"demo source not found: {path}")
        return _describe(path, variant)
    candidates = sorted(BUNDLED.glob("*")) if BUNDLED.is_dir() else []
    videos = [p for p in candidates if p.suffix.lower() in VIDEO_SUFFIXES or _is_frames(p)]
    if not videos:
        raise DemoNotFoundError(
            f"no bundled demo game in {BUNDLED}: render one with synth "
            "('damcam render ...') and run 'damcam demo --source VIDEO'"
        )
    return _describe(videos[0], variant)


def _is_frames(path: Path) -> bool:
    return path.is_dir() and any(p.suffix.lower() in IMAGE_SUFFIXES for p in path.iterdir())


def _describe(path: Path, variant: str | None) -> Demo:
    truth = _truth(path)
    name = variant or (truth or {}).get("variant") or "international"
    what = (truth or {}).get("title") or (truth or {}).get("description") or path.name
    moves = (truth or {}).get("moves")
    extra = f", {len(moves)} plies" if isinstance(moves, list) else ""
    return Demo(path, str(name), f"{what} ({name}{extra}) from {path}", truth)


def _truth(path: Path) -> dict[str, Any] | None:
    """The JSON synth writes beside a render (``game.mp4`` -> ``game.json``, or
    ``truth.json``/``game.json`` inside a frames folder)."""
    for candidate in (
        path.with_suffix(".json"),
        path / "game.json",
        path / "truth.json",
        path.parent / "game.json",
    ):
        if candidate.is_file():
            try:
                data = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return data if isinstance(data, dict) else None
    return None

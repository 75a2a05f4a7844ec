"""What ``damcam demo`` plays, and through how much of the pipeline.

In order of preference:

1. a rendered game video (``--source``, or the bundled one in ``pi/demo/``) through the
   whole live chain: capture in real time, vision, recorder, journal, board;
2. when there is no video, or no vision stage in this build, a game played as the
   observations a perfect camera would give: recorder, journal and board are real, the
   camera and vision are skipped. The game is the one in the render's JSON when there is
   one, else a generated legal game.

:class:`DemoPlan` says which, in words the command prints.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.capture import IMAGE_SUFFIXES, VIDEO_SUFFIXES, FrameSource, open_source
from pi.config import Settings
from pi.replay import ObservationSource, generated_game, scripted_observations
from pi.wiring import VisionUnavailableError, vision_recognizer
from rules import Position, find_variant
from rules.game import Game

log = logging.getLogger(__name__)

BUNDLED = Path(__file__).parent / "demo"

GENERATED_PLIES = 60
GENERATED_SEED = 2026


class DemoNotFoundError(FileNotFoundError):
    """A demo source named on the command line does not exist."""


@dataclass(frozen=True)
class DemoPlan:
    source: FrameSource
    variant: str
    description: str


def plan_demo(
    settings: Settings, source: str | None = None, *, variant: str | None = None
) -> DemoPlan:
    """Choose what the demo plays (see the module docstring)."""
    video = _explicit(source) if source else bundled_video()
    truth = _truth(video) if video else None
    name = find_variant(variant or (truth or {}).get("variant") or settings.variant).name
    if video is not None:
        try:
            vision_recognizer(settings)
            return DemoPlan(
                open_source(f"synthetic:{video}", settings.camera),
                name,
                f"the rendered game {video} through camera playback, vision and the recorder",
            )
        except VisionUnavailableError as exc:
            reason = f"{exc}; playing its game as perfect observations"
    else:
        reason = f"no rendered game video in {BUNDLED} (render one with synth)"
    log.warning("the demo skips the camera and vision: %s", reason)
    moves = (truth or {}).get("moves")
    start = Position.initial(find_variant(name))
    if isinstance(moves, list) and moves:
        game = Game.from_moves(name, [str(m) for m in moves])
        what = f"the game of {video} ({len(game.moves)} plies)"
        played = game.moves
    else:
        played = generated_game(start, GENERATED_PLIES, seed=GENERATED_SEED)
        what = f"a generated legal {name} game ({len(played)} plies, seed {GENERATED_SEED})"
    return DemoPlan(
        ObservationSource(
            list(scripted_observations(start, played)), realtime=True, description=what
        ),
        name,
        f"{what} as the observations a perfect camera would give: the recorder, journal "
        f"and board are live, the camera and vision are skipped ({reason})",
    )


def _explicit(source: str) -> Path:
    path = Path(source)
    if not path.exists():
        raise DemoNotFoundError(f"demo source not found: {path}")
    return path


def bundled_video() -> Path | None:
    """The game video (or folder of frames) bundled in ``pi/demo/``, if there is one."""
    if not BUNDLED.is_dir():
        return None
    for p in sorted(BUNDLED.iterdir()):
        if p.suffix.lower() in VIDEO_SUFFIXES or (
            p.is_dir() and any(f.suffix.lower() in IMAGE_SUFFIXES for f in p.iterdir())
        ):
            return p
    return None


def _truth(path: Path) -> dict[str, Any] | None:
    """The JSON synth writes beside a render (``game.mp4`` -> ``game.json``, or
    ``truth.json``/``game.json`` inside a frames folder)."""
    for candidate in (path.with_suffix(".json"), path / "game.json", path / "truth.json"):
        if candidate.is_file():
            try:
                data = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return data if isinstance(data, dict) else None
    return None

"""One game through the recording chain, and what came out compared with what was played.

The chain is the one ``damcam record`` runs (:func:`pi.wiring.build_pipeline`: the live
pipeline, the real recorder, the SQLite journal, the PDN scoresheet); only the frames'
source differs. Where a renderer and a vision stage exist they make the frames and read
them; where they do not, :func:`truth_observation` reads each frame from the script's
truth, and every result says so in its ``chain`` field: it then measures settling and
inference only, never the camera.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.e2e_games import PlayedGame
from bench.e2e_script import Board, FrameTruth, Script
from pi.config import CameraSettings, load_settings
from pi.journal import Journal
from pi.pipeline import MoveRecorder, RecorderOutput
from pi.record import GameRecord
from pi.replay import ObservationSource
from pi.scoresheet import game_pdn
from pi.tables import TableService
from pi.wiring import build_pipeline
from rules import Position, Variant
from rules.observation import Observation, SquareReading, Top
from rules.pdn import read_games_text

HAND_OCCLUSION = 0.4
HAND_MOTION = 0.3


def truth_observation(frame: FrameTruth, variant: Variant) -> Observation:
    """What a camera that never errs reports for a frame: every square read right; a
    hand shows as occlusion and motion (the recorder takes no evidence from it)."""
    readings = tuple(_reading(stack, variant.towers) for stack in frame.board)
    if frame.hand:
        return Observation(
            frame.time,
            readings,
            occlusion=HAND_OCCLUSION,
            motion=HAND_MOTION,
            frame_index=frame.index,
        )
    return Observation(frame.time, readings, frame_index=frame.index)


def _reading(stack: tuple[Any, ...], towers: bool) -> SquareReading:
    top = Top.of(stack[0] if stack else None)
    return SquareReading.certain(top, height=len(stack)) if towers else SquareReading.certain(top)


class TimedRecorder:
    """The pipeline's recorder, noting the frame time and the wall time of each move."""

    def __init__(self, inner: MoveRecorder) -> None:
        self.inner = inner
        self.moves: dict[int, tuple[float, float]] = {}
        """ply -> (frame time, seconds spent on that frame)."""

    def observe(self, observation: Observation) -> list[RecorderOutput]:
        began = time.perf_counter()
        out = self.inner.observe(observation)
        spent = time.perf_counter() - began
        for kind, data in out:
            if kind == "move" and "ply" in data:
                self.moves.setdefault(int(data["ply"]), (observation.time, spent))
        return out

    def restart(self, record: GameRecord) -> None:
        self.inner.restart(record)


@dataclass(frozen=True, slots=True)
class ChainRun:
    """What the recording chain produced for one game."""

    record: GameRecord
    pdn: str
    move_times: dict[int, tuple[float, float]]
    frames: int
    wall_seconds: float
    errors: int


def record_observations(variant: str, observations: Sequence[Observation]) -> ChainRun:
    """Run ``damcam record``'s pipeline on observations (frames that carry their own)."""
    with tempfile.TemporaryDirectory(prefix="damcam-e2e-") as tmp:
        settings = load_settings(
            None,
            variant=variant,
            journal=Path(tmp) / "journal.sqlite",
            camera=CameraSettings(source=""),
        )
        with Journal(settings.journal) as journal:
            service = TableService(journal)
            service.start_game(settings.table, settings.variant)
            pipeline = build_pipeline(
                settings, service, source=ObservationSource(observations, description="e2e")
            )
            timed = TimedRecorder(pipeline.recorder)
            pipeline.recorder = timed
            began = time.perf_counter()
            health = pipeline.run()
            wall = time.perf_counter() - began
            record = service.current(settings.table)
    return ChainRun(
        record, game_pdn(record), timed.moves, health.frames_processed, wall, health.errors
    )


def official_moves(game: PlayedGame) -> list[str]:
    """The game's moves in official notation, as the scoresheet should hold them."""
    names: list[str] = []
    position = game.start
    for move in game.moves:
        names.append(position.move_name(move))
        position = position.play(move)
    return names


def scoresheet_moves(pdn: str, variant: Variant) -> list[str]:
    """The moves of the written PDN, read back (several games after a resync)."""
    moves: list[str] = []
    for game in read_games_text(pdn, variant=variant):
        position = game.start or Position.initial(variant)
        for move in game.moves:
            moves.append(position.move_name(move))
            position = position.play(move)
    return moves


def first_difference(played: Sequence[str], recorded: Sequence[str]) -> int | None:
    """The first ply (1-based) where the two move lists differ, or None."""
    for k, (a, b) in enumerate(zip(played, recorded, strict=False), start=1):
        if a != b:
            return k
    if len(played) != len(recorded):
        return min(len(played), len(recorded)) + 1
    return None


def lost_stage(
    script: Script,
    observations: Sequence[Observation],
    played: Sequence[str],
    recorded: Sequence[str],
) -> str:
    """Which stage lost the game, judged against the render truth: the board not found
    on a hand-free frame (localisation), a square read wrong on one (classification),
    a ply with no recorded move (settling: the recorder never saw the board still long
    enough), or a wrong move recorded from right readings (inference)."""
    clear = [(f, o) for f, o in zip(script.frames, observations, strict=True) if not f.hand]
    if any(not o.board_found for _, o in clear):
        return "localisation"
    if any(_misread(f.board, o) for f, o in clear):
        return "classification"
    k = first_difference(played, recorded)
    if k is not None and k > len(recorded):
        return "settling"
    return "inference"


def _misread(board: Board, observation: Observation) -> bool:
    return any(
        r.occluded < 0.5 and r.best != Top.of(stack[0] if stack else None)
        for stack, r in zip(board, observation.squares, strict=True)
    )

"""A rendered game's video through ``damcam record``'s chain, and which stage lost it.

:func:`record_video` is ``damcam record VIDEO --variant V``: settings with the video as
the camera source, :func:`pi.wiring.build_pipeline` (the video source, vision as the
wiring builds it, the recorder, the SQLite journal), the PDN scoresheet. The wiring's
classifier choice is taken as it is (``reader="wiring"``), so a new model switched on
there is measured without a change here; ``colours`` and ``model`` put one reader in
after the table calibrates, to compare the two on the same frames.

:func:`stage_ladder` finds the stage that lost a game by substitution on the same
decoded frames: the true board location instead of the located one, then the true
square readings instead of the classifier's (vision's hand and motion gate kept), then
the true hand flags instead of the gate. The first substitution after which the game is
recorded exactly names the stage: localisation, classification, settling; a game lost
even from the truth is lost at inference. Before them all: a table calibrated on a frame
that does not show the start position (the render truth says so) lost the game at
calibration, whatever the later stages did with the colours and start it was given; so
did one calibrated on a frame with a hand over the board, and one that never calibrated
because the true start frame was refused though its board was found.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.e2e_run import ChainRun, TimedRecorder, record_observations
from bench.e2e_video import FrameFacts, RenderedVideo, truth_homography
from calibration.table import CalibrationError, calibrate_start_position, start_tops
from pi.capture import Frame
from pi.pipeline import Recognizer
from pi.scoresheet import game_pdn
from pi.wiring import throwaway_recording
from rules import Variant, find_variant
from rules.observation import Observation, SquareReading, Top
from vision.classifier import SquareClassifier
from vision.locate import BoardLocation, BoardNotFound, Image, LocateResult
from vision.observe import Observer, ObserverConfig, Registration, locate
from vision.prototype import ColourPrototypes, PrototypeClassifier
from vision.rectify import CameraModel, square_crops

READERS = ("wiring", "colours", "model")
"""``wiring``: the square classifier ``pi.wiring`` builds; ``colours``: the colour
prototypes of the start position; ``model``: the shipped ONNX model, adapted to the set
from the start position."""

STAGES = ("calibration", "localisation", "classification", "settling", "inference")
HAND_OCCLUSION = 0.4
HAND_MOTION = 0.3


# -- readers ----------------------------------------------------------------------------------


def build_classifier(
    reader: str,
    image: Image,
    location: BoardLocation,
    variant: Variant,
    *,
    turns: int = 0,
    camera: CameraModel | None = None,
) -> SquareClassifier:
    """A ``colours`` or ``model`` classifier set up from a start-position frame, each from
    crops of the window it reads (the model's context window, the colours' plain cell)."""
    tops = start_tops(variant)
    if reader == "colours":
        crops = square_crops(image, location, variant.geometry, turns=turns, camera=camera)
        return PrototypeClassifier(ColourPrototypes.learn(crops, tops))
    if reader == "model":
        from models.classifier import OnnxSquareClassifier  # onnxruntime only when asked

        return OnnxSquareClassifier.load().adapted_on_frame(
            image,
            location,
            variant.geometry,
            np.array(tops),
            turns=turns,
            camera=camera,
            towers=variant.towers,
        )
    raise ValueError(f"unknown reader {reader!r} (expected one of {READERS})")


class TappedVision:
    """The wiring's recognizer, timed, its observations kept; with a ``reader`` other than
    ``wiring``, the calibrated observer's classifier is replaced by that reader's, set up
    from the crops of the frame the table calibrated on."""

    def __init__(self, inner: Recognizer, reader: str, variant: Variant) -> None:
        if reader not in READERS:
            raise ValueError(f"unknown reader {reader!r} (expected one of {READERS})")
        self.inner = inner
        self.reader = reader
        self.variant = variant
        self.observations: list[Observation] = []
        self.seconds: dict[int, float] = {}
        self.cpu_seconds = 0.0
        self.classifier: SquareClassifier | None = None
        self.calibrated_at: int | None = None

    @property
    def observer(self) -> Observer | None:
        observer = getattr(self.inner, "observer", None)
        return observer if isinstance(observer, Observer) else None

    def __call__(self, frame: Frame) -> Observation:
        began, cpu = time.perf_counter(), time.process_time()
        observation = self.inner(frame)
        observer = self.observer
        if self.calibrated_at is None and observer is not None and frame.image is not None:
            self.calibrated_at = frame.index
            if self.reader != "wiring" and observer.tracker.last is not None:
                observer.classifier = build_classifier(
                    self.reader,
                    frame.image,
                    observer.tracker.last,
                    self.variant,
                    turns=observer.calibration.turns,
                    camera=observer.calibration.camera,
                )
                observer.frame_index -= 1  # the calibration frame, read again
                observation = observer.observe(frame.image, frame.time)
            self.classifier = observer.classifier
        self.seconds[frame.index] = time.perf_counter() - began
        self.cpu_seconds += time.process_time() - cpu
        self.observations.append(observation)
        return observation


@dataclass(frozen=True, slots=True)
class RecordedVideo:
    """``damcam record``'s output for one video, and what vision did on the way."""

    run: ChainRun
    observations: list[Observation]
    vision_seconds: dict[int, float]
    vision_cpu_seconds: float
    cpu_seconds: float
    classifier: SquareClassifier | None
    calibrated_at: int | None


def record_video(video: Path, variant: str, reader: str = "wiring") -> RecordedVideo:
    """``damcam record VIDEO --variant VARIANT``, the frames' vision tapped."""
    with throwaway_recording(video, variant) as (pipeline, service):
        if pipeline.recognize is None:
            raise ValueError(f"{video}: the wiring built no vision stage for a video")
        tap = TappedVision(pipeline.recognize, reader, find_variant(variant))
        pipeline.recognize = tap
        timed = TimedRecorder(pipeline.recorder)
        pipeline.recorder = timed
        began, cpu = time.perf_counter(), time.process_time()
        health = pipeline.run()
        wall, cpu_spent = time.perf_counter() - began, time.process_time() - cpu
        record = service.current(pipeline.table_id)
    run = ChainRun(
        record, game_pdn(record), timed.moves, health.frames_processed, wall, health.errors
    )
    return RecordedVideo(
        run,
        tap.observations,
        tap.seconds,
        tap.cpu_seconds,
        cpu_spent,
        tap.classifier,
        tap.calibrated_at,
    )


# -- substitutions ----------------------------------------------------------------------------


def decoded_frames(video: Path) -> Iterator[Image]:
    """The frames of a video as ``damcam record`` decodes them."""
    capture = cv2.VideoCapture(str(video))
    try:
        while True:
            ok, image = capture.read()
            if not ok:
                return
            yield np.asarray(image, np.uint8)
    finally:
        capture.release()


def truth_location(facts: FrameFacts, variant: Variant) -> BoardLocation:
    """The board where the renderer put it, as vision's locators report a board."""
    to_image = truth_homography(facts, variant)
    n = variant.geometry.size
    grid = np.array([[[0, 0]], [[n, 0]], [[n, n]], [[0, n]]], np.float64)
    corners = np.asarray(cv2.perspectiveTransform(grid, to_image), np.float64).reshape(-1, 2)
    to_board = np.asarray(np.linalg.inv(to_image), np.float64)
    return BoardLocation(to_board, n, corners, 0.0, "truth")


class _TruthTracker:
    """Stands in for vision's tracker: each frame's true location, in order."""

    def __init__(self, locations: Iterator[BoardLocation]) -> None:
        self.locations = locations

    def update(self, frame: Image) -> LocateResult:
        return next(self.locations)


def truth_located(
    video: Path,
    frames: Sequence[FrameFacts],
    variant: Variant,
    classifier: SquareClassifier | None,
    reader: str,
) -> list[Observation]:
    """Vision with the true board location: the same gate and classifier (or, when the
    chain never calibrated, the ``reader``'s set up on the true start-position crops;
    ``colours`` for the wiring's)."""
    images = decoded_frames(video)
    first = next(images)
    location = truth_location(frames[0], variant)
    if classifier is None:
        chosen = "colours" if reader == "wiring" else reader
        classifier = build_classifier(chosen, first, location, variant)
    observer = Observer(ObserverConfig(), variant, Registration(turns=0), classifier)
    observer.tracker = _TruthTracker(truth_location(f, variant) for f in frames)  # type: ignore[assignment]
    out = [observer.observe(first, frames[0].time)]
    for image, facts in zip(images, frames[1:], strict=False):
        out.append(observer.observe(image, facts.time))
    return out


def with_true_readings(
    observations: Sequence[Observation], frames: Sequence[FrameFacts], towers: bool
) -> list[Observation]:
    """Each observation with the true tops (and heights) in place of the classifier's;
    vision's per-square occlusion, motion and board fit kept."""
    out = []
    for o, f in zip(observations, frames, strict=True):
        squares = tuple(
            dataclasses.replace(_certain(top, height, towers), occluded=r.occluded)
            for r, top, height in zip(o.squares, f.tops, f.heights, strict=True)
        )
        out.append(dataclasses.replace(o, squares=squares))
    return out


def truth_observations(frames: Sequence[FrameFacts], towers: bool) -> list[Observation]:
    """What a camera that never errs reports: the true tops, a hand as occlusion and
    motion (the recorder takes no evidence from it)."""
    out = []
    for f in frames:
        squares = tuple(_certain(t, h, towers) for t, h in zip(f.tops, f.heights, strict=True))
        hand = (HAND_OCCLUSION, HAND_MOTION) if f.hand else (0.0, 0.0)
        out.append(
            Observation(f.time, squares, occlusion=hand[0], motion=hand[1], frame_index=f.index)
        )
    return out


def _certain(top: Top, height: int, towers: bool) -> SquareReading:
    return SquareReading.certain(top, height=height) if towers else SquareReading.certain(top)


@dataclass
class Ladder:
    """Exact or not after each substitution, and the stage that lost the game."""

    exact: dict[str, bool] = field(default_factory=dict)
    stage: str = "inference"
    misreads: list[dict[str, Any]] = field(default_factory=list)
    misread_count: int = 0
    refusal: str | None = None
    """Why calibration refused the true start frame, when the table never calibrated."""


def stage_ladder(
    video: RenderedVideo,
    recorded: RecordedVideo,
    variant: Variant,
    reader: str,
    is_exact: Any,
) -> Ladder:
    """Substitute the truth stage by stage until the game comes out exactly; a table
    calibrated on a frame other than the start position names calibration at once (the
    substitutions would reuse its classifier)."""
    ladder = Ladder()
    located = truth_located(video.path, video.frames, variant, recorded.classifier, reader)
    frames = video.frames[: len(located)]
    ladder.misreads, ladder.misread_count = misreads(located, frames, variant)
    if recorded.calibrated_at is None:
        ladder.refusal = start_refusal(video, variant)
    if ladder.refusal or not calibrated_on_the_start(recorded.calibrated_at, video.frames, variant):
        ladder.exact["calibration"] = False
        ladder.stage = "calibration"
        return ladder
    steps = [
        ("localisation", located),
        ("classification", with_true_readings(located, frames, variant.towers)),
        ("settling", truth_observations(video.frames, variant.towers)),
    ]
    for stage, observations in steps:
        ok = bool(is_exact(record_observations(variant.name, observations)))
        ladder.exact[stage] = ok
        if ok:
            ladder.stage = stage
            return ladder
    ladder.stage = "inference"
    return ladder


def calibrated_on_the_start(
    frame: int | None, frames: Sequence[FrameFacts], variant: Variant
) -> bool:
    """Whether the table calibrated on a frame whose board truly is the start position,
    with no hand over it (a hand hides squares and the markers the board is found by).
    Never calibrating is not judged here: the ladder's localisation step tells whether the
    board could not be found."""
    if frame is None or frame >= len(frames):
        return True
    facts = frames[frame]
    return not facts.hand and facts.tops == tuple(start_tops(variant))


def start_refusal(video: RenderedVideo, variant: Variant) -> str | None:
    """Calibration's reason for refusing the video's first frame when that frame truly is
    the start position, hand-free, and the board is found on it: a table that never
    calibrated then lost the game at calibration (no board found is localisation's)."""
    if not video.frames or not calibrated_on_the_start(0, video.frames, variant):
        return None
    image = next(decoded_frames(video.path), None)
    if image is None:
        return None
    config = ObserverConfig()
    if isinstance(locate(image, variant.geometry.size, config.markers), BoardNotFound):
        return None
    try:
        calibrate_start_position(image, variant, config=config, source="frame 0")
    except CalibrationError as error:
        return str(error)
    return None


def misreads(
    observations: Sequence[Observation],
    frames: Sequence[FrameFacts],
    variant: Variant,
    keep: int = 6,
) -> tuple[list[dict[str, Any]], int]:
    """Squares read wrong on hand-free frames with the board where it truly is: the
    classifier's mistakes (examples, and how many square-frames in all)."""
    examples: list[dict[str, Any]] = []
    count = 0
    geometry = variant.geometry
    for o, f in zip(observations, frames, strict=False):
        if f.hand or not o.board_found:
            continue
        for sq, (r, top) in enumerate(zip(o.squares, f.tops, strict=True)):
            if r.occluded < 0.3 and r.best != top:
                count += 1
                if len(examples) < keep:
                    examples.append(
                        {
                            "frame": f.index,
                            "square": geometry.name(geometry.squares[sq]),
                            "truth": top.name,
                            "read": r.best.name,
                            "p_read": round(max(r.probs), 3),
                        }
                    )
    return examples, count

"""Frame -> :class:`rules.observation.Observation`: the vision pipeline of the live loop.

Locate (tracked), rectify, gate hands and motion, crop, classify. Any failure becomes an
Observation with ``board_found`` False and no squares; nothing raises into the loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from rules.observation import Observation, SquareReading, Top
from rules.position import Position
from rules.variants import Variant
from vision.arms import ArmSettings, ArmWatch
from vision.band import BAND
from vision.board_spec import MarkerBoardSpec
from vision.camera import Intrinsics, Undistorter, camera_centre, estimate_camera
from vision.classifier import SquareClassifier, read_squares
from vision.leans import Lean, Mask, lean_mask, stack_leans, stack_shadows
from vision.locate import (
    BoardLocation,
    BoardNotFound,
    Image,
    LocateResult,
    locate_by_markers,
    locate_markerless,
)
from vision.occlusion import OcclusionGate, OcclusionSettings
from vision.orient import shrink_to_grid
from vision.reading_memory import MemorySettings, ReadingMemory
from vision.rectify import CROP_PX, CameraModel, orientation_matrix, square_centres, warp_board
from vision.tracker import BoardTracker, TrackerSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ObserverConfig:
    """How to find the board (``markers`` None: markerless) and the pipeline's sizes."""

    markers: MarkerBoardSpec | None = field(default_factory=MarkerBoardSpec)
    crop_px: int = CROP_PX
    stack_height: float = 0.0
    band_strips: bool = False
    """Read every square's band strip too, where the classifier reads them: a draughts
    set's kings' second disc (docs/models.md, "Draughts kings from the band strip"), a
    column game's heights from the tower reader for every square. Off, a column game
    still reads the strips of the towers its crops see (:data:`vision.classifier.
    TOWER_SHARE`), which count to the full tower. Off: on the demo video they made
    a frame 36 ms of CPU against 20 (median) and the hand-to-board p95 312 ms against 294
    (target 300), for 7 fewer errors in 4,338 adapted render squares."""
    memory: MemorySettings | None = field(default_factory=MemorySettings)
    """When a square is read again though its crop has not changed
    (:mod:`vision.reading_memory`); None: every square every frame."""
    tracker: TrackerSettings = field(default_factory=TrackerSettings)
    occlusion: OcclusionSettings = field(default_factory=OcclusionSettings)
    arms: ArmSettings = field(default_factory=ArmSettings)


@dataclass(frozen=True, slots=True)
class Registration:
    """What calibration tells vision: the quarter turns to the White view, and the camera's
    intrinsics when they were measured (frames are then undistorted). ``camera`` fixes the
    camera model for a camera and board that never move (tests); otherwise it is worked
    out per located board, from the intrinsics or, without them, from the board's
    perspective (:func:`vision.camera.estimate_camera`)."""

    turns: int = 0
    camera: CameraModel | None = None
    intrinsics: Intrinsics | None = None


def locate(frame: Image, size: int, markers: MarkerBoardSpec | None) -> LocateResult:
    """Markers first when a layout is given, then the markerless grid."""
    if markers is not None:
        found = locate_by_markers(frame, size, markers)
        if isinstance(found, BoardLocation) and found.method == "aruco-quad":
            return shrink_to_grid(frame, found)
        if not isinstance(found, BoardNotFound):
            return found
    return locate_markerless(frame, size)


class Observer:
    """One camera's pipeline state: tracker, occlusion gate and frame counter."""

    def __init__(
        self,
        config: ObserverConfig,
        variant: Variant,
        calibration: Registration,
        classifier: SquareClassifier,
    ) -> None:
        self.config = config
        self.variant = variant
        self.calibration = calibration
        self.classifier = classifier
        size = variant.geometry.size
        self.tracker = BoardTracker(
            lambda frame: locate(frame, size, config.markers), config.tracker
        )
        self.gate = OcclusionGate(
            size, config.occlusion, variant.geometry.dark_parity, towers=variant.towers
        )
        self.arms = ArmWatch(size, config.occlusion.cell_px, config.arms, calibration.turns)
        self.memory = None if config.memory is None else ReadingMemory(config.memory)
        self._board_clear = True
        self._hidden: Mask | None = None  # what the last frame's stacks may cover
        self._shade: Mask | None = None  # where their shadows may fall
        # the tallest a stack can be: every man in one tower
        self._whole_tower = sum(len(stack) for _, stack in Position.initial(variant).stacks())
        self.frame_index = 0
        self.last_failure: str | None = None
        intrinsics = calibration.intrinsics
        self._undistort = (
            Undistorter(intrinsics)
            if intrinsics is not None and np.any(intrinsics.distortion)
            else None
        )
        self._camera: tuple[BoardLocation, CameraModel] | None = None

    def observe(self, frame: Image, time: float) -> Observation:
        """Read one frame; never raises on a bad frame."""
        index = self.frame_index
        self.frame_index += 1
        try:
            return self._observe(frame, time, index)
        except (cv2.error, ValueError, np.linalg.LinAlgError) as error:
            return self._not_found(time, index, f"frame {index}: {error}")

    def _observe(self, frame: Image, time: float, index: int) -> Observation:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
            return self._not_found(time, index, f"frame {index}: not a BGR image {frame.shape}")
        if self._undistort is not None:
            frame = self._undistort(frame)
        location = self.tracker.update(frame)
        if isinstance(location, BoardNotFound):
            return self._not_found(time, index, self._explain(location.reason))
        turns = self.calibration.turns
        camera = self._camera_model(location, (frame.shape[1], frame.shape[0]))
        board = warp_board(
            frame, location, px_per_square=self.config.occlusion.cell_px, turns=turns
        )
        # a column game's towers lean across the ring: watched only where stacks are counted
        watch = not self.variant.towers or self._hidden is not None
        arm = watch and self.arms.update(
            frame, location, board_clear=self._board_clear, hidden=self._hidden, shade=self._shade
        )
        margin = self.arms.ring_px
        gate = self.gate.update(
            board,
            arm=arm,
            leans=None if self._hidden is None else self._hidden[margin:-margin, margin:-margin],
        )
        self._board_clear = gate.occlusion == 0.0 and gate.motion == 0.0
        geometry = self.variant.geometry
        reads = read_squares(
            self.classifier,
            frame,
            location,
            geometry,
            crop_px=self.config.crop_px,
            turns=turns,
            camera=camera,
            stack_height=self.config.stack_height,
            band=self.config.band_strips,
            heights=self.variant.towers,  # the recorder tells look-alike captures by them
            memory=self.memory,
        )
        heights = reads.height_estimates()
        occluded = np.array([gate.cells[geometry.rowcol(sq)] for sq in geometry.squares])
        if self.variant.towers and reads.heights is not None:
            leans, shadows = self._leans_and_shadows(
                reads.tops, heights, occluded > 0.0, camera, turns
            )
            size, cell_px = geometry.size, self.config.occlusion.cell_px
            self._hidden = lean_mask(leans, size=size, cell_px=cell_px, margin_px=margin)
            self._shade = lean_mask(shadows, size=size, cell_px=cell_px, margin_px=margin)
        readings = []
        for row, height, hidden in zip(reads.tops, heights, occluded, strict=True):
            readings.append(
                SquareReading(
                    tuple(float(x) for x in row / row.sum()),  # type: ignore[arg-type]
                    occluded=float(hidden),
                    height=None if height is None else height[0],
                    height_sigma=None if height is None else height[1],
                )
            )
        self.last_failure = None
        return Observation(
            time=time,
            squares=tuple(readings),
            board_found=True,
            reprojection_error_px=location.reprojection_error_px,
            occlusion=gate.occlusion,
            motion=gate.motion,
            arm=arm,
            frame_index=index,
        )

    def _leans_and_shadows(
        self,
        tops: npt.NDArray[np.float64],
        heights: list[tuple[float, float] | None],
        covered: npt.NDArray[np.bool_],
        camera: CameraModel,
        turns: int,
    ) -> tuple[list[Lean], list[Lean]]:
        """Where the stacks read may hide the board, and where their shadows may fall
        (:mod:`vision.leans`): each as tall as its height read and two spreads and a disc
        more, or as tall as a stack can be where its height was not read (its top past
        the count, its side unseen): all the discs but one for each other stack seen
        where no hand is (``covered``, the gate's), since every stack has one. Taken as
        the whole tower, every man seen from straight above (no side to count) leaned
        far, and in bashni under `hall` (e2e, seed 200) those leans covered the ring where
        an arm crossed and the light squares under its hand: the still hand was taken in
        as pieces, and the game lost at ply 6. (Keeping a covered square's stack as it
        was before the hand came was tried: a changed square the gate still hid kept its
        old lean, the new tower's lean was an arm, and with the arm nothing settled, for
        good.)"""
        geometry = self.variant.geometry
        occupied = tops[:, Top.EMPTY] < 0.5
        whole = self._whole_tower - max(0, int((occupied & ~covered).sum()) - 1)
        discs = np.array([whole if h is None else min(whole, h[0] + 2 * h[1] + 1) for h in heights])
        # the camera's place on the White-view plane, where the centres are
        x, y, height = camera_centre(camera)
        white = np.linalg.solve(orientation_matrix(turns, geometry.size), [x, y, 1.0])
        centres, tall = square_centres(geometry)[occupied], discs[occupied] * BAND.disc_height
        leans = stack_leans(centres, tall, np.array([white[0], white[1], height]))
        return leans, stack_shadows(centres, tall)

    def _camera_model(self, location: BoardLocation, size: tuple[int, int]) -> CameraModel:
        """The calibration's fixed model, else one per located board (the tracker returns
        the same location while the board is still, so this is worked out once)."""
        if self.calibration.camera is not None:
            return self.calibration.camera
        if self._camera is None or self._camera[0] is not location:
            self._camera = (location, estimate_camera(location, size, self.calibration.intrinsics))
        return self._camera[1]

    def _explain(self, reason: str) -> str:
        """The locator's reason; before the first detection, also that the next frames are
        tried (a hand over the board's edge at the start only delays it)."""
        if self.tracker.last is None:
            return f"no board yet, trying every frame: {reason}"
        return reason

    def _not_found(self, time: float, index: int, reason: str) -> Observation:
        if reason != self.last_failure:
            log.info("board not found: %s", reason)
        self.last_failure = reason
        return Observation(time=time, squares=(), board_found=False, frame_index=index)

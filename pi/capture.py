"""Capture sources: one :class:`FrameSource` interface over every way frames arrive.

A source is a context manager; iterating it yields timestamped :class:`Frame` values::

    with open_source("0", CameraSettings()) as source:
        for frame in source:
            ...

- :class:`PiCameraSource`: the Raspberry Pi camera through picamera2 (imported only
  when opened, so the rest runs anywhere). Analysis reads the small ``lores`` stream,
  crops come from ``main``; auto-exposure and white balance run for a moment, then are
  fixed so the square colours stay put all game (picamera2 ``examples/controls.py``).
- :class:`OpenCVCameraSource`: USB webcams and laptops (``cv2.VideoCapture``); reconnects
  when the camera is unplugged and plugged back.
- :class:`VideoFileSource`: a video file; :class:`FolderSource`: a folder of images.
  Both play as fast as they are read, or at the recorded rate with ``realtime=True``,
  which is the synthetic live source: a rendered game played as if a camera watched it.

A frame that cannot be decoded is still yielded, with ``image`` None and ``error`` set,
so the live loop can count it and go on.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from pi.config import CameraSettings
from rules.observation import Observation

log = logging.getLogger(__name__)

Image = NDArray[np.uint8]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


class CameraError(RuntimeError):
    """A capture device cannot be opened or has gone away."""


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One captured frame.

    ``image`` is H x W x 3 BGR uint8 (OpenCV order), the picture for analysis; ``full``
    is the full-resolution picture when the source has a second stream (the Pi camera's
    ``main``), else None. ``time`` is seconds on the source's clock (the sensor timestamp,
    or the position in a file); ``received`` is ``time.monotonic()`` when it arrived, which
    the live loop uses to measure latency. ``image`` is None when the frame was corrupt,
    and ``error`` says why.
    """

    index: int
    time: float
    image: Image | None
    received: float = field(default_factory=monotonic)
    full: Image | None = None
    error: str | None = None
    observation: Observation | None = None
    """Set by sources that already know what the board shows (a scripted game, a replayed
    observation log): the live loop then skips vision for this frame."""


class FrameSource(ABC):
    """A context manager that yields frames. ``live`` sources drop frames the analysis
    cannot keep up with; recorded ones (files, folders) are read in full."""

    live: bool = False
    description: str = "frames"
    needs_vision: bool = True
    """False for sources whose frames carry their observation (no vision stage needed)."""
    sensor: bool = False
    """True for a real camera: its sensor noise makes every new frame differ from the last,
    so a frame identical to the one before is stale (a stuck driver re-sending its buffer)."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:  # noqa: B027  (optional hook)
        """Acquire the device or file; raises :class:`CameraError` or ``FileNotFoundError``."""

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release it (safe to call twice)."""

    @abstractmethod
    def __iter__(self) -> Iterator[Frame]: ...

    def __str__(self) -> str:
        return self.description


def _as_image(array: Any) -> Image:
    """OpenCV's arrays typed as the uint8 images they are (no copy)."""
    return np.asarray(array, dtype=np.uint8)


# -- files and folders -------------------------------------------------------------------------


class Pacer:
    """Sleeps so that frame ``t`` seconds into a recording is yielded ``t`` seconds in."""

    def __init__(self, realtime: bool) -> None:
        self.realtime = realtime
        self.start: float | None = None

    def wait(self, t: float) -> None:
        if not self.realtime:
            return
        now = time.monotonic()
        if self.start is None:
            self.start = now - t
        delay = self.start + t - now
        if delay > 0:
            time.sleep(delay)


class VideoFileSource(FrameSource):
    """A video file, frame by frame; ``realtime`` plays it at its own frame rate."""

    def __init__(self, path: Path, *, realtime: bool = False, fps: float | None = None) -> None:
        self.path = Path(path)
        self.live = realtime
        self.fps_override = fps
        self.description = f"video {self.path}" + (" (real time)" if realtime else "")
        self._cap: cv2.VideoCapture | None = None

    def open(self) -> None:
        if not self.path.is_file():
            raise FileNotFoundError(f"video not found: {self.path}")
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            raise CameraError(f"cannot decode video {self.path}")
        self._cap = cap

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    @property
    def fps(self) -> float:
        if self.fps_override:
            return self.fps_override
        rate = self._cap.get(cv2.CAP_PROP_FPS) if self._cap is not None else 0.0
        return float(rate) if rate and rate > 0 else 25.0

    def __iter__(self) -> Iterator[Frame]:
        if self._cap is None:
            self.open()
        assert self._cap is not None
        pacer, fps = Pacer(self.live), self.fps
        index = 0
        while True:
            ok, image = self._cap.read()
            if not ok:
                return
            t = index / fps
            pacer.wait(t)
            yield Frame(index, t, _as_image(image))
            index += 1


class FolderSource(FrameSource):
    """Images in a folder, in name order, ``fps`` apart (``realtime``: paced at that rate)."""

    def __init__(self, path: Path, *, fps: float = 10.0, realtime: bool = False) -> None:
        self.path = Path(path)
        self.fps = fps
        self.live = realtime
        self.description = f"frames in {self.path}" + (" (real time)" if realtime else "")
        self._files: list[Path] = []

    def open(self) -> None:
        if not self.path.is_dir():
            raise FileNotFoundError(f"frame folder not found: {self.path}")
        self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise FileNotFoundError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.path}")

    def __iter__(self) -> Iterator[Frame]:
        if not self._files:
            self.open()
        pacer = Pacer(self.live)
        for index, file in enumerate(self._files):
            t = index / self.fps
            pacer.wait(t)
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is None:
                yield Frame(index, t, None, error=f"cannot decode {file.name}")
            else:
                yield Frame(index, t, _as_image(image))


# -- cameras --------------------------------------------------------------------------------------


class OpenCVCameraSource(FrameSource):
    """A USB webcam (``cv2.VideoCapture``). When it stops delivering (unplugged), it is
    released and reopened every ``retry_seconds`` until it comes back or the source is
    closed; the live loop reports the gap as stale frames."""

    live = True
    sensor = True

    def __init__(
        self, device: int | str, settings: CameraSettings, *, retry_seconds: float = 1.0
    ) -> None:
        self.device = device
        self.settings = settings
        self.retry_seconds = retry_seconds
        self.description = f"camera {device}"
        self._cap: cv2.VideoCapture | None = None
        self._closed = False

    def _connect(self) -> cv2.VideoCapture | None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            return None
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.settings.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.settings.height)
        cap.set(cv2.CAP_PROP_FPS, self.settings.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a backlog
        return cap

    def open(self) -> None:
        self._closed = False
        self._cap = self._connect()
        if self._cap is None:
            raise CameraError(f"cannot open camera {self.device!r}")

    def close(self) -> None:
        self._closed = True
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while not self._closed:
            if self._cap is None:
                time.sleep(self.retry_seconds)
                self._cap = self._connect()
                if self._cap is None:
                    continue
                log.warning("camera %s is back", self.device)
            ok, image = self._cap.read()
            if not ok or image is None:
                log.warning("camera %s stopped delivering frames; reconnecting", self.device)
                self._cap.release()
                self._cap = None
                continue
            yield Frame(index, time.monotonic(), _as_image(image))
            index += 1


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera via picamera2 (apt package ``python3-picamera2``).

    Two streams: ``main`` (``settings.width`` x ``height``, RGB888, which picamera2 lays out
    as BGR, OpenCV's order) for crops, and ``lores`` (YUV420) for analysis. After
    ``settle_seconds`` of automatic exposure and white balance, the settled values are read
    from the metadata and fixed, so the square colours learned at calibration hold.
    """

    live = True
    sensor = True

    def __init__(self, settings: CameraSettings) -> None:
        self.settings = settings
        self.description = "Raspberry Pi camera"
        self._camera: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # only on a Pi (python3-picamera2)
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not installed: on Raspberry Pi OS run "
                "'sudo apt install python3-picamera2' and create the venv with "
                "--system-site-packages (docs/pi.md)"
            ) from exc
        s = self.settings
        try:
            camera = Picamera2()
            frame_us = int(1_000_000 / s.fps)
            config = camera.create_video_configuration(
                main={"size": (s.width, s.height), "format": "RGB888"},
                lores={"size": (s.lores_width, s.lores_height), "format": "YUV420"},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
                buffer_count=4,
            )
            camera.configure(config)
            camera.start()
        except Exception as exc:  # libcamera raises plain RuntimeErrors and more
            raise CameraError(f"cannot start the Pi camera: {exc}") from exc
        self._camera = camera
        self._fix_exposure()

    def _fix_exposure(self) -> None:
        """Let AE/AWB settle, then freeze them at the values they reached."""
        time.sleep(self.settings.settle_seconds)
        meta = self._camera.capture_metadata()
        controls = {"AeEnable": False, "AwbEnable": False}
        for name in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if name in meta:
                controls[name] = meta[name]
        self._camera.set_controls(controls)
        log.info("Pi camera exposure fixed: %s", controls)

    def close(self) -> None:
        if self._camera is not None:
            self._camera.stop()
            self._camera.close()
            self._camera = None

    def __iter__(self) -> Iterator[Frame]:
        if self._camera is None:
            self.open()
        index = 0
        while self._camera is not None:
            with self._camera.captured_request() as request:
                lores = request.make_array("lores")
                main = request.make_array("main")
                stamp = request.get_metadata().get("SensorTimestamp")
            analysis = cv2.cvtColor(lores, cv2.COLOR_YUV420p2BGR)
            t = stamp / 1e9 if stamp else time.monotonic()
            yield Frame(index, t, _as_image(analysis), full=_as_image(main))
            index += 1


# -- choosing a source ---------------------------------------------------------------------------


def open_source(spec: str, settings: CameraSettings | None = None) -> FrameSource:
    """The source a string names (not yet opened).

    ``picamera``; a camera index (``0``) or device (``/dev/video0``); a video file; a
    folder of frames; ``synthetic:PATH`` to play a video or folder in real time.

    :raises FileNotFoundError: a named file or folder does not exist.
    """
    settings = settings or CameraSettings()
    if spec == "picamera":
        return PiCameraSource(settings)
    if spec.isdigit():
        return OpenCVCameraSource(int(spec), settings)
    if spec.startswith("/dev/video"):
        return OpenCVCameraSource(spec, settings)
    realtime = spec.startswith("synthetic:")
    path = Path(spec.removeprefix("synthetic:"))
    if path.is_dir():
        return FolderSource(path, fps=settings.fps, realtime=realtime)
    if path.is_file():
        return VideoFileSource(path, realtime=realtime)
    raise FileNotFoundError(
        f"no capture source {spec!r}: not 'picamera', a camera index, a video file or a folder"
    )

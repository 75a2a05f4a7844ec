"""Capture sources: files, folders, real-time playback, cameras that are not there."""

from __future__ import annotations

import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi.capture import (
    CameraError,
    FolderSource,
    OpenCVCameraSource,
    PiCameraSource,
    VideoFileSource,
    open_source,
)
from pi.config import CameraSettings


def numbered_image(n: int) -> np.ndarray:
    """A frame whose brightness encodes its number (survives video compression)."""
    return np.full((48, 64, 3), 20 + 10 * n, dtype=np.uint8)


def write_video(path: Path, frames: int, fps: float = 10.0) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    for n in range(frames):
        writer.write(numbered_image(n))
    writer.release()
    return path


def write_folder(path: Path, frames: int) -> Path:
    path.mkdir()
    for n in range(frames):
        cv2.imwrite(str(path / f"frame_{n:04d}.png"), numbered_image(n))
    return path


def test_folder_source_yields_frames_in_order_with_times(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "frames", 5)
    with FolderSource(folder, fps=5.0) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert [f.time for f in frames] == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8])
    assert [int(f.image[0, 0, 0]) for f in frames if f.image is not None] == [20, 30, 40, 50, 60]
    assert not source.live


def test_corrupt_image_is_yielded_as_an_error_frame(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "frames", 3)
    (folder / "frame_0001.png").write_bytes(b"\x89PNG broken")
    with FolderSource(folder) as source:
        frames = list(source)
    assert [f.image is None for f in frames] == [False, True, False]
    assert frames[1].error == "cannot decode frame_0001.png"


def test_video_file_source_reads_every_frame(tmp_path: Path) -> None:
    video = write_video(tmp_path / "game.avi", 12)
    with VideoFileSource(video) as source:
        frames = list(source)
    assert len(frames) == 12
    assert frames[11].time == pytest.approx(1.1)
    brightness = [int(f.image.mean()) for f in frames if f.image is not None]
    assert brightness == sorted(brightness)  # frame order kept


def test_realtime_playback_is_paced_like_a_camera(tmp_path: Path) -> None:
    video = write_video(tmp_path / "game.avi", 6, fps=10.0)
    source = open_source(f"synthetic:{video}")
    assert source.live
    with source:
        started = time.monotonic()
        frames = list(source)
        elapsed = time.monotonic() - started
    assert len(frames) == 6
    assert elapsed >= 0.45  # frame 5 is 0.5 s into the recording


def test_open_source_names_what_it_cannot_find(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=re.escape("no capture source 'nowhere.mp4'")):
        open_source("nowhere.mp4")
    assert isinstance(open_source("picamera"), PiCameraSource)
    assert isinstance(open_source("0"), OpenCVCameraSource)
    assert isinstance(open_source(str(write_folder(tmp_path / "f", 1))), FolderSource)


def test_undecodable_video_is_a_camera_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 50)
    with pytest.raises(CameraError, match="cannot decode video"):
        VideoFileSource(junk).open()


def test_missing_usb_camera_is_a_camera_error() -> None:
    with pytest.raises(CameraError, match="cannot open camera"):
        OpenCVCameraSource("/dev/video-not-there", CameraSettings()).open()


def test_pi_camera_off_a_pi_says_how_to_install_it() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="python3-picamera2"):
            PiCameraSource(CameraSettings()).open()
    else:
        pytest.skip("picamera2 is installed: this is a Pi, the hardware test applies")


def test_pi_camera_delivers_both_streams_on_a_pi() -> None:
    """A hardware test: runs only on a Raspberry Pi with a camera (skips elsewhere)."""
    pytest.importorskip("picamera2", reason="SKIPPED (no picamera2: not a Raspberry Pi)")
    settings = CameraSettings(settle_seconds=0.5)
    with PiCameraSource(settings) as source:
        frames = []
        for frame in source:
            frames.append(frame)
            if len(frames) == 5:
                break
    assert all(f.image is not None and f.image.shape == (480, 640, 3) for f in frames)
    assert all(f.full is not None and f.full.shape[:2] == (960, 1280) for f in frames)
    assert [f.time for f in frames] == sorted(f.time for f in frames)


def test_dropping_source_keeps_the_first_frame_and_drops_about_its_rate(tmp_path: Path) -> None:
    """bench.demo_drops's source: the first frame (the table calibrates on it) always
    passes, the others are dropped at the rate, the same ones for the same seed."""
    from bench.demo_drops import DroppingSource

    folder = write_folder(tmp_path / "frames", 20)

    def kept(seed: int) -> list[int]:
        with DroppingSource(FolderSource(folder), 0.5, seed) as source:
            return [f.index for f in source]

    first = kept(1)
    assert first[0] == 0 and 4 < len(first) < 16
    assert kept(1) == first and kept(2) != first
    with pytest.raises(ValueError, match="drop rate"):
        DroppingSource(FolderSource(folder), 1.0, 0)

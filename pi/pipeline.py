"""The live pipeline: capture -> vision -> recorder -> journal, one table.

Two threads. The capture thread reads the source and drops each frame into a one-place
mailbox (:class:`LatestSlot`); a live camera *replaces* an unread frame there, so the
analysis always works on the newest picture and nothing queues up under load. A recorded
source (a file) waits instead, so every frame is analysed. The analysis thread turns a
frame into an :class:`~rules.observation.Observation`, gives it to the recorder, and
writes whatever the recorder decided to the journal through the :class:`TableService`.

Nothing a frame does can stop the loop: a corrupt frame, an exception in vision or in the
recorder is counted, logged and shown in :class:`Health`, and the next frame is read.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Generic, Protocol, TypeVar

from pi.capture import CameraError, Frame, FrameSource
from pi.journal import JournalError, JournalEvent
from pi.record import GameRecord, RecordError
from pi.tables import TableService
from rules.observation import Observation

log = logging.getLogger(__name__)

T = TypeVar("T")

Recognizer = Callable[[Frame], Observation]
"""Vision: a frame to an observation (it must not raise for a board it cannot find; it
returns ``Observation(board_found=False)``, but the pipeline survives if it does). One
that calibrates the table first (:class:`pi.wiring.CalibratingRecognizer`) says so with a
``waiting`` attribute: why it does not read yet, None once it does."""

RecorderOutput = tuple[str, Mapping[str, Any]]
"""A journal event kind and its data (see :mod:`pi.record`)."""


class MoveRecorder(Protocol):
    """The recorder as the pipeline drives it (see :mod:`pi.recording` for the real one)."""

    def observe(self, observation: Observation) -> list[RecorderOutput]:
        """Take one observation; return the events it completes (usually none)."""
        ...

    def restart(self, record: GameRecord) -> None:
        """Continue from a game the arbiter changed (take-back, correction, new game)."""
        ...


RESTART_KINDS = frozenset({"game_started", "takeback", "correct"})
"""Journal events after which the recorder must continue from the journal's game."""

RETRY_SECONDS = 1.0
"""How often a failed live camera is reopened."""

SETTLED_MOTION = 0.01
SETTLED_OCCLUSION = 0.01
"""An observation this still and this clear counts as a settled board for the health view."""

COVERED_SECONDS = 3.0
"""A board seen but not settled for this long is reported ``board covered``: a move takes
a second or two; longer, a hand or an arm rests over the board and no move can show."""


class LatestSlot(Generic[T]):
    """A one-place mailbox. ``put(drop=True)`` replaces an unread item (and says so);
    ``put(drop=False)`` waits until the reader has taken it."""

    def __init__(self) -> None:
        self._item: T | None = None
        self._closed = False
        self._cond = threading.Condition()

    def put(self, item: T, *, drop: bool) -> bool:
        """Store ``item``; return True if an unread item was thrown away."""
        with self._cond:
            if not drop:
                while self._item is not None and not self._closed:
                    self._cond.wait()
            replaced = self._item is not None
            self._item = item
            self._cond.notify_all()
            return replaced

    def take(self, timeout: float | None = None) -> T | None:
        """The newest item, or None once closed and empty (or after ``timeout``)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._item is not None or self._closed, timeout):
                return None
            item, self._item = self._item, None
            self._cond.notify_all()
            return item

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed


@dataclass(frozen=True, slots=True)
class Health:
    """How the live loop is doing, for the board page and ``/api/health``."""

    status: str
    """``starting``, ``ok``, ``camera lost``, ``camera frozen`` (it sends the same picture
    over and over), ``not calibrated`` (vision waits to calibrate the table: ``waiting``
    says why), ``board not found``, ``board covered`` (seen, but a hand or motion over it
    for ``covered_seconds``: its frames carry no evidence), ``source ended``, ``journal
    error`` or ``stopped``."""
    source: str
    fps: float
    """Frames analysed per second (last few seconds)."""
    capture_fps: float
    latency_ms_median: float | None
    """From a frame's arrival to the end of its analysis (vision + recorder + journal)."""
    latency_ms_p95: float | None
    frames_captured: int
    frames_processed: int
    frames_dropped: int
    frames_corrupt: int
    frames_repeated: int
    """Frames a camera sent again unchanged (stale): not analysed."""
    errors: int
    last_error: str | None
    last_frame_age_s: float | None
    last_settled_age_s: float | None
    board_found: bool | None
    waiting: str | None
    """Why vision does not read the board yet (the table is not calibrated), if so."""
    reprojection_error_px: float | None
    occlusion: float | None
    moves_recorded: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Counters:
    """Mutable figures behind :class:`Health`, written by the two threads under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.captured = self.processed = self.dropped = self.corrupt = self.errors = 0
        self.repeated = 0
        self.last_repeat: float | None = None
        self.moves = 0
        self.last_error: str | None = None
        self.last_frame: float | None = None
        self.last_settled: float | None = None
        self.first_processed: float | None = None
        self.last_observation: Observation | None = None
        self.capture_times: deque[float] = deque(maxlen=60)
        self.process_times: deque[float] = deque(maxlen=60)
        self.latencies: deque[float] = deque(maxlen=300)
        self.source_state = "starting"


class LivePipeline:
    """Capture, analyse and record one table until stopped (or the source ends).

    ``recognize`` is vision; it may be None for a source whose frames carry their
    observation (:class:`~pi.replay.ObservationSource`).
    """

    def __init__(
        self,
        source: FrameSource,
        recognize: Recognizer | None,
        recorder: MoveRecorder,
        tables: TableService,
        table_id: str,
        *,
        stale_seconds: float = 2.0,
        covered_seconds: float = COVERED_SECONDS,
    ) -> None:
        self.source = source
        self.recognize = recognize
        self.recorder = recorder
        self.tables = tables
        self.table_id = table_id
        self.stale_seconds = stale_seconds
        self.covered_seconds = covered_seconds
        self._slot: LatestSlot[Frame] = LatestSlot()
        self._counters = _Counters()
        self._recorder_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._unsubscribe: Callable[[], None] | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start both threads (returns at once)."""
        self._unsubscribe = self.tables.subscribe(self._on_event)
        self._threads = [
            threading.Thread(target=self._capture_loop, name="damcam-capture", daemon=True),
            threading.Thread(target=self._analysis_loop, name="damcam-analysis", daemon=True),
        ]
        for t in self._threads:
            t.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._slot.close()
        self.source.close()
        for t in self._threads:
            t.join(timeout)
        if self._unsubscribe:
            self._unsubscribe()
        with self._counters.lock:
            self._counters.source_state = "stopped"

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the source has ended and every frame is analysed; True if it has."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)

    def run(self) -> Health:
        """Run to the end of a recorded source (``damcam record``) and return the figures."""
        self.start()
        self.wait()
        if self._unsubscribe:
            self._unsubscribe()
        return self.health()

    # -- the two loops ----------------------------------------------------------------------------

    def _capture_loop(self) -> None:
        """Read the source into the mailbox. A live camera that fails is reopened every
        ``RETRY_SECONDS`` (the board page says "camera lost" meanwhile); a file that fails
        ends the run."""
        c = self._counters
        state = "source ended"
        while not self._stop.is_set():
            try:
                self._capture()
                state = "source ended"
                break
            except Exception as exc:  # the game so far is safe in the journal
                if isinstance(exc, CameraError | FileNotFoundError):
                    log.error("capture failed: %s", exc)
                else:
                    log.exception("capture source %s failed", self.source)
                state = "camera lost"
                with c.lock:
                    c.errors += 1
                    c.last_error = f"{type(exc).__name__}: {exc}"
                    c.source_state = state
                if not self.source.live:
                    break
                self._stop.wait(RETRY_SECONDS)
        with c.lock:
            c.source_state = "stopped" if self._stop.is_set() else state
        self._slot.close()

    def _capture(self) -> None:
        c = self._counters
        with self.source:
            with c.lock:
                c.source_state = "ok"
            last_seen: int | None = None
            for frame in self.source:
                if self._stop.is_set():
                    return
                if self.source.sensor and frame.image is not None:
                    # a camera never sends the same noise twice: this frame is stale, and
                    # analysing it again would count old evidence as new
                    seen = _fingerprint(frame.image)
                    if seen == last_seen:
                        with c.lock:
                            c.repeated += 1
                            c.last_repeat = time.monotonic()
                        continue
                    last_seen = seen
                dropped = self._slot.put(frame, drop=self.source.live)
                with c.lock:
                    c.captured += 1
                    c.dropped += int(dropped)
                    c.last_frame = frame.received
                    c.capture_times.append(frame.received)

    def _analysis_loop(self) -> None:
        while (frame := self._slot.take()) is not None:
            self.process(frame)

    def process(self, frame: Frame) -> list[JournalEvent]:
        """Analyse one frame and journal what it completes. Never raises."""
        c = self._counters
        if frame.image is None and frame.observation is None:
            with c.lock:
                c.corrupt += 1
                c.last_error = f"frame {frame.index}: {frame.error or 'no image'}"
            return []
        written: list[JournalEvent] = []
        try:
            observation = frame.observation or self._recognize(frame)
            with self._recorder_lock:
                outputs = self.recorder.observe(observation)
            for kind, data in outputs:
                written.append(self._journal(kind, data))
        except JournalError as exc:
            log.error("%s", exc)
            with c.lock:
                c.errors += 1
                c.last_error = str(exc)
                c.source_state = "journal error"
            return written
        except Exception as exc:  # a bad frame must never stop the loop
            log.exception("frame %d failed", frame.index)
            with c.lock:
                c.errors += 1
                c.last_error = f"frame {frame.index}: {type(exc).__name__}: {exc}"
            return written
        done = time.monotonic()
        with c.lock:
            c.processed += 1
            c.process_times.append(done)
            c.latencies.append(done - frame.received)
            c.last_observation = observation
            c.moves += sum(1 for e in written if e.kind == "move")
            if c.first_processed is None:
                c.first_processed = done
            if _settled(observation):
                c.last_settled = done
        return written

    def _recognize(self, frame: Frame) -> Observation:
        if self.recognize is None:
            raise RuntimeError("no vision stage: this source's frames must carry observations")
        return self.recognize(frame)

    def _journal(self, kind: str, data: Mapping[str, Any]) -> JournalEvent:
        try:
            return self.tables.record(self.table_id, kind, data)
        except RecordError as exc:
            # The recorder and the journal disagree (it should not happen); keep the
            # evidence for the arbiter rather than lose it.
            log.error("recorder event %s %s does not fit the game: %s", kind, dict(data), exc)
            return self.tables.record(
                self.table_id,
                "flag",
                {
                    "kind": "recorder",
                    "ply": self.tables.current(self.table_id).ply,
                    "message": f"{kind} {dict(data)} rejected: {exc}",
                },
            )

    def _on_event(self, event: JournalEvent, state: Mapping[str, Any]) -> None:
        if event.table_id != self.table_id:
            return
        if event.kind in RESTART_KINDS or event.data.get("source") == "arbiter":
            with self._recorder_lock:
                self.recorder.restart(self.tables.current(self.table_id))

    # -- figures ---------------------------------------------------------------------------

    def health(self) -> Health:
        c = self._counters
        now = time.monotonic()
        waiting: str | None = getattr(self.recognize, "waiting", None)
        with c.lock:
            lat = sorted(c.latencies)
            obs = c.last_observation
            age = None if c.last_frame is None else now - c.last_frame
            status = c.source_state
            if status == "ok":
                if age is not None and age > self.stale_seconds and self.source.live:
                    frozen = c.last_repeat is not None and now - c.last_repeat < self.stale_seconds
                    status = "camera frozen" if frozen else "camera lost"
                elif obs is not None and not obs.board_found:
                    status = "board not found" if waiting is None else "not calibrated"
                elif obs is not None and not _settled(obs):
                    since = c.last_settled if c.last_settled is not None else c.first_processed
                    if since is not None and now - since > self.covered_seconds:
                        status = "board covered"
            return Health(
                status=status,
                source=str(self.source),
                fps=_rate(c.process_times, now),
                capture_fps=_rate(c.capture_times, now),
                latency_ms_median=round(statistics.median(lat) * 1000, 2) if lat else None,
                latency_ms_p95=round(lat[int(0.95 * (len(lat) - 1))] * 1000, 2) if lat else None,
                frames_captured=c.captured,
                frames_processed=c.processed,
                frames_dropped=c.dropped,
                frames_corrupt=c.corrupt,
                frames_repeated=c.repeated,
                errors=c.errors,
                last_error=c.last_error,
                last_frame_age_s=None if age is None else round(age, 3),
                last_settled_age_s=None
                if c.last_settled is None
                else round(now - c.last_settled, 3),
                board_found=None if obs is None else obs.board_found,
                waiting=waiting,
                reprojection_error_px=None if obs is None else obs.reprojection_error_px,
                occlusion=None if obs is None else obs.occlusion,
                moves_recorded=c.moves,
            )


def _settled(observation: Observation) -> bool:
    """The board seen still and clear (what the recorder can read)."""
    return (
        observation.board_found
        and not observation.arm
        and observation.motion < SETTLED_MOTION
        and observation.occlusion < SETTLED_OCCLUSION
    )


def _fingerprint(image: Any) -> int:
    """A checksum of every 8th pixel of every 8th row: cheap, and any sensor noise changes it."""
    return zlib.crc32(memoryview(image[::8, ::8].copy()))


def _rate(times: deque[float], now: float, window: float = 5.0) -> float:
    """Events per second over the last ``window`` seconds."""
    recent = [t for t in times if now - t <= window]
    if len(recent) < 2:
        return 0.0
    span = max(recent[-1] - recent[0], 1e-6)
    return round((len(recent) - 1) / span, 2)

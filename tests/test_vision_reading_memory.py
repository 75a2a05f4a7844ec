"""The live loop's reading memory (vision.reading_memory): a square whose crop has not
changed is not read again, and reads as it did; one that changed is read."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from calibration.table import calibrate_start_position
from rules import find_variant
from rules.position import Position
from rules.recorder import RecorderConfig
from vision.board_spec import MarkerBoardSpec
from vision.camera import crops_and_views
from vision.classifier import SquareReads, read_squares
from vision.locate import BoardLocation, locate_by_markers
from vision.observe import Observer, ObserverConfig
from vision.prototype import PrototypeClassifier
from vision.reading_memory import MemorySettings, ReadingMemory, signature
from vision.rectify import CropWindow

RUSSIAN = find_variant("russian")
NEVER_SURE = MemorySettings(sure=0.0)
"""For the colour prototypes, which split every piece 70/30 between man and king: under
the default a piece's square would be read every frame."""


@dataclass
class Counted:
    """A real classifier, and the crops it was asked to read."""

    inner: PrototypeClassifier
    asked: list[int] = field(default_factory=list)

    def predict(
        self, crops: np.ndarray, views: np.ndarray | None = None, strips: np.ndarray | None = None
    ) -> np.ndarray:
        self.asked.append(len(crops))
        return self.inner.predict(crops, views, strips)


@pytest.fixture(scope="module")
def frames() -> tuple[np.ndarray, np.ndarray, Position, Position]:
    """The Russian start and the position after its first move, rendered alike."""
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    style = scene.Style(seed=5, variant="russian", markers=True, tilt_deg=20.0, border_mm=32.0)
    start = Position.initial(RUSSIAN)
    after = start.play(start.legal_moves()[0])
    with render.Renderer((960, 720)) as renderer:
        return (
            renderer.render(start, style).image,
            renderer.render(after, style).image,
            start,
            after,
        )


def _read(
    classifier: object,
    image: np.ndarray,
    memory: ReadingMemory | None,
    location: BoardLocation | None = None,
) -> SquareReads:
    """Every square of ``image`` read, on ``location`` (or the board its markers place)."""
    if location is None:
        found = locate_by_markers(image, 8, MarkerBoardSpec())
        assert isinstance(found, BoardLocation)
        location = found
    return read_squares(
        classifier,  # type: ignore[arg-type]
        image,
        location,
        RUSSIAN.geometry,
        band=False,
        heights=False,
        memory=memory,
    )


def test_an_unchanged_frame_reads_only_the_squares_due_and_as_before(
    frames: tuple[np.ndarray, np.ndarray, Position, Position],
) -> None:
    start, _, _, _ = frames
    reader = Counted(PrototypeClassifier(calibrate_start_position(start, RUSSIAN).prototypes()))
    memory = ReadingMemory(replace(NEVER_SURE, refresh_frames=8))
    location = locate_by_markers(start, 8, MarkerBoardSpec())
    assert isinstance(location, BoardLocation)  # kept, as the tracker keeps a still board's
    first = _read(reader, start, memory, location)
    noisy = np.clip(
        start.astype(np.int16) + np.random.default_rng(1).integers(-3, 4, start.shape), 0, 255
    ).astype(np.uint8)  # a camera's noise
    again = _read(reader, noisy, memory, location)
    assert reader.asked == [32, 32 // 8]
    kept = np.ones(32, bool)
    kept[[7, 15, 23, 31]] = False  # due first: the refresh is spread over the squares
    np.testing.assert_array_equal(again.tops[kept], first.tops[kept])
    np.testing.assert_allclose(again.tops[~kept], first.tops[~kept], atol=0.01)
    # within refresh_frames frames every square is read once more, a few each frame
    for _ in range(7):
        _read(reader, noisy, memory, location)
    assert reader.asked[1:] == [4] * 8
    assert memory.read_count == 32 + 32


def test_the_squares_a_move_changed_are_read_anew(
    frames: tuple[np.ndarray, np.ndarray, Position, Position],
) -> None:
    start, moved, before, after = frames
    prototypes = PrototypeClassifier(calibrate_start_position(start, RUSSIAN).prototypes())
    reader = Counted(prototypes)
    memory = ReadingMemory(replace(NEVER_SURE, refresh_frames=1000))
    _read(reader, start, memory)
    remembered = _read(reader, moved, memory)
    fresh = _read(prototypes, moved, None)
    np.testing.assert_allclose(remembered.tops, fresh.tops, atol=1e-3)
    changed = {sq for sq in RUSSIAN.geometry.squares if before.stack(sq) != after.stack(sq)}
    assert len(changed) == 2
    # the two squares, and the few whose crops see them (the crop's window is a cell)
    assert 2 <= reader.asked[1] <= 6
    assert [int(t.argmax()) for t in remembered.tops] == [int(t.argmax()) for t in fresh.tops]


@pytest.mark.parametrize("seed", [5, 11, 17])
def test_a_man_crowned_where_he_stands_is_read_anew(seed: int) -> None:
    """The subtlest change a draughts square makes: a second disc put on a man (a king,
    the FMJD and IDF sets' crowning), the crop cut as the model's (its context window),
    on boards and sets of three styles."""
    render = pytest.importorskip("synth.render")
    scene = pytest.importorskip("synth.scene")
    man = Position.initial(RUSSIAN)
    king = Position.from_fen(RUSSIAN, man.fen().replace("Wa3,c3,", "Wa3,Kc3,"))
    style = scene.Style(seed=seed, variant="russian", markers=True, tilt_deg=20.0, border_mm=32.0)
    with render.Renderer((960, 720)) as renderer:
        before, after = (renderer.render(p, style).image for p in (man, king))
    location = locate_by_markers(before, 8, MarkerBoardSpec())
    assert isinstance(location, BoardLocation)
    window = CropWindow(left=0.35, right=0.35, top=0.6, bottom=0.1, upright="image")
    memory = ReadingMemory(MemorySettings(refresh_frames=1000))
    for image in (before, after):
        crops, views = crops_and_views(image, location, RUSSIAN.geometry, window=window)
        cells = memory.to_read("reader", (), crops, views)
        memory.remember(cells, _sure(len(cells)), None)
    c3 = RUSSIAN.geometry.parse_square("c3")
    assert c3 in cells.tolist()
    # and at most the four diagonal neighbours, whose context crops see c3
    rows_cols = np.array([RUSSIAN.geometry.rowcol(int(sq)) for sq in cells])
    assert np.abs(rows_cols - RUSSIAN.geometry.rowcol(c3)).max() <= 1


def test_another_reader_or_cut_forgets_every_reading(
    frames: tuple[np.ndarray, np.ndarray, Position, Position],
) -> None:
    start, _, _, _ = frames
    prototypes = calibrate_start_position(start, RUSSIAN).prototypes()
    first, second = (
        Counted(PrototypeClassifier(prototypes)),
        Counted(PrototypeClassifier(prototypes)),
    )
    memory = ReadingMemory(MemorySettings(refresh_frames=1000))
    _read(first, start, memory)
    _read(second, start, memory)
    assert first.asked == [32] and second.asked == [32]
    crops = np.zeros((32, 48, 48, 3), np.uint8)
    views = np.full(32, 0.5)
    assert len(memory.to_read(second, (48, 1), crops, views)) == 32  # turned a quarter


def _sure(squares: int) -> np.ndarray:
    """Readings of ``squares`` squares, each sure it is empty."""
    tops = np.zeros((squares, 5))
    tops[:, 0] = 1.0
    return tops


def _remembered(squares: int) -> tuple[ReadingMemory, np.ndarray, np.ndarray]:
    """A memory that has read ``squares`` grey crops, with the crops and view tangents."""
    memory = ReadingMemory(MemorySettings(tolerance=3.0, refresh_frames=1000))
    crops = np.full((squares, 48, 48, 3), 100, np.uint8)
    views = np.full(squares, 0.5)
    cells = memory.to_read("reader", (), crops, views)
    memory.remember(cells, _sure(squares), None)
    return memory, crops, views


def test_a_block_past_the_tolerance_or_a_new_view_is_read() -> None:
    memory, crops, views = _remembered(20)
    changed = crops.copy()
    changed[1, :6, :6] = 104  # one block's mean 4 levels off
    changed[2, :3, :3] = 130  # a quarter of a block, 7.5 levels off its mean
    changed[3] += 2  # everything a little lighter
    tilted = views.copy()
    tilted[4] *= 1.02
    assert memory.to_read("reader", (), changed, tilted).tolist() == [1, 2, 4]


def test_in_a_noisy_frame_a_change_is_one_past_the_noise() -> None:
    """Compression moves every square's blocks a little (here 10 levels): a change counts
    past 2.5 times that, and past 40 levels always."""
    memory, crops, views = _remembered(20)
    noisy = crops.copy()
    noisy[:, :6, :6] += 10
    noisy[1, :6, :6] += 10  # 20: noise
    noisy[2, :6, :6] += 20  # 30: a change
    assert memory.to_read("reader", (), noisy, views).tolist() == [2]
    memory, crops, views = _remembered(20)
    bright = crops + 60  # most squares changed: the noise is not the median
    assert len(memory.to_read("reader", (), bright, views)) == 20


def test_towers_are_read_every_frame() -> None:
    """A tall tower's top may lie past its crop: the crop unchanged says nothing of it."""
    memory = ReadingMemory(MemorySettings(refresh_frames=1000))
    crops = np.full((3, 48, 48, 3), 100, np.uint8)
    views = np.full(3, 0.5)
    cells = memory.to_read("reader", (), crops, views)
    heights = np.zeros((3, 25))
    heights[0, 1], heights[1, 6], heights[2, 0] = 1.0, 1.0, 1.0
    tops, stored = memory.remember(cells, _sure(3), heights)
    assert stored is not None and stored.shape == (3, 25)
    towers = memory.last_towers(0.2)
    assert towers is not None and towers.tolist() == [False, True, False]
    again = memory.to_read("reader", (), crops, views, tower_share=0.2)
    assert again.tolist() == [1]
    narrower = np.zeros((1, 9))
    narrower[0, 5] = 1.0
    _, stored = memory.remember(again, tops[again], narrower)
    assert stored is not None and stored.shape == (3, 25) and stored[1].argmax() == 5


def test_a_square_read_unsure_is_read_every_frame() -> None:
    memory, crops, views = _remembered(4)
    unsure = _sure(4)
    unsure[2] = [0.0, 0.55, 0.45, 0.0, 0.0]  # a man or a king
    memory.remember(np.arange(4), unsure, None)
    assert memory.to_read("reader", (), crops, views).tolist() == [2]
    assert memory.to_read("reader", (), crops, views).tolist() == [2]


def test_a_reading_the_recorder_weighs_by_degree_is_not_repeated() -> None:
    """A king read as a man by 0.93 (e2e italian `ponder`, seed 804): the recorder floors
    probabilities at 0.01, so it weighs such a reading by degree, and ten repeats of it
    flagged him `not_crowned` where fresh readings swung from man to king. Read again;
    one at the floor is kept."""
    memory, crops, views = _remembered(4)
    readings = _sure(4)
    readings[1] = [0.0, 0.0, 0.0, 0.93, 0.07]
    readings[3] = [0.0, 0.0, 0.0, 0.995, 0.005]
    memory.remember(np.arange(4), readings, None)
    assert memory.to_read("reader", (), crops, views).tolist() == [1]
    assert RecorderConfig().probability_floor == pytest.approx(1.0 - MemorySettings().sure)


def test_signature_is_block_means() -> None:
    crops = np.zeros((1, 48, 48, 3), np.uint8)
    crops[0, :6, :6, 2] = 80
    means = signature(crops, 8)
    assert means.shape == (1, 8, 8, 3)
    assert means[0, 0, 0].tolist() == [0.0, 0.0, 80.0] and means.sum() == 80.0


def test_the_observer_reads_a_still_board_once(
    frames: tuple[np.ndarray, np.ndarray, Position, Position],
) -> None:
    start, _, _, _ = frames
    table = calibrate_start_position(start, RUSSIAN)
    config = ObserverConfig(memory=NEVER_SURE)
    observer = Observer(
        config, RUSSIAN, table.registration(), PrototypeClassifier(table.prototypes())
    )
    seen = [observer.observe(start, t / 10) for t in range(3)]
    assert seen[0].squares == seen[1].squares == seen[2].squares
    assert observer.memory is not None
    assert observer.memory.read_count < 32 + 2 * 32 // 2
    off = Observer(
        ObserverConfig(memory=None),
        RUSSIAN,
        table.registration(),
        PrototypeClassifier(table.prototypes()),
    )
    assert off.memory is None
    assert off.observe(start, 0.0).squares == seen[0].squares

"""Unlabelled real photos for distillation (models.photo_pool): the labelled photos, the
test the student must not see, stay out by name and by content; every other photo with a
board found gives all its 64 cells."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.labelled_photos import LABELS, PHOTOS, read_labels
from models.photo_pool import (
    MAX_VIEW_TANGENT,
    MinedDraw,
    content_digest,
    photo_pool,
    unlabelled_photos,
)
from vision.rectify import CONTEXT


def test_no_labelled_photo_or_copy_of_one_is_in_the_pool(shared_data: Path) -> None:
    root = shared_data / PHOTOS
    labelled = read_labels()
    pool = unlabelled_photos(shared_data)
    labelled_digests = {content_digest(root / p.path) for p in labelled}
    pool_digests = [content_digest(path) for path in pool]
    assert len(pool) >= 50
    assert not {Path(p.path).name for p in labelled} & {path.name for path in pool}
    assert not labelled_digests & set(pool_digests)
    assert len(set(pool_digests)) == len(pool)  # copies under other folders once
    # the folder holds copies of labelled photos under other folders: they are left out
    copies = [
        path
        for path in sorted(root.rglob("*.jpg"))
        if content_digest(path) in labelled_digests and str(path.relative_to(root)) not in
        {p.path for p in labelled}
    ]  # fmt: skip
    assert copies and not set(copies) & set(pool)


def test_a_photo_the_labels_do_not_hold_joins_the_pool(shared_data: Path, tmp_path: Path) -> None:
    header, first, *_ = LABELS.read_text().split("\nphoto ")
    fewer = tmp_path / "labels.txt"
    fewer.write_text(f"{header}\nphoto {first}\n")  # the first labelled photo alone
    (only,) = read_labels(fewer)
    assert shared_data / PHOTOS / only.path not in unlabelled_photos(shared_data)
    grown = unlabelled_photos(shared_data, fewer)
    assert len(grown) > len(unlabelled_photos(shared_data))
    assert shared_data / PHOTOS / read_labels()[1].path in grown


def test_every_cell_of_a_located_photo_is_cut_as_the_kings_model_reads(
    shared_data: Path,
) -> None:
    pool = photo_pool(shared_data, CONTEXT, 48)
    assert pool.crops.shape == (64 * len(pool.photos), 48, 48, 3)
    assert pool.crops.dtype == np.uint8
    assert pool.views.shape == (len(pool),)
    assert np.all(np.isfinite(pool.views))
    assert pool.views.min() >= 0 and pool.views.max() <= MAX_VIEW_TANGENT
    # photos where no 8x8 grid is found, or a wrong one, are named
    assert "img/IMG-20240826-WA0091.jpg" in pool.skipped
    assert not set(pool.skipped) & set(pool.photos)


def test_a_missing_photo_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="checkers-8x8-aruco-damas"):
        photo_pool(tmp_path, CONTEXT, 48)


def test_mining_draws_the_cells_read_furthest_from_the_teacher_more_often() -> None:
    rng = np.random.default_rng(0)
    alike = MinedDraw(10, mining=0.0)
    alike.update(np.arange(10), np.arange(10.0))  # no power: the disagreement is ignored
    assert np.bincount(alike.draw(rng, 10_000), minlength=10).min() > 800

    mined = MinedDraw(10, mining=1.0)
    mined.update(np.arange(9), np.r_[np.full(8, 0.01), 1.0])  # cell 8 disagrees; 9 unseen
    counts = np.bincount(mined.draw(rng, 10_000), minlength=10)
    # an unseen cell counts as the most disagreed; a cell read as its teacher reads it
    # is still drawn now and then
    assert counts[8] > 20 * counts[0] and counts[9] > 20 * counts[0]
    assert counts[:8].min() > 0
    with pytest.raises(ValueError, match="mining -1"):
        MinedDraw(10, mining=-1.0)

"""Unlabelled real photos for distillation: every cell of the damas photos that the hand
labels do not hold.

A student taught by a shipped model on renders alone learns what the teacher reads on
renders, not what its run history taught it about real pieces (session 42: a strided
kings model that read the renders nearly as well read the labelled photos with 46 errors
against 5, docs/models.md). The folder holds about a hundred photos of the same set that
no one labelled. The teacher's readings of their cells need no labels, so the student can
be taught there too, while the labelled photos stay a test it never sees: a photo is left
out when its name or its bytes are a labelled photo's (the folder holds copies under
other folders).

Boards are found by the markerless grid locator (:func:`vision.locate.locate_markerless`);
a photo where it finds none is skipped, and so is one whose view tangents say the camera
looked from nearer the horizon than any labelled photo's (a wrong fit: two of the
folder's photos read 6-16, the labelled ones at most 2.2). Both quarter turns are cut, so
that every cell is cropped (the playable squares of one turn are the others of the
other): which cells hold pieces is the teacher's to say.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.labelled_photos import GEOMETRY, LABELS, PHOTOS, read_labels
from vision.camera import crops_and_views
from vision.locate import BoardNotFound, locate_markerless
from vision.rectify import CropWindow

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}
MAX_VIEW_TANGENT = 3.0
"""A cell seen further from the vertical than this (72 degrees) marks a wrong board fit."""


@dataclass(frozen=True)
class PhotoPool:
    """Cells of unlabelled photos: ``crops (N, H, W, 3)`` uint8 BGR, ``views (N,)`` their
    view tangents, and the photos they come from (relative to the photos' folder)."""

    crops: np.ndarray
    views: np.ndarray
    photos: tuple[str, ...]
    skipped: tuple[str, ...]
    """Photos left out: unreadable, no board found, or a board fitted wrong."""

    def __len__(self) -> int:
        return len(self.crops)


def unlabelled_photos(data: Path, labels: Path = LABELS) -> list[Path]:
    """The image files of ``data``'s damas folder that are not labelled photos, by name
    or by content, each image once (sorted, so a seed picks the same cells on every
    machine)."""
    root = data / PHOTOS
    labelled = read_labels(labels)
    names = {Path(p.path).name for p in labelled}
    seen = {content_digest(root / p.path) for p in labelled if (root / p.path).is_file()}
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in IMAGE_SUFFIXES or path.name in names:
            continue
        digest = content_digest(path)
        if digest not in seen:
            seen.add(digest)
            found.append(path)
    return found


def photo_pool(data: Path, window: CropWindow, crop_px: int, labels: Path = LABELS) -> PhotoPool:
    """Every cell of every unlabelled damas photo where a board is found.

    :raises FileNotFoundError: ``data`` has no damas folder, or no photo there yields a
        board.
    """
    root = data / PHOTOS
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such folder (../shared/data's damas photos)")
    crops, views, used, skipped = [], [], [], []
    for path in unlabelled_photos(data, labels):
        name = str(path.relative_to(root))
        read = cv2.imread(str(path))
        if read is None:
            skipped.append(name)
            continue
        image = np.asarray(read, np.uint8)
        location = locate_markerless(image, GEOMETRY.size)
        if isinstance(location, BoardNotFound):
            skipped.append(name)
            continue
        cut = [
            crops_and_views(image, location, GEOMETRY, crop_px=crop_px, window=window, turns=t)
            for t in (0, 1)
        ]
        if max(float(tangents.max()) for _, tangents in cut) > MAX_VIEW_TANGENT:
            skipped.append(name)
            continue
        for cells, tangents in cut:
            crops.append(cells)
            views.append(tangents)
        used.append(name)
    if not used:
        raise FileNotFoundError(f"{root}: no unlabelled photo where a board is found")
    return PhotoPool(
        np.concatenate(crops), np.concatenate(views).astype(np.float32), tuple(used), tuple(skipped)
    )


def content_digest(path: Path) -> str:
    """The file's SHA-256: a copy under another folder or name has the same one."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


class MinedDraw:
    """Draws the pool's cells each batch, those the student last read furthest from its
    teacher the more often: each cell's chance is its latest disagreement (the KL of
    the two readings) to the power ``mining``, and a cell not yet drawn counts as the
    most disagreed. 0 draws every cell alike.

    Why: a student taught on the pool read the photos' kings as men where its teacher
    read them as kings (docs/models.md, "A strided kings model taught on unlabelled
    photos"); drawn uniformly, the few real kings ride in a batch now and then. Written
    here: prioritised sampling is a few lines, and torch's WeightedRandomSampler fixes
    its weights when made."""

    def __init__(self, cells: int, mining: float) -> None:
        if mining < 0:
            raise ValueError(f"mining {mining}: the power must be 0 or more")
        self.mining = mining
        self.disagreement = np.full(cells, np.inf)

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` cell indices, drawn with replacement."""
        if self.mining == 0:
            return rng.integers(len(self.disagreement), size=count)
        seen = np.isfinite(self.disagreement)
        ceiling = self.disagreement[seen].max() if seen.any() else 1.0
        need = np.where(seen, self.disagreement, ceiling) + MINING_FLOOR
        chance = need**self.mining
        return rng.choice(len(chance), size=count, p=chance / chance.sum())

    def update(self, cells: np.ndarray, disagreement: np.ndarray) -> None:
        """The student's latest disagreement with its teacher on the drawn ``cells``."""
        self.disagreement[cells] = disagreement


MINING_FLOOR = 1e-3
"""Added to each cell's disagreement, so that a cell read as the teacher does is still
drawn now and then."""

"""A picture kept from before brought to a new frame's light (vision.light): a spectator's
soft shadow passing over the board, as the e2e's ``hall`` condition draws it."""

from __future__ import annotations

import numpy as np

from tests.shadows import in_shadow
from vision.light import Blocks, in_light_of, ring_blocks, square_blocks
from vision.occlusion import changed_pixels

LIGHT, DARK, MAN = (150, 190, 220), (60, 90, 130), (40, 40, 45)  # BGR
SKIN = (120, 150, 200)
CELL = 16


def board(size: int = 8) -> np.ndarray:
    """A rectified board of 16 px cells, a dark man on every other dark square."""
    image = np.zeros((size * CELL, size * CELL, 3), np.uint8)
    for r in range(size):
        for c in range(size):
            y, x = r * CELL, c * CELL
            image[y : y + CELL, x : x + CELL] = DARK if (r + c) % 2 else LIGHT
            if (r + c) % 2 and r % 2:
                image[y + 3 : y + 13, x + 3 : x + 13] = MAN
    return image


def light_blocks(size: int) -> Blocks:
    rows, cols = np.indices((size, size))
    return square_blocks(size, CELL, (rows + cols) % 2 == 0)


def changed(now: np.ndarray, before: np.ndarray, blocks: Blocks) -> np.ndarray:
    """The gate's change (25 levels of any channel) of ``now`` against ``before`` brought
    to its light."""
    lit = in_light_of(before.astype(np.float32), now.astype(np.float32), blocks)
    return changed_pixels(now.astype(np.float32), lit, 25.0)


def test_a_passing_shadow_changes_nothing_once_the_board_is_brought_to_its_light() -> None:
    """Every step of the shadow's way over an 8x8 and a 10x10 board: nothing changed. One
    gain per channel, as the gate had, leaves its edge changed over squares."""
    for size in (8, 10):
        before = board(size)
        one_gain = []
        for across in np.linspace(0.0, 1.0, 21):
            now = in_shadow(before, float(across))
            assert not changed(now, before, light_blocks(size)).any(), (size, across)
            ratio = (now.reshape(-1, 3) + 1.0) / (before.reshape(-1, 3) + 1.0)
            flat = before * np.median(ratio, axis=0).astype(np.float32)
            one_gain.append(changed_pixels(now.astype(np.float32), flat, 25.0).mean())
        assert max(one_gain) > 0.1


def lit(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    return in_light_of(before.astype(np.float32), now.astype(np.float32), light_blocks(10))


def test_a_hand_or_a_sleeve_in_the_shadow_does_not_bend_the_light() -> None:
    """A skin-coloured hand over two light squares and the men beside, a navy sleeve
    across the board's lower third: the board is brought to the shadow's light as
    without them (within 4 %, 9 levels of a light square), so they stay the change they are."""
    before = board(10)
    hand, sleeve = before.copy(), before.copy()
    hand[48:80, 40:72] = SKIN
    sleeve[110:160, :] = (90, 40, 30)
    for across in (0.2, 0.4, 0.6, 0.8):
        bare = lit(in_shadow(before, across), before)
        for over in (hand, sleeve):
            brought = lit(in_shadow(over, across), before)
            assert np.abs(np.log((brought + 1.0) / (bare + 1.0))).max() < 0.04, across


def test_the_border_ring_follows_a_shadow_along_its_length() -> None:
    """The ring around the board (vision.arms), framed: a shadow over it changes none of
    its pixels; an arm across it still does."""
    ring = 8
    framed = np.full((160 + 2 * ring, 160 + 2 * ring, 3), (40, 70, 110), np.uint8)
    framed[ring:-ring, ring:-ring] = board(10)
    blocks = ring_blocks(10, CELL, ring)
    mask = np.ones(framed.shape[:2], np.bool_)
    mask[ring:-ring, ring:-ring] = False
    for across in np.linspace(0.0, 1.0, 11):
        assert not (changed(in_shadow(framed, float(across)), framed, blocks) & mask).any()
    arm = framed.copy()
    arm[120:, 80:96] = SKIN
    bare = in_light_of(framed.astype(np.float32), in_shadow(framed, 0.5).astype(np.float32), blocks)
    brought = in_light_of(framed.astype(np.float32), in_shadow(arm, 0.5).astype(np.float32), blocks)
    assert np.abs(np.log((brought + 1.0) / (bare + 1.0))).max() < 0.04
    assert (changed(in_shadow(arm, 0.5), framed, blocks) & mask)[-ring + 1 :, 81:95].all()

"""The hand gate as the end-to-end games found it: a board image shifted by under a
pixel (a swaying camera) is neither motion nor a hand, while a hand still is; a moved
skin-coloured piece settles into the stable board."""

from __future__ import annotations

import cv2
import numpy as np

from vision.occlusion import OcclusionGate


def _board(shift: float = 0.0) -> np.ndarray:
    """A rectified 8x8 board (16 px cells) with sharp-edged discs, moved ``shift`` px."""
    image = np.zeros((128, 128, 3), np.uint8)
    for r in range(8):
        for c in range(8):
            image[r * 16 : r * 16 + 16, c * 16 : c * 16 + 16] = 200 if (r + c) % 2 else 40
            if (r + c) % 2 and r != 3 and r != 4:
                colour = (230, 230, 230) if r > 4 else (20, 20, 20)
                cv2.circle(image, (c * 16 + 8, r * 16 + 8), 6, colour, -1)
    matrix = np.array([[1, 0, shift], [0, 1, shift]], np.float32)
    moved = cv2.warpAffine(
        image, matrix, (128, 128), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(moved, np.uint8)


def test_a_board_shifted_under_a_pixel_is_still() -> None:
    gate = OcclusionGate(8)
    gate.update(_board())
    moved = gate.update(_board(0.7))
    assert moved.motion < 0.005 and moved.occlusion < 0.005


def test_a_hand_over_the_board_is_still_seen() -> None:
    gate = OcclusionGate(8)
    for _ in range(4):
        gate.update(_board())
    hand = _board(0.5)
    hand[30:90, 40:110] = (120, 150, 200)  # skin tone (BGR)
    seen = gate.update(hand)
    assert seen.motion > 0.1 and seen.occlusion > 0.1
    assert seen.cells[3, 4] > 0.5 and seen.cells[7, 0] == 0.0


def test_a_moved_cream_piece_settles_into_the_stable_board() -> None:
    """Cream pieces are skin-coloured: once the board is still again, the moved piece
    is part of the board, not a hand that stays for the rest of the game."""
    gate = OcclusionGate(8)
    board = _board()
    for _ in range(4):
        gate.update(board)
    moved = board.copy()
    moved[80:96, 0:16] = 200  # a playable square emptied...
    cv2.circle(moved, (24, 72), 6, (150, 180, 220), -1)  # ...its cream man one row on
    frames = [gate.update(moved) for _ in range(6)]
    assert frames[0].occlusion > 0.0  # skin-coloured and new: hidden at first
    assert frames[-1].occlusion == 0.0 and frames[-1].motion == 0.0


def test_a_hand_resting_on_a_light_wooden_board_is_not_taken_into_the_stable_board() -> None:
    """The demo video's wood-light board: a skin-coloured hand rests at the near edge.
    Against the stable board its change is cut into square-sized bits along the squares'
    edges (there any colour between light and dark wood is "unchanged"), none of them
    hand-sized; the light squares it covers have changed, and no piece stands there.
    Once the hand has gone, the board must be clear again, not hidden where it rested."""
    light, dark = (150, 190, 220), (60, 90, 130)  # BGR; the light squares are skin-toned
    board = np.zeros((128, 128, 3), np.uint8)
    for r in range(8):
        for c in range(8):
            board[r * 16 : r * 16 + 16, c * 16 : c * 16 + 16] = dark if (r + c) % 2 else light
    gate = OcclusionGate(8)
    for _ in range(4):
        gate.update(board)
    hand = board.copy()
    hand[98:128, 18:46] = (112, 150, 210)  # a hand, still, from the near edge
    resting = [gate.update(hand) for _ in range(10)]
    assert all(g.cells[7, 1] > 0.3 and g.cells[6, 2] > 0.3 for g in resting[1:])
    after = [gate.update(board) for _ in range(5)]
    assert after[-1].occlusion == 0.0 and after[-1].cells.max() == 0.0

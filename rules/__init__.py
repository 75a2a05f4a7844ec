"""The rules core: variants, positions, moves, notation, PDN, draw rules, the recorder.

Pure Python with no I/O and no imports from the rest of damcam.
"""

from rules.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    PDNError,
    RulesError,
)
from rules.geometry import Bitboard, BoardGeometry, Naming, Square
from rules.move import Move
from rules.pieces import BLACK_KING, BLACK_MAN, WHITE_KING, WHITE_MAN, Piece, Stack
from rules.position import Position, Status
from rules.variants import (
    VARIANTS,
    CaptureRule,
    Color,
    CrowningInCapture,
    Variant,
    find_variant,
)

__all__ = [
    "BLACK_KING",
    "BLACK_MAN",
    "VARIANTS",
    "WHITE_KING",
    "WHITE_MAN",
    "AmbiguousMoveError",
    "Bitboard",
    "BoardGeometry",
    "CaptureRule",
    "Color",
    "CrowningInCapture",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "Move",
    "Naming",
    "PDNError",
    "Piece",
    "Position",
    "RulesError",
    "Square",
    "Stack",
    "Status",
    "Variant",
    "find_variant",
]

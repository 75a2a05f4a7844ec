"""The games damcam records, each a row of data plus a few rule switches.

Rule sources are the digests in ``../shared/rules``: FMJD (``I x.y``), IDF draughts-64
(``S1 §x`` and the annexes ``BR``, ``PC``, ``CZ``, ``PT``, ``IT``), and the column-draughts
Code (``§1`` bashni, ``§2`` lasca). English checkers follows the WCDF rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property

from rules.geometry import BoardGeometry, Naming


class CaptureRule(Enum):
    """Which of several available captures a player may choose."""

    FREE = "free"
    """Free choice among captures (S1 §5.12, WCDF, column Code §1.6)."""
    MAJORITY = "majority"
    """Take the greatest number of pieces, kings counting the same (I 4.13, BR §5.12)."""
    MAJORITY_THEN_KINGS = "majority_then_kings"
    """Most pieces, then most kings among equals (PT §5.13-5.14, IT §5.14-5.15)."""
    ITALIAN = "italian"
    """The full Italian federation order, a superset of IT §5.14-5.15: most pieces, then a
    king capturing rather than a man, then most kings taken, then the earliest king taken."""
    KING_PRIORITY = "king_priority"
    """If a king can capture, a king must capture; free choice among those (CZ §5.13)."""


class CrowningInCapture(Enum):
    """What happens when a man reaches the far row in the middle of a capture."""

    PASS = "pass"
    """It stays a man and goes on capturing as a man if it can; it is crowned only when
    the move ends on the far row (I 4.4; BR/PC §5.13-5.14). Where men capture only
    forward (english, czech, portuguese, italian, lasca) this is the same as stopping."""
    CONTINUE_AS_KING = "continue_as_king"
    """It is crowned at once and goes on capturing as a king (S1 §5.11, column Code §1.5.2)."""
    STOP = "stop"
    """It is crowned at once and the move ends there (lasca, column Code §2.4.2)."""


class Color(Enum):
    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def letter(self) -> str:
        return "W" if self is Color.WHITE else "B"


@dataclass(frozen=True)
class Variant:
    """One game: its board, its start, and the switches that make its rules.

    >>> find_variant("fmjd").name
    'international'
    >>> VARIANTS["russian"].geometry.name(0)
    'b8'
    """

    name: str
    title: str
    gametype: int
    """PDN GameType number (PDN 3.0 standard table); column games use damcam's own (see docs)."""
    geometry: BoardGeometry
    rows_per_side: int
    """How many rows of men each side starts with."""
    first_to_move: Color = Color.WHITE
    men_capture_backward: bool = True
    flying_kings: bool = True
    men_capture_kings: bool = True
    capture_rule: CaptureRule = CaptureRule.FREE
    crowning_in_capture: CrowningInCapture = CrowningInCapture.PASS
    towers: bool = False
    """Column draughts: captured pieces go under the capturing tower (column Code §1.6)."""
    capture_reversal: bool = False
    """Towers only: whether a capture may turn back 180 degrees over the tower it has just
    jumped. The Code is silent; its sample game 8. h2:f4 shows it may not (digest 2.6.10)."""
    capture_separator: str = "x"
    aliases: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return self.geometry.size

    @cached_property
    def start_squares(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Squares of White's and Black's men at the start (White on the bottom rows)."""
        g = self.geometry
        n = self.size
        white = tuple(sq for sq in g.squares if g.rowcol(sq)[0] >= n - self.rows_per_side)
        black = tuple(sq for sq in g.squares if g.rowcol(sq)[0] < self.rows_per_side)
        return white, black

    def promotion_row(self, color: Color) -> int:
        """The row where a man of this colour is crowned."""
        return 0 if color is Color.WHITE else self.size - 1

    def __str__(self) -> str:
        return self.name


_DARK_LEFT = 1  # even board, dark square at each player's left corner: (row + col) odd
_DARK_RIGHT = 0  # even board, dark corner on the right (PT §2.1.2, IT §2.1.2); 7x7 corners

INTERNATIONAL = Variant(
    name="international",
    title="International draughts (FMJD, 10x10)",
    gametype=20,
    geometry=BoardGeometry(size=10, dark_parity=_DARK_LEFT),
    rows_per_side=4,
    capture_rule=CaptureRule.MAJORITY,
    aliases=("fmjd", "10x10", "dutch", "polish"),
)

_ALGEBRAIC_8 = BoardGeometry(size=8, dark_parity=_DARK_LEFT, naming=Naming.ALGEBRAIC)

RUSSIAN = Variant(
    name="russian",
    title="Russian draughts (IDF draughts-64)",
    gametype=25,
    geometry=_ALGEBRAIC_8,
    rows_per_side=3,
    crowning_in_capture=CrowningInCapture.CONTINUE_AS_KING,
    capture_separator=":",
    aliases=("shashki", "draughts-64"),
)

BRAZILIAN = Variant(
    name="brazilian",
    title="Brazilian draughts (IDF annex 1)",
    gametype=26,
    geometry=_ALGEBRAIC_8,
    rows_per_side=3,
    capture_rule=CaptureRule.MAJORITY,
    capture_separator=":",
)

POOL = Variant(
    name="pool",
    title="Pool checkers (IDF annex 2)",
    gametype=23,
    geometry=_ALGEBRAIC_8,
    rows_per_side=3,
    capture_separator=":",
    aliases=("pool-checkers",),
)

CZECH = Variant(
    name="czech",
    title="Czech draughts (IDF annex 3)",
    gametype=29,
    geometry=_ALGEBRAIC_8,
    rows_per_side=3,
    men_capture_backward=False,
    capture_rule=CaptureRule.KING_PRIORITY,
    capture_separator=":",
)

PORTUGUESE = Variant(
    name="portuguese",
    title="Portuguese draughts (IDF annex 4)",
    gametype=28,
    geometry=BoardGeometry(
        size=8, dark_parity=_DARK_RIGHT, number_from_bottom=True, number_rightward=False
    ),
    rows_per_side=3,
    men_capture_backward=False,
    capture_rule=CaptureRule.MAJORITY_THEN_KINGS,
    capture_separator=":",
    aliases=("spanish",),
)

ITALIAN = Variant(
    name="italian",
    title="Italian draughts (IDF annex 5)",
    gametype=22,
    geometry=BoardGeometry(size=8, dark_parity=_DARK_RIGHT),
    rows_per_side=3,
    men_capture_backward=False,
    flying_kings=False,
    men_capture_kings=False,
    capture_rule=CaptureRule.ITALIAN,
    capture_separator="x",
    aliases=("dama", "dama-italiana"),
)

ENGLISH = Variant(
    name="english",
    title="English draughts / American checkers",
    gametype=21,
    geometry=BoardGeometry(size=8, dark_parity=_DARK_LEFT),
    rows_per_side=3,
    first_to_move=Color.BLACK,
    men_capture_backward=False,
    flying_kings=False,
    aliases=("checkers", "american", "english-checkers"),
)

BASHNI = Variant(
    name="bashni",
    title="Russian column draughts (bashni)",
    gametype=90,
    geometry=_ALGEBRAIC_8,
    rows_per_side=3,
    crowning_in_capture=CrowningInCapture.CONTINUE_AS_KING,
    towers=True,
    capture_separator=":",
    aliases=("column", "stolbovye"),
)

LASCA = Variant(
    name="lasca",
    title="International column draughts (Lasca, 7x7)",
    gametype=91,
    geometry=BoardGeometry(size=7, dark_parity=0, number_from_bottom=True),
    rows_per_side=3,
    men_capture_backward=False,
    flying_kings=False,
    crowning_in_capture=CrowningInCapture.STOP,
    towers=True,
    capture_separator=":",
    aliases=("laska",),
)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        INTERNATIONAL,
        RUSSIAN,
        BRAZILIAN,
        POOL,
        CZECH,
        PORTUGUESE,
        ITALIAN,
        ENGLISH,
        BASHNI,
        LASCA,
    )
}


def find_variant(name: str) -> Variant:
    """Variant by name or alias (case-insensitive); raises ValueError listing the known names."""
    key = name.strip().lower()
    for variant in VARIANTS.values():
        if key == variant.name or key in variant.aliases:
            return variant
    raise ValueError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")


def variant_for_gametype(gametype: int) -> Variant | None:
    for variant in VARIANTS.values():
        if variant.gametype == gametype:
            return variant
    return None

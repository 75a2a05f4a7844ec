"""Draw rules of every variant, as a small table of data per variant.

A :class:`Game` keeps one :class:`DrawCounters` per position of its history (updated
incrementally by :func:`advance`); :func:`draw_status` reads them against the variant's
:class:`DrawRule` rows and says whether a draw is *reached* (the rule itself declares the
game drawn; the arbiter only confirms it) or *claimable* (a player must claim it).

Readings chosen where the digests list an ambiguity (``../shared/rules``):

* **Repetition** is the same placement (towers with every hidden piece included) with the
  same side to move, not necessarily consecutive (I 6.1, S1 §8.2.3, column Code §1.13.1);
  Italian counts four occurrences whatever the side to move (IT §8.2.3).
* **International 25-move rule** (I 6.2): 25 moves *each* (50 plies) with only kings
  moved and nothing captured (digest §17.2).
* **International 16- and 5-move rules** (I 6.3-6.4): the count starts when the material
  configuration arises and restarts whenever the material changes (digest §17.3); the
  draw is reached after 16 (5) moves by each player.
* **Draughts-64** (S1 §8.2.4-8.2.25): articles that say "its own N moves" count the
  stronger side's moves since the material last changed (the moment the balance of forces
  arose, §8.2.15); the others (§8.2.14 and §8.2.25) count N moves by each side. Placement
  conditions ("a king on the main road", men on named squares) are tested on the current
  position only, not over the whole count. Under S2 §9.3 these draws are obtained by applying
  to the arbiter, so every draughts-64 rule is *claimable*, never automatic (digest §9).
  The Portuguese annex keeps S1 §8.2.1-8.2.8, §8.2.13-8.2.14 and §8.2.24-8.2.25 (PT §8.2);
  since it does not say which squares §8.2.13 means on its mirrored board, the §8.2.13
  placement rule is left out of Portuguese.
* **Italian** (IT §8.2.3-8.2.4): fourfold repetition and 40 moves (each) with no change
  in material; both claimed.
* **English** (WCDF, a documented default since no digest covers it): threefold
  repetition and the 40-move rule, 40 moves each with no man moved and no capture; both
  claimed.
* **Column draughts** (column Code §1.13.1, digest §2.11): 15 move pairs (30 plies) with
  the number and composition of towers unchanged (every capture and promotion resets it),
  and threefold repetition of the whole position; both claimed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from rules.geometry import Square
from rules.move import Move
from rules.variants import Color, Variant

if TYPE_CHECKING:
    from rules.position import Position


class DrawState(Enum):
    NONE = "none"
    CLAIMABLE = "claimable"
    """A player may claim the draw from the arbiter (the game goes on until he does)."""
    REACHED = "reached"
    """The rule declares the game drawn; the arbiter only confirms it."""


class Count(Enum):
    """What a rule's move count counts."""

    EACH = "each"
    """Moves by each player: N moves = 2N plies."""
    STRONGER = "stronger"
    """Moves of the stronger side only, since the configuration arose (S1 "своих")."""


class Trigger(Enum):
    """Which counter a rule reads."""

    REPETITION = "repetition"
    KINGS_ONLY = "kings_only"
    """Plies since a man moved or a piece was captured."""
    MATERIAL = "material"
    """Plies since the material (pieces of each kind; towers and their composition) changed."""


@dataclass(frozen=True, slots=True)
class Side:
    """A side's material in an endgame rule, as the article writes it with White the
    stronger side (with Black the stronger, the squares are rotated 180 degrees).

    ``kings`` and ``men`` are the allowed counts. ``men_on`` names the exact squares of
    the men; ``king_on`` names a line that
    must hold at least one king ("main_road", "double_lines": both kings on the double
    lines, or one of them on the main road, S1 §8.2.7).
    """

    kings: tuple[int, ...]
    men: tuple[int, ...] = (0,)
    men_on: tuple[str, ...] = ()
    king_on: str = ""


@dataclass(frozen=True, slots=True)
class DrawRule:
    """One row of a variant's draw table."""

    article: str
    trigger: Trigger
    moves: int = 0
    """The move count (or, for repetition, the number of occurrences)."""
    count: Count = Count.EACH
    claim: bool = True
    """True: the player claims it; False: the game is drawn by the rule itself."""
    same_side_to_move: bool = True
    """Repetition only: whether the side to move is part of the position."""
    endings: tuple[tuple[Side, Side], ...] = ()
    """Material trigger only: (stronger, weaker) configurations the rule covers; empty
    means any material."""
    both_have_kings: bool = False
    pieces: tuple[int, ...] = ()
    """Total pieces on the board the rule covers (S1 §8.2.25); empty means any."""

    @property
    def name(self) -> str:
        if self.trigger is Trigger.REPETITION:
            return f"{self.moves}-fold repetition"
        what = {Trigger.KINGS_ONLY: "kings only", Trigger.MATERIAL: "material unchanged"}
        own = " (stronger side)" if self.count is Count.STRONGER else ""
        return f"{self.moves}-move rule{own}, {what[self.trigger]}"


@dataclass(frozen=True, slots=True)
class DrawCounters:
    """Counters after a ply, kept by the game for every position of its history."""

    kings_only_plies: int = 0
    """Plies in a row in which no man moved and nothing was captured."""
    material_plies: int = 0
    """Plies since the material last changed."""


@dataclass(frozen=True, slots=True)
class DrawStatus:
    """What the draw rules say about the current position."""

    state: DrawState = DrawState.NONE
    rule: DrawRule | None = None
    detail: str = ""

    def __bool__(self) -> bool:
        return self.state is not DrawState.NONE


# -- the tables -----------------------------------------------------------------------------

_K = tuple(range(1, 13))  # "one king or more"
_ANY = tuple(range(0, 13))


def _s(kings: int | tuple[int, ...], men: int = 0, **kw: object) -> Side:
    return Side((kings,) if isinstance(kings, int) else kings, (men,), **kw)  # type: ignore[arg-type]


_THREE = (_s(3), _s(2, 1), _s(1, 2))
_TWO_OR_ONE = (_s(2), _s(1, 1), _s(1))

INTERNATIONAL_RULES = (
    DrawRule("I 6.1", Trigger.REPETITION, 3, claim=False),
    DrawRule("I 6.2", Trigger.KINGS_ONLY, 25, claim=False),
    DrawRule("I 6.3", Trigger.MATERIAL, 16, claim=False, endings=tuple((s, _s(1)) for s in _THREE)),
    DrawRule(
        "I 6.4", Trigger.MATERIAL, 5, claim=False, endings=tuple((s, _s(1)) for s in _TWO_OR_ONE)
    ),
)

_ROAD_KING = _s(1, king_on="main_road")
_S1_REPETITION = DrawRule("S1 §8.2.3", Trigger.REPETITION, 3)
_S1_STANDARD = (
    DrawRule(
        "S1 §8.2.4",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=tuple((s, _ROAD_KING) for s in _THREE),
    ),
    DrawRule(
        "S1 §8.2.5",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((_s(2), _s(1)), (_s(1, 1), _s(1)), (_s(1), _s(1))),
    ),
    DrawRule(
        "S1 §8.2.6", Trigger.MATERIAL, 5, Count.STRONGER, endings=tuple((s, _s(2)) for s in _THREE)
    ),
    DrawRule(
        "S1 §8.2.7",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((_s(4), _s(2, king_on="double_lines")),),
    ),
)
_S1_PLACEMENTS = (
    DrawRule(
        "S1 §8.2.9",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((Side((1,), (3,), ("g5", "h4", "h6")), _ROAD_KING),),
    ),
    DrawRule(
        "S1 §8.2.10",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((Side((2,), (1,), ("a7",), "main_road"), Side((1,), (1,), ("b8",))),),
    ),
    DrawRule(
        "S1 §8.2.11",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((Side((2,), (1,), ("g1",), "main_road"), Side((1,), (1,), ("h2",))),),
    ),
    DrawRule(
        "S1 §8.2.12",
        Trigger.MATERIAL,
        5,
        Count.STRONGER,
        endings=((Side((2,), (1,), ("h6",), "main_road"), Side((1,), (1,), ("f8",))),),
    ),
)
_S1_8213 = DrawRule(
    "S1 §8.2.13",
    Trigger.MATERIAL,
    5,
    Count.STRONGER,
    endings=(
        (
            Side((1,), (3,), ("h6", "+right_of_main_road")),
            Side((1,), (1,), ("f8",), "main_road"),
        ),
    ),
)
_S1_KINGS_ONLY = DrawRule("S1 §8.2.14", Trigger.KINGS_ONLY, 15)
_S1_FIFTEEN = (
    DrawRule(
        "S1 §8.2.15",
        Trigger.MATERIAL,
        15,
        Count.STRONGER,
        endings=((Side(tuple(range(3, 13))), _s(1)),),
    ),
    DrawRule(
        "S1 §8.2.16",
        Trigger.MATERIAL,
        15,
        Count.STRONGER,
        endings=((_s(3), Side((1,), (1,), ("h2",))),),
    ),
    DrawRule(
        "S1 §8.2.17",
        Trigger.MATERIAL,
        15,
        Count.STRONGER,
        endings=((Side((2,), (1,), ("a1",)), Side((1,), (1,), ("a3",))),),
    ),
)


def _thirty(article: str, man: str, weak: tuple[str, str]) -> DrawRule:
    """S1 §8.2.18-8.2.23: the header's condition (a stronger king on the main road) is
    read as required (digest §10.3)."""
    return DrawRule(
        article,
        Trigger.MATERIAL,
        30,
        Count.STRONGER,
        endings=((Side((2,), (1,), (man,), "main_road"), Side((1,), (2,), weak)),),
    )


_S1_THIRTY = (
    _thirty("S1 §8.2.18", "c1", ("a3", "a5")),
    _thirty("S1 §8.2.19", "c1", ("a3", "h6")),
    _thirty("S1 §8.2.20", "c1", ("a3", "h4")),
    _thirty("S1 §8.2.21", "c1", ("a3", "f8")),
    _thirty("S1 §8.2.22", "e1", ("a3", "a5")),
    _thirty("S1 §8.2.23", "g1", ("a3", "a5")),
)
_S1_8224 = DrawRule(
    "S1 §8.2.24",
    Trigger.MATERIAL,
    30,
    Count.STRONGER,
    endings=((_s(4, king_on="main_road_and_double"), _s(2)),),
)
_S1_8225 = (
    DrawRule("S1 §8.2.25", Trigger.MATERIAL, 30, both_have_kings=True, pieces=(4, 5)),
    DrawRule("S1 §8.2.25", Trigger.MATERIAL, 40, both_have_kings=True, pieces=(6, 7)),
)

DRAUGHTS64_RULES = (
    _S1_REPETITION,
    *_S1_STANDARD,
    *_S1_PLACEMENTS,
    _S1_8213,
    _S1_KINGS_ONLY,
    *_S1_FIFTEEN,
    *_S1_THIRTY,
    _S1_8224,
    *_S1_8225,
)
PORTUGUESE_RULES = (_S1_REPETITION, *_S1_STANDARD, _S1_KINGS_ONLY, _S1_8224, *_S1_8225)
ITALIAN_RULES = (
    DrawRule("IT §8.2.3", Trigger.REPETITION, 4, same_side_to_move=False),
    DrawRule("IT §8.2.4", Trigger.MATERIAL, 40),
)
ENGLISH_RULES = (
    DrawRule("WCDF 1.32 (repetition)", Trigger.REPETITION, 3),
    DrawRule("WCDF 1.32 (40-move rule)", Trigger.KINGS_ONLY, 40),
)
COLUMN_RULES = (
    DrawRule("column Code §1.13.1 (repetition)", Trigger.REPETITION, 3),
    DrawRule("column Code §1.13.1 (15 moves)", Trigger.MATERIAL, 15),
)

RULES_BY_VARIANT: dict[str, tuple[DrawRule, ...]] = {
    "international": INTERNATIONAL_RULES,
    "russian": DRAUGHTS64_RULES,
    "brazilian": DRAUGHTS64_RULES,
    "pool": DRAUGHTS64_RULES,
    "czech": DRAUGHTS64_RULES,
    "portuguese": PORTUGUESE_RULES,
    "italian": ITALIAN_RULES,
    "english": ENGLISH_RULES,
    "bashni": COLUMN_RULES,
    "lasca": COLUMN_RULES,
}


def rules_for(variant: Variant) -> tuple[DrawRule, ...]:
    return RULES_BY_VARIANT[variant.name]


# -- counters -------------------------------------------------------------------------------


def material(position: Position) -> tuple[object, ...]:
    """The balance of forces: men and kings of each side, or every tower's composition."""
    if position.variant.towers:
        from rules.pieces import stack_string

        return tuple(sorted(Counter(stack_string(st) for _sq, st in position.stacks()).items()))
    white, black, kings = position.white, position.black, position.kings
    return (
        (white & ~kings).bit_count(),
        (white & kings).bit_count(),
        (black & ~kings).bit_count(),
        (black & kings).bit_count(),
    )


def advance(counters: DrawCounters, before: Position, move: Move, after: Position) -> DrawCounters:
    """The counters after ``move`` took ``before`` to ``after``."""
    moved = before.piece_at(move.from_square)
    man_moved = moved is not None and not moved.king
    kings_only = 0 if move.captures or man_moved else counters.kings_only_plies + 1
    same = material(before) == material(after)
    return DrawCounters(kings_only, counters.material_plies + 1 if same else 0)


# -- evaluation -----------------------------------------------------------------------------


def draw_status(positions: Sequence[Position], counters: Sequence[DrawCounters]) -> DrawStatus:
    """The strongest draw the rules give in the last position of a history.

    ``positions`` and ``counters`` run in parallel from the start position. A reached draw
    outranks a claimable one; among equals the first row of the table wins.
    """
    position, now = positions[-1], counters[-1]
    best = DrawStatus()
    matched_ending = False
    for rule in rules_for(position.variant):
        if rule.trigger is Trigger.MATERIAL and rule.pieces and matched_ending:
            continue  # S1 §8.2.25 applies only where §8.2.4-8.2.24 do not
        detail = _fulfilled(rule, positions, now)
        if rule.endings and _ending_side(rule, position) is not None:
            matched_ending = True
        if detail is None:
            continue
        state = DrawState.CLAIMABLE if rule.claim else DrawState.REACHED
        if best.state is DrawState.NONE or (
            state is DrawState.REACHED and best.state is DrawState.CLAIMABLE
        ):
            best = DrawStatus(state, rule, f"{rule.article}: {detail}")
    return best


def _fulfilled(rule: DrawRule, positions: Sequence[Position], now: DrawCounters) -> str | None:
    position = positions[-1]
    if rule.trigger is Trigger.REPETITION:
        # Only positions since the last man move or capture can repeat the current one.
        window = positions[len(positions) - 1 - now.kings_only_plies :]
        key: Callable[[Position], object] = (
            (lambda p: p)
            if rule.same_side_to_move
            else (lambda p: (p.white, p.black, p.kings, p.below))
        )
        target = key(position)
        seen = sum(1 for p in window if key(p) == target)
        return f"position occurred {seen} times" if seen >= rule.moves else None
    if rule.trigger is Trigger.KINGS_ONLY:
        plies = now.kings_only_plies
        return f"{plies} plies with only kings moved" if plies >= 2 * rule.moves else None
    if rule.both_have_kings and not (
        position.count(Color.WHITE, kings=True) and position.count(Color.BLACK, kings=True)
    ):
        return None
    if rule.pieces and sum(len(st) for _sq, st in position.stacks()) not in rule.pieces:
        return None
    plies = now.material_plies
    if rule.endings:
        stronger = _ending_side(rule, position)
        if stronger is None:
            return None
        if rule.count is Count.STRONGER:
            # Plies alternate from the position where the configuration arose.
            start = positions[len(positions) - 1 - plies]
            own = (plies + 1) // 2 if start.turn is stronger else plies // 2
            return f"stronger side made {own} moves" if own >= rule.moves else None
    return f"{plies} plies with the material unchanged" if plies >= 2 * rule.moves else None


def _ending_side(rule: DrawRule, position: Position) -> Color | None:
    """The stronger side if the position matches one of the rule's endings."""
    for strong, weak in rule.endings:
        for color in (Color.WHITE, Color.BLACK):
            # The articles name squares for White as the stronger side; with Black the
            # stronger, the whole configuration is rotated 180 degrees.
            mirrored = color is Color.BLACK
            if _side_matches(strong, position, color, mirrored) and _side_matches(
                weak, position, color.other, mirrored
            ):
                return color
    return None


def _side_matches(side: Side, position: Position, color: Color, mirrored: bool) -> bool:
    if position.count(color, kings=True) not in side.kings:
        return False
    if position.count(color, kings=False) not in side.men:
        return False
    g = position.variant.geometry
    own = position.white if color is Color.WHITE else position.black
    men = [sq for sq in g.squares_of(own & ~position.kings)]
    kings = [sq for sq in g.squares_of(own & position.kings)]
    if side.men_on:
        named = {_as_named(position, s, mirrored) for s in side.men_on if not s.startswith("+")}
        if not named <= set(men):
            return False
        rest = [sq for sq in men if sq not in named]
        if "+right_of_main_road" in side.men_on:
            if not all(_right_of_main_road(position, sq, mirrored) for sq in rest):
                return False
        elif rest:
            return False
    if side.king_on:
        on_road = sum(1 for k in kings if _on_main_road(position, k))
        on_double = sum(1 for k in kings if _on_double_line(position, k))
        if side.king_on == "main_road" and not on_road:
            return False
        if side.king_on == "double_lines" and not (on_road or on_double >= 2):
            return False
        if side.king_on == "main_road_and_double" and not (on_road and on_double):
            return False
    return True


def _as_named(position: Position, name: str, mirrored: bool) -> Square:
    """The square a rule names, rotated 180 degrees when Black is the stronger side."""
    g = position.variant.geometry
    sq = g.parse_square(name)
    if not mirrored:
        return sq
    r, c = g.rowcol(sq)
    rotated = g.square_at(g.size - 1 - r, g.size - 1 - c)
    assert rotated is not None
    return rotated


def _main_road(position: Position) -> set[Square]:
    """The long diagonal between the two double corners (a1-h8 on a dark-left board)."""
    g = position.variant.geometry
    n = g.size
    cells = [(n - 1 - i, i) for i in range(n)] if g.dark_parity == 1 else [(i, i) for i in range(n)]
    return {sq for r, c in cells if (sq := g.square_at(r, c)) is not None}


def _on_main_road(position: Position, sq: Square) -> bool:
    return sq in _main_road(position)


def _on_double_line(position: Position, sq: Square) -> bool:
    """The two double diagonals g1-a7 and h2-b8 (S1 §8.2.7), mirrored on dark-right boards."""
    g = position.variant.geometry
    r, c = g.rowcol(sq)
    n = g.size
    if g.dark_parity == 1:
        return abs(r - c) == 1
    return r + c in (n - 2, n)


def _right_of_main_road(position: Position, sq: Square, mirrored: bool) -> bool:
    """S1 §8.2.13 "right of the main road": file index > rank (digest §10.1); left of
    it when the configuration is rotated for Black."""
    g = position.variant.geometry
    r, c = g.rowcol(sq)
    rank = g.size - r  # 1-based
    file = c + 1
    return file < rank if mirrored else file > rank


__all__ = [
    "Count",
    "DrawCounters",
    "DrawRule",
    "DrawState",
    "DrawStatus",
    "Side",
    "Trigger",
    "advance",
    "draw_status",
    "material",
    "rules_for",
]

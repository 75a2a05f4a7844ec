"""Named irregularity hypotheses: what happened when no legal move explains the board.

The recorder calls :func:`explain` with the last known position and a stable picture
that no legal sequence explains. Each hypothesis builds the position it predicts and
compares it with the picture; the first that fits exactly (on every square read with
confidence) is the finding. Hypotheses are tried from the most specific to the most
general, so a missed capture is reported as such and not as "pieces displaced".

The arbiter never corrects: under FMJD and IDF rules only the opponent decides (I 5.4,
I 5.7; S1 §9.4, §9.6), so a finding carries the position now on the board and the
recorder goes on from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from rules.events import IrregularityKind
from rules.geometry import Bitboard, Square
from rules.move import Move
from rules.movegen import quiet_moves
from rules.picture import Picture
from rules.position import Position
from rules.variants import CaptureRule, Color, Variant

K = IrregularityKind
_MOST_DISPLACED_SQUARES = 4

# Articles per rule family: FMJD international (I), IDF draughts-64 and its annexes (S1),
# the column-draughts Code (§1.14). English checkers follows the IDF wording here.
_ARTICLES: dict[IrregularityKind, tuple[str, str, str]] = {
    K.ILLEGAL_MOVE: ("I 5.4.2 (I 3.4, 3.9)", "S1 §9.4.1", "§1.14"),
    K.CAPTURE_NOT_TAKEN: ("I 5.4.6 (I 4.1)", "S1 §9.4.6 (§5.3)", "§1.14 (§1.6)"),
    K.FEWER_CAPTURED: ("I 5.4.8 (I 4.13)", "S1 §9.4.8", "§1.14 (§1.6)"),
    K.CAPTURED_PIECE_LEFT: ("I 5.4.11", "S1 §9.4.11", "§1.14 (§1.6)"),
    K.WRONG_PIECE_REMOVED: ("I 5.4.12, 5.4.14", "S1 §9.4.12, §9.4.13", "§1.14 (§1.6)"),
    K.NOT_CROWNED: ("I 3.6", "S1 §3.7, §9.4", "§1.5.2"),
    K.KING_UNCROWNED: ("I 3.7, 5.4.7", "S1 §9.4.7", "§1.14"),
    K.OUT_OF_TURN: ("I 5.4.1, 5.4.5 (I 3.3)", "S1 §9.4.2, §9.4.5", "§1.14"),
    K.MOVE_TAKEN_BACK: ("I 5.4.4 (I 3.10)", "S1 §9.4.4 (§4.5)", "§1.14"),
    K.WRONG_SETUP: ("I 5.2 (I 2.8)", "S1 §9.2", "§1.14"),
    K.BOARD_ROTATED: ("I 5.1 (I 2.4)", "S1 §9.1", "§1.14"),
    K.PIECES_DISPLACED: ("I 5.5", "S1 §9.3", "§1.14.3"),
    K.PIECES_REMOVED: ("I 5.4.7", "S1 §9.4.7", "§1.14"),
}


def article(kind: IrregularityKind, variant: Variant) -> str:
    """The rule article for an irregularity in a variant's rule book."""
    international, draughts64, column = _ARTICLES[kind]
    if variant.towers:
        return column
    return international if variant.geometry.size == 10 else draughts64


@dataclass(frozen=True, slots=True)
class Finding:
    """An irregularity that explains the picture.

    ``after`` is the position on the board now (the recorder continues from it);
    ``is_move`` says whether a move was made, so that the ply count goes on;
    ``notation`` is what the move looked like (``32-27``), empty when no move was made.
    """

    kind: IrregularityKind
    evidence: str
    squares: tuple[Square, ...]
    after: Position
    is_move: bool
    notation: str = ""
    replacement: tuple[Move, ...] = ()
    """A move taken back and replaced: the legal plies played instead (``after`` follows
    them)."""


def explain(
    position: Position,
    picture: Picture,
    *,
    first_picture: bool = False,
    tolerate: Bitboard = 0,
    previous: Position | None = None,
) -> Finding | None:
    """The first named irregularity that turns ``position`` into ``picture``, or None.

    ``first_picture`` says no stable picture has been seen yet in this game (the set-up
    is being checked, I 5.2); ``tolerate`` marks kings that may look like men;
    ``previous`` is the position before the last move recorded, if there was one.
    """
    if previous is not None and previous != position:
        finding = _taken_back(position, previous, picture, tolerate)
        if finding is not None:
            return finding
    for hypothesis in _HYPOTHESES:
        if hypothesis is _wrong_setup and not first_picture:
            continue
        finding = hypothesis(position, picture, tolerate)
        if finding is not None:
            return finding
    return None


def _taken_back(p: Position, previous: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """The board is back where it was before the last move, which had been released and
    recorded (I 3.10, 5.4.4; S1 §4.5, §9.4.4), perhaps with another move played instead."""
    if _fits(pic, previous, tol):
        return Finding(K.MOVE_TAKEN_BACK, "the last move was taken back", (), previous, False)
    bits = p.variant.geometry.bits
    for m in previous.legal_moves():
        after = previous.play(m)
        if after != p and _fits(pic, after, tol | bits[m.path[-1]]):
            name = previous.move_name(m)
            return Finding(
                K.MOVE_TAKEN_BACK,
                f"the last move was taken back and {name} played instead",
                (m.path[0], m.path[-1]),
                after,
                is_move=False,
                replacement=(m,),
            )
    return None


def _names(position: Position, squares: list[Square] | tuple[Square, ...]) -> str:
    return ", ".join(position.variant.geometry.name(sq) for sq in squares)


def _fits(picture: Picture, position: Position, tolerate: Bitboard) -> bool:
    return picture.mismatch(position, tolerate) == 0


def _board_rotated(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """The board reads turned half a turn (I 2.4, 5.1).

    A half turn keeps the dark squares where they were, so what changed is where the
    camera's calibration puts square 1 against where the players sit; the arbiter checks
    the board's placement (a wrongly placed board annuls the game, I 5.1)."""
    turned = pic.rotated()
    if _fits(pic, p, tol) or not _fits(turned, p, tol) or turned.known == 0:
        return None
    return Finding(
        K.BOARD_ROTATED,
        "the board reads as the known position turned half a turn: White plays from the "
        "side the calibration gives to Black; check the board's placement",
        (),
        p,
        is_move=False,
    )


def _wrong_setup(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """The first picture is not the start position (I 5.2, S1 §9.2)."""
    wrong = p.variant.geometry.squares_of(pic.mismatch(p, tol))
    if not wrong:
        return None
    return Finding(
        K.WRONG_SETUP,
        f"the set-up differs from the start position on {_names(p, wrong)}",
        tuple(wrong),
        pic.position(p.turn, p),
        is_move=False,
    )


def _king_uncrowned(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """Kings read as men, nothing else changed (I 3.7: a king stays a king)."""
    g = p.variant.geometry
    wrong = pic.mismatch(p, tol)
    if not wrong or wrong & ~p.kings or wrong & pic.kings:
        return None
    if (pic.white ^ p.white) & wrong or (pic.black ^ p.black) & wrong:
        return None
    squares = g.squares_of(wrong)
    return Finding(
        K.KING_UNCROWNED,
        f"the king on {_names(p, squares)} now looks like a man",
        tuple(squares),
        p,
        is_move=False,
    )


def _free_captures(p: Position) -> Iterator[Move]:
    """Every capture the pieces could make, whatever the choice rule, and every route cut
    short after one of its jumps (I 4.13, 5.4.8, 5.4.9: fewer pieces than the rules ask)."""
    free = dataclasses.replace(p.variant, capture_rule=CaptureRule.FREE)
    loose = Position(free, p.white, p.black, p.kings, p.turn, p.below)
    seen: set[tuple[Square, Square, frozenset[Square]]] = set()
    for m in loose.legal_moves(keep_duplicates=True):
        if not m.captures:
            return
        for k in range(1, len(m.captures) + 1):
            part = _cut(p, m, k)
            if part.duplicate_key() not in seen:
                seen.add(part.duplicate_key())
                yield part


def _cut(p: Position, m: Move, k: int) -> Move:
    """The capture ``m`` stopped after ``k`` jumps (a man stopping on its last row is crowned)."""
    if k == len(m.captures):
        return Move(m.path, m.captures, m.promotes, p.variant)
    to = m.path[k]
    piece = p.piece_at(m.path[0])
    assert piece is not None
    promotes = not piece.king and p.variant.geometry.rowcol(to)[0] == p.variant.promotion_row(
        piece.color
    )
    return Move(m.path[: k + 1], m.captures[:k], promotes, p.variant)


def _fewer_captured(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """A capture that took fewer pieces than the rules require (I 5.4.8, 5.4.9)."""
    legal = {p.play(m) for m in p.legal_moves() if m.captures}
    if not legal:
        return None
    most = max(len(m.captures) for m in p.legal_moves())
    bits = p.variant.geometry.bits
    for m in _free_captures(p):
        after = p.play(m)
        if after in legal or not _fits(pic, after, tol | bits[m.path[-1]]):
            continue
        return Finding(
            K.FEWER_CAPTURED,
            f"{m.notation(full=True)} took {len(m.captures)} piece(s); "
            f"the rules require a capture of {most}",
            (*m.path, *m.captures),
            after,
            is_move=True,
            notation=m.notation(full=True),
        )
    return None


def _capture_removals(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """A legal capture, but captured pieces left on the board or other pieces removed
    in their place (I 5.4.11, 5.4.12, 5.4.14; S1 §9.4.11-13)."""
    g = p.variant.geometry
    bits = g.bits
    for m in p.legal_moves():
        if not m.captures:
            return None
        after = p.play(m)
        wrong = pic.mismatch(after, tol | bits[m.path[-1]])
        if not wrong:
            continue
        captured = g.mask_of(m.captures)
        left = wrong & captured
        # a captured square still showing the piece that stood there
        if pic.mismatch(p, tol) & left:
            continue
        removed = wrong & ~captured
        if removed & (pic.white | pic.black) or removed & ~(after.white | after.black):
            continue
        name = p.move_name(m)
        if not removed:
            squares = g.squares_of(left)
            return Finding(
                K.CAPTURED_PIECE_LEFT,
                f"{name} was played but the captured piece(s) on {_names(p, squares)} "
                "are still on the board",
                tuple(squares),
                pic.position(after.turn, after),
                is_move=True,
                notation=name,
            )
        squares = g.squares_of(removed)
        return Finding(
            K.WRONG_PIECE_REMOVED,
            f"{name} was played but {_names(p, squares)} was removed"
            + (f" instead of {_names(p, g.squares_of(left))}" if left else ""),
            tuple(g.squares_of(wrong)),
            pic.position(after.turn, after),
            is_move=True,
            notation=name,
        )
    return None


def _plain_moves(p: Position) -> list[Move]:
    """Moves the pieces could make if no capture were compulsory.

    Uses the move generator's quiet-move routine: the rules core offers no public way
    to ask for plain moves in a position where a capture is compulsory.
    """
    white = p.turn is Color.WHITE
    me, opp = (p.white, p.black) if white else (p.black, p.white)
    return quiet_moves(p.variant, me, opp, p.kings, white)


def _capture_not_taken(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """A plain move while a capture was compulsory (I 4.1, 5.4.6; S1 §5.3, §9.4.6)."""
    legal = p.legal_moves()
    if not legal or not legal[0].captures:
        return None
    bits = p.variant.geometry.bits
    for m in _plain_moves(p):
        after = p.play(m)
        if _fits(pic, after, tol | bits[m.path[-1]]):
            captures = ", ".join(sorted({p.move_name(c, legal) for c in legal}))
            return Finding(
                K.CAPTURE_NOT_TAKEN,
                f"{m} was played while a capture was compulsory ({captures})",
                (m.path[0], m.path[-1]),
                after,
                is_move=True,
                notation=str(m),
            )
    return None


def _out_of_turn(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """The side not on move moved (two moves in a row, or an opponent's piece moved:
    the camera cannot tell them apart; I 5.4.1, 5.4.5; S1 §9.4.2, §9.4.5)."""
    other = Position(p.variant, p.white, p.black, p.kings, p.turn.other, p.below)
    bits = p.variant.geometry.bits
    for m in other.legal_moves():
        after = other.play(m)
        if _fits(pic, after, tol | bits[m.path[-1]]):
            name = other.move_name(m)
            return Finding(
                K.OUT_OF_TURN,
                f"{p.turn.other.name.lower()} played {name} while "
                f"{p.turn.name.lower()} was to move",
                (m.path[0], m.path[-1]),
                after,
                is_move=True,
                notation=name,
            )
    return None


def _illegal_move(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """One piece of the side to move went where no move takes it (I 3.4, 5.4.2; S1 §9.4.1),
    perhaps removing opponent pieces on the way."""
    g = p.variant.geometry
    white = p.turn is Color.WHITE
    mine, theirs = (p.white, p.black) if white else (p.black, p.white)
    pic_mine, pic_theirs = (pic.white, pic.black) if white else (pic.black, pic.white)
    known = pic.known
    vacated = mine & ~pic_mine & ~pic_theirs & known
    arrived = ~(mine | theirs) & pic_mine & known
    removed = theirs & ~pic_theirs & ~pic_mine & known
    if vacated.bit_count() != 1 or arrived.bit_count() != 1:
        return None
    changed = pic.mismatch(p, tol)
    if changed & ~(vacated | arrived | removed):
        return None
    frm, to = g.squares_of(vacated)[0], g.squares_of(arrived)[0]
    sep = p.variant.capture_separator if removed else "-"
    notation = f"{g.name(frm)}{sep}{g.name(to)}"
    taken = g.squares_of(removed)
    return Finding(
        K.ILLEGAL_MOVE,
        f"{notation} is not a legal move"
        + (f" (and {_names(p, taken)} was removed)" if taken else ""),
        (frm, to, *taken),
        pic.position(p.turn.other, p),
        is_move=True,
        notation=notation,
    )


def _pieces_removed(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """Pieces taken off the board, nothing moved (I 5.4.7; S1 §9.4.7)."""
    wrong = pic.mismatch(p, tol)
    if not wrong or wrong & (pic.white | pic.black) or wrong & ~(p.white | p.black):
        return None
    squares = p.variant.geometry.squares_of(wrong)
    return Finding(
        K.PIECES_REMOVED,
        f"piece(s) on {_names(p, squares)} were removed without a capture",
        tuple(squares),
        pic.position(p.turn, p),
        is_move=False,
    )


def _pieces_displaced(p: Position, pic: Picture, tol: Bitboard) -> Finding | None:
    """The same pieces, on other squares (S1 §9.3, I 5.5): the offender restores them.

    Two pieces at most: a board rearranged further is more likely a game that ran on
    unseen, and is reported as unexplained rather than blamed on a player."""
    wrong = pic.mismatch(p, tol)
    if not wrong or wrong.bit_count() > _MOST_DISPLACED_SQUARES:
        return None
    seen = Picture.of_position(p)
    before = [seen.top(sq) for sq in p.variant.geometry.squares_of(wrong)]
    after = [pic.top(sq) for sq in p.variant.geometry.squares_of(wrong)]
    if sorted(t for t in before if t) != sorted(t for t in after if t):
        return None
    squares = p.variant.geometry.squares_of(wrong)
    return Finding(
        K.PIECES_DISPLACED,
        f"pieces on {_names(p, squares)} changed places without a move",
        tuple(squares),
        pic.position(p.turn, p),
        is_move=False,
    )


_HYPOTHESES = (
    _board_rotated,
    _wrong_setup,
    _king_uncrowned,
    _capture_not_taken,
    _fewer_captured,
    _capture_removals,
    _out_of_turn,
    _illegal_move,
    _pieces_removed,
    _pieces_displaced,
)

"""Positions: what stands on every square, and whose turn it is.

A position is an immutable value. The top piece of every square lives in three
bitboards (``white``, ``black``, ``kings``: the owner and rank of the top piece); in
column draughts the pieces *under* each top live in ``below``. Playing a move returns a
new position, so the recorder can hold and compare as many successors as it likes.

FEN follows PDN 3.0 (``W:W31-50:B1-20``, ``K`` before a king's square). Towers use a
damcam extension: the square is followed by the whole tower in brackets, top first,
``W:Wc1(Wbbbb):Ba1(BBbBbBW)`` (see docs/towers.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import IntFlag

from rules.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError, InvalidMoveError
from rules.geometry import Bitboard, Square
from rules.move import Move
from rules.movegen import legal_moves
from rules.pieces import Piece, Stack, parse_stack, stack_string
from rules.variants import Color, Variant

# Enum members as plain globals: ``Color.WHITE`` costs ten times a global lookup in
# Python 3.11, and play() runs in every search node.
_WHITE, _BLACK = Color.WHITE, Color.BLACK


class Status(IntFlag):
    """Every fault of a position, as flags (empty: the position can occur in a game)."""

    VALID = 0
    TOO_MANY_PIECES = 1
    """More pieces of one colour than the variant starts with."""
    MAN_ON_PROMOTION_ROW = 2
    """A man stands on the row where it should have been crowned."""
    NO_PIECES = 4
    """A side has no piece at all (the game is over)."""
    BAD_TOWER = 8
    """A tower that no sequence of captures can build (column draughts)."""
    TOWER_IN_DRAUGHTS = 16
    """More than one piece on a square in a variant without towers."""


class Position:
    """A board and the side to move. Immutable; equal positions hash equal.

    >>> from rules.variants import INTERNATIONAL
    >>> p = Position.initial(INTERNATIONAL)
    >>> len(p.legal_moves()), p.fen()
    (9, 'W:W31-50:B1-20')
    """

    # Read-only properties over private slots: plain attribute stores in __init__ are
    # several times faster than object.__setattr__, and positions are made in every
    # search node.
    __slots__ = ("_below", "_black", "_kings", "_turn", "_variant", "_white")

    def __init__(
        self,
        variant: Variant,
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Color,
        below: tuple[Stack, ...] = (),
    ) -> None:
        self._variant = variant
        self._white = white
        self._black = black
        self._kings = kings
        self._turn = turn
        self._below = below

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def white(self) -> Bitboard:
        """Squares whose top piece is White's."""
        return self._white

    @property
    def black(self) -> Bitboard:
        """Squares whose top piece is Black's."""
        return self._black

    @property
    def kings(self) -> Bitboard:
        """Squares whose top piece is a king (either colour)."""
        return self._kings

    @property
    def turn(self) -> Color:
        return self._turn

    @property
    def below(self) -> tuple[Stack, ...]:
        """Column draughts: the pieces under each square's top, by square (else empty)."""
        return self._below

    @property
    def towers(self) -> Bitboard:
        """Column draughts: the squares whose top has pieces under it (else 0)."""
        bits = self.variant.geometry.bits
        return sum((bits[sq] for sq, under in enumerate(self._below) if under), 0)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.white == other.white
            and self.black == other.black
            and self.kings == other.kings
            and self.turn is other.turn
            and self.below == other.below
            and self.variant.name == other.variant.name
        )

    def __hash__(self) -> int:
        # Computed on demand rather than stored: a search makes far more positions than
        # it hashes.
        return hash((self.variant.name, self.white, self.black, self.kings, self.turn, self.below))

    def __repr__(self) -> str:
        return f"Position.from_fen({self.variant.name!r}, {self.fen()!r})"

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def initial(cls, variant: Variant) -> Position:
        from rules.movegen import tables

        g = variant.geometry
        white, black = tables(variant).start_masks
        below: tuple[Stack, ...] = ((),) * g.square_count if variant.towers else ()
        return cls(variant, white, black, 0, variant.first_to_move, below)

    @classmethod
    def from_stacks(cls, variant: Variant, stacks: dict[Square, Stack], turn: Color) -> Position:
        """Build a position from the stack (top first) on each occupied square."""
        g = variant.geometry
        white = black = kings = 0
        below: list[Stack] = [()] * g.square_count
        for sq, stack in stacks.items():
            if not stack:
                continue
            if not 0 <= sq < g.square_count:
                raise ValueError(f"square index {sq} is not on the {variant.name} board")
            top, bit = stack[0], g.bits[sq]
            if top.color is Color.WHITE:
                white |= bit
            else:
                black |= bit
            if top.king:
                kings |= bit
            if len(stack) > 1 and not variant.towers:
                raise ValueError(
                    f"square {g.name(sq)} holds {len(stack)} pieces, "
                    f"but {variant.name} has no towers"
                )
            below[sq] = stack[1:]
        return cls(variant, white, black, kings, turn, tuple(below) if variant.towers else ())

    # -- reading ----------------------------------------------------------------------------

    def piece_at(self, square: Square) -> Piece | None:
        """The top piece of a square, or None."""
        bit = self.variant.geometry.bits[square]
        if self.white & bit:
            return Piece(Color.WHITE, bool(self.kings & bit))
        if self.black & bit:
            return Piece(Color.BLACK, bool(self.kings & bit))
        return None

    def stack(self, square: Square) -> Stack:
        """All pieces on a square, top first (empty tuple for an empty square)."""
        top = self.piece_at(square)
        if top is None:
            return ()
        return (top, *self.below[square]) if self.below else (top,)

    def stacks(self) -> Iterator[tuple[Square, Stack]]:
        """Occupied squares in reading order with their stacks."""
        for sq in self.variant.geometry.squares:
            st = self.stack(sq)
            if st:
                yield sq, st

    def count(self, color: Color, *, kings: bool | None = None) -> int:
        """Pieces of a colour on top of their squares (men, kings, or both)."""
        mask = self.white if color is Color.WHITE else self.black
        if kings is True:
            mask &= self.kings
        elif kings is False:
            mask &= ~self.kings
        return mask.bit_count()

    # -- moves ------------------------------------------------------------------------------

    def legal_moves(self, *, keep_duplicates: bool = False) -> list[Move]:
        if self.variant.towers:
            from rules import columns

            return columns.legal_moves(self, keep_duplicates=keep_duplicates)
        return legal_moves(self, keep_duplicates=keep_duplicates)

    def is_game_over(self) -> bool:
        """No legal move: the side to move has lost (I 7.1, S1 §8.1)."""
        return not self.legal_moves()

    def play(self, move: Move) -> Position:
        """The position after a move, which must come from :meth:`legal_moves` (unchecked;
        a column-draughts move is checked square by square, see :func:`rules.columns.play`)."""
        variant = self._variant
        if variant.towers:
            from rules import columns

            return columns.play(self, move)
        bits = variant.geometry.bits
        path = move.path
        frm, to = bits[path[0]], bits[path[-1]]
        taken = 0
        for sq in move.captures:
            taken |= bits[sq]
        kings = self._kings
        was_king = kings & frm
        kings &= ~(frm | taken)
        if was_king or move.promotes:
            kings |= to
        if self._turn is _WHITE:
            return Position(variant, (self._white & ~frm) | to, self._black & ~taken, kings, _BLACK)
        return Position(variant, self._white & ~taken, (self._black & ~frm) | to, kings, _WHITE)

    def push_text(self, text: str) -> Position:
        return self.play(self.parse_move(text))

    def move_name(self, move: Move, moves: list[Move] | None = None) -> str:
        """The move in official notation, with every landing square only when another legal
        capture shares its start and end (I 9.3, S1 §6.9)."""
        if self.variant.towers:
            from rules import column_notation

            return column_notation.move_name(self, move, moves)
        if not move.captures:
            return move.notation()
        moves = self.legal_moves() if moves is None else moves
        twins = [
            m
            for m in moves
            if m.path[0] == move.path[0] and m.path[-1] == move.path[-1] and m != move
        ]
        return move.notation(full=bool(twins))

    def parse_move(self, text: str) -> Move:
        """Move from text (``32-28``, ``19x30``, ``c3:e5:g3``, ``28x19x10``, ``d8D``).

        Accepts any in-order subset of the landing squares, ``-``/``x``/``:`` alike.
        Raises :class:`InvalidMoveError` for text that names no squares,
        :class:`IllegalMoveError` if no legal move fits, :class:`AmbiguousMoveError` if
        several do and they lead to different positions. Column draughts read the Code's
        notation (:func:`rules.column_notation.parse_move`).
        """
        if self.variant.towers:
            from rules import column_notation

            return column_notation.parse_move(self, text)
        matches = self.matching_moves(text)
        if not matches:
            raise IllegalMoveError(f"illegal move: {text!r} in {self.fen()}")
        after = {self.play(m) for m in matches}
        if len(after) > 1:
            options = ", ".join(self.move_name(m) for m in matches)
            raise AmbiguousMoveError(
                f"ambiguous move: {text!r} in {self.fen()} (could be {options})"
            )
        return matches[0]

    def matching_moves(self, text: str) -> list[Move]:
        """Every legal move that the text can name (see :meth:`parse_move`); only those
        whose route it gives in full, where some do.

        Raises :class:`InvalidMoveError` for text that names no squares.
        """
        cleaned = text.strip().rstrip("!?+#*").replace(" ", "")
        parts = [p for p in re.split(r"[-x:×]", cleaned) if p]
        if len(parts) < 2:
            raise InvalidMoveError(f"not a move: {text!r}")
        try:
            squares = [self._parse_square_token(p) for p in parts]
        except ValueError as exc:
            raise InvalidMoveError(f"not a move: {text!r} ({exc})") from None
        moves = self.legal_moves()
        fits = [m for m in moves if _route_fits(m, squares)]
        # Text that lists a capture's every landing names that capture, though it is also
        # a shortened form of a longer route between the same squares (russian: h4:f6:h8
        # beside h4:f6:d8:b6:d4:h8, crowned on d8); I 9.3 writes such twins in full.
        exact = [m for m in fits if list(m.path) == squares]
        if exact:
            return exact
        if fits or not moves or not moves[0].captures:
            return fits
        # The text may name the landing squares of a duplicate route that move generation
        # dropped (same pieces, same end: one move, I 4.10 note); map it to the kept one.
        kept = {m.duplicate_key(): m for m in moves}
        twins = self.legal_moves(keep_duplicates=True)
        return list({kept[m.duplicate_key()]: None for m in twins if _route_fits(m, squares)})

    def _parse_square_token(self, token: str) -> Square:
        g = self.variant.geometry
        token = token.rstrip("Dd") if len(token) > 1 and token[-1] in "Dd" and token[:-1] else token
        if token.isdigit():
            return g.numeric_square(int(token))
        return g.parse_square(token)

    # -- validity -------------------------------------------------------------------------------

    def status(self) -> Status:
        """Every fault of the position (python-chess style); ``Status.VALID`` if none."""
        v, g = self.variant, self.variant.geometry
        st = Status.VALID
        per_side = len(v.start_squares[0])
        for color in (Color.WHITE, Color.BLACK):
            total = sum(1 for _sq, stack in self.stacks() for p in stack if p.color is color)
            if total > per_side:
                st |= Status.TOO_MANY_PIECES
            if self.count(color) == 0:
                st |= Status.NO_PIECES
            men = (self.white if color is Color.WHITE else self.black) & ~self.kings
            if men & g.row_mask(v.promotion_row(color)):
                st |= Status.MAN_ON_PROMOTION_ROW
        if v.towers:
            from rules import columns

            if any(not columns.tower_possible(stack) for _sq, stack in self.stacks()):
                st |= Status.BAD_TOWER
        return st

    def is_valid(self) -> bool:
        return self.status() == Status.VALID

    # -- FEN ------------------------------------------------------------------------------------

    def fen(self) -> str:
        """PDN 3.0 FEN, with runs of three or more men written as ranges in numeric notation."""
        parts = [self.turn.letter]
        for color in (Color.WHITE, Color.BLACK):
            parts.append(color.letter + ",".join(self._fen_squares(color)))
        return ":".join(parts)

    def _fen_squares(self, color: Color) -> list[str]:
        g = self.variant.geometry
        entries: list[tuple[int, str, bool]] = []  # (sort key, text, can join a range)
        for sq, stack in self.stacks():
            if stack[0].color is not color:
                continue
            name = g.name(sq)
            key = int(name) if name.isdigit() else sq
            if len(stack) > 1:
                entries.append((key, f"{name}({stack_string(stack)})", False))
            elif stack[0].king:
                entries.append((key, f"K{name}", False))
            else:
                entries.append((key, name, name.isdigit()))
        entries.sort()
        out: list[str] = []
        i = 0
        while i < len(entries):
            j = i
            while (
                j + 1 < len(entries)
                and entries[i][2]
                and entries[j + 1][2]
                and entries[j + 1][0] == entries[j][0] + 1
            ):
                j += 1
            if j - i >= 2:
                out.append(f"{entries[i][1]}-{entries[j][1]}")
            else:
                out.extend(e[1] for e in entries[i : j + 1])
            i = j + 1
        return out

    @classmethod
    def from_fen(cls, variant: Variant | str, fen: str) -> Position:
        """Read a PDN FEN (numeric or algebraic squares, ranges, K for kings, towers).

        Raises :class:`InvalidFenError` naming the FEN and the part at fault.
        """
        if isinstance(variant, str):
            from rules.variants import find_variant

            variant = find_variant(variant)
        g = variant.geometry
        text = fen.strip().strip('"').rstrip(".").strip()
        if not variant.towers and (quick := _plain_fen(variant, text)) is not None:
            return quick
        fields = [f.strip() for f in text.split(":")]
        if len(fields) < 2 or fields[0].upper() not in ("W", "B", "?"):
            raise InvalidFenError(f"bad FEN {fen!r}: expected 'W:W...:B...' or 'B:W...:B...'")
        turn_letter = fields[0].upper()
        turn = (
            variant.first_to_move
            if turn_letter == "?"
            else (Color.WHITE if turn_letter == "W" else Color.BLACK)
        )
        stacks: dict[Square, Stack] = {}
        for field in fields[1:]:
            if not field:
                continue
            letter = field[0].upper()
            if letter not in ("W", "B"):
                raise InvalidFenError(
                    f"bad FEN {fen!r}: side field {field!r} must start with W or B"
                )
            color = Color.WHITE if letter == "W" else Color.BLACK
            for token in filter(None, (t.strip() for t in field[1:].split(","))):
                try:
                    for sq, stack in _fen_token(variant, token, color):
                        if sq in stacks:
                            raise ValueError(f"square {g.name(sq)} is given twice")
                        stacks[sq] = stack
                except ValueError as exc:
                    raise InvalidFenError(f"bad FEN {fen!r}: {token!r}: {exc}") from None
        try:
            return cls.from_stacks(variant, stacks, turn)
        except ValueError as exc:
            raise InvalidFenError(f"bad FEN {fen!r}: {exc}") from None


def _plain_fen(variant: Variant, text: str) -> Position | None:
    """The common FEN (official square names, ``K`` for kings, no ranges or towers) read
    straight into bitboards; None for anything else, which the full reader handles."""
    fields = text.split(":")
    if len(fields) != 3 or fields[0] not in ("W", "B"):
        return None
    from rules.movegen import tables

    names, bits = tables(variant).square_by_name, variant.geometry.bits
    boards = [0, 0]
    kings = 0
    for field, side in zip(fields[1:], ("W", "B"), strict=True):
        if field[:1] != side:
            return None
        if len(field) == 1:
            continue
        for token in field[1:].split(","):
            king = token[:1] == "K"
            sq = names.get(token[1:] if king else token)
            if sq is None:
                return None
            bit = bits[sq]
            if (boards[0] | boards[1]) & bit:
                return None  # given twice: the full reader explains the error
            boards[side == "B"] |= bit
            if king:
                kings |= bit
    turn = Color.WHITE if fields[0] == "W" else Color.BLACK
    return Position(variant, boards[0], boards[1], kings, turn)


_TOKEN = re.compile(r"^(K?)([A-Za-z]?\d+)(?:-(K?)([A-Za-z]?\d+))?(?:\(([wbWB]+)\))?$")


def _fen_token(variant: Variant, token: str, color: Color) -> list[tuple[Square, Stack]]:
    g = variant.geometry
    m = _TOKEN.match(token)
    if not m:
        raise ValueError("not a square, range or tower")
    king, first, _king2, last, tower = m.groups()

    def square(name: str) -> Square:
        return g.numeric_square(int(name)) if name.isdigit() else g.parse_square(name)

    if tower:
        if last is not None:
            raise ValueError("a tower belongs to one square, not a range")
        stack = parse_stack(tower)
        if king and not stack[0].king:
            raise ValueError(f"K before a tower {tower!r} whose top is a man")
        if variant.towers:
            from rules.columns import tower_possible

            if not tower_possible(stack):
                raise ValueError(f"no capture can build the tower {tower!r} (digest 2.4)")
        if stack[0].color is not color:
            raise ValueError(
                f"tower {tower!r} has a {stack[0].color.name.lower()} top in {color.name}'s list"
            )
        return [(square(first), stack)]
    piece = Piece(color, bool(king))
    if last is None:
        return [(square(first), (piece,))]
    if not (first.isdigit() and last.isdigit()):
        raise ValueError("ranges need numeric squares")
    lo, hi = int(first), int(last)
    if lo > hi:
        raise ValueError(f"empty range {lo}-{hi}")
    return [(square(str(n)), (piece,)) for n in range(lo, hi + 1)]


def _route_fits(move: Move, squares: list[Square]) -> bool:
    """Whether the named squares are the move's start, end, and an in-order subset of the rest."""
    path = move.path
    if squares[0] != path[0] or squares[-1] != path[-1]:
        return False
    if len(squares) == 2:
        return True
    it = iter(path[1:-1])
    return all(any(sq == p for p in it) for sq in squares[1:-1])

"""A game: start position, moves, the history of positions, tags, result, draw counters.

``Game`` is the mutable record the recorder appends to (python-chess's ``Board`` keeps a
move stack the same way): :meth:`Game.push` checks a move against the legal moves and
either applies it whole or raises and leaves the game as it was; :meth:`Game.pop` takes
the last move back. Every position of the history is kept (positions are immutable and
small), with the draw counters after it, so repetition and the move-count rules of
:mod:`rules.draws` are answered without replaying.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

from rules.draws import DrawCounters, DrawState, DrawStatus, advance, draw_status
from rules.errors import IllegalMoveError, PDNError, RulesError
from rules.move import Move
from rules.position import Position
from rules.variants import Color, Variant, find_variant

if TYPE_CHECKING:
    from rules.pdn import BaseVisitor

_T = TypeVar("_T")

RESULTS = ("2-0", "0-2", "1-1", "0-0", "*")
"""PDN 3.0 result tokens: win for White, win for Black, draw, double forfeit, unknown."""


class Termination(Enum):
    """Why the game is over on the board (nothing to do with resignations or clocks)."""

    NO_MOVES = "no_moves"
    """The side to move has no piece or no legal move and loses (I 7.2.2-7.2.3, S1 §8.1)."""
    DRAW_RULE = "draw_rule"
    """A draw rule declares the game drawn (see :mod:`rules.draws`)."""


@dataclass
class Game:
    """A game record.

    >>> from rules.variants import INTERNATIONAL
    >>> g = Game(INTERNATIONAL)
    >>> str(g.push("32-28")), str(g.push("19-23")), g.ply
    ('32-28', '19-23', 2)
    >>> str(g.pop()), g.ply
    ('19-23', 1)
    """

    variant: Variant
    start: Position | None = None
    """The start position; None means the variant's initial position."""
    tags: dict[str, str] = field(default_factory=dict)
    """PDN tags in order (Event, Site, Date, Round, White, Black, Result, ...)."""
    result: str = "*"
    comments: dict[int, str] = field(default_factory=dict)
    """Comment after ply ``k`` (``0``: before the first move)."""
    nags: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Annotation marks after ply ``k`` (``!``, ``?!``, ``$3``)."""
    errors: list[PDNError] = field(default_factory=list)
    """Problems met while reading the game from PDN (the reader collects, not raises)."""
    warnings: list[str] = field(default_factory=list)
    """Doubts the reader resolved (an ambiguous last move, kept in its first reading)."""
    moves: list[Move] = field(default_factory=list, init=False)
    positions: list[Position] = field(default_factory=list, init=False)
    """Every position from the start: ``positions[k]`` is the one before move ``k``."""
    notations: list[str] = field(default_factory=list, init=False)
    """Each move in official notation, as it was named in its position."""
    counters: list[DrawCounters] = field(default_factory=list, init=False)
    """Draw-rule counters after each position of ``positions``."""

    def __post_init__(self) -> None:
        if self.start is None:
            self.start = Position.initial(self.variant)
        elif self.start.variant != self.variant:
            raise ValueError(
                f"start position is {self.start.variant.name}, game is {self.variant.name}"
            )
        self.positions = [self.start]
        self.counters = [DrawCounters()]

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_moves(
        cls,
        variant: Variant | str,
        moves: Iterable[Move | str],
        *,
        start: Position | str | None = None,
        tags: dict[str, str] | None = None,
    ) -> Game:
        """A game from moves (``Move`` values or notation), raising at the first bad one.

        :raises IllegalMoveError, InvalidMoveError, AmbiguousMoveError: naming the ply.
        """
        v = find_variant(variant) if isinstance(variant, str) else variant
        if isinstance(start, str):
            start = Position.from_fen(v, start)
        game = cls(v, start, dict(tags or {}))
        for move in moves:
            game.push(move)
        return game

    # -- the move stack ---------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def ply(self) -> int:
        """Moves played so far (half-moves)."""
        return len(self.moves)

    @property
    def move_number(self) -> int:
        """The PDN move number of the next move (counted from the start position's side)."""
        assert self.start is not None
        first = self.start.turn is self.variant.first_to_move
        return (self.ply + (0 if first else 1)) // 2 + 1

    def push(self, move: Move | str) -> Move:
        """Play a legal move (a ``Move`` or its notation) and return it as generated.

        :raises IllegalMoveError: the move is not legal here (message names ply and FEN);
            also :class:`InvalidMoveError` / :class:`AmbiguousMoveError` for text. The game
            is unchanged when it raises.
        """
        position = self.position
        legal = None
        if isinstance(move, str):
            try:
                chosen = position.parse_move(move)
            except RulesError as exc:
                raise type(exc)(f"ply {self.ply + 1}: {exc}") from None
        else:
            legal = position.legal_moves()
            found = [m for m in legal if m.path == move.path and m.captures == move.captures]
            if not found:
                found = [
                    m for m in legal if m.duplicate_key() == move.duplicate_key()
                ]  # the same capture by another route (a duplicate dropped by movegen)
            if not found:
                raise IllegalMoveError(
                    f"ply {self.ply + 1}: illegal move {move.notation(full=True)!r} "
                    f"in {position.fen()}"
                )
            chosen = found[0]
        name = position.move_name(chosen, legal)
        after = position.play(chosen)
        self.counters.append(advance(self.counters[-1], position, chosen, after))
        self.positions.append(after)
        self.moves.append(chosen)
        self.notations.append(name)
        return chosen

    def pop(self) -> Move:
        """Take back the last move and return it (with its comment and marks).

        :raises IndexError: no move to take back.
        """
        if not self.moves:
            raise IndexError("pop from a game without moves")
        ply = self.ply
        self.comments.pop(ply, None)
        self.nags.pop(ply, None)
        self.positions.pop()
        self.counters.pop()
        self.notations.pop()
        return self.moves.pop()

    # -- state ------------------------------------------------------------------------------

    def draw_status(self) -> DrawStatus:
        """Whether a draw rule is reached or claimable in the current position."""
        return draw_status(self.positions, self.counters)

    def draws_by_moving(self) -> list[tuple[Move, DrawStatus]]:
        """The legal moves after which a draw rule would hold, with what it would say.

        Under S1 §8.2.3 and column Code §1.13.2 a player who means to play a move that
        repeats the position for the third time writes it down and claims *before*
        playing it; this is what an arbiter's screen offers him.
        """
        position = self.position
        found = []
        for move in position.legal_moves():
            after = position.play(move)
            counters = advance(self.counters[-1], position, move, after)
            status = draw_status([*self.positions, after], [*self.counters, counters])
            if status:
                found.append((move, status))
        return found

    def termination(self) -> Termination | None:
        """Why the game is over on the board, or None while it goes on."""
        if not self.position.legal_moves():
            return Termination.NO_MOVES
        if self.draw_status().state is DrawState.REACHED:
            return Termination.DRAW_RULE
        return None

    def board_result(self) -> str:
        """The result the board shows: a win when the side to move cannot move, a draw
        when a rule declares it, else ``*`` (resignations and agreements are not seen)."""
        ended = self.termination()
        if ended is Termination.NO_MOVES:
            return "0-2" if self.position.turn is Color.WHITE else "2-0"
        if ended is Termination.DRAW_RULE:
            return "1-1"
        return "*"

    def pdn(self, *, columns: int = 80) -> str:
        """The game as PDN 3.0 text (see :class:`rules.pdn.StringExporter`)."""
        from rules.pdn import StringExporter

        return self.accept(StringExporter(columns=columns))

    def accept(self, visitor: BaseVisitor[_T]) -> _T:
        """Walk the game with a PDN visitor (tags, moves, comments, result)."""
        from rules.pdn import walk

        return walk(self, visitor)

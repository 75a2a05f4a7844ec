"""PDN 3.0 reading and writing through visitors (python-chess's ``chess.pgn`` design).

:func:`read_game` reads one game from a text handle and returns a :class:`Game` (or
None at the end of the file); problems are collected on ``game.errors`` rather than
raised, and replay stops at the first move that cannot be played. :func:`iter_games`
numbers the games of a file. Writers are visitors too: ``game.accept(StringExporter())``.

The reader follows the PDN 3.0 *reading* grammar (pdn.fmjd.org, "PDN Grammars"): tags
``[Name "value"]``, comments ``{...}`` (not nested), variations ``(...)`` (skipped when
replaying), ``%`` line escapes, NAGs ``$n``, move strengths ``!?`` and ``(!?)``, move
numbers ``1.`` / ``1...`` and the placeholder ``...``, captures with ``x`` or ``:``,
numeric (leading zeros allowed) or algebraic squares (``a3b4`` without a separator too),
results ``2-0 1-1 0-2 0-0 *`` and the chess forms ``1-0 1/2-1/2 0-1``, FEN set-ups by tag
or by ``/FEN "..."/`` before the first move, and GameType numbers including the long form
``20,W,10,10,N1,0``.

Variant of a game without GameType: the caller's default if given, else inferred from the
text (:func:`infer_variant`): algebraic squares mean Russian (or Czech, Brazilian, Pool if
only those replay the moves); a square above 32 means international; otherwise English,
or Italian when the tags are Italian (Bianco/Nero/...) or White opens from squares 21-32.
Moves that fit two captures are kept as several readings until later moves decide
(:class:`GameBuilder`). Two grammar faults real files show are reported: a move number
without a move (``1. 2-0``) and two games with no result between them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TextIO, TypeVar

from rules.errors import AmbiguousMoveError, PDNError, RulesError
from rules.game import Game
from rules.move import Move
from rules.position import Position
from rules.variants import VARIANTS, Variant, variant_for_gametype

ResultT = TypeVar("ResultT")

RESULT_ALIASES = {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}
"""Chess-style results found in older PDN files, mapped to draughts results."""

TAG_ORDER = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "GameType", "FEN")
"""The tags a tournament record needs, written first and in this order."""

_MAX_READINGS = 16
_JOINED = re.compile(r"^[a-hA-H][1-8][a-hA-H][1-8]$")
_ITALIAN_TAGS = {"bianco", "nero", "risultato", "evento", "luogo", "data", "turno"}

_TOKEN = re.compile(
    r"""
     (?P<ws>\s+)
    |(?P<escape>(?:(?<=\n)|\A)%[^\n]*|;[^\n]*)
    |(?P<comment>\{[^}]*\})
    |(?P<open_comment>\{)
    |(?P<tag>\[\s*(?P<name>[A-Za-z][A-Za-z0-9_]*)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
    |(?P<result>(?:2-0|0-2|1-1|0-0|1-0|0-1|1/2-1/2)(?![\w/-])|\*)
    |(?P<setup>/\s*FEN\s*"(?P<setupfen>[^"]*)"\s*/)
    |(?P<number>\d+\.(?:\.\.)?)
    |(?P<ellipsis>\.\.\.)
    |(?P<move>(?:(?:[a-hA-H][1-8]|\d{1,2})D?(?:[ ]?[-x:×][ ]?(?:[a-hA-H][1-8]|\d{1,2})D?)+
              |[a-h][1-8][a-h][1-8])(?P<strength>[!?]+|\([!?]+\))?)
    |(?P<nag>\$\d+)
    |(?P<mark>[!?]+|\([!?]+\))
    |(?P<open>\()
    |(?P<close>\))
    |(?P<bad>[^\s{}()\[\]]+|\S)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    value: str = ""
    """The tag value, comment body, set-up FEN or move strength."""
    name: str = ""
    """The tag name."""


# -- visitors -------------------------------------------------------------------------------


class BaseVisitor(Generic[ResultT]):
    """Receives a game part by part; override what you need (python-chess's BaseVisitor).

    The reader calls: ``begin_game``, ``visit_tag`` for each tag, ``end_tags``, then the
    movetext in order (``visit_move``, ``visit_comment``, ``visit_nag``,
    ``begin_variation``/``end_variation``), ``visit_result``, and finally ``result``.
    """

    def begin_game(self, variant: Variant, start: Position) -> None:
        """A game of ``variant`` starts from ``start``."""

    def visit_tag(self, name: str, value: str) -> None:
        pass

    def end_tags(self) -> None:
        pass

    def visit_move(self, text: str) -> None:
        """A move as written, without its strength mark (between ``begin_variation`` and
        ``end_variation`` it belongs to a variation)."""

    def visit_comment(self, text: str) -> None:
        pass

    def visit_nag(self, nag: str) -> None:
        """A NAG (``$3``) or a move strength (``!?``) after the last move."""

    def begin_variation(self) -> None:
        pass

    def end_variation(self) -> None:
        pass

    def visit_result(self, result: str) -> None:
        pass

    def handle_error(self, error: PDNError) -> None:
        """A problem in the game text; the default raises it."""
        raise error

    def result(self) -> ResultT:
        raise NotImplementedError


class GameBuilder(BaseVisitor[Game]):
    """Builds a :class:`Game`, collecting errors on ``game.errors``.

    Replay stops at the first move that cannot be played (the rest is still read, so the
    next game starts in the right place); the game keeps every move before it.
    """

    def __init__(self, *, index: int | None = None) -> None:
        self.index = index
        self.game: Game | None = None
        self._depth = 0
        self._stopped = False
        self._branches: list[list[Move]] = [[]]
        """Readings of the moves not yet played (several after an ambiguous move)."""
        self._held: list[tuple[int, str, str]] = []
        """Comments and marks met while several readings were open: (ply, kind, text)."""

    def begin_game(self, variant: Variant, start: Position) -> None:
        self.game = Game(variant, start)

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("begin_game was not called")
        return self.game

    def visit_tag(self, name: str, value: str) -> None:
        self._game().tags[name] = value

    def visit_move(self, text: str) -> None:
        """Replay a move; an ambiguous one is kept as several readings until later moves
        leave only one (a file should not need that, PDN 3.0 restriction 8, but some do)."""
        if self._depth or self._stopped:
            return
        text = text.replace(" ", "")
        if _JOINED.match(text):
            text = f"{text[:2]}-{text[2:]}"  # a3b4: the separator may be left out
        game = self._game()
        grown: list[list[Move]] = []
        for branch in self._branches:
            position = game.position
            for move in branch:
                position = position.play(move)
            try:
                grown += [[*branch, m] for m in _readings(position, text)]
            except RulesError as exc:
                if len(self._branches) == 1:
                    self._fail(exc, game.ply + len(branch) + 1)
                    return
        if not grown:
            if len(self._branches) == 1:
                try:  # the precise error, with the position in its message
                    position.parse_move(text)
                except RulesError as exc:
                    self._fail(exc, game.ply + len(self._branches[0]) + 1)
            else:
                self._fail_ambiguous()
            return
        self._branches = grown[:_MAX_READINGS]
        if len(self._branches) == 1:
            self._commit()

    def _commit(self) -> None:
        game = self._game()
        branch, self._branches = self._branches[0], [[]]
        held, self._held = self._held, []
        for move in branch:
            game.push(move)
            for offset, kind, value in held:
                if game.ply == offset:
                    self._annotate(kind, value)

    def _fail_ambiguous(self) -> None:
        game = self._game()
        ply = game.ply + 1
        position = game.position
        names = sorted({position.move_name(b[0]) for b in self._branches if b}) or ["?"]
        self._branches = [[]]
        self._fail(
            AmbiguousMoveError(f"ambiguous move in {position.fen()}: could be {', '.join(names)}"),
            ply,
        )

    def _fail(self, exc: Exception, ply: int) -> None:
        self._stopped = True
        self.handle_error(PDNError(f"{self._where(ply)}: {exc}", game=self.index, ply=ply))

    def _where(self, ply: int) -> str:
        prefix = f"game {self.index}, " if self.index is not None else ""
        return f"{prefix}ply {ply}"

    def visit_comment(self, text: str) -> None:
        self._note("comment", text)

    def visit_nag(self, nag: str) -> None:
        self._note("nag", nag)

    def _note(self, kind: str, value: str) -> None:
        if self._depth or self._stopped:
            return
        game = self._game()
        if len(self._branches) > 1:
            self._held.append((game.ply + len(self._branches[0]), kind, value))
        else:
            self._annotate(kind, value)

    def _annotate(self, kind: str, value: str) -> None:
        game = self._game()
        if kind == "comment":
            old = game.comments.get(game.ply)
            game.comments[game.ply] = f"{old} {value}" if old else value
        elif game.ply:
            game.nags[game.ply] = (*game.nags.get(game.ply, ()), value)

    def begin_variation(self) -> None:
        self._depth += 1

    def end_variation(self) -> None:
        self._depth = max(0, self._depth - 1)

    def visit_result(self, result: str) -> None:
        self._game().result = result

    def handle_error(self, error: PDNError) -> None:
        game = self._game()
        if error.ply is None:  # a problem in the text: place it after the moves read so far
            ply = game.ply + len(self._branches[0]) + 1
            error = PDNError(f"{self._where(ply)}: {error}", game=self.index, ply=ply)
        game.errors.append(error)

    def result(self) -> Game:
        if len(self._branches) > 1 and not self._stopped:
            # Every reading replays to the end: the record cannot tell them apart. Keep
            # the first and say so (a writer must give the full route, PDN 3.0 restr. 8).
            game = self._game()
            names = sorted({game.position.move_name(b[0]) for b in self._branches})
            game.warnings.append(
                f"{self._where(game.ply + 1)}: ambiguous move (could be {', '.join(names)}); "
                f"kept {game.position.move_name(self._branches[0][0])}"
            )
            self._branches = self._branches[:1]
            self._commit()
        return self._game()


class StringExporter(BaseVisitor[str]):
    """Writes PDN 3.0 text: tags, then movetext wrapped at ``columns`` characters."""

    def __init__(self, *, columns: int = 80, comments: bool = True) -> None:
        self.columns = columns
        self.comments = comments
        self._tags: list[str] = []
        self._words: list[str] = []
        self._ply = 0
        self._first_turn_is_first_player = True

    def begin_game(self, variant: Variant, start: Position) -> None:
        self._first_turn_is_first_player = start.turn is variant.first_to_move
        self._ply = 0

    def visit_tag(self, name: str, value: str) -> None:
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        self._tags.append(f'[{name} "{escaped}"]')

    def visit_move(self, text: str) -> None:
        offset = 0 if self._first_turn_is_first_player else 1
        number = (self._ply + offset) // 2 + 1
        if (self._ply + offset) % 2 == 0:
            self._words.append(f"{number}.")
        elif self._ply == 0:
            self._words.append(f"{number}...")
        self._words.append(text)
        self._ply += 1

    def visit_comment(self, text: str) -> None:
        words = text.replace("}", ")").split()
        if self.comments and words:
            words[0], words[-1] = "{" + words[0], words[-1] + "}"
            self._words += words  # wrapped word by word like the moves

    def visit_nag(self, nag: str) -> None:
        if nag.startswith("$") or not self._words:
            self._words.append(nag)
        else:
            self._words[-1] += nag

    def visit_result(self, result: str) -> None:
        self._words.append(result)

    def result(self) -> str:
        lines: list[str] = []
        line = ""
        for word in self._words:
            if line and len(line) + 1 + len(word) > self.columns:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            lines.append(line)
        return "\n".join([*self._tags, "", *lines]) + "\n"


def walk(game: Game, visitor: BaseVisitor[ResultT]) -> ResultT:
    """Drive a visitor over a game: the tournament tags first, FEN if not the start."""
    assert game.start is not None
    visitor.begin_game(game.variant, game.start)
    for name, value in export_tags(game):
        visitor.visit_tag(name, value)
    visitor.end_tags()
    if 0 in game.comments:
        visitor.visit_comment(game.comments[0])
    for ply, text in enumerate(game.notations, start=1):
        visitor.visit_move(text)
        for nag in game.nags.get(ply, ()):
            visitor.visit_nag(nag)
        if ply in game.comments:
            visitor.visit_comment(game.comments[ply])
    visitor.visit_result(game.result)
    return visitor.result()


def export_tags(game: Game) -> list[tuple[str, str]]:
    """Seven tournament tags (``?`` where unknown), GameType, FEN if needed, then the rest."""
    assert game.start is not None
    tags = dict(game.tags)
    tags["Result"] = game.result
    tags["GameType"] = str(game.variant.gametype)
    if game.start != Position.initial(game.variant):
        tags["FEN"] = game.start.fen()
    else:
        tags.pop("FEN", None)
    out = [(name, tags.pop(name, "?")) for name in TAG_ORDER[:7]]
    out += [(name, tags.pop(name)) for name in TAG_ORDER[7:] if name in tags]
    return out + list(tags.items())


# -- reading --------------------------------------------------------------------------------


def read_game(handle: TextIO, *, variant: Variant | None = None) -> Game | None:
    """Read the next game of a PDN file; None at the end.

    ``variant`` is used when a game has no GameType tag (else it is inferred). The handle
    should be seekable (a game that ends without a result is only known to end when the
    next tag line is read, which is then pushed back); see :func:`iter_games` otherwise.
    """
    return visit_game(handle, GameBuilder(), variant=variant)


def visit_game(
    handle: TextIO, visitor: BaseVisitor[ResultT], *, variant: Variant | None = None
) -> ResultT | None:
    """Read the next game of a PDN file into any visitor; None at the end."""
    tokens = _game_tokens(_SeekingLines(handle))
    if tokens is None:
        return None
    return _drive(tokens, variant, visitor)


def iter_games(handle: TextIO, *, variant: Variant | None = None, start: int = 1) -> Iterator[Game]:
    """Every game of a file, numbered from ``start`` (errors name that number)."""
    lines = _BufferedLines(handle)
    index = start
    hint: Variant | None = None
    while (tokens := _game_tokens(lines)) is not None:
        game = _drive(tokens, variant, GameBuilder(index=index), hint=hint)
        hint = game.variant
        yield game
        index += 1


def read_games_text(text: str, *, variant: Variant | None = None) -> list[Game]:
    """Every game of a PDN text (numbered from 1)."""
    return list(iter_games(io.StringIO(text), variant=variant))


class _Lines:
    def next(self) -> str:
        raise NotImplementedError

    def push_back(self, line: str) -> None:
        raise NotImplementedError


class _SeekingLines(_Lines):
    def __init__(self, handle: TextIO) -> None:
        self.handle = handle
        self._last = 0

    def next(self) -> str:
        self._last = self.handle.tell()
        return self.handle.readline()

    def push_back(self, line: str) -> None:
        self.handle.seek(self._last)


class _BufferedLines(_Lines):
    def __init__(self, handle: TextIO) -> None:
        self.handle = handle
        self._pending: list[str] = []

    def next(self) -> str:
        return self._pending.pop() if self._pending else self.handle.readline()

    def push_back(self, line: str) -> None:
        self._pending.append(line)


def _game_tokens(lines: _Lines) -> list[Token] | None:
    """The tokens of the next game, or None when the file holds no more games."""
    tokens: list[Token] = []
    text = ""
    in_movetext = False
    while True:
        line = lines.next()
        if not line:
            break
        stripped = line.strip()
        if not in_movetext and not tokens and (not stripped or stripped.startswith("%")):
            continue  # blank lines and escapes between games
        if in_movetext and stripped.startswith("[") and not text:
            lines.push_back(line)  # a new game's tags: this game ended without a result
            tokens.append(
                Token("bad", stripped[:40], "no result (game terminator) before the next game")
            )
            break
        text += line if line.endswith("\n") else line + "\n"
        new, rest, finished = _lex(text)
        tokens += new
        text = rest
        if any(t.kind not in ("tag", "escape") for t in new):
            in_movetext = True
        if finished:
            break
    if text.strip():
        tokens.append(Token("bad", text.strip(), "unterminated comment"))
    if not tokens:
        return None
    return tokens


def _lex(text: str) -> tuple[list[Token], str, bool]:
    """Tokens of ``text``; the unfinished tail (an open comment); whether a result ended it."""
    out: list[Token] = []
    pos = 0
    depth = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None  # the 'bad' alternative matches any character
        kind = m.lastgroup or "bad"
        if kind in ("strength", "name", "value", "setupfen"):
            kind = next(k for k in ("move", "tag", "setup") if m.group(k))
        if kind == "open_comment":
            return out, text[pos:], False
        pos = m.end()
        if kind == "ws":
            continue
        token = _token(kind, m)
        out.append(token)
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif kind == "result" and depth <= 0:
            return out, "", True
    return out, "", False


def _token(kind: str, m: re.Match[str]) -> Token:
    if kind == "tag":
        value = re.sub(r"\\(.)", r"\1", m.group("value"))
        return Token("tag", m.group(0), value, m.group("name"))
    if kind == "comment":
        return Token("comment", m.group(0), " ".join(m.group(0)[1:-1].split()))
    if kind == "setup":
        return Token("setup", m.group(0), m.group("setupfen"))
    if kind == "move":
        return Token("move", m.group(0), m.group("strength") or "")
    return Token(kind, m.group(0))


def _drive(
    tokens: list[Token],
    default: Variant | None,
    visitor: BaseVisitor[ResultT],
    *,
    hint: Variant | None = None,
) -> ResultT:
    tags = [(t.name, t.value) for t in tokens if t.kind == "tag"]
    tag_map = {name.lower(): value for name, value in tags}
    errors: list[str] = []
    variant = _variant(tag_map, tokens, default, errors, hint)
    start = Position.initial(variant)
    fen = tag_map.get("fen")
    setups = [t for t in tokens if t.kind == "setup"]
    if fen is None and setups:
        fen = setups[0].value
    if fen:
        try:
            start = Position.from_fen(variant, fen)
        except RulesError as exc:
            errors.append(str(exc))
    visitor.begin_game(variant, start)
    for name, value in tags:
        visitor.visit_tag(name, value)
    visitor.end_tags()
    for message in errors:
        visitor.handle_error(PDNError(message))
    in_movetext = False
    depth = 0
    for token, after in zip(tokens, [*tokens[1:], Token("end", "")], strict=True):
        kind = token.kind
        if kind == "number" and after.kind in ("result", "end"):
            visitor.handle_error(PDNError(f"move number {token.text!r} without a move"))
        if kind == "tag":
            if in_movetext:
                visitor.handle_error(PDNError(f"tag {token.text!r} inside the moves"))
            continue
        in_movetext = True
        if kind == "move":
            visitor.visit_move(token.text[: len(token.text) - len(token.value)])
            if token.value:
                visitor.visit_nag(token.value)
        elif kind in ("nag", "mark"):
            visitor.visit_nag(token.text)
        elif kind == "comment":
            visitor.visit_comment(token.value)
        elif kind == "open":
            depth += 1
            visitor.begin_variation()
        elif kind == "close":
            if depth == 0:
                visitor.handle_error(PDNError("unmatched ')'"))
                continue
            depth -= 1
            visitor.end_variation()
        elif kind == "result":
            visitor.visit_result(RESULT_ALIASES.get(token.text, token.text))
        elif kind == "setup" and token.value != fen:
            visitor.handle_error(PDNError(f"set-up {token.text!r} in the middle of a game"))
        elif kind == "bad":
            why = token.value or "unexpected text"
            visitor.handle_error(PDNError(f"{why}: {token.text[:40]!r}"))
    if depth:
        visitor.handle_error(PDNError("unclosed variation '('"))
    return visitor.result()


def _variant(
    tags: dict[str, str],
    tokens: list[Token],
    default: Variant | None,
    errors: list[str],
    hint: Variant | None,
) -> Variant:
    """The game's variant: GameType, else the caller's default, else inferred from the
    text; a game with nothing to infer from (no moves, no FEN) takes the ``hint`` (the
    previous game of the file), else international, PDN's default GameType."""
    gametype = tags.get("gametype")
    if gametype:
        number = gametype.split(",")[0].strip()
        found = variant_for_gametype(int(number)) if number.isdigit() else None
        if found is not None:
            return found
        errors.append(f"GameType {gametype!r} is not a supported game")
    if default is not None:
        return default
    moves = [t.text[: len(t.text) - len(t.value)] for t in _main_line(tokens)]
    if not moves and not tags.get("fen"):
        return hint or VARIANTS["international"]
    return infer_variant(tags, moves, tags.get("fen"))


def _main_line(tokens: list[Token]) -> list[Token]:
    out, depth = [], 0
    for t in tokens:
        depth += (t.kind == "open") - (t.kind == "close")
        if t.kind == "move" and depth == 0:
            out.append(t)
    return out


def infer_variant(tags: dict[str, str], moves: list[str], fen: str | None = None) -> Variant:
    """Guess the game of a file without GameType (see the module docstring).

    The text narrows the candidates (algebraic squares: the 8x8 IDF games, Russian
    first; a square above 32: international; else English or Italian, ordered by the tags
    and the opening move); the first candidate whose moves all replay wins, else the one
    that replays furthest (so a Czech championship file is read as Czech).
    """
    fen_squares = [
        t.strip().lstrip("WBKwbk") for t in re.split(r"[:,]", fen or "")[1:] if t.strip()
    ]
    squares = [sq for t in moves for sq in re.split(r"[ ]?[-x:×][ ]?", t)] + fen_squares
    if any(re.match(r"^[a-hA-H][1-8]", sq) for sq in squares):
        names = ["russian", "czech", "brazilian", "pool"]
    elif any(n > 32 for t in squares for n in map(int, re.findall(r"\d+", t))):
        names = ["international"]
    else:
        names = ["english", "italian", "portuguese", "international"]
        first = re.findall(r"\d+", moves[0]) if moves else []
        italian_opening = len(first) >= 2 and int(first[0]) >= 21 > int(first[1])
        if _ITALIAN_TAGS & set(tags) or (fen is None and italian_opening):
            names = ["italian", "english", "portuguese", "international"]
    best, best_plies = VARIANTS[names[0]], -1
    for name in names:
        plies = _replayable_plies(VARIANTS[name], moves, fen)
        if plies == len(moves):
            return VARIANTS[name]
        if plies > best_plies:
            best, best_plies = VARIANTS[name], plies
    return best


def _readings(position: Position, text: str) -> list[Move]:
    """The legal moves a move text can mean (column draughts: its own notation reader,
    which settles ambiguity itself)."""
    if position.variant.towers:
        return [position.parse_move(text)]
    return position.matching_moves(text)


def _replayable_plies(variant: Variant, moves: list[str], fen: str | None) -> int:
    """How many of the moves replay in a variant (-1 if the FEN does not fit it)."""
    try:
        position = Position.from_fen(variant, fen) if fen else Position.initial(variant)
    except RulesError:
        return -1
    for ply, text in enumerate(moves):
        if _JOINED.match(text):
            text = f"{text[:2]}-{text[2:]}"
        try:
            found = _readings(position, text)
        except RulesError:
            return ply
        if not found:
            return ply
        position = position.play(found[0])
    return len(moves)

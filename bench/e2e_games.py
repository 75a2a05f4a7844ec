"""The games the end-to-end benchmark plays: real games where a corpus exists, generated
legal games for the other variants.

Real games come from ``../shared/data/games`` through the rules core's PDN reader (FMJD
test files for international, russian and italian; the ACF transcripts for english). The
variants without a corpus (brazilian, pool, czech, portuguese, bashni, lasca) get seeded
random legal games that favour captures and promotions, so that the recording chain sees
the moves that go wrong most often: multi-piece captures and crownings.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rules import Move, Position, find_variant
from rules.pdn import iter_games

log = logging.getLogger(__name__)

REAL_FILES: dict[str, tuple[str, ...]] = {
    "international": ("wk2003.pdn", "candidate95.pdn", "DUTCH96H.pdn", "PROF2.pdn"),
    "russian": ("ussr1947.pdn", "mrcd2006.pdn"),
    "italian": ("Campionato Assoluto 2005.pdn",),
}
"""FMJD PDN test files (``pdn-fmjd-testgames/games/succeed``) per variant."""

GENERATED_VARIANTS = ("brazilian", "pool", "czech", "portuguese", "bashni", "lasca")
REAL_VARIANTS = ("international", "russian", "english", "italian")


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A game as played over the board: where it came from, its start and its moves."""

    source: str
    variant: str
    start: Position
    moves: tuple[Move, ...]

    def truncated(self, plies: int) -> PlayedGame:
        """The first ``plies`` moves (the benchmark's speed knob)."""
        return PlayedGame(self.source, self.variant, self.start, self.moves[:plies])


def read_pdn_file(path: Path, variant_name: str) -> Iterator[PlayedGame]:
    """Games of one PDN file that replay from the variant's initial position."""
    variant = find_variant(variant_name)
    initial = Position.initial(variant)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, game in enumerate(iter_games(handle, variant=variant)):
            if game.errors or not game.moves or game.start != initial:
                continue
            yield PlayedGame(f"{path.name}#{number}", variant_name, initial, tuple(game.moves))


def _acf_square(k: int) -> int:
    """ACF transcripts count squares from 0, each row the other way round from PDN."""
    return (k // 4) * 4 + (3 - k % 4) + 1


def read_acf_file(path: Path, limit: int) -> Iterator[PlayedGame]:
    """English checkers games of the ACF transcripts (one game a line)."""
    variant = find_variant("english")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if number >= limit:
                return
            position = Position.initial(variant)
            moves: list[Move] = []
            try:
                for token in line.split("\t")[0].split():
                    squares = [str(_acf_square(int(s))) for s in token.split("-")]
                    move = position.parse_move("x".join(squares))
                    moves.append(move)
                    position = position.play(move)
            except ValueError:
                continue
            if moves:
                yield PlayedGame(
                    f"ACF.txt#{number}", "english", Position.initial(variant), tuple(moves)
                )


def real_games(
    data: Path | None, variant_name: str, limit: int, *, first: int = 0
) -> list[PlayedGame]:
    """Up to ``limit`` real games of a variant, from its ``first`` game on (counted over
    its files in order); none when the shared data is absent."""
    if data is None or not (data / "games").is_dir():
        return []
    games_dir = data / "games"
    wanted = first + limit
    out: list[PlayedGame] = []
    if variant_name == "english":
        acf = games_dir / "english-acf" / "ACF.txt"
        if acf.exists():
            out.extend(read_acf_file(acf, wanted * 3))
    root = games_dir / "pdn-fmjd-testgames" / "games" / "succeed"
    for name in REAL_FILES.get(variant_name, ()):
        if len(out) >= wanted:
            break
        if (root / name).exists():
            out.extend(read_pdn_file(root / name, variant_name))
    return out[first:wanted]


def generated_game(variant_name: str, plies: int, seed: int) -> PlayedGame:
    """A seeded random legal game. Captures are compulsory anyway; among quiet moves, a
    promotion is always taken and a move that offers the opponent a capture is preferred
    half the time, so that captures and crownings come early in short games."""
    rng = random.Random(f"{variant_name}/{seed}")
    start = Position.initial(find_variant(variant_name))
    position = start
    moves: list[Move] = []
    for _ in range(plies):
        legal = position.legal_moves()
        if not legal:
            break
        choice = [m for m in legal if m.promotes] or legal
        if not choice[0].captures and rng.random() < 0.5:
            baits = [m for m in choice if any(r.captures for r in position.play(m).legal_moves())]
            choice = baits or choice
        move = rng.choice(choice)
        moves.append(move)
        position = position.play(move)
    return PlayedGame(f"generated#{seed}", variant_name, start, tuple(moves))


def select_games(
    data: Path | None, *, per_variant: int, plies: int, first: int = 0
) -> list[PlayedGame]:
    """``per_variant`` games of each of the ten variants, each cut to ``plies`` moves,
    from each variant's game number ``first`` on: a corpus's games in their files'
    order, generated games by their seed. So runs with another ``first`` play other
    games, where the render seeds only change how the same games look.

    A real-corpus variant whose data is missing (or short) is filled up with generated
    games, so the selection never shrinks silently; each game's ``source`` says which.
    """
    games: list[PlayedGame] = []
    for name in REAL_VARIANTS + GENERATED_VARIANTS:
        real = name in REAL_VARIANTS
        chosen = real_games(data, name, per_variant, first=first) if real else []
        if real and len(chosen) < per_variant:
            log.info("%s: %d real games; the rest generated", name, len(chosen))
        k = first
        while len(chosen) < per_variant:
            chosen.append(generated_game(name, plies, k))
            k += 1
        games.extend(g.truncated(plies) for g in chosen)
    return games

"""The recorder's parts on their own: the evidence window (rules.evidence) and the
catch-up search over legal plies (rules.hypotheses), against brute force over the
rules core's own move generator."""

from __future__ import annotations

import math

from rules.evidence import Frame, Window, swap_colours
from rules.hypotheses import Seq, legal_sequences, position_after
from rules.observation import TOP_COUNT, Top
from rules.picture import Picture
from rules.position import Position
from rules.variants import INTERNATIONAL, RUSSIAN


def _frame(time: float, squares: int, top: Top, sure: float, height: float | None) -> Frame:
    rest = (1.0 - sure) / (TOP_COUNT - 1)
    logp = tuple(math.log(sure if t == top else rest) for t in range(TOP_COUNT))
    heights = None if height is None else (height, 4.0)
    return Frame(time, (logp,) * squares, (int(top),) * squares, (heights,) * squares)


def test_the_window_sums_each_frame_once_and_forgets_what_it_drops() -> None:
    window = Window(3)
    first = _frame(0.0, 3, Top.WHITE_MAN, 0.9, 1.0)
    second = _frame(0.1, 3, Top.BLACK_KING, 0.6, 2.0)
    window.add(first)
    window.add(second)
    sums = window.sums[1]
    assert sums is not None
    assert math.isclose(sums[Top.WHITE_MAN], math.log(0.9) + math.log(0.1))
    assert window.votes[1][Top.WHITE_MAN] == window.votes[1][Top.BLACK_KING] == 1
    # The heights' likelihood peaks between the two readings, equally weighed.
    assert window.height_log_likelihood(0, 1) == window.height_log_likelihood(0, 2)
    window.drop_oldest()
    kept = window.sums[1]
    assert kept is not None
    assert math.isclose(kept[Top.BLACK_KING], math.log(0.6), abs_tol=1e-12)
    assert window.votes[1][Top.WHITE_MAN] == 0
    assert window.height_log_likelihood(0, 2) > window.height_log_likelihood(0, 1)
    window.add(first)
    window.keep_last(1)  # the newest frame alone, as if the other two never came
    again = window.sums[1]
    assert again is not None and again == list(first.logp[1] or ())
    window.clear()
    assert window.frames == [] and window.sums == [None] * 3


def test_swapping_colours_twice_is_no_swap() -> None:
    values = tuple(float(t) for t in range(TOP_COUNT))
    swapped = swap_colours(values)
    assert swapped[Top.WHITE_MAN] == values[Top.BLACK_MAN]
    assert swapped[Top.EMPTY] == values[Top.EMPTY]
    assert swap_colours(swapped) == values


def _brute_force(start: Position, picture: Picture, depth: int) -> set[Seq]:
    """Every sequence of ``depth`` legal plies whose end the picture shows exactly."""
    found: set[Seq] = set()

    def walk(position: Position, plies: Seq) -> None:
        if len(plies) == depth:
            if picture.mismatch(position) == 0:
                found.add(plies)
            return
        for move in position.legal_moves():
            walk(position.play(move), (*plies, move))

    walk(start, ())
    return found


def test_the_catch_up_search_finds_what_brute_force_finds() -> None:
    """Pruned and memoised, the search must still return every sequence of legal plies
    that reproduces the picture, and nothing else: positions three and four plies into
    openings of international and russian draughts, a capture among them."""
    for variant, opening in (
        (INTERNATIONAL, ("32-28", "19-23", "28x19", "14x23")),
        (INTERNATIONAL, ("31-27", "20-24", "32-28", "19-23")),
        (RUSSIAN, ("c3-d4", "f6-g5", "g3-f4", "g7-f6")),
    ):
        start = Position.initial(variant)
        for depth in (3, 4):
            end = start
            played: Seq = ()
            for text in opening[:depth]:
                move = end.parse_move(text)
                played, end = (*played, move), end.play(move)
            picture = Picture.of_position(end)
            found = legal_sequences(start, 0, picture, range(depth, depth + 1))
            assert played in found
            assert set(found) == _brute_force(start, picture, depth)
            assert all(position_after(start, seq) == end for seq in found)


def test_two_quiet_moves_of_one_side_are_found_in_either_order() -> None:
    start = Position.initial(INTERNATIONAL)
    first, second = start.parse_move("31-27"), start.parse_move("32-28")
    end = start.play(first).push_text("20-24").push_text("32-28")
    found = legal_sequences(start, 0, Picture.of_position(end), range(1, 4))
    assert {(seq[0], seq[2]) for seq in found} == {(first, second), (second, first)}
    assert all(len(seq) == 3 for seq in found)  # no shorter sequence reaches it

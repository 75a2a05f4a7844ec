"""Move generation against published perft counts (../shared/data/perft).

Shallow depths only (a budget of nodes per row); deeper ones run in bench/perft.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Position, find_variant
from rules.perft import perft
from tests.perft_tables import PerftRow, load_dctl

NODE_BUDGET = 60_000


def _rows(data: Path) -> list[PerftRow]:
    return [r for r in load_dctl(data) if r.nodes <= NODE_BUDGET]


def test_published_perft_counts(shared_data: Path) -> None:
    rows = _rows(shared_data)
    assert len({r.variant for r in rows}) >= 7, "expected rows for every draughts-family variant"
    failures = []
    for row in rows:
        variant = find_variant(row.variant)
        start = Position.from_fen(variant, row.fen) if row.fen else Position.initial(variant)
        got = perft(start, row.depth, keep_duplicates=row.keep_duplicates)
        if got != row.nodes:
            failures.append(f"{row.variant}/{row.test} d{row.depth}: {got} != {row.nodes}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("variant", "counts"),
    [
        ("international", [9, 81, 658, 4265]),
        ("russian", [7, 49, 302, 1469, 7482]),
        ("english", [7, 49, 302, 1469, 7361]),
        ("italian", [7, 49, 302, 1469, 7361]),
    ],
)
def test_initial_perft_without_shared_data(variant: str, counts: list[int]) -> None:
    """The headline counts from the perft README, kept here so CI checks them even alone."""
    start = Position.initial(find_variant(variant))
    assert [perft(start, d) for d in range(1, len(counts) + 1)] == counts

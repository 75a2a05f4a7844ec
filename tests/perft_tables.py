"""Read the published perft tables in ../shared/data/perft."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

# DCTL's names for the variants damcam plays; rectangular and other boards are skipped.
DCTL_VARIANTS = {
    ("international", "international"): "international",
    ("international", "default for international"): "international",
    ("russian", "rectangular<8, 8"): "russian",
    ("brazilian", "rectangular<8, 8"): "brazilian",
    ("pool", "rectangular<8, 8"): "pool",
    ("czech", "rectangular<8, 8"): "czech",
    ("checkers", "rectangular<8, 8"): "english",
    ("italian", "rectangular<8, 8, true"): "italian",
    ("italian", "default for italian"): "italian",
    ("spanish", "rectangular<8, 8, true"): "portuguese",
}


@dataclass(frozen=True)
class PerftRow:
    variant: str
    test: str
    fen: str | None  # None: the initial position
    keep_duplicates: bool
    depth: int
    nodes: int


def load_dctl(data: Path) -> list[PerftRow]:
    rows = []
    with (data / "perft" / "perft_dctl.tsv").open() as f:
        for r in csv.DictReader(f, delimiter="\t"):
            variant = DCTL_VARIANTS.get((r["variant"], r["board"]))
            if variant is None:
                continue
            rows.append(
                PerftRow(
                    variant=variant,
                    test=r["test"],
                    fen=None if r["position"] == "initial" else r["position"],
                    keep_duplicates=r["duplicates"] == "keep_duplicate_captures",
                    depth=int(r["depth"]),
                    nodes=int(r["nodes"]),
                )
            )
    return rows

"""Speed of column-draughts move generation: perft from the start and tower-rich positions.

``python -m bench.tower_perft [--quick]`` prints one JSON line per (position, depth):
nodes counted, seconds, nodes per second. The counts themselves are checked in
tests/test_columns_perft.py; this only times them.
"""

from __future__ import annotations

import argparse
import json
import time

from rules import Position, find_variant
from rules.perft import perft

CASES: list[tuple[str, str, str | None, int]] = [
    ("bashni", "start", None, 7),
    (
        "bashni",
        "kings and towers a",
        "B:Wd8(Wbbbb),e7(wBb),b6,f6(wwwb),a5(WB),c5(www):Bf2(Bw),h2(Bbbw)",
        5,
    ),
    ("lasca", "start", None, 11),
    ("lasca", "kings and towers a", "W:W1(WwbBBb),9,14(Wwww),23(WWwW):B5,6(bbbbB),7", 7),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="two plies less everywhere")
    args = parser.parse_args()
    for variant_name, name, fen, depth in CASES:
        variant = find_variant(variant_name)
        position = Position.from_fen(variant, fen) if fen else Position.initial(variant)
        depth -= 2 if args.quick else 0
        started = time.perf_counter()
        nodes = perft(position, depth)
        seconds = time.perf_counter() - started
        record = {
            "bench": "tower_perft",
            "variant": variant_name,
            "position": name,
            "depth": depth,
            "nodes": nodes,
            "seconds": round(seconds, 3),
            "nodes_per_second": round(nodes / seconds) if seconds else None,
        }
        print(json.dumps(record))


if __name__ == "__main__":
    main()

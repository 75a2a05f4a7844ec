"""Per-table set-up: intrinsics, board registration, learned colours, orientation."""

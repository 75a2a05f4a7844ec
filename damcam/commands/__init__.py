"""CLI command groups, one module per area (rules, synth, vision, models, capture/pi)."""

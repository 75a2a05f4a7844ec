"""The device: capture sources, live pipeline, server, demonstration board, journal."""

"""damcam: record draughts games from an overhead camera."""

__version__ = "0.1.0"

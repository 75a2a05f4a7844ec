"""The device's web server: REST API, live WebSocket, demonstration board, scoresheet."""

from pi.server.app import create_app

__all__ = ["create_app"]

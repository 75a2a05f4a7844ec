"""The device at a tournament table: capture, the live pipeline, the journal, the server.

- :mod:`pi.capture`: frame sources (Pi camera, USB camera, video, folder, real-time playback)
- :mod:`pi.pipeline`: capture -> vision -> recorder -> journal, newest frame first, health
- :mod:`pi.recording`: the rules core's recorder, its events named for the journal
- :mod:`pi.journal`: the append-only SQLite journal; :mod:`pi.record`: a game folded from it
- :mod:`pi.tables`: the one writer of the journal, with listeners for live updates
- :mod:`pi.server`: the FastAPI app (board, REST, WebSocket, scoresheet, broadcast)
- :mod:`pi.replay`, :mod:`pi.demo`: games played as observations; what ``damcam demo`` plays
"""

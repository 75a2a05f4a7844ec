"""A 3D renderer of draughts tables for training data and end-to-end tests.

- :mod:`synth.render`: ``Renderer`` (one headless GL context, reuse it),
  ``render_position(position, style, size) -> Rendered(image, truth)``.
- :mod:`synth.scene`: ``Style`` (``Style.random(seed, variant)``), colour schemes.
- :mod:`synth.game`: a game as frames with per-frame truth (``write_game``).
- :mod:`synth.camera`, :mod:`synth.pieces`, :mod:`synth.hand`, :mod:`synth.board_texture`,
  :mod:`synth.post`: the parts; :mod:`synth.dataset`, :mod:`synth.contact`: helpers.
"""

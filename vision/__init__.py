"""Images to observations: locate the board, rectify, gate hands and motion, classify squares."""

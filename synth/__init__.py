"""A 3D renderer of draughts tables for training data and end-to-end tests."""

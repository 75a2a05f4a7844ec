"""Benchmarks that print JSON records (never timed tests)."""

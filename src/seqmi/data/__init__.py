"""Generators of sequences whose statistics are known exactly."""

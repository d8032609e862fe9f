"""Exact results (closed forms, symbolic derivations) that chapters check numerics against."""

"""Neural sequence models."""

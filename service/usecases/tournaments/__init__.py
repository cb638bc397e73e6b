"""Tournaments: each its own event stream, its results recorded as tables finish, its records
and wire types."""

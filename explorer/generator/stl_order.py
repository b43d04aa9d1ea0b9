"""Moved to ``explorer.peg.stl_order`` (the builder orders its rules with it); kept as the
name tests and callers import."""

from explorer.peg.stl_order import hash_bytes, unordered_map_order

__all__ = ["hash_bytes", "unordered_map_order"]

"""Domain plugins: one per kind of environment the world model simulates."""

from __future__ import annotations

from .base import Domain, validation_errors

__all__ = ["Domain", "validation_errors"]

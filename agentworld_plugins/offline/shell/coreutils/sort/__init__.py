"""GNU sort (importing registers it): ``program`` reads the options, keys and inputs and sorts,
``orders`` holds the orders that read a key as other than text (-g, -h, -M, -V)."""

from __future__ import annotations

from . import orders, program

__all__ = ["orders", "program"]

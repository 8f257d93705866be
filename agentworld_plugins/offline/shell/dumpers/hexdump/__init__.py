"""hexdump and hd (importing registers them): ``formats`` parses and renders the format strings,
``program`` reads the inputs and runs the command."""

from __future__ import annotations

from . import formats, program

__all__ = ["formats", "program"]

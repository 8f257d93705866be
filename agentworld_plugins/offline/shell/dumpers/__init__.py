"""Binary dumps: xxd (vim's), hexdump (util-linux's) and strings (binutils') (importing registers them)."""

from __future__ import annotations

from . import hexdump, strings, xxd

__all__ = ["hexdump", "strings", "xxd"]

"""getconf and locale, glibc's programs in Ubuntu's libc-bin (importing registers them)."""

from __future__ import annotations

from . import getconf, locale

__all__ = ["getconf", "locale"]

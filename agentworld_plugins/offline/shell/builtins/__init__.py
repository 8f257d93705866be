"""Shell builtins, registered by decorator into BUILTINS (importing this package registers them)."""

from __future__ import annotations

from . import control, dirs, echo, lookup, session, test, variables

__all__ = ["control", "dirs", "echo", "lookup", "session", "test", "variables"]

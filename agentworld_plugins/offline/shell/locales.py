"""The locales of the machine (an Ubuntu 24.04 base image has only ``C``, ``C.utf8`` and
``POSIX``) and which one a program's environment selects for each category, as glibc's
``setlocale(LC_..., "")`` does: ``LC_ALL``, then ``LC_<category>``, then ``LANG``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .machine import VirtualMachine

#: what ``locale -a`` lists
INSTALLED = ("C", "C.utf8", "POSIX")
CATEGORIES = ("LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES", "LC_PAPER",
              "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION")  # fmt: skip


def environment(vm: VirtualMachine) -> dict[str, str]:
    """The environment a program started now gets (the exported variables)."""
    return {k: vm.vars[k] for k in vm.exported if k in vm.vars}


def selected(env: Mapping[str, str], category: str) -> str:
    """The locale name the environment asks for in ``category`` ('' where it asks for none)."""
    return env.get("LC_ALL") or env.get(category) or env.get("LANG") or ""


def is_installed(name: str) -> bool:
    """Whether setlocale finds the locale ``name`` (glibc normalizes the codeset's spelling)."""
    if name in ("", "C", "POSIX"):
        return True
    language, dot, codeset = name.partition(".")
    return language == "C" and dot == "." and "".join(c for c in codeset.lower() if c.isalnum()) == "utf8"


def is_utf8(env: Mapping[str, str], category: str) -> bool:
    """Whether the category is C.UTF-8 (else it is C: not installed, unset, C or POSIX)."""
    name = selected(env, category)
    return name not in ("", "C", "POSIX") and is_installed(name)


def charmap(env: Mapping[str, str], category: str = "LC_CTYPE") -> str:
    """``locale charmap``: the codeset of the category's locale."""
    return "UTF-8" if is_utf8(env, category) else "ANSI_X3.4-1968"

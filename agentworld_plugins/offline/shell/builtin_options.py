"""What the builtins share: bash's scan of a builtin's options, and which builtins are on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .registry import BUILTINS

if TYPE_CHECKING:
    from .proc import _Proc


def enabled_builtin(p: _Proc, name: str) -> bool:
    """Whether ``name`` is a builtin that ``enable -n`` has not turned off."""
    return name in BUILTINS and name not in p.vm.__dict__.get("_disabled", ())


def scan_options(
    p: _Proc, word_letters: str, usage: str, longs: dict[str, str] | None = None
) -> tuple[str, list[str]] | None:
    """bash's option scan of a builtin: letters until ``--`` or a word not starting with ``-``;
    None (said, with the usage) at a letter it does not take."""
    letters = ""
    args = list(p.args)
    while args and args[0].startswith("-") and args[0] != "-":
        word = args.pop(0)
        if word == "--":
            break
        if longs and word in longs:
            letters += longs[word]
            continue
        for letter in word[1:]:
            if letter not in word_letters:
                p.shell_err(f"{p.name}: -{letter}: invalid option")
                p.ctx.err.write(usage)
                return None
            letters += letter
    return letters, args

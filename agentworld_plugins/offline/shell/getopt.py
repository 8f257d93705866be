"""Option parsing for applets, with GNU wording for bad options and --help."""

from __future__ import annotations

from typing import Any

from .errors import _HelpRequested, _UsageError
from .quoting import locale_quote


def argmatch(
    value: str, choices: list[str], what: str, valid: str | None = None, utf8: bool = True, status: int = 2
) -> str:
    """GNU argmatch: the choice ``value`` names, whole or by an unambiguous start; else GNU's
    ``invalid argument`` (or ``ambiguous argument``) error listing the choices (``valid``: the
    list as the program words it, else each choice quoted on its own line)."""
    if value in choices:
        return value
    found = [c for c in choices if c.startswith(value)]
    if len(found) == 1:
        return found[0]
    kind = "ambiguous" if found else "invalid"
    quote = locale_quote if utf8 else (lambda text: f"'{text}'")
    if valid is None:
        valid = "".join(f"  - {quote(c)}\n" for c in choices)
    elif not utf8:
        valid = valid.replace("\u2018", "'").replace("\u2019", "'")
    message = f"{kind} argument {quote(value)} for {quote(what)}\nValid arguments are:\n{valid}"
    raise _UsageError(message.rstrip("\n"), status=status)


def _getopt(
    args: list[str],
    spec: str,
    longs: dict[str, str | None] | None = None,
    *,
    status: int = 1,
    stop_at_operand: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """GNU-style options: ``spec`` lists the short flags, a ``:`` after one that takes a value.
    ``longs`` maps ``name`` (``name=`` when it takes a value) to a short flag or a key (None:
    accepted and ignored). Flags count (``opts['v'] == 2``); values collect in lists."""
    flags = {c for i, c in enumerate(spec) if c != ":" and not (i + 1 < len(spec) and spec[i + 1] == ":")}
    valued = {c for i, c in enumerate(spec) if c != ":" and i + 1 < len(spec) and spec[i + 1] == ":"}
    longs = longs or {}
    opts: dict[str, Any] = {}
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands.extend(args[i + 1 :])
            break
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a[2:].partition("=")
            if name == "help":
                raise _HelpRequested()
            if name == "version":
                raise _HelpRequested(version=True)
            candidates = [k for k in longs if k.rstrip("=") == name] or [
                k for k in longs if k.rstrip("=").startswith(name)
            ]
            if not candidates:
                raise _UsageError(f"unrecognized option '{a}'", status)
            key = candidates[0]
            target = longs[key]
            if key.endswith("="):
                if not eq:
                    if i + 1 >= len(args):
                        raise _UsageError(f"option '--{key[:-1]}' requires an argument", status)
                    i += 1
                    value = args[i]
                if target is not None:
                    opts.setdefault(target, []).append(value)
            elif target is not None:
                opts[target] = (
                    opts.get(target, 0) + 1 if not isinstance(opts.get(target), list) else opts[target]
                )
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c in valued:
                    value = a[j + 1 :]
                    if not value:
                        if i + 1 >= len(args):
                            raise _UsageError(f"option requires an argument -- '{c}'", status)
                        i += 1
                        value = args[i]
                    opts.setdefault(c, []).append(value)
                    break
                if c in flags:
                    opts[c] = opts.get(c, 0) + 1
                    j += 1
                    continue
                raise _UsageError(f"invalid option -- '{c}'", status)
            i += 1
            continue
        operands.append(a)
        if stop_at_operand:
            operands.extend(args[i + 1 :])
            break
        i += 1
    return opts, operands


def _last(opts: dict[str, Any], key: str, default: str | None = None) -> str | None:
    v = opts.get(key)
    return v[-1] if isinstance(v, list) and v else default

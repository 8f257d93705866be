"""What the binary dumpers share: glibc-style long options (``getopt_long``) and the error that
ends a program (``err``/``errx``)."""

from __future__ import annotations


class Fatal(Exception):
    """The program ends with ``status`` after the error line ``message`` (glibc's err/errx)."""

    def __init__(self, message: str, status: int = 1, try_help: bool = False) -> None:
        self.message = message
        self.status = status
        self.try_help = try_help


# -- glibc's getopt_long -------------------------------------------------------------------------

NO, REQUIRED, OPTIONAL = 0, 1, 2


def getopt_long(
    args: list[str], shorts: str, longs: dict[str, tuple[int, str]]
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """GNU getopt_long, with its messages (raised as :class:`Fatal` with ``try_help``): options
    in order as ``(key, value)`` and the operands (options and operands may mix; ``--`` ends
    options). ``shorts`` as getopt's ("n:" takes a value, "L::" an optional one); ``longs``
    maps a name to (NO/REQUIRED/OPTIONAL, key)."""
    found: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands.extend(args[i:])
            break
        if a.startswith("--"):
            key, value, i = _long_option(a, args, i, longs)
            found.append((key, value))
        elif a.startswith("-") and len(a) > 1:
            i = _short_options(a, args, i, shorts, found)
        else:
            operands.append(a)
    return found, operands


def _long_option(
    a: str, args: list[str], i: int, longs: dict[str, tuple[int, str]]
) -> tuple[str, str | None, int]:
    name, eq, value = a[2:].partition("=")
    matches = [n for n in longs if n == name] or [n for n in longs if n.startswith(name)]
    if not matches:
        raise Fatal(f"unrecognized option '{a}'", try_help=True)
    if len(matches) > 1 and len({longs[n] for n in matches}) > 1:
        listed = " ".join(f"'--{n}'" for n in matches)
        raise Fatal(f"option '{a}' is ambiguous; possibilities: {listed}", try_help=True)
    full = matches[0]
    kind, key = longs[full]
    if kind == NO and eq:
        raise Fatal(f"option '--{full}' doesn't allow an argument", try_help=True)
    if kind == REQUIRED and not eq:
        if i >= len(args):
            raise Fatal(f"option '--{full}' requires an argument", try_help=True)
        return key, args[i], i + 1
    return key, (value if eq else None), i


def _short_options(a: str, args: list[str], i: int, shorts: str, found: list[tuple[str, str | None]]) -> int:
    j = 1
    while j < len(a):
        c = a[j]
        at = shorts.find(c) if c != ":" else -1
        if at < 0:
            raise Fatal(f"invalid option -- '{c}'", try_help=True)
        takes = shorts[at + 1 : at + 3]
        if takes.startswith(":"):
            rest = a[j + 1 :]
            if takes == "::":
                found.append((c, rest or None))
            elif rest:
                found.append((c, rest))
            elif i < len(args):
                found.append((c, args[i]))
                i += 1
            else:
                raise Fatal(f"option requires an argument -- '{c}'", try_help=True)
            return i
        found.append((c, None))
        j += 1
    return i

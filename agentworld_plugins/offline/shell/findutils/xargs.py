"""xargs as GNU findutils' xargs: items split at blanks with quotes and backslashes (or at ``-0``'s
NULs, ``-d``'s character), ``-n``, ``-L`` (a line ending in a blank goes on), ``-I`` (a command
per line, the string replaced), ``-E``, ``-r``, ``-t``, ``-a``; the command found on ``PATH`` (not
a builtin) and GNU's statuses: 123 when a command failed, 124 when one exited 255, 126 and 127
when one cannot run."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _Refused, _UsageError
from ..escapes import _ESCAPES
from ..quoting import locale_quote
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

#: short options: those taking a value (after the letter or as the next word), and those whose
#: value may only be attached (-e[EOF], -i[R], -l[N])
_VALUED, _ATTACHED = set("aEIdLnPs"), set("eil")
_LONG = {"null": "0", "arg-file": "a", "delimiter": "d", "eof": "e", "replace": "i", "max-lines": "l",
         "max-args": "n", "interactive": "p", "no-run-if-empty": "r", "max-chars": "s", "verbose": "t",
         "exit": "x", "max-procs": "P", "open-tty": "o", "process-slot-var": "S", "show-limits": "Z"}  # fmt: skip


class _Unmatched(Exception):
    pass


def _options(args: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """``(letter, value)`` pairs in order, and the command."""
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return found, args[i + 1 :]
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a[2:].partition("=")
            matches = [k for k in _LONG if k == name] or [k for k in _LONG if k.startswith(name)]
            if len(matches) != 1:
                raise _UsageError(f"unrecognized option '{a}'")
            letter = _LONG[matches[0]]
            if letter in _VALUED and not eq:
                if i + 1 >= len(args):
                    raise _UsageError(f"option '--{matches[0]}' requires an argument")
                i += 1
                value = args[i]
            found.append((letter, value if eq or letter in _VALUED else None))
            i += 1
            continue
        if not a.startswith("-") or a == "-":
            return found, args[i:]
        j = 1
        while j < len(a):
            c = a[j]
            if c in _VALUED or c in _ATTACHED:
                value = a[j + 1 :]
                if not value and c in _VALUED:
                    if i + 1 >= len(args):
                        raise _UsageError(f"option requires an argument -- '{c}'")
                    i += 1
                    value = args[i]
                found.append((c, value or None))
                break
            if c not in "0prtx":
                raise _UsageError(f"invalid option -- '{c}'")
            found.append((c, None))
            j += 1
        i += 1
    return found, []


def _count(value: str | None, letter: str) -> int:
    if value is None or not re.fullmatch(r"[0-9]+", value):
        raise _UsageError(f'invalid number "{value}" for -{letter} option')
    if int(value) < 1:
        raise _UsageError(f"value {value} for -{letter} option should be >= 1")
    return int(value)


def _delimiter(value: str) -> str:
    if len(value) == 1:
        return value
    if value == "\\0":
        return "\0"
    if value.startswith("\\") and value[1:] in _ESCAPES:
        return _ESCAPES[value[1:]]
    m = re.fullmatch(r"\\(?:x([0-9a-fA-F]{1,2})|([0-7]{1,3}))", value)
    if m:
        return chr(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8))
    raise _Refused(f"invalid input delimiter specification {value}: the delimiter must be either a single "
                   "character or an escape sequence starting with \\.")  # fmt: skip


def _words(text: str) -> list[tuple[str, bool]]:
    """Items at blanks, quotes and backslashes read as xargs reads them, each with whether a
    newline ends it (for ``-L``: a line that ends in a blank goes on)."""
    items: list[tuple[str, bool]] = []
    cur: list[str] = []
    started = False
    i = 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            end = text.find(c, i + 1)
            newline = text.find("\n", i + 1)
            if end < 0 or 0 <= newline < end:
                raise _Unmatched("single" if c == "'" else "double")
            cur.append(text[i + 1 : end])
            started, i = True, end + 1
            continue
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            started, i = True, i + 2
            continue
        if c in " \t\n":
            if started:
                line_end = c == "\n"
                items.append(("".join(cur), line_end))
                cur, started = [], False
            i += 1
            continue
        cur.append(c)
        started, i = True, i + 1
    if started:
        items.append(("".join(cur), True))
    return items


def _line_item(line: str) -> str:
    """``-I``'s item: the line with its quotes and backslashes read."""
    out: list[str] = []
    i = 0
    while i < len(line):
        c = line[i]
        if c in "'\"":
            end = line.find(c, i + 1)
            if end < 0:
                raise _Unmatched("single" if c == "'" else "double")
            out.append(line[i + 1 : end])
            i = end + 1
        elif c == "\\" and i + 1 < len(line):
            out.append(line[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


@applet("xargs")
def _u_xargs(p: _Proc) -> int:
    found, command = _options(list(p.args))
    per_call: int | None = None
    per_lines: int | None = None
    replace: str | None = None
    eof: str | None = None
    delim: str | None = None
    source: str | None = None
    trace = no_empty = False
    limit = ""  # the last of --max-args, --max-lines, --replace given

    def takes(name: str) -> None:
        nonlocal limit
        if limit and limit != name:
            p.err(
                f"warning: options {limit} and {name} are mutually exclusive, ignoring previous {limit} value"
            )
        limit = name

    for letter, value in found:
        if letter == "n":
            takes("--max-args")
            per_call, per_lines, replace = _count(value, "n"), None, None
        elif letter in "Ll":
            takes("--max-lines")
            per_lines, per_call, replace = (_count(value, "L") if letter == "L" or value else 1), None, None
        elif letter in "Ii":
            takes("--replace/-I/-i")
            replace = value if value is not None else "{}"
            per_lines, per_call = 1, None
        elif letter in "Ee":
            eof = value
        elif letter == "0":
            delim = "\0"
        elif letter == "d":
            delim = _delimiter(value or "")
        elif letter == "a":
            source = value
        elif letter == "t":
            trace = True
        elif letter == "r":
            no_empty = True
        elif letter == "p":
            return p.vm._not_simulated([p.name, *p.args], p.ctx)  # it asks on the terminal
    command = command or ["echo"]
    if source is not None:
        try:
            text = p.read(source)
        except FsError as exc:
            p.err(f"Cannot open input file {locale_quote(source)}: {exc.strerror}")
            return 1
    else:
        text = p.stdin()
    try:
        calls = _calls(text, delim, eof, replace, per_call, per_lines)
    except _Unmatched as exc:
        p.err(f"unmatched {exc} quote; by default quotes are special to xargs unless you use the -0 option")
        return 1
    if not calls and not no_empty and replace is None:
        calls = [[]]
    status = 0
    for items in calls:
        argv = [c.replace(replace, items[0]) for c in command] if replace is not None else [*command, *items]
        if trace:
            p.ctx.err.write(" ".join(argv) + "\n")
        code, ran = _run(p, argv)
        if not ran:  # it could not be run: xargs stops with that status
            return code
        if code == 255:
            p.err(f"{argv[0]}: exited with status 255; aborting")
            return 124
        if code:
            status = 123
    return status


def _calls(
    text: str,
    delim: str | None,
    eof: str | None,
    replace: str | None,
    per_call: int | None,
    per_lines: int | None,
) -> list[list[str]]:
    """The argument lists the commands get, in order."""
    if delim is not None:
        parts = text.split(delim)
        if parts and parts[-1] == "":
            parts.pop()
        words = [(part, True) for part in parts]
    elif replace is not None:  # a line is one item (blanks in it too), its leading blanks dropped
        words = [(_line_item(line.lstrip(" \t")), True) for line in text.split("\n") if line.strip(" \t")]
    else:
        words = _words(text)
    if eof is not None:
        for k, (word, _) in enumerate(words):
            if word == eof:
                words = words[:k]
                break
    if per_lines is not None:
        calls: list[list[str]] = []
        current: list[str] = []
        lines = 0
        for word, line_end in words:
            current.append(word)
            if line_end:
                lines += 1
                if lines == per_lines:
                    calls.append(current)
                    current, lines = [], 0
        if current:
            calls.append(current)
        return calls
    items = [word for word, _ in words]
    size = per_call or max(len(items), 1)
    return [items[k : k + size] for k in range(0, len(items), size)]


def _run(p: _Proc, argv: list[str]) -> tuple[int, bool]:
    """Run ``argv`` as execvp would: found on ``PATH``, never a builtin; its status, and False
    where it could not be run at all."""
    vm = p.vm
    found = vm._locate(argv[0]) if "/" not in argv[0] else vm.fs.normalize(argv[0], vm.cwd)
    if found is None or not vm.fs.exists(found):
        p.err(f"{argv[0]}: No such file or directory")
        return 127, False
    node = vm.fs.stat(found)
    if not vm.fs.is_file(found) or not getattr(node, "mode", 0) & 0o111:
        p.err(f"{argv[0]}: Permission denied")
        return 126, False
    return vm._exec_path(found, argv, p.ctx), True

"""uniq as GNU's: runs of equal lines compared after ``-f`` fields and ``-s`` bytes, on at most
``-w`` bytes, ``-i`` ignoring case; ``-c``, ``-d``, ``-D``/``--all-repeated[=METHOD]``,
``--group[=METHOD]``, ``-u``, ``-z``; an output file as the second operand."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _write_or_err, from_host, to_host
from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last, argmatch
from ..quoting import locale_quote, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_BLANKS = " \t"
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: each option's methods, as GNU lists them; the default of a bare option
_METHODS = {"D": ("none", "prepend", "separate"), "group": ("prepend", "append", "separate", "both")}
_DEFAULT = {"D": "none", "group": "separate"}


def _number(value: str | None, what: str) -> int:
    if value is None or not re.fullmatch(r"[0-9]+", value):
        raise _Refused(f"{value}: invalid number of {what}")
    return int(value)


def _method(p: _Proc, option: str, key: str) -> str:
    """The METHOD ``--all-repeated[=]`` (or ``-D``) / ``--group[=]`` was given last."""
    chosen = _DEFAULT[key]
    for a in p.args:
        name, eq, value = a.partition("=")
        if name.startswith("--") and len(name) > 3 and option.startswith(name):  # an abbreviation too
            chosen = argmatch(value, list(_METHODS[key]), option, status=1) if eq else _DEFAULT[key]
        elif a == "-D" and key == "D":
            chosen = _DEFAULT[key]
    return chosen


@applet("uniq")
def _u_uniq(p: _Proc) -> int:
    args = [
        a if not a.startswith(("--all-repeated=", "--group=")) else "--" + a[2:].split("=")[0] for a in p.args
    ]
    opts, files = _getopt(
        args,
        "cdDf:is:uw:z",
        {"count": "c", "repeated": "d", "all-repeated": "D", "skip-fields=": "f", "ignore-case": "i",
         "skip-chars=": "s", "unique": "u", "check-chars=": "w", "zero-terminated": "z", "group": "G"},
    )  # fmt: skip
    all_repeated = _method(p, "--all-repeated", "D") if "D" in opts else None
    group = _method(p, "--group", "group") if "G" in opts else None
    fields = _number(_last(opts, "f"), "fields to skip") if "f" in opts else 0
    chars = _number(_last(opts, "s"), "bytes to skip") if "s" in opts else 0
    width = _number(_last(opts, "w"), "bytes to compare") if "w" in opts else None
    if len(files) > 2:
        raise _UsageError(f"extra operand {locale_quote(files[2])}")
    if all_repeated is not None and "c" in opts:
        raise _UsageError("printing all duplicated lines and repeat counts is meaningless")
    if group is not None and (set(opts) & set("cdDu")):
        raise _UsageError("--group is mutually exclusive with -c/-d/-D/-u")
    name = files[0] if files else "-"
    try:
        text = from_host(p.read(name))
    except FsError as exc:
        p.err(f"{quote_if_needed(name)}: {exc.strerror}")
        return 1
    end = "\0" if "z" in opts else "\n"
    lines = text.split(end)
    if lines and lines[-1] == "":
        lines.pop()

    def key(line: str) -> str:
        pos = 0
        for _ in range(fields):
            while pos < len(line) and line[pos] in _BLANKS:
                pos += 1
            while pos < len(line) and line[pos] not in _BLANKS:
                pos += 1
        part = line[pos + chars :] if width is None else line[pos + chars : pos + chars + width]
        return part.translate(_LOWER) if "i" in opts else part

    runs: list[list[str]] = []
    for line in lines:
        if runs and key(runs[-1][0]) == key(line):
            runs[-1].append(line)
        else:
            runs.append([line])
    out: list[str] = []
    if group is not None:
        for k, run in enumerate(runs):
            if group in ("prepend", "both") or (k and group == "separate"):
                out.append(end)
            out.extend(line + end for line in run)
            if group == "append" or (group == "both" and k == len(runs) - 1):
                out.append(end)
    elif all_repeated is not None:
        shown = 0
        for run in runs:
            if len(run) < 2 or "u" in opts:
                continue
            if all_repeated == "prepend" or (all_repeated == "separate" and shown):
                out.append(end)
            shown += 1
            out.extend(line + end for line in run)
    else:
        for run in runs:
            if ("d" in opts and len(run) < 2) or ("u" in opts and len(run) > 1):
                continue
            out.append((f"{len(run):7d} " if "c" in opts else "") + run[0] + end)
    result = to_host("".join(out))
    if len(files) > 1:
        return 0 if _write_or_err(p, files[1], result) else 1
    p.out(result)
    return 0

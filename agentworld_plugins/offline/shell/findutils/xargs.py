"""xargs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("xargs")
def _u_xargs(p: _Proc) -> int:
    args = list(p.args)
    per_call = None
    replace = None
    null = False
    no_empty = False
    delim = None
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "-n" and args:
            per_call = int(args.pop(0))
        elif a.startswith("-n") and a[2:].isdigit():
            per_call = int(a[2:])
        elif a == "-I":
            if not args:
                raise _UsageError("option requires an argument -- 'I'")
            replace = args.pop(0)
        elif a.startswith("-I"):
            replace = a[2:]
        elif a in ("-0", "--null"):
            null = True
        elif a in ("-r", "--no-run-if-empty"):
            no_empty = True
        elif a == "-d" and args:
            delim = args.pop(0)
        elif a == "-P" and args:
            args.pop(0)
        elif a.startswith("-P") or a in ("-t", "-p", "--verbose"):
            continue
        elif a == "--":
            break
        else:
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
    command = args or ["echo"]
    text = p.stdin()
    if null:
        items = [t for t in text.split("\0") if t]
    elif delim is not None:
        items = [t for t in text.split(delim.replace("\\n", "\n")) if t]
    elif replace is not None:
        items = [line.strip() for line in text.split("\n") if line.strip()]
    else:
        items = _xargs_split(text)
    vm = p.vm
    if not items:
        if no_empty or replace is not None:
            return 0
        return vm._invoke(list(command), p.ctx)
    status = 0
    if replace is not None:
        for item in items:
            rc = vm._invoke([c.replace(replace, item) for c in command], p.ctx)
            status = 123 if rc else status
        return status
    size = per_call or len(items)
    for k in range(0, len(items), size):
        rc = vm._invoke([*command, *items[k : k + size]], p.ctx)
        if rc == 127:
            return 127
        if rc:
            status = 123
    return status


def _xargs_split(text: str) -> list[str]:
    items: list[str] = []
    cur: list[str] = []
    quote = ""
    started = False
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            else:
                cur.append(c)
        elif c in "'\"":
            quote = c
            started = True
        elif c == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            started = True
            i += 1
        elif c.isspace():
            if started:
                items.append("".join(cur))
                cur = []
                started = False
        else:
            cur.append(c)
            started = True
        i += 1
    if started:
        items.append("".join(cur))
    return items

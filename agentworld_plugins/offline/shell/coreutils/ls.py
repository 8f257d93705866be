"""ls: long listings, columns, indicators and sorting."""

from __future__ import annotations

import math
import posixpath
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError, LinkNode, Node, mode_string
from ..applet_io import _join
from ..constants import COLUMNS
from ..dates import format_date
from ..errors import _UsageError
from ..fileinfo import _blocks, _nlink, human_size, is_recent, ls_time
from ..getopt import _getopt, _last
from ..locales import environment, is_utf8
from ..quoting import _SAFE_NAME, locale_quote, quote_always, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


#: the formats of ``--time-style`` (for files older than six months, for recent ones); None: the
#: locale's (the C locale's ``Mar  5  2024`` / ``Mar  5 14:07``)
_STYLES: dict[str, tuple[str, str] | None] = {
    "full-iso": ("%Y-%m-%d %H:%M:%S.%N %z", "%Y-%m-%d %H:%M:%S.%N %z"),
    "long-iso": ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M"),
    "iso": ("%Y-%m-%d ", "%m-%d %H:%M"),
    "locale": None,
}
_STYLE_CHOICES = (
    "  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n"
    "  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\n"
)
_TIMES = {"atime": "u", "access": "u", "use": "u", "ctime": "c", "status": "c", "birth": "", "creation": ""}
_TIME_CHOICES = "  - \u2018atime\u2019, \u2018access\u2019, \u2018use\u2019\n  - \u2018ctime\u2019, \u2018status\u2019\n  - \u2018birth\u2019, \u2018creation\u2019\n"


def _argmatch(
    value: str, choices: list[str], what: str, valid: str, utf8: bool = True, status: int = 2
) -> str:
    """GNU argmatch: the choice ``value`` names, whole or by an unambiguous start."""
    if value in choices:
        return value
    found = [c for c in choices if c.startswith(value)]
    if len(found) == 1:
        return found[0]
    kind = "ambiguous" if found else "invalid"
    quote = locale_quote if utf8 else (lambda text: f"'{text}'")
    if not utf8:
        valid = valid.replace("\u2018", "'").replace("\u2019", "'")
    message = f"{kind} argument {quote(value)} for {quote(what)}\nValid arguments are:\n{valid}"
    raise _UsageError(message.rstrip("\n"), status=status)


def _time_formats(style: str, env: dict[str, str]) -> tuple[str, str] | None:
    """The (old, recent) formats of a ``--time-style`` / ``TIME_STYLE`` value."""
    while style.startswith("posix-"):
        if not is_utf8(env, "LC_TIME"):  # in the C/POSIX locale a posix- style is the locale's
            return None
        style = style[6:]
    if style.startswith("+"):
        old, _, recent = style[1:].partition("\n")
        return old, recent if _ else old
    utf8 = is_utf8(env, "LC_MESSAGES")
    return _STYLES[_argmatch(style, list(_STYLES), "time style", _STYLE_CHOICES, utf8)]


def _when(mtime: int, now: int, formats: tuple[str, str] | None) -> str:
    if formats is None:
        return ls_time(mtime, now)
    return format_date(mtime, formats[1] if is_recent(mtime, now) else formats[0])


def _indicator(node: Node) -> str:
    if isinstance(node, DirNode):
        return "/"
    if isinstance(node, LinkNode):
        return "@"
    return "*" if node.mode & 0o111 else ""


def columns(names: list[str], width: int = COLUMNS) -> list[str]:
    """Names laid out in vertical columns the way GNU ``ls`` does on a terminal."""
    if not names:
        return []
    n = len(names)
    lens = [len(x) for x in names]
    best_rows, best_widths = n, [max(lens)]
    for cols in range(min(n, max(1, width // 3)), 0, -1):
        rows = math.ceil(n / cols)
        used_cols = math.ceil(n / rows)
        widths = [max(lens[c * rows : (c + 1) * rows]) for c in range(used_cols)]
        line = sum(w + 2 for w in widths[:-1]) + widths[-1]
        if line < width:
            best_rows, best_widths = rows, widths
            break
    out = []
    for r in range(best_rows):
        cells = []
        for c in range(len(best_widths)):
            idx = c * best_rows + r
            if idx >= n:
                break
            last = c == len(best_widths) - 1 or (c + 1) * best_rows + r >= n
            cells.append(names[idx] if last else names[idx].ljust(best_widths[c] + 2))
        out.append("".join(cells))
    return out


@applet("ls")
def _u_ls(p: _Proc) -> int:
    opts, ops = _getopt(
        p.args,
        "aAlR1dFhrtSCUpinGgouc",
        {
            "all": "a",
            "almost-all": "A",
            "recursive": "R",
            "human-readable": "h",
            "reverse": "r",
            "directory": "d",
            "classify": "F",
            "color": None,
            "color=": None,
            "group-directories-first": "group",
            "format=": None,
            "time-style=": "time-style",
            "full-time": "full-time",
            "time=": "time",
        },
        status=2,
    )
    env = environment(p.vm)
    utf8 = is_utf8(env, "LC_MESSAGES")
    if "time" in opts:
        _argmatch(_last(opts, "time") or "", list(_TIMES), "--time", _TIME_CHOICES, utf8, status=1)
    long = "l" in opts or "g" in opts or "o" in opts or "full-time" in opts
    style = _last(opts, "time-style")
    if style is None:
        style = "full-iso" if "full-time" in opts else env.get("TIME_STYLE") or "locale"
    formats = _time_formats(style, env) if long else None  # GNU reads the style for -l only
    fs = p.fs
    tty = p.ctx.out.tty
    one = "1" in opts or (not tty and "C" not in opts)
    show_all = "a" in opts
    almost = "A" in opts
    status = 0
    now = fs.now()

    def sort_entries(entries: list[tuple[str, Node]]) -> list[tuple[str, Node]]:
        if "U" in opts:
            return entries
        entries = sorted(entries, key=lambda e: e[0])
        if "t" in opts:
            entries = sorted(entries, key=lambda e: -e[1].mtime)
        elif "S" in opts:
            entries = sorted(entries, key=lambda e: -_size(e[1]))
        if "r" in opts:
            entries.reverse()
        return entries

    def _size(node: Node) -> int:
        return node.size if hasattr(node, "size") else 0  # type: ignore[attr-defined]

    def name_of(name: str, node: Node) -> str:
        shown = quote_if_needed(name) if tty and not _SAFE_NAME.fullmatch(name) else name
        if "F" in opts:
            if long and isinstance(node, LinkNode):
                return shown
            shown += _indicator(node)
        elif "p" in opts and isinstance(node, DirNode):
            shown += "/"
        return shown

    def render(entries: list[tuple[str, Node]], with_total: bool) -> list[str]:
        if not long:
            names = [name_of(n, node) for n, node in entries]
            return names if one else columns(names)
        rows = []
        for name, node in entries:
            size = human_size(_size(node)) if "h" in opts else str(_size(node))
            shown = name_of(name, node)
            if isinstance(node, LinkNode):
                shown += f" -> {node.target}"
            rows.append((mode_string(node), str(_nlink(node)), size, _when(node.mtime, now, formats), shown))
        lw = max((len(r[1]) for r in rows), default=1)
        sw = max((len(r[2]) for r in rows), default=1)
        lines = []
        if with_total:
            total = sum(_blocks(node) for _, node in entries)
            lines.append(f"total {human_size(total * 1024) if 'h' in opts else total}")
        for mode, nlink, size, when, shown in rows:
            owner = "" if "g" in opts else "root "
            group = "" if "o" in opts else "root "
            lines.append(f"{mode} {nlink.rjust(lw)} {owner}{group}{size.rjust(sw)} {when} {shown}")
        return lines

    def dir_entries(path: str, node: DirNode) -> list[tuple[str, Node]]:
        entries = [(n, c) for n, c in node.children.items() if show_all or almost or not n.startswith(".")]
        if show_all:
            parent = fs.stat(posixpath.dirname(path)) if path != "/" else node
            entries += [(".", node), ("..", parent)]
        return sort_entries(entries)

    files: list[tuple[str, Node]] = []
    dirs: list[tuple[str, str, DirNode]] = []
    for op in ops or ["."]:
        path = p.path(op)
        try:
            node = fs.lstat(path)
            if isinstance(node, LinkNode) and ((not long and "d" not in opts) or op.endswith("/")):
                node = fs.stat(path)
        except FsError as exc:
            p.err(f"cannot access {quote_always(op)}: {exc.strerror}")
            status = 2
            continue
        if isinstance(node, DirNode) and "d" not in opts:
            dirs.append((op, path, node))
        else:
            files.append((op, node))
    out: list[str] = []
    printed = False
    if files:
        out.extend(render(sort_entries(files), with_total=False))
        printed = True
    dirs.sort(key=lambda d: d[0])
    if "r" in opts:
        dirs.reverse()
    headers = len(ops) > 1 or "R" in opts or bool(files)
    queue = list(dirs)
    while queue:
        shown, path, node = queue.pop(0)
        if printed:
            out.append("")
        if headers:
            out.append(f"{shown}:")
        entries = dir_entries(path, node)
        out.extend(render(entries, with_total=True))
        printed = True
        if "R" in opts:
            subs = [
                (_join(shown, n), posixpath.join(path, n), c)
                for n, c in entries
                if isinstance(c, DirNode) and n not in (".", "..")
            ]
            queue = subs + queue  # type: ignore[operator]
    if out:
        p.out("\n".join(out) + "\n")
    return status

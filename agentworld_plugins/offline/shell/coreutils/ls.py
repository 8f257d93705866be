"""ls: long listings, columns, indicators and sorting."""

from __future__ import annotations

import math
import posixpath
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError, LinkNode, Node, mode_string
from ..applet_io import _join
from ..constants import COLUMNS
from ..dates import format_date
from ..fileinfo import _blocks, _nlink, human_size, is_recent, ls_time
from ..getopt import _getopt, _last, argmatch
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
    return _STYLES[argmatch(style, list(_STYLES), "time style", _STYLE_CHOICES, utf8)]


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


def _pad(start: int, end: int, tabs: bool) -> str:
    """GNU ls's indent from column ``start`` to ``end``: tabs (every 8) where one fits, else
    spaces; spaces only where the names go to a terminal here."""
    if not tabs:
        return " " * (end - start)
    out = []
    while start < end:
        if end // 8 > (start + 1) // 8:
            out.append("\t")
            start += 8 - start % 8
        else:
            out.append(" ")
            start += 1
    return "".join(out)


def columns(names: list[str], width: int = COLUMNS, across: bool = False, tabs: bool = False) -> list[str]:
    """Names laid out in columns as GNU ``ls`` lays them out: down each column (``-C``) or across
    the rows (``-x``), as many columns as fit in ``width``."""
    if not names:
        return []
    n = len(names)
    lens = [len(x) for x in names]
    best_cols, best_widths = 1, [max(lens)]
    for cols in range(min(n, max(1, width // 3)), 0, -1):
        rows = math.ceil(n / cols)
        used = cols if across else math.ceil(n / rows)
        slots = [[k for k in range(n) if (k % cols if across else k // rows) == c] for c in range(used)]
        widths = [max(lens[k] for k in slot) + 2 for slot in slots]
        if sum(widths) - 2 < width:
            best_cols, best_widths = used, widths
            break
    rows = math.ceil(n / best_cols)
    out = []
    for r in range(rows):
        cells = [r * best_cols + c if across else c * rows + r for c in range(best_cols)]
        cells = [k for k in cells if k < n]
        line, pos = [], 0
        for c, k in enumerate(cells):
            line.append(names[k])
            if c < len(cells) - 1:
                line.append(_pad(pos + lens[k], pos + best_widths[c], tabs))
            pos += best_widths[c]
        out.append("".join(line))
    return out


#: ``--format=``'s words and the option each stands for
_FORMATS = {"across": "x", "horizontal": "x", "commas": "m", "long": "l", "verbose": "l", "single-column": "1",
            "vertical": "C"}  # fmt: skip


def _layout(args: list[str]) -> str | None:
    """The last of -1, -C, -x, -m, -l (or ``--format=``) given: GNU's last one wins."""
    chosen = None
    for a in args:
        if a == "--":
            break
        if a.startswith("--format="):
            chosen = _FORMATS.get(a[9:], chosen)
        elif a.startswith("-") and not a.startswith("--"):
            for c in a[1:]:
                if c in "1Cxml":
                    chosen = c
    return chosen


#: quoting styles (``--quoting-style``) and the options that stand for some
_QUOTING = ("literal", "shell", "shell-always", "shell-escape", "shell-escape-always", "c", "c-maybe",
            "escape", "locale", "clocale")  # fmt: skip
_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
              "\v": "\\v", "\\": "\\\\"}  # fmt: skip


def _quoting_style(args: list[str], tty: bool, utf8: bool) -> str:
    """The quoting style the last of -N, -Q, -b, --quoting-style= names (default: shell-escape on
    a terminal, literal elsewhere)."""
    style = "shell-escape" if tty else "literal"
    for a in args:
        if a == "--":
            break
        if a.startswith("--quoting-style="):
            style = argmatch(a[16:], list(_QUOTING), "--quoting-style", utf8=utf8, status=1)
        elif a in ("--literal", "--quote-name", "--escape"):
            style = {"--literal": "literal", "--quote-name": "c", "--escape": "escape"}[a]
        elif a.startswith("-") and not a.startswith("--"):
            for c in a[1:]:
                if c in "NQb":
                    style = {"N": "literal", "Q": "c", "b": "escape"}[c]
    return style


def _quoted(name: str, style: str) -> str:
    if style == "literal":
        return name
    if style in ("shell", "shell-escape"):
        return quote_if_needed(name) if not _SAFE_NAME.fullmatch(name) else name
    if style in ("shell-always", "shell-escape-always"):
        return quote_always(name)
    body = "".join(_C_ESCAPES.get(c, c if c.isprintable() else f"\\{ord(c) & 0xFF:03o}") for c in name)
    if style == "escape":
        return body.replace(" ", "\\ ")
    if style in ("c", "c-maybe"):
        return '"' + body.replace('"', '\\"') + '"'
    return locale_quote(name)


def _commas(names: list[str], width: int = COLUMNS) -> list[str]:
    """``ls -m``: names after commas, a line broken where the next would reach the width."""
    lines, line, pos = [], "", 0
    for k, name in enumerate(names):
        if k:
            if pos + len(name) + 2 < width:
                line += ", "
                pos += 2
            else:
                lines.append(line + ",")
                line, pos = "", 0
        line += name
        pos += len(name)
    return [*lines, line]


def _block_size(node: Node, human: bool) -> str:
    return human_size(_blocks(node) * 1024) if human else str(_blocks(node))


@applet("ls")
def _u_ls(p: _Proc) -> int:
    opts, ops = _getopt(
        p.args,
        "aAlR1dFhrtSCUpinGgoucxmQbNs",
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
            "format=": "format",
            "quote-name": "Q",
            "escape": "b",
            "literal": "N",
            "quoting-style=": "quoting",
            "size": "s",
            "time-style=": "time-style",
            "full-time": "full-time",
            "time=": "time",
        },
        status=2,
    )
    env = environment(p.vm)
    utf8 = is_utf8(env, "LC_MESSAGES")
    if "time" in opts:
        argmatch(_last(opts, "time") or "", list(_TIMES), "--time", _TIME_CHOICES, utf8, status=1)
    long = "l" in opts or "g" in opts or "o" in opts or "full-time" in opts
    style = _last(opts, "time-style")
    if style is None:
        style = "full-iso" if "full-time" in opts else env.get("TIME_STYLE") or "locale"
    formats = _time_formats(style, env) if long else None  # GNU reads the style for -l only
    fs = p.fs
    tty = p.ctx.out.tty
    layout = _layout(p.args)
    if layout == "l":
        long = True
    one = layout == "1" or (layout is None and not tty)
    quoting = _quoting_style(p.args, tty, utf8)
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
        shown = _quoted(name, quoting)
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
            if "s" in opts:  # each name after its size in blocks
                sizes = [_block_size(node, "h" in opts) for _, node in entries]
                digits = max((len(x) for x in sizes), default=0)
                names = [f"{size.rjust(digits)} {name}" for size, name in zip(sizes, names)]
            # the terminal's width, or (to a pipe or file) $COLUMNS, else 80
            width = COLUMNS if tty else int(env["COLUMNS"]) if env.get("COLUMNS", "").isdigit() else 80
            if one:
                lines = names
            elif layout == "m":
                lines = _commas(names, width)
            else:
                lines = columns(names, width, across=layout == "x", tabs=not tty)
            if "s" in opts and with_total:
                total = sum(_blocks(node) for _, node in entries)
                lines = [f"total {human_size(total * 1024) if 'h' in opts else total}", *lines]
            return lines
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

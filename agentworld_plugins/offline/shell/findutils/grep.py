"""grep, egrep and fgrep."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from ...vfs import DirNode, FileNode, FsError, as_text, is_binary
from ..applet_io import _join, _lines
from ..getopt import _getopt, _last
from ..patterns import _regex_error, glob_regex, posix_regex
from ..regex import compile_regex
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _grep_regex(p: _Proc, patterns: list[str], opts: dict[str, Any]) -> re.Pattern[str]:
    flags = re.IGNORECASE if ("i" in opts or "y" in opts) else 0
    alts = []
    for pat in patterns:
        for piece in pat.split("\n"):
            if "F" in opts:
                rx = re.escape(piece)
            elif "P" in opts:
                rx = piece
            else:
                rx = posix_regex(piece, "E" in opts)
            if "w" in opts:
                rx = rf"(?<![A-Za-z0-9_])(?:{rx})(?![A-Za-z0-9_])"
            if "x" in opts:
                rx = rf"^(?:{rx})$"
            alts.append(f"(?:{rx})")
    return compile_regex("|".join(alts) or "(?!)", flags)  # type: ignore[no-any-return]


@applet("grep", "egrep", "fgrep")
def _u_grep(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "ivncltLrRhHwxEFGPoqse:f:A:B:C:m:ZzaIy",
        {
            "ignore-case": "i",
            "invert-match": "v",
            "line-number": "n",
            "count": "c",
            "files-with-matches": "l",
            "files-without-match": "L",
            "recursive": "r",
            "dereference-recursive": "R",
            "no-filename": "h",
            "with-filename": "H",
            "word-regexp": "w",
            "line-regexp": "x",
            "extended-regexp": "E",
            "fixed-strings": "F",
            "perl-regexp": "P",
            "only-matching": "o",
            "quiet": "q",
            "silent": "q",
            "no-messages": "s",
            "regexp=": "e",
            "file=": "f",
            "after-context=": "A",
            "before-context=": "B",
            "context=": "C",
            "max-count=": "m",
            "include=": "include",
            "exclude=": "exclude",
            "exclude-dir=": "exclude-dir",
            "color": None,
            "colour": None,
            "color=": None,
            "colour=": None,
            "text": "a",
            "binary-files=": None,
        },
        status=2,
    )
    if p.name.endswith("egrep"):
        opts["E"] = 1
    if p.name.endswith("fgrep"):
        opts["F"] = 1
    patterns = list(opts.get("e", []))
    for fname in opts.get("f", []):
        try:
            patterns.extend(_lines(p.read(fname)))
        except FsError as exc:
            p.err(f"{fname}: {exc.strerror}")
            return 2
    if not patterns:
        if not operands:
            p.ctx.err.write(f"Usage: {p.name} [OPTION]... PATTERNS [FILE]...\n")
            p.try_help()
            return 2
        patterns = [operands.pop(0)]
    try:
        rx = _grep_regex(p, patterns, opts)
    except re.error as exc:
        p.err(_regex_error(exc))
        return 2
    recursive = "r" in opts or "R" in opts
    files = operands or (["."] if recursive else ["-"])
    implicit_dot = recursive and not operands
    numbers: dict[str, int] = {}
    for key in "ABCm":
        value = _last(opts, key)
        if value is None:
            continue
        if not re.fullmatch(r"\d+", value):
            p.err("invalid max count" if key == "m" else f"{value}: invalid context length argument")
            return 2
        numbers[key] = int(value)
    after = numbers.get("A", numbers.get("C", 0))
    before = numbers.get("B", numbers.get("C", 0))
    max_count = numbers.get("m", -1)
    includes = opts.get("include", [])
    excludes = opts.get("exclude", [])
    exclude_dirs = opts.get("exclude-dir", [])
    targets: list[tuple[str, str | None]] = []  # (shown name, path or None for stdin)
    errors = False
    for name in files:
        if name == "-":
            targets.append(("(standard input)", None))
            continue
        path = p.path(name)
        try:
            node = p.fs.stat(path)
        except FsError as exc:
            if "s" not in opts:
                p.err(f"{name}: {exc.strerror}")
            errors = True
            continue
        if isinstance(node, DirNode):
            if not recursive:
                if "s" not in opts:
                    p.err(f"{name}: Is a directory")
                errors = True
                continue
            for dirpath, dirnames, filenames in p.fs.walk(path):
                dirnames[:] = [d for d in dirnames if not any(glob_regex(g).match(d) for g in exclude_dirs)]
                rel = dirpath[len(path) :].lstrip("/")
                for fname in filenames:
                    relname = posixpath.join(rel, fname) if rel else fname
                    shown = relname if implicit_dot else _join(name, relname)
                    targets.append((shown, posixpath.join(dirpath, fname)))
        else:
            targets.append((name, path))
    if includes or excludes:
        targets = [
            t
            for t in targets
            if t[1] is None
            or (
                (not includes or any(glob_regex(g).match(posixpath.basename(t[0])) for g in includes))
                and not any(glob_regex(g).match(posixpath.basename(t[0])) for g in excludes)
            )
        ]
    dir_operand = recursive and (implicit_dot or any(p.fs.is_dir(p.path(f)) for f in files if f != "-"))
    with_name = ("H" in opts or len(files) > 1 or dir_operand) and "h" not in opts
    invert = "v" in opts
    any_match = False
    out: list[str] = []
    for shown, target_path in targets:
        if target_path is None:
            text = p.stdin()
        else:
            try:
                node = p.fs.stat(target_path)
                if not isinstance(node, FileNode):
                    continue
                text = as_text(node.content) if target_path != "/dev/null" else ""
            except FsError:
                continue
        binary = is_binary(text) and "a" not in opts
        if binary and "I" in opts:
            continue
        lines = _lines(text)
        matched: list[int] = []
        for k, line in enumerate(lines):
            if bool(rx.search(line)) != invert:
                matched.append(k)
                if max_count >= 0 and len(matched) >= max_count:
                    break
        if matched:
            any_match = True
        if "q" in opts:
            if any_match:
                break
            continue
        prefix = f"{shown}:" if with_name else ""
        if "c" in opts:
            out.append(f"{prefix}{len(matched)}\n")
            continue
        if "l" in opts:
            if matched:
                out.append(shown + "\n")
            continue
        if "L" in opts:
            if not matched:
                out.append(shown + "\n")
            continue
        if not matched:
            continue
        if binary:
            p.ctx.out.write("".join(out))
            out = []
            p.ctx.err.write(f"{p.name}: {shown}: binary file matches\n")
            continue
        if after or before:
            shown_lines: set[int] = set()
            last_printed = -2
            for k in matched:
                lo, hi = max(0, k - before), min(len(lines) - 1, k + after)
                if last_printed >= 0 and lo > last_printed + 1:
                    out.append("--\n")
                for j in range(lo, hi + 1):
                    if j in shown_lines:
                        continue
                    shown_lines.add(j)
                    sep = ":" if j in matched else "-"
                    name_part = f"{shown}{sep}" if with_name else ""
                    num = f"{j + 1}{sep}" if "n" in opts else ""
                    out.append(f"{name_part}{num}{lines[j]}\n")
                    last_printed = j
            continue
        for k in matched:
            num = f"{k + 1}:" if "n" in opts else ""
            if "o" in opts and not invert:
                for m in rx.finditer(lines[k]):
                    if m.group(0):
                        out.append(f"{prefix}{num}{m.group(0)}\n")
            else:
                out.append(f"{prefix}{num}{lines[k]}\n")
    p.out("".join(out))
    if errors and not ("q" in opts and any_match):
        return 2
    return 0 if any_match else 1

"""grep, egrep and fgrep."""

from __future__ import annotations

import posixpath
import re
from collections import deque
from collections.abc import Generator, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any

from ...vfs import DirNode, FileNode, FsError, as_text, is_binary
from ..applet_io import _join, _lines
from ..getopt import _getopt, _last
from ..patterns import _regex_error, glob_regex, posix_regex
from ..pipes import streaming
from ..proc import _split_lines
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
            if "x" in opts:
                rx = rf"^(?:{rx})$"
            alts.append(f"(?:{rx})")
    if not alts:
        return compile_regex("(?!)", flags)  # type: ignore[no-any-return]
    compiled = compile_regex("|".join(alts), flags)
    if "w" in opts and "x" not in opts:
        return _WholeWords(compiled)  # type: ignore[return-value]
    return compiled  # type: ignore[no-any-return]


def _is_word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


class _WholeWords:
    """``grep -w``: a match of the pattern with no word character just before or after it (GNU
    grep's test, run on the linear-time matcher's matches instead of a look-around)."""

    def __init__(self, rx: Any) -> None:
        self.rx = rx

    def search(self, text: str, pos: int = 0) -> Any:
        while pos <= len(text):
            m = self.rx.search(text, pos)
            if m is None:
                return None
            if not _is_word(text, m.start() - 1) and not _is_word(text, m.end()):
                return m
            pos = m.start() + 1
        return None

    def finditer(self, text: str) -> Any:
        pos = 0
        while (m := self.search(text, pos)) is not None:
            yield m
            pos = m.end() if m.end() > m.start() else m.end() + 1


@applet("grep", "egrep", "fgrep")
@streaming()
def _u_grep(p: _Proc) -> Generator[str, None, int]:
    """grep, streaming: it reads only as far as it needs (``-m``, ``-q``, a reader that stops)."""
    opts, operands = _getopt(
        p.args,
        "ivncltLrRhHwxEFGPoqse:f:A:B:C:m:ZzaIyb",
        {
            "ignore-case": "i",
            "invert-match": "v",
            "line-number": "n",
            "byte-offset": "b",
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
        if path in ("/dev/stdin", "/proc/self/fd/0"):  # standard input, named as given
            targets.append((name, None))
            continue
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
    matcher = _Matcher(p, rx, opts, after, before, max_count, with_name)
    out: list[str] = []
    for shown, target_path in targets:
        lines: Iterator[str]
        if target_path is None:  # binary or not, as grep decides: by its first buffer
            stdin = p.ctx.stdin
            if stdin.seekable:  # `< file`: grep -m leaves the offset after the last line it used
                first = stdin.peek()
                lines = stdin.lines()
            else:
                first = stdin.read_chunk() or ""
                lines = _split_lines(chain([first], stdin.chunks()))
        else:
            try:
                node = p.fs.stat(target_path)
                if not isinstance(node, FileNode):
                    continue
                first = as_text(node.content) if target_path != "/dev/null" else ""
            except FsError:
                continue
            lines = _split_lines([first])
        binary = is_binary(first) and "a" not in opts
        if binary and "I" in opts:
            continue
        # output goes on as the input is read: a pipe's reader may stop this grep early
        for piece in matcher.scan(shown, lines, binary):
            if piece:
                out.append(piece)
            else:  # a pause every few hundred lines read: hand over what was found, if anything
                yield "".join(out)
                out = []
        if "q" in opts and matcher.any_match:
            break
    yield "".join(out)
    if errors and not ("q" in opts and matcher.any_match):
        return 2
    return 0 if matcher.any_match else 1


class _Matcher:
    """grep's scan of one input's lines, streaming: context lines (-A/-B/-C) from a window of
    lines before and a count after, -m, -c, -l/-L, -q, -o, -n. ``scan`` yields output pieces, and
    an empty string now and then so that its caller can pass on what was found so far."""

    def __init__(
        self,
        p: _Proc,
        rx: re.Pattern[str],
        opts: dict[str, Any],
        after: int,
        before: int,
        max_count: int,
        with_name: bool,
    ) -> None:
        self.p = p
        self.rx = rx
        self.opts = opts
        self.after = after
        self.before = before
        self.max_count = max_count
        self.with_name = with_name
        self.any_match = False
        #: a group of context lines was printed (the next one, in any file, follows a `--`)
        self.printed = False

    def scan(self, shown: str, lines: Iterator[str], binary: bool) -> Iterator[str]:
        opts = self.opts
        rx, invert, numbered = self.rx, "v" in opts, "n" in opts
        only = "o" in opts and not invert
        context = bool(self.after or self.before)
        summary = next((k for k in "qclL" if k in opts), None)
        nul = "Z" in opts  # -Z: a NUL after each file name, not its ':' or newline
        prefix = f"{shown}{chr(0) if nul else ':'}" if self.with_name else ""
        window: deque[tuple[int, str, int]] = deque(maxlen=self.before or None)
        last_printed = -1
        after_left = 0
        count = 0
        offsets = "b" in opts  # -b: each line's (or match's) byte offset in its input
        at = 0  # the bytes before this line
        end = 0
        for k, raw in enumerate(lines if self.max_count else ()):
            if not k % 256:
                yield ""
            line = raw[:-1] if raw.endswith("\n") else raw
            if offsets:
                at, end = end, end + len(raw.encode("utf-8", "surrogateescape"))
            if self.max_count >= 0 and count >= self.max_count:
                if not after_left or summary or binary:
                    break
                yield self._context_line(shown, k, line, "-", at)  # trailing context after -m
                after_left -= 1
                continue
            if bool(rx.search(line)) == invert:
                if after_left and context and not summary and not binary:
                    yield self._context_line(shown, k, line, "-", at)
                    last_printed = k
                    after_left -= 1
                elif self.before:
                    window.append((k, line, at))
                continue
            count += 1
            self.any_match = True
            if summary in ("q", "l", "L"):
                break
            if summary == "c":
                pass
            elif binary:
                yield ""  # what was found before goes out first
                self.p.ctx.err.write(f"{self.p.name}: {shown}: binary file matches\n")
                break
            elif context:
                start = window[0][0] if window else k
                if self.printed and (last_printed < 0 or start > last_printed + 1):
                    yield "--\n"  # between groups of context, in one file or across files
                self.printed = True
                for j, text, off in window:
                    yield self._context_line(shown, j, text, "-", off)
                window.clear()
                yield self._context_line(shown, k, line, ":", at)
                last_printed = k
                after_left = self.after
            else:
                num = f"{k + 1}:" if numbered else ""
                if only:
                    for m in rx.finditer(line):
                        if m.group(0):
                            where = ""
                            if offsets:  # the match's own offset
                                where = f"{at + len(line[: m.start()].encode('utf-8', 'surrogateescape'))}:"
                            yield f"{prefix}{num}{where}{m.group(0)}\n"
                else:
                    yield f"{prefix}{num}{f'{at}:' if offsets else ''}{line}\n"
            if count == self.max_count and not after_left:
                break  # -m: read no further (from a file, the offset stays just after this line)
        if summary == "c":
            yield f"{prefix}{count}\n"
        elif (summary == "l" and count) or (summary == "L" and not count):
            yield shown + ("\0" if nul else "\n")

    def _context_line(self, shown: str, k: int, line: str, sep: str, at: int) -> str:
        name = f"{shown}{chr(0) if 'Z' in self.opts else sep}" if self.with_name else ""
        num = f"{k + 1}{sep}" if "n" in self.opts else ""
        off = f"{at}{sep}" if "b" in self.opts else ""
        return f"{name}{num}{off}{line}\n"

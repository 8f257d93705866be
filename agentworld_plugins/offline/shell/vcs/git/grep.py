"""``git grep``: tracked files of the work tree (or the index with ``--cached``, untracked ones
too with ``--untracked``, or the trees of named revisions, ``REV:path``), under the current
folder and the pathspecs (globs match across folders, as git's do). Patterns (``-e``, ``-E``,
``-F``, ``-i``, ``-w``, ``-v``; ``--and``, ``--or``, ``--not`` between them) and output as git's:
``-n``, ``--column``, ``-c``, ``-l``/``--name-only``, ``-L``, ``-h``/``-H``, ``-o``, ``-q``, ``-z``,
``-A``/``-B``/``-C``/``-NUM`` context with ``--`` between groups, ``-p`` (the function line
before a match, marked ``=``); options after the first non-option refused as git refuses them."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...limits import current
from ...patterns import posix_regex
from ...regex import compile_regex
from ...xemit import is_function_line
from .repo import GitError, Repo
from .text import shown_path
from .work import need_repo, pathspec_filter, under

if TYPE_CHECKING:
    from ...proc import _Proc

_FLAGS = {"-n": "n", "--line-number": "n", "-i": "i", "--ignore-case": "i", "-l": "l", "--files-with-matches": "l",
          "--name-only": "l", "-L": "L", "--files-without-match": "L", "-c": "c", "--count": "c", "-w": "w",
          "--word-regexp": "w", "-E": "E", "--extended-regexp": "E", "-F": "F", "--fixed-strings": "F",
          "-G": "G", "--basic-regexp": "G", "-v": "v", "--invert-match": "v", "-h": "h", "-H": "H",
          "-o": "o", "--only-matching": "o", "-q": "q", "--quiet": "q", "-z": "z", "--null": "z",
          "-p": "p", "--show-function": "p", "--column": "col", "--cached": "cached",
          "--untracked": "untracked", "-I": "I", "-P": "P", "--perl-regexp": "P", "--full-name": "full", "-a": "a", "--text": "a"}  # fmt: skip
_VALUED = {"-A": "A", "--after-context": "A", "-B": "B", "--before-context": "B", "-C": "C", "--context": "C",
           "-e": "e", "-m": "m", "--max-count": "m"}  # fmt: skip
_UNSIMULATED = ("-W", "--function-context", "--no-index", "-f", "--threads", "--max-depth",
                "(", ")", "--all-match", "--recurse-submodules", "-O", "--open-files-in-pager")  # fmt: skip


class _Pattern:
    """The patterns and ``--and``/``--or``/``--not`` between them (``--not`` binds tightest, then
    ``--and``; patterns side by side are alternatives), as one test on a line."""

    def __init__(self, items: list[str], flags: set[str]) -> None:
        self.flags = flags
        self.items = items
        self.k = 0
        self.positive: list[re.Pattern[str]] = []
        self.tree = self._or()
        if self.k < len(items):
            raise GitError("incomplete pattern expression: " + " ".join(items[self.k :]))

    def _or(self) -> tuple:  # type: ignore[type-arg]
        node = self._and()
        while self.k < len(self.items) and self.items[self.k] != "--and":
            if self.items[self.k] == "--or":
                self.k += 1
            node = ("or", node, self._and())
        return node

    def _and(self) -> tuple:  # type: ignore[type-arg]
        node = self._not()
        while self.k < len(self.items) and self.items[self.k] == "--and":
            self.k += 1
            node = ("and", node, self._not())
        return node

    def _not(self, negated: bool = False) -> tuple:  # type: ignore[type-arg]
        if self.k >= len(self.items):
            raise GitError("incomplete pattern expression")
        item = self.items[self.k]
        self.k += 1
        if item == "--not":
            return ("not", self._not(not negated))
        if item in ("--and", "--or"):
            raise GitError(f"not a pattern expression {item}")
        rx = self._compile(item)
        if not negated:
            self.positive.append(rx)
        return ("rx", rx)

    def _eval(self, node: tuple, line: str) -> bool:  # type: ignore[type-arg]
        kind = node[0]
        if kind == "rx":
            return node[1].search(line) is not None
        if kind == "not":
            return not self._eval(node[1], line)
        if kind == "and":
            return self._eval(node[1], line) and self._eval(node[2], line)
        return self._eval(node[1], line) or self._eval(node[2], line)

    def _compile(self, pattern: str) -> re.Pattern[str]:
        if "F" in self.flags:
            text = re.escape(pattern)
        elif "P" in self.flags:  # Perl's syntax, which Python's regexes share for what people write
            text = pattern
        else:
            text = posix_regex(pattern, "E" in self.flags)
        if "w" in self.flags:
            text = rf"(?<![A-Za-z0-9_])(?:{text})(?![A-Za-z0-9_])"
        try:
            return compile_regex(text, re.IGNORECASE if "i" in self.flags else 0)
        except re.error:
            raise GitError(f"command line, '{pattern}': Invalid regular expression") from None

    def hits(self, line: str) -> bool:
        return self._eval(self.tree, line) != ("v" in self.flags)

    def spans(self, line: str) -> list[tuple[int, int]]:
        """Where the (positive) patterns match, left to right, as ``-o`` and ``--column`` see them."""
        out = []
        start = 0
        regexes = self.positive
        while start <= len(line):
            best = None
            for rx in regexes:
                m = rx.search(line, start)
                if m and (
                    best is None or m.start() < best[0] or (m.start() == best[0] and m.end() > best[1])
                ):
                    best = (m.start(), m.end())
            if best is None:
                break
            if best[1] > best[0]:
                out.append(best)
            start = best[1] if best[1] > best[0] else best[0] + 1
        return out


def _options(args: list[str]) -> tuple[set[str], dict[str, str], list[str], list[str], list[str] | None]:
    flags: set[str] = set()
    values: dict[str, str] = {}
    items: list[str] = []
    words: list[str] = []
    specs: list[str] | None = None
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if a == "--":
            specs = args[k:]
            break
        if words and a.startswith("-") and a != "-":
            raise GitError(f"option '{a.split('=')[0]}' must come before non-option arguments")
        name, eq, value = a.partition("=")
        if a in _UNSIMULATED or name in _UNSIMULATED:
            raise _Refused(a)
        if a in ("--and", "--or", "--not"):
            items.append(a)
        elif a in _FLAGS:
            flags.add(_FLAGS[a])
        elif name in _VALUED or (a[:2] in _VALUED and len(a) > 2 and not a.startswith("--")):
            key = _VALUED[name] if name in _VALUED else _VALUED[a[:2]]
            if name in _VALUED and not eq:
                if k >= len(args):
                    raise GitError(f"error: switch `{key}' requires a value", 129)
                value = args[k]
                k += 1
            elif not eq:
                value = a[2:]
            if key == "e":
                items.append(value)
            else:
                values[key] = value
        elif re.fullmatch(r"-\d+", a):
            values["C"] = a[1:]
        elif re.fullmatch(r"-[a-zA-Z]{2,}", a) and all(f"-{c}" in _FLAGS for c in a[1:]):
            flags.update(_FLAGS[f"-{c}"] for c in a[1:])
        elif a.startswith("-") and a != "-":
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        else:
            words.append(a)
    return flags, values, items, words, specs


class _Refused(Exception):
    """An option this world does not simulate (``-P``, ``-W``, parentheses, ``--no-index``)."""


def _number(values: dict[str, str], key: str) -> int:
    text = values.get(key, values.get("C", "0") if key in "AB" else "0")
    if not text.isdigit():
        raise GitError(f"switch `{key}' expects a numerical value", 129)
    return int(text)


def cmd_grep(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    try:
        flags, values, items, words, specs = _options(args)
    except _Refused:
        return p.not_simulated()
    if not any(x not in ("--and", "--or", "--not") for x in items):
        if not words:
            raise GitError("no pattern given")
        items.append(words.pop(0))
    revs: list[tuple[str, str]] = []
    while words and repo.resolve(words[0]) is not None and not p.fs.lexists(p.path(words[0])):
        revs.append((words[0], repo.resolve(words.pop(0)) or ""))
    if words:
        for w in words:
            if specs is None and not p.fs.lexists(p.path(w)) and not any(c in w for c in "*?["):
                raise GitError(
                    f"ambiguous argument '{w}': unknown revision or path not in the working tree.\n"
                    "Use '--' to separate paths from revisions, like this:\n"
                    "'git <command> [<revision>...] -- [<file>...]'"
                )
        specs = (specs or []) + words
    pattern = _Pattern(items, flags)
    here = repo.relpath(p.vm.cwd) or ""
    sources = [(f"{name}:", _tree_files(repo, sha)) for name, sha in revs] or [
        ("", _work_files(p, repo, flags))
    ]
    out: list[str] = []
    found = False
    budget = current()
    for label, files in sources:
        for path in sorted(files):
            if not _selected(p, repo, path, here, specs):
                continue
            data = files[path]()
            if data is None:
                continue
            budget.spend(1 + len(data) // 64)
            shown = label + (path if "full" in flags else shown_path(repo, p.vm.cwd, path))
            hit = _search(out, shown, data, pattern, flags, values)
            found = found or hit
            if "q" in flags and found:
                return 0
    if "q" not in flags:
        p.out("".join(out))
    return 0 if found else 1


def _tree_files(repo: Repo, sha: str) -> dict[str, Callable[[], bytes | None]]:
    entries = repo.commit_entries(repo.peel(sha))
    return {q: partial(repo.blob, e[1]) for q, e in entries.items() if e[0] != "160000"}


def _work_files(p: _Proc, repo: Repo, flags: set[str]) -> dict[str, Callable[[], bytes | None]]:
    index = repo.read_index()
    if "cached" in flags:
        return {q: partial(repo.blob, e[1]) for q, e in index.items()}
    paths = set(index)
    if "untracked" in flags:
        paths |= set(repo.worktree())

    def read(q: str) -> bytes | None:
        try:
            data = p.fs.read(repo.abspath(q))
        except FsError:
            return None
        return data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")

    return {q: partial(read, q) for q in paths}


def _selected(p: _Proc, repo: Repo, path: str, here: str, specs: list[str] | None) -> bool:
    if not specs:
        return under(path, here)
    for spec in specs:
        if any(c in spec for c in "*?["):
            base = (here + "/") if here else ""
            if path.startswith(base) and fnmatch.fnmatchcase(path[len(base) :], spec):
                return True
        elif any(under(path, x) for x in pathspec_filter(p, repo, [spec])):
            return True
    return False


def _search(
    out: list[str], shown: str, data: bytes, pattern: _Pattern, flags: set[str], values: dict[str, str]
) -> bool:
    """Append what git prints for one file; whether it matched."""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    limit = int(values["m"]) if values.get("m", "").isdigit() else None
    hits = [k for k, line in enumerate(lines) if pattern.hits(line)]
    if limit is not None:
        hits = hits[:limit]
    end = "\0" if "z" in flags else None
    if "L" in flags:
        if not hits:
            out.append(shown + (end or "\n"))
        return not hits
    if not hits:
        return False
    if b"\x00" in data[:8000] and "a" not in flags:
        if "I" not in flags and not ({"l", "c"} & flags):
            out.append(f"Binary file {shown} matches\n")
            return True
        if "I" in flags:
            return False
    if "l" in flags:
        out.append(shown + (end or "\n"))
        return True
    name = "" if "h" in flags else shown
    if "c" in flags:
        out.append(f"{name}{end or ':'}{len(hits)}\n" if name else f"{len(hits)}\n")
        return True
    before, after = _number(values, "B"), _number(values, "A")
    wanted = set(hits)
    context = before or after
    printed: set[int] = set()
    last = -2

    def emit(k: int, mark: str) -> None:
        nonlocal last
        if context and last >= 0 and k > last + 1 and (out and out[-1] != "--\n"):
            out.append("--\n")
        prefix = f"{name}{end or mark}" if name else ""
        number = f"{k + 1}{mark}" if "n" in flags else ""
        out.append(f"{prefix}{number}{lines[k]}\n")
        printed.add(k)
        last = k

    if context and out and out[-1] != "--\n":
        out.append("--\n")
    for k in hits:
        if "p" in flags:
            f = next((j for j in range(k - 1, -1, -1) if is_function_line(lines[j])), None)
            if f is not None and f not in printed and f > last and f < k - before:
                emit(f, "=")
        for j in range(max(0, k - before), k):
            if j not in printed and j > last:
                emit(j, "-")
        if "o" in flags and "v" not in flags:
            for a, b in pattern.spans(lines[k]):
                prefix = f"{name}{end or ':'}" if name else ""
                number = f"{k + 1}:" if "n" in flags else ""
                column = f"{a + 1}:" if "col" in flags else ""
                out.append(f"{prefix}{number}{column}{lines[k][a:b]}\n")
            printed.add(k)
            last = k
        elif k not in printed:
            if "col" in flags:
                spans = pattern.spans(lines[k]) if "v" not in flags else []
                column = f"{spans[0][0] + 1 if spans else 1}:"
                prefix = f"{name}{end or ':'}" if name else ""
                number = f"{k + 1}:" if "n" in flags else ""
                out.append(f"{prefix}{number}{column}{lines[k]}\n")
                printed.add(k)
                last = k
            else:
                emit(k, ":")
        for j in range(k + 1, min(len(lines), k + 1 + after)):
            if j in wanted:
                break  # the next match prints it
            if j not in printed:
                emit(j, "-")
    return True

"""A bash look-alike over the in-memory filesystem: parsed with bashlex, run entirely in Python.

Nothing is ever executed on the host: every command is a Python function over
:class:`~.vfs.VirtualFS`. Usage::

    vm = VirtualMachine()                       # default tree, cwd /app, user root
    vm.prompt()                                 # 'root@agentworld:/app# '
    r = vm.run("echo hi > a.txt && cat a.txt | wc -l; nope")
    r.stdout, r.stderr, r.exit_code             # ('1\\n', 'bash: nope: command not found\\n', 127)

What is simulated: lists (``;``, ``&&``, ``||``), pipes, redirections (``>``, ``>>``, ``2>``,
``2>&1``, ``&>``, ``<``, here-documents, here-strings), quoting, parameter expansion (``$VAR``,
``${VAR:-x}``, ``${#VAR}``, ``${VAR%x}``, ...), ``$?``, command substitution, ``$((...))``,
brace expansion, globbing, assignments, ``export``, ``if``/``for``/``while``/``until``, functions,
shell scripts, and about seventy utilities with GNU wording for their errors (see ``PROGRAMS`` and
``BUILTINS``).

Programs that exist on the fake ``PATH`` but are not simulated (``git status``, ``pip install``,
``python3 main.py``, editors, ...) print nothing and exit 0, and the result says so:
``ShellResult.unknown_effect`` is True and ``unknown_commands`` names them, so callers can mark
the observation as a guess (``metadata["offline_unknown_effect"]``). A few of their answers are
known and given: ``--version`` strings and ``python3 missing.py``'s error.

:class:`TerminalScreen` puts a machine behind a 160x40 terminal pane (keystrokes in, screen out)
and :func:`machine_from_context` builds one from a session's context (``files``, ``cwd``, ``env``).

Simplifications: commands run one after the other (``&`` does not background); stdin that is not
redirected reads as empty; ``case``, ``select``, ``((...))``, C-style ``for``, arrays, process
substitution and job control are not parsed (they count as unknown effect); loops stop after a
fixed budget of commands (``STEP_BUDGET``); ``find`` and ``grep -r`` walk directories in sorted
order (real ones use the filesystem's order).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import math
import operator
import posixpath
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cmp_to_key, lru_cache
from typing import Any

import bashlex
import bashlex.errors

from .vfs import (
    DirNode,
    FileNode,
    FsError,
    LinkNode,
    Node,
    VirtualFS,
    as_text,
    is_binary,
    mode_string,
    stub_program,
)

#: width of the terminal the output is formatted for (``ls`` columns)
COLUMNS = 160
PYTHON_VERSION = "3.12.3"
BASH_VERSION = "5.2.21(1)-release"
KERNEL = "6.8.0-50-generic"
KERNEL_VERSION = "#50-Ubuntu SMP PREEMPT_DYNAMIC Sat Nov  9 16:06:25 UTC 2024"
#: simple commands one ``run`` may execute before it is cut short (runaway loops)
STEP_BUDGET = 100_000
CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"

_VERSIONS = {
    "git": "git version 2.43.0",
    "pip": "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)",
    "pip3": "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)",
    "python": f"Python {PYTHON_VERSION}",
    "python3": f"Python {PYTHON_VERSION}",
    "python3.12": f"Python {PYTHON_VERSION}",
    "gcc": "gcc (Ubuntu 13.2.0-23ubuntu4) 13.2.0",
    "make": "GNU Make 4.3",
    "curl": "curl 8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13 zlib/1.3",
    "perl": "This is perl 5, version 38, subversion 2 (v5.38.2) built for x86_64-linux-gnu-thread-multi",
    "bash": f"GNU bash, version {BASH_VERSION} (x86_64-pc-linux-gnu)",
}
_GNU_VERSIONS = {
    "grep": "grep (GNU grep) 3.11",
    "egrep": "grep (GNU grep) 3.11",
    "fgrep": "grep (GNU grep) 3.11",
    "sed": "sed (GNU sed) 4.9",
    "find": "find (GNU findutils) 4.9.0",
    "xargs": "xargs (GNU findutils) 4.9.0",
}


@dataclass
class ShellResult:
    """What one :meth:`VirtualMachine.run` gave: the streams, the exit status, and whether any
    command had an effect the simulation cannot know (``unknown_effect``)."""

    stdout: str
    stderr: str
    exit_code: int
    #: a program on PATH ran whose effect is not simulated (its output was left empty)
    unknown_effect: bool = False
    #: the command lines of those programs
    unknown_commands: list[str] = field(default_factory=list)
    #: stdout and stderr interleaved in the order a terminal would show them
    output: str = ""
    #: the shell exited (``exit``)
    exited: bool = False


# -- control flow ----------------------------------------------------------------------------------


class _ExitShell(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _LoopControl(Exception):
    def __init__(self, levels: int, is_break: bool) -> None:
        self.levels = levels
        self.is_break = is_break


class _Return(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _ShellSyntaxError(Exception):
    def __init__(self, message: str, incomplete: bool = False, wanted: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.incomplete = incomplete
        self.wanted = wanted


class _Unsupported(Exception):
    pass


class _BudgetExceeded(Exception):
    pass


class _ExpansionError(Exception):
    """A failed expansion (``bad substitution``, ``${X:?}``): the command is not run, status 1.
    A ``fatal`` one (arithmetic errors, ``${X:?}``) also abandons the rest of the command line."""

    def __init__(self, message: str, status: int = 1, fatal: bool = False) -> None:
        self.message = message
        self.status = status
        self.fatal = fatal


class _AbortLine(_ExitShell):
    """The rest of the command line is abandoned (what bash does after a fatal expansion error)."""


class _UsageError(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        self.message = message
        self.status = status


class _HelpRequested(Exception):
    def __init__(self, version: bool = False) -> None:
        self.version = version


# -- input and output ------------------------------------------------------------------------------


class _Input:
    """A command's standard input: consumed as it is read, shared by the commands of a block."""

    __slots__ = ("data", "pos")

    def __init__(self, data: str = "") -> None:
        self.data = data
        self.pos = 0

    def read(self) -> str:
        text = self.data[self.pos :]
        self.pos = len(self.data)
        return text

    def readline(self) -> str | None:
        if self.pos >= len(self.data):
            return None
        end = self.data.find("\n", self.pos)
        end = len(self.data) if end < 0 else end + 1
        line = self.data[self.pos : end]
        self.pos = end
        return line


class _Sink:
    tty = False

    def write(self, text: str) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _Capture(_Sink):
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        if text:
            self.parts.append(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Null(_Sink):
    def write(self, text: str) -> None:
        return None


class _Stream(_Sink):
    """The top-level stdout or stderr of one ``run``: chunks keep their order across the two."""

    def __init__(self, chunks: list[tuple[int, str]], fd: int, tty: bool) -> None:
        self.chunks = chunks
        self.fd = fd
        self.tty = tty

    def write(self, text: str) -> None:
        if text:
            self.chunks.append((self.fd, text))


class _FileSink(_Sink):
    def __init__(self, fs: VirtualFS, path: str) -> None:
        self.fs = fs
        self.path = path

    def write(self, text: str) -> None:
        if text:
            try:
                self.fs.append(self.path, text)
            except FsError:
                pass


@dataclass
class _Source:
    """A parsed text and what the pre-pass rewrote in it."""

    text: str
    quoted_heredocs: set[int]
    arith: dict[str, str]
    unsupported: bool = False


@dataclass
class _Ctx:
    stdin: _Input
    out: _Sink
    err: _Sink
    src: _Source

    def with_(self, **kw: Any) -> _Ctx:
        return _Ctx(
            kw.get("stdin", self.stdin),
            kw.get("out", self.out),
            kw.get("err", self.err),
            kw.get("src", self.src),
        )


class _Proc:
    """What a simulated program gets: its name (argv[0]), arguments, streams and the machine."""

    __slots__ = ("args", "ctx", "name", "vm")

    def __init__(self, vm: VirtualMachine, name: str, args: list[str], ctx: _Ctx) -> None:
        self.vm = vm
        self.name = name
        self.args = args
        self.ctx = ctx

    @property
    def fs(self) -> VirtualFS:
        return self.vm.fs

    def out(self, text: str) -> None:
        self.ctx.out.write(text)

    def err(self, message: str) -> None:
        """A program's error line: ``name: message``."""
        self.ctx.err.write(f"{self.name}: {message}\n")

    def shell_err(self, message: str) -> None:
        """A builtin's error line, started the way bash starts its own (``bash: ``...)."""
        self.vm._complain(self.ctx, message)

    def try_help(self) -> None:
        """The line GNU tools print after a usage error."""
        self.ctx.err.write(f"Try '{self.name} --help' for more information.\n")

    def unknown(self) -> None:
        """Note this invocation as one whose effect is not simulated."""
        self.vm._unknown.append(" ".join([self.name, *self.args]))

    def stdin(self) -> str:
        return self.ctx.stdin.read()

    def path(self, name: str) -> str:
        return self.vm.fs.normalize(name, self.vm.cwd)

    def node(
        self,
        name: str,
        message: str = "cannot access {}: {}",
        follow: bool = True,
        quote: Callable[[str], str] | None = None,
    ) -> Node | None:
        """The node an operand names; None, reported (``message`` gets the quoted name and the
        reason), where there is none."""
        try:
            return self.vm.fs.stat(self.path(name), follow)
        except FsError as exc:
            self.err(message.format((quote or quote_always)(name), exc.strerror))
            return None

    def read(self, name: str) -> str:
        """The text of a file named by an operand (``-``: stdin); raises :class:`FsError`."""
        if name == "-":
            return self.stdin()
        path = self.path(name)
        if path == "/dev/null":
            return ""
        if path == "/dev/stdin":
            return self.stdin()
        return as_text(self.vm.fs.read(path))


# -- quoting as GNU prints names -------------------------------------------------------------------

_SAFE_NAME = re.compile(r"[A-Za-z0-9_./+,:=@%^-]+")


def quote_always(name: str) -> str:
    """GNU ``quoteaf``: shell-escape quoting, always quoted (``'x'``)."""
    if "'" not in name:
        return f"'{name}'"
    if not any(c in name for c in '"$`\\!'):
        return f'"{name}"'
    return "'" + name.replace("'", "'\\''") + "'"


def quote_if_needed(name: str) -> str:
    """GNU ``quotef``: shell-escape quoting only where the name needs it."""
    if name and _SAFE_NAME.fullmatch(name) and not name.startswith(("~", "#")):
        return name
    return quote_always(name)


def locale_quote(name: str) -> str:
    """GNU ``quote`` in a UTF-8 locale (mkdir, find): the name in curved single quotes."""
    return f"\u2018{name}\u2019"


def _display(text: str) -> str:
    """Text fit for a screen: undecodable bytes become U+FFFD, NUL bytes vanish."""
    if not text:
        return text
    text = text.replace("\x00", "")
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# -- patterns --------------------------------------------------------------------------------------

_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~",
    "xdigit": "0-9A-Fa-f",
    "word": "a-zA-Z0-9_",
    "print": " -~",
    "graph": "!-~",
    "cntrl": "\\x00-\\x1f\\x7f",
}


def _bracket(pat: str, i: int) -> tuple[str, int] | None:
    """Translate a ``[...]`` expression starting at ``pat[i] == '['``; None if unterminated."""
    j = i + 1
    negate = False
    if j < len(pat) and pat[j] in "!^":
        negate = True
        j += 1
    items: list[str] = []
    first = True
    while j < len(pat):
        c = pat[j]
        if c == "]" and not first:
            body = "".join(items)
            return ("[^" if negate else "[") + body + "]", j + 1
        first = False
        if c == "[" and pat.startswith("[:", j):
            end = pat.find(":]", j + 2)
            if end > 0 and pat[j + 2 : end] in _CLASSES:
                items.append(_CLASSES[pat[j + 2 : end]])
                j = end + 2
                continue
        if c == "\\" and j + 1 < len(pat):
            items.append(re.escape(pat[j + 1]))
            j += 2
            continue
        if c == "-" and items and j + 1 < len(pat) and pat[j + 1] != "]":
            items.append("-")
            j += 1
            continue
        items.append("\\" + c if c in "\\^[]" else c)
        j += 1
    return None


@lru_cache(maxsize=512)
def glob_regex(pat: str) -> re.Pattern[str]:
    """A shell glob (``*``, ``?``, ``[...]``, backslash escapes) as an anchored regex."""
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            out.append(re.escape(pat[i + 1]))
            i += 2
        elif c == "*":
            out.append(".*")
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[":
            got = _bracket(pat, i)
            if got is None:
                out.append("\\[")
                i += 1
            else:
                out.append(got[0])
                i = got[1]
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("(?s:" + "".join(out) + r")\Z")


def has_glob(pat: str) -> bool:
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?" or (c == "[" and "]" in pat[i + 2 :] if i + 1 < len(pat) else False):
            return True
        i += 1
    return False


def _unescape_glob(pat: str) -> str:
    return re.sub(r"\\(.)", r"\1", pat, flags=re.S)


def _escape_glob(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def posix_regex(pattern: str, extended: bool) -> str:
    """A POSIX basic (or extended) regular expression as a Python one."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if not extended and d in "(){}|+?":
                out.append(d)
            elif d in "<>":
                out.append(r"\b")
            elif d in "wWsSbB" or d.isdigit():
                out.append("\\" + d)
            elif d == "n":
                out.append("\\n")
            elif d == "t":
                out.append("\\t")
            else:
                out.append(re.escape(d))
            i += 2
            continue
        if c == "[":
            got = _bracket(pattern, i)
            if got is None:
                raise re.error("unterminated character set")
            out.append(got[0])
            i = got[1]
            continue
        if not extended and c in "(){}|+?":
            out.append("\\" + c)
        elif c == "*" and (not out or out[-1] in ("(", "|", "^")):
            out.append("\\*")
        elif extended and c == "{" and not re.match(r"\{\d*(,\d*)?\}", pattern[i:]):
            out.append("\\{")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _regex_error(exc: re.error) -> str:
    msg = str(exc)
    if "unterminated character set" in msg:
        return "Unmatched [, [^, [:, [., or [="
    if "missing )" in msg or "unbalanced parenthesis" in msg:
        return "Unmatched ( or \\("
    if "nothing to repeat" in msg:
        return "Invalid preceding regular expression"
    return "Invalid regular expression"


def _unquoted(text: str, i: int = 0) -> Iterator[int]:
    """The indexes, from ``i`` on, of the characters of ``text`` outside quotes and escapes."""
    quote = ""
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        else:
            yield i
        i += 1


def brace_expand(word: str, limit: int = 4096) -> list[str]:
    """Bash brace expansion (``a{b,c}``, ``{1..3}``) of a raw word, quotes respected."""
    n = len(word)
    for i in _unquoted(word):
        if word[i] == "{" and not (i > 0 and word[i - 1] == "$"):
            commas: list[int] = []
            end = _match_closing(word, i + 1, "{}", commas)
            if end >= n:
                return [word]
            prefix, suffix = word[:i], word[end + 1 :]
            if commas:
                bounds = [i, *commas, end]
                alts = [word[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
                out: list[str] = []
                for alt in alts:
                    out.extend(brace_expand(prefix + alt + suffix, limit))
                    if len(out) > limit:
                        return [word]
                return out
            inner = word[i + 1 : end]
            m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
            letters = re.fullmatch(r"([a-zA-Z])\.\.([a-zA-Z])", inner)
            items: list[str] = []
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                step = abs(int(m.group(3))) if m.group(3) else 1
                step = step or 1
                width = max(len(m.group(1)), len(m.group(2))) if re.match(r"-?0\d", m.group(1) + "") else 0
                rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
                items = [str(x).zfill(width) if width else str(x) for x in rng]
            elif letters:
                a, b = ord(letters.group(1)), ord(letters.group(2))
                rng = range(a, b + 1) if a <= b else range(a, b - 1, -1)
                items = [chr(x) for x in rng]
            if items and len(items) <= limit:
                out = []
                for item in items:
                    out.extend(brace_expand(prefix + item + suffix, limit))
                return out
    return [word]


# -- the pre-pass: what bashlex cannot read ----------------------------------------------------------


def _match_double_paren(text: str, start: int) -> int:
    """Index of the ``))`` closing an arithmetic expansion whose body starts at ``start``."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i if text.startswith("))", i) else -1
            depth -= 1
        i += 1
    return -1


def _prepare(text: str) -> _Source:
    """Rewrite quoted here-document delimiters (same length), ``$((...))`` and ``[[ ... ]]`` so
    bashlex can parse them, and note what was rewritten."""
    out: list[str] = []
    quoted: set[int] = set()
    arith: dict[str, str] = {}
    pending: list[tuple[str, bool]] = []
    unsupported = False
    i = 0
    n = len(text)
    in_dq = False
    in_test = False
    pos = 0  # length of the output so far

    def emit(s: str) -> None:
        nonlocal pos
        out.append(s)
        pos += len(s)

    while i < n:
        c = text[i]
        if c == "\\":
            emit(text[i : i + 2])
            i += 2
            continue
        if c == "'" and not in_dq:
            j = text.find("'", i + 1)
            j = n - 1 if j < 0 else j
            emit(text[i : j + 1])
            i = j + 1
            continue
        if c == '"':
            in_dq = not in_dq
            emit(c)
            i += 1
            continue
        if text.startswith("$((", i):
            j = _match_double_paren(text, i + 3)
            if j > 0:
                name = f"__AWARITH{len(arith)}"
                arith[name] = text[i + 3 : j]
                emit("${" + name + "}")
                i = j + 2
                continue
        if in_dq:
            emit(c)
            i += 1
            continue
        at_word_start = i == 0 or text[i - 1] in " \t\n;&|(!{"
        if text.startswith("((", i) and at_word_start:
            unsupported = True
        if c == "#" and at_word_start:
            j = text.find("\n", i)
            j = n if j < 0 else j
            emit(text[i:j])
            i = j
            continue
        if not in_test and text.startswith("[[", i) and at_word_start and text[i + 2 : i + 3] in (" ", "\t"):
            in_test = True
            emit("\\[\\[")
            i += 2
            continue
        if in_test:
            if (
                text.startswith("]]", i)
                and text[i - 1] in " \t"
                and (i + 2 >= n or text[i + 2] in " \t\n;&|)")
            ):
                in_test = False
                emit("\\]\\]")
                i += 2
                continue
            if text.startswith(("&&", "||"), i):
                emit("\\" + c + "\\" + c)
                i += 2
                continue
            if c in "<>()|":
                emit("\\" + c)
                i += 1
                continue
        if text.startswith("<<<", i):
            emit("<<<")
            i += 3
            continue
        if text.startswith("<<", i):
            emit("<<")
            i += 2
            strip = False
            if i < n and text[i] == "-":
                emit("-")
                i += 1
                strip = True
            while i < n and text[i] in " \t":
                emit(text[i])
                i += 1
            start = i
            word: list[str] = []
            q = ""
            while i < n:
                d = text[i]
                if q:
                    if d == q:
                        q = ""
                    else:
                        word.append(d)
                elif d in "'\"":
                    q = d
                elif d == "\\" and i + 1 < n:
                    word.append(text[i + 1])
                    i += 1
                elif d in " \t\n;&|<>()":
                    break
                else:
                    word.append(d)
                i += 1
            raw = text[start:i]
            delim = "".join(word)
            if raw != delim:
                quoted.add(pos)
                emit(delim + " " * (len(raw) - len(delim)))
            else:
                emit(raw)
            pending.append((delim, strip))
            continue
        if c == "\n" and pending:
            emit("\n")
            i += 1
            for delim, strip in pending:
                while i < n:
                    j = text.find("\n", i)
                    end = n if j < 0 else j + 1
                    line = text[i : (n if j < 0 else j)]
                    emit(text[i:end])
                    i = end
                    if (line.lstrip("\t") if strip else line) == delim:
                        break
            pending = []
            continue
        emit(c)
        i += 1
    return _Source("".join(out), quoted, arith, unsupported)


_UNSUPPORTED_HINT = re.compile(r"(^|[\s;&|(])(case|select|coproc)\s|\(\(|\w=\(|\[\[")


@lru_cache(maxsize=256)
def _parse(text: str) -> tuple[list[Any], _Source]:
    """bashlex nodes for ``text``; raises :class:`_ShellSyntaxError` or :class:`_Unsupported`.
    Cached: the nodes are only read, never changed."""
    src = _prepare(text)
    if src.unsupported:
        raise _Unsupported("arithmetic command")
    body = src.text
    stripped = "\n".join(line for line in body.split("\n") if not line.lstrip().startswith("#"))
    if not stripped.strip():
        return [], src
    try:
        nodes = bashlex.parse(body)
    except NotImplementedError as exc:
        raise _Unsupported(str(exc)) from None
    except bashlex.errors.ParsingError as exc:
        msg = exc.message
        if "here-document" in msg and "delimited by end-of-file" in msg:
            m = re.search(r"wanted ['\"](.*)['\"]\)", msg)
            raise _ShellSyntaxError(msg, incomplete=True, wanted=m.group(1) if m else "EOF") from None
        if "unexpected EOF" in msg or "unexpected end of file" in msg:
            raise _ShellSyntaxError(msg, incomplete=True) from None
        if _UNSUPPORTED_HINT.search(text):
            raise _Unsupported(msg) from None
        m = re.match(r"unexpected token '(.*)'", msg, re.S)
        token = m.group(1) if m else msg
        raise _ShellSyntaxError("newline" if token in ("\n", "\\n") else token) from None
    except (AttributeError, TypeError, IndexError, ValueError, AssertionError) as exc:
        raise _Unsupported(f"bashlex: {exc}") from None
    return nodes, src


# -- arithmetic ------------------------------------------------------------------------------------

_ARITH_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_ARITH_CMP = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _ternary(expr: str) -> str:
    """``c ? a : b`` as Python's ``(a if c else b)`` (nesting in the else branch works)."""
    depth = 0
    for i, ch in enumerate(expr):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "?" and depth == 0:
            inner = 0
            for j in range(i + 1, len(expr)):
                if expr[j] == "(":
                    inner += 1
                elif expr[j] == ")":
                    inner -= 1
                elif expr[j] == "?" and inner == 0:
                    inner += 100
                elif expr[j] == ":" and inner >= 100:
                    inner -= 100
                elif expr[j] == ":" and inner == 0:
                    cond, then, other = expr[:i], expr[i + 1 : j], expr[j + 1 :]
                    return f"(({_ternary(then)}) if ({cond}) else ({_ternary(other)}))"
            return expr
    return expr


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _arith_eval(expr: str, lookup: Callable[[str], str]) -> int:
    """Evaluate a bash arithmetic expression (integers only; no assignments)."""
    text = expr.strip()
    if not text:
        return 0
    py = re.sub(
        r"\b(\d+)#([0-9a-zA-Z@_]+)\b",
        lambda m: str(int(m.group(2), int(m.group(1)))) if 2 <= int(m.group(1)) <= 36 else m.group(0),
        text,
    )
    py = re.sub(r"\b0([0-7]+)\b", lambda m: str(int(m.group(1), 8)), py)
    py = _ternary(py.replace("&&", " and ").replace("||", " or "))
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        tree = ast.parse(py, mode="eval")
    except SyntaxError:
        raise _ExpansionError(
            f'{text}: syntax error in expression (error token is "{text}")', fatal=True
        ) from None

    def ev(node: ast.AST, depth: int = 0) -> int:
        if depth > 50:
            raise _ExpansionError(f"{text}: expression recursion level exceeded", fatal=True)
        if isinstance(node, ast.Expression):
            return ev(node.body, depth)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return int(node.value)
        if isinstance(node, ast.Name):
            raw = lookup(node.id).strip()
            if not raw:
                return 0
            if re.fullmatch(r"-?\d+", raw):
                return int(raw)
            return _arith_eval(raw, lookup) if depth < 10 else 0
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand, depth + 1)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Not):
                return int(not v)
            if isinstance(node.op, ast.Invert):
                return ~v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left, depth + 1), ev(node.right, depth + 1)
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                if b == 0:
                    raise _ExpansionError(
                        f'{text}: division by 0 (error token is "{text.split("/")[-1].strip()}")', fatal=True
                    )
                if isinstance(node.op, ast.Mod):
                    return a - _c_div(a, b) * b
                return _c_div(a, b)
            fn = _ARITH_BIN.get(type(node.op))
            if fn is not None:
                if isinstance(node.op, ast.Pow) and (b < 0 or b > 4096):
                    raise _ExpansionError(f'{text}: exponent less than 0 (error token is "{b}")', fatal=True)
                return int(fn(a, b))
        if isinstance(node, ast.BoolOp):
            vals = [ev(v, depth + 1) for v in node.values]
            return int(all(vals)) if isinstance(node.op, ast.And) else int(any(vals))
        if isinstance(node, ast.Compare):
            left = ev(node.left, depth + 1)
            for op, right_node in zip(node.ops, node.comparators):
                right = ev(right_node, depth + 1)
                fn2 = _ARITH_CMP.get(type(op))
                if fn2 is None or not fn2(left, right):
                    return 0
                left = right
            return 1
        if isinstance(node, ast.IfExp):
            return ev(node.body, depth + 1) if ev(node.test, depth + 1) else ev(node.orelse, depth + 1)
        raise _ExpansionError(f'{text}: syntax error: operand expected (error token is "{text}")', fatal=True)

    return ev(tree)


# -- the machine -----------------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LIT, _QUOTED, _EXP = 0, 1, 2


class VirtualMachine:
    """A Linux box of one user: a virtual filesystem, a working directory, variables, history.

    ``interactive`` machines behave like a terminal's bash (aliases, history, ``ls`` in columns);
    others like ``bash -c`` (what coding-agent shell tools spawn).
    """

    def __init__(
        self,
        fs: VirtualFS | None = None,
        cwd: str = "/app",
        env: dict[str, str] | None = None,
        *,
        user: str = "root",
        hostname: str = "agentworld",
        interactive: bool = True,
    ) -> None:
        self.fs = fs if fs is not None else VirtualFS.default()
        self.user = user
        self.hostname = hostname
        self.interactive = interactive
        home = "/root" if user == "root" else f"/home/{user}"
        self.fs.home = home
        self.vars: dict[str, str] = {
            "HOME": home,
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "USER": user,
            "LOGNAME": user,
            "SHELL": "/bin/bash",
            "HOSTNAME": hostname,
            "TERM": "xterm-256color" if interactive else "dumb",
            "LANG": "C.UTF-8",
            "PWD": "/",
            "SHLVL": "1",
        }
        self.exported: set[str] = set(self.vars)
        self.vars["IFS"] = " \t\n"
        self.vars["PS1"] = "\\u@\\h:\\w\\$ "
        self.cwd = "/"
        self.oldpwd: str | None = None
        for key, value in (env or {}).items():
            self.vars[str(key)] = str(value)
            self.exported.add(str(key))
        self.chdir(cwd)
        self.last_status = 0
        self.history: list[str] = []
        self.functions: dict[str, tuple[Any, _Source]] = {}
        self.aliases: dict[str, str] = {"ll": "ls -alF", "la": "ls -A", "l": "ls -CF"} if interactive else {}
        self.positional: list[str] = []
        self._locals: list[dict[str, str | None]] = []
        self._rand = 12345
        self._steps = 0
        self._subst_status: int | None = None
        self._unknown: list[str] = []
        self._expanding_aliases: set[str] = set()
        self._tty_out: _Sink = _Null()
        self._tty_err: _Sink = _Null()
        self._lineno = 1
        self._scripts: list[str] = []
        self.argv0 = "bash"
        self._loop_depth = 0

    # -- public ----------------------------------------------------------------------------------

    def chdir(self, path: str) -> None:
        target = self.fs.normalize(path, self.cwd)
        if not self.fs.is_dir(target):
            self.fs.mkdir(target, parents=True)
        self.cwd = target
        self.vars["PWD"] = target

    def prefix(self) -> str:
        """How bash starts its own error messages: ``bash: `` at an interactive prompt,
        ``bash: line N: `` under ``bash -c``, ``script.sh: line N: `` in a script."""
        if self._scripts:
            return f"{self._scripts[-1]}: line {self._lineno}: "
        if self.interactive:
            return "bash: "
        return f"bash: line {self._lineno}: "

    def _complain(self, ctx: _Ctx, message: str) -> None:
        ctx.err.write(f"{self.prefix()}{message}\n")

    def prompt(self) -> str:
        """``root@agentworld:/app# `` (``~`` for the home directory, ``$`` for other users)."""
        return f"{self.user}@{self.hostname}:{self.display_cwd()}{'#' if self.user == 'root' else '$'} "

    def display_cwd(self) -> str:
        home = self.vars.get("HOME", "")
        if home and home != "/" and (self.cwd == home or self.cwd.startswith(home + "/")):
            return "~" + self.cwd[len(home) :]
        return self.cwd

    def needs_more(self, text: str) -> bool:
        """Whether ``text`` is an unfinished command (open quote, here-document, trailing ``|``,
        ``if`` without ``fi``, a final backslash): an interactive bash would ask for more."""
        if re.search(r"(?<!\\)(\\\\)*\\$", text):
            return True
        try:
            _parse(text)
        except _ShellSyntaxError as exc:
            return exc.incomplete
        except _Unsupported:
            return False
        return False

    def run(self, command: str, stdin: str = "", *, tty: bool | None = None) -> ShellResult:
        """Run a command line (or several lines) and return its output and exit status."""
        tty = self.interactive if tty is None else tty
        chunks: list[tuple[int, str]] = []
        out = _Stream(chunks, 1, tty)
        err = _Stream(chunks, 2, tty)
        self._tty_out, self._tty_err = out, err
        self._unknown = []
        self._steps = 0
        exited = False
        if self.interactive and command.strip():
            self.history.append(command.rstrip("\n"))
        try:
            status = self._run_text(command, _Ctx(_Input(stdin), out, err, _Source("", set(), {})), top=True)
        except Exception:  # an unforeseen corner of the simulation: say so rather than invent
            self._unknown.append(command.strip())
            status = 0
        if isinstance(status, _ExitShell):
            exited = True
            status = status.code
        self.last_status = status
        stdout = "".join(t for fd, t in chunks if fd == 1)
        stderr = "".join(t for fd, t in chunks if fd == 2)
        return ShellResult(
            stdout=stdout,
            stderr=stderr,
            exit_code=status,
            unknown_effect=bool(self._unknown),
            unknown_commands=list(self._unknown),
            output="".join(t for _, t in chunks),
            exited=exited,
        )

    # -- running text ----------------------------------------------------------------------------

    def _syntax_message(self, exc: _ShellSyntaxError, text: str) -> str:
        lines = text.rstrip("\n").split("\n")
        where = "" if self.interactive and not self._scripts else f"-c: line {len(lines)}: "
        if exc.incomplete:
            if "matching" in exc.message:
                m = re.search(r"matching ['\"](.)['\"]", exc.message)
                quote = m.group(1) if m else '"'
                return (
                    f"bash: {where}unexpected EOF while looking for matching `{quote}'\n"
                    f"bash: {where}syntax error: unexpected end of file\n"
                )
            return f"bash: {where}syntax error: unexpected end of file\n"
        msg = f"bash: {where}syntax error near unexpected token `{exc.message}'\n"
        if not self.interactive:
            msg += f"bash: {where}`{lines[-1]}'\n"
        return msg

    def _run_text(self, text: str, ctx: _Ctx, top: bool = False) -> Any:
        """Parse and run ``text``; at the top level return the status (or the _ExitShell)."""
        try:
            try:
                nodes, src = _parse(text)
            except _ShellSyntaxError as exc:
                if exc.wanted is not None:
                    self._complain(
                        ctx,
                        f"warning: here-document at line 1 delimited by end-of-file (wanted `{exc.wanted}')",
                    )
                    nodes, src = _parse(text.rstrip("\n") + "\n" + exc.wanted + "\n")
                else:
                    raise
        except _ShellSyntaxError as exc:
            ctx.err.write(self._syntax_message(exc, text))
            return 2
        except _Unsupported:
            self._unknown.append(text.strip())
            return 0
        ctx = ctx.with_(src=src)
        status = self.last_status
        try:
            for node in nodes:
                status = self._exec(node, ctx)
                self.last_status = status
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal and not top:
                raise _AbortLine(exc.status) from None
            return exc.status
        except _ExitShell as exc:
            if top:
                if isinstance(exc, _AbortLine):
                    return exc.code
                if self.interactive:
                    ctx.err.write("exit\n")
                return exc
            raise
        except _BudgetExceeded:
            self._unknown.append(text.strip())
            return 124
        except _Unsupported:
            self._unknown.append(text.strip())
            return 0
        except _LoopControl:
            return 0
        except _Return:
            if top:
                self._complain(ctx, "return: can only `return' from a function or sourced script")
                return 1
            raise
        except RecursionError:
            ctx.err.write("bash: maximum recursion depth exceeded\n")
            return 1
        return status

    def _run_status(self, text: str, ctx: _Ctx) -> int:
        """Run ``text`` below the top level: its exit status."""
        result = self._run_text(text, ctx)
        return result if isinstance(result, int) else 0

    def _save(self) -> tuple[Any, ...]:
        return (
            self.cwd,
            self.oldpwd,
            dict(self.vars),
            set(self.exported),
            dict(self.functions),
            list(self.positional),
            dict(self.aliases),
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        (self.cwd, self.oldpwd, self.vars, self.exported, self.functions, self.positional, self.aliases) = (
            saved
        )

    def _subshell(self, fn: Callable[[], int]) -> int:
        saved = self._save()
        try:
            return fn()
        except _ExitShell as exc:
            return exc.code
        finally:
            self._restore(saved)

    # -- executing nodes -------------------------------------------------------------------------

    def _step(self) -> None:
        """Count one step against the budget of a ``run`` (runaway loops end here)."""
        self._steps += 1
        if self._steps > STEP_BUDGET:
            raise _BudgetExceeded()

    def _exec(self, node: Any, ctx: _Ctx) -> int:
        self._step()
        kind = node.kind
        if kind == "command":
            return self._exec_command(node, ctx)
        if kind == "list":
            return self._exec_list(node.parts, ctx)
        if kind == "pipeline":
            return self._exec_pipeline(node, ctx)
        if kind == "compound":
            return self._exec_compound(node, ctx)
        if kind == "function":
            name = next(p.word for p in node.parts if p.kind == "word")
            body = [p for p in node.parts if p.kind == "compound"]
            if body:
                self.functions[name] = (body[-1], ctx.src)
            return 0
        if kind in ("if", "for", "while", "until"):
            return self._exec_flow(node, ctx)
        if kind == "reservedword" or kind == "operator":
            return self.last_status
        raise _Unsupported(kind)

    def _exec_list(self, parts: list[Any], ctx: _Ctx) -> int:
        status = 0
        op = None
        for part in parts:
            if part.kind == "operator":
                op = part.op
                continue
            if part.kind == "reservedword":
                continue
            if (op == "&&" and status != 0) or (op == "||" and status == 0):
                continue
            status = self._exec(part, ctx)
            self.last_status = status
        return status

    def _exec_pipeline(self, node: Any, ctx: _Ctx) -> int:
        negate = False
        commands: list[Any] = []
        pipes: list[str] = []
        for part in node.parts:
            if part.kind == "reservedword" and part.word == "!":
                negate = not negate
            elif part.kind == "pipe":
                pipes.append(part.pipe)
            else:
                commands.append(part)
        stdin = ctx.stdin
        status = 0
        for i, command in enumerate(commands):
            last = i == len(commands) - 1
            out: _Sink = ctx.out if last else _Capture()
            err = out if (not last and i < len(pipes) and pipes[i] == "|&") else ctx.err
            sub = ctx.with_(stdin=stdin, out=out, err=err)
            if len(commands) > 1:
                status = self._subshell(lambda c=command, s=sub: self._exec(c, s))  # type: ignore[misc]
            else:
                status = self._exec(command, sub)
            if not last:
                assert isinstance(out, _Capture)
                stdin = _Input(out.text)
        if negate:
            status = 0 if status else 1
        return status

    def _exec_compound(self, node: Any, ctx: _Ctx) -> int:
        try:
            ctx = self._apply_redirects(getattr(node, "redirects", []) or [], ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            return exc.status
        items = node.list
        inner = [p for p in items if p.kind != "reservedword"]

        def run_items() -> int:
            return self._run_nodes(inner, ctx)

        if items and items[0].kind == "reservedword" and items[0].word == "(":
            return self._subshell(run_items)
        return run_items()

    def _groups(self, node: Any) -> list[tuple[str, list[Any]]]:
        groups: list[tuple[str, list[Any]]] = []
        for part in node.parts:
            if part.kind == "reservedword" and part.word not in (";", "\n"):
                groups.append((part.word, []))
            elif groups and part.kind != "reservedword":
                groups[-1][1].append(part)
        return groups

    def _run_nodes(self, nodes: list[Any], ctx: _Ctx) -> int:
        status = 0
        for n in nodes:
            status = self._exec(n, ctx)
            self.last_status = status
        return status

    def _exec_flow(self, node: Any, ctx: _Ctx) -> int:
        if node.kind == "if":
            return self._exec_flow_inner(node, ctx)
        self._loop_depth += 1
        try:
            return self._exec_flow_inner(node, ctx)
        finally:
            self._loop_depth -= 1

    def _exec_flow_inner(self, node: Any, ctx: _Ctx) -> int:
        groups = self._groups(node)
        kind = node.kind
        if kind == "if":
            i = 0
            while i < len(groups):
                word, nodes = groups[i]
                if word in ("if", "elif"):
                    cond = self._run_nodes(nodes, ctx)
                    if cond == 0:
                        return self._run_nodes(groups[i + 1][1], ctx)
                    i += 2
                    continue
                if word == "else":
                    return self._run_nodes(nodes, ctx)
                i += 1
            return 0
        if kind == "for":
            var = node.parts[1].word
            items: list[str] = []
            if any(g[0] == "in" for g in groups):
                for w in dict(groups).get("in", []):
                    if w.kind == "word":
                        items.extend(self._expand_word(w, ctx))
            else:
                items = list(self.positional)
            body = dict(groups).get("do", [])
            status = 0
            for item in items:
                self.vars[var] = item
                status, stop = self._loop_body(body, ctx, status)
                if stop:
                    break
            return status
        # while / until
        cond_nodes = groups[0][1]
        body = dict(groups).get("do", [])
        status = 0
        while True:
            self._step()
            c = self._run_nodes(cond_nodes, ctx)
            if (c == 0) != (kind == "while"):
                break
            status, stop = self._loop_body(body, ctx, status)
            if stop:
                break
        return status

    def _loop_body(self, body: list[Any], ctx: _Ctx, status: int) -> tuple[int, bool]:
        """Run a loop's body once: its status (``status`` where ``break``/``continue`` cut it
        short) and whether the loop ends here. Outer loops' ``break N``/``continue N`` pass on."""
        try:
            return self._run_nodes(body, ctx), False
        except _LoopControl as lc:
            if lc.levels > 1:
                lc.levels -= 1
                raise
            return status, lc.is_break

    def _exec_command(self, node: Any, ctx: _Ctx) -> int:
        self._lineno = ctx.src.text.count("\n", 0, node.pos[0]) + 1
        assigns = [p for p in node.parts if p.kind == "assignment"]
        words = [p for p in node.parts if p.kind == "word"]
        redirects = [p for p in node.parts if p.kind == "redirect"]
        src = ctx.src.text
        if words and self.interactive and self.aliases:
            first = src[words[0].pos[0] : words[0].pos[1]]
            if first in self.aliases and first not in self._expanding_aliases:
                rest = src[words[0].pos[1] : node.pos[1]]
                prefix = "".join(src[a.pos[0] : a.pos[1]] + " " for a in assigns)
                self._expanding_aliases.add(first)
                try:
                    return self._run_status(prefix + self.aliases[first] + rest, ctx)
                finally:
                    self._expanding_aliases.discard(first)
        self._subst_status = None
        try:
            argv: list[str] = []
            for w in words:
                argv.extend(self._expand_word(w, ctx))
            values = [self._expand_assignment(a, ctx) for a in assigns]
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal:
                raise _AbortLine(exc.status) from None
            return exc.status
        subst_status = self._subst_status
        try:
            rctx = self._apply_redirects(redirects, ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            return exc.status
        if not argv:
            for name, value, append in values:
                self._assign(name, value, append)
            return subst_status if subst_status is not None else 0
        saved: list[tuple[str, str | None, bool]] = []
        for name, value, append in values:
            saved.append((name, self.vars.get(name), name in self.exported))
            self._assign(name, value, append)
            self.exported.add(name)
        try:
            return self._invoke(argv, rctx)
        finally:
            for name, old, was_exported in reversed(saved):
                self._put_back(name, old)
                if not was_exported:
                    self.exported.discard(name)

    def _put_back(self, name: str, old: str | None) -> None:
        """Give a variable back a value it had (None: it was unset)."""
        if old is None:
            self.vars.pop(name, None)
        else:
            self.vars[name] = old

    def _assign(self, name: str, value: str, append: bool = False) -> None:
        if name in ("PWD",):
            self.vars[name] = value
            return
        self.vars[name] = self.vars.get(name, "") + value if append else value

    def _expand_assignment(self, node: Any, ctx: _Ctx) -> tuple[str, str, bool]:
        raw = ctx.src.text[node.pos[0] : node.pos[1]]
        name, _, value = raw.partition("=")
        append = name.endswith("+")
        if append:
            name = name[:-1]
        offset = node.pos[0] + len(raw) - len(value)
        segs = self._segments(value, ctx, offset, self._subst_index(node), assign=True)
        return name, "".join(t for t, _ in segs), append

    # -- calling programs ------------------------------------------------------------------------

    def _invoke(self, argv: list[str], ctx: _Ctx) -> int:
        name = argv[0]
        if name in self.functions:
            return self._call_function(name, argv[1:], ctx)
        builtin = BUILTINS.get(name)
        if builtin is not None:
            return self._call(builtin, name, argv[1:], ctx)
        if "/" in name:
            return self._exec_path(self.fs.normalize(name, self.cwd), argv, ctx)
        found = self.find_in_path(name)
        if found is None:
            self._complain(ctx, f"{name}: command not found")
            return 127
        return self._exec_path(found, argv, ctx)

    def find_in_path(self, name: str) -> str | None:
        for d in self.vars.get("PATH", "").split(":"):
            path = self.fs.normalize(posixpath.join(d or ".", name), self.cwd)
            try:
                node = self.fs.stat(path)
            except FsError:
                continue
            if isinstance(node, FileNode) and node.mode & 0o111:
                return path
        return None

    def _locate(self, name: str) -> str | None:
        """The path a command name runs: searched on ``PATH`` unless it has a slash."""
        return self.find_in_path(name) if "/" not in name else self.fs.normalize(name, self.cwd)

    def _call(self, fn: Callable[[_Proc], int], name: str, args: list[str], ctx: _Ctx) -> int:
        proc = _Proc(self, name, args, ctx)
        try:
            return fn(proc)
        except _UsageError as exc:
            proc.err(exc.message)
            proc.try_help()
            return exc.status
        except (ValueError, IndexError, KeyError):
            proc.err("invalid argument")
            proc.try_help()
            return 1
        except _HelpRequested as req:
            base = posixpath.basename(name)
            if req.version:
                ctx.out.write(_GNU_VERSIONS.get(base, f"{base} (GNU coreutils) 9.4") + "\n")
            else:
                ctx.out.write(f"Usage: {name} [OPTION]... [FILE]...\n")
            return 0

    def _call_function(self, name: str, args: list[str], ctx: _Ctx) -> int:
        body, src = self.functions[name]
        saved_pos = self.positional
        self.positional = list(args)
        self._locals.append({})
        try:
            return self._exec(body, ctx.with_(src=src))
        except _Return as exc:
            return exc.code
        finally:
            frame = self._locals.pop()
            for var, old in frame.items():
                self._put_back(var, old)
            self.positional = saved_pos

    def _exec_path(self, path: str, argv: list[str], ctx: _Ctx) -> int:
        shown = argv[0]
        try:
            node = self.fs.stat(path)
        except FsError as exc:
            self._complain(ctx, f"{shown}: {exc.strerror}")
            return 127
        if isinstance(node, DirNode):
            self._complain(ctx, f"{shown}: Is a directory")
            return 126
        assert isinstance(node, FileNode)
        if not node.mode & 0o111:
            self._complain(ctx, f"{shown}: Permission denied")
            return 126
        program = stub_program(node.content)
        if program is not None:
            return self.run_program(program, argv, ctx)
        text = as_text(node.content)
        first = text.split("\n", 1)[0]
        if first.startswith("#!") and not re.search(r"\b(ba)?sh\b", first):
            interpreter = first[2:].strip().split()
            if interpreter and posixpath.basename(interpreter[-1]).startswith("python"):
                return self.run_program("python3", ["python3", *argv], ctx)
            self._unknown.append(" ".join(argv))
            return 0
        return self._run_script(text, argv, ctx)

    def _run_script(
        self, text: str, argv: list[str], ctx: _Ctx, source: bool = False, name: str | None = None
    ) -> int:
        name = name or argv[0]

        def go() -> int:
            saved = self.positional
            saved_line = self._lineno
            saved_argv0 = self.argv0
            self.positional = list(argv[1:])
            if not source:
                self.argv0 = argv[0]
            if not source:
                self._scripts.append(name)
            try:
                return self._run_status(text, ctx)
            except _Return as exc:
                return exc.code
            finally:
                self.positional = saved
                self._lineno = saved_line
                self.argv0 = saved_argv0
                if not source:
                    self._scripts.pop()

        if source:
            return go()
        return self._subshell(go)

    def run_program(self, program: str, argv: list[str], ctx: _Ctx) -> int:
        """Run a program found on PATH: simulated if known, else an unknown effect."""
        fn = PROGRAMS.get(program)
        if fn is not None:
            return self._call(fn, argv[0], argv[1:], ctx)
        if len(argv) == 2 and argv[1] in ("--version", "-V", "version") and program in _VERSIONS:
            ctx.out.write(_VERSIONS[program] + "\n")
            return 0
        self._unknown.append(" ".join(argv))
        return 0

    # -- expansion -------------------------------------------------------------------------------

    def _subst_index(self, node: Any) -> dict[int, Any]:
        index: dict[int, Any] = {}
        for part in getattr(node, "parts", None) or []:
            if part.kind == "commandsubstitution":
                index[part.pos[0]] = part
        return index

    def _expand_word(self, node: Any, ctx: _Ctx) -> list[str]:
        if any(part.kind == "processsubstitution" for part in getattr(node, "parts", None) or []):
            raise _Unsupported("process substitution")
        raw = ctx.src.text[node.pos[0] : node.pos[1]]
        if raw in ('"$@"', '"${@}"'):
            return list(self.positional)
        variants = brace_expand(raw) if "{" in raw else [raw]
        if len(variants) == 1:
            segs = self._segments(raw, ctx, node.pos[0], self._subst_index(node))
            return self._fields(segs)
        fields: list[str] = []
        for v in variants:
            fields.extend(self._fields(self._segments(v, ctx, None, {})))
        return fields

    def expand_text(self, text: str, ctx: _Ctx | None = None) -> str:
        """Expand ``text`` like a double-quoted word (no splitting, no globbing)."""
        ctx = ctx or _Ctx(_Input(), _Null(), _Null(), _Source("", set(), {}))
        return "".join(t for t, _ in self._segments(text, ctx, None, {}))

    def _fields(self, segs: list[tuple[str, int]]) -> list[str]:
        ifs = self.vars.get("IFS", " \t\n")
        fields: list[list[tuple[str, bool]]] = []
        cur: list[tuple[str, bool]] = []
        started = False
        for text, kind in segs:
            if kind == _EXP:
                if not text:
                    continue
                if not ifs:
                    cur.append((text, True))
                    started = True
                    continue
                pieces = re.split("[" + re.escape(ifs) + "]+", text)
                for k, piece in enumerate(pieces):
                    if k > 0 and started:
                        fields.append(cur)
                        cur = []
                        started = False
                    if piece:
                        cur.append((piece, True))
                        started = True
            else:
                cur.append((text, kind == _LIT))
                started = True
        if started:
            fields.append(cur)
        result: list[str] = []
        for chunks in fields:
            literal = "".join(t for t, _ in chunks)
            if any(g and any(ch in t for ch in "*?[") for t, g in chunks):
                pattern = "".join(t if g else _escape_glob(t) for t, g in chunks)
                if has_glob(pattern):
                    matches = self.glob(pattern)
                    if matches:
                        result.extend(matches)
                        continue
            result.append(literal)
        return result

    def glob(self, pattern: str) -> list[str]:
        """Pathname expansion of ``pattern`` against the virtual filesystem (sorted)."""
        absolute = pattern.startswith("/")
        trailing = pattern.endswith("/")
        comps = [c for c in pattern.split("/") if c]
        results: list[tuple[str, str]] = [("/" if absolute else "", "/" if absolute else self.cwd)]
        for comp in comps:
            fresh: list[tuple[str, str]] = []
            if has_glob(comp):
                rx = glob_regex(comp)
                for shown, real in results:
                    try:
                        names = self.fs.listdir(real)
                    except FsError:
                        continue
                    for name in names:
                        if name.startswith(".") and not comp.startswith((".", "\\.")):
                            continue
                        if rx.match(name):
                            fresh.append((_join(shown, name), posixpath.join(real, name)))
            else:
                lit = _unescape_glob(comp)
                for shown, real in results:
                    fresh.append(
                        (
                            _join(shown, lit),
                            posixpath.join(real, lit) if lit != ".." else posixpath.dirname(real),
                        )
                    )
            results = fresh
            if not results:
                return []
        out = []
        for shown, real in results:
            if trailing:
                if self.fs.is_dir(real):
                    out.append(shown + "/")
            elif self.fs.lexists(real):
                out.append(shown)
        return sorted(out)

    def _segments(
        self,
        text: str,
        ctx: _Ctx,
        offset: int | None,
        subst: dict[int, Any],
        *,
        heredoc: bool = False,
        assign: bool = False,
    ) -> list[tuple[str, int]]:
        segs: list[tuple[str, int]] = []
        lit: list[str] = []
        exp_kind = _QUOTED if heredoc else _EXP

        def flush() -> None:
            if lit:
                segs.append(("".join(lit), _QUOTED if heredoc else _LIT))
                lit.clear()

        i = 0
        n = len(text)
        while i < n:
            c = text[i]
            if c == "\\":
                if heredoc:
                    if i + 1 < n and text[i + 1] in "$`\\\n":
                        if text[i + 1] != "\n":
                            lit.append(text[i + 1])
                        i += 2
                    else:
                        lit.append("\\")
                        i += 1
                    continue
                if i + 1 < n:
                    if text[i + 1] != "\n":
                        flush()
                        segs.append((text[i + 1], _QUOTED))
                    i += 2
                else:
                    lit.append("\\")
                    i += 1
                continue
            if c == "'" and not heredoc:
                flush()
                j = text.find("'", i + 1)
                j = n if j < 0 else j
                segs.append((text[i + 1 : j], _QUOTED))
                i = j + 1
                continue
            if c == '"' and not heredoc:
                flush()
                i = self._dquote(text, i + 1, ctx, offset, subst, segs)
                continue
            if c == "$":
                if i + 1 < n and text[i + 1] == "'" and not heredoc:
                    flush()
                    value, i = _ansi_c(text, i + 2)
                    segs.append((value, _QUOTED))
                    continue
                if i + 1 < n and text[i + 1] == '"' and not heredoc:
                    flush()
                    i = self._dquote(text, i + 2, ctx, offset, subst, segs)
                    continue
                got = self._dollar(text, i, ctx, offset, subst)
                if got is None:
                    lit.append("$")
                    i += 1
                    continue
                value, i = got
                flush()
                segs.append((value, exp_kind))
                continue
            if c == "`":
                flush()
                value, i = self._backtick(text, i, ctx)
                segs.append((value, exp_kind))
                continue
            if c == "~" and not heredoc and (i == 0 or (assign and text[i - 1] in ":=")):
                j = i + 1
                while j < n and text[j] not in "/:":
                    j += 1
                user = text[i + 1 : j]
                home = None
                if user == "":
                    home = self.vars.get("HOME", "/root")
                elif user == "root":
                    home = "/root"
                elif user == "+":
                    home = self.cwd
                if home is not None:
                    flush()
                    segs.append((home, _QUOTED))
                    i = j
                    continue
            lit.append(c)
            i += 1
        flush()
        return segs

    def _dquote(
        self,
        text: str,
        i: int,
        ctx: _Ctx,
        offset: int | None,
        subst: dict[int, Any],
        segs: list[tuple[str, int]],
    ) -> int:
        buf: list[str] = []
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                i += 1
                break
            if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                if text[i + 1] != "\n":
                    buf.append(text[i + 1])
                i += 2
                continue
            if c == "$":
                got = self._dollar(text, i, ctx, offset, subst)
                if got is not None:
                    value, i = got
                    buf.append(value)
                    continue
            if c == "`":
                value, i = self._backtick(text, i, ctx)
                buf.append(value)
                continue
            buf.append(c)
            i += 1
        segs.append(("".join(buf), _QUOTED))
        return i

    def _backtick(self, text: str, i: int, ctx: _Ctx) -> tuple[str, int]:
        j = i + 1
        inner: list[str] = []
        while j < len(text) and text[j] != "`":
            if text[j] == "\\" and j + 1 < len(text) and text[j + 1] in "`\\$":
                inner.append(text[j + 1])
                j += 2
                continue
            inner.append(text[j])
            j += 1
        return self._command_output_text("".join(inner), ctx), j + 1

    def _command_output(self, ctx: _Ctx, run: Callable[[_Ctx], int]) -> str:
        """What ``run`` prints in a subshell (trailing newlines cut); its status is kept for ``$?``."""
        cap = _Capture()
        sub = ctx.with_(out=cap, stdin=_Input())
        self._subst_status = self._subshell(lambda: run(sub))
        return cap.text.rstrip("\n")

    def _command_output_text(self, command: str, ctx: _Ctx) -> str:
        return self._command_output(ctx, lambda sub: self._run_status(command, sub))

    def _command_output_node(self, node: Any, ctx: _Ctx) -> str:
        return self._command_output(ctx, lambda sub: self._exec(node, sub))

    def _dollar(
        self, text: str, i: int, ctx: _Ctx, offset: int | None, subst: dict[int, Any]
    ) -> tuple[str, int] | None:
        n = len(text)
        if i + 1 >= n:
            return None
        nx = text[i + 1]
        if nx == "(":
            if text.startswith("$((", i):
                j = _match_double_paren(text, i + 3)
                if j > 0:
                    return str(self._arith(text[i + 3 : j], ctx)), j + 2
            node = subst.get(offset + i) if offset is not None else None
            if node is not None and offset is not None:
                return self._command_output_node(node.command, ctx), node.pos[1] - offset
            j = _match_paren(text, i + 2)
            return self._command_output_text(text[i + 2 : j], ctx), j + 1
        if nx == "{":
            j = _match_brace(text, i + 2)
            return self._param(text[i + 2 : j], ctx), j + 1
        if nx in "?$#!@*-0123456789":
            return self._special(nx), i + 2
        m = _NAME.match(text, i + 1)
        if m:
            return self.getvar(m.group(0)) or "", m.end()
        return None

    def _special(self, c: str) -> str:
        if c == "?":
            return str(self.last_status)
        if c == "$":
            return "1"
        if c == "#":
            return str(len(self.positional))
        if c in "@*":
            return " ".join(self.positional)
        if c == "!":
            return ""
        if c == "-":
            return "himBHs" if self.interactive else "hBc"
        if c == "0":
            return self.argv0
        k = int(c)
        return self.positional[k - 1] if 0 < k <= len(self.positional) else ""

    def getvar(self, name: str) -> str | None:
        if name == "RANDOM":
            self._rand = (self._rand * 1103515245 + 12345) % (2**31)
            return str(self._rand % 32768)
        if name == "SECONDS":
            return "0"
        if name == "PPID":
            return "0"
        if name == "BASH_VERSION":
            return BASH_VERSION
        if name == "BASHPID":
            return "1"
        return self.vars.get(name)

    def _arith(self, expr: str, ctx: _Ctx) -> int:
        expanded = self.expand_text(expr, ctx)

        def lookup(name: str) -> str:
            return self.getvar(name) or ""

        results = [self._arith_one(part, lookup) for part in expanded.split(",")]
        return results[-1] if results else 0

    def _arith_one(self, expr: str, lookup: Callable[[str], str]) -> int:
        """One arithmetic expression, with the assignments bash allows (``x++``, ``x += 2``)."""
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(\+\+|--)\s*", expr)
        if m:
            old = _arith_eval(m.group(1), lookup)
            self.vars[m.group(1)] = str(old + (1 if m.group(2) == "++" else -1))
            return old
        m = re.fullmatch(r"\s*(\+\+|--)\s*([A-Za-z_]\w*)\s*", expr)
        if m:
            new = _arith_eval(m.group(2), lookup) + (1 if m.group(1) == "++" else -1)
            self.vars[m.group(2)] = str(new)
            return new
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*([-+*/%]?)=(?!=)(.*)", expr, re.S)
        if m:
            value = _arith_eval(m.group(3), lookup)
            if m.group(2):
                value = _arith_eval(f"{_arith_eval(m.group(1), lookup)} {m.group(2)} ({value})", lookup)
            self.vars[m.group(1)] = str(value)
            return value
        return _arith_eval(expr, lookup)

    def _param(self, inner: str, ctx: _Ctx) -> str:
        if inner in ctx.src.arith:
            return str(self._arith(ctx.src.arith[inner], ctx))
        if inner.startswith("#") and len(inner) > 1 and (_NAME.fullmatch(inner[1:]) or inner[1:] in "@*#?"):
            if inner[1:] in "@*":
                return str(len(self.positional))
            return str(len(self._value(inner[1:]) or ""))
        if inner.startswith("!") and _NAME.fullmatch(inner[1:]):
            target = self.vars.get(inner[1:], "")
            return self.vars.get(target, "") if _NAME.fullmatch(target) else ""
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?$#!@*-])", inner)
        if not m:
            raise _ExpansionError(f"${{{inner}}}: bad substitution")
        name = m.group(1)
        rest = inner[m.end() :]
        value = self._value(name)
        is_set = value is not None
        val = value or ""
        if not rest:
            return val
        for op in (":-", ":=", ":+", ":?", "-", "=", "+", "?"):
            if rest.startswith(op):
                word = rest[len(op) :]
                usable = (is_set and val != "") if op.startswith(":") else is_set
                kind = op[-1]
                if kind == "-":
                    return val if usable else self.expand_text(word, ctx)
                if kind == "=":
                    if usable:
                        return val
                    new = self.expand_text(word, ctx)
                    self.vars[name] = new
                    return new
                if kind == "+":
                    return self.expand_text(word, ctx) if usable else ""
                if usable:
                    return val
                message = self.expand_text(word, ctx) if word else "parameter null or not set"
                raise _ExpansionError(f"{name}: {message}", fatal=True)
        if rest.startswith(("##", "#", "%%", "%")):
            op = rest[:2] if rest[:2] in ("##", "%%") else rest[:1]
            rx = glob_regex(self._pattern_text(rest[len(op) :], ctx))
            rng = range(len(val) + 1)
            # shortest prefix or longest suffix first: k ascending; the others descending
            for k in reversed(rng) if op in ("##", "%") else rng:
                if op[0] == "#" and rx.match(val[:k]):
                    return val[k:]
                if op[0] == "%" and rx.match(val[k:]):
                    return val[:k]
            return val
        if rest.startswith("/"):
            body = rest[1:]
            mode = ""
            if body[:1] in "/#%":
                mode, body = body[:1], body[1:]
            pat_raw, _, rep_raw = _split_unescaped(body, "/")
            pattern = self._pattern_text(pat_raw, ctx)
            rep = self.expand_text(rep_raw, ctx)
            return _replace_glob(val, pattern, rep, mode)
        if rest.startswith(":"):
            m2 = re.fullmatch(r":\s*(-?\s*[^:]*)(?::(.*))?", rest, re.S)
            if m2:
                start = _arith_eval(self.expand_text(m2.group(1), ctx), lambda v: self.getvar(v) or "")
                if start < 0:
                    start = max(0, len(val) + start)
                if m2.group(2) is None:
                    return val[start:]
                length = _arith_eval(self.expand_text(m2.group(2), ctx), lambda v: self.getvar(v) or "")
                return val[start : start + length] if length >= 0 else val[start : len(val) + length]
        if rest in ("^^", ",,", "^", ","):
            if rest == "^^":
                return val.upper()
            if rest == ",,":
                return val.lower()
            return (val[:1].upper() if rest == "^" else val[:1].lower()) + val[1:]
        raise _ExpansionError(f"${{{inner}}}: bad substitution")

    def _pattern_text(self, raw: str, ctx: _Ctx) -> str:
        """A pattern word: quoted parts are literal, unquoted glob characters stay special."""
        segs = self._segments(raw, ctx, None, {})
        return "".join(t if k != _QUOTED else _escape_glob(t) for t, k in segs)

    def _value(self, name: str) -> str | None:
        if name.isdigit():
            k = int(name)
            if k == 0:
                return self.argv0
            return self.positional[k - 1] if k <= len(self.positional) else None
        if name in "?$#!@*-":
            return self._special(name)
        return self.getvar(name)

    # -- redirections ----------------------------------------------------------------------------

    def _target(self, word: Any, ctx: _Ctx) -> str:
        fields = self._expand_word(word, ctx)
        raw = ctx.src.text[word.pos[0] : word.pos[1]]
        if len(fields) != 1 or fields[0] == "":
            raise _ExpansionError(f"{raw}: ambiguous redirect")
        return fields[0]

    def _open_sink(self, target: str, ctx: _Ctx, append: bool) -> _Sink:
        path = self.fs.normalize(target, self.cwd)
        if path == "/dev/null":
            return _Null()
        if path == "/dev/stdout":
            return ctx.out
        if path == "/dev/stderr":
            return ctx.err
        if path == "/dev/tty":
            return self._tty_out
        try:
            node = self.fs.stat(path)
        except FsError as exc:
            if exc.code != "ENOENT":
                raise _ExpansionError(f"{target}: {exc.strerror}") from None
            node = None
        if isinstance(node, DirNode):
            raise _ExpansionError(f"{target}: Is a directory")
        try:
            if node is None or not append:
                self.fs.write(path, "")
        except FsError as exc:
            raise _ExpansionError(f"{target}: {exc.strerror}") from None
        return _FileSink(self.fs, path)

    def _heredoc(self, redirect: Any, ctx: _Ctx) -> str:
        src = ctx.src
        doc = redirect.heredoc
        raw = src.text[doc.pos[0] : doc.pos[1]]
        cut = raw.rfind("\n")
        body = raw[: cut + 1] if cut >= 0 else ""
        if redirect.type == "<<-":
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        word = redirect.output
        quoted = word is not None and hasattr(word, "pos") and word.pos[0] in src.quoted_heredocs
        if quoted:
            return body
        segs = self._segments(body, ctx, None, {}, heredoc=True)
        return "".join(t for t, _ in segs)

    def _apply_redirects(self, redirects: list[Any], ctx: _Ctx) -> _Ctx:
        if not redirects:
            return ctx
        fds: dict[int, Any] = {0: ctx.stdin, 1: ctx.out, 2: ctx.err}
        for r in redirects:
            kind = r.type
            src_fd = r.input if isinstance(r.input, int) else None
            if kind in (">", ">|", ">>"):
                fds[1 if src_fd is None else src_fd] = self._open_sink(
                    self._target(r.output, ctx), ctx.with_(out=fds[1], err=fds[2]), kind == ">>"
                )
            elif kind in ("&>", "&>>", ">&") and not isinstance(r.output, int):
                target = self._target(r.output, ctx)
                if kind == ">&" and target.isdigit():
                    fds[1 if src_fd is None else src_fd] = fds.get(int(target), _Null())
                elif kind == ">&" and target == "-":
                    fds[1 if src_fd is None else src_fd] = _Null()
                else:
                    sink = self._open_sink(target, ctx.with_(out=fds[1], err=fds[2]), kind == "&>>")
                    fds[1] = fds[2] = sink
            elif kind == ">&":
                if r.output not in fds:
                    raise _ExpansionError(f"{r.output}: Bad file descriptor")
                fds[1 if src_fd is None else src_fd] = fds[r.output]
            elif kind in ("<", "<>"):
                target = self._target(r.output, ctx)
                path = self.fs.normalize(target, self.cwd)
                try:
                    content = "" if path == "/dev/null" else self.fs.read_text(path)
                except FsError as exc:
                    if kind == "<>" and exc.code == "ENOENT":
                        self.fs.write(path, "")
                        content = ""
                    else:
                        raise _ExpansionError(f"{target}: {exc.strerror}") from None
                fds[0 if src_fd is None else src_fd] = _Input(content)
            elif kind in ("<<", "<<-"):
                fds[0 if src_fd is None else src_fd] = _Input(self._heredoc(r, ctx))
            elif kind == "<<<":
                word = r.output
                raw = ctx.src.text[word.pos[0] : word.pos[1]]
                segs = self._segments(raw, ctx, word.pos[0], self._subst_index(word))
                fds[0 if src_fd is None else src_fd] = _Input("".join(t for t, _ in segs) + "\n")
            elif kind == "<&":
                if isinstance(r.output, int) and r.output in fds:
                    fds[0 if src_fd is None else src_fd] = fds[r.output]
            else:
                raise _Unsupported(f"redirect {kind}")
        stdin = fds[0] if isinstance(fds[0], _Input) else _Input()
        out = fds[1] if isinstance(fds[1], _Sink) else _Null()
        err = fds[2] if isinstance(fds[2], _Sink) else _Null()
        return ctx.with_(stdin=stdin, out=out, err=err)


def _join(shown: str, name: str) -> str:
    if not shown:
        return name
    if shown.endswith("/"):
        return shown + name
    return shown + "/" + name


def _match_closing(text: str, i: int, pair: str = "()", commas: list[int] | None = None) -> int:
    """Index of the bracket closing one opened just before ``text[i]`` (``len(text)`` if none);
    quoted and backslash-escaped characters do not count. Top-level commas go in ``commas``."""
    opening, closing = pair[0], pair[1]
    depth = 1
    for j in _unquoted(text, i):
        c = text[j]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return j
        elif c == "," and depth == 1 and commas is not None:
            commas.append(j)
    return len(text)


_match_paren = functools.partial(_match_closing, pair="()")
_match_brace = functools.partial(_match_closing, pair="{}")


def _split_unescaped(text: str, sep: str) -> tuple[str, str, str]:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == sep:
            return text[:i], sep, text[i + 1 :]
        i += 1
    return text, "", ""


def _replace_glob(val: str, pattern: str, rep: str, mode: str) -> str:
    if not pattern:
        return val
    rx = glob_regex(pattern)
    if mode == "#":
        for k in range(len(val), -1, -1):
            if rx.match(val[:k]):
                return rep + val[k:]
        return val
    if mode == "%":
        for k in range(len(val) + 1):
            if rx.match(val[k:]):
                return val[:k] + rep
        return val
    out: list[str] = []
    i = 0
    replaced = False
    while i <= len(val):
        if not (replaced and mode != "/"):
            for k in range(len(val), i, -1):
                if rx.match(val[i:k]):
                    out.append(rep)
                    i = k
                    replaced = True
                    break
            else:
                if i < len(val):
                    out.append(val[i])
                i += 1
                continue
            continue
        out.append(val[i:])
        break
    return "".join(out)


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """A ``$'...'`` string starting after the quote: its value and the index past it."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d in _ESCAPES:
                out.append(_ESCAPES[d])
                i += 2
                continue
            m = re.match(r"x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{1,4})", text[i + 1 :])
            if m:
                num = m.group(1) or m.group(2) or m.group(3)
                base = 8 if m.group(2) else 16
                out.append(chr(int(num, base)))
                i += 1 + m.end()
                continue
            out.append(c + d)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), n


def _echo_escapes(text: str, printf_format: bool = False) -> tuple[str, bool]:
    """``echo -e`` / ``printf %b`` escapes; the flag says output stops here (``\\c``). In a
    ``printf`` format, ``\\NNN`` is octal without a leading zero."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if printf_format and d in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1 :])
                assert m is not None
                out.append(chr(int(m.group(0), 8)))
                i += 1 + m.end()
                continue
            if d == "c":
                return "".join(out), True
            if d in "ntrabfvEe\\":
                out.append(_ESCAPES[d])
                i += 2
                continue
            if d == "0":
                m = re.match(r"[0-7]{0,3}", text[i + 2 :])
                digits = m.group(0) if m else ""
                out.append(chr(int(digits or "0", 8)))
                i += 2 + len(digits)
                continue
            if d == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + m.end()
                    continue
            out.append(c)
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), False


# -- option parsing --------------------------------------------------------------------------------


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


def _lines(text: str) -> list[str]:
    """Lines without their newline; a final newline does not make an empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


class _InvalidCount(Exception):
    pass


def _count_arg(p: _Proc, value: str, what: str = "lines") -> int:
    try:
        return int(value)
    except ValueError:
        p.err(f"invalid number of {what}: {locale_quote(value)}")
        raise _InvalidCount() from None


class _Inputs:
    """A filter's operands read in order as ``(name, text)`` (none, or ``-``: stdin). One that
    cannot be read is reported (``message`` gets its ``quote``d name and the reason) and sets
    ``status`` to 1; the others are still read."""

    def __init__(
        self,
        p: _Proc,
        names: list[str],
        message: str = "{}: {}",
        quote: Callable[[str], str] = quote_if_needed,
    ) -> None:
        self.p = p
        self.names = names or ["-"]
        self.message = message
        self.quote = quote
        self.status = 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for name in self.names:
            try:
                text = self.p.read(name)
            except FsError as exc:
                self.p.err(self.message.format(self.quote(name), exc.strerror))
                self.status = 1
                continue
            yield name, text


def _write_or_err(p: _Proc, name: str, text: str, message: str = "{}: {}", append: bool = False) -> bool:
    """Write (or append) ``text`` to the file ``name``; False, reported, where that fails."""
    try:
        p.fs.write(p.path(name), text, append=append)
    except FsError as exc:
        p.err(message.format(quote_if_needed(name), exc.strerror))
        return False
    return True


# -- shell builtins --------------------------------------------------------------------------------


def _b_cd(p: _Proc) -> int:
    vm = p.vm
    args = [a for a in p.args if a not in ("-L", "-P", "--")]
    if len(args) > 1:
        p.shell_err("cd: too many arguments")
        return 1
    if not args:
        target = vm.vars.get("HOME")
        if not target:
            p.shell_err("cd: HOME not set")
            return 1
    elif args[0] == "-":
        if vm.oldpwd is None:
            p.shell_err("cd: OLDPWD not set")
            return 1
        target = vm.oldpwd
        p.out(target + "\n")
    else:
        target = args[0]
    path = vm.fs.normalize(target, vm.cwd)
    try:
        node = vm.fs.stat(path)
    except FsError as exc:
        p.shell_err(f"cd: {target}: {exc.strerror}")
        return 1
    if not isinstance(node, DirNode):
        p.shell_err(f"cd: {target}: Not a directory")
        return 1
    vm.oldpwd = vm.cwd
    vm.vars["OLDPWD"] = vm.cwd
    vm.cwd = path
    vm.vars["PWD"] = path
    return 0


def _b_pwd(p: _Proc) -> int:
    if "-P" in p.args:
        p.out(p.fs.realpath(p.vm.cwd) + "\n")
    else:
        p.out(p.vm.cwd + "\n")
    return 0


def _b_echo(p: _Proc) -> int:
    args = list(p.args)
    newline = True
    escapes = False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for c in args[0][1:]:
            if c == "n":
                newline = False
            elif c == "e":
                escapes = True
            else:
                escapes = False
        args.pop(0)
    text = " ".join(args)
    if escapes:
        text, stop = _echo_escapes(text)
        if stop:
            p.out(text)
            return 0
    p.out(text + ("\n" if newline else ""))
    return 0


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcsbq%])")


def _printf_number(p: _Proc, arg: str, conv: str) -> int | float:
    text = arg.strip()
    if not text:
        return 0
    if text[0] in "'\"" and len(text) > 1:
        return ord(text[1])
    try:
        if conv in "eEfFgG":
            return float(text)
        return int(text, 0) if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)", text) else int(text)
    except ValueError:
        m = re.match(r"[-+]?\d+", text)
        p.shell_err(f"printf: {arg}: invalid number")
        p.vm._printf_error = True  # type: ignore[attr-defined]
        return int(m.group(0)) if m else 0


def _printf_format(p: _Proc, fmt: str, args: list[str]) -> str:
    out: list[str] = []
    args = list(args)
    first = True
    while first or args:
        first = False
        consumed = False
        pos = 0
        for m in _PRINTF_SPEC.finditer(fmt):
            text, stop = _echo_escapes(fmt[pos : m.start()], printf_format=True)
            out.append(text)
            if stop:
                return "".join(out)
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            if width == "*":
                width = args.pop(0) if args else "0"
            if prec == "*":
                prec = args.pop(0) if args else "0"
            arg = args.pop(0) if args else None
            consumed = consumed or arg is not None
            spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
            if conv == "q":
                out.append((spec + "s") % _shell_quote(arg or ""))
            elif conv == "s":
                out.append((spec + "s") % (arg or ""))
            elif conv == "b":
                text, stop = _echo_escapes(arg or "")
                out.append((spec + "s") % text)
                if stop:
                    return "".join(out)
            elif conv == "c":
                out.append((spec + "s") % ((arg or "")[:1]))
            else:
                value = _printf_number(p, arg or "0", conv)
                py_conv = "d" if conv in "iu" else conv
                if py_conv in "doxX":
                    value = int(value)
                out.append((spec + py_conv) % value)
        text, stop = _echo_escapes(fmt[pos:], printf_format=True)
        out.append(text)
        if stop or not consumed:
            break
    return "".join(out)


def _shell_quote(text: str) -> str:
    """``printf %q``: backslashes before special characters, ``$'...'`` for control ones."""
    if text == "":
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        body = "".join(
            {"\n": "\\n", "\t": "\\t", "\r": "\\r", "'": "\\'", "\\": "\\\\"}.get(c, c)
            if ord(c) >= 32 or c in "\n\t\r"
            else f"\\{ord(c):03o}"
            for c in text
        )
        return f"$'{body}'"
    return "".join("\\" + c if not (c.isalnum() or c in "_./:=@%+,-") and ord(c) < 128 else c for c in text)


def _b_printf(p: _Proc) -> int:
    args = list(p.args)
    target = None
    if len(args) >= 2 and args[0] == "-v":
        target = args[1]
        args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        p.ctx.err.write("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    p.vm._printf_error = False  # type: ignore[attr-defined]
    text = _printf_format(p, args[0], args[1:])
    if target:
        p.vm.vars[target] = text
    else:
        p.out(text)
    return 1 if getattr(p.vm, "_printf_error", False) else 0


def _valid_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name))


def _b_export(p: _Proc) -> int:
    vm = p.vm
    args = [a for a in p.args if a not in ("-n", "-f")]
    if not args or args == ["-p"]:
        for name in sorted(vm.exported):
            if name in vm.vars:
                value = vm.vars[name].replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                p.out(f'declare -x {name}="{value}"\n')
            else:
                p.out(f"declare -x {name}\n")
        return 0
    status = 0
    for a in args:
        name, eq, value = a.partition("=")
        append = name.endswith("+")
        if append:
            name = name[:-1]
        if not _valid_name(name):
            p.shell_err(f"export: `{a}': not a valid identifier")
            status = 1
            continue
        if "-n" in p.args:
            vm.exported.discard(name)
            continue
        if eq:
            vm._assign(name, value, append)
        vm.exported.add(name)
    return status


def _b_unset(p: _Proc) -> int:
    vm = p.vm
    functions = "-f" in p.args
    status = 0
    for name in p.args:
        if name in ("-f", "-v"):
            continue
        if not _valid_name(name):
            p.shell_err(f"unset: `{name}': not a valid identifier")
            status = 1
            continue
        if functions:
            vm.functions.pop(name, None)
        elif name in vm.vars:
            vm.vars.pop(name, None)
            vm.exported.discard(name)
        else:
            vm.functions.pop(name, None)
    return status


def _b_exit(p: _Proc) -> int:
    if not p.args:
        raise _ExitShell(p.vm.last_status)
    try:
        code = int(p.args[0]) & 0xFF
    except ValueError:
        p.shell_err(f"exit: {p.args[0]}: numeric argument required")
        raise _ExitShell(2) from None
    if len(p.args) > 1:
        p.shell_err("exit: too many arguments")
        return 1
    raise _ExitShell(code)


def _b_return(p: _Proc) -> int:
    code = p.vm.last_status
    if p.args:
        try:
            code = int(p.args[0]) & 0xFF
        except ValueError:
            p.shell_err(f"return: {p.args[0]}: numeric argument required")
            code = 2
    raise _Return(code)


def _loop_control(is_break: bool) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        if p.vm._loop_depth == 0:
            p.shell_err(f"{p.name}: only meaningful in a `for', `while', or `until' loop")
            return 0
        levels = 1
        if p.args:
            try:
                levels = max(1, int(p.args[0]))
            except ValueError:
                p.shell_err(f"{p.name}: {p.args[0]}: numeric argument required")
                return 1
        raise _LoopControl(levels, is_break)

    return run


def _b_true(p: _Proc) -> int:
    return 0


def _b_false(p: _Proc) -> int:
    return 1


def _b_history(p: _Proc) -> int:
    vm = p.vm
    if p.args and p.args[0] == "-c":
        vm.history.clear()
        return 0
    items = list(enumerate(vm.history, 1))
    if p.args and p.args[0].isdigit():
        items = items[-int(p.args[0]) :] if int(p.args[0]) else []
    for number, line in items:
        p.out(f"{number:5d}  {line}\n")
    return 0


def _describe(p: _Proc, name: str) -> str | None:
    vm = p.vm
    if name in vm.aliases:
        return f"{name} is aliased to `{vm.aliases[name]}'"
    if name in _KEYWORDS:
        return f"{name} is a shell keyword"
    if name in vm.functions:
        return f"{name} is a function"
    if name in BUILTINS:
        return f"{name} is a shell builtin"
    found = (
        vm.find_in_path(name)
        if "/" not in name
        else (name if vm.fs.is_file(vm.fs.normalize(name, vm.cwd)) else None)
    )
    return f"{name} is {found}" if found else None


_KEYWORDS = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "function",
    "in",
    "!",
    "[[",
    "]]",
    "{",
    "}",
    "time",
    "select",
}


def _b_type(p: _Proc) -> int:
    status = 0
    names = [a for a in p.args if not a.startswith("-")]
    short = "-t" in p.args
    for name in names:
        text = _describe(p, name)
        if text is None:
            if not short:
                p.shell_err(f"type: {name}: not found")
            status = 1
            continue
        if short:
            kind = text.split(" is ", 1)[1]
            p.out(
                (
                    "alias"
                    if kind.startswith("aliased")
                    else "keyword"
                    if "keyword" in kind
                    else "function"
                    if "function" in kind
                    else "builtin"
                    if "builtin" in kind
                    else "file"
                )
                + "\n"
            )
        else:
            p.out(text + "\n")
    return status


def _b_command(p: _Proc) -> int:
    args = list(p.args)
    if args and args[0] in ("-v", "-V"):
        verbose = args[0] == "-V"
        status = 0
        for name in args[1:]:
            vm = p.vm
            if verbose:
                text = _describe(p, name)
                if text is None:
                    p.shell_err(f"command: {name}: not found")
                    status = 1
                else:
                    p.out(text + "\n")
                continue
            if name in vm.aliases:
                p.out(f"alias {name}='{vm.aliases[name]}'\n")
            elif name in BUILTINS or name in vm.functions or name in _KEYWORDS:
                p.out(name + "\n")
            else:
                found = vm.find_in_path(name)
                if found:
                    p.out(found + "\n")
                else:
                    status = 1
        return status
    if args and args[0] == "-p":
        args = args[1:]
    if not args:
        return 0
    vm = p.vm
    builtin = BUILTINS.get(args[0])
    if builtin is not None:
        return vm._call(builtin, args[0], args[1:], p.ctx)
    found = vm._locate(args[0])
    if found is None:
        p.shell_err(f"{args[0]}: command not found")
        return 127
    return vm._exec_path(found, args, p.ctx)


def _b_alias(p: _Proc) -> int:
    vm = p.vm
    if not p.args or p.args == ["-p"]:
        for name in sorted(vm.aliases):
            p.out(f"alias {name}='{vm.aliases[name]}'\n")
        return 0
    status = 0
    for a in p.args:
        name, eq, value = a.partition("=")
        if eq:
            vm.aliases[name] = value
        elif name in vm.aliases:
            p.out(f"alias {name}='{vm.aliases[name]}'\n")
        else:
            p.shell_err(f"alias: {name}: not found")
            status = 1
    return status


def _b_unalias(p: _Proc) -> int:
    vm = p.vm
    if p.args == ["-a"]:
        vm.aliases.clear()
        return 0
    status = 0
    for name in p.args:
        if vm.aliases.pop(name, None) is None:
            p.shell_err(f"unalias: {name}: not found")
            status = 1
    return status


def _b_source(p: _Proc) -> int:
    if not p.args:
        p.shell_err(f"{p.name}: filename argument required")
        return 2
    vm = p.vm
    name = p.args[0]
    path = vm.fs.normalize(name, vm.cwd) if "/" in name else None
    if path is None:
        path = vm.fs.normalize(name, vm.cwd)
        if not vm.fs.is_file(path):
            path = vm.find_in_path(name) or path
    try:
        text = vm.fs.read_text(path)
    except FsError as exc:
        p.shell_err(f"{name}: {exc.strerror}")
        return 1
    return vm._run_script(text, p.args, p.ctx, source=True)


def _b_eval(p: _Proc) -> int:
    return p.vm._run_status(" ".join(p.args), p.ctx)


def _b_read(p: _Proc) -> int:
    try:
        opts, names = _getopt(p.args, "rsa:p:n:d:t:u:", status=2)
    except _UsageError as exc:
        p.shell_err(f"read: {exc.message}")
        return 2
    line = p.ctx.stdin.readline()
    if line is None:
        for name in names or ["REPLY"]:
            p.vm.vars[name] = ""
        return 1
    complete = line.endswith("\n")
    line = line[:-1] if complete else line
    if "r" not in opts:
        while line.endswith("\\") and complete:
            more = p.ctx.stdin.readline()
            if more is None:
                break
            complete = more.endswith("\n")
            line = line[:-1] + (more[:-1] if complete else more)
        line = re.sub(r"\\(.)", r"\1", line)
    if not names:
        p.vm.vars["REPLY"] = line
        return 0 if complete else 1
    ifs = p.vm.vars.get("IFS", " \t\n")
    stripped = line.strip(ifs) if ifs else line
    if len(names) == 1 or not ifs:
        values = [stripped]
    else:
        values = re.split("[" + re.escape(ifs) + "]+", stripped, maxsplit=len(names) - 1) if stripped else []
    for k, name in enumerate(names):
        p.vm.vars[name] = values[k] if k < len(values) else ""
    return 0 if complete else 1


def _b_set(p: _Proc) -> int:
    vm = p.vm
    if not p.args:
        for name in sorted(vm.vars):
            value = vm.vars[name]
            shown = value if _SAFE_NAME.fullmatch(value or "x") else "'" + value.replace("'", "'\\''") + "'"
            p.out(f"{name}={shown}\n")
        return 0
    if "--" in p.args:
        vm.positional = p.args[p.args.index("--") + 1 :]
    return 0


def _b_shift(p: _Proc) -> int:
    n = int(p.args[0]) if p.args and p.args[0].isdigit() else 1
    if n > len(p.vm.positional):
        return 1
    p.vm.positional = p.vm.positional[n:]
    return 0


def _b_local(p: _Proc) -> int:
    vm = p.vm
    if not vm._locals:
        p.shell_err(f"{p.name}: can only be used in a function")
        return 1
    frame = vm._locals[-1]
    for a in p.args:
        if a.startswith("-"):
            continue
        name, eq, value = a.partition("=")
        if name not in frame:
            frame[name] = vm.vars.get(name)
        vm.vars[name] = value if eq else vm.vars.get(name, "")
    return 0


def _b_declare(p: _Proc) -> int:
    vm = p.vm
    export = any(a.startswith("-") and "x" in a for a in p.args)
    names = [a for a in p.args if not a.startswith(("-", "+"))]
    if not names:
        return _b_export(p) if export else _b_set(_Proc(vm, "set", [], p.ctx))
    for a in names:
        name, eq, value = a.partition("=")
        if not _valid_name(name):
            p.shell_err(f"{p.name}: `{a}': not a valid identifier")
            return 1
        if vm._locals and p.name in ("declare", "typeset") and name not in vm._locals[-1]:
            vm._locals[-1][name] = vm.vars.get(name)
        if eq:
            vm.vars[name] = value
        else:
            vm.vars.setdefault(name, "")
        if export:
            vm.exported.add(name)
    return 0


def _b_let(p: _Proc) -> int:
    value = 0
    for expr in p.args:
        name, eq, rhs = expr.partition("=")
        if eq and _valid_name(name.strip()) and not rhs.startswith("="):
            value = _arith_eval(rhs, lambda v: p.vm.getvar(v) or "")
            p.vm.vars[name.strip()] = str(value)
        else:
            value = _arith_eval(expr, lambda v: p.vm.getvar(v) or "")
    return 0 if value else 1


def _b_noop(p: _Proc) -> int:
    return 0


def _b_umask(p: _Proc) -> int:
    if not p.args:
        p.out("0022\n")
    return 0


def _b_exec(p: _Proc) -> int:
    if not p.args:
        return 0
    return p.vm._invoke(list(p.args), p.ctx)


# -- test / [ / [[ ---------------------------------------------------------------------------------


class _TestError(Exception):
    pass


#: the binary operators of ``test`` (``[[`` adds ``=~``)
_TEST_BINARY = frozenset(
    ("=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef")
)


def _test_eval(p: _Proc, args: list[str], double: bool) -> bool:
    vm = p.vm
    pos = 0

    def peek(k: int = 0) -> str | None:
        return args[pos + k] if pos + k < len(args) else None

    def file_test(op: str, operand: str) -> bool:
        path = vm.fs.normalize(operand, vm.cwd) if operand else ""
        if not operand:
            return False
        if op in ("-L", "-h"):
            return vm.fs.is_link(path)
        try:
            node = vm.fs.stat(path)
        except FsError:
            return False
        if op == "-e" or op == "-a":
            return True
        if op == "-f":
            return isinstance(node, FileNode)
        if op == "-d":
            return isinstance(node, DirNode)
        if op == "-s":
            return isinstance(node, DirNode) or (isinstance(node, FileNode) and node.size > 0)
        if op in ("-r", "-w"):
            return True
        if op == "-x":
            return bool(node.mode & 0o111)
        return False

    def integer(value: str) -> int:
        try:
            return int(value.strip())
        except ValueError:
            if double:
                return _arith_eval(value, lambda v: vm.getvar(v) or "")
            raise _TestError(f"{value}: integer expression expected") from None

    def primary() -> bool:
        nonlocal pos
        tok = peek()
        if tok is None:
            raise _TestError("argument expected")
        if tok == "!":
            pos += 1
            return not primary()
        if tok == "(":
            pos += 1
            value = expr()
            if peek() != ")":
                raise _TestError("`)' expected")
            pos += 1
            return value
        nxt = peek(1)
        if (nxt in _TEST_BINARY or nxt == "=~") and peek(2) is not None:
            left, op, right = tok, nxt, args[pos + 2]
            pos += 3
            if op in ("=", "=="):
                return bool(glob_regex(right).match(left)) if double else left == right
            if op == "!=":
                return not glob_regex(right).match(left) if double else left != right
            if op == "<":
                return left < right
            if op == ">":
                return left > right
            if op == "=~":
                try:
                    m = re.search(posix_regex(right, True), left)
                except re.error:
                    return False
                if m:
                    vm.vars["BASH_REMATCH"] = m.group(0)
                return m is not None
            if op in ("-nt", "-ot", "-ef"):
                try:
                    a = vm.fs.stat(vm.fs.normalize(left, vm.cwd)).mtime
                    b = vm.fs.stat(vm.fs.normalize(right, vm.cwd)).mtime
                except FsError:
                    return False
                return a > b if op == "-nt" else a < b if op == "-ot" else left == right
            a, b = integer(left), integer(right)
            return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[
                op
            ]
        if tok in ("-z", "-n") and nxt is not None:
            pos += 2
            return (len(nxt) == 0) if tok == "-z" else (len(nxt) > 0)
        if re.fullmatch(r"-[efdsrwxLhab]", tok) and nxt is not None:
            pos += 2
            return file_test(tok, nxt)
        pos += 1
        return tok != ""

    def chain(operand: Callable[[], bool], ops: tuple[str, str], either: bool) -> bool:
        """``operand`` joined by ``ops`` (every operand is evaluated, as by the tests)."""
        nonlocal pos
        value = operand()
        while peek() in ops:
            pos += 1
            right = operand()
            value = (value or right) if either else (value and right)
        return value

    def conj() -> bool:
        return chain(primary, ("-a", "&&"), either=False)

    def expr() -> bool:
        return chain(conj, ("-o", "||"), either=True)

    unary = re.compile(r"-[efdsrwxLhabcgkpstuOGNSzn]")
    if not double:
        if not args:
            return False
        if len(args) == 1:
            return args[0] != ""
        if len(args) == 2:
            if args[0] == "!":
                return args[1] == ""
            if not unary.fullmatch(args[0]):
                raise _TestError(f"{args[0]}: unary operator expected")
        three_ok = args[1] in _TEST_BINARY or args[1] in ("-a", "-o") or args[0] in ("!", "(")
        if len(args) == 3 and not three_ok:
            raise _TestError(f"{args[1]}: binary operator expected")
    if not args:
        return False
    result = expr()
    if pos != len(args):
        raise _TestError("too many arguments")
    return result


def _b_test(p: _Proc) -> int:
    args = list(p.args)
    name = p.name
    double = name == "[["
    if name == "[" or double:
        closing = "]" if name == "[" else "]]"
        if not args or args[-1] != closing:
            p.shell_err(f"{name}: missing `{closing}'")
            return 2
        args = args[:-1]
    try:
        return 0 if _test_eval(p, args, double) else 1
    except _TestError as exc:
        p.shell_err(f"{name}: {exc}")
        return 2


# -- file utilities --------------------------------------------------------------------------------


def _u_cat(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "nbAEsTvtue",
        {
            "number": "n",
            "number-nonblank": "b",
            "show-all": "A",
            "show-ends": "E",
            "squeeze-blank": "s",
            "show-tabs": "T",
        },
    )
    inputs = _Inputs(p, files)
    number = 0
    for _, text in inputs:
        if not (set(opts) & set("nbAEsT")):
            p.out(text)
            continue
        out: list[str] = []
        blank_run = False
        pieces = text.split("\n")
        for k, line in enumerate(pieces):
            last = k == len(pieces) - 1
            if last and line == "":
                break
            if "s" in opts:
                if line == "":
                    if blank_run:
                        continue
                    blank_run = True
                else:
                    blank_run = False
            shown = line
            if "T" in opts or "A" in opts:
                shown = shown.replace("\t", "^I")
            if "E" in opts or "A" in opts:
                shown += "$" if not last else ""
            if "b" in opts:
                if line:
                    number += 1
                    shown = f"{number:6d}\t{shown}"
            elif "n" in opts:
                number += 1
                shown = f"{number:6d}\t{shown}"
            out.append(shown + ("" if last else "\n"))
        p.out("".join(out))
    return inputs.status


def _ls_time(mtime: int, now: int) -> str:
    t = time.gmtime(mtime)
    if now - mtime > 15778476 or mtime - now > 3600:
        return time.strftime("%b ", t) + f"{t.tm_mday:2d}  {t.tm_year}"
    return time.strftime("%b ", t) + f"{t.tm_mday:2d} " + time.strftime("%H:%M", t)


def human_size(size: float) -> str:
    """``ls -h`` / ``du -h`` sizes: 4.0K, 13K, 1.2M (rounded up like GNU)."""
    if size < 1024:
        return str(int(size))
    for unit in "KMGTPE":
        size /= 1024
        if size < 1024 or unit == "E":
            if size < 10:
                return f"{math.ceil(size * 10) / 10:.1f}{unit}"
            return f"{math.ceil(size)}{unit}"
    return str(size)


def _blocks(node: Node) -> int:
    if isinstance(node, DirNode):
        return 4
    if isinstance(node, LinkNode):
        return 0
    assert isinstance(node, FileNode)
    return math.ceil(node.size / 4096) * 4


def _nlink(node: Node) -> int:
    if isinstance(node, DirNode):
        return 2 + sum(1 for c in node.children.values() if isinstance(c, DirNode))
    return 1


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


def _u_ls(p: _Proc) -> int:
    opts, ops = _getopt(
        p.args,
        "aAlR1dFhrtSCUpinGgo",
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
        },
        status=2,
    )
    fs = p.fs
    tty = p.ctx.out.tty
    long = "l" in opts or "g" in opts or "o" in opts
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
            rows.append((mode_string(node), str(_nlink(node)), size, _ls_time(node.mtime, now), shown))
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


def _u_mkdir(p: _Proc) -> int:
    opts, dirs = _getopt(p.args, "pvm:", {"parents": "p", "verbose": "v", "mode=": "m"})
    if not dirs:
        raise _UsageError("missing operand")
    mode = 0o755
    if "m" in opts:
        try:
            mode = int(_last(opts, "m") or "755", 8)
        except ValueError:
            p.err(f"invalid mode {quote_always(_last(opts, 'm') or '')}")
            return 1
    status = 0
    for d in dirs:
        path = p.path(d)
        try:
            if "p" in opts:
                missing = []
                probe = d.rstrip("/") or "/"
                while probe not in ("", ".", "/") and not p.fs.exists(p.path(probe)):
                    missing.append(probe)
                    probe = posixpath.dirname(probe)
                p.fs.mkdir(path, parents=True, mode=mode)
                if "v" in opts:
                    for created in reversed(missing):
                        p.out(f"{p.name}: created directory {quote_always(created)}\n")
            else:
                p.fs.mkdir(path, mode=mode)
                if "v" in opts:
                    p.out(f"{p.name}: created directory {quote_always(d)}\n")
        except FsError as exc:
            shown = d
            if exc.path and exc.path != path and path.startswith(exc.path):
                shown = d.rstrip("/")[: len(d.rstrip("/")) - (len(path) - len(exc.path))]
            p.err(f"cannot create directory {locale_quote(shown)}: {exc.strerror}")
            status = 1
    return status


def _u_rm(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "rRfivdI",
        {
            "recursive": "r",
            "force": "f",
            "verbose": "v",
            "dir": "d",
            "no-preserve-root": "nopreserve",
            "preserve-root": None,
            "interactive=": None,
        },
    )
    recursive = "r" in opts or "R" in opts
    force = "f" in opts
    if not names:
        if force:
            return 0
        raise _UsageError("missing operand")
    status = 0
    fs = p.fs
    for name in names:
        path = p.path(name)
        if posixpath.basename(name.rstrip("/")) in (".", ".."):
            p.err(f"refusing to remove '.' or '..' directory: skipping {quote_always(name)}")
            status = 1
            continue
        if path == "/" and recursive:
            if "nopreserve" in opts:
                fs.clear()
                continue
            p.err("it is dangerous to operate recursively on '/'")
            p.err("use --no-preserve-root to override this failsafe")
            status = 1
            continue
        try:
            node = fs.lstat(path)
        except FsError as exc:
            if not force:
                p.err(f"cannot remove {quote_always(name)}: {exc.strerror}")
                status = 1
            continue
        try:
            if isinstance(node, DirNode):
                if recursive:
                    fs.rmtree(path)
                elif "d" in opts:
                    fs.rmdir(path)
                else:
                    p.err(f"cannot remove {quote_always(name)}: Is a directory")
                    status = 1
                    continue
            else:
                fs.remove(path)
        except FsError as exc:
            p.err(f"cannot remove {quote_always(name)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out("".join(_removed_lines(name, node)))
    return status


def _removed_lines(name: str, node: Node) -> list[str]:
    """What ``rm -v`` prints for a removed entry (contents first for a directory)."""
    if not isinstance(node, DirNode):
        return [f"removed {quote_always(name)}\n"]
    lines: list[str] = []
    for child in sorted(node.children):
        lines.extend(_removed_lines(f"{name.rstrip('/')}/{child}", node.children[child]))
    lines.append(f"removed directory {quote_always(name)}\n")
    return lines


def _u_rmdir(p: _Proc) -> int:
    opts, names = _getopt(
        p.args, "pv", {"parents": "p", "verbose": "v", "ignore-fail-on-non-empty": "ignore"}
    )
    if not names:
        raise _UsageError("missing operand")
    status = 0
    for name in names:
        targets = [name]
        if "p" in opts:
            cur = name.rstrip("/")
            while "/" in cur:
                cur = posixpath.dirname(cur)
                if cur:
                    targets.append(cur)
        for t in targets:
            try:
                p.fs.rmdir(p.path(t))
                if "v" in opts:
                    p.out(f"{p.name}: removing directory, {quote_always(t)}\n")
            except FsError as exc:
                if exc.code == "ENOTEMPTY" and "ignore" in opts:
                    break
                p.err(f"failed to remove {quote_always(t)}: {exc.strerror}")
                status = 1
                break
    return status


def _u_touch(p: _Proc) -> int:
    opts, names = _getopt(p.args, "acmd:t:r:", {"no-create": "c", "date=": "d", "reference=": "r"})
    if not names:
        raise _UsageError("missing file operand")
    status = 0
    for name in names:
        path = p.path(name)
        if "c" in opts and not p.fs.exists(path):
            continue
        try:
            p.fs.touch(path)
        except FsError as exc:
            p.err(f"cannot touch {quote_always(name)}: {exc.strerror}")
            status = 1
    return status


def _u_cp(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "rRafivnpuTt:",
        {
            "recursive": "r",
            "archive": "a",
            "force": "f",
            "verbose": "v",
            "no-clobber": "n",
            "preserve": None,
            "preserve=": None,
            "target-directory=": "t",
            "no-target-directory": "T",
        },
    )
    return _copy_or_move(p, opts, names, move=False)


def _u_mv(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "fivnuTt:",
        {
            "force": "f",
            "verbose": "v",
            "no-clobber": "n",
            "target-directory=": "t",
            "no-target-directory": "T",
        },
    )
    return _copy_or_move(p, opts, names, move=True)


def _copy_or_move(p: _Proc, opts: dict[str, Any], names: list[str], move: bool) -> int:
    fs = p.fs
    recursive = move or "r" in opts or "R" in opts or "a" in opts
    target_dir = _last(opts, "t")
    if target_dir is None:
        if not names:
            raise _UsageError("missing file operand")
        if len(names) == 1:
            raise _UsageError(f"missing destination file operand after {quote_always(names[0])}")
        *sources, dest = names
    else:
        sources, dest = names, target_dir
    dest_path = p.path(dest)
    dest_is_dir = fs.is_dir(dest_path) and "T" not in opts
    try:
        fs.stat(dest_path)
        if dest.endswith("/") and not dest_is_dir:
            raise FsError("ENOTDIR", dest)
    except FsError as exc:
        if exc.code == "ENOTDIR":
            p.err(f"cannot stat {quote_always(dest)}: Not a directory")
            return 1
    if (len(sources) > 1 or target_dir is not None) and not dest_is_dir:
        if fs.exists(dest_path):
            p.err(f"target {quote_always(dest)} is not a directory")
        else:
            p.err(f"target {quote_always(dest)}: No such file or directory")
        return 1
    status = 0
    for src in sources:
        src_path = p.path(src)
        try:
            node = fs.stat(src_path) if not move else fs.lstat(src_path)
        except FsError as exc:
            p.err(f"cannot stat {quote_always(src)}: {exc.strerror}")
            status = 1
            continue
        final = posixpath.join(dest_path, posixpath.basename(src_path)) if dest_is_dir else dest_path
        shown_final = _join(dest, posixpath.basename(src_path)) if dest_is_dir else dest
        if isinstance(node, DirNode) and not recursive:
            p.err(f"-r not specified; omitting directory {quote_always(src)}")
            status = 1
            continue
        if final == src_path:
            p.err(f"{quote_always(src)} and {quote_always(shown_final)} are the same file")
            status = 1
            continue
        if isinstance(node, DirNode) and (final + "/").startswith(src_path + "/"):
            if move:
                p.err(
                    f"cannot move {quote_always(src)} to a subdirectory of itself, {quote_always(shown_final)}"
                )
            else:
                p.err(
                    f"cannot copy a directory, {quote_always(src)}, into itself, {quote_always(shown_final)}"
                )
            status = 1
            continue
        existing = fs.lexists(final)
        if existing and "n" in opts:
            continue
        if existing and isinstance(node, DirNode) and not fs.is_dir(final):
            p.err(
                f"cannot overwrite non-directory {quote_always(shown_final)} with directory {quote_always(src)}"
            )
            status = 1
            continue
        if existing and not isinstance(node, DirNode) and fs.is_dir(final):
            p.err(f"cannot overwrite directory {quote_always(shown_final)} with non-directory")
            status = 1
            continue
        try:
            if move:
                if existing and isinstance(node, DirNode) and fs.listdir(final):
                    p.err(
                        f"cannot move {quote_always(src)} to {quote_always(shown_final)}: Directory not empty"
                    )
                    status = 1
                    continue
                if existing and isinstance(node, DirNode):
                    fs.rmdir(final)
                elif existing:
                    fs.remove(final)
                fs.move(src_path, final)
            else:
                fs.copy(src_path, final, recursive=True)
        except FsError as exc:
            if move:
                p.err(f"cannot move {quote_always(src)} to {quote_always(shown_final)}: {exc.strerror}")
            elif isinstance(node, DirNode):
                p.err(f"cannot create directory {quote_always(shown_final)}: {exc.strerror}")
            else:
                p.err(f"cannot create regular file {quote_always(shown_final)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out(f"{'renamed ' if move else ''}{quote_always(src)} -> {quote_always(shown_final)}\n")
    return status


def _head_tail_args(args: list[str]) -> list[str]:
    """``head -5`` is ``head -n 5`` (only where an option may stand, not as -n's value)."""
    out: list[str] = []
    for a in args:
        takes_value = bool(out) and out[-1] in ("-n", "-c", "--lines", "--bytes")
        if re.fullmatch(r"-\d+", a) and not takes_value:
            out += ["-n", a[1:]]
        else:
            out.append(a)
    return out


def _u_head(p: _Proc) -> int:
    return _head_or_tail(p, tail=False)


def _u_tail(p: _Proc) -> int:
    return _head_or_tail(p, tail=True)


def _head_or_tail(p: _Proc, tail: bool) -> int:
    """``head`` (the first N lines or bytes) or ``tail`` (the last N; ``+N``: from the Nth on)."""
    longs: dict[str, str | None] = {"lines=": "n", "bytes=": "c", "quiet": "q", "silent": "q", "verbose": "v"}
    if tail:
        longs.update({"follow": "f", "follow=": "f"})
    opts, files = _getopt(_head_tail_args(p.args), "n:c:qvfF" if tail else "n:c:qv", longs)
    bytes_mode = "c" in opts
    raw = (_last(opts, "c", "0") or "0") if bytes_mode else (_last(opts, "n", "10") or "10")
    from_start = tail and raw.startswith("+")
    try:
        n = _count_arg(p, raw.lstrip("+") if tail else raw, "bytes" if bytes_mode else "lines")
    except _InvalidCount:
        return 1
    if tail:
        n = abs(n)

    def pick(items: Any) -> Any:
        if not tail:
            return items[:n]
        if from_start:
            return items[max(n - 1, 0) :]
        return items[-n:] if n else items[:0]

    files = files or ["-"]
    headers = ("v" in opts or len(files) > 1) and "q" not in opts
    status = 0
    first = True
    for name in files:
        try:
            if name != "-" and p.fs.is_dir(p.path(name)):
                raise FsError("EISDIR", name)
            text = p.read(name)
        except FsError as exc:
            if exc.code == "EISDIR":
                if headers and not tail:
                    p.out(("" if first else "\n") + f"==> {name} <==\n")
                    first = False
                p.err(f"error reading {quote_always(name)}: Is a directory")
            else:
                p.err(f"cannot open {quote_always(name)} for reading: {exc.strerror}")
            status = 1
            continue
        if headers:
            p.out(("" if first else "\n") + f"==> {'standard input' if name == '-' else name} <==\n")
        first = False
        if bytes_mode:
            p.out(pick(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape"))
        else:
            p.out("".join(pick(text.splitlines(keepends=True))))
    if "f" in opts or "F" in opts:
        p.unknown()
    return status


def _u_wc(p: _Proc) -> int:
    opts, files = _getopt(
        p.args, "lwcmL", {"lines": "l", "words": "w", "bytes": "c", "chars": "m", "max-line-length": "L"}
    )
    order = [k for k in "lwmcL" if k in opts] or ["l", "w", "c"]
    inputs = files or ["-"]
    rows: list[tuple[list[int], str | None]] = []
    status = 0
    regular_total = 0
    has_stdin = False
    for name in inputs:
        try:
            if name == "-":
                has_stdin = True
                text = p.stdin()
            else:
                path = p.path(name)
                if p.fs.is_dir(path):
                    p.err(f"{quote_if_needed(name)}: Is a directory")
                    rows.append(([0] * len(order), name))
                    status = 1
                    continue
                text = p.read(name)
                regular_total += len(text.encode("utf-8", "surrogateescape"))
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            status = 1
            continue
        data = text.encode("utf-8", "surrogateescape")
        values = {
            "l": text.count("\n"),
            "w": len(text.split()),
            "c": len(data),
            "m": len(data.decode("utf-8", "replace")),
            "L": max((len(line) for line in text.split("\n")), default=0),
        }
        rows.append(([values[k] for k in order], None if name == "-" and not files else name))
    if len(inputs) > 1:
        totals = [sum(r[0][k] for r in rows) for k in range(len(order))]
        if "L" in order:
            totals[order.index("L")] = max((r[0][order.index("L")] for r in rows), default=0)
        rows.append((totals, "total"))
    if len(order) == 1 and len(inputs) == 1:
        width = 1
    else:
        width = len(str(regular_total)) if regular_total else 1
        if has_stdin or any(p.fs.is_dir(p.path(n)) for n in files if n != "-"):
            width = max(width, 7)
    for counts, label in rows:
        line = " ".join(str(v).rjust(width) for v in counts)
        p.out(line + (f" {label}" if label is not None else "") + "\n")
    return status


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
    return re.compile("|".join(alts) or "(?!)", flags)


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


class _FindError(Exception):
    pass


def _u_find(p: _Proc) -> int:
    args = list(p.args)
    paths: list[str] = []
    while args and not args[0].startswith(("-", "(", "!")):
        paths.append(args.pop(0))
    paths = paths or ["."]
    maxdepth = None
    mindepth = 0
    expr_tokens: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-maxdepth" and i + 1 < len(args):
            maxdepth = int(args[i + 1])
            i += 2
            continue
        if a == "-mindepth" and i + 1 < len(args):
            mindepth = int(args[i + 1])
            i += 2
            continue
        expr_tokens.append(a)
        i += 1
    fs = p.fs
    vm = p.vm
    pos = 0
    has_action = any(t in ("-print", "-exec", "-delete", "-print0", "-ls", "-execdir") for t in expr_tokens)

    def parse_or() -> Callable[[str, str, Node, int], bool]:
        nonlocal pos
        left = parse_and()
        while pos < len(expr_tokens) and expr_tokens[pos] in ("-o", "-or"):
            pos += 1
            right = parse_and()
            left = (lambda a, b: lambda *x: a(*x) or b(*x))(left, right)
        return left

    def parse_and() -> Callable[[str, str, Node, int], bool]:
        nonlocal pos
        left = parse_not()
        while pos < len(expr_tokens) and expr_tokens[pos] not in ("-o", "-or", ")"):
            if expr_tokens[pos] in ("-a", "-and"):
                pos += 1
            right = parse_not()
            left = (lambda a, b: lambda *x: a(*x) and b(*x))(left, right)
        return left

    def parse_not() -> Callable[[str, str, Node, int], bool]:
        nonlocal pos
        if pos < len(expr_tokens) and expr_tokens[pos] in ("!", "-not"):
            pos += 1
            inner = parse_not()
            return lambda *x: not inner(*x)
        if pos < len(expr_tokens) and expr_tokens[pos] == "(":
            pos += 1
            inner = parse_or()
            if pos < len(expr_tokens) and expr_tokens[pos] == ")":
                pos += 1
            return inner
        return parse_primary()

    def need(tok: str) -> str:
        nonlocal pos
        if pos >= len(expr_tokens):
            raise _FindError(f"missing argument to `{tok}'")
        value = expr_tokens[pos]
        pos += 1
        return value

    def parse_primary() -> Callable[[str, str, Node, int], bool]:
        nonlocal pos
        tok = expr_tokens[pos]
        pos += 1
        if tok in ("-name", "-iname"):
            pat = need(tok)
            flags = re.IGNORECASE if tok == "-iname" else 0
            rx = re.compile(glob_regex(pat).pattern, flags)
            return lambda shown, path, node, depth: bool(rx.match(posixpath.basename(path) or "/"))
        if tok in ("-path", "-wholename", "-ipath"):
            pat = need(tok)
            rx = re.compile(glob_regex(pat).pattern, re.IGNORECASE if tok == "-ipath" else 0)
            return lambda shown, path, node, depth: bool(rx.match(shown))
        if tok == "-regex":
            pat = need(tok)
            rx2 = re.compile(posix_regex(pat, False))
            return lambda shown, path, node, depth: bool(rx2.fullmatch(shown))
        if tok == "-type":
            t = need(tok)
            kinds = {"f": FileNode, "d": DirNode, "l": LinkNode}
            wanted = tuple(kinds[c] for c in t.split(",") if c in kinds)
            if not wanted:
                raise _FindError(f"Unknown argument to -type: {t}")
            return lambda shown, path, node, depth: isinstance(node, wanted)
        if tok == "-empty":
            return lambda shown, path, node, depth: (
                (isinstance(node, FileNode) and node.size == 0)
                or (isinstance(node, DirNode) and not node.children)
            )
        if tok == "-size":
            spec = need(tok)
            m = re.fullmatch(r"([+-]?)(\d+)([ckMGb]?)", spec)
            if not m:
                raise _FindError(f"invalid -size type `{spec}'")
            unit = {"c": 1, "k": 1024, "M": 1024**2, "G": 1024**3, "b": 512, "": 512}[m.group(3)]
            amount = int(m.group(2))

            def size_test(shown: str, path: str, node: Node, depth: int) -> bool:
                size = math.ceil(getattr(node, "size", 0) / unit)
                if m.group(1) == "+":
                    return size > amount
                if m.group(1) == "-":
                    return size < amount
                return size == amount

            return size_test
        if tok in ("-newer", "-mtime", "-mmin", "-perm", "-user", "-group", "-uid", "-gid"):
            need(tok)
            return lambda *x: True
        if tok in ("-true", "-print", "-print0", "-ls", "-prune", "-readable", "-writable", "-executable"):
            if tok == "-print":
                return lambda shown, path, node, depth: emit(shown + "\n")
            if tok == "-print0":
                return lambda shown, path, node, depth: emit(shown + "\0")
            if tok == "-executable":
                return lambda shown, path, node, depth: bool(node.mode & 0o111)
            return lambda *x: True
        if tok == "-false":
            return lambda *x: False
        if tok == "-delete":

            def delete(shown: str, path: str, node: Node, depth: int) -> bool:
                try:
                    if isinstance(node, DirNode):
                        fs.rmdir(path)
                    else:
                        fs.remove(path)
                except FsError as exc:
                    p.err(f"cannot delete {locale_quote(shown)}: {exc.strerror}")
                    return False
                return True

            return delete
        if tok in ("-exec", "-execdir", "-ok"):
            command: list[str] = []
            while pos < len(expr_tokens) and expr_tokens[pos] not in (";", "+"):
                command.append(expr_tokens[pos])
                pos += 1
            if pos >= len(expr_tokens):
                raise _FindError(f"missing argument to `{tok}'")
            pos += 1

            def run_exec(shown: str, path: str, node: Node, depth: int) -> bool:
                argv = [c.replace("{}", shown) for c in command]
                if not argv:
                    return False
                return vm._invoke(argv, p.ctx) == 0

            return run_exec
        raise _FindError(f"unknown predicate `{tok}'")

    def emit(text: str) -> bool:
        p.out(text)
        return True

    try:
        test = parse_or() if expr_tokens else (lambda *x: True)
        if pos < len(expr_tokens):
            raise _FindError(f"paths must precede expression: `{expr_tokens[pos]}'")
    except _FindError as exc:
        p.err(str(exc))
        return 1
    except (ValueError, IndexError):
        p.err("invalid expression")
        return 1
    status = 0

    def visit(shown: str, path: str, node: Node, depth: int) -> None:
        if depth >= mindepth and (maxdepth is None or depth <= maxdepth):
            ok = test(shown, path, node, depth)
            if ok and not has_action:
                p.out(shown + "\n")
        if isinstance(node, DirNode) and (maxdepth is None or depth < maxdepth):
            for name in sorted(node.children):
                child = node.children.get(name)
                if child is None:
                    continue
                visit(_join(shown, name), posixpath.join(path, name), child, depth + 1)

    for start in paths:
        node = p.node(start, "{}: {}", quote=locale_quote)
        if node is None:
            status = 1
            continue
        visit(start, p.path(start), node, 0)
    return status


def _sort_key_parts(line: str, opts: dict[str, Any]) -> str:
    keys = opts.get("k", [])
    if not keys:
        return line
    sep = _last(opts, "t")
    fields = line.split(sep) if sep else re.findall(r"\s*\S+", line)
    spec = keys[0]
    m = re.match(r"(\d+)(?:\.\d+)?[a-zA-Z]*(?:,(\d+)(?:\.\d+)?[a-zA-Z]*)?", spec)
    if not m:
        return line
    start = int(m.group(1)) - 1
    end = int(m.group(2)) if m.group(2) else len(fields)
    joiner = sep if sep else ""
    return joiner.join(fields[start:end]).strip() if not sep else joiner.join(fields[start:end])


def _numeric_prefix(text: str) -> float:
    m = re.match(r"\s*([-+]?\d*\.?\d+|[-+]?\d+)", text)
    return float(m.group(1)) if m else 0.0


_HUMAN_UNITS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def _human_value(text: str) -> float:
    m = re.match(r"\s*([-+]?\d*\.?\d+)([KMGTPE]?)", text)
    if not m:
        return 0.0
    return float(m.group(1)) * (1024 ** _HUMAN_UNITS[m.group(2)])


def _u_sort(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "rnufk:t:sho:bdVMgRc",
        {
            "reverse": "r",
            "numeric-sort": "n",
            "unique": "u",
            "ignore-case": "f",
            "key=": "k",
            "field-separator=": "t",
            "human-numeric-sort": "h",
            "output=": "o",
            "version-sort": "V",
            "stable": "s",
            "general-numeric-sort": "g",
            "check": "c",
        },
        status=2,
    )
    text_parts = []
    for name in files or ["-"]:
        try:
            text_parts.append(p.read(name))
        except FsError as exc:
            p.err(
                f"cannot read: {quote_if_needed(name)}: {exc.strerror}"
                if exc.code != "EISDIR"
                else f"read failed: {quote_if_needed(name)}: Is a directory"
            )
            return 2
    lines: list[str] = []
    for t in text_parts:
        lines.extend(_lines(t))

    def key_of(line: str) -> str:
        k = _sort_key_parts(line, opts)
        if "b" in opts:
            k = k.lstrip()
        return k.lower() if "f" in opts else k

    def compare(a: str, b: str) -> int:
        ka, kb = key_of(a), key_of(b)
        if "n" in opts or "g" in opts:
            na, nb = _numeric_prefix(ka), _numeric_prefix(kb)
            c = (na > nb) - (na < nb)
        elif "h" in opts:
            na, nb = _human_value(ka), _human_value(kb)
            c = (na > nb) - (na < nb)
        elif "V" in opts:
            va = [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", ka)]
            vb = [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", kb)]
            try:
                c = (va > vb) - (va < vb)
            except TypeError:
                c = (ka > kb) - (ka < kb)
        else:
            c = (ka > kb) - (ka < kb)
        if c == 0 and "s" not in opts and "u" not in opts:
            c = (a > b) - (a < b)
        return -c if "r" in opts else c

    ordered = sorted(lines, key=cmp_to_key(compare))
    if "u" in opts:
        unique: list[str] = []
        for line in ordered:
            if not unique or compare(unique[-1], line) != 0:
                unique.append(line)
        ordered = unique
    text = "".join(line + "\n" for line in ordered)
    target = _last(opts, "o")
    if target:
        return 0 if _write_or_err(p, target, text, "open failed: {}: {}") else 2
    p.out(text)
    return 0


def _u_uniq(p: _Proc) -> int:
    opts, files = _getopt(
        p.args, "cduif:s:", {"count": "c", "repeated": "d", "unique": "u", "ignore-case": "i"}
    )
    name = files[0] if files else "-"
    try:
        text = p.read(name)
    except FsError as exc:
        p.err(f"{quote_if_needed(name)}: {exc.strerror}")
        return 1
    groups: list[tuple[str, int]] = []
    for line in _lines(text):
        key = line.lower() if "i" in opts else line
        if groups and (groups[-1][0].lower() if "i" in opts else groups[-1][0]) == key:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((line, 1))
    out = []
    for line, count in groups:
        if "d" in opts and count < 2:
            continue
        if "u" in opts and count > 1:
            continue
        out.append(f"{count:7d} {line}\n" if "c" in opts else line + "\n")
    text_out = "".join(out)
    if len(files) > 1:
        return 0 if _write_or_err(p, files[1], text_out) else 1
    p.out(text_out)
    return 0


def _u_env(p: _Proc) -> int:
    vm = p.vm
    args = list(p.args)
    ignore = False
    unset: list[str] = []
    while args and args[0].startswith("-") and args[0] != "-":
        a = args.pop(0)
        if a in ("-i", "--ignore-environment"):
            ignore = True
        elif a in ("-u", "--unset") and args:
            unset.append(args.pop(0))
        elif a == "--":
            break
    if args and args[0] == "-":
        ignore = True
        args.pop(0)
    env = {} if ignore else {k: vm.vars[k] for k in vm.exported if k in vm.vars}
    for name in unset:
        env.pop(name, None)
    assigns = []
    while args and "=" in args[0] and _valid_name(args[0].split("=", 1)[0]):
        name, _, value = args.pop(0).partition("=")
        env[name] = value
        assigns.append((name, value))
    if not args:
        order = [k for k in vm.vars if k in env] + [k for k in env if k not in vm.vars]
        for k in order:
            p.out(f"{k}={env[k]}\n")
        return 0
    saved = (dict(vm.vars), set(vm.exported))
    try:
        if ignore:
            for k in list(vm.exported):
                vm.vars.pop(k, None)
            vm.exported = set()
        for name, value in assigns:
            vm.vars[name] = value
            vm.exported.add(name)
        if "PATH" not in vm.vars:
            vm.vars["PATH"] = "/bin:/usr/bin"
        found = vm._locate(args[0])
        if found is None or not vm.fs.is_file(found):
            p.err(f"{quote_always(args[0])}: No such file or directory")
            return 127
        return vm._exec_path(found, args, p.ctx)
    finally:
        vm.vars, vm.exported = saved


def _u_printenv(p: _Proc) -> int:
    vm = p.vm
    env = {k: vm.vars[k] for k in vm.vars if k in vm.exported}
    if not p.args:
        for k, v in env.items():
            p.out(f"{k}={v}\n")
        return 0
    status = 0
    for name in p.args:
        if name in env:
            p.out(env[name] + "\n")
        else:
            status = 1
    return status


def _u_which(p: _Proc) -> int:
    show_all = "-a" in p.args
    names = [a for a in p.args if not a.startswith("-")]
    if not names:
        return 1
    status = 0
    for name in names:
        if "/" in name:
            path = p.path(name)
            if p.fs.is_file(path) and p.fs.stat(path).mode & 0o111:
                p.out(name + "\n")
            else:
                status = 1
            continue
        found = []
        for d in p.vm.vars.get("PATH", "").split(":"):
            path = posixpath.join(d or ".", name)
            full = p.path(path)
            if p.fs.is_file(full) and p.fs.stat(full).mode & 0o111:
                found.append(path)
                if not show_all:
                    break
        if not found:
            status = 1
        for path in found:
            p.out(path + "\n")
    return status


def _u_whoami(p: _Proc) -> int:
    if p.args:
        raise _UsageError(f"extra operand {quote_always(p.args[0])}")
    p.out(p.vm.user + "\n")
    return 0


def _u_id(p: _Proc) -> int:
    info = ("0", "root") if p.vm.user == "root" else ("1000", p.vm.user)
    if "-u" in p.args or "-g" in p.args:
        p.out((info[1] if "-n" in p.args else info[0]) + "\n")
    elif "-un" in p.args or "-nu" in p.args:
        p.out(info[1] + "\n")
    else:
        p.out(f"uid={info[0]}({info[1]}) gid={info[0]}({info[1]}) groups={info[0]}({info[1]})\n")
    return 0


def _u_hostname(p: _Proc) -> int:
    if p.args and p.args[0] in ("-I", "-i"):
        p.out("172.17.0.2 \n" if p.args[0] == "-I" else "172.17.0.2\n")
        return 0
    if p.args and not p.args[0].startswith("-"):
        p.err("you must be root to change the host name")
        return 1
    p.out(p.vm.hostname + "\n")
    return 0


def _u_uname(p: _Proc) -> int:
    opts, extra = _getopt(
        p.args,
        "asnrvmpio",
        {
            "all": "a",
            "kernel-name": "s",
            "nodename": "n",
            "kernel-release": "r",
            "kernel-version": "v",
            "machine": "m",
            "processor": "p",
            "hardware-platform": "i",
            "operating-system": "o",
        },
    )
    if extra:
        raise _UsageError(f"extra operand {quote_always(extra[0])}")
    fields = [
        ("s", "Linux"),
        ("n", p.vm.hostname),
        ("r", KERNEL),
        ("v", KERNEL_VERSION),
        ("m", "x86_64"),
        ("p", "x86_64"),
        ("i", "x86_64"),
        ("o", "GNU/Linux"),
    ]
    chosen = [v for _, v in fields] if "a" in opts else ([v for k, v in fields if k in opts] or ["Linux"])
    p.out(" ".join(chosen) + "\n")
    return 0


def _u_date(p: _Proc) -> int:
    args = list(p.args)
    now = p.fs.now()
    fmt = None
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("+"):
            fmt = a[1:]
        elif a in ("-u", "--utc", "--universal"):
            pass
        elif a in ("-d", "--date") and i + 1 < len(args):
            value = args[i + 1]
            i += 1
            if value.startswith("@") and value[1:].lstrip("-").isdigit():
                now = int(value[1:])
            elif value in ("now", "today"):
                pass
            else:
                p.unknown()
                return 0
        elif a.startswith("--date="):
            value = a.split("=", 1)[1]
            if value.startswith("@") and value[1:].lstrip("-").isdigit():
                now = int(value[1:])
        elif a in ("-I", "--iso-8601"):
            fmt = "%Y-%m-%d"
        elif a in ("-R", "--rfc-email"):
            fmt = "%a, %d %b %Y %H:%M:%S +0000"
        elif a.startswith("-"):
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
        else:
            p.err(f"invalid date {quote_always(a)}")
            return 1
        i += 1
    p.out(format_date(now, fmt) + "\n")
    return 0


def format_date(epoch: int, fmt: str | None = None) -> str:
    """``date`` output for a UTC time: the default form or a ``+FORMAT``."""
    t = time.gmtime(epoch)
    if fmt is None:
        return time.strftime("%a %b ", t) + f"{t.tm_mday:2d} " + time.strftime("%H:%M:%S UTC %Y", t)
    out = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%" and i + 1 < len(fmt):
            d = fmt[i + 1]
            pad = ""
            if d in "-_0^" and i + 2 < len(fmt):
                pad, d = d, fmt[i + 2]
                i += 1
            if d == "s":
                piece = str(epoch)
            elif d == "N":
                piece = "000000000"
            elif d == "Z":
                piece = "UTC"
            elif d == "z":
                piece = "+0000"
            elif d == "e":
                piece = f"{t.tm_mday:2d}"
            elif d == "P":
                piece = time.strftime("%p", t).lower()
            elif d == "n":
                piece = "\n"
            elif d == "t":
                piece = "\t"
            else:
                piece = time.strftime("%" + d, t)
            if pad == "-":
                piece = piece.lstrip("0 ") or "0"
            elif pad == "_":
                piece = re.sub(r"^0", " ", piece)
            elif pad == "^":
                piece = piece.upper()
            out.append(piece)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _u_sleep(p: _Proc) -> int:
    if not p.args:
        raise _UsageError("missing operand")
    for a in p.args:
        if not re.fullmatch(r"\d*\.?\d+[smhd]?|inf(inity)?", a):
            p.err(f"invalid time interval {quote_always(a)}")
            p.try_help()
            return 1
    return 0


def _u_clear(p: _Proc) -> int:
    p.out(CLEAR_SCREEN)
    return 0


def _u_basename(p: _Proc) -> int:
    opts, names = _getopt(p.args, "as:z", {"multiple": "a", "suffix=": "s", "zero": "z"})
    if not names:
        raise _UsageError("missing operand")
    suffix = _last(opts, "s")
    if "a" not in opts and suffix is None:
        if len(names) > 2:
            raise _UsageError(f"extra operand {quote_always(names[2])}")
        if len(names) == 2:
            suffix = names.pop()
    for name in names:
        base = name.rstrip("/")
        base = posixpath.basename(base) if base else "/"
        if suffix and base.endswith(suffix) and base != suffix:
            base = base[: -len(suffix)]
        p.out(base + "\n")
    return 0


def _u_dirname(p: _Proc) -> int:
    _, names = _getopt(p.args, "z", {"zero": "z"})
    if not names:
        raise _UsageError("missing operand")
    for name in names:
        stripped = name.rstrip("/") or "/"
        if "/" not in stripped:
            p.out(".\n")
            continue
        d = stripped[: stripped.rfind("/")].rstrip("/") or "/"
        p.out(d + "\n")
    return 0


def _u_seq(p: _Proc) -> int:
    args = list(p.args)
    sep = "\n"
    width = False
    fmt = None
    while args and args[0].startswith("-") and not re.fullmatch(r"-\d+(\.\d+)?", args[0]):
        a = args.pop(0)
        if a == "-s" and args:
            sep = args.pop(0)
        elif a.startswith("-s"):
            sep = a[2:]
        elif a == "-w":
            width = True
        elif a == "-f" and args:
            fmt = args.pop(0)
        else:
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
    if not args:
        raise _UsageError("missing operand")
    if len(args) > 3:
        raise _UsageError(f"extra operand {quote_always(args[3])}")
    try:
        nums = [float(a) for a in args]
    except ValueError:
        bad = next(a for a in args if not re.fullmatch(r"-?\d+(\.\d+)?", a))
        p.err(f"invalid floating point argument: {quote_always(bad)}")
        p.try_help()
        return 1
    first, step, last = 1.0, 1.0, nums[-1]
    if len(nums) >= 2:
        first = nums[0]
    if len(nums) == 3:
        step = nums[1]
    if step == 0:
        p.err(f"invalid Zero increment value: {quote_always(args[1])}")
        return 1
    integral = all(re.fullmatch(r"-?\d+", a) for a in args)
    decimals = max((len(a.split(".")[1]) for a in args if "." in a), default=0)
    values = []
    v = first
    count = 0
    while (step > 0 and v <= last + 1e-12) or (step < 0 and v >= last - 1e-12):
        values.append(v)
        count += 1
        if count > 1_000_000:
            break
        v = first + step * count
    if fmt:
        texts = [fmt % x for x in values]
    elif integral:
        texts = [str(int(x)) for x in values]
    else:
        texts = [f"{x:.{decimals}f}" for x in values]
    if width and texts:
        w = max(len(t) for t in texts)
        texts = [t.zfill(w) for t in texts]
    if texts:
        p.out(sep.join(texts) + "\n")
    return 0


def _tr_set(spec: str) -> list[str]:
    out: list[str] = []
    i = 0
    n = len(spec)
    while i < n:
        if spec.startswith("[:", i):
            end = spec.find(":]", i)
            if end > 0:
                name = spec[i + 2 : end]
                ranges = {
                    "lower": "abcdefghijklmnopqrstuvwxyz",
                    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                    "digit": "0123456789",
                    "space": " \t\n\r\f\v",
                    "blank": " \t",
                    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "punct": "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum()),
                    "xdigit": "0123456789ABCDEFabcdef",
                }
                out.extend(ranges.get(name, ""))
                i = end + 2
                continue
        c = spec[i]
        if c == "\\" and i + 1 < n:
            d = spec[i + 1]
            c = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}.get(
                d, d
            )
            i += 2
        else:
            i += 1
        if i + 1 < n and spec[i] == "-":
            hi = spec[i + 1]
            if hi == "\\" and i + 2 < n:
                hi = spec[i + 2]
                i += 1
            out.extend(chr(x) for x in range(ord(c), ord(hi) + 1))
            i += 2
            continue
        out.append(c)
    return out


def _u_tr(p: _Proc) -> int:
    opts, sets = _getopt(p.args, "dscCt", {"delete": "d", "squeeze-repeats": "s", "complement": "c"})
    if not sets:
        raise _UsageError("missing operand")
    delete = "d" in opts
    squeeze = "s" in opts
    if not delete and not squeeze and len(sets) < 2:
        raise _UsageError(
            f"missing operand after {quote_always(sets[0])}\nTwo strings must be given when translating."
        )
    text = p.stdin()
    set1 = _tr_set(sets[0])
    complement = "c" in opts or "C" in opts
    member1 = set(set1)

    def in1(ch: str) -> bool:
        return (ch not in member1) if complement else (ch in member1)

    if delete:
        text = "".join(ch for ch in text if not in1(ch))
        if squeeze and len(sets) > 1:
            text = _squeeze(text, set(_tr_set(sets[1])))
        p.out(text)
        return 0
    if len(sets) >= 2:
        set2 = _tr_set(sets[1])
        if complement:
            last = set2[-1] if set2 else ""
            text = "".join(last if in1(ch) else ch for ch in text)
        else:
            if set2 and len(set2) < len(set1):
                set2 = set2 + [set2[-1]] * (len(set1) - len(set2))
            table = {a: b for a, b in zip(set1, set2)}
            text = "".join(table.get(ch, ch) for ch in text)
        if squeeze:
            text = _squeeze(text, set(set2))
    elif squeeze:
        text = _squeeze(text, member1) if not complement else "".join(text)
    p.out(text)
    return 0


def _squeeze(text: str, chars: set[str]) -> str:
    out: list[str] = []
    for ch in text:
        if out and out[-1] == ch and ch in chars:
            continue
        out.append(ch)
    return "".join(out)


def _u_tee(p: _Proc) -> int:
    opts, files = _getopt(p.args, "ai", {"append": "a", "ignore-interrupts": "i"})
    text = p.stdin()
    status = 0
    for name in files:
        if p.path(name) != "/dev/null" and not _write_or_err(p, name, text, append="a" in opts):
            status = 1
    p.out(text)
    return status


def _parse_list(spec: str) -> list[tuple[int, int | None]]:
    ranges = []
    for part in spec.split(","):
        if not part:
            continue
        if "-" in part:
            a, _, b = part.partition("-")
            ranges.append((int(a) if a else 1, int(b) if b else None))
        else:
            ranges.append((int(part), int(part)))
    return ranges


def _u_cut(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "d:f:c:b:s",
        {
            "delimiter=": "d",
            "fields=": "f",
            "characters=": "c",
            "bytes=": "b",
            "only-delimited": "s",
            "output-delimiter=": "od",
            "complement": "complement",
        },
    )
    spec = _last(opts, "f") or _last(opts, "c") or _last(opts, "b")
    if spec is None:
        raise _UsageError("you must specify a list of bytes, characters, or fields")
    try:
        ranges = _parse_list(spec)
    except ValueError:
        p.err(f"invalid field value {quote_always(spec)}")
        return 1
    delim = _last(opts, "d", "\t") or "\t"
    out_delim = _last(opts, "od", delim) or delim
    inputs = _Inputs(p, files)
    out: list[str] = []
    for _, text in inputs:
        for line in _lines(text):
            if "f" in opts:
                if delim not in line:
                    if "s" not in opts:
                        out.append(line + "\n")
                    continue
                fields = line.split(delim)
                chosen = [
                    f
                    for k, f in enumerate(fields, 1)
                    if any(a <= k and (b is None or k <= b) for a, b in ranges)
                ]
                out.append(out_delim.join(chosen) + "\n")
            else:
                chosen_chars = [
                    c
                    for k, c in enumerate(line, 1)
                    if any(a <= k and (b is None or k <= b) for a, b in ranges)
                ]
                out.append("".join(chosen_chars) + "\n")
    p.out("".join(out))
    return inputs.status


def _sed_replacement(rep: str) -> Callable[[re.Match[str]], str]:
    def expand(m: re.Match[str]) -> str:
        out: list[str] = []
        i = 0
        case: str | None = None
        while i < len(rep):
            c = rep[i]
            if c == "\\" and i + 1 < len(rep):
                d = rep[i + 1]
                if d.isdigit():
                    out.append(m.group(int(d)) or "")
                elif d == "n":
                    out.append("\n")
                elif d == "t":
                    out.append("\t")
                elif d in "UL":
                    case = d
                elif d == "E":
                    case = None
                else:
                    out.append(d)
                i += 2
                continue
            if c == "&":
                out.append(m.group(0))
            else:
                out.append(c)
            i += 1
        text = "".join(out)
        if case == "U":
            return text.upper()
        if case == "L":
            return text.lower()
        return text

    return expand


class _SedError(Exception):
    pass


def _sed_parse(script: str, extended: bool) -> list[dict[str, Any]]:
    commands: list[dict[str, Any]] = []
    i = 0
    n = len(script)

    def read_regex(delim: str) -> str:
        nonlocal i
        buf = []
        while i < n and script[i] != delim:
            if script[i] == "\\" and i + 1 < n:
                if script[i + 1] == delim:
                    buf.append(delim)
                else:
                    buf.append(script[i : i + 2])
                i += 2
                continue
            if script[i] == "\n":
                raise _SedError("unterminated address regex")
            buf.append(script[i])
            i += 1
        if i >= n:
            raise _SedError("unterminated `s' command")
        i += 1
        return "".join(buf)

    def compile_rx(text: str, flags: int = 0) -> re.Pattern[str]:
        try:
            return re.compile(posix_regex(text, extended), flags)
        except re.error as exc:
            raise _SedError(f"-e expression #1, char {i}: {_regex_error(exc)}") from None

    def read_address() -> Any:
        nonlocal i
        if i < n and script[i].isdigit():
            j = i
            while j < n and script[j].isdigit():
                j += 1
            value = int(script[i:j])
            i = j
            return value
        if i < n and script[i] == "$":
            i += 1
            return "$"
        if i < n and script[i] in "/\\":
            delim = "/"
            if script[i] == "\\":
                delim = script[i + 1]
                i += 1
            i += 1
            return compile_rx(read_regex(delim))
        return None

    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        a1 = read_address()
        a2 = None
        if a1 is not None and i < n and script[i] == ",":
            i += 1
            a2 = read_address()
        while i < n and script[i] in " \t":
            i += 1
        negate = False
        if i < n and script[i] == "!":
            negate = True
            i += 1
        if i >= n:
            raise _SedError(f"-e expression #1, char {i}: missing command")
        cmd = script[i]
        i += 1
        entry: dict[str, Any] = {"a1": a1, "a2": a2, "neg": negate, "cmd": cmd, "active": False}
        if cmd == "s":
            delim = script[i]
            i += 1
            pattern = read_regex(delim)
            rep = read_regex(delim)
            flags = ""
            while i < n and script[i] not in ";\n}":
                flags += script[i]
                i += 1
            count = 0 if "g" in flags else 1
            m = re.search(r"\d+", flags)
            nth = int(m.group(0)) if m else 1
            entry.update(
                rx=compile_rx(pattern, re.IGNORECASE if ("I" in flags or "i" in flags) else 0),
                rep=_sed_replacement(rep),
                count=count,
                nth=nth,
                print="p" in flags,
            )
        elif cmd == "y":
            delim = script[i]
            i += 1
            src = read_regex(delim)
            dst = read_regex(delim)
            entry["table"] = str.maketrans(src, dst) if len(src) == len(dst) else {}
        elif cmd in "aic":
            j = i
            while j < n and script[j] != "\n":
                j += 1
            text = script[i:j]
            text = text[1:] if text.startswith("\\") else text
            entry["text"] = text.lstrip()
            i = j
        elif cmd in "pdqQ=nNGhHgxlP{}":
            if cmd in "qQ":
                m2 = re.match(r"\s*(\d+)", script[i:])
                entry["code"] = int(m2.group(1)) if m2 else 0
                if m2:
                    i += m2.end()
        elif cmd in "rw":
            j = i
            while j < n and script[j] != "\n":
                j += 1
            entry["file"] = script[i:j].strip()
            i = j
        elif cmd == "#":
            while i < n and script[i] != "\n":
                i += 1
            continue
        else:
            raise _SedError(f"-e expression #1, char {i}: unknown command: `{cmd}'")
        commands.append(entry)
    return commands


def _sed_run(commands: list[dict[str, Any]], text: str, quiet: bool, p: _Proc) -> tuple[str, int | None]:
    lines = _lines(text)
    out: list[str] = []
    hold = ""
    total = len(lines)
    index = 0

    def matches(addr: Any, k: int, line: str) -> bool:
        if addr == "$":
            return k == total
        if isinstance(addr, int):
            return k == addr
        return bool(addr.search(line))

    quit_code: int | None = None
    while index < total:
        line = lines[index]
        index += 1
        k = index
        append_after: list[str] = []
        deleted = False
        skip_depth = 0
        for cmd in commands:
            if cmd["cmd"] == "}":
                if skip_depth:
                    skip_depth -= 1
                continue
            if skip_depth:
                if cmd["cmd"] == "{":
                    skip_depth += 1
                continue
            a1, a2 = cmd["a1"], cmd["a2"]
            if a1 is None:
                selected = True
            elif a2 is None:
                selected = matches(a1, k, line)
            else:
                if cmd["active"]:
                    selected = True
                    if (isinstance(a2, int) and k >= a2) or (
                        not isinstance(a2, int) and matches(a2, k, line)
                    ):
                        cmd["active"] = False
                elif matches(a1, k, line):
                    selected = True
                    cmd["active"] = not (isinstance(a2, int) and a2 <= k)
                else:
                    selected = False
            if cmd["neg"]:
                selected = not selected
            if not selected:
                if cmd["cmd"] == "{":
                    skip_depth = 1
                continue
            c = cmd["cmd"]
            if c == "s":
                rx: re.Pattern[str] = cmd["rx"]
                if cmd["count"] == 0:
                    new, num = rx.subn(cmd["rep"], line)
                else:
                    seen = 0

                    def repl(m: re.Match[str], cmd: dict[str, Any] = cmd) -> str:
                        nonlocal seen
                        seen += 1
                        return cmd["rep"](m) if seen == cmd["nth"] else m.group(0)

                    new = rx.sub(repl, line)
                    num = 1 if seen >= cmd["nth"] else 0
                if num:
                    line = new
                    if cmd["print"]:
                        out.append(line + "\n")
            elif c == "p":
                out.append(line + "\n")
            elif c == "P":
                out.append(line.split("\n")[0] + "\n")
            elif c == "d":
                deleted = True
                break
            elif c == "=":
                out.append(f"{k}\n")
            elif c == "a":
                append_after.append(cmd["text"] + "\n")
            elif c == "i":
                out.append(cmd["text"] + "\n")
            elif c == "c":
                out.append(cmd["text"] + "\n")
                deleted = True
                break
            elif c == "y":
                line = line.translate(cmd["table"])
            elif c == "h":
                hold = line
            elif c == "H":
                hold = hold + "\n" + line
            elif c == "g":
                line = hold
            elif c == "G":
                line = line + "\n" + hold
            elif c == "x":
                line, hold = hold, line
            elif c == "n":
                if not quiet:
                    out.append(line + "\n")
                if index < total:
                    line = lines[index]
                    index += 1
                    k = index
                else:
                    deleted = True
                    quiet = True
                    break
            elif c == "N":
                if index < total:
                    line = line + "\n" + lines[index]
                    index += 1
                    k = index
            elif c == "w":
                try:
                    p.fs.append(p.path(cmd["file"]), line + "\n")
                except FsError:
                    pass
            elif c in "qQ":
                if c == "q" and not quiet:
                    out.append(line + "\n")
                out.extend(append_after)
                return "".join(out), cmd["code"]
        if not deleted and not quiet:
            out.append(line + "\n")
        out.extend(append_after)
    if text and not text.endswith("\n") and out and out[-1].endswith("\n"):
        out[-1] = out[-1][:-1]
    return "".join(out), quit_code


def _u_sed(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "ne:f:Erisuz",
        {
            "quiet": "n",
            "silent": "n",
            "expression=": "e",
            "file=": "f",
            "regexp-extended": "E",
            "in-place": "i",
            "in-place=": "isuffix",
            "separate": "s",
            "posix": None,
            "debug": None,
            "null-data": "z",
        },
    )
    inplace_suffix = None
    args = list(p.args)
    for a in args:
        if a.startswith("-i") and len(a) > 2 and not a.startswith("--"):
            inplace_suffix = a[2:]
    scripts = list(opts.get("e", []))
    for f in opts.get("f", []):
        try:
            scripts.append(p.read(f))
        except FsError as exc:
            p.err(f"couldn't open file {f}: {exc.strerror}")
            return 1
    if not scripts:
        if not operands:
            p.ctx.err.write("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n")
            return 1
        scripts = [operands.pop(0)]
    try:
        commands = _sed_parse("\n".join(scripts), "E" in opts or "r" in opts)
    except _SedError as exc:
        p.err(str(exc))
        return 1
    quiet = "n" in opts
    inplace = "i" in opts or "isuffix" in opts or inplace_suffix is not None
    status = 0
    if inplace:
        if not operands:
            p.err("no input files")
            return 1
        for name in operands:
            path = p.path(name)
            try:
                if p.fs.is_dir(path):
                    p.err(f"couldn't edit {name}: not a regular file")
                    status = 4
                    continue
                text = p.fs.read_text(path)
            except FsError as exc:
                p.err(f"can't read {name}: {exc.strerror}")
                status = 2
                continue
            for cmd in commands:
                cmd["active"] = False
            result, _ = _sed_run(commands, text, quiet, p)
            suffix = inplace_suffix or _last(opts, "isuffix")
            if suffix:
                p.fs.write(path + suffix, text)
            p.fs.write(path, result)
        return status
    pieces = []
    for name in operands or ["-"]:
        try:
            if name != "-" and p.fs.is_dir(p.path(name)):
                p.err(
                    f"couldn't edit {name}: not a regular file"
                    if inplace
                    else f"read error on {name}: Is a directory"
                )
                status = 2
                continue
            pieces.append(p.read(name))
        except FsError as exc:
            p.err(f"can't read {name}: {exc.strerror}")
            status = 2
    text = ""
    for piece in pieces:
        if text and not text.endswith("\n"):
            text += "\n"
        text += piece
    result, code = _sed_run(commands, text, quiet, p)
    p.out(result)
    return code if code is not None else status


def _parse_mode(spec: str, current: int, is_dir: bool) -> int | None:
    if re.fullmatch(r"[0-7]{1,4}", spec):
        return int(spec, 8)
    mode = current
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if not m:
            return None
        who = m.group(1) or "a"
        op = m.group(2)
        perms = m.group(3)
        bits = 0
        for c in perms:
            if c == "r":
                bits |= 0o444
            elif c == "w":
                bits |= 0o222
            elif c == "x" or (c == "X" and (is_dir or current & 0o111)):
                bits |= 0o111
            elif c == "s":
                bits |= 0o6000
            elif c == "t":
                bits |= 0o1000
        mask = 0
        if "a" in who:
            mask = 0o7777
        else:
            if "u" in who:
                mask |= 0o4700
            if "g" in who:
                mask |= 0o2070
            if "o" in who:
                mask |= 0o1007
        bits &= mask
        if not m.group(1) and "w" in perms:
            bits &= ~0o022
        if op == "+":
            mode |= bits
        elif op == "-":
            mode &= ~bits
        else:
            mode = (mode & ~mask) | bits
    return mode


def _u_chmod(p: _Proc) -> int:
    args = list(p.args)
    recursive = False
    verbose = False
    rest = []
    for a in args:
        if a in ("-R", "--recursive"):
            recursive = True
        elif a in ("-v", "--verbose", "-c"):
            verbose = True
        elif a in ("-f", "--quiet", "--silent"):
            continue
        else:
            rest.append(a)
    if not rest:
        raise _UsageError("missing operand")
    if len(rest) == 1:
        raise _UsageError(f"missing operand after {quote_always(rest[0])}")
    spec, names = rest[0], rest[1:]
    status = 0
    for name in names:
        path = p.path(name)
        node = p.node(name)
        if node is None:
            status = 1
            continue
        targets = [(name, path, node)]
        if recursive and isinstance(node, DirNode):
            for dirpath, dirnames, filenames in p.fs.walk(path):
                for entry in dirnames + filenames:
                    full = posixpath.join(dirpath, entry)
                    targets.append((full, full, p.fs.lstat(full)))
        for shown, full, n in targets:
            if isinstance(n, LinkNode):
                continue
            new = _parse_mode(spec, n.mode, isinstance(n, DirNode))
            if new is None:
                p.err(f"invalid mode: {quote_always(spec)}")
                p.try_help()
                return 1
            old = n.mode
            p.fs.chmod(full, new)
            if verbose:
                p.out(
                    f"mode of {quote_always(shown)} changed from {old:04o} ({mode_string(n)[1:]}) to {new:04o}\n"
                )
    return status


def _u_ln(p: _Proc) -> int:
    opts, names = _getopt(p.args, "sfnvrT", {"symbolic": "s", "force": "f", "verbose": "v", "relative": "r"})
    if not names:
        raise _UsageError("missing file operand")
    if len(names) == 1:
        names.append(posixpath.basename(names[0].rstrip("/")))
    *targets, dest = names
    dest_path = p.path(dest)
    status = 0
    for target in targets:
        link_path = (
            posixpath.join(dest_path, posixpath.basename(target.rstrip("/")))
            if p.fs.is_dir(dest_path) and len(names) > 1 and not ("n" in opts and p.fs.is_link(dest_path))
            else dest_path
        )
        shown = _join(dest, posixpath.basename(target.rstrip("/"))) if link_path != dest_path else dest
        if p.fs.lexists(link_path):
            if "f" in opts:
                p.fs.remove(link_path) if not p.fs.is_dir(link_path) or p.fs.is_link(link_path) else None
            else:
                kind = "symbolic link" if "s" in opts else "hard link"
                p.err(f"failed to create {kind} {quote_always(shown)}: File exists")
                status = 1
                continue
        try:
            if "s" in opts:
                p.fs.symlink(target, link_path)
            else:
                src = p.path(target)
                if p.fs.is_dir(src):
                    p.err(f"{quote_always(target)}: hard link not allowed for directory")
                    status = 1
                    continue
                p.fs.copy(src, link_path)
        except FsError as exc:
            kind = "symbolic link" if "s" in opts else "hard link"
            if exc.code == "ENOENT" and "s" not in opts:
                p.err(f"failed to access {quote_always(target)}: No such file or directory")
            else:
                p.err(f"failed to create {kind} {quote_always(shown)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out(f"{quote_always(shown)} -> {quote_always(target)}\n")
    return status


def _u_realpath(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "emsqzL",
        {
            "canonicalize-existing": "e",
            "canonicalize-missing": "m",
            "no-symlinks": "s",
            "quiet": "q",
            "relative-to=": "rel",
        },
    )
    if not names:
        raise _UsageError("missing operand")
    status = 0
    for name in names:
        path = p.path(name)
        if "m" not in opts and not p.fs.exists(posixpath.dirname(path) if "e" not in opts else path):
            p.err(f"{name}: No such file or directory")
            status = 1
            continue
        p.out((path if "s" in opts else p.fs.realpath(path)) + "\n")
    return status


def _u_readlink(p: _Proc) -> int:
    opts, names = _getopt(
        p.args, "fenmqsvz", {"canonicalize": "f", "canonicalize-existing": "e", "no-newline": "n"}
    )
    status = 1 if not names else 0
    for name in names:
        path = p.path(name)
        if "f" in opts or "e" in opts or "m" in opts:
            if "e" in opts and not p.fs.exists(path):
                status = 1
                continue
            p.out(p.fs.realpath(path) + "\n")
            continue
        try:
            p.out(p.fs.readlink(path) + ("" if "n" in opts else "\n"))
        except FsError:
            status = 1
    return status


def _u_tac(p: _Proc) -> int:
    _, files = _getopt(p.args, "bs:r")
    inputs = _Inputs(p, files, "failed to open {} for reading: {}", quote_always)
    for _, text in inputs:
        p.out("".join(line + "\n" for line in reversed(_lines(text))))
    return inputs.status


def _u_rev(p: _Proc) -> int:
    inputs = _Inputs(p, p.args, "cannot open {}: {}", str)
    for _, text in inputs:
        p.out("".join(line[::-1] + "\n" for line in _lines(text)))
    return inputs.status


def _u_nl(p: _Proc) -> int:
    _, files = _getopt(p.args, "b:n:w:s:v:")
    inputs = _Inputs(p, files, quote=str)
    number = 0
    for _, text in inputs:
        out = []
        for line in _lines(text):
            if line.strip():
                number += 1
                out.append(f"{number:6d}\t{line}\n")
            else:
                out.append("\n")
        p.out("".join(out))
    return inputs.status


def _hash_program(algorithm: str) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        opts, files = _getopt(
            p.args,
            "bctwz",
            {"check": "c", "binary": "b", "text": "t", "tag": None, "quiet": None, "status": None},
        )
        if "c" in opts:
            p.unknown()
            return 0
        inputs = _Inputs(p, files, quote=str)
        for name, text in inputs:
            digest = hashlib.new(algorithm, text.encode("utf-8", "surrogateescape")).hexdigest()
            p.out(f"{digest}  {name}\n")
        return inputs.status

    return run


def _u_ps(p: _Proc) -> int:
    if any(a in ("aux", "-ef", "-aux", "-e", "ax", "-A") for a in p.args):
        if "-ef" in p.args or "-e" in p.args or "-A" in p.args:
            p.out("UID          PID    PPID  C STIME TTY          TIME CMD\n")
            p.out("root           1       0  0 09:30 pts/0    00:00:00 /bin/bash\n")
            p.out("root          42       1  0 09:30 pts/0    00:00:00 ps " + " ".join(p.args) + "\n")
        else:
            p.out("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n")
            p.out("root           1  0.0  0.0   4588  3840 pts/0    Ss   09:30   0:00 /bin/bash\n")
            p.out(
                "root          42  0.0  0.0   7888  3968 pts/0    R+   09:30   0:00 ps "
                + " ".join(p.args)
                + "\n"
            )
        return 0
    p.out("    PID TTY          TIME CMD\n      1 pts/0    00:00:00 bash\n     42 pts/0    00:00:00 ps\n")
    return 0


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


def _u_python(p: _Proc) -> int:
    args = p.args
    if args and args[0] in ("--version", "-V"):
        p.out(f"Python {PYTHON_VERSION}\n")
        return 0
    if args and not args[0].startswith("-"):
        path = p.path(args[0])
        try:
            node = p.fs.stat(path)
        except FsError:
            p.ctx.err.write(
                f"{p.name}: can't open file {quote_always(path)}: [Errno 2] No such file or directory\n"
            )
            return 2
        if isinstance(node, DirNode) and not p.fs.exists(posixpath.join(path, "__main__.py")):
            p.ctx.err.write(f"{p.name}: can't find '__main__' module in {quote_always(args[0])}\n")
            return 1
    p.unknown()
    return 0


def _u_bash(p: _Proc) -> int:
    vm = p.vm
    args = list(p.args)
    while args and args[0] in (
        "-e",
        "-x",
        "-u",
        "-l",
        "--login",
        "-i",
        "-o",
        "pipefail",
        "-eu",
        "-ex",
        "-xe",
        "-euo",
        "--norc",
        "--noprofile",
    ):
        args.pop(0)
    if args and args[0] in ("--version",):
        p.out(f"GNU bash, version {BASH_VERSION} (x86_64-pc-linux-gnu)\n")
        return 0
    if args and args[0] == "-c":
        if len(args) < 2:
            p.ctx.err.write(f"{p.name}: -c: option requires an argument\n")
            return 2
        command = args[1]
        script_args = args[2:] or [p.name]
        return vm._run_script(command, script_args, p.ctx, name="bash")
    if not args:
        stdin = p.ctx.stdin.read()
        if stdin:
            return vm._run_script(stdin, [p.name], p.ctx, name="bash")
        vm._unknown.append(p.name)
        return 0
    path = p.path(args[0])
    try:
        text = vm.fs.read_text(path)
    except FsError as exc:
        p.ctx.err.write(f"{p.name}: {args[0]}: {exc.strerror}\n")
        return 127
    return vm._run_script(text, args, p.ctx)


def _u_expr(p: _Proc) -> int:
    args = p.args
    try:
        if len(args) == 3 and args[1] in ("+", "-", "*", "/", "%"):
            a, b = int(args[0]), int(args[2])
            if args[1] in "/%" and b == 0:
                p.err("division by zero")
                return 2
            value = {
                "+": a + b,
                "-": a - b,
                "*": a * b,
                "/": _c_div(a, b) if b else 0,
                "%": a - _c_div(a, b) * b if b else 0,
            }[args[1]]
        elif len(args) == 3 and args[1] in ("=", "!=", "<", ">", "<=", ">="):
            a2: Any = args[0]
            b2: Any = args[2]
            if re.fullmatch(r"-?\d+", a2) and re.fullmatch(r"-?\d+", b2):
                a2, b2 = int(a2), int(b2)
            ops = {
                "=": operator.eq,
                "!=": operator.ne,
                "<": operator.lt,
                ">": operator.gt,
                "<=": operator.le,
                ">=": operator.ge,
            }
            value = int(ops[args[1]](a2, b2))
        elif len(args) == 2 and args[0] == "length":
            value = len(args[1])
        elif len(args) == 1:
            p.out(args[0] + "\n")
            return 0 if args[0] not in ("", "0") else 1
        else:
            p.unknown()
            return 0
    except ValueError:
        p.err("non-integer argument")
        return 2
    p.out(f"{value}\n")
    return 0 if value else 1


def _u_yes(p: _Proc) -> int:
    text = " ".join(p.args) or "y"
    p.out((text + "\n") * 1000)
    p.unknown()
    return 0


def _stat_field(values: dict[str, str], m: re.Match[str]) -> str:
    return "%" if m.group(1) == "%" else values.get(m.group(1), "?")


def _u_stat(p: _Proc) -> int:
    opts, names = _getopt(p.args, "c:L", {"format=": "c", "dereference": "L", "printf=": "c"})
    if not names:
        raise _UsageError("missing operand")
    fmt = _last(opts, "c")
    status = 0
    for name in names:
        path = p.path(name)
        node = p.node(name, "cannot statx {}: {}", follow="L" in opts)
        if node is None:
            status = 1
            continue
        size = getattr(node, "size", 0)
        kind = (
            "directory"
            if isinstance(node, DirNode)
            else "symbolic link"
            if isinstance(node, LinkNode)
            else ("regular empty file" if size == 0 else "regular file")
        )
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(node.mtime)) + ".000000000 +0000"
        if fmt is not None:
            values = {
                "s": str(size),
                "n": name,
                "a": f"{node.mode & 0o7777:o}",
                "A": mode_string(node),
                "F": kind,
                "U": "root",
                "G": "root",
                "u": "0",
                "g": "0",
                "Y": str(node.mtime),
                "y": when,
                "h": str(_nlink(node)),
                "i": "1",
            }
            p.out(
                re.sub(
                    r"%([a-zA-Z%])",
                    functools.partial(_stat_field, values),
                    fmt,
                )
                + "\n"
            )
            continue
        shown = f"{name} -> {node.target}" if isinstance(node, LinkNode) else name
        p.out(
            f"  File: {shown}\n"
            f"  Size: {size:<15} Blocks: {_blocks(node) * 2:<10} IO Block: 4096   {kind}\n"
            f"Device: 0,54\tInode: {zlib.crc32(path.encode()) % 900000 + 100000:<11} Links: {_nlink(node)}\n"
            f"Access: ({node.mode & 0o7777:04o}/{mode_string(node)})  Uid: (    0/    root)   Gid: (    0/    root)\n"
            f"Access: {when}\nModify: {when}\nChange: {when}\n Birth: {when}\n"
        )
    return status


def _u_du(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "shacd:",
        {"summarize": "s", "human-readable": "h", "all": "a", "total": "c", "max-depth=": "d"},
    )
    status = 0
    grand = 0
    depth_opt = _last(opts, "d")
    maxdepth = int(depth_opt) if depth_opt is not None else None
    lines: list[str] = []

    def fmt(kb: int) -> str:
        return human_size(kb * 1024) if "h" in opts else str(kb)

    def walk(shown: str, n: Node, depth: int) -> int:
        if not isinstance(n, DirNode):
            kb = _blocks(n)
            if "a" in opts and depth > 0 and (maxdepth is None or depth <= maxdepth):
                lines.append(f"{fmt(kb)}\t{shown}")
            return kb
        total = 4
        for child_name in sorted(n.children):
            total += walk(_join(shown, child_name), n.children[child_name], depth + 1)
        if "s" not in opts and (maxdepth is None or depth <= maxdepth):
            lines.append(f"{fmt(total)}\t{shown}")
        return total

    for name in names or ["."]:
        node = p.node(name)
        if node is None:
            status = 1
            continue
        lines.clear()
        total = walk(name, node, 0)
        if "s" in opts:
            lines.append(f"{fmt(total)}\t{name}")
        grand += total
        p.out("".join(line + "\n" for line in lines))
    if "c" in opts:
        p.out(f"{fmt(grand)}\ttotal\n")
    return status


def _fixed_report(plain: str, human: str) -> Callable[[_Proc], int]:
    """A program that prints a fixed report (``human`` with ``-h``)."""

    def run(p: _Proc) -> int:
        p.out(human if "-h" in p.args else plain)
        return 0

    return run


_u_df = _fixed_report(
    "Filesystem     1K-blocks     Used Available Use% Mounted on\n"
    "overlay         61255492 12047352  46066948  21% /\n"
    "tmpfs              65536        0     65536   0% /dev\n",
    "Filesystem      Size  Used Avail Use% Mounted on\n"
    "overlay          59G   12G   45G  21% /\n"
    "tmpfs            64M     0   64M   0% /dev\n",
)
_FREE_HEADER = "               total        used        free      shared  buff/cache   available\n"
_u_free = _fixed_report(
    _FREE_HEADER + "Mem:        16303292     1258796    12830480        4096     2214016    15044496\n"
    "Swap:              0           0           0\n",
    _FREE_HEADER + "Mem:            15Gi       1.2Gi        12Gi       4.0Mi       2.1Gi        14Gi\n"
    "Swap:             0B          0B          0B\n",
)


def _u_kill(p: _Proc) -> int:
    targets = [a for a in p.args if not a.startswith("-")]
    if not targets:
        p.ctx.err.write(
            "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n"
        )
        return 2
    status = 0
    for t in targets:
        if t not in ("1", "42"):
            p.shell_err(f"kill: ({t}) - No such process")
            status = 1
    return status


def _u_base64(p: _Proc) -> int:
    import base64

    opts, files = _getopt(p.args, "dwi:", {"decode": "d", "wrap=": "w", "ignore-garbage": "i"})
    try:
        text = p.read(files[0]) if files else p.stdin()
    except FsError as exc:
        p.err(f"{files[0]}: {exc.strerror}")
        return 1
    if "d" in opts:
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
        except ValueError:
            p.err("invalid input")
            return 1
        p.out(data.decode("utf-8", "surrogateescape"))
        return 0
    encoded = base64.b64encode(text.encode("utf-8", "surrogateescape")).decode()
    wrap = int(_last(opts, "w") or 76)
    if wrap:
        encoded = "\n".join(encoded[k : k + wrap] for k in range(0, len(encoded), wrap))
    p.out(encoded + "\n" if encoded else "")
    return 0


def _u_cmp(p: _Proc) -> int:
    _, files = _getopt(p.args, "sl")
    if len(files) < 2:
        raise _UsageError(f"missing operand after {quote_always(files[0])}" if files else "missing operand")
    try:
        a, b = p.read(files[0]), p.read(files[1])
    except FsError as exc:
        p.err(f"{exc.path}: {exc.strerror}")
        return 2
    if a == b:
        return 0
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            line = a[:k].count("\n") + 1
            if "-s" not in p.args:
                p.out(f"{files[0]} {files[1]} differ: byte {k + 1}, line {line}\n")
            return 1
    if "-s" not in p.args:
        shorter = files[0] if len(a) < len(b) else files[1]
        p.ctx.err.write(f"cmp: EOF on {shorter} after byte {min(len(a), len(b))}\n")
    return 1


def _u_diff(p: _Proc) -> int:
    import difflib

    opts, files = _getopt(p.args, "uqrNwBi", {"unified": "u", "brief": "q", "recursive": "r"})
    if len(files) != 2:
        p.err(f"missing operand after {quote_always(files[-1])}" if files else "missing operand")
        p.err(f"Try '{p.name} --help' for more information.")
        return 2
    texts = []
    for name in files:
        try:
            if p.fs.is_dir(p.path(name)):
                p.unknown()
                return 0
            texts.append(p.read(name))
        except FsError as exc:
            p.err(f"{name}: {exc.strerror}")
            return 2
    if texts[0] == texts[1]:
        return 0
    if "q" in opts:
        p.out(f"Files {files[0]} and {files[1]} differ\n")
        return 1
    a, b = texts[0].splitlines(keepends=True), texts[1].splitlines(keepends=True)
    if "u" in opts:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", time.gmtime(p.fs.now()))
        lines = list(difflib.unified_diff(a, b, files[0], files[1], stamp, stamp))
        p.out(
            "".join(
                line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
            )
        )
        return 1
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out: list[str] = []

    def rng(lo: int, hi: int) -> str:
        return f"{lo + 1}" if hi - lo == 1 else f"{lo + 1},{hi}"

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace":
            out.append(f"{rng(i1, i2)}c{rng(j1, j2)}\n")
        elif tag == "delete":
            out.append(f"{rng(i1, i2)}d{j1}\n")
        else:
            out.append(f"{i1}a{rng(j1, j2)}\n")
        out.extend(
            "< " + line if line.endswith("\n") else "< " + line + "\n\\ No newline at end of file\n"
            for line in a[i1:i2]
        )
        if tag == "replace":
            out.append("---\n")
        out.extend(
            "> " + line if line.endswith("\n") else "> " + line + "\n\\ No newline at end of file\n"
            for line in b[j1:j2]
        )
    p.out("".join(out))
    return 1


def _u_file(p: _Proc) -> int:
    status = 0
    for name in [a for a in p.args if not a.startswith("-")]:
        path = p.path(name)
        try:
            node = p.fs.stat(path)
        except FsError as exc:
            p.out(f"{name}: cannot open `{name}' ({exc.strerror})\n")
            continue
        if isinstance(node, DirNode):
            kind = "directory"
        else:
            assert isinstance(node, FileNode)
            content = node.content
            if stub_program(content):
                kind = "ELF 64-bit LSB pie executable, x86-64, version 1 (SYSV), dynamically linked, stripped"
            elif is_binary(content):
                kind = "data"
            elif not content:
                kind = "empty"
            else:
                text = as_text(content)
                first = text.split("\n", 1)[0]
                if first.startswith("#!") and "python" in first:
                    kind = "Python script, ASCII text executable"
                elif first.startswith("#!") and "sh" in first:
                    kind = "Bourne-Again shell script, ASCII text executable"
                else:
                    kind = "ASCII text" if text.isascii() else "Unicode text, UTF-8 text"
        p.out(f"{name}: {kind}\n")
    return status


def _u_paste(p: _Proc) -> int:
    opts, files = _getopt(p.args, "sd:z", {"serial": "s", "delimiters=": "d"})
    delims = _echo_escapes(_last(opts, "d", "\t") or "\t")[0] or "\t"
    inputs = _Inputs(p, files)
    columns_in = [_lines(text) for _, text in inputs]
    out: list[str] = []

    def joined(items: list[str]) -> str:
        text = ""
        for k, item in enumerate(items):
            text += (delims[(k - 1) % len(delims)] if k else "") + item
        return text

    if "s" in opts:
        out = [joined(col) + "\n" for col in columns_in]
    else:
        for row in range(max((len(c) for c in columns_in), default=0)):
            out.append(joined([c[row] if row < len(c) else "" for c in columns_in]) + "\n")
    p.out("".join(out))
    return inputs.status


def _u_unknown(p: _Proc) -> int:
    p.unknown()
    return 0


BUILTINS: dict[str, Callable[[_Proc], int]] = {
    "cd": _b_cd,
    "pwd": _b_pwd,
    "echo": _b_echo,
    "printf": _b_printf,
    "export": _b_export,
    "unset": _b_unset,
    "exit": _b_exit,
    "logout": _b_exit,
    "return": _b_return,
    "break": _loop_control(True),
    "continue": _loop_control(False),
    "true": _b_true,
    "false": _b_false,
    ":": _b_true,
    "history": _b_history,
    "type": _b_type,
    "command": _b_command,
    "alias": _b_alias,
    "unalias": _b_unalias,
    "source": _b_source,
    ".": _b_source,
    "eval": _b_eval,
    "read": _b_read,
    "set": _b_set,
    "shift": _b_shift,
    "local": _b_local,
    "declare": _b_declare,
    "typeset": _b_declare,
    "readonly": _b_declare,
    "let": _b_let,
    "test": _b_test,
    "[": _b_test,
    "[[": _b_test,
    "wait": _b_noop,
    "jobs": _b_noop,
    "hash": _b_noop,
    "shopt": _b_noop,
    "trap": _b_noop,
    "ulimit": _b_noop,
    "disown": _b_noop,
    "umask": _b_umask,
    "exec": _b_exec,
    "kill": _u_kill,
}

#: programs in /usr/bin whose behaviour is simulated (others have an unknown effect)
PROGRAMS: dict[str, Callable[[_Proc], int]] = {
    "ls": _u_ls,
    "cat": _u_cat,
    "echo": _b_echo,
    "printf": _b_printf,
    "pwd": _b_pwd,
    "true": _b_true,
    "false": _b_false,
    "test": _b_test,
    "[": _b_test,
    "mkdir": _u_mkdir,
    "rm": _u_rm,
    "rmdir": _u_rmdir,
    "touch": _u_touch,
    "cp": _u_cp,
    "mv": _u_mv,
    "head": _u_head,
    "tail": _u_tail,
    "wc": _u_wc,
    "grep": _u_grep,
    "egrep": _u_grep,
    "fgrep": _u_grep,
    "find": _u_find,
    "sort": _u_sort,
    "uniq": _u_uniq,
    "env": _u_env,
    "printenv": _u_printenv,
    "which": _u_which,
    "whoami": _u_whoami,
    "id": _u_id,
    "hostname": _u_hostname,
    "uname": _u_uname,
    "date": _u_date,
    "sleep": _u_sleep,
    "clear": _u_clear,
    "basename": _u_basename,
    "dirname": _u_dirname,
    "seq": _u_seq,
    "tr": _u_tr,
    "tee": _u_tee,
    "cut": _u_cut,
    "sed": _u_sed,
    "chmod": _u_chmod,
    "ln": _u_ln,
    "realpath": _u_realpath,
    "readlink": _u_readlink,
    "tac": _u_tac,
    "rev": _u_rev,
    "nl": _u_nl,
    "md5sum": _hash_program("md5"),
    "sha1sum": _hash_program("sha1"),
    "sha256sum": _hash_program("sha256"),
    "ps": _u_ps,
    "xargs": _u_xargs,
    "python": _u_python,
    "python3": _u_python,
    "python3.12": _u_python,
    "bash": _u_bash,
    "sh": _u_bash,
    "dash": _u_bash,
    "expr": _u_expr,
    "yes": _u_yes,
    "stat": _u_stat,
    "du": _u_du,
    "df": _u_df,
    "free": _u_free,
    "kill": _u_kill,
    "base64": _u_base64,
    "cmp": _u_cmp,
    "diff": _u_diff,
    "file": _u_file,
    "paste": _u_paste,
}


# -- building a machine from a session's context ---------------------------------------------------

_PROMPT_LINE = re.compile(r"^(?P<user>[a-z_][\w.-]*)@(?P<host>[\w.-]+):(?P<cwd>[^\s#$]*)[#$] ?$")


def machine_from_context(context: dict[str, Any], *, interactive: bool = True) -> VirtualMachine:
    """A machine for a session: ``files`` (a ``{path: content}`` seed or a real folder to copy),
    ``cwd`` (default /app) and ``env`` from the context. A prompt on the last line of
    ``initial_state`` (``root@box:/app#``) sets the hostname and, without ``cwd``, the directory."""
    from ..errors import ConfigError

    files = context.get("files")
    cwd = context.get("cwd")
    hostname = "agentworld"
    user = "root"
    initial = context.get("initial_state")
    if isinstance(initial, str) and initial.strip():
        m = _PROMPT_LINE.match(initial.rstrip("\n").split("\n")[-1].rstrip())
        if m:
            hostname = m.group("host")
            user = m.group("user")
            shown = m.group("cwd")
            if cwd is None and shown:
                home = "/root" if user == "root" else f"/home/{user}"
                cwd = home + shown[1:] if shown.startswith("~") else shown
    cwd = cwd or "/app"
    base = cwd if cwd.startswith("/") else "/app"
    try:
        fs = VirtualFS.from_seed(files, base=base)
    except FsError as exc:
        raise ConfigError(
            f"Cannot seed the offline filesystem from {files!r}: {exc.strerror}",
            hint="pass context['files'] as a {path: content} dict or the path of an existing folder",
        ) from None
    env = {str(k): str(v) for k, v in (context.get("env") or {}).items()}
    return VirtualMachine(fs, cwd=cwd, env=env, user=user, hostname=hostname, interactive=interactive)


# -- a terminal pane -------------------------------------------------------------------------------

#: tmux key names an agent may send as a whole batch, and the bytes they stand for
TMUX_KEYS = {
    "C-c": "\x03",
    "C-d": "\x04",
    "C-l": "\x0c",
    "C-u": "\x15",
    "C-z": "\x1a",
    "Enter": "\n",
    "KPEnter": "\n",
    "C-m": "\n",
    "C-j": "\n",
    "Escape": "\x1b",
    "Tab": "\t",
    "BSpace": "\x7f",
    "Up": "",
    "Down": "",
    "Left": "",
    "Right": "",
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]")


@dataclass
class ScreenStep:
    """What one batch of keystrokes did: the commands entered and their exit codes."""

    commands: list[str] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    unknown_commands: list[str] = field(default_factory=list)


class TerminalScreen:
    """A terminal pane (``rows`` x ``cols``) showing an interactive :class:`VirtualMachine`.

    Keys are typed onto the prompt line; Enter runs the line (or asks for more with ``> `` when
    the command is unfinished); Ctrl-C prints ``^C`` and a fresh prompt; ``clear`` and Ctrl-L
    empty the screen. :meth:`view` is what ``tmux capture-pane`` would show: the last ``rows``
    lines, long lines wrapped at ``cols``, trailing spaces trimmed.
    """

    def __init__(
        self, vm: VirtualMachine, initial: str | None = None, *, rows: int = 40, cols: int = COLUMNS
    ) -> None:
        self.vm = vm
        self.rows = rows
        self.cols = cols
        self.scrollback = 2000
        #: the transcript; the last element is the line the cursor is on
        self.lines: list[str] = [""]
        #: text typed on the prompt line and not yet entered
        self.typed = ""
        self.pending: list[str] = []
        self.prompt_text = vm.prompt()
        if initial is not None and initial.strip():
            shown = initial.rstrip("\n").split("\n")
            last = shown[-1]
            if re.search(r"[#$>]$", last):
                last += " "
            if re.search(r"[#$>] $", last):
                self.lines = [*shown[:-1], last]
                self.prompt_text = last
            else:  # the screen shows no prompt yet: the shell prints one
                self.lines = [*shown, self.prompt_text]
        else:
            self.lines = [self.prompt_text]

    # -- output ----------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Write program output at the cursor (``\\n``, ``\\r``, clear-screen understood)."""
        text = _display(text)
        while text:
            k = text.find(CLEAR_SCREEN[:3])
            head, rest = (text, "") if k < 0 else (text[:k], text[k:])
            self._write_plain(head)
            if not rest:
                break
            m = re.match(r"(\x1b\[H)?(\x1b\[2J)(\x1b\[3J)?", rest)
            if m and m.group(0):
                self.lines = [""]
                text = rest[m.end() :]
            else:
                self._write_plain(rest[:3])
                text = rest[3:]

    def _write_plain(self, text: str) -> None:
        text = _ANSI.sub("", text).replace("\x07", "")
        text = text.replace("\r\n", "\n")
        pieces = text.split("\n")
        for k, piece in enumerate(pieces):
            if k > 0:
                self.lines.append("")
            if "\r" in piece:
                piece = piece.rsplit("\r", 1)[1]
                self.lines[-1] = ""
            self.lines[-1] += piece
        if len(self.lines) > self.scrollback:
            del self.lines[: len(self.lines) - self.scrollback]

    def _show_prompt(self, prompt: str) -> None:
        self.prompt_text = prompt
        self.lines[-1] += prompt

    # -- input -----------------------------------------------------------------------------------

    def send(self, keys: str) -> ScreenStep:
        """Type ``keys`` (text, ``\\n`` for Enter, control characters, or one tmux key name)."""
        step = ScreenStep()
        if keys.strip() in TMUX_KEYS and keys.strip() != "":
            keys = TMUX_KEYS[keys.strip()]
        i = 0
        n = len(keys)
        while i < n:
            ch = keys[i]
            if ch == "\r" and i + 1 < n and keys[i + 1] == "\n":
                i += 1
                ch = "\n"
            if ch in "\n\r":
                self._enter(step)
            elif ch == "\x03":
                self._interrupt()
            elif ch == "\x04":
                if not self.typed and not self.pending:
                    self.lines[-1] += "exit"
                    self.write("\n")
                    self._show_prompt(self.vm.prompt())
            elif ch == "\x0c":
                self.lines = [self.prompt_text + self.typed]
            elif ch == "\x15":
                self.lines[-1] = self.lines[-1][: len(self.lines[-1]) - len(self.typed)]
                self.typed = ""
            elif ch in "\x7f\b":
                if self.typed:
                    self.typed = self.typed[:-1]
                    self.lines[-1] = self.lines[-1][:-1]
            elif ch == "\x1b":
                m = re.match(r"\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])?", keys[i:])
                i += max(1, m.end() if m else 1)
                continue
            elif ch == "\t" or ch == "\x1a" or (ord(ch) < 32 and ch != "\t"):
                pass
            else:
                self.typed += ch
                self.lines[-1] += ch
            i += 1
        return step

    def _interrupt(self) -> None:
        self.lines[-1] += "^C"
        self.lines.append("")
        self.typed = ""
        self.pending = []
        self.vm.last_status = 130
        self._show_prompt(self.vm.prompt())

    def _enter(self, step: ScreenStep) -> None:
        line = self.typed
        self.typed = ""
        self.lines.append("")
        if not self.pending and not line.strip():
            self._show_prompt(self.vm.prompt())
            return
        self.pending.append(line)
        text = "\n".join(self.pending)
        if self.vm.needs_more(text):
            self._show_prompt("> ")
            return
        self.pending = []
        result = self.vm.run(text)
        self.write(result.output)
        step.commands.append(text)
        step.exit_codes.append(result.exit_code)
        step.unknown_commands.extend(result.unknown_commands)
        self._show_prompt(self.vm.prompt())

    # -- what is seen ----------------------------------------------------------------------------

    def view(self) -> str:
        """The visible screen: the last ``rows`` lines (wrapped at ``cols``), ending with the
        cursor line (usually the prompt)."""
        rows: list[str] = []
        for line in reversed(self.lines):
            if len(line) <= self.cols:
                rows.append(line)
            else:
                rows.extend(reversed([line[k : k + self.cols] for k in range(0, len(line), self.cols)]))
            if len(rows) >= self.rows:
                break
        return "\n".join(r.rstrip() for r in reversed(rows[: self.rows]))

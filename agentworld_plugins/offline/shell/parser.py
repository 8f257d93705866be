"""Parsing command text with bashlex: here-documents, unsupported syntax, cached parse trees."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import bashlex
import bashlex.errors
import bashlex.subst

from .arith_command import ARITH_COMMAND, ARITH_FOR, rewritten, split_for_head
from .case_command import (
    CASE_EMPTY,
    CASE_HEAD,
    CASE_NEXT,
    CaseIncomplete,
    case_head,
    clause_header,
    clause_start,
    skip,
)
from .errors import _ShellSyntaxError, _Unsupported
from .limits import current
from .simple import simple_command
from .timed import time_prefix


def _guard_paramexpand() -> None:
    """bashlex 0.18 looks for the ``}`` of ``${`` with ``str.find`` and, finding none, starts
    over at index 0 forever (``'${'a`` allocates without end): an unclosed ``${`` is literal text
    to the end of the word here, and the expander gives it its real meaning."""
    original = bashlex.subst._paramexpand
    if getattr(original, "_agentworld_guarded", False):
        return

    def paramexpand(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            return None, len(string)
        return original(parserobj, string, sindex)

    paramexpand._agentworld_guarded = True  # type: ignore[attr-defined]
    bashlex.subst._paramexpand = paramexpand


_guard_paramexpand()


@dataclass
class _Source:
    """A parsed text and what the pre-pass rewrote in it."""

    text: str
    quoted_heredocs: set[int]
    arith: dict[str, str]
    unsupported: bool = False
    #: the text ends inside ``[[ ... ]]`` or a ``case`` (bash reads on, looking for the end)
    open_test: bool = False
    #: the line of the whole script this text starts on (a script is parsed a command at a time)
    first_line: int = 1
    #: here-document bodies by the offset of their delimiter word: the pre-pass takes them out of
    #: the text (bashlex misreads a body inside a compound command) and turns ``<<`` into ``<``
    heredocs: dict[int, str] = field(default_factory=dict)
    #: the delimiter of a here-document the text ends in before its delimiter line (bash reads on)
    open_heredoc: str | None = None
    #: the work bashlex's parse of this text is counted as (charged again whenever it is reused)
    parse_work: int = 0

    def line_of(self, offset: int) -> int:
        """The line number (from 1) of a character offset: a search in the cached line starts, so
        a long script costs no rescan per command."""
        if len(self.text) < 512:  # a line or a short piece: counting beats a cached index
            return self.text.count("\n", 0, offset) + self.first_line
        starts = self.__dict__.get("_line_starts")
        if starts is None:
            starts = [m.end() for m in re.finditer("\n", self.text)]
            self.__dict__["_line_starts"] = starts
        return bisect.bisect_right(starts, offset) + self.first_line

    def at_line(self, first_line: int) -> _Source:
        """This source as a piece of a script that starts on line ``first_line``."""
        return _Source(
            self.text,
            self.quoted_heredocs,
            self.arith,
            self.unsupported,
            self.open_test,
            first_line,
            self.heredocs,
            self.open_heredoc,
        )


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


#: what may stand before a command: the start, an operator, or a keyword that a command follows
_COMMAND_POSITION = re.compile(r"(?:^|[\n;&|(!{]|(?:^|[\s;&|(])(?:if|elif|while|until|then|do|else))[ \t]*\Z")


#: `for ((` (the C-style loop's head)
_FOR_ARITH = re.compile(r"for[ \t]*\(\(")


def _command_starts(text: str, i: int, after_pattern: set[int]) -> bool:
    """Whether a command may start at ``text[i]`` (``after_pattern``: where a case clause's list
    starts, after the ``)`` of its patterns)."""
    return i in after_pattern or _COMMAND_POSITION.search(text, max(0, i - 16), i) is not None


def _arith_command(text: str, i: int, after_pattern: set[int]) -> tuple[str, int] | None:
    """``(( expr ))`` or ``for (( a; b; c ))`` starting at ``text[i]`` where a command starts,
    rewritten as :mod:`.arith_command` runs them, and the index after it; else None."""
    if text.startswith("((", i):
        start, head = i + 2, ARITH_COMMAND
    else:
        m = _FOR_ARITH.match(text, i)
        if m is None:
            return None
        start, head = m.end(), "while " + ARITH_FOR
    if not _command_starts(text, i, after_pattern):
        return None
    j = _match_double_paren(text, start)
    if j < 0:
        return None
    expressions = split_for_head(text[start:j]) if head != ARITH_COMMAND else [text[start:j]]
    if expressions is None:
        return None
    return rewritten(head, expressions), j + 2


#: `NAME=(` / `NAME+=(`: a compound (array) assignment
_COMPOUND = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=\(")
#: what stands before an assignment in the words of a command: other assignments, or a
#: declaration builtin and its words (`declare -a a=(...)`, `local x=1 a=(...)`)
_BEFORE_ASSIGNMENT = re.compile(
    r"(?:(?:declare|local|typeset|readonly|export)(?:[ \t]+[^\s;&|()]+)*"
    r"|(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\s]*\])?\+?=[^\s;&|()]*[ \t]+)*)[ \t]*\Z"
)


def _compound_assignment(text: str, i: int, after_pattern: set[int]) -> tuple[str, str, int] | None:
    """``NAME=( words )`` at ``text[i]`` where an assignment may stand: ``NAME=`` (or ``+=``),
    the words, and the index after the ``)`` (-1: the text ends before it); else None."""
    m = _COMPOUND.match(text, i)
    if m is None:
        return None
    start = 1 + max(text.rfind(c, 0, i) for c in "\n;|&")  # where this command's words start
    before = _BEFORE_ASSIGNMENT.search(text, start, i)  # the words before, if they allow it
    if before is None or (
        before.start() != start and not _command_starts(text, before.start(), after_pattern)
    ):
        return None
    depth = 1
    for j in _unquoted(text, m.end()):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[i : m.end() - 1], text[m.end() : j], j + 1
    return text[i : m.end() - 1], "", -1


_BLANK_RUN = re.compile(r"[ \t]*")

#: a here-document delimiter that bashlex reads as the plain word it is (others get a stand-in)
_PLAIN_DELIMITER = re.compile(r"[A-Za-z0-9_.,:+@%^=-]+")

#: a line that starts with the keyword `do`
_DO_LINE = re.compile(r"[ \t]*do(?=[\s;]|\Z)")


def _prepare(text: str) -> _Source:
    """Rewrite here-documents (bodies kept aside, same length), ``$((...))``, ``(( ))``,
    ``for (( ))``, ``[[ ... ]]`` and the ``time`` keyword so bashlex can parse them, and note what
    was rewritten."""
    out: list[str] = []
    quoted: set[int] = set()
    arith: dict[str, str] = {}
    pending: list[tuple[str, bool, int]] = []
    heredocs: dict[int, str] = {}
    open_heredoc: str | None = None
    unsupported = False
    i = 0
    n = len(text)
    in_dq = False
    in_test = False
    test_command = False  # the open `[[` stands where a command does (not `echo [[`)
    pos = 0  # length of the output so far
    #: for each open ``case`` (innermost last): where its current clause's list starts in the output
    #: (an index into ``out``: the list is never joined while it grows, which made a long case
    #: script quadratic)
    cases: list[int] = []
    #: indexes of ``text`` where a command starts after a case pattern's ``)``
    clause_lists: set[int] = set()

    def emit(s: str) -> None:
        nonlocal pos
        out.append(s)
        pos += len(s)

    def last_char(start: int = 0) -> str:
        """The last character emitted (from ``out[start]`` on) that is not a blank or a tab."""
        for k in range(len(out) - 1, start - 1, -1):
            piece = out[k].rstrip(" \t")
            if piece:
                return piece[-1]
        return ""

    def end_list() -> None:
        """Close the current clause's list before its ``elif``/``fi`` (an empty one gets a marker)."""
        body = "".join(out[cases[-1] :])  # this clause's own list: linear over the whole case
        if re.fullmatch(r"(?:\s|#[^\n]*)*", body):
            emit(CASE_EMPTY)
        if last_char(cases[-1]) not in ("\n", ";", "&"):
            emit("; ")

    def clause(patterns: list[str] | None, marker: str, first: str, replaced: str) -> None:
        if patterns is None:
            emit("fi" + "\n" * replaced.count("\n"))
            cases.pop()
            return
        emit(clause_header(marker, first, patterns, replaced))
        cases[-1] = len(out)

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
        # `if((x))`, `while((i<3))`: bash needs no blank between a keyword and `((`
        if (c == "(" or (c == "f" and at_word_start)) and not in_test:
            arith_command = _arith_command(text, i, clause_lists)
            if arith_command is not None:
                emit(arith_command[0] if at_word_start else " " + arith_command[0])
                i = arith_command[1]
                continue
        if text.startswith("((", i) and at_word_start:
            unsupported = True
        if at_word_start and not in_test and (c.isalpha() or c == "_"):
            compound = _compound_assignment(text, i, clause_lists)
            if compound is not None:  # `a=(x y)`: the words kept aside, a marker for bashlex
                head, inner, j = compound
                if j < 0:
                    return _Source("".join(out), quoted, arith, unsupported, True)
                marker = f"__AWARRAY{len(arith)}"
                arith[marker] = inner
                emit(head + marker)
                i = j
                continue
        if cases and c == ";" and text[i + 1 : i + 2] in (";", "&") and not in_test:
            term = ";;&" if text.startswith(";;&", i) else text[i : i + 2]
            try:
                patterns, j = clause_start(text, i + len(term))
            except CaseIncomplete:
                return _Source("".join(out), quoted, arith, unsupported, True)
            except ValueError:
                return _Source(text, quoted, arith, True)
            end_list()
            clause(patterns, "elif " + CASE_NEXT, term, text[i:j])
            clause_lists.add(skip(_BLANK_RUN, text, j))
            i = j
            continue
        if (
            cases
            and c == "e"
            and at_word_start
            and re.match(r"esac(?=[\s;&|)]|\Z)", text[i : i + 5])
            and _command_starts(text, i, clause_lists)
        ):
            end_list()
            clause(None, "", "", "")
            i += 4
            continue
        if (
            c == "c"
            and at_word_start
            and not in_test
            and re.match(r"case[ \t]", text[i : i + 5])
            and _command_starts(text, i, clause_lists)
        ):
            try:
                word, patterns, j = case_head(text, i)
            except CaseIncomplete:
                return _Source("".join(out), quoted, arith, unsupported, True)
            except ValueError:
                word, patterns, j = "", None, -1
            if j > 0:
                cases.append(len(out))
                if patterns is None:  # `case x in esac`: nothing to run, status 0
                    cases.pop()
                    emit(clause_header("if " + CASE_HEAD, word, [], text[i:j]) + CASE_EMPTY + "; fi")
                else:
                    clause(patterns, "if " + CASE_HEAD, word, text[i:j])
                    clause_lists.add(skip(_BLANK_RUN, text, j))
                i = j
                continue
        if c == "t" and at_word_start and not in_test and _command_starts(text, i, clause_lists):
            timed = time_prefix(text, i)
            if timed is not None:  # `time cmd`: a marked `!` (timed.py); `cmd` starts a command
                emit(timed[0])
                i = timed[1]
                clause_lists.add(i)
                continue
        if c == "#" and at_word_start and text[i - 2 : i] != "${":  # not `${#a[@]}`
            j = text.find("\n", i)
            j = n if j < 0 else j
            emit(text[i:j])
            i = j
            continue
        if not in_test and text.startswith("[[", i) and at_word_start and text[i + 2 : i + 3] in (" ", "\t"):
            in_test = True
            test_command = _command_starts(text, i, clause_lists)
            emit("\\[\\[")
            i += 2
            continue
        if in_test:
            if (
                text.startswith("]]", i)
                and text[i - 1] in " \t\n"
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
            if text.startswith("$(", i):  # a command substitution: bashlex parses it as it is
                depth, end = 0, n - 1
                for j in _unquoted(text, i + 1):
                    depth += {"(": 1, ")": -1}.get(text[j], 0)
                    if depth == 0:
                        end = j
                        break
                emit(text[i : end + 1])
                i = end + 1
                continue
            if c in "<>()|":
                emit("\\" + c)
                i += 1
                continue
            if c == "\n":  # bash reads newlines inside [[ ]] as blanks
                emit(" ")
                i += 1
                continue
        if text.startswith("<<<", i):
            emit("<<<")
            i += 3
            continue
        if text.startswith("<<", i):
            emit("< ")  # read from the body kept aside (a plain `<` to bashlex)
            i += 2
            strip = False
            if i < n and text[i] == "-":
                emit(" ")
                i += 1
                strip = True
            while i < n and text[i] in " \t":
                emit(text[i])
                i += 1
            start = i
            chars: list[str] = []
            q = ""
            while i < n:
                d = text[i]
                if q:
                    if d == q:
                        q = ""
                    else:
                        chars.append(d)
                elif d in "'\"":
                    q = d
                elif d == "\\" and i + 1 < n:
                    chars.append(text[i + 1])
                    i += 1
                elif d in " \t\n;&|<>()":
                    break
                else:
                    chars.append(d)
                i += 1
            raw = text[start:i]
            delim = "".join(chars)
            word_at = pos
            if raw != delim:
                quoted.add(pos)
            word = delim if _PLAIN_DELIMITER.fullmatch(delim) else "_" * max(1, len(delim))
            emit(word + " " * max(0, len(raw) - len(word)))
            pending.append((delim, strip, word_at))
            continue
        if c == "\n" and pending:
            emit("\n")
            i += 1
            for delim, strip, word_at in pending:
                body: list[str] = []
                open_heredoc = delim  # until its delimiter line comes
                while i < n:
                    j = text.find("\n", i)
                    end = n if j < 0 else j + 1
                    line = text[i : (n if j < 0 else j)]
                    emit(" " * len(line) + ("\n" if j >= 0 else ""))  # blanked: same length and lines
                    i = end
                    if (line.lstrip("\t") if strip else line) == delim:
                        open_heredoc = None
                        break
                    body.append((line.lstrip("\t") if strip else line) + "\n")
                heredocs[word_at] = "".join(body)
            pending = []
            continue
        if c == "\n" and _DO_LINE.match(text, i + 1) and last_char() not in ("", *"\n;&|("):
            emit(";\n")  # bashlex refuses `while cond` + newline + `do`; bash reads it as `cond; do`
            i += 1
            continue
        emit(c)
        i += 1
    return _Source(
        "".join(out),
        quoted,
        arith,
        unsupported,
        (in_test and test_command) or bool(cases),
        heredocs=heredocs,
        open_heredoc=pending[0][0] if pending else open_heredoc,
    )


_UNSUPPORTED_HINT = re.compile(r"(^|[\s;&|(])(case|select|coproc)\s|\(\(|\w=\(|\[\[")


#: units of work per character bashlex parses (it reads 20-30 us a character), per character
#: the pre-pass reads (0.5-0.7 us a character measured: a unit each, so that a script the reader
#: grows and prepares again, twice as many lines each time, is not undercharged), and per
#: character of a line split without bashlex
PARSE_WORK = 20
PREPARE_CHARS_PER_UNIT = 1
SIMPLE_CHARS_PER_UNIT = 16


def _parse(text: str) -> tuple[list[Any], _Source]:
    """bashlex nodes for ``text``; raises :class:`_ShellSyntaxError` or :class:`_Unsupported`.
    A line that is one simple command of plain words is split without bashlex (:mod:`.simple`);
    other texts are parsed once and cached (the nodes are only read, never changed).

    The work is counted against the step's budget before it is done, and the same whether the
    parse was cached or not (a cache shared by sessions must not change what a step may do)."""
    budget = current()
    fast = simple_command(text)
    if fast is not None:
        budget.spend(1 + len(text) // SIMPLE_CHARS_PER_UNIT)
        nodes, prepared, arith = fast
        return nodes, _Source(prepared, set(), arith)
    budget.spend(1 + len(text) // PREPARE_CHARS_PER_UNIT)
    cached = _PARSED.get(text)
    if cached is not None:
        budget.spend(cached[1].parse_work)
        return cached
    parsed = _parse_full(text)
    _PARSED[text] = parsed
    while len(_PARSED) > _CACHED:
        _PARSED.pop(next(iter(_PARSED)), None)
    return parsed


#: texts parsed with bashlex, kept (the oldest go first) so that repeated pieces parse once
_PARSED: dict[str, tuple[list[Any], _Source]] = {}
_CACHED = 256


def _parse_full(text: str) -> tuple[list[Any], _Source]:
    src = _prepare(text)
    if src.unsupported:
        raise _Unsupported("arithmetic command")
    if src.open_test:
        raise _ShellSyntaxError("unexpected EOF while looking for `]]'", incomplete=True)
    if src.open_heredoc is not None:
        wanted = src.open_heredoc
        raise _ShellSyntaxError(
            f"here-document delimited by end-of-file (wanted '{wanted}')", incomplete=True, wanted=wanted
        )
    body = src.text
    stripped = "\n".join(line for line in body.split("\n") if not line.lstrip().startswith("#"))
    if not stripped.strip():
        return [], src
    # what bashlex will read (here-document bodies are blanked): counted before it reads it
    src.parse_work = PARSE_WORK * (len(body) - body.count(" ") - body.count("\n")) + body.count("\n")
    current().spend(src.parse_work)
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

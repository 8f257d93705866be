"""The ``case WORD in PATTERN) LIST ;; ... esac`` command.

bashlex does not parse ``case``. The parser's pre-pass (:func:`~.parser._prepare`) rewrites one
that stands where a command starts into an ``if`` chain bashlex parses, keeping the raw texts in
single quotes: ``case W in a|b) L1 ;; c) L2 ;& esac`` becomes
``if __AWCASE 'W' 'a' 'b'; then L1; elif __AWCASE_NEXT ';;' 'c'; then L2; fi``. Each clause's
marker after the first names how the clause before it ended (``;;``, ``;&``, ``;;&``); an empty
list is ``__AWCASE_EMPTY``. The markers never run: :class:`CaseCommandMixin` finds the chain by
its first condition and runs it as bash runs ``case`` (the word expanded once, patterns lazily,
quoted parts of a pattern literal). Newlines are kept, so line numbers stay right.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import _AbortLine, _ExpansionError
from .options import shopt_on
from .patterns import glob_regex
from .quoting import single_quoted
from .state import MachineState

if TYPE_CHECKING:
    from .proc import _Ctx

#: the first condition of a rewritten ``case``: ``__AWCASE 'WORD' 'PAT'...``
CASE_HEAD = "__AWCASE"
#: a later clause's condition: ``__AWCASE_NEXT 'TERMINATOR-OF-THE-CLAUSE-BEFORE' 'PAT'...``
CASE_NEXT = "__AWCASE_NEXT"
#: the list of a clause that has none
CASE_EMPTY = "__AWCASE_EMPTY"

#: characters that end an unquoted word
_WORD_END = frozenset(" \t\n;&|<>()")
#: blanks, newlines and comments between the parts of a ``case``
_GAP = re.compile(r"(?:[ \t\n]|#[^\n]*)*")
_BLANKS = re.compile(r"[ \t]*")


def skip(regex: re.Pattern[str], text: str, i: int) -> int:
    """The index after what ``regex`` (one that matches the empty string too) matches at ``text[i]``."""
    found = regex.match(text, i)
    return found.end() if found else i


class CaseIncomplete(Exception):
    """The text ends inside a ``case``: bash reads on."""


def _closing(text: str, i: int, opening: str, closing: str) -> int:
    """Index after the ``closing`` that matches an ``opening`` just before ``text[i]``."""
    depth = 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"`":
            i = _quoted_end(text, i)
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise CaseIncomplete


def _quoted_end(text: str, i: int) -> int:
    """Index after the quoted part (``'...'``, ``"..."``, backticks) starting at ``text[i]``."""
    q = text[i]
    i += 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and q != "'":
            i += 2
            continue
        if c == q:
            return i + 1
        if q == '"' and text.startswith("$(", i):
            i = _closing(text, i + 2, "(", ")")
            continue
        i += 1
    raise CaseIncomplete


def scan_word(text: str, i: int) -> int:
    """Index after the shell word starting at ``text[i]`` (quotes, ``$(...)``, ``${...}``)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                raise CaseIncomplete
            i += 2
        elif c in "'\"`":
            i = _quoted_end(text, i)
        elif text.startswith("$(", i):
            i = _closing(text, i + 2, "(", ")")
        elif text.startswith("${", i):
            i = _closing(text, i + 2, "{", "}")
        elif c in _WORD_END:
            return i
        else:
            i += 1
    return i


def _keyword_at(text: str, i: int, word: str) -> bool:
    end = i + len(word)
    return text.startswith(word, i) and (end >= len(text) or text[end] in _WORD_END)


def clause_start(text: str, i: int) -> tuple[list[str] | None, int]:
    """From ``text[i]`` (after ``in`` or a clause's terminator): the next clause's raw patterns
    and the index after its ``)``, or None and the index after ``esac``. Raises
    :class:`CaseIncomplete` at the end of the text, ValueError on what it cannot read."""
    i = skip(_GAP, text, i)
    if i >= len(text):
        raise CaseIncomplete
    if _keyword_at(text, i, "esac"):
        return None, i + 4
    if text[i] == "(":
        i = skip(_BLANKS, text, i + 1)
    patterns: list[str] = []
    while True:
        end = scan_word(text, i)
        if end >= len(text):
            raise CaseIncomplete
        if end == i:
            raise ValueError(f"case pattern at {text[i : i + 10]!r}")
        patterns.append(text[i:end])
        i = skip(_BLANKS, text, end)
        if i >= len(text):
            raise CaseIncomplete
        if text[i] == ")":
            return patterns, i + 1
        if text[i] != "|":
            raise ValueError(f"case pattern at {text[i : i + 10]!r}")
        i = skip(_BLANKS, text, i + 1)


def case_head(text: str, i: int) -> tuple[str, list[str] | None, int]:
    """``case WORD in`` at ``text[i]`` and the first clause's start: the raw word, the patterns
    (None: ``esac`` straight away) and the index after them."""
    i = skip(_BLANKS, text, i + 4)
    end = scan_word(text, i)
    if end == i:
        raise CaseIncomplete if end >= len(text) else ValueError("case word")
    word = text[i:end]
    i = skip(_GAP, text, end)
    if i >= len(text):
        raise CaseIncomplete
    if not _keyword_at(text, i, "in"):
        raise ValueError("case without in")
    patterns, j = clause_start(text, i + 2)
    return word, patterns, j


def clause_header(marker: str, first: str, patterns: list[str], replaced: str) -> str:
    """The ``if``/``elif`` text of a clause, padded with the newlines of the text it replaces."""
    text = f"{marker} {single_quoted(first)} " + " ".join(single_quoted(p) for p in patterns) + "; then "
    return text + "\n" * max(0, replaced.count("\n") - text.count("\n"))


def marker_command(nodes: list[Any], marker: str) -> tuple[Any, list[Any]] | None:
    """The command node and its words when ``nodes`` (a condition, a list) is the one command
    ``marker ...`` the parser's pre-pass wrote; else None."""
    if len(nodes) != 1:
        return None
    node = nodes[0]
    if node.kind == "list":
        node = node.parts[0]
    if node.kind != "command":
        return None
    words = [p for p in node.parts if p.kind == "word"]
    return (node, words) if words and words[0].word == marker else None


def _marker_words(nodes: list[Any], marker: str) -> list[Any] | None:
    found = marker_command(nodes, marker)
    return found[1] if found else None


def case_head_words(groups: list[tuple[str, list[Any]]]) -> list[Any] | None:
    """The marker words of a rewritten ``case`` (an ``if`` chain), else None."""
    return _marker_words(groups[0][1], CASE_HEAD) if groups else None


class CaseCommandMixin(MachineState):
    """Running ``case``. One part of :class:`~.machine.VirtualMachine`."""

    def _exec_case(self, head: list[Any], groups: list[tuple[str, list[Any]]], ctx: _Ctx) -> int:
        """The first clause whose pattern matches runs; ``;&`` runs the next list untested,
        ``;;&`` goes on testing. The status is the last list's, 0 when none ran."""
        self._lineno = ctx.src.line_of(head[0].pos[0])
        raw = self._expand_word(head[1], ctx)[0]
        if self.xtrace:  # bash 5.2 traces the word as written: `+ case $x in`
            self._trace_line(f"case {raw} in", ctx)
        word = self._expanded(lambda: self.expand_text(raw, ctx), ctx)
        if word is None:
            return 1
        clauses: list[tuple[list[Any], list[Any]]] = []
        terms: list[str] = []
        for k in range(0, len(groups) - 1, 2):
            cond, body = groups[k][1], groups[k + 1][1]
            words = head[2:] if k == 0 else (_marker_words(cond, CASE_NEXT) or [])[1:]
            if k:
                terms.append(self._expand_word(words[0], ctx)[0])
                words = words[1:]
            clauses.append((words, body))
        terms.append(";;")
        status = 0
        fall = False
        for (patterns, body), term in zip(clauses, terms):
            if not fall and not any(self._case_match(word, p, ctx) for p in patterns):
                continue
            empty = _marker_words(body, CASE_EMPTY) is not None
            status = 0 if empty else self._run_nodes(body, ctx)
            if term == ";;":
                return status
            fall = term == ";&"
        return status

    def _case_match(self, word: str, pattern: Any, ctx: _Ctx) -> bool:
        raw = self._expand_word(pattern, ctx)[0]
        text = self._expanded(lambda: self._pattern_text(raw, ctx), ctx)
        return (
            text is not None
            and glob_regex(text, shopt_on(self, "nocasematch"), shopt_on(self, "extglob")).match(word)
            is not None
        )

    def _expanded(self, expand: Callable[[], str], ctx: _Ctx) -> str | None:
        """What ``expand`` returns; None after an error it reported (a fatal one, such as
        ``set -u``'s, abandons the line)."""
        try:
            return expand()
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal:
                raise _AbortLine(exc.status, exc.unbound) from None
            return None

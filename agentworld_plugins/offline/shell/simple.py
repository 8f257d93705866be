"""A fast path past bashlex for plain lines: simple commands, pipes, lists, redirections and
one-line ``if``/``for``/``while``/``until``.

bashlex takes 100 us to parse even ``echo $i`` and about 1 ms for an ``if`` line; a script of
100,000 such lines spent its step budget parsing. A line made of simple commands joined by ``|``,
``&&``, ``||`` and ``;``, whose words are plain characters, ``$NAME``/``${NAME}``, ``$((...))`` and
quotes without escapes or substitutions, with redirections to such words (``>``, ``>>``, ``<``,
``2>``, ``&>``, ``2>&1``, ``>&2``), and one-line compounds of such lists (``if a; then b; fi``,
``for i in a b; do c; done``, ``while a; do b; done``), is split here into the nodes bashlex
builds for it, with the same positions into the text. Anything else (``$(...)``, backticks,
backslashes, ``#``, ``{``, ``!``, ``[[``, ``case``, here-documents, ``&``, a compound over several
lines) is left to bashlex. The tests compare the two on fixed and random lines.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import bashlex.ast

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_PARAM = rf"\$(?:{_NAME}|[0-9?#$@*-]|\{{{_NAME}\}})"
_ARITH = rf"\$\(\((?:[^()'\"`\\\n$]|\${_NAME})*\)\)"
_PLAIN = r"[A-Za-z0-9_./:,+%@=~*?-]"
_DQUOTED = rf'"(?:[^"\\$`!\n]|{_PARAM}|{_ARITH})*"'
_SQUOTED = r"'[^'\n]*'"
_WORD = re.compile(rf"(?:{_PLAIN}|{_PARAM}|{_ARITH}|{_SQUOTED}|{_DQUOTED})+|\[|\]")
_BLANKS = re.compile(r"[ \t]*")
_OPERATOR = re.compile(r"&&|\|\||;(?!;)|\|(?![|&])")
# `2>&1`, `>&2`: a descriptor to copy; `>>`, `2> f`, `&> f`: a file (bashlex's types)
_REDIRECT = re.compile(r"(\d*)(>>|>&|>|<(?![<>&]))|(&>)(?!>)")
_DIGITS = re.compile(r"\d+(?=[ \t;|&\n]|\Z)")
_ASSIGNMENT = re.compile(rf"{_NAME}\+?=")
_ARITH_RX = re.compile(r"\$\(\((.*?)\)\)")
_WORD_END = frozenset(" \t\n;|&<>")

#: words that are syntax where a command starts (bash's reserved words)
# fmt: off
RESERVED = frozenset([
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "function", "in", "time", "coproc",
])
# fmt: on


def simple_command(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    """The nodes of ``text`` when it is a plain line, with the text they point into
    (``$((...))`` rewritten as the parser's pre-pass does) and the arithmetic it took out; else
    None (the caller parses it with bashlex). Lines that repeat (a script's ``x=$((x+1))``) are
    split once: the nodes are only read, never changed."""
    return _cached(text) if len(text) <= 512 else _split(text)


@lru_cache(maxsize=4096)
def _cached(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    return _split(text)


def _split(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    if "\n" in text.rstrip("\n") or not text.strip():
        return None
    arith: dict[str, str] = {}
    if "$((" in text:
        if "'" in text:  # `'$((x))'` is literal: leave quoting rules to the full parser
            return None

        def name(m: re.Match[str]) -> str:
            key = f"__AWARITH{len(arith)}"
            arith[key] = m.group(1)
            return "${" + key + "}"

        text = _ARITH_RX.sub(name, text)  # as parser._prepare rewrites it
    try:
        node = _Line(text).parse()
    except _NotPlain:
        return None
    return [node], text, arith


class _NotPlain(Exception):
    """The line holds something the fast path leaves to bashlex."""


class _Line:
    """A recursive-descent reading of one plain line: list > pipeline > command, and the one-line
    compounds ``if ...; then ...; [elif ...; then ...;] [else ...;] fi``, ``for NAME in WORDS;
    do ...; done``, ``while/until ...; do ...; done`` (lists inside end in ``;``)."""

    def __init__(self, text: str) -> None:
        self.text = text.rstrip("\n")
        self.i = 0

    def parse(self) -> Any:
        parts = self._list(frozenset())
        if self._skip() < len(self.text):
            raise _NotPlain
        return parts[0] if len(parts) == 1 else _span("list", parts)

    def _skip(self) -> int:
        self.i = _BLANKS.match(self.text, self.i).end()  # type: ignore[union-attr]
        return self.i

    def _word_at(self) -> re.Match[str] | None:
        """The word that starts here, if it ends where a word may end."""
        m = _WORD.match(self.text, self._skip())
        if m is None or (m.end() < len(self.text) and self.text[m.end()] not in _WORD_END):
            return None
        return m

    def _next_keyword(self) -> str | None:
        m = self._word_at()
        return m.group(0) if m is not None and m.group(0) in RESERVED else None

    def _list(self, stop: frozenset[str]) -> list[Any]:
        """Pipelines joined by operators: to the end of the line or, inside a compound (``stop``:
        the keywords that may end it), to a ``;`` before one of those keywords."""
        parts = [self._pipeline()]
        while self._skip() < len(self.text):
            m = _OPERATOR.match(self.text, self.i)
            if m is None or m.group(0) == "|":
                break
            self.i = m.end()
            parts.append(_node("operator", m.span(), op=m.group(0)))
            if self._skip() >= len(self.text) or (stop and self._next_keyword() in stop):
                if m.group(0) != ";":  # `a &&` goes on in the next line
                    raise _NotPlain
                break
            parts.append(self._pipeline())
        if stop and (parts[-1].kind != "operator" or self._next_keyword() not in stop):
            raise _NotPlain
        return parts

    def _pipeline(self) -> Any:
        parts = [self._command()]
        while self._skip() < len(self.text) and self.text.startswith("|", self.i):
            m = _OPERATOR.match(self.text, self.i)
            if m is None or m.group(0) != "|":
                break
            self.i = m.end()
            parts.append(_node("pipe", m.span(), pipe="|"))
            parts.append(self._command())
        return parts[0] if len(parts) == 1 else _span("pipeline", parts)

    def _command(self) -> Any:
        keyword = self._next_keyword()
        if keyword in ("if", "for", "while", "until"):
            return self._compound(keyword)
        parts: list[Any] = []
        named = False  # the command's name has been read (no more assignments)
        while self._skip() < len(self.text):
            redirect = _REDIRECT.match(self.text, self.i)
            if redirect is not None:
                parts.append(self._redirect(redirect))
                continue
            m = self._word_at()
            if m is None:
                if self.text[self.i] in ";|&":
                    break
                raise _NotPlain
            word = m.group(0)
            if not named and word in RESERVED:  # after the name, one is an argument (`echo done`)
                raise _NotPlain
            self.i = m.end()
            if not named and _ASSIGNMENT.match(word):
                if parts and parts[-1].kind == "redirect":
                    raise _NotPlain  # `>f x=1 cmd`: bashlex's call
                parts.append(_node("assignment", m.span(), word=word, parts=[]))
                continue
            named = True
            parts.append(_node("word", m.span(), word=word, parts=[]))
        if not parts:
            raise _NotPlain
        return _span("command", parts)

    def _keyword(self, word: str) -> Any:
        m = self._word_at()
        if m is None or m.group(0) != word:
            raise _NotPlain
        self.i = m.end()
        return _node("reservedword", m.span(), word=word)

    def _compound(self, keyword: str) -> Any:
        start = self.i
        parts = [self._keyword(keyword)]
        if keyword == "if":
            branch = "if"
            while branch in ("if", "elif"):
                parts.append(_span("list", self._list(frozenset({"then"}))))
                parts.append(self._keyword("then"))
                parts.append(_span("list", self._list(frozenset({"elif", "else", "fi"}))))
                branch = self._next_keyword() or ""
                parts.append(self._keyword(branch if branch in ("elif", "else") else "fi"))
            if branch == "else":
                parts.append(_span("list", self._list(frozenset({"fi"}))))
                parts.append(self._keyword("fi"))
        else:
            if keyword == "for":
                name = self._word_at()
                if name is None or not re.fullmatch(_NAME, name.group(0)):
                    raise _NotPlain
                self.i = name.end()
                parts.append(_node("word", name.span(), word=name.group(0)))
                parts.append(self._keyword("in"))
                while (m := self._word_at()) is not None:
                    self.i = m.end()
                    parts.append(_node("word", m.span(), word=m.group(0), parts=[]))
                if not self.text.startswith(";", self._skip()) or self.text.startswith(";;", self.i):
                    raise _NotPlain
                parts.append(_node("reservedword", (self.i, self.i + 1), word=";"))
                self.i += 1
            else:
                parts.append(_span("list", self._list(frozenset({"do"}))))
            parts.append(self._keyword("do"))
            parts.append(_span("list", self._list(frozenset({"done"}))))
            parts.append(self._keyword("done"))
        flow = _node(keyword, (start, parts[-1].pos[1]), parts=parts)
        redirects = []
        while self._skip() < len(self.text) and (m := _REDIRECT.match(self.text, self.i)) is not None:
            redirects.append(self._redirect(m))
        end = redirects[-1].pos[1] if redirects else flow.pos[1]
        return _node("compound", (start, end), list=[flow], redirects=redirects)

    def _redirect(self, m: re.Match[str]) -> Any:
        fd, op = (m.group(1), m.group(2)) if m.group(2) else ("", m.group(3))
        start = m.start()
        self.i = m.end()
        self._skip()
        if op == ">&":
            dup = _DIGITS.match(self.text, self.i)
            if dup is None:
                raise _NotPlain  # `>&file` and `>&-`: bashlex's own forms
            self.i = dup.end()
            return _node(
                "redirect",
                (start, dup.end()),
                type=op,
                input=int(fd) if fd else None,
                output=int(dup.group(0)),
            )
        target = _WORD.match(self.text, self.i)
        if target is None or (target.end() < len(self.text) and self.text[target.end()] not in _WORD_END):
            raise _NotPlain
        self.i = target.end()
        word = _node("word", target.span(), word=target.group(0), parts=[])
        return _node("redirect", (start, target.end()), type=op, input=int(fd) if fd else None, output=word)


def _node(kind: str, pos: tuple[int, int], **fields: Any) -> Any:
    return bashlex.ast.node(kind=kind, pos=pos, **fields)


def _span(kind: str, parts: list[Any]) -> Any:
    """A node over ``parts``, from the first one's start to the last one's end."""
    return _node(kind, (parts[0].pos[0], parts[-1].pos[1]), parts=parts)

"""expr and yes."""

from __future__ import annotations

import operator
import re
from collections.abc import Generator
from typing import TYPE_CHECKING

from ..arith import _c_div
from ..errors import _HelpRequested, _UsageError
from ..patterns import _regex_error, posix_regex
from ..pipes import streaming
from ..proc import CHUNK
from ..quoting import locale_quote
from ..regex import compile_regex
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


_COMPARISONS = {"<": operator.lt, "<=": operator.le, "=": operator.eq, "==": operator.eq, "!=": operator.ne,
                ">=": operator.ge, ">": operator.gt}  # fmt: skip
_INTEGER = re.compile(r"-?[0-9]+")


class _ExprError(Exception):
    """A message and expr's status: 2 for a bad expression, 3 for other errors."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _null(value: int | str) -> bool:
    """GNU's null: 0, "", or a string of zeros (with a leading ``-``)."""
    if isinstance(value, int):
        return value == 0
    return value == "" or bool(re.fullmatch(r"-?0+", value))


def _integer(value: int | str) -> int:
    if isinstance(value, int):
        return value
    if _INTEGER.fullmatch(value):
        return int(value)
    raise _ExprError("non-integer argument")


class _Expr:
    """GNU expr's grammar, lowest precedence first: ``|``, ``&``, comparisons, ``+ -``,
    ``* / %``, ``:``, then ``match``, ``substr``, ``index``, ``length``, ``+ TOKEN``, ``( )``."""

    def __init__(self, args: list[str]) -> None:
        self.args, self.pos = args, 0

    def peek(self) -> str | None:
        return self.args[self.pos] if self.pos < len(self.args) else None

    def take(self) -> str:
        if self.pos >= len(self.args):
            raise _ExprError(f"syntax error: missing argument after {locale_quote(self.args[self.pos - 1])}")
        self.pos += 1
        return self.args[self.pos - 1]

    def parse(self) -> int | str:
        value = self.or_()
        if self.pos < len(self.args):
            token = self.args[self.pos]
            raise _ExprError(f"syntax error: unexpected argument {locale_quote(token)}")
        return value

    def or_(self) -> int | str:
        left = self.and_()
        while self.peek() == "|":
            self.pos += 1
            right = self.and_()
            if _null(left):
                left = 0 if _null(right) else right
        return left

    def and_(self) -> int | str:
        left = self.compare()
        while self.peek() == "&":
            self.pos += 1
            right = self.compare()
            if _null(left) or _null(right):
                left = 0
        return left

    def compare(self) -> int | str:
        left = self.additive()
        while self.peek() in _COMPARISONS:
            op = _COMPARISONS[self.take()]
            right = self.additive()
            a, b = left, right
            if isinstance(a, str) and _INTEGER.fullmatch(a):
                a = int(a)
            if isinstance(b, str) and _INTEGER.fullmatch(b):
                b = int(b)
            if isinstance(a, int) and isinstance(b, int):
                left = int(op(a, b))
            else:
                left = int(op(str(left), str(right)))
        return left

    def additive(self) -> int | str:
        left = self.multiplicative()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.multiplicative()
            x, y = _integer(left), _integer(right)
            left = x + y if op == "+" else x - y
        return left

    def multiplicative(self) -> int | str:
        left = self.match()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            right = self.match()
            x, y = _integer(left), _integer(right)
            if op != "*" and y == 0:
                raise _ExprError("division by zero")
            left = x * y if op == "*" else _c_div(x, y) if op == "/" else x - _c_div(x, y) * y
        return left

    def match(self) -> int | str:
        left = self.primary()
        while self.peek() == ":":
            self.pos += 1
            left = _regex_match(str(left), str(self.primary()))
        return left

    def primary(self) -> int | str:
        token = self.take()
        if token == "(":
            value = self.or_()
            if self.peek() != ")":
                raise _ExprError(f"syntax error: expecting ')' after {locale_quote(self.args[self.pos - 1])}"
                                 if self.pos < len(self.args) or self.args else "syntax error")  # fmt: skip
            self.pos += 1
            return value
        if token == ")":
            raise _ExprError("syntax error: unexpected ')'")
        if token == "+":
            return self.take()
        if token == "length":
            return len(str(self.primary()))
        if token == "match":
            text = str(self.primary())
            return _regex_match(text, str(self.primary()))
        if token == "index":
            text, chars = str(self.primary()), str(self.primary())
            return next((k + 1 for k, c in enumerate(text) if c in chars), 0)
        if token == "substr":
            text, start, length = str(self.primary()), self.primary(), self.primary()
            try:
                pos, size = _integer(start), _integer(length)
            except _ExprError:
                return ""
            if pos < 1 or size < 1 or pos > len(text):
                return ""
            return text[pos - 1 : pos - 1 + size]
        return token


def _regex_match(text: str, pattern: str) -> int | str:
    """``STRING : REGEX``: anchored at the start; the first group's text when there is one, else
    how many characters matched."""
    if re.search(r"\\\{(?![0-9]*(?:,[0-9]*)?\\\})", pattern):
        raise _ExprError("Unmatched \\{")
    try:
        translated = posix_regex(pattern, False)
        groups = re.compile(translated).groups
        rx = compile_regex(translated)
    except re.error as exc:
        raise _ExprError(_regex_error(exc)) from None
    m = rx.match(text)
    if groups:
        return (m.group(1) or "") if m else ""
    return m.end() if m else 0


@applet("expr")
def _u_expr(p: _Proc) -> int:
    args = list(p.args)
    if args[:1] == ["--"]:
        args.pop(0)
    if not args:
        raise _UsageError("missing operand", 2)
    try:
        value = _Expr(args).parse()
    except _ExprError as exc:
        p.err(exc.message)
        return exc.status
    p.out(f"{value}\n")
    return 1 if _null(value) else 0


@applet("yes")
@streaming()
def _u_yes(p: _Proc) -> Generator[str, None, int]:
    """Its line, forever: a pipe's reader that stops ends it (``yes | head -n 2``); otherwise
    the step's budget does, as a real ``yes`` runs until something kills it."""
    args = list(p.args)
    if args[:1] == ["--help"] or args[:1] == ["--version"]:
        raise _HelpRequested(version=args[0] == "--version")
    if args[:1] == ["--"]:
        args.pop(0)
    else:
        bad = next((a for a in args if a.startswith("-") and a != "-"), None)
        if bad is not None:
            raise _UsageError(
                f"unrecognized option '{bad}'" if bad.startswith("--") else f"invalid option -- '{bad[1]}'"
            )
    line = (" ".join(args) or "y") + "\n"
    chunk = line * max(1, CHUNK // len(line))
    while True:
        yield chunk

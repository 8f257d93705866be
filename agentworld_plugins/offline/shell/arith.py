"""Shell arithmetic (``$((...))``, ``((...))``, ``let``, subscripts) as bash 5.2 evaluates it.

A precedence-climbing reader over bash's tokens, with bash's rules: C's 64-bit integers (they
wrap), its precedence (unary minus before ``**``, which groups to the right), ``&&``, ``||`` and
``?:`` that skip the side effects of the branch not taken, assignments (``= *= /= %= += -= <<=
>>= &= ^= |=``) only to a variable or an array element, ``++``/``--`` before and after one, ``,``
lists, and numbers in base 8 (``017``), 16 (``0x1f``) or any base 2 to 64 (``2#101``, ``64#_@``).
A variable's value is itself evaluated as an expression. Errors are bash's own words, naming the
expression and the token bash stopped at: ``1 @ 2: syntax error: invalid arithmetic operator
(error token is "@ 2")``.

Every expression is bounded by its text: nesting (parentheses, chains of unary operators,
``**`` and assignments, variables whose values are expressions) beyond :data:`MAX_DEPTH` is bash's
``expression recursion level exceeded``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from .errors import _ExpansionError

#: the nesting an expression may reach (bash allows 1024 levels of variables in C; each of ours
#: takes a dozen Python frames, which the shell's own nesting shares)
MAX_DEPTH = 48

_WHITE = " \t\n\r"
#: binary operators by precedence, lowest first (``&&``/``||`` are handled with their skipping)
_BINARY = {
    "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
    "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}  # fmt: skip
_ASSIGN_OPS = ("<<=", ">>=", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=")
#: the operators of more than one character (``++``/``--`` aside: their reading depends on what
#: comes before), longest first
_OPERATORS = (*_ASSIGN_OPS, "**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||")
_SINGLE = set("+-*/%<>=!~&^|?:(),")
#: the operators that start with each character, longest first
_STARTING = {c: tuple(op for op in _OPERATORS if op[0] == c) for c in _SINGLE}
_APPLY: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt,
    "<=": operator.le, ">=": operator.ge,
}  # fmt: skip

Lookup = Callable[[str], str]
Assign = Callable[[str, int], None]


def _wrap(value: int) -> int:
    """``value`` as bash's 64-bit signed integer (it wraps around, as C's intmax_t does)."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _digit(ch: str, base: int) -> int:
    if ch.isdigit():
        return ord(ch) - 48
    if "a" <= ch <= "z":
        return ord(ch) - 87
    if "A" <= ch <= "Z":
        return ord(ch) - 29 if base > 36 else ord(ch) - 55
    return {"@": 62, "_": 63}.get(ch, 99)


class _Reader:
    """One expression's tokens and its evaluation (bash's expr.c: ``curtok``, ``lasttp``)."""

    def __init__(self, text: str, lookup: Lookup, assign: Assign | None, depth: int) -> None:
        self.text, self.lookup, self.assign, self.depth = text, lookup, assign, depth  # depth: nesting
        self.pos = 0  # where the next token starts
        self.last_at = 0  # where the last token read began (bash's lasttp; not moved by the end)
        self.kind = ""  # the current token: "num", "name", an operator, or "" at the end
        self.prev = ""  # the token before it (bash's lasttok)
        self.value = 0  # a number's value
        self.name = ""  # a name's text (with its subscript)
        self.skip = 0  # > 0: in a branch whose side effects are skipped (bash's noeval)

    # -- errors ----------------------------------------------------------------------------------

    def fail(self, message: str, at: int | None = None) -> _ExpansionError:
        shown = self.text.lstrip(_WHITE)
        token = self.text[self.last_at if at is None else at :]
        return _ExpansionError(f'{shown}: {message} (error token is "{token}")', fatal=True)

    # -- tokens ----------------------------------------------------------------------------------

    def advance(self) -> None:
        text, i = self.text, self.pos
        while i < len(text) and text[i] in _WHITE:
            i += 1
        if i >= len(text):
            self.prev, self.kind, self.pos = self.kind, "", i
            return
        self.last_at = i
        c = text[i]
        if c.isalpha() or c == "_":
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            if j < len(text) and text[j] == "[":
                j = self._subscript_end(j)
            kind, self.name, self.pos = "name", text[i:j], j
        elif c.isdigit():
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] in "#@_"):
                j += 1
            kind, self.value, self.pos = "num", self._number(text[i:j]), j
        else:
            self.pos = i + 1
            kind = self._operator(c, i)  # reads the token before (kind) and the one before that (prev)
        self.prev, self.kind = self.kind, kind

    def _subscript_end(self, at: int) -> int:
        depth = 0
        for j in range(at, len(self.text)):
            if self.text[j] == "[":
                depth += 1
            elif self.text[j] == "]":
                depth -= 1
                if depth == 0:
                    return j + 1
        raise self.fail("bad array subscript")

    def _operator(self, c: str, i: int) -> str:
        text = self.text
        for op in _STARTING.get(c, ()):
            if text.startswith(op, i):
                self.pos = i + len(op)
                return op
        if c in "+-" and text.startswith(c * 2, i):
            if self.kind == "name":
                self.pos = i + 2
                return "post" + c * 2
            if self.kind == "num" and self.prev in ("pre++", "pre--"):
                raise self.fail(f"{c * 2}: assignment requires lvalue")
            j = i + 2
            while j < len(text) and text[j] in _WHITE:
                j += 1
            if j < len(text) and (text[j].isalpha() or text[j] == "_"):
                self.pos = i + 2
                return "pre" + c * 2
            return c  # `--5`: two minus signs
        if c not in _SINGLE:
            if not self.kind or self.kind not in ("num", "name", ")"):
                raise self.fail("syntax error: operand expected")
            raise self.fail("syntax error: invalid arithmetic operator")
        return c

    def _number(self, word: str) -> int:
        base, digits = 10, word
        if "#" in word:
            head, _, digits = word.partition("#")
            base = int(head) if head.isdigit() else 0
            if not 2 <= base <= 64:
                raise self.fail("invalid arithmetic base")
            if not digits:
                raise self.fail("invalid integer constant")
        elif word[:2] in ("0x", "0X"):
            base, digits = 16, word[2:]
        elif word.startswith("0"):
            base = 8
        value = 0
        for ch in digits:
            d = _digit(ch, base)
            if d >= base:
                raise self.fail("value too great for base")
            value = value * base + d
        return _wrap(value)

    # -- values of names -------------------------------------------------------------------------

    def fetch(self, name: str) -> int:
        if self.skip:  # a branch not taken reads no variable (nor trips `set -u`)
            return 0
        raw = self.lookup(name).strip(_WHITE)
        if not raw:
            return 0
        if raw.isdigit() or (raw[0] == "-" and raw[1:].isdigit()):
            return _wrap(int(raw))
        return evaluate(raw, self.lookup, self.assign, self.depth + 1)

    def store(self, name: str, value: int) -> None:
        if not self.skip and self.assign is not None:
            self.assign(name, value)

    # -- the grammar -----------------------------------------------------------------------------

    def comma(self) -> int:
        value = self.assignment()
        while self.kind == ",":
            self.advance()
            value = self.assignment()
        return value

    def assignment(self) -> int:
        value = self.conditional()
        op = self.kind
        if op == "=" or op in _ASSIGN_OPS:
            if self.prev != "name":
                raise self.fail("attempted assignment to non-variable")
            target, old = self.name, value
            self.advance()
            value = self.assignment()
            if op != "=":
                value = self.binary_op(op[:-1], old, value, self.last_at)
            self.store(target, value)
        return value

    def conditional(self) -> int:
        cond = self.logical("||")
        if self.kind != "?":
            return cond
        self.advance()
        if self.kind in ("", ":"):
            raise self.fail("expression expected")
        self.skip += not cond
        then = self.comma()
        self.skip -= not cond
        if self.kind != ":":
            raise self.fail("`:' expected for conditional expression")
        self.advance()
        if not self.kind:
            raise self.fail("expression expected")
        self.skip += bool(cond)
        other = self.conditional()
        self.skip -= bool(cond)
        self.prev = "cond"
        return then if cond else other

    def logical(self, op: str) -> int:
        value = self.logical("&&") if op == "||" else self.binary(3)
        while self.kind == op:
            self.advance()
            skipping = bool(value) if op == "||" else not value
            self.skip += skipping
            right = self.logical("&&") if op == "||" else self.binary(3)
            self.skip -= skipping
            value = int(bool(value or right)) if op == "||" else int(bool(value and right))
            self.prev = "num"
        return value

    def binary(self, lowest: int) -> int:
        value = self.power()
        while self.kind in _BINARY and _BINARY[self.kind] >= lowest:
            op = self.kind
            after = self.pos  # bash names a division by 0 from just after its operator
            self.advance()
            right = self.binary(_BINARY[op] + 1)
            value = self.binary_op(op, value, right, after)
            self.prev = "num"
        return value

    def binary_op(self, op: str, a: int, b: int, after: int) -> int:
        if op in ("/", "%"):
            if b == 0:
                if self.skip:
                    return 0
                while after < len(self.text) and self.text[after] in _WHITE:
                    after += 1
                raise self.fail("division by 0", after)
            if a == -(1 << 63) and b == -1:
                return a if op == "/" else 0
            q = _c_div(a, b)
            return q if op == "/" else a - q * b
        if op in ("<<", ">>"):
            return _wrap(a << (b & 63)) if op == "<<" else a >> (b & 63)
        return _wrap(_APPLY[op](a, b))

    def power(self) -> int:
        value = self.unary()
        if self.kind == "**":
            self.advance()
            self.enter()
            exponent = self.power()  # right to left
            self.depth -= 1
            self.prev = "num"
            if exponent < 0:
                raise self.fail("exponent less than 0")
            return _wrap(pow(value, exponent, 1 << 64))  # modular: no huge intermediate number
        return value

    def enter(self) -> None:
        if self.depth >= MAX_DEPTH:
            raise self.fail("expression recursion level exceeded")
        self.depth += 1

    def unary(self) -> int:
        self.enter()  # parentheses, `!!!x` and `a=b=c` nest through here, `2**2**2` in power()
        op = self.kind
        if op in ("!", "~", "-", "+"):
            self.advance()
            value = self.unary()
            self.prev = "num"
            value = {"!": int(not value), "~": ~value, "-": _wrap(-value), "+": value}[op]
        else:
            value = self.primary()
        self.depth -= 1
        return value

    def primary(self) -> int:
        op = self.kind
        if op in ("pre++", "pre--"):
            self.advance()
            if self.kind != "name":
                raise self.fail("identifier expected after pre-increment or pre-decrement")
            value = _wrap(self.fetch(self.name) + (1 if op == "pre++" else -1))
            self.store(self.name, value)
            self.kind = "num"  # `++x=7` is an error
            self.advance()
            return value
        if op == "(":
            self.advance()
            value = self.comma()
            if self.kind != ")":
                raise self.fail("missing `)'")
            self.advance()
            return value
        if op == "num":
            value = self.value
            self.advance()
            return value
        if op == "name":
            name = self.name
            self.advance()
            if self.kind in ("post++", "post--"):
                value = self.fetch(name)
                self.store(name, _wrap(value + (1 if self.kind == "post++" else -1)))
                self.kind = "num"  # `x++=7` is an error
                self.advance()
                return value
            value = 0 if self.kind == "=" else self.fetch(name)  # `x=...` does not read x
            self.name = name  # the assignment's target
            return value
        raise self.fail("syntax error: operand expected")


def evaluate(text: str, lookup: Lookup, assign: Assign | None = None, depth: int = 0) -> int:
    """The value of bash arithmetic ``text`` (its ``$``-expansions done): ``lookup(name)`` reads
    a variable or ``name[sub]`` element ("" when unset), ``assign(name, value)`` sets one (None:
    assignments are evaluated, not kept). Raises :class:`_ExpansionError` with bash's message."""
    reader = _Reader(text, lookup, assign, depth)
    if depth >= MAX_DEPTH:  # a variable whose value names itself, `x='x+1'`
        raise reader.fail("expression recursion level exceeded")
    reader.advance()
    if not reader.kind:
        return 0
    value = reader.comma()
    if reader.kind:
        raise reader.fail("syntax error in expression")
    return value


#: the name the shell's modules import
_arith_eval = evaluate

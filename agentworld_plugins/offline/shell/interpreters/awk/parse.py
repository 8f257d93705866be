"""The awk language read into a tree (from :mod:`.lexer`'s tokens): a recursive-descent parser
following the POSIX grammar's precedence, with mawk's compile-time
checks and messages (``line N: syntax error at or near X``, ``missing ) near end of line``,
``improper use of next``, ``function f never defined``, ...).

Nodes are tuples whose first item names them (``("bin", "+", a, b)``, ``("print", args,
redirect)``); :mod:`.interp` evaluates them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .lexer import ARITY, SCALAR_VARS, AwkSyntaxError, Tok, tokenize
from .regexes import MawkRegexError, mawk_regex

Node = tuple[Any, ...]


@dataclass
class Program:
    begin: list[Node] = field(default_factory=list)
    end: list[Node] = field(default_factory=list)
    #: (pattern or None, second pattern of a range or None, action or None)
    main: list[tuple[Node | None, Node | None, Node | None]] = field(default_factory=list)
    #: name -> (parameters, body, the parameters used as arrays)
    functions: dict[str, tuple[list[str], Node, set[str]]] = field(default_factory=dict)


_LVALUES = ("var", "index", "field")
_CONCAT_START = {
    "NUMBER",
    "STRING",
    "ERE",
    "NAME",
    "FUNC_NAME",
    "BUILTIN",
    "$",
    "!",
    "(",
    "++",
    "--",
    "-",
    "+",
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "^="}
_SIMPLE_END = {";", "NEWLINE", "}", "EOF"}


class Parser:
    def __init__(self, src: str) -> None:
        self.notes: list[tuple[int, str]] = []
        self.toks = tokenize(src, self.notes)
        self.pos = 0
        self.no_gt = False  # in print's list: `>` redirects (unless inside parentheses)
        self.no_in = False  # in a for's first clause
        # what mawk checks as it compiles
        self.errors: list[str] = []
        self.where = "main"  # or BEGIN, END, function
        self.loops = 0
        self.types: dict[str, str | None] = {name: "var" for name in SCALAR_VARS}
        self.types.update(ENVIRON="array", ARGV="array")
        self.locals: dict[str, str | None] | None = None  # a function's parameters, by use
        self.calls: list[tuple[str, int, int]] = []  # (function, arguments, line)

    # -- token helpers ---------------------------------------------------------------------------

    @property
    def tok(self) -> Tok:
        return self.toks[self.pos]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def take(self, kind: str | None = None) -> Tok:
        t = self.tok
        if kind is not None and t.kind != kind:
            self.fail(t)
        self.pos += 1
        return t

    def fail(self, t: Tok | None = None) -> Any:
        """A syntax error at ``t``, said as mawk says it: a missing ``)`` or ``}`` where one is open
        at the end of a line, statement or program."""
        t = t or self.tok
        shown = {"NEWLINE": "end of line", "EOF": "end of file", "ERE": f"/{t.value}/"}.get(
            t.kind, t.text or str(t.value)
        )
        if t.parens > 0 and t.kind in ("EOF", "NEWLINE", ";", "}"):
            messages = [f"line {t.line}: missing ) near {shown}"]
        elif t.braces > 0 and t.kind in ("EOF", "BEGIN", "END"):
            messages = [f"line {t.line}: missing }} near {shown}"]
        else:
            messages = [f"line {t.line}: syntax error at or near {shown}"]
            end = self.toks[-1]
            if end.braces > 0 and t is not end:  # mawk reads on, to the end that lacks a brace
                messages.append(f"line {end.line}: missing }} near end of file")
        at = next(i for i, tok in enumerate(self.toks) if tok is t)  # tokens compare equal by value
        raise AwkSyntaxError(self.complaints(at) + messages)

    def complaints(self, upto: int) -> list[str]:
        return [text for at, text in self.notes if at <= upto] + self.errors

    def error(self, message: str, line: int | None = None) -> None:
        """A compile error mawk reports and reads on after."""
        self.errors.append(f"line {self.tok.line if line is None else line}: {message}")

    def check_regex(self, source: str, line: int) -> None:
        try:
            mawk_regex(source)
        except MawkRegexError as exc:
            self.error(f"regular expression compile failed ({exc.reason})\n{source}", line)

    def claim(self, name: str, kind: str) -> None:
        """``name`` used as an array or a variable: mawk refuses a name used as both."""
        scope = self.locals if self.locals is not None and name in self.locals else self.types
        have = scope.get(name)
        if have is None:
            scope[name] = kind
        elif have != kind:
            self.error(f"illegal reference to {'array' if have == 'array' else 'variable'} {name}")

    def newlines(self) -> None:
        while self.tok.kind == "NEWLINE":
            self.pos += 1

    def terminators(self) -> None:
        while self.tok.kind in ("NEWLINE", ";"):
            self.pos += 1

    # -- program ---------------------------------------------------------------------------------

    def program(self) -> Program:
        prog = Program()
        self.terminators()
        while self.tok.kind != "EOF":
            kind = self.tok.kind
            if kind == "BEGIN":
                self.take()
                self.where = "BEGIN"
                prog.begin.append(self.block())
                self.where = "main"
                self.terminators()
                continue
            elif kind == "END":
                self.take()
                self.where = "END"
                prog.end.append(self.block())
                self.where = "main"
                self.terminators()
                continue
            elif kind == "function":
                self.function(prog)
                self.terminators()
                continue
            else:
                pattern = pattern2 = None
                if kind != "{":
                    pattern = self.expr()
                    if self.tok.kind == ",":
                        self.take()
                        self.newlines()
                        pattern2 = self.expr()
                action = self.block() if self.tok.kind == "{" else None
                prog.main.append((pattern, pattern2, action))
                if action is not None:  # `{...} pattern {...}`: a new item may follow a block at once
                    self.terminators()
                    continue
            if self.tok.kind not in ("NEWLINE", ";", "EOF", "{", "BEGIN", "END", "function"):
                self.fail()
            self.terminators()
        for params, body, arrays in prog.functions.values():
            arrays.update(_array_params(body, set(params)))
        for name, count, line in self.calls:
            found = prog.functions.get(name)
            if found is None:
                if not self.errors:
                    self.error(f"function {name} never defined", self.toks[-1].line)
            elif count > len(found[0]):
                self.error(f"too many arguments in call to {name}", line)
        if self.errors or self.notes:
            raise AwkSyntaxError(self.complaints(len(self.toks)))
        return prog

    def function(self, prog: Program) -> None:
        self.take()
        t = self.take()
        if t.kind not in ("NAME", "FUNC_NAME"):
            self.fail(t)
        name = t.value
        self.take("(")
        params: list[str] = []
        while self.tok.kind != ")":
            param = self.tok
            if param.kind in ("NAME", "FUNC_NAME") and param.value == name:
                self.error("function parameter cannot be the function")
                self.fail()
            params.append(self.take("NAME").value)
            if params.count(param.value) > 1:
                self.error(f"{param.value} is duplicated in argument list")
            if self.tok.kind == ",":
                self.take()
                self.newlines()
            elif self.tok.kind != ")":
                self.fail()
        self.take(")")
        self.newlines()
        if name in prog.functions:
            self.error(f"redefinition of {name}")
        self.where, self.locals = "function", dict.fromkeys(params)
        prog.functions[name] = (params, self.block(), set())
        self.where, self.locals = "main", None

    def block(self) -> Node:
        self.take("{")
        body: list[Node] = []
        self.terminators()
        while self.tok.kind != "}":
            if self.tok.kind == "EOF":
                self.fail()
            body.append(self.statement())
            self.terminators()
        self.take("}")
        return ("block", body)

    # -- statements ------------------------------------------------------------------------------

    def simple_end(self) -> None:
        if self.tok.kind in (";", "NEWLINE"):
            self.take()
        elif self.tok.kind not in ("}", "EOF"):
            self.fail()

    def body(self) -> Node:
        self.newlines()
        if self.tok.kind == ";":
            self.take()
            return ("block", [])
        return self.statement()

    def statement(self) -> Node:
        kind = self.tok.kind
        if kind == "{":
            return self.block()
        if kind == "if":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            then = self.body()
            save = self.pos
            self.terminators()
            if self.tok.kind == "else":
                self.take()
                return ("if", cond, then, self.body())
            self.pos = save
            return ("if", cond, then, None)
        if kind == "while":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            if self.tok.kind == ";":
                self.take()
                return ("while", cond, ("block", []))
            return ("while", cond, self.loop_body())
        if kind == "do":
            self.take()
            loop_body = self.loop_body()
            self.terminators()
            self.take("while")
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.simple_end()
            return ("do", loop_body, cond)
        if kind == "for":
            return self.for_statement()
        if kind == ";":
            self.take()
            return ("block", [])
        node = self.simple_statement()
        self.simple_end()
        return node

    def loop_body(self) -> Node:
        self.loops += 1
        try:
            return self.body()
        finally:
            self.loops -= 1

    def for_statement(self) -> Node:
        self.take()
        self.take("(")
        if (
            self.tok.kind == "NAME"
            and self.peek().kind == "in"
            and self.peek(2).kind == "NAME"
            and self.peek(3).kind == ")"
        ):
            var = self.take().value
            self.claim(var, "var")
            self.take()
            arr = self.take().value
            self.claim(arr, "array")
            self.take(")")
            return ("forin", var, arr, self.loop_body())
        init = None if self.tok.kind == ";" else self.simple_statement()
        self.take(";")
        self.newlines()
        cond = None if self.tok.kind == ";" else self.expr()
        self.take(";")
        self.newlines()
        step = None if self.tok.kind == ")" else self.simple_statement()
        self.take(")")
        if self.tok.kind == ";":
            self.take()
            return ("for", init, cond, step, ("block", []))
        return ("for", init, cond, step, self.loop_body())

    def simple_statement(self) -> Node:
        kind = self.tok.kind
        if kind in ("print", "printf"):
            self.take()
            args: list[Node] = []
            self.no_gt = True
            try:
                if self.tok.kind not in _SIMPLE_END and self.tok.kind not in (">", ">>", "|"):
                    args = self.expr_list()
            finally:
                self.no_gt = False
            if len(args) == 1 and args[0][0] == "group":
                args = args[0][1]
            redirect = None
            if self.tok.kind in (">", ">>", "|"):
                how = self.take().kind
                redirect = (how, self.concat(no_gt=True))
            if kind == "printf" and not args:
                self.error("no arguments in call to printf")
            return (kind, args, redirect)
        if kind in ("next", "nextfile", "break", "continue"):
            self.take()
            if kind.startswith("next") and self.where != "main":
                self.error(f"improper use of {kind}")
            elif kind in ("break", "continue") and not self.loops:
                self.error(f"{kind} statement outside of loop")
            return (kind,)
        if kind in ("exit", "return"):
            self.take()
            value = None if self.tok.kind in _SIMPLE_END else self.expr()
            if kind == "return" and self.where != "function":
                self.error("return outside function body")
            return (kind, value)
        if kind == "delete":
            self.take()
            name = self.take("NAME").value
            self.claim(name, "array")
            subs = None
            if self.tok.kind == "[":
                self.take()
                subs = self.expr_list()
                self.take("]")
            return ("delete", name, subs)
        return ("expr", self.expr())

    # -- expressions -----------------------------------------------------------------------------

    def expr_list(self) -> list[Node]:
        items = [self.expr()]
        while self.tok.kind == ",":
            self.take()
            self.newlines()
            items.append(self.expr())
        return items

    def expr(self) -> Node:
        left = self.ternary()
        if self.tok.kind in _ASSIGN:
            if left[0] not in _LVALUES:
                self.fail()
            op = self.take().kind
            return ("assign", op, left, self.expr())
        return left

    def ternary(self) -> Node:
        cond = self.or_()
        if self.tok.kind == "?":
            self.take()
            self.newlines()
            a = self.expr()
            self.newlines()
            self.take(":")
            self.newlines()
            return ("cond", cond, a, self.expr())
        return cond

    def or_(self) -> Node:
        left = self.and_()
        while self.tok.kind == "||":
            self.take()
            self.newlines()
            left = ("or", left, self.and_())
        return left

    def and_(self) -> Node:
        left = self.in_()
        while self.tok.kind == "&&":
            self.take()
            self.newlines()
            left = ("and", left, self.in_())
        return left

    def in_(self) -> Node:
        left = self.match()
        while self.tok.kind == "in" and not self.no_in:
            self.take()
            subs = left[1] if left[0] == "group" else [left]
            name = self.take("NAME").value
            self.claim(name, "array")
            left = ("in", subs, name)
        return left

    def match(self) -> Node:
        left = self.relational()
        while self.tok.kind in ("~", "!~"):
            neg = self.take().kind == "!~"
            line = self.tok.line
            right = self.relational()
            if right[0] == "str":  # a constant string is compiled as the program is
                self.check_regex(right[1], line)
            left = ("match", neg, left, right)
        return left

    def relational(self) -> Node:
        left = self.concat()
        while self.tok.kind == "|" and self.peek().kind == "getline":
            self.take()
            self.take()
            var = self.getline_var()
            left = ("getline", "cmd", var, left)
        kind = self.tok.kind
        if kind in ("<", "<=", "!=", "==", ">=") or (kind == ">" and not self.no_gt):
            self.take()
            right = self.concat()
            left = ("cmp", kind, left, right)
        return left

    def concat(self, no_gt: bool | None = None) -> Node:
        saved = self.no_gt
        if no_gt is not None:
            self.no_gt = no_gt
        try:
            left = self.additive()
            while self.tok.kind in _CONCAT_START and self.tok.kind not in ("-", "+", "!"):
                if self.tok.kind == "in":
                    break
                left = ("concat", left, self.additive())
            return left
        finally:
            self.no_gt = saved

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.tok.kind in ("+", "-"):
            op = self.take().kind
            left = ("bin", op, left, self.multiplicative())
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.tok.kind in ("*", "/", "%"):
            op = self.take().kind
            left = ("bin", op, left, self.unary())
        return left

    def unary(self) -> Node:
        kind = self.tok.kind
        if kind == "!":
            self.take()
            return ("not", self.unary())
        if kind == "-":
            self.take()
            return ("neg", self.unary())
        if kind == "+":
            self.take()
            return ("pos", self.unary())
        return self.power()

    def power(self) -> Node:
        base = self.incdec()
        if self.tok.kind == "^":
            self.take()
            if self.tok.kind in ("-", "+", "!"):
                return ("bin", "^", base, self.unary())
            return ("bin", "^", base, self.power())
        return base

    def incdec(self) -> Node:
        if self.tok.kind in ("++", "--"):
            op = self.take().kind
            target = self.dollar()
            if target[0] not in _LVALUES:
                self.fail()
            return ("preinc", op, target)
        node = self.dollar()
        if self.tok.kind in ("++", "--") and node[0] in _LVALUES:
            return ("postinc", self.take().kind, node)
        return node

    def dollar(self) -> Node:
        if self.tok.kind == "$":
            self.take()
            if self.tok.kind in ("++", "--"):
                return ("field", self.incdec())
            if self.tok.kind == "-":
                self.take()
                return ("field", ("neg", self.dollar()))
            return ("field", self.dollar())
        return self.primary()

    def getline_var(self) -> Node | None:
        if self.tok.kind in ("NAME", "$"):
            return self.dollar()
        return None

    def primary(self) -> Node:
        t = self.tok
        kind = t.kind
        if kind == "NUMBER":
            self.take()
            return ("num", t.value)
        if kind == "STRING":
            self.take()
            return ("str", t.value)
        if kind == "ERE":
            self.take()
            self.check_regex(t.value, t.line)
            return ("regex", t.value)
        if kind == "(":
            self.take()
            saved, self.no_gt, saved_in, self.no_in = self.no_gt, False, self.no_in, False
            try:
                items = self.expr_list()
                self.take(")")
            finally:
                self.no_gt, self.no_in = saved, saved_in
            return ("group", items) if len(items) > 1 else ("paren", items[0])
        if kind == "NAME":
            self.take()
            if self.tok.kind == "[":
                if t.value in SCALAR_VARS:
                    self.fail()
                self.claim(t.value, "array")
                self.take()
                subs = self.expr_list()
                self.take("]")
                return ("index", t.value, subs)
            self.claim(t.value, "var")
            return ("var", t.value)
        if kind == "FUNC_NAME":
            self.take()
            args = self.call_args(lambda k: None)
            self.calls.append((t.value, len(args), t.line))
            return ("call", t.value, args)
        if kind == "BUILTIN":
            self.take()
            if self.tok.kind == "(":
                name = t.value
                args = self.call_args(lambda k: _builtin_arg(name, k))
                low, high = ARITY[name]
                if not low <= len(args) <= high:
                    self.error(f"wrong number of arguments in call to {name}")
                return ("builtin", name, args)
            if t.value == "length":
                return ("builtin", "length", [])
            self.fail()
        if kind == "getline":
            self.take()
            var = self.getline_var()
            if self.tok.kind == "<":
                self.take()
                return ("getline", "file", var, self.incdec())
            return ("getline", "simple", var, None)
        if kind in ("-", "+", "!"):
            return self.unary()
        return self.fail()

    def call_args(self, bare: Callable[[int], str | None]) -> list[Node]:
        """The arguments of a call; a bare name as argument ``k`` is typed ``bare(k)`` (an array, a
        variable, or None: as the callee uses it)."""
        self.take("(")
        saved, self.no_gt, saved_in, self.no_in = self.no_gt, False, self.no_in, False
        args: list[Node] = []
        try:
            while self.tok.kind != ")":
                t = self.tok
                kind = bare(len(args))
                if kind == "array" and not (t.kind == "NAME" and self.peek().kind in (",", ")")):
                    self.fail()  # split's array
                if kind == "lvalue":  # sub's target: a variable, element or field, nothing more
                    target = self.dollar()
                    if target[0] not in _LVALUES:
                        self.fail(t)
                    if target[0] == "var":
                        self.claim(target[1], "var")
                    args.append(target)
                elif t.kind == "NAME" and self.peek().kind in (",", ")"):
                    self.take()
                    if kind is not None:
                        self.claim(t.value, "array" if kind == "array" else "var")
                    args.append(("var", t.value))
                else:
                    args.append(self.expr())
                if self.tok.kind != ",":
                    break
                self.take()
                self.newlines()
            self.take(")")
        finally:
            self.no_gt, self.no_in = saved, saved_in
        return args


def _builtin_arg(name: str, k: int) -> str | None:
    """What argument ``k`` of a built-in must be: an array (split's second), an lvalue (sub's
    target), a variable; length's may be either."""
    if name == "split" and k == 1:
        return "array"
    if name in ("sub", "gsub") and k == 2:
        return "lvalue"
    return None if name == "length" else "var"


def _array_params(node: Any, params: set[str]) -> set[str]:
    """The parameters a function body uses as arrays (so an unset variable passed there becomes
    an array in the caller, as awk does)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
            continue
        if not isinstance(n, tuple) or not n:
            continue
        head = n[0]
        if head in ("index", "delete") and n[1] in params:
            found.add(n[1])
        elif head in ("in", "forin") and n[2] in params:
            found.add(n[2])
        elif (
            head == "builtin"
            and n[1] == "split"
            and len(n[2]) > 1
            and n[2][1][0] == "var"
            and n[2][1][1] in params
        ):
            found.add(n[2][1][1])
        stack.extend(x for x in n[1:] if isinstance(x, (tuple, list)))
    return found


def parse(src: str) -> Program:
    return Parser(src).program()

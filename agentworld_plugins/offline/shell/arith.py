"""Shell arithmetic ($((...)), let, expr-style operators) with C integer semantics."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from functools import lru_cache

from ... import pyast
from .errors import _ExpansionError

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


def _wrap(value: int) -> int:
    """``value`` as bash's 64-bit signed integer (it wraps around, as C's intmax_t does)."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _arith_tree(text: str) -> ast.Expression:
    """The Python syntax tree of a bash arithmetic expression; raises :class:`_ExpansionError`
    for a syntax error. Short ones are cached: a loop's ``$((i+1))`` is translated once."""
    return _short_tree(text) if len(text) <= 256 else _translate(text)


@lru_cache(maxsize=1024)
def _short_tree(text: str) -> ast.Expression:
    return _translate(text)


def _translate(text: str) -> ast.Expression:
    py = re.sub(
        r"\b(\d+)#([0-9a-zA-Z@_]+)\b",
        lambda m: str(int(m.group(2), int(m.group(1)))) if 2 <= int(m.group(1)) <= 36 else m.group(0),
        text,
    )
    py = re.sub(r"\b0([0-7]+)\b", lambda m: str(int(m.group(1), 8)), py)
    py = _ternary(py.replace("&&", " and ").replace("||", " or "))
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        return pyast.parse(py, mode="eval")  # type: ignore[no-any-return]
    except SyntaxError:
        raise _ExpansionError(
            f'{text}: syntax error in expression (error token is "{text}")', fatal=True
        ) from None


def _arith_eval(expr: str, lookup: Callable[[str], str]) -> int:
    """Evaluate a bash arithmetic expression (integers only; no assignments)."""
    text = expr.strip()
    if not text:
        return 0
    tree = _arith_tree(text)

    def ev(node: ast.AST, depth: int = 0) -> int:
        if depth > 50:
            raise _ExpansionError(f"{text}: expression recursion level exceeded", fatal=True)
        if isinstance(node, ast.Expression):
            return ev(node.body, depth)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return _wrap(int(node.value))
        if isinstance(node, ast.Name):
            raw = lookup(node.id).strip()
            if not raw:
                return 0
            if re.fullmatch(r"-?\d+", raw):
                return _wrap(int(raw))
            return _arith_eval(raw, lookup) if depth < 10 else 0
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand, depth + 1)
            if isinstance(node.op, ast.USub):
                return _wrap(-v)
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
                if isinstance(node.op, ast.Pow):
                    if b < 0:
                        raise _ExpansionError(
                            f'{text}: exponent less than 0 (error token is "{b}")', fatal=True
                        )
                    return _wrap(pow(a, b, 1 << 64))  # modular: no huge intermediate number
                if isinstance(node.op, (ast.LShift, ast.RShift)):
                    b &= 63  # x86 shifts use the low six bits of the count
                return _wrap(int(fn(a, b)))
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

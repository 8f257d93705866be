"""test, [ and [[: file, string and integer tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...vfs import DirNode, FileNode, FsError
from ..arith import _arith_eval
from ..errors import _ExpansionError
from ..options import shopt_on
from ..patterns import glob_regex, posix_regex
from ..regex import compile_regex
from ..registry import applet, builtin

if TYPE_CHECKING:
    from ..proc import _Proc


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
            nocase = double and shopt_on(vm, "nocasematch")
            if op in ("=", "=="):
                # [[ == ]] matches as if extglob were on, as bash does
                return bool(glob_regex(right, nocase, extended=True).match(left)) if double else left == right
            if op == "!=":
                return not glob_regex(right, nocase, extended=True).match(left) if double else left != right
            if op == "<":
                return left < right
            if op == ">":
                return left > right
            if op == "=~":
                try:
                    m = compile_regex(posix_regex(right, True), re.IGNORECASE if nocase else 0).search(left)
                except re.error:
                    return False
                # BASH_REMATCH: the match and each group ("" for one that took no part); none on failure
                vm._array_replace("BASH_REMATCH", [m.group(0), *(g or "" for g in m.groups())] if m else [])
                return m is not None
            if op in ("-nt", "-ot", "-ef"):
                return _compare_files(vm, op, left, right)
            a, b = integer(left), integer(right)
            return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[
                op
            ]
        if tok == "-v" and nxt is not None:  # a variable (or an array's element) that is set
            pos += 2
            return _is_set(vm, nxt)
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

    unary = re.compile(r"-[efdsrwxLhabcgkpstuOGNSznv]")
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


def _is_set(vm: Any, word: str) -> bool:
    """``-v NAME`` / ``-v NAME[SUB]``: set, even to ""; an array is set when its element 0 is."""
    m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?", word, re.S)
    if m is None:
        return False
    name, sub = m.groups()
    if sub is None:
        return (
            vm._array_get(name, 0) is not None
            if vm._arrays().get(vm._ref(name))
            else vm.getvar(name) is not None
        )
    if sub in ("@", "*"):
        return bool(vm._arrays().get(vm._ref(name))) or vm.getvar(name) is not None
    try:
        return vm._array_get(name, vm._array_key(name, sub, None)) is not None
    except (_ExpansionError, ValueError):  # a bad subscript: not set
        return False


@builtin("test", "[", "[[")
@applet("test", "[")
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


def _compare_files(vm: Any, op: str, left: str, right: str) -> bool:
    """``-nt`` / ``-ot`` by modification time (a file that exists is newer than one that does
    not), ``-ef``: the same file (node) once symbolic links are followed."""
    found: list[tuple[int, int] | None] = []
    for name in (left, right):
        path = vm.fs.normalize(name, vm.cwd)
        try:
            node = vm.fs.stat(path)
            found.append((node.mtime, id(node)))
        except FsError:
            found.append(None)
    a, b = found
    if op == "-ef":
        return a is not None and b is not None and a[1] == b[1]
    if op == "-ot":
        a, b = b, a
    return a is not None and (b is None or a[0] > b[0])

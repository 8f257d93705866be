"""Running a parsed awk program over records: fields, variables, arrays, I/O, every step counted
against the offline step's work and memory budget."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ....vfs import FsError
from ...applet_io import from_host, to_host
from ...limits import current
from ...patterns import posix_regex
from ...regex import compile_regex
from .arrays import MawkArray, subscript
from .builtins import call_builtin
from .lexer import unescape
from .parse import Node, Program
from .records import Reader, split_fields
from .regexes import MawkRegexError, mawk_regex
from .values import (
    UNINIT,
    AwkFatal,
    PrintfError,
    StrNum,
    compare,
    format_printf,
    strnum,
    to_num,
    to_str,
    truth,
)

if TYPE_CHECKING:
    from ...proc import _Proc

#: the NaN an invalid operation gives on x86 (printed ``-nan``)
_NAN = -math.nan
#: units of work of one statement, one record, one function call
STATEMENT_WORK = 2
RECORD_WORK = 2
#: the deepest awk function recursion (gawk's is bounded by memory; here by the host's stack)
MAX_DEPTH = 100


class _Next(Exception):
    pass


class _NextFile(Exception):
    pass


class _Exit(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Awk:
    def __init__(self, p: _Proc, prog: Program, argv: list[str], assigns: list[tuple[str, str]]) -> None:
        self.p = p
        self.prog = prog
        self.budget = current()
        env = MawkArray()
        for name, value in p.vm.vars.items():
            if name in p.vm.exported:
                env[env.make(from_host(name))] = strnum(from_host(value))
        args = MawkArray()
        for k, arg in enumerate(argv):
            args[args.make(k)] = strnum(from_host(arg))
        self.globals: dict[str, Any] = {
            "FS": " ", "OFS": " ", "ORS": "\n", "RS": "\n", "NR": 0.0, "FNR": 0.0, "SUBSEP": "\034",
            "CONVFMT": "%.6g", "OFMT": "%.6g", "RSTART": 0.0, "RLENGTH": -1.0, "FILENAME": "",
            "ENVIRON": env, "ARGC": float(len(argv)),
            "ARGV": args,
        }  # fmt: skip
        for name, value in assigns:
            self.globals[name] = strnum(from_host(value))
        self.frames: list[dict[str, Any]] = []
        self.record = ""
        self.fields: list[str] | None = []  # $1.. (None: not split yet)
        self.nf = 0
        self.regexes: dict[str, Any] = {}
        self.ranges: dict[int, bool] = {}
        self.readers: dict[str, Reader] = {}
        self.outputs: dict[str, list[str] | None] = {}  # a pipe's text so far; a file: None
        self.main_reader: Reader | None = None
        self.arg_index = 1
        # mawk seeds rand() at start from the clock; here from the machine's seeded randomness
        self.seed = float(p.vm.device_random().getrandbits(31))
        self.rng_state = int(self.seed)
        self.in_end = False
        self.in_begin = False
        self.exit_code = 0
        self.ev: dict[str, Callable[[Node], Any]] = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("_e_")
        }
        self.ex: dict[str, Callable[[Node], None]] = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("_s_")
        }

    # -- running ---------------------------------------------------------------------------------

    def run(self) -> int:
        try:
            try:
                self.in_begin = True
                for action in self.prog.begin:
                    self.exec(action)
                self.in_begin = False
                if self.prog.main or self.prog.end:
                    self.main_loop()
            except _Exit as exc:
                self.exit_code = exc.code
            self.in_end = True
            try:
                for action in self.prog.end:
                    self.exec(action)
            except _Exit as exc:
                self.exit_code = exc.code
        finally:
            self.close_all()
        return self.exit_code

    def main_loop(self) -> None:
        while True:
            record = self.next_main()
            if record is None:
                return
            self.set_record(record)
            try:
                for k, (pattern, pattern2, action) in enumerate(self.prog.main):
                    if self.matches(k, pattern, pattern2):
                        if action is None:
                            self.print_text(self.record + to_str(self.globals["ORS"]), None)
                        else:
                            self.exec(action)
            except _Next:
                continue
            except _NextFile:
                if self.main_reader is not None:
                    self.main_reader.done = True

    def matches(self, k: int, pattern: Node | None, pattern2: Node | None) -> bool:
        if pattern is None:
            return True
        if pattern2 is None:
            return truth(self.eval(pattern))
        if self.ranges.get(k):
            if truth(self.eval(pattern2)):
                self.ranges[k] = False
            return True
        if truth(self.eval(pattern)):
            self.ranges[k] = not truth(self.eval(pattern2))
            return True
        return False

    def next_main(self) -> str | None:
        """The next record of the main input (the operands in ARGV, assignments done on the way)."""
        while True:
            if self.main_reader is not None and not self.main_reader.done:
                record = self.main_reader.next(to_str(self.globals["RS"]))
                if record is not None:
                    self.globals["NR"] = to_num(self.globals["NR"]) + 1
                    self.globals["FNR"] = to_num(self.globals["FNR"]) + 1
                    return record
                if self.main_reader.stdin_all:
                    return None
            argv = self.globals["ARGV"]
            argc = int(to_num(self.globals["ARGC"]))
            if self.arg_index >= argc:
                if self.main_reader is None:
                    self.main_reader = Reader.stdin(self.p)
                    self.main_reader.stdin_all = True
                    self.globals["FILENAME"] = "-"  # mawk's name for standard input
                    continue
                return None
            arg = to_str(argv.get(str(self.arg_index), ""))
            self.arg_index += 1
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", arg, re.S)
            if m:
                self.globals[m.group(1)] = strnum(unescape(m.group(2)))
                continue
            if arg == "":
                continue
            self.globals["FILENAME"] = arg
            self.globals["FNR"] = 0.0
            if arg == "-" or arg == "/dev/stdin":
                self.main_reader = Reader.stdin(self.p)
                continue
            try:
                text = self.p.read(to_host(arg))
            except FsError as exc:
                if exc.code == "EISDIR":
                    raise AwkFatal("read error (Is a directory)", runtime=False) from None
                raise AwkFatal(f'cannot open "{arg}" ({exc.strerror})', runtime=False) from None
            self.main_reader = Reader(text)

    def warn(self, message: str) -> None:
        self.p.ctx.err.write(to_host(f"{self.p.name}: {message}\n"))

    # -- records and fields ----------------------------------------------------------------------

    def set_record(self, text: str) -> None:
        self.budget.spend(RECORD_WORK + len(text) // 64)
        self.record = text
        self.fields = None

    def split(self) -> list[str]:
        if self.fields is None:
            self.fields = split_fields(
                self.record, to_str(self.globals["FS"]), self, paragraph=self.paragraph
            )
            self.nf = len(self.fields)
        return self.fields

    @property
    def paragraph(self) -> bool:
        return to_str(self.globals["RS"]) == ""

    def get_field(self, k: int) -> Any:
        if k == 0:
            return strnum(self.record)
        if k < 0:
            raise AwkFatal(f"negative field index ${k}")
        fields = self.split()
        return strnum(fields[k - 1]) if k <= len(fields) else UNINIT

    def set_field(self, k: int, value: str) -> None:
        if k == 0:
            self.set_record(value)
            return
        if k < 0:
            raise AwkFatal(f"negative field index ${k}")
        fields = self.split()
        while len(fields) < k:
            fields.append("")
        fields[k - 1] = value
        self.nf = len(fields)
        self.rebuild()

    def rebuild(self) -> None:
        fields = self.split()
        ofs = to_str(self.globals["OFS"], self.convfmt)
        self.record = ofs.join(fields)
        self.budget.hold(len(self.record))

    def set_nf(self, n: int) -> None:
        fields = self.split()
        if n < 0:
            raise AwkFatal("negative value assigned to NF")
        del fields[n:]
        while len(fields) < n:
            fields.append("")
        self.nf = n
        self.rebuild()

    @property
    def convfmt(self) -> str:
        return to_str(self.globals["CONVFMT"])

    # -- variables -------------------------------------------------------------------------------

    def scope(self, name: str) -> dict[str, Any]:
        if self.frames and name in self.frames[-1]:
            return self.frames[-1]
        return self.globals

    def get_var(self, name: str) -> Any:
        if name == "NF":
            self.split()
            return float(self.nf)
        value = self.scope(name).get(name, UNINIT)
        if isinstance(value, dict):
            raise AwkFatal(f"attempt to use array `{name}' in a scalar context")
        return value

    def set_var(self, name: str, value: Any) -> None:
        if name == "NF":
            self.set_nf(int(to_num(value)))
            return
        scope = self.scope(name)
        if isinstance(scope.get(name), dict):
            raise AwkFatal(f"attempt to use array `{name}' in a scalar context")
        scope[name] = value

    def array(self, name: str) -> MawkArray:
        scope = self.scope(name)
        value = scope.get(name)
        if isinstance(value, MawkArray):
            return value
        if value is None or value is UNINIT:
            arr = MawkArray()
            scope[name] = arr
            return arr
        raise AwkFatal(f"attempt to use scalar `{name}' as an array")

    def subscript(self, subs: list[Node]) -> int | str:
        """What a subscript looks its element up by (a list of them is one string, joined by
        ``SUBSEP``)."""
        if len(subs) == 1:
            return subscript(self.scalar(subs[0]), self.convfmt)
        sep = to_str(self.globals["SUBSEP"])
        return sep.join(to_str(self.scalar(s), self.convfmt) for s in subs)

    def element(self, arr: MawkArray, subs: list[Node]) -> str:
        """The key of ``arr[subs]``, made when absent (as referring to an element makes it)."""
        size = len(arr)
        key = arr.make(self.subscript(subs))
        if len(arr) > size:
            self.budget.spend(8 + len(key) // 16)
        return key

    def place(self, target: Node) -> Node:
        """``target`` with its subscript or field number evaluated once (``a[i++]++``)."""
        kind = target[0]
        if kind == "index":
            arr = self.array(target[1])
            return ("slot", arr, self.element(arr, target[2]))
        if kind == "field":
            return ("fld", int(to_num(self.eval(target[1]))))
        return target

    def assign(self, target: Node, value: Any) -> Any:
        if target[0] in ("index", "field"):
            target = self.place(target)
        kind = target[0]
        if isinstance(value, str) and not isinstance(value, StrNum):
            self.budget.hold(len(value))
        if kind == "var":
            self.set_var(target[1], value)
        elif kind == "slot":
            target[1][target[2]] = value
        else:
            self.set_field(target[1], to_str(value, self.convfmt))
        return value

    def lvalue(self, target: Node) -> Any:
        if target[0] in ("index", "field"):
            target = self.place(target)
        kind = target[0]
        if kind == "var":
            return self.get_var(target[1])
        if kind == "slot":
            return target[1][target[2]]
        return self.get_field(target[1])

    # -- statements ------------------------------------------------------------------------------

    def exec(self, node: Node) -> None:
        self.budget.spend(STATEMENT_WORK)
        self.ex[node[0]](node)

    def _s_block(self, node: Node) -> None:
        for stmt in node[1]:
            self.exec(stmt)

    def _s_expr(self, node: Node) -> None:
        self.eval(node[1])

    def _s_print(self, node: Node) -> None:
        args = node[1]
        ofmt = to_str(self.globals["OFMT"])
        if not args:
            text = self.record
        else:
            ofs = to_str(self.globals["OFS"], self.convfmt)
            text = ofs.join(to_str(self.scalar(a), ofmt) for a in args)
        self.print_text(text + to_str(self.globals["ORS"], self.convfmt), node[2])

    def _s_printf(self, node: Node) -> None:
        values = [self.scalar(a) for a in node[1]]
        try:
            text = format_printf(to_str(values[0], self.convfmt), values[1:], self.convfmt, "printf")
        except PrintfError as exc:  # what printf wrote before it stopped is out
            self.print_text(exc.written, node[2])
            raise
        self.budget.hold(len(text))
        self.print_text(text, node[2])

    def _s_if(self, node: Node) -> None:
        if truth(self.eval(node[1])):
            self.exec(node[2])
        elif node[3] is not None:
            self.exec(node[3])

    def _loop_body(self, body: Node) -> bool:
        """Run a loop's body once; False where it ends the loop (``break``)."""
        try:
            self.exec(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def _s_while(self, node: Node) -> None:
        while truth(self.eval(node[1])):
            self.budget.spend(1)
            if not self._loop_body(node[2]):
                return

    def _s_do(self, node: Node) -> None:
        while True:
            self.budget.spend(1)
            if not self._loop_body(node[1]) or not truth(self.eval(node[2])):
                return

    def _s_for(self, node: Node) -> None:
        _, init, cond, step, body = node
        if init is not None:
            self.exec(init)
        while cond is None or truth(self.eval(cond)):
            self.budget.spend(1)
            if not self._loop_body(body):
                return
            if step is not None:
                self.exec(step)

    def _s_forin(self, node: Node) -> None:
        _, var, name, body = node
        # mawk walks the keys the array had when the loop began, deleted ones too
        for key in self.array(name).loop_keys(sort="WHINY_USERS" in self.globals["ENVIRON"]):
            self.set_var(var, key)
            if not self._loop_body(body):
                return

    def _s_next(self, node: Node) -> None:
        if self.in_end or self.in_begin:
            raise AwkFatal("`next' used in BEGIN or END action")
        raise _Next()

    def _s_nextfile(self, node: Node) -> None:
        raise _NextFile()

    def _s_exit(self, node: Node) -> None:
        code = self.exit_code if node[1] is None else int(to_num(self.eval(node[1]))) & 0xFF
        raise _Exit(code)

    def _s_return(self, node: Node) -> None:
        raise _Return(UNINIT if node[1] is None else self.eval(node[1]))

    def _s_break(self, node: Node) -> None:
        raise _Break()

    def _s_continue(self, node: Node) -> None:
        raise _Continue()

    def _s_delete(self, node: Node) -> None:
        arr = self.array(node[1])
        if node[2] is None:
            arr.clear()
        else:
            arr.remove(self.subscript(node[2]))

    # -- expressions -----------------------------------------------------------------------------

    def eval(self, node: Node) -> Any:
        self.budget.work += 1  # checked at the next statement's spend
        return self.ev[node[0]](node)

    def scalar(self, node: Node) -> Any:
        value = self.eval(node)
        if isinstance(value, dict):
            raise AwkFatal("attempt to use array in a scalar context")
        return value

    def _e_num(self, node: Node) -> Any:
        return node[1]

    def _e_str(self, node: Node) -> Any:
        return node[1]

    def _e_regex(self, node: Node) -> Any:
        return 1.0 if self.regex(node[1]).search(self.record) else 0.0

    def _e_paren(self, node: Node) -> Any:
        return self.eval(node[1])

    def _e_group(self, node: Node) -> Any:
        raise AwkFatal("a parenthesized list is only allowed before `in' or as print's arguments")

    def _e_var(self, node: Node) -> Any:
        return self.get_var(node[1])

    def _e_field(self, node: Node) -> Any:
        return self.get_field(int(to_num(self.eval(node[1]))))

    def _e_index(self, node: Node) -> Any:
        return self.lvalue(node)

    def _e_assign(self, node: Node) -> Any:
        _, op, target, expr = node
        target = self.place(target)
        value = self.eval(expr)
        if isinstance(value, dict):
            raise AwkFatal("attempt to use array in a scalar context")
        if op != "=":
            value = self.arith(op[0], to_num(self.lvalue(target)), to_num(value))
        return self.assign(target, value)

    def _e_cond(self, node: Node) -> Any:
        return self.eval(node[2]) if truth(self.eval(node[1])) else self.eval(node[3])

    def _e_or(self, node: Node) -> Any:
        return 1.0 if truth(self.eval(node[1])) or truth(self.eval(node[2])) else 0.0

    def _e_and(self, node: Node) -> Any:
        return 1.0 if truth(self.eval(node[1])) and truth(self.eval(node[2])) else 0.0

    def _e_in(self, node: Node) -> Any:
        return 0.0 if self.array(node[2]).find(self.subscript(node[1]), False) is None else 1.0

    def _e_match(self, node: Node) -> Any:
        _, neg, left, right = node
        text = to_str(self.scalar(left), self.convfmt)
        found = self.regex_of(right).search(text) is not None
        return 1.0 if found != neg else 0.0

    def _e_cmp(self, node: Node) -> Any:
        _, op, a, b = node
        c = compare(self.scalar(a), self.scalar(b), self.convfmt)
        ok = {"<": c < 0, "<=": c <= 0, "==": c == 0, "!=": c != 0, ">": c > 0, ">=": c >= 0}[op]
        return 1.0 if ok else 0.0

    def _e_concat(self, node: Node) -> Any:
        fmt = self.convfmt
        text = to_str(self.scalar(node[1]), fmt) + to_str(self.scalar(node[2]), fmt)
        self.budget.hold(len(text))
        return text

    def _e_bin(self, node: Node) -> Any:
        return self.arith(node[1], to_num(self.scalar(node[2])), to_num(self.scalar(node[3])))

    def arith(self, op: str, x: float, y: float) -> float:
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:  # no trap: IEEE's infinities, and x86's NaN (its sign bit set) for 0/0
                return _NAN if x == 0 else x if x != x else math.copysign(math.inf, x) * math.copysign(1, y)
            return x / y
        if op == "%":
            if y == 0 or x in (math.inf, -math.inf):
                return x if x != x else _NAN
            return math.fmod(x, y)
        try:
            return float(x**y)
        except OverflowError:
            return math.inf
        except (ZeroDivisionError, TypeError):
            return math.inf if x == 0 else math.nan

    def _e_neg(self, node: Node) -> Any:
        return -to_num(self.scalar(node[1]))

    def _e_pos(self, node: Node) -> Any:
        return to_num(self.scalar(node[1]))

    def _e_not(self, node: Node) -> Any:
        return 0.0 if truth(self.scalar(node[1])) else 1.0

    def _e_preinc(self, node: Node) -> Any:
        target = self.place(node[2])
        return self.assign(target, to_num(self.lvalue(target)) + (1 if node[1] == "++" else -1))

    def _e_postinc(self, node: Node) -> Any:
        target = self.place(node[2])
        old = to_num(self.lvalue(target))
        self.assign(target, old + (1 if node[1] == "++" else -1))
        return old

    def _e_call(self, node: Node) -> Any:
        _, name, args = node
        found = self.prog.functions.get(name)
        if found is None:
            raise AwkFatal(f"function `{name}' not defined")
        params, body, arrays = found
        if len(args) > len(params):
            raise AwkFatal(f"function `{name}' called with more arguments than declared")
        frame: dict[str, Any] = {}
        for k, param in enumerate(params):
            if k < len(args):
                arg = args[k]
                if arg[0] == "var" and param in arrays:
                    frame[param] = self.array(arg[1])
                elif arg[0] == "var" and isinstance(self.scope(arg[1]).get(arg[1]), dict):
                    frame[param] = self.scope(arg[1])[arg[1]]
                else:
                    frame[param] = self.scalar(arg)
            else:
                frame[param] = MawkArray() if param in arrays else UNINIT
        if len(self.frames) >= MAX_DEPTH:
            raise AwkFatal(f"function `{name}' called too deeply (more than {MAX_DEPTH} calls)")
        self.budget.spend(4)
        self.frames.append(frame)
        try:
            self.exec(body)
        except _Return as ret:
            return ret.value
        finally:
            self.frames.pop()
        return UNINIT

    def _e_builtin(self, node: Node) -> Any:
        return call_builtin(self, node[1], node[2])

    def _e_getline(self, node: Node) -> Any:
        _, kind, var, src = node
        if kind == "simple":
            record = self.next_main()
            if record is None:
                return 0.0
            if var is None:
                self.set_record(record)
            else:
                self.assign(var, strnum(record))
            return 1.0
        name = to_str(self.scalar(src), self.convfmt)
        reader = self.readers.get(name)
        if reader is None:
            if kind == "cmd":
                status, text = self.run_command(name, "", capture=True)
                reader = Reader(text)
                reader.status = status
            elif name in ("-", "/dev/stdin"):
                reader = Reader.stdin(self.p)
            else:
                try:
                    reader = Reader(self.p.read(to_host(name)))
                except FsError:
                    return -1.0
            self.readers[name] = reader
        record = reader.next(to_str(self.globals["RS"]))
        if record is None:
            return 0.0
        if kind == "cmd":
            self.globals["NR"] = to_num(self.globals["NR"]) + 1
        if var is None:
            self.set_record(record)
        else:
            self.assign(var, strnum(record))
        return 1.0

    # -- regular expressions ---------------------------------------------------------------------

    def regex(self, source: str) -> Any:
        rx = self.regexes.get(source)
        if rx is None:
            try:
                rx = compile_regex(posix_regex(mawk_regex(source), True), re.DOTALL)
            except MawkRegexError as exc:
                raise AwkFatal(f"regular expression compile failed ({exc.reason})\n{source}") from None
            except re.error as exc:
                raise AwkFatal(f"regular expression compile failed ({exc})\n{source}") from None
            self.regexes[source] = rx
        return rx

    def regex_of(self, node: Node) -> Any:
        if node[0] == "regex":
            return self.regex(node[1])
        return self.regex(to_str(self.scalar(node), self.convfmt))

    # -- output and commands ---------------------------------------------------------------------

    def print_text(self, text: str, redirect: Node | None) -> None:
        if redirect is None:
            self.p.out(to_host(text))
            return
        how, target = redirect
        name = to_str(self.scalar(target), self.convfmt)
        if name in ("/dev/stdout", "-"):
            self.p.out(to_host(text))
            return
        if name == "/dev/stderr":
            self.p.ctx.err.write(to_host(text))
            return
        if how == "|":
            buffer = self.outputs.setdefault(name, [])
            if buffer is None:
                raise AwkFatal(f"`{name}' is open as a file, not a pipe")
            self.budget.charge(len(text))
            buffer.append(text)
            return
        first = name not in self.outputs
        self.outputs[name] = None
        try:
            self.p.fs.write(self.p.path(to_host(name)), to_host(text), append=not (first and how == ">"))
        except FsError as exc:
            raise AwkFatal(f'cannot open "{name}" for output ({exc.strerror})', runtime=False) from None
        self.budget.charge(len(text))

    def run_command(self, command: str, stdin: str, capture: bool = False) -> tuple[int, str]:
        """Run ``command`` in a child shell (``sh -c``); its status and, with ``capture``, its output."""
        from ...proc import _Capture, _Input

        out = _Capture() if capture else self.p.ctx.out
        ctx = self.p.ctx.with_(stdin=_Input(to_host(stdin)), out=out)
        status = self.p.vm._run_script(to_host(command), ["sh"], ctx, name="sh")
        return status, out.text if isinstance(out, _Capture) else ""

    def close(self, name: str) -> int:
        status = -1
        if name in self.readers:
            status = self.readers.pop(name).status
        if name in self.outputs:
            buffer = self.outputs.pop(name)
            status = 0
            if buffer is not None:
                status = self.run_command(name, "".join(buffer))[0]
        return status

    def close_all(self) -> None:
        for name in list(self.outputs):
            self.close(name)

"""find."""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

from ...vfs import DirNode, FileNode, FsError, LinkNode, Node
from .. import find_format
from ..applet_io import _join
from ..find_format import FormatError, Visit
from ..limits import current
from ..patterns import glob_regex, posix_regex
from ..pipes import streaming
from ..quoting import locale_quote
from ..regex import compile_regex
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


class _FindError(Exception):
    pass


class _Quit(Exception):
    """-quit: the walk ends here."""


def _find_may_stream(args: list[str]) -> bool:
    """Whether find may run lazily as a pipeline stage: not when its actions change things or
    run commands (those happen in order, whoever reads the output)."""
    return not any(a in ("-exec", "-execdir", "-ok", "-okdir", "-delete", *_FILE_ACTIONS) for a in args)


#: actions that write to a file named after them (created, emptied, as find starts)
_FILE_ACTIONS = ("-fprint", "-fprint0", "-fprintf", "-fls")
_ACTIONS = (
    "-print",
    "-print0",
    "-printf",
    "-ls",
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "-delete",
    *_FILE_ACTIONS,
)


@applet("find")
@streaming(lazy_if=_find_may_stream)
def _u_find(p: _Proc) -> Generator[str, None, int]:
    """find, streaming where it only prints: ``find / | head -1`` walks no further."""
    args = list(p.args)
    paths: list[str] = []
    while args and not args[0].startswith(("-", "(", "!")):
        paths.append(args.pop(0))
    paths = paths or ["."]
    maxdepth = None
    mindepth = 0
    depth_first = False
    expr_tokens: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-maxdepth" and i + 1 < len(args):
            maxdepth = int(args[i + 1])
            i += 2
            continue
        if a in ("-depth", "-d"):  # a folder after what is in it
            depth_first = True
            i += 1
            continue
        if a == "-mindepth" and i + 1 < len(args):
            mindepth = int(args[i + 1])
            i += 2
            continue
        expr_tokens.append(a)
        i += 1
    depth_first = depth_first or "-delete" in expr_tokens  # -delete implies -depth
    fs = p.fs
    vm = p.vm
    pos = 0
    has_action = any(t in _ACTIONS for t in expr_tokens)
    origin = ""  # the starting point being walked (%H, %P)
    status = 0
    now = fs.now()

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
            # the name as find shows it ("." for a start of ".", "p" for "p/")
            return lambda shown, path, node, depth: bool(
                rx.match(posixpath.basename(shown.rstrip("/")) or "/")
            )
        if tok in ("-path", "-wholename", "-ipath"):
            pat = need(tok)
            rx = re.compile(glob_regex(pat).pattern, re.IGNORECASE if tok == "-ipath" else 0)
            return lambda shown, path, node, depth: bool(rx.match(shown))
        if tok == "-regex":
            pat = need(tok)
            rx2 = compile_regex(posix_regex(pat, False))
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
        if tok == "-newer":
            ref = need(tok)
            try:
                stamp = p.fs.stat(p.path(ref)).mtime
            except FsError as exc:
                raise _FindError(f"{locale_quote(ref)}: {exc.strerror}") from None
            return lambda shown, path, node, depth: node.mtime > stamp
        if tok in ("-mtime", "-mmin", "-perm", "-user", "-group", "-uid", "-gid"):
            need(tok)
            return lambda *x: True
        if tok == "-quit":

            def quit_walk(shown: str, path: str, node: Node, depth: int) -> bool:
                raise _Quit

            return quit_walk
        if tok == "-prune":

            def prune(shown: str, path: str, node: Node, depth: int) -> bool:
                pruned.add(path)  # true, and the walk does not go below this directory
                return True

            return prune
        if tok in ("-printf", "-fprintf", "-fprint", "-fprint0", "-fls", "-ls"):
            return parse_output(tok)
        if tok in ("-true", "-print", "-print0", "-readable", "-writable", "-executable"):
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
                # -execdir: in the file's folder, the file as ./NAME
                name = "./" + posixpath.basename(shown.rstrip("/")) if tok == "-execdir" else shown
                argv = [c.replace("{}", name) for c in command]
                if not argv:
                    return False
                flush_files()
                if buffer:  # what find printed before comes first (-exec never streams)
                    p.out("".join(buffer))
                    buffer.clear()
                if tok == "-ok":  # asks first, on stderr; an answer starting with y runs it
                    p.ctx.err.write(f"< {argv[0]} ... {shown} > ? ")
                    answer = p.ctx.stdin.readline() or ""
                    if not answer.lstrip().startswith(("y", "Y")):
                        return False
                if tok != "-execdir":
                    return vm._invoke(argv, p.ctx) == 0
                saved = vm.cwd
                vm.cwd = posixpath.dirname(path) or "/"
                try:
                    return vm._invoke(argv, p.ctx) == 0
                finally:
                    vm.cwd = saved

            return run_exec
        raise _FindError(f"unknown predicate `{tok}'")

    def parse_output(tok: str) -> Callable[[str, str, Node, int], bool]:
        """-printf, -ls and the -f... actions that write what they print to a file."""
        sink = buffer
        if tok.startswith("-f"):
            sink = open_file(need(tok))
        segments: list[find_format.Segment] = []
        if tok in ("-printf", "-fprintf"):
            warnings: list[str] = []
            segments = find_format.parse(need(tok), warnings)
            for warning in warnings:
                p.err(warning)
        ending = "\0" if tok == "-fprint0" else "\n"

        def output(shown: str, path: str, node: Node, depth: int) -> bool:
            nonlocal status
            if tok in ("-fprint", "-fprint0"):
                sink.append(shown + ending)
                return True
            v = Visit(shown, path, node, depth, origin)
            if tok in ("-ls", "-fls"):
                current().spend(8)  # nine columns, a date
                sink.append(find_format.ls_line(v, now))
                return True
            current().spend(1 + len(segments))
            errors: list[str] = []
            sink.append(find_format.render(segments, v, fs, errors))
            for error in errors:
                p.err(error)
                status = 1
            return True

        return output

    files: dict[str, list[str]] = {}  # the files the -f... actions write, and what is still to go

    def open_file(name: str) -> list[str]:
        target = p.path(name)
        if target in ("/dev/stdout", "/proc/self/fd/1"):
            return buffer
        if target not in files:
            try:
                if target not in ("/dev/null", "/dev/stderr", "/proc/self/fd/2"):
                    fs.write(target, "")
            except FsError as exc:
                raise _FindError(f"{locale_quote(name)}: {exc.strerror}") from None
            files[target] = []
        return files[target]

    def flush_files() -> None:
        for target, pending in files.items():
            if pending:
                text = "".join(pending)
                pending.clear()
                if target in ("/dev/stderr", "/proc/self/fd/2"):
                    p.ctx.err.write(text)
                elif target != "/dev/null":
                    fs.append(target, text)

    buffer: list[str] = []  # what find printed since its last yield

    pruned: set[str] = set()

    def emit(text: str) -> bool:
        buffer.append(text)
        return True

    try:
        test = parse_or() if expr_tokens else (lambda *x: True)
        if pos < len(expr_tokens):
            raise _FindError(f"paths must precede expression: `{expr_tokens[pos]}'")
    except _FindError as exc:
        p.err(str(exc))
        return 1
    except FormatError as exc:
        p.err(str(exc))
        return 1
    except (ValueError, IndexError):
        p.err("invalid expression")
        return 1
    visited = 0
    budget = current()

    def visit(shown: str, path: str, node: Node, depth: int) -> Iterator[str]:
        nonlocal visited
        budget.spend(2)  # a directory entry read and a stat
        here = depth >= mindepth and (maxdepth is None or depth <= maxdepth)
        if here and not depth_first:
            ok = test(shown, path, node, depth)
            if ok and not has_action:
                buffer.append(shown + "\n")
        visited += 1
        if not visited % 256:  # hand over what was found (a pause, even if nothing was)
            flush_files()
            yield "".join(buffer)
            buffer.clear()
        if isinstance(node, DirNode) and (maxdepth is None or depth < maxdepth) and path not in pruned:
            for name in sorted(node.children):
                child = node.children.get(name)
                if child is None:
                    continue
                yield from visit(_join(shown, name), posixpath.join(path, name), child, depth + 1)
        if here and depth_first:
            ok = test(shown, path, node, depth)
            if ok and not has_action:
                buffer.append(shown + "\n")

    # paths now: the walk may go on after the shell's directory has changed
    try:
        for start, path in [(start, p.path(start)) for start in paths]:
            origin = start
            try:
                node = p.fs.stat(path)
            except FsError as exc:
                p.err(f"{locale_quote(start)}: {exc.strerror}")
                status = 1
                continue
            yield from visit(start, path, node, 0)
    except _Quit:
        pass
    flush_files()
    yield "".join(buffer)
    return status

"""sed: parsing and running scripts."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ...vfs import FsError
from ..getopt import _getopt, _last
from ..patterns import _regex_error, posix_regex
from ..proc import CHUNK, _split_lines
from ..regex import compile_regex
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _sed_replacement(rep: str) -> Callable[[re.Match[str]], str]:
    def expand(m: re.Match[str]) -> str:
        out: list[str] = []
        i = 0
        case: str | None = None
        while i < len(rep):
            c = rep[i]
            if c == "\\" and i + 1 < len(rep):
                d = rep[i + 1]
                if d.isdigit():
                    out.append(m.group(int(d)) or "")
                elif d == "n":
                    out.append("\n")
                elif d == "t":
                    out.append("\t")
                elif d in "UL":
                    case = d
                elif d == "E":
                    case = None
                else:
                    out.append(d)
                i += 2
                continue
            if c == "&":
                out.append(m.group(0))
            else:
                out.append(c)
            i += 1
        text = "".join(out)
        if case == "U":
            return text.upper()
        if case == "L":
            return text.lower()
        return text

    return expand


class _SedError(Exception):
    pass


def _sed_parse(script: str, extended: bool) -> list[dict[str, Any]]:
    commands: list[dict[str, Any]] = []
    i = 0
    n = len(script)

    def read_regex(delim: str) -> str:
        nonlocal i
        buf = []
        while i < n and script[i] != delim:
            if script[i] == "\\" and i + 1 < n:
                if script[i + 1] == delim:
                    buf.append(delim)
                else:
                    buf.append(script[i : i + 2])
                i += 2
                continue
            if script[i] == "\n":
                raise _SedError("unterminated address regex")
            buf.append(script[i])
            i += 1
        if i >= n:
            raise _SedError("unterminated `s' command")
        i += 1
        return "".join(buf)

    def compile_rx(text: str, flags: int = 0) -> re.Pattern[str]:
        try:
            return compile_regex(posix_regex(text, extended), flags)  # type: ignore[no-any-return]
        except re.error as exc:
            raise _SedError(f"-e expression #1, char {i}: {_regex_error(exc)}") from None

    def read_address() -> Any:
        nonlocal i
        if i < n and script[i].isdigit():
            j = i
            while j < n and script[j].isdigit():
                j += 1
            value = int(script[i:j])
            i = j
            return value
        if i < n and script[i] == "$":
            i += 1
            return "$"
        if i < n and script[i] in "/\\":
            delim = "/"
            if script[i] == "\\":
                delim = script[i + 1]
                i += 1
            i += 1
            return compile_rx(read_regex(delim))
        return None

    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        a1 = read_address()
        a2 = None
        if a1 is not None and i < n and script[i] == ",":
            i += 1
            a2 = read_address()
        while i < n and script[i] in " \t":
            i += 1
        negate = False
        if i < n and script[i] == "!":
            negate = True
            i += 1
        if i >= n:
            raise _SedError(f"-e expression #1, char {i}: missing command")
        cmd = script[i]
        i += 1
        entry: dict[str, Any] = {"a1": a1, "a2": a2, "neg": negate, "cmd": cmd, "active": False}
        if cmd == "s":
            delim = script[i]
            i += 1
            pattern = read_regex(delim)
            rep = read_regex(delim)
            flags = ""
            while i < n and script[i] not in ";\n}":
                flags += script[i]
                i += 1
            count = 0 if "g" in flags else 1
            m = re.search(r"\d+", flags)
            nth = int(m.group(0)) if m else 1
            entry.update(
                rx=compile_rx(pattern, re.IGNORECASE if ("I" in flags or "i" in flags) else 0),
                rep=_sed_replacement(rep),
                count=count,
                nth=nth,
                print="p" in flags,
            )
        elif cmd == "y":
            delim = script[i]
            i += 1
            src = read_regex(delim)
            dst = read_regex(delim)
            entry["table"] = str.maketrans(src, dst) if len(src) == len(dst) else {}
        elif cmd in "aic":
            j = i
            while j < n and script[j] != "\n":
                j += 1
            text = script[i:j]
            text = text[1:] if text.startswith("\\") else text
            entry["text"] = text.lstrip()
            i = j
        elif cmd in "pdqQ=nNGhHgxlP{}":
            if cmd in "qQ":
                m2 = re.match(r"\s*(\d+)", script[i:])
                entry["code"] = int(m2.group(1)) if m2 else 0
                if m2:
                    i += m2.end()
        elif cmd in "rw":
            j = i
            while j < n and script[j] != "\n":
                j += 1
            entry["file"] = script[i:j].strip()
            i = j
        elif cmd == "#":
            while i < n and script[i] != "\n":
                i += 1
            continue
        else:
            raise _SedError(f"-e expression #1, char {i}: unknown command: `{cmd}'")
        commands.append(entry)
    return commands


class _SedInput:
    """sed's input lines, read one ahead (so that ``$`` knows the last) and no further: a script
    that quits (``sed 5q``) leaves the rest of a pipe unread, as GNU sed does."""

    def __init__(self, lines: Iterable[str], give_back: Callable[[str], None] | None = None) -> None:
        self.lines = iter(lines)
        self.give_back = give_back
        self.ahead = next(self.lines, None)
        self.number = 0
        #: the last line read had no newline (sed writes it back without one)
        self.unterminated = False

    @property
    def last(self) -> bool:
        return self.ahead is None

    def quit(self) -> None:
        """``q``/``Q``: the line read ahead goes back to a seekable stdin (GNU sed seeks back)."""
        if self.ahead is not None and self.give_back is not None:
            self.give_back(self.ahead)
            self.ahead = None

    def read(self) -> str | None:
        """The next line without its newline; None at the end."""
        line = self.ahead
        if line is None:
            return None
        self.ahead = next(self.lines, None)
        self.number += 1
        self.unterminated = not line.endswith("\n")
        return line if self.unterminated else line[:-1]


def _sed_run(
    commands: list[dict[str, Any]], text: str | _SedInput, quiet: bool, p: _Proc
) -> tuple[str, int | None]:
    source = text if isinstance(text, _SedInput) else _SedInput(_split_lines([text]))
    out: list[str] = []
    hold = ""

    def matches(addr: Any, k: int, line: str) -> bool:
        if addr == "$":
            return source.last
        if isinstance(addr, int):
            return k == addr
        return bool(addr.search(line))

    quit_code: int | None = None
    whole = False  # the pattern space got a newline of its own (G)

    def end() -> str:
        """The pattern space's newline: none after a last line that had none (GNU sed)."""
        return "" if source.unterminated and not whole else "\n"

    while (read := source.read()) is not None:
        line = read
        k = source.number
        whole = False
        append_after: list[str] = []
        deleted = False
        skip_depth = 0
        for cmd in commands:
            if cmd["cmd"] == "}":
                if skip_depth:
                    skip_depth -= 1
                continue
            if skip_depth:
                if cmd["cmd"] == "{":
                    skip_depth += 1
                continue
            a1, a2 = cmd["a1"], cmd["a2"]
            if a1 is None:
                selected = True
            elif a2 is None:
                selected = matches(a1, k, line)
            else:
                if cmd["active"]:
                    selected = True
                    if (isinstance(a2, int) and k >= a2) or (
                        not isinstance(a2, int) and matches(a2, k, line)
                    ):
                        cmd["active"] = False
                elif matches(a1, k, line):
                    selected = True
                    cmd["active"] = not (isinstance(a2, int) and a2 <= k)
                else:
                    selected = False
            if cmd["neg"]:
                selected = not selected
            if not selected:
                if cmd["cmd"] == "{":
                    skip_depth = 1
                continue
            c = cmd["cmd"]
            if c == "s":
                rx: re.Pattern[str] = cmd["rx"]
                if cmd["count"] == 0:
                    new, num = rx.subn(cmd["rep"], line)
                else:
                    seen = 0

                    def repl(m: re.Match[str], cmd: dict[str, Any] = cmd) -> str:
                        nonlocal seen
                        seen += 1
                        return cmd["rep"](m) if seen == cmd["nth"] else m.group(0)

                    new = rx.sub(repl, line)
                    num = 1 if seen >= cmd["nth"] else 0
                if num:
                    line = new
                    if cmd["print"]:
                        out.append(line + end())
            elif c == "p":
                out.append(line + end())
            elif c == "P":
                out.append(line.split("\n")[0] + "\n")
            elif c == "d":
                deleted = True
                break
            elif c == "=":
                out.append(f"{k}\n")
            elif c == "a":
                append_after.append(cmd["text"] + "\n")
            elif c == "i":
                out.append(cmd["text"] + "\n")
            elif c == "c":
                out.append(cmd["text"] + "\n")
                deleted = True
                break
            elif c == "y":
                line = line.translate(cmd["table"])
            elif c == "h":
                hold = line
            elif c == "H":
                hold = hold + "\n" + line
            elif c == "g":
                line = hold
            elif c == "G":
                line = line + "\n" + hold
                whole = True
            elif c == "x":
                line, hold = hold, line
            elif c == "n":
                if not quiet:
                    out.append(line + end())
                if not source.last:
                    line = source.read() or ""
                    k = source.number
                else:
                    deleted = True
                    quiet = True
                    break
            elif c == "N":
                if not source.last:
                    line = line + "\n" + (source.read() or "")
                    k = source.number
            elif c == "w":
                try:
                    p.fs.append(p.path(cmd["file"]), line + "\n")
                except FsError:
                    pass
            elif c in "qQ":
                if c == "q" and not quiet:
                    out.append(line + end())
                out.extend(append_after)
                source.quit()
                return "".join(out), cmd["code"]
        if not deleted and not quiet:
            out.append(line + end())
        out.extend(append_after)
    return "".join(out), quit_code


@applet("sed")
def _u_sed(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "ne:f:Erisuz",
        {
            "quiet": "n",
            "silent": "n",
            "expression=": "e",
            "file=": "f",
            "regexp-extended": "E",
            "in-place": "i",
            "in-place=": "isuffix",
            "separate": "s",
            "posix": None,
            "debug": None,
            "null-data": "z",
        },
    )
    inplace_suffix = None
    args = list(p.args)
    for a in args:
        if a.startswith("-i") and len(a) > 2 and not a.startswith("--"):
            inplace_suffix = a[2:]
    scripts = list(opts.get("e", []))
    for f in opts.get("f", []):
        try:
            scripts.append(p.read(f))
        except FsError as exc:
            p.err(f"couldn't open file {f}: {exc.strerror}")
            return 1
    if not scripts:
        if not operands:
            p.ctx.err.write("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n")
            return 1
        scripts = [operands.pop(0)]
    try:
        commands = _sed_parse("\n".join(scripts), "E" in opts or "r" in opts)
    except _SedError as exc:
        p.err(str(exc))
        return 1
    quiet = "n" in opts
    inplace = "i" in opts or "isuffix" in opts or inplace_suffix is not None
    status = 0
    if inplace:
        if not operands:
            p.err("no input files")
            return 1
        for name in operands:
            path = p.path(name)
            try:
                if p.fs.is_dir(path):
                    p.err(f"couldn't edit {name}: not a regular file")
                    status = 4
                    continue
                text = p.fs.read_text(path)
            except FsError as exc:
                p.err(f"can't read {name}: {exc.strerror}")
                status = 2
                continue
            for cmd in commands:
                cmd["active"] = False
            result, _ = _sed_run(commands, text, quiet, p)
            suffix = inplace_suffix or _last(opts, "isuffix")
            if suffix:
                p.fs.write(path + suffix, text)
            p.fs.write(path, result)
        return status
    files = _SedFiles(p, operands or ["-"])
    stdin = p.ctx.stdin
    give_back = stdin.put_back if (operands or ["-"]) == ["-"] and stdin.seekable else None
    result, code = _sed_run(commands, _SedInput(files, give_back), quiet, p)
    p.out(result)
    return code if code is not None else files.status


class _SedFiles:
    """The lines of sed's input files, one stream, read as sed asks for them (a file whose last
    line has no newline gets one when another file follows); ``status`` 2 if one was unreadable."""

    def __init__(self, p: _Proc, names: list[str]) -> None:
        self.p = p
        # paths now: reading happens as the script runs
        self.names = [(name, None if name == "-" else p.path(name)) for name in names]
        self.status = 0

    def __iter__(self) -> Iterator[str]:
        p = self.p
        for index, (name, path) in enumerate(self.names):
            try:
                if path is not None and p.fs.is_dir(path):
                    p.err(f"read error on {name}: Is a directory")
                    self.status = 2
                    continue
                # stdin as sed reads it: blocks from a pipe, exact lines from a file (sed q seeks back)
                lines = p.ctx.stdin.blocks(CHUNK) if path is None else _split_lines([p.read_path(path)])
            except FsError as exc:
                p.err(f"can't read {name}: {exc.strerror}")
                self.status = 2
                continue
            for line in lines:
                if not line.endswith("\n") and self._more_after(index):
                    line += "\n"  # only a last line lacks one
                yield line

    def _more_after(self, index: int) -> bool:
        """Whether a file after the ``index``th will be read (its lines follow this one's)."""
        return any(path is None or self.p.fs.is_file(path) for _, path in self.names[index + 1 :])

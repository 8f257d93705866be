"""awk as Ubuntu 24.04 has it: mawk 1.3.4 20240123 (its options, messages, number output and
array order): patterns and ranges, BEGIN/END, fields, ``-F``, ``-v``, ``-f``, ``-W``, printf,
arrays, user functions, the built-in functions, getline, output redirection and pipes,
``system()``. Regular expressions run on the offline world's linear-time engine; every
statement, record and string is counted against the step's work and memory budget.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...applet_io import from_host, to_host
from ...registry import applet
from .interp import Awk
from .lexer import AwkSyntaxError, unescape
from .parse import parse
from .values import AwkFatal, to_num, to_str

if TYPE_CHECKING:
    from ...proc import _Proc

_VERSION = """\
mawk 1.3.4 20240123
Copyright 2008-2023,2024, Thomas E. Dickey
Copyright 1991-1996,2014, Michael D. Brennan

random-funcs:       srandom/random
regex-funcs:        internal

compiled limits:
sprintf buffer      8192
maximum-integer     9223372036854775808
"""

_USAGE = """\
Usage: mawk [Options] [Program] [file ...]

Program:
    The -f option value is the name of a file containing program text.
    If no -f option is given, a "--" ends option processing; the following
    parameters are the program text.

Options:
    -f program-file  Program  text is read from file instead of from the
                     command-line.  Multiple -f options are accepted.
    -F value         sets the field separator, FS, to value.
    -v var=value     assigns value to program variable var.
    --               unambiguous end of options.

    Implementation-specific options are prefixed with "-W".  They can be
    abbreviated:

    -W version       show version information and exit.
    -W compat        pre-POSIX 2001.
    -W dump          show assembler-like listing of program and exit.
    -W help          show this message and exit.
    -W interactive   set unbuffered output, line-buffered input.
    -W exec file     use file as program as well as last option.
    -W posix         stricter POSIX checking.
    -W random=number set initial random seed.
    -W sprintf=number adjust size of sprintf buffer.
    -W usage         show this message and exit.
"""

#: mawk's -W options (any prefix names one, the first in this order that it begins)
_W_OPTIONS = ("version", "compat", "dump", "help", "interactive", "exec", "posix", "random", "sprintf",
              "usage", "traditional", "repetitions")  # fmt: skip
#: gawk's long options mawk takes as its own
_LONG = {"--version": "version", "--help": "help", "--usage": "usage", "--posix": "posix",
         "--traditional": "traditional", "--re-interval": "repetitions", "-r": "repetitions",
         "--lint": "posix", "--lint-old": "posix"}  # fmt: skip


def _w_option(word: str) -> str | None:
    name = word.split("=", 1)[0].lstrip("-")
    for known in _W_OPTIONS:
        if name and known.startswith(name):
            return known
    return None


@applet("awk", "mawk", "nawk")
def _u_awk(p: _Proc) -> int:
    """mawk 1.3.4 20240123, Ubuntu 24.04's awk (``awk`` and ``nawk`` are links to it)."""
    p.name = p.name.rsplit("/", 1)[-1]  # mawk names itself by its file's name
    args = list(p.args)
    fs: str | None = None
    assigns: list[tuple[str, str]] = []
    sources: list[tuple[str, str]] = []  # (file name, text)
    err = p.ctx.err

    def refuse(message: str) -> int:
        err.write(to_host(f"{p.name}: {message}\n"))
        return 2

    if not args:
        err.write(_USAGE)
        return 0
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        w_option = None
        if a in _LONG or a.split("=")[0] in _LONG:
            w_option = _LONG[a.split("=")[0]]
        elif a.startswith("-W"):
            value = a[2:]
            if not value:
                if i + 1 >= len(args):
                    return refuse("option -W lacks argument")
                i += 1
                value = args[i]
            w_option = _w_option(value)
            if w_option is None:
                err.write(f"{p.name}: vacuous option: -W {value}\n")
                i += 1
                continue
        if w_option is not None:
            if w_option == "version":
                p.out(_VERSION)
                return 0
            if w_option in ("help", "usage"):
                p.out(_USAGE)
                return 0
            if w_option == "dump":
                return refuse("-W dump is not simulated in the offline world")
            if w_option == "exec":
                if i + 1 >= len(args):
                    return refuse("option -W exec lacks argument")
                a, args = "-f", [*args[: i + 1], args[i + 1], "--", *args[i + 2 :]]
            else:
                i += 1
                continue
        opt, value = a[:2], a[2:]
        if opt not in ("-F", "-v", "-f"):
            return refuse(f"not an option: {a}")
        if not value:
            if i + 1 >= len(args):
                return refuse(f"option {opt} lacks argument")
            i += 1
            value = args[i]
        if opt == "-F":
            fs = from_host(unescape(value))
        elif opt == "-v":
            name, eq, val = value.partition("=")
            if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                return refuse(f"improper assignment: -v {value}")
            assigns.append((name, unescape(val)))
        else:
            try:
                sources.append((value, p.read(value)))
            except FsError as exc:
                return refuse(f'cannot open "{value}" ({exc.strerror})')
        i += 1
    operands = args[i:]
    if not sources:
        if not operands:
            err.write(_USAGE)
            return 2
        sources.append(("", operands.pop(0)))
    # mawk reads the program with a newline after it (so its end is on the line after the last)
    src = from_host("\n".join(text for _, text in sources) + "\n")
    where = f"{sources[0][0]}: " if len(sources) == 1 and sources[0][0] else ""
    try:
        prog = parse(src)
    except AwkSyntaxError as exc:
        for message in exc.messages:
            err.write(to_host(f"{p.name}: {where}{message}\n"))
        return 2
    except RecursionError:
        return refuse("program nested too deeply")
    awk = Awk(p, prog, [p.name, *operands], assigns)
    if fs is not None:
        awk.globals["FS"] = fs
    try:
        return awk.run()
    except AwkFatal as exc:
        if not exc.runtime:
            return refuse(exc.message)
        message = exc.message
    except TypeError as exc:  # an array where a value belongs, found only as it runs
        message = str(exc)
    except RecursionError:
        message = "function call nesting too deep"
    filename = to_str(awk.globals["FILENAME"])
    nr, fnr = (int(to_num(awk.globals[k])) for k in ("NR", "FNR"))
    err.write(to_host(f'{p.name}: run time error: {message}\n\tFILENAME="{filename}" FNR={fnr} NR={nr}\n'))
    return 2

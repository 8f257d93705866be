"""``getopts OPTSTRING NAME [ARG ...]`` as bash 5.2 parses options.

Each call takes the next option from ``ARG``s (the positional parameters when there are none),
sets ``NAME`` to it and ``OPTIND`` to the index of the next word, and returns 1 once the options
end (at ``--``, a word not starting with ``-``, a lone ``-`` or the last word; ``NAME`` is then
``?``). Bundled options (``-abc``) are taken one per call; ``OPTIND`` moves only past a finished
word, so the position inside a word is kept by the shell, as bash keeps it, and forgotten when
anything else assigns ``OPTIND`` (``OPTIND=1`` starts over). An option that takes an argument
(``b:``) gets the rest of its word or the next word in ``OPTARG``; ``OPTARG`` is unset otherwise.

A bad option or a missing argument sets ``NAME`` to ``?`` and prints ``$0: illegal option -- c``
or ``$0: option requires an argument -- c`` (nothing when ``OPTERR`` is 0). With a leading ``:``
in ``OPTSTRING`` nothing is printed, ``OPTARG`` is the option's letter and a missing argument
sets ``NAME`` to ``:``.
"""

from __future__ import annotations

import re
from typing import Any

from ..names import _valid_name
from ..proc import _Proc
from ..registry import builtin

_USAGE = "getopts: usage: getopts optstring name [arg ...]\n"
_ATOI = re.compile(r"\s*([-+]?\d+)")


class _Bound(str):
    """An ``OPTIND`` value that ``getopts`` wrote: any other assignment stores a plain ``str``,
    which is how the next call knows that ``OPTIND`` was set by hand and starts over."""

    __slots__ = ()


@builtin("getopts")
def _b_getopts(p: _Proc) -> int:
    args = list(p.args)
    if args and args[0] == "--":
        args.pop(0)
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        p.shell_err(f"getopts: -{args[0][1]}: invalid option")
        p.ctx.err.write(_USAGE)
        return 2
    if len(args) < 2:
        p.ctx.err.write(_USAGE)
        return 2
    vm = p.vm
    optstring, name, words = args[0], args[1], args[2:]
    argv = [vm.argv0, *(words if words else vm.positional)]
    silent = optstring.startswith(":")
    if silent:
        optstring = optstring[1:]
    opterr = vm.vars.get("OPTERR")
    report = not silent and (not opterr or _atoi(opterr) != 0)
    scan = _Scan(argv, *_state(vm))
    found = scan.next(optstring)
    if scan.trouble and report:
        p.ctx.err.write(f"{vm.argv0}: {scan.trouble} -- {scan.letter}\n")
    optind = scan.optind
    bound = _Bound(optind)
    vm.vars["OPTIND"] = bound
    vm.__dict__["_getopts"] = (bound, optind, scan.curopt, scan.charindex)
    if found is None:
        return _bind(p, name, "?", None) or 1
    if scan.trouble:  # a missing argument is `:` only to a silent getopts
        kind = ":" if silent and scan.optarg == "" else "?"
        return _bind(p, name, kind, scan.letter if silent else None)
    return _bind(p, name, found, scan.optarg)


class _Scan:
    """bash's ``sh_getopt`` over ``argv`` (``argv[0]`` is ``$0``): ``optind`` the next word,
    ``argv[curopt][charindex:]`` what is left of a bundle (``charindex`` None: nothing)."""

    def __init__(self, argv: list[str], optind: int, curopt: int, charindex: int | None) -> None:
        self.argv, self.optind, self.curopt, self.charindex = argv, optind, curopt, charindex
        self.letter = ""
        self.optarg: str | None = None
        self.trouble = ""  # what is wrong with the option, in bash's words

    def next(self, optstring: str) -> str | None:
        """The next option's letter, or None at the end of the options; ``trouble`` says when
        it is not in ``optstring`` or misses its argument (``optarg`` then empty)."""
        argv, argc = self.argv, len(self.argv)
        if self.optind >= argc or self.optind < 0:
            self.optind = argc
            return None
        if self.optind == 0:
            self.optind, self.charindex = 1, None
        word = argv[self.curopt] if self.charindex is not None and self.curopt < argc else ""
        if self.charindex is None or self.charindex >= len(word):
            if self.optind >= argc:
                return None
            word = argv[self.optind]
            if word == "--":
                self.optind += 1
                return None
            if not word.startswith("-") or word == "-":
                return None
            self.curopt, self.charindex = self.optind, 1
        self.letter = letter = word[self.charindex]
        self.charindex += 1
        if self.charindex >= len(word):
            self.optind, self.charindex = self.optind + 1, None
        at = optstring.find(letter)
        if at < 0 or letter == ":":
            self.trouble = "illegal option"
            return letter
        if optstring[at + 1 : at + 2] != ":":
            return letter
        if self.charindex is not None:
            self.optarg = word[self.charindex :]
            self.optind += 1
        elif self.optind == argc:
            self.optarg = ""
            self.trouble = "option requires an argument"
        else:
            self.optarg = argv[self.optind]
            self.optind += 1
        self.charindex = None
        return letter


def _state(vm: Any) -> tuple[int, int, int | None]:
    """Where the last call left off, unless ``OPTIND`` was assigned since (or never by us)."""
    kept = vm.__dict__.get("_getopts")
    value = vm.vars.get("OPTIND")
    if kept is not None and value is kept[0]:
        return kept[1], kept[2], kept[3]
    start = _atoi(value) if value else 0
    return (0 if start < 0 or start == 1 else start), 0, None


def _atoi(text: str) -> int:
    m = _ATOI.match(text)
    return int(m.group(1)) if m else 0


def _bind(p: _Proc, name: str, value: str, optarg: str | None) -> int:
    vm = p.vm
    if not _valid_name(name):
        p.shell_err(f"getopts: `{name}': not a valid identifier")
        return 1
    if vm._has_attr(name, "r"):
        p.shell_err(f"{name}: readonly variable")
        return 2
    vm._set_var(name, value)
    if optarg is None:
        vm.vars.pop("OPTARG", None)
    else:
        vm._set_var("OPTARG", optarg)
    return 0

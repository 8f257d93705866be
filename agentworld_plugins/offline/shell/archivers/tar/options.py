"""GNU tar's command line: the old bundled form (``tar xzf a.tgz``), short clusters, long options."""

from __future__ import annotations

from dataclasses import dataclass, field

#: short options that take a value (the next argument in the bundled form)
_VALUED = {"f": "file", "C": "directory", "X": "exclude-from", "T": "files-from"}
_FLAGS = {
    "c": "create", "x": "extract", "t": "list", "v": "verbose", "z": "gzip", "j": "bzip2",
    "J": "xz", "a": "auto-compress", "O": "to-stdout", "k": "keep-old-files", "p": "preserve-permissions",
    "P": "absolute-names", "h": "dereference", "m": "touch", "o": "no-same-owner",
}  # fmt: skip
_LONG_FLAGS = {
    "create", "extract", "get", "list", "verbose", "gzip", "gunzip", "ungzip", "bzip2", "xz",
    "auto-compress", "to-stdout", "keep-old-files", "preserve-permissions", "same-permissions",
    "absolute-names", "dereference", "touch", "no-same-owner", "same-owner", "no-same-permissions",
    "overwrite", "wildcards", "no-wildcards", "no-recursion", "recursion", "numeric-owner",
    "totals", "skip-old-files", "unlink-first", "show-transformed-names",
}  # fmt: skip
_LONG_VALUED = {"file", "directory", "exclude", "exclude-from", "files-from", "strip-components",
                "sort", "owner", "group", "mode", "mtime"}  # fmt: skip
_ALIASES = {"get": "extract", "gunzip": "gzip", "ungzip": "gzip", "same-permissions": "preserve-permissions",
            "strip": "strip-components"}  # fmt: skip


class TarUsage(Exception):
    """A command line GNU tar refuses (usage text follows); ``message`` is the first line."""

    def __init__(self, message: str, hint: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class TarFatal(Exception):
    """An error after which GNU tar stops (``Error is not recoverable: exiting now``), status 2."""


class NotSimulated(Exception):
    """An option tar has but this simulation does not implement."""


@dataclass
class TarOptions:
    function: str | None = None
    archive: str = "-"
    verbose: int = 0
    compress: str | None = None
    auto: bool = False
    to_stdout: bool = False
    keep_old: bool = False
    skip_old: bool = False
    absolute: bool = False
    dereference: bool = False
    touch: bool = False
    wildcards: bool = False
    recursion: bool = True
    numeric: bool = False
    strip: int = 0
    owner: str | None = None
    #: ``--mtime=DATE`` (or a file whose mtime it takes): every member's mtime when creating
    mtime: str | None = None
    group: str | None = None
    excludes: list[str] = field(default_factory=list)
    #: --exclude given after the operands: positional, so of no effect in create mode
    late_excludes: list[str] = field(default_factory=list)
    exclude_files: list[str] = field(default_factory=list)
    files_from: list[str] = field(default_factory=list)
    #: operands in order, with the -C directory each was given under (None: the cwd)
    names: list[tuple[str | None, str]] = field(default_factory=list)
    directory: str | None = None


def _set_function(o: TarOptions, name: str) -> None:
    short = {"create": "c", "extract": "x", "list": "t"}[name]
    if o.function is not None and o.function != short:
        raise TarUsage("You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option")
    o.function = short


def _apply(o: TarOptions, name: str, value: str | None) -> None:
    name = _ALIASES.get(name, name)
    if name in ("create", "extract", "list"):
        _set_function(o, name)
    elif name == "verbose":
        o.verbose += 1
    elif name in ("gzip", "bzip2", "xz"):
        o.compress = name
    elif name == "auto-compress":
        o.auto = True
    elif name == "file":
        o.archive = value or "-"
    elif name == "directory":
        o.directory = value
    elif name == "exclude":
        (o.late_excludes if o.names else o.excludes).append(value or "")
    elif name == "exclude-from":
        o.exclude_files.append(value or "")
    elif name == "files-from":
        o.files_from.append(value or "")
    elif name == "strip-components":
        if not (value or "").isdigit():
            raise TarUsage(f"{value}: Invalid number of elements")
        o.strip = int(value or "0")
    elif name == "sort":
        if value not in ("name", "none"):
            raise NotSimulated()
    elif name in ("owner", "group"):
        setattr(o, name, (value or "").lstrip("+").split(":")[0])
    elif name == "mtime":
        o.mtime = value
    elif name == "mode":
        raise NotSimulated()
    else:
        flags = {"to-stdout": "to_stdout", "keep-old-files": "keep_old", "skip-old-files": "skip_old",
                 "absolute-names": "absolute", "dereference": "dereference", "touch": "touch",
                 "wildcards": "wildcards", "numeric-owner": "numeric"}  # fmt: skip
        if name in flags:
            setattr(o, flags[name], True)
        elif name == "no-wildcards":
            o.wildcards = False
        elif name in ("no-recursion", "recursion"):
            o.recursion = name == "recursion"
        elif name == "totals":
            raise NotSimulated()
        # overwrite, unlink-first, (no-)same-owner/permissions: what root's tar does anyway


class TarVersion(Exception):
    """``--version``."""


#: ``tar --version`` of Ubuntu 24.04's GNU tar
VERSION = """tar (GNU tar) 1.35
Copyright (C) 2023 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by John Gilmore and Jay Fenlason.
"""


def _long(o: TarOptions, arg: str, rest: list[str]) -> None:
    name, eq, value = arg[2:].partition("=")
    if len(name) >= 4 and "version".startswith(name):  # --v, --ve: ambiguous with --verbose
        raise TarVersion()
    known = _LONG_FLAGS | _LONG_VALUED | set(_ALIASES)
    candidates = [k for k in known if k == name] or [k for k in known if k.startswith(name)]
    if not candidates:
        raise NotSimulated()
    key = candidates[0]
    takes = _ALIASES.get(key, key) in _LONG_VALUED
    if takes and not eq:
        if not rest:
            raise TarUsage(f"option '--{key}' requires an argument")
        value = rest.pop(0)
    elif not takes and eq:
        raise TarUsage(f"option '--{key}' doesn't allow an argument")
    _apply(o, key, value if takes else None)


def _short(o: TarOptions, arg: str, rest: list[str]) -> None:
    j = 1
    while j < len(arg):
        c = arg[j]
        if c in _VALUED:
            value = arg[j + 1 :]
            if not value:
                if not rest:
                    raise TarUsage(f"option requires an argument -- '{c}'")
                value = rest.pop(0)
            _apply(o, _VALUED[c], value)
            return
        if c not in _FLAGS:
            raise NotSimulated()
        _apply(o, _FLAGS[c], None)
        j += 1


def parse(args: list[str]) -> TarOptions:
    """The options of a tar command line; raises :class:`TarUsage` or :class:`NotSimulated`."""
    args = list(args)
    if args and not args[0].startswith("-"):  # the old form: letters, their values after them
        letters, rest = args[0], args[1:]
        expanded = []
        for c in letters:
            expanded.append("-" + c)
            if c in _VALUED:
                if not rest:
                    raise TarUsage(f"Old option '{c}' requires an argument.")
                expanded.append(rest.pop(0))
        args = expanded + rest
    o = TarOptions()
    while args:
        a = args.pop(0)
        if a == "--":
            o.names.extend((o.directory, n) for n in args)
            break
        if a.startswith("--"):
            _long(o, a, args)
        elif a.startswith("-") and a != "-":
            _short(o, a, args)
        else:
            o.names.append((o.directory, a))
    return o

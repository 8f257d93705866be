"""type, command and hash: how bash would run a name, and the paths it remembers."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...vfs import FileNode, FsError
from ..builtin_options import enabled_builtin, scan_options
from ..funcprint import definition
from ..options import shopt_on
from ..pipes import delegating
from ..registry import BUILTINS, builtin
from ..simple import RESERVED

if TYPE_CHECKING:
    from ..proc import _Proc

#: what ``type`` calls a shell keyword: the reserved words and the ones that stand alone
_KEYWORDS = RESERVED | {"!", "[[", "]]", "{", "}"}
#: the PATH ``command -p`` searches (glibc's ``confstr(_CS_PATH)``)
_STANDARD_PATH = "/bin:/usr/bin"
_TYPE_USAGE = "type: usage: type [-afptP] name [name ...]\n"
_HASH_USAGE = "hash: usage: hash [-lr] [-p pathname] [-dt] [name ...]\n"


@dataclass
class _Found:
    """One way a name would run: ``kind`` as ``type -t`` says it, ``text`` as ``type`` does."""

    kind: str
    text: str
    path: str | None = None


def _executable(p: _Proc, path: str) -> bool:
    try:
        node = p.fs.stat(p.fs.normalize(path, p.vm.cwd))
    except FsError:
        return False
    return isinstance(node, FileNode) and bool(node.mode & 0o111)


def _all_on_path(p: _Proc, name: str, search: str) -> list[str]:
    """Every executable ``name`` in the folders of ``search``, in order (``type -a``)."""
    found = []
    for folder in search.split(":"):
        path = posixpath.join(folder or ".", name)
        if _executable(p, path):
            found.append(path)
    return found


def _file(p: _Proc, name: str, every: bool) -> list[_Found]:
    if "/" in name:
        return [_Found("file", f"{name} is {name}", name)] if _executable(p, name) else []
    if not every:
        hashed = p.vm.command_hash().search(name)
        if hashed is not None:
            return [_Found("file", f"{name} is hashed ({hashed})", hashed)]
        path = p.vm.find_in_path(name)
        return [_Found("file", f"{name} is {path}", path)] if path else []
    return [
        _Found("file", f"{name} is {path}", path) for path in _all_on_path(p, name, p.vm.vars.get("PATH", ""))
    ]


def describe(p: _Proc, name: str, *, every: bool = False, functions: bool = True) -> list[_Found]:
    """What ``name`` is, first the one that runs (``every``: all of them, as ``type -a``)."""
    vm = p.vm
    found: list[_Found] = []
    if name in vm.aliases and shopt_on(vm, "expand_aliases"):  # bash looks aliases up only then
        found.append(_Found("alias", f"{name} is aliased to `{vm.aliases[name]}'"))
    if name in _KEYWORDS:
        found.append(_Found("keyword", f"{name} is a shell keyword"))
    if functions and name in vm.functions:
        text = definition(name, *vm.functions[name])
        if text is None:  # a body with compound commands: bash's layout of it is not simulated
            p.unknown()
            text = ""
        found.append(_Found("function", f"{name} is a function\n{text}".rstrip("\n")))
    if enabled_builtin(p, name):
        found.append(_Found("builtin", f"{name} is a shell builtin"))
    if found and not every:
        return found[:1]
    return found + _file(p, name, every)


@builtin("type")
def _b_type(p: _Proc) -> int:
    parsed = scan_options(p, "afptP", _TYPE_USAGE, {"-type": "t", "-path": "p", "-all": "a"})
    if parsed is None:
        return 2
    letters, names = parsed
    every, path_only, force_path = "a" in letters, "p" in letters, "P" in letters
    status = 0
    for name in names:
        if force_path:
            found = _file(p, name, every)
        else:
            found = describe(p, name, every=every, functions="f" not in letters)
        if not found:
            if not ("t" in letters or path_only or force_path):
                p.shell_err(f"type: {name}: not found")
            status = 1
            continue
        for one in found:
            if "t" in letters:
                p.out(one.kind + "\n")
            elif path_only or force_path:
                if one.kind == "file":
                    p.out(f"{one.path}\n")
            else:
                p.out(one.text + "\n")
    return status


@builtin("command")
@delegating
def _b_command(p: _Proc) -> int:
    parsed = scan_options(p, "pvV", "command: usage: command [-pVv] command [arg ...]\n")
    if parsed is None:
        return 2
    letters, args = parsed
    verbose = [c for c in letters if c in "vV"]
    if verbose:
        return _command_v(p, args, verbose[-1] == "V", "p" in letters)
    if not args:
        return 0
    vm = p.vm
    if enabled_builtin(p, args[0]):
        return vm._call(BUILTINS[args[0]], args[0], args[1:], p.ctx)
    if "p" in letters and "/" not in args[0]:
        found = next(iter(_all_on_path(p, args[0], _STANDARD_PATH)), None)
    else:
        found = vm._hashed(args[0]) if "/" not in args[0] else vm.fs.normalize(args[0], vm.cwd)
    if found is None:
        p.shell_err(f"{args[0]}: command not found")
        return 127
    return vm._exec_path(found, args, p.ctx)


def _command_v(p: _Proc, names: list[str], verbose: bool, standard: bool) -> int:
    """``command -v`` (a word each: the path, the name, an alias to reuse) and ``-V`` (what
    ``type`` says); status 1 only when none is found."""
    vm = p.vm
    any_found = False
    for name in names:
        if standard and "/" not in name and name not in vm.functions and not enabled_builtin(p, name):
            found = [
                _Found("file", f"{name} is {path}", path) for path in _all_on_path(p, name, _STANDARD_PATH)
            ]
        else:
            found = describe(p, name)
        if not found:
            if verbose:
                p.shell_err(f"command: {name}: not found")
            continue
        any_found = True
        one = found[0]
        if verbose:
            p.out(one.text + "\n")
        elif one.kind == "alias":
            p.out(f"alias {name}='{vm.aliases[name]}'\n")
        else:
            p.out(f"{one.path if one.kind == 'file' else name}\n")
    return 0 if any_found else 1


@builtin("hash")
def _b_hash(p: _Proc) -> int:
    """``hash [-lr] [-p PATH] [-dt] [NAME ...]``: list, fill, empty or read bash's table of the
    commands found on ``PATH`` (:mod:`..hashtable`)."""
    letters, args, pathname = "", list(p.args), None
    while args and args[0].startswith("-") and args[0] != "-":
        word = args.pop(0)
        if word == "--":
            break
        for i, letter in enumerate(word[1:], 1):
            if letter not in "lrpdt":
                p.shell_err(f"hash: -{letter}: invalid option")
                p.ctx.err.write(_HASH_USAGE)
                return 2
            letters += letter
            if letter == "p":
                if word[i + 1 :] or args:
                    pathname = word[i + 1 :] or args.pop(0)
                    break
                p.shell_err("hash: -p: option requires an argument")
                p.ctx.err.write(_HASH_USAGE)
                return 2
    table = p.vm.command_hash()
    if "r" in letters:
        table.clear()
    if not args and ("d" in letters or "t" in letters):
        p.shell_err(f"hash: -{'d' if 'd' in letters else 't'}: option requires an argument")
        return 1
    if not args:
        if "r" in letters:
            return 0
        return _hash_list(p, "l" in letters)
    status = 0
    for name in args:
        if "t" in letters:
            path = table.search(name)
            if path is None:
                p.shell_err(f"hash: {name}: not found")
                status = 1
            elif "l" in letters:
                p.out(f"builtin hash -p {path} {name}\n")
            else:
                p.out(f"{name}\t{path}\n" if len(args) > 1 else f"{path}\n")
        elif "d" in letters:
            if not table.remove(name):
                p.shell_err(f"hash: {name}: not found")
                status = 1
        elif pathname is not None:
            if "/" not in name:
                table.insert(name, pathname, 0)
        elif "/" not in name and name not in p.vm.functions and not enabled_builtin(p, name):
            table.remove(name)
            path = p.vm.find_in_path(name)
            if path is None:
                p.shell_err(f"hash: {name}: not found")
                status = 1
            else:
                table.insert(name, path, 0)
    return status


def _hash_list(p: _Proc, reusable: bool) -> int:
    entries = p.vm.command_hash().listing()
    if not entries:
        p.out("hash: hash table empty\n")
        return 0
    if reusable:
        p.out("".join(f"builtin hash -p {entry.path} {name}\n" for name, entry in entries))
    else:
        p.out("hits\tcommand\n" + "".join(f"{entry.hits:4d}\t{entry.path}\n" for _, entry in entries))
    return 0

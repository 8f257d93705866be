"""builtin, enable, caller, times and the job-control builtins of a shell without job control
(fg, bg); the builtins bash has that only an interactive terminal uses are known by name and
flagged as not simulated (bind, compopt, fc, help, suspend)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..builtin_options import enabled_builtin, scan_options
from ..callstack import stack_array
from ..registry import BUILTINS, builtin

if TYPE_CHECKING:
    from ..proc import _Proc

#: the builtins POSIX calls special, as ``enable -s`` lists them
_SPECIAL = frozenset({
    ".", ":", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
    "shift", "source", "times", "trap", "unset",
})  # fmt: skip
_ENABLE_USAGE = "enable: usage: enable [-a] [-dnps] [-f filename] [name ...]\n"


@builtin("builtin")
def _b_builtin(p: _Proc) -> int:
    args = list(p.args)
    if args and args[0] == "--":
        args.pop(0)
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        p.shell_err(f"builtin: {args[0][:2]}: invalid option")
        p.ctx.err.write("builtin: usage: builtin [shell-builtin [arg ...]]\n")
        return 2
    if not args:
        return 0
    if not enabled_builtin(p, args[0]):
        p.shell_err(f"builtin: {args[0]}: not a shell builtin")
        return 1
    return p.vm._call(BUILTINS[args[0]], args[0], args[1:], p.ctx)


@builtin("enable")
def _b_enable(p: _Proc) -> int:
    """``enable [-a] [-nps] [NAME ...]``: turn builtins off (``-n``) and on, or list them as
    ``enable NAME`` / ``enable -n NAME`` lines in bash's order."""
    parsed = scan_options(p, "adnpsf", _ENABLE_USAGE)
    if parsed is None:
        return 2
    letters, args = parsed
    if "f" in letters or "d" in letters:  # loading builtins from shared objects
        return p.not_simulated()
    disabled: set[str] = p.vm.__dict__.setdefault("_disabled", set())
    if not args:
        for name in sorted(BUILTINS.keys() - {"[["}):  # bash's [[ is a keyword
            off = name in disabled
            if ("s" in letters and name not in _SPECIAL) or (
                off and "a" not in letters and "n" not in letters
            ):
                continue
            if "n" in letters and "a" not in letters and not off:
                continue
            p.out(f"enable {'-n ' if off else ''}{name}\n")
        return 0
    status = 0
    for name in args:
        if name not in BUILTINS or name == "[[":
            p.shell_err(f"enable: {name}: not a shell builtin")
            status = 1
        elif "n" in letters:
            disabled.add(name)
        else:
            disabled.discard(name)
    return status


@builtin("caller")
def _b_caller(p: _Proc) -> int:
    """``caller [N]``: the line and file of the current call (``LINE FILE``, ``NULL`` for no
    file), or of frame ``N`` (``LINE FUNCTION FILE``); status 1 past the outermost one."""
    vm = p.vm
    lines = stack_array(vm, "BASH_LINENO") or []
    sources = stack_array(vm, "BASH_SOURCE") or []
    if len(p.args) > 1 or not lines:
        return 1
    if not p.args:
        p.out(f"{lines[0]} {sources[1] if len(sources) > 1 else 'NULL'}\n")
        return 0
    word = p.args[0]
    if not word.isdigit():
        return 1
    depth = int(word)
    names = stack_array(vm, "FUNCNAME") or []
    if depth + 1 >= len(names) or depth + 1 >= len(sources):
        return 1
    p.out(f"{lines[depth]} {names[depth + 1]} {sources[depth + 1]}\n")
    return 0


@builtin("times")
def _b_times(p: _Proc) -> int:
    """The shell's and its children's user and system times: the offline world spends none."""
    p.out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
    return 0


@builtin("fg", "bg")
def _b_no_job_control(p: _Proc) -> int:
    """A shell that is not interactive has no job control, as bash says."""
    if p.vm.interactive:
        return p.not_simulated()
    p.shell_err(f"{p.name}: no job control")
    return 1


@builtin("bind", "compopt", "fc", "help", "suspend")
def _b_terminal_only(p: _Proc) -> int:
    return p.not_simulated()

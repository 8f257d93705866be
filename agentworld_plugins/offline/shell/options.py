"""The shell's options beyond the four the machine holds as attributes (errexit, nounset,
pipefail, xtrace): the other ``set -o`` options and bash 5.2's ``shopt`` options.

Each machine keeps the names that are on (``_set_options``, ``_shopt_options``, frozensets a
subshell restores); a machine without them (made, or pickled, before they existed) has bash's
defaults. Options the offline shell applies are listed in ``SIMULATED_SET`` and
``SIMULATED_SHOPT``; turning another one away from its default is accepted and noted as an unknown
effect, since what it changes is not simulated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import MachineState

#: bash 5.2's ``set -o`` names, in its order (the shim, a front that imports nothing, keeps its
#: own copy)
# fmt: off
SET_NAMES = (
    "allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
    "histexpand", "history", "ignoreeof", "interactive-comments", "keyword", "monitor",
    "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical",
    "pipefail", "posix", "privileged", "verbose", "vi", "xtrace",
)
# fmt: on
#: the one-letter ``set`` flags and the options they stand for
SET_LETTERS = {
    "a": "allexport",
    "b": "notify",
    "e": "errexit",
    "f": "noglob",
    "h": "hashall",
    "k": "keyword",
    "m": "monitor",
    "n": "noexec",
    "p": "privileged",
    "t": "onecmd",
    "u": "nounset",
    "v": "verbose",
    "x": "xtrace",
    "B": "braceexpand",
    "C": "noclobber",
    "E": "errtrace",
    "H": "histexpand",
    "P": "physical",
    "T": "functrace",
}  # fmt: skip
#: the ``set -o`` options held as the machine's attributes of the same name
ATTRIBUTE_OPTIONS = ("errexit", "nounset", "pipefail", "xtrace")
#: the other ``set -o`` options whose effect the offline shell simulates
SIMULATED_SET = frozenset({"allexport", "errtrace", "noclobber", "noglob"})
#: options that only change what an interactive terminal does (history, job control, editing):
#: no command's output depends on them here
_TERMINAL_SET = frozenset({"emacs", "histexpand", "history", "ignoreeof", "monitor", "notify", "vi", "nolog"})
_SET_ON = frozenset({"braceexpand", "hashall", "interactive-comments"})
_SET_ON_INTERACTIVE = _SET_ON | {"emacs", "histexpand", "history", "monitor"}

#: bash 5.2's ``shopt`` names, in its order
# fmt: off
SHOPT_NAMES = (
    "autocd", "assoc_expand_once", "cdable_vars", "cdspell", "checkhash", "checkjobs",
    "checkwinsize", "cmdhist", "compat31", "compat32", "compat40", "compat41", "compat42",
    "compat43", "compat44", "complete_fullquote", "direxpand", "dirspell", "dotglob", "execfail",
    "expand_aliases", "extdebug", "extglob", "extquote", "failglob", "force_fignore",
    "globasciiranges", "globskipdots", "globstar", "gnu_errfmt", "histappend", "histreedit",
    "histverify", "hostcomplete", "huponexit", "inherit_errexit", "interactive_comments",
    "lastpipe", "lithist", "localvar_inherit", "localvar_unset", "login_shell", "mailwarn",
    "no_empty_cmd_completion", "nocaseglob", "nocasematch", "noexpand_translation", "nullglob",
    "patsub_replacement", "progcomp", "progcomp_alias", "promptvars", "restricted_shell",
    "shift_verbose", "sourcepath", "varredir_close", "xpg_echo",
)
# fmt: on
_SHOPT_ON = frozenset(
    {
        "checkwinsize",
        "cmdhist",
        "complete_fullquote",
        "extquote",
        "force_fignore",
        "globasciiranges",
        "globskipdots",
        "hostcomplete",
        "interactive_comments",
        "patsub_replacement",
        "progcomp",
        "promptvars",
        "sourcepath",
    }
)  # fmt: skip
_SHOPT_ON_INTERACTIVE = _SHOPT_ON | {"expand_aliases"}
#: the shopt options whose effect the offline shell simulates (the defaults it already follows:
#: globasciiranges, globskipdots, interactive_comments, patsub_replacement, extquote, sourcepath)
SIMULATED_SHOPT = frozenset({
    "checkhash", "dotglob", "expand_aliases", "failglob", "globstar", "nocaseglob", "nocasematch", "nullglob",
    "xpg_echo", "lastpipe",
})  # fmt: skip
#: shopt options that only change an interactive terminal (completion, history, prompts, job
#: control, mail, window size) or that bash does not let a script set
_TERMINAL_SHOPT = frozenset({
    "autocd", "cdspell", "checkjobs", "checkwinsize", "cmdhist", "complete_fullquote",
    "direxpand", "dirspell", "force_fignore", "histappend", "histreedit", "histverify",
    "hostcomplete", "huponexit", "lithist", "mailwarn", "no_empty_cmd_completion", "progcomp",
    "progcomp_alias", "promptvars",
})  # fmt: skip
#: shopt options bash shows but refuses to change
READ_ONLY_SHOPT = frozenset({"login_shell", "restricted_shell"})


def set_options(vm: MachineState) -> frozenset[str]:
    """The ``set -o`` options that are on, the attribute ones included."""
    held = vm.__dict__.get("_set_options")
    if held is None:
        held = _SET_ON_INTERACTIVE if vm.interactive else _SET_ON
    return held | {name for name in ATTRIBUTE_OPTIONS if getattr(vm, name)}


def set_option(vm: MachineState, name: str, on: bool) -> bool:
    """Turn a ``set -o`` option on or off; False where its effect is not simulated (and it
    changed from bash's default), for the caller to note."""
    if name in ATTRIBUTE_OPTIONS:
        setattr(vm, name, on)
        return True
    held = set_options(vm) - set(ATTRIBUTE_OPTIONS)
    vm.__dict__["_set_options"] = frozenset(held | {name} if on else held - {name})
    default = name in (_SET_ON_INTERACTIVE if vm.interactive else _SET_ON)
    return name in SIMULATED_SET or name in _TERMINAL_SET or on == default


def shopt_options(vm: MachineState) -> frozenset[str]:
    """The shopt options that are on."""
    held = vm.__dict__.get("_shopt_options")
    if held is None:
        return _SHOPT_ON_INTERACTIVE if vm.interactive else _SHOPT_ON
    return held  # type: ignore[no-any-return]


def shopt_on(vm: MachineState, name: str) -> bool:
    return name in shopt_options(vm)


def set_on(vm: MachineState, name: str) -> bool:
    """Whether a ``set -o`` option outside the attribute ones is on."""
    held = vm.__dict__.get("_set_options")
    if held is None:
        held = _SET_ON_INTERACTIVE if vm.interactive else _SET_ON
    return name in held


def set_shopt(vm: MachineState, name: str, on: bool) -> bool:
    """Turn a shopt option on or off; False where its effect is not simulated (and it changed
    from bash's default)."""
    held = shopt_options(vm)
    vm.__dict__["_shopt_options"] = frozenset(held | {name} if on else held - {name})
    default = name in (_SHOPT_ON_INTERACTIVE if vm.interactive else _SHOPT_ON)
    return name in SIMULATED_SHOPT or name in _TERMINAL_SHOPT or on == default


def new_process(vm: MachineState, given: frozenset[str] | set[str]) -> None:
    """A new bash (``bash -c``, a script): a non-interactive shell's defaults, with the options
    ``given`` on its command line (``set -o`` names, and ``shopt:NAME`` for ``-O NAME``); none of
    this shell's own is inherited."""
    vm.__dict__["_set_options"] = frozenset(_SET_ON | (set(given) & set(SET_NAMES)) - set(ATTRIBUTE_OPTIONS))
    shopts = {name[6:] for name in given if name.startswith("shopt:")}
    vm.__dict__["_shopt_options"] = _SHOPT_ON | frozenset(shopts)
    if not all(name in SIMULATED_SHOPT or name in _TERMINAL_SHOPT for name in shopts - _SHOPT_ON):
        vm._unknown.append("bash -O " + " ".join(sorted(shopts)))


def simulated_set(name: str) -> bool:
    """Whether turning the ``set -o`` option on, in a new non-interactive bash, is simulated."""
    return name in ATTRIBUTE_OPTIONS or name in SIMULATED_SET or name in _TERMINAL_SET or name in _SET_ON


def saved(vm: MachineState) -> tuple[object, object]:
    """What a subshell puts back as it ends."""
    return vm.__dict__.get("_set_options"), vm.__dict__.get("_shopt_options")


def restore(vm: MachineState, kept: tuple[object, object]) -> None:
    for key, value in zip(("_set_options", "_shopt_options"), kept):
        if value is None:
            vm.__dict__.pop(key, None)
        else:
            vm.__dict__[key] = value

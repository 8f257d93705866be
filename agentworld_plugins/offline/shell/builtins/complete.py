"""compgen and complete: the completions bash would offer for a word, and the completion
specifications it keeps (``complete -p`` lists them as bash does, in its table's order).

``compgen`` answers the actions (``-a -b -c -d -e -f -g -j -k -s -u -v``, ``-A NAME``), ``-W``
word lists (expanded and split as bash does), ``-X`` filters, ``-P`` / ``-S``; ``-F``, ``-C``,
``-G`` and ``-o`` need a line being edited and are flagged as not simulated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..builtin_options import enabled_builtin
from ..hashtable import fnv1
from ..options import SET_NAMES, SHOPT_NAMES
from ..patterns import glob_regex
from ..registry import BUILTINS, builtin
from ..signals import SIGNALS

if TYPE_CHECKING:
    from ..proc import _Proc

#: the reserved words in bash's own order (``compgen -k``)
_KEYWORDS = (
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
)  # fmt: skip
_LETTERS = {
    "a": "alias", "b": "builtin", "c": "command", "d": "directory", "e": "export", "f": "file",
    "g": "group", "j": "job", "k": "keyword", "s": "service", "u": "user", "v": "variable",
}  # fmt: skip
#: every action ``-A`` takes, in the order bash generates them
_ACTIONS = (
    "alias", "arrayvar", "binding", "builtin", "command", "directory", "disabled", "enabled",
    "export", "file", "function", "group", "helptopic", "hostname", "job", "keyword", "running",
    "service", "setopt", "shopt", "signal", "stopped", "user", "variable",
)  # fmt: skip
_OPTION_NAMES = (
    "bashdefault",
    "default",
    "dirnames",
    "filenames",
    "noquote",
    "nosort",
    "nospace",
    "plusdirs",
)
_VALUED = "oAGWFCXPS"
_COMPGEN_USAGE = (
    "compgen: usage: compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] "
    "[-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]\n"
)
_COMPLETE_USAGE = (
    "complete: usage: complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] "
    "[-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]\n"
)
#: the buckets of bash's table of completion specifications
_SPEC_BUCKETS = 512
#: the names bash keeps ``-D`` (default), ``-E`` (empty line) and ``-I`` (first word) under
_SPECIAL_KEYS = {"D": "_DefaultCmD_", "E": "_EmptycmD_", "I": "_InitialWorD_"}
_SHOWN_AS = {key: f"-{flag}" for flag, key in _SPECIAL_KEYS.items()}


class _Spec:
    """One completion specification: its actions, ``-o`` options and valued options."""

    def __init__(self) -> None:
        self.actions: list[str] = []
        self.options: list[str] = []
        self.values: dict[str, str] = {}

    def text(self, name: str) -> str:
        """``complete -p``'s line for it."""
        parts = ["complete"]
        parts += [f"-o {o}" for o in _OPTION_NAMES if o in self.options]
        short = {action: letter for letter, action in _LETTERS.items()}
        parts += [f"-{short[a]}" for a in sorted(self.actions, key=_ACTIONS.index) if a in short]
        parts += [f"-A {a}" for a in sorted(self.actions, key=_ACTIONS.index) if a not in short]
        for letter in "GWPSXC":
            if letter in self.values:
                parts.append(f"-{letter} {_single_quoted(self.values[letter])}")
        if "F" in self.values:
            parts.append(f"-F {self.values['F']}")
        return " ".join([*parts, name])


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _parse(p: _Proc, flags: str, usage: str) -> tuple[_Spec, set[str], list[str]] | None:
    """bash's scan of compgen's / complete's options: the spec, the other flags seen
    (``flags``: those allowed), the remaining words; None after an error (said)."""
    spec, seen, args = _Spec(), set(), list(p.args)
    while args and args[0].startswith("-") and args[0] != "-":
        word = args.pop(0)
        if word == "--":
            break
        i = 1
        while i < len(word):
            letter = word[i]
            i += 1
            if letter in _LETTERS:
                spec.actions.append(_LETTERS[letter])
            elif letter in _VALUED:
                value = word[i:] or (args.pop(0) if args else None)
                if value is None:
                    p.shell_err(f"{p.name}: -{letter}: option requires an argument")
                    p.ctx.err.write(usage)
                    return None
                if not _take_value(p, spec, letter, value):
                    return None
                break
            elif letter in flags:
                seen.add(letter)
            else:
                p.shell_err(f"{p.name}: -{letter}: invalid option")
                p.ctx.err.write(usage)
                return None
    return spec, seen, args


def _take_value(p: _Proc, spec: _Spec, letter: str, value: str) -> bool:
    if letter == "o":
        if value not in _OPTION_NAMES:
            p.shell_err(f"{p.name}: {value}: invalid option name")
            return False
        spec.options.append(value)
    elif letter == "A":
        if value not in _ACTIONS:
            p.shell_err(f"{p.name}: {value}: invalid action name")
            return False
        spec.actions.append(value)
    else:
        spec.values[letter] = value
    return True


@builtin("compgen")
def _b_compgen(p: _Proc) -> int:
    parsed = _parse(p, "", _COMPGEN_USAGE)
    if parsed is None:
        return 2
    spec, _, args = parsed
    if spec.options or any(letter in spec.values for letter in "FCG") or "binding" in spec.actions:
        return p.not_simulated()  # they need readline and a line being completed
    if not spec.actions and not spec.values:
        return 0
    word = args[0] if args else ""
    found: list[str] = []
    for action in sorted(dict.fromkeys(spec.actions), key=_ACTIONS.index):
        found += [name for name in _GENERATORS[action](p, word) if name.startswith(word)]
    if "W" in spec.values:
        found += [w for w in _word_list(p, spec.values["W"]) if w.startswith(word)]
    if "X" in spec.values:
        found = _filtered(found, spec.values["X"])
    p.vm._budget.spend(1 + len(found))
    prefix, suffix = spec.values.get("P", ""), spec.values.get("S", "")
    p.out("".join(f"{prefix}{name}{suffix}\n" for name in found))
    return 0 if found else 1


def _filtered(names: list[str], pattern: str) -> list[str]:
    """``-X``: drop the names matching the pattern (``!PAT``: keep only those)."""
    keep = pattern.startswith("!")
    rx = glob_regex(pattern[1:] if keep else pattern)
    return [name for name in names if bool(rx.fullmatch(name)) == keep]


def _word_list(p: _Proc, text: str) -> list[str]:
    """``-W``'s words: split at ``$IFS`` outside quotes, then each expanded as a shell word."""
    ifs = p.vm.vars.get("IFS", " \t\n")
    words: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'" and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in ifs:
            if current:
                words.append("".join(current))
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    if current:
        words.append("".join(current))
    return [field for w in words for field in p.vm._expand_raw(w, p.ctx)]


def _entries(p: _Proc, folder: str) -> list[str]:
    try:
        return sorted(p.fs.listdir(p.fs.normalize(folder or ".", p.vm.cwd)))
    except FsError:
        return []


def _files(p: _Proc, word: str, dirs_only: bool = False) -> list[str]:
    folder, _, _ = word.rpartition("/")
    shown = folder + "/" if "/" in word else ""
    out = []
    for name in _entries(p, folder if "/" in word else ""):
        path = p.fs.normalize(shown + name, p.vm.cwd)
        if not dirs_only or p.fs.is_dir(path):
            out.append(shown + name)
    return out


def _commands(p: _Proc, word: str) -> list[str]:
    vm = p.vm
    found = sorted(vm.aliases) + list(_KEYWORDS) + sorted(vm.functions) + _builtins(p, True)
    if "/" in word:
        return [name for name in _files(p, word) if p.vm._executable(p.fs.normalize(name, vm.cwd))]
    for folder in vm.vars.get("PATH", "").split(":"):
        for name in _entries(p, folder):
            if name.startswith(word) and vm._executable(p.fs.normalize(f"{folder or '.'}/{name}", vm.cwd)):
                found.append(name)
    return found


def _builtins(p: _Proc, enabled: bool | None = None) -> list[str]:
    names = sorted(BUILTINS.keys() - {"[["})
    return [n for n in names if enabled is None or enabled_builtin(p, n) == enabled]


def _passwd(p: _Proc, path: str) -> list[str]:
    try:
        text = p.fs.read_text(path)
    except FsError:
        return []
    return [line.split(":", 1)[0] for line in text.splitlines() if line and not line.startswith("#")]


def _none(p: _Proc, word: str) -> list[str]:
    return []


def _variables(p: _Proc, word: str) -> list[str]:
    return sorted(set(p.vm.vars) | set(p.vm._arrays()))


_GENERATORS: dict[str, Callable[[_Proc, str], Iterable[str]]] = {
    "alias": lambda p, w: sorted(p.vm.aliases),
    "arrayvar": lambda p, w: sorted(p.vm._arrays()),
    "binding": _none,
    "builtin": lambda p, w: _builtins(p),
    "command": _commands,
    "directory": lambda p, w: _files(p, w, dirs_only=True),
    "disabled": lambda p, w: _builtins(p, False),
    "enabled": lambda p, w: _builtins(p, True),
    "export": lambda p, w: sorted(p.vm.exported & (set(p.vm.vars) | set(p.vm._arrays()))),
    "file": _files,
    "function": lambda p, w: sorted(p.vm.functions),
    "group": lambda p, w: _passwd(p, "/etc/group"),
    "helptopic": lambda p, w: _builtins(p),
    "hostname": _none,
    "job": _none,
    "keyword": lambda p, w: list(_KEYWORDS),
    "running": _none,
    "service": _none,
    "setopt": lambda p, w: list(SET_NAMES),
    "shopt": lambda p, w: list(SHOPT_NAMES),
    "signal": lambda p, w: [f"SIG{SIGNALS[n]}" for n in range(1, 32)],
    "stopped": _none,
    "user": lambda p, w: _passwd(p, "/etc/passwd"),
    "variable": _variables,
}


@builtin("complete")
def _b_complete(p: _Proc) -> int:
    parsed = _parse(p, "prDEI", _COMPLETE_USAGE)
    if parsed is None:
        return 2
    spec, seen, names = parsed
    table: dict[str, tuple[_Spec, int]] = p.vm.__dict__.setdefault("_completions", {})
    names += [_SPECIAL_KEYS[flag] for flag in "DEI" if flag in seen]
    if "r" in seen:
        return _remove(p, table, names)
    if "p" in seen or not names:
        return _print(p, table, names)
    order = max((at for _, at in table.values()), default=0)
    for k, name in enumerate(names, 1):
        table[name] = (spec, order + k)
    return 0


def _remove(p: _Proc, table: dict[str, tuple[_Spec, int]], names: list[str]) -> int:
    if not names:
        table.clear()
        return 0
    status = 0
    for name in names:
        if table.pop(name, None) is None:
            p.shell_err(f"complete: {name}: no completion specification")
            status = 1
    return status


def _print(p: _Proc, table: dict[str, tuple[_Spec, int]], names: list[str]) -> int:
    if not names:  # all of them, in the order bash walks its table
        names = sorted(table, key=lambda n: (fnv1(n) & (_SPEC_BUCKETS - 1), -table[n][1]))
    status = 0
    for name in names:
        if name not in table:
            p.shell_err(f"complete: {name}: no completion specification")
            status = 1
            continue
        p.out(table[name][0].text(_SHOWN_AS.get(name, name)) + "\n")
    return status

"""``git config``: get (``--get``, ``--get-all``, ``--get-regexp``), set, ``--add``, ``--unset``,
``--unset-all``, ``-l``/``--list`` (``--name-only``, ``--show-origin``, ``--show-scope``),
``--remove-section``, ``--type=bool|int`` (``--bool``, ``--int``), in the scopes ``--system``,
``--global``, ``--local``, ``--file``, and ``git -c`` for reading; git's statuses and messages."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ...regex import compile_regex
from .configfile import Entry, canonical, entries, parameters, remove_section, write_config
from .repo import GitError, Repo

if TYPE_CHECKING:
    from ...proc import _Proc

_ACTIONS = ("--get", "--get-all", "--get-regexp", "--unset", "--unset-all", "--add", "-l", "--list",
            "--remove-section")  # fmt: skip
_TRUE = ("true", "yes", "on", "1", "")
_FALSE = ("false", "no", "off", "0")


#: git config's usage (stderr, status 129)
_USAGE = (
    "usage: git config [<options>]\n"
    "\n"
    "Config file location\n"
    "    --global              use global config file\n"
    "    --system              use system config file\n"
    "    --local               use repository config file\n"
    "    --worktree            use per-worktree config file\n"
    "    -f, --file <file>     use given config file\n"
    "    --blob <blob-id>      read config from given blob object\n"
    "\n"
    "Action\n"
    "    --get                 get value: name [value-pattern]\n"
    "    --get-all             get all values: key [value-pattern]\n"
    "    --get-regexp          get values for regexp: name-regex [value-pattern]\n"
    "    --get-urlmatch        get value specific for the URL: section[.var] URL\n"
    "    --replace-all         replace all matching variables: name value [value-pattern]\n"
    "    --add                 add a new variable: name value\n"
    "    --unset               remove a variable: name [value-pattern]\n"
    "    --unset-all           remove all matches: name [value-pattern]\n"
    "    --rename-section      rename section: old-name new-name\n"
    "    --remove-section      remove a section: name\n"
    "    -l, --list            list all\n"
    "    --fixed-value         use string equality when comparing values to 'value-pattern'\n"
    "    -e, --edit            open an editor\n"
    "    --get-color           find the color configured: slot [default]\n"
    "    --get-colorbool       find the color setting: slot [stdout-is-tty]\n"
    "\n"
    "Type\n"
    "    -t, --type <type>     value is given this type\n"
    '    --bool                value is "true" or "false"\n'
    "    --int                 value is decimal number\n"
    "    --bool-or-int         value is --bool or --int\n"
    "    --bool-or-str         value is --bool or string\n"
    "    --path                value is a path (file or directory name)\n"
    "    --expiry-date         value is an expiry date\n"
    "\n"
    "Other\n"
    "    -z, --null            terminate values with NUL byte\n"
    "    --name-only           show variable names only\n"
    "    --includes            respect include directives on lookup\n"
    "    --show-origin         show origin of config (file, standard input, blob, command line)\n"
    "    --show-scope          show scope of config (worktree, local, global, system, command)\n"
    "    --default <value>     with --get, use default value when missing entry\n"
    "\n"
)


def _typed(value: str | None, kind: str | None, key: str, where: str = "") -> str:
    """A value as ``--type`` shows it (a bare name: empty, or ``true`` as a boolean)."""
    if value is None:
        return "true" if kind == "bool" else ""
    place = f" in {where}" if where else ""
    if kind == "bool":
        if value.lower() in _TRUE:
            return "true"
        if value.lower() in _FALSE:
            return "false"
        raise GitError(f"bad boolean config value '{value}' for '{key}'{place}")
    if kind == "int":
        m = re.fullmatch(r"(-?\d+)([kmg]?)", value.strip().lower())
        if m is None:
            raise GitError(f"bad numeric config value '{value}' for '{key}'{place}: invalid unit")
        return str(int(m.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[m.group(2)])
    return value


def _scopes(p: _Proc, repo: Repo | None) -> list[tuple[str, str, str]]:
    """(scope, file, how --show-origin names it) in the order git reads them."""
    out = []
    if not p.vm.vars.get("GIT_CONFIG_NOSYSTEM"):
        out.append(("system", "/etc/gitconfig", "/etc/gitconfig"))
    home = posixpath.join(p.fs.home, ".gitconfig")
    out.append(("global", home, home))
    if repo is not None:
        local = posixpath.join(repo.gitdir, "config")
        out.append(("local", local, ".git/config" if p.vm.cwd == repo.root else local))
    return out


def _where(scope: tuple[str, str, str]) -> str:
    return "command line" if scope[0] == "command" else f"file {scope[2]}"


def _origin(flags: list[str], scope: tuple[str, str, str]) -> str:
    """What ``--show-scope`` and ``--show-origin`` put before an entry."""
    out = scope[0] + "\t" if "--show-scope" in flags else ""
    if "--show-origin" in flags:
        out += ("command line:" if scope[0] == "command" else f"file:{scope[2]}") + "\t"
    return out


def _valid(key: str) -> None:
    if "." not in key or key.startswith(".") or key.endswith("."):
        raise GitError(
            f"error: key does not contain a section: {key}"
            if "." not in key
            else f"error: invalid key: {key}",
            1,
        )
    section, _, name = key.rpartition(".")
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", name) or not re.fullmatch(r"[A-Za-z0-9-]+(\..*)?", section):
        raise GitError(f"error: invalid key: {key}", 1)


def cmd_config(p: _Proc, args: list[str]) -> int:
    repo = Repo.discover(p.fs, p.vm.cwd)
    flags: list[str] = []
    words: list[str] = []
    target: tuple[str, str, str] | None = None
    kind: str | None = None
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if a in ("--global", "--local", "--system"):
            scoped = [s for s in _scopes(p, repo) if s[0] == a[2:]]
            if not scoped:
                raise GitError("--local can only be used inside a git repository")
            target = scoped[0]
        elif a in ("-f", "--file") or a.startswith("--file="):
            name = a.partition("=")[2] if "=" in a else (args[k] if k < len(args) else "")
            k += 0 if "=" in a else 1
            target = ("file", p.path(name), name)
        elif a in ("--bool", "--int") or a.startswith("--type="):
            kind = a[2:] if not a.startswith("--type=") else a[7:]
        elif a in _ACTIONS or a in (
            "--name-only",
            "--show-origin",
            "--show-scope",
            "--includes",
            "--null",
            "-z",
        ):
            flags.append(a)
        elif a in (
            "-e",
            "--edit",
            "--rename-section",
            "--replace-all",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
        ):
            return p.not_simulated()
        elif a.startswith("-") and a != "-":
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        else:
            words.append(a)
    if any(f in ("-z", "--null", "--includes") for f in flags):
        return p.not_simulated()
    read_from = [target] if target else _scopes(p, repo)
    found: list[tuple[tuple[str, str, str], Entry]] = [(s, e) for s in read_from for e in entries(p.fs, s[1])]
    if target is None:
        found += [
            (("command", "", "command line:"), e)
            for e in parameters(p.vm.vars.get("GIT_CONFIG_PARAMETERS", ""))
        ]
    if "-l" in flags or "--list" in flags:
        lines = []
        for scope, e in found:
            value = (
                "" if e.value is None and kind is None else "=" + _typed(e.value, kind, e.key, _where(scope))
            )
            text = e.key if "--name-only" in flags else e.key + value
            lines.append(_origin(flags, scope) + text + "\n")
        p.out("".join(lines))
        return 0
    if "--get-regexp" in flags:
        if not words:
            raise GitError("error: wrong number of arguments, should be from 1 to 2", 129)
        if len(words) > 1:
            return p.not_simulated()  # a value-pattern
        rx = compile_regex(words[0], re.IGNORECASE)
        hits = [(scope, e) for scope, e in found if rx.search(e.key)]
        shown = []
        for scope, e in hits:
            value = "" if "--name-only" in flags or (e.value is None and kind is None) else " "
            value += "" if "--name-only" in flags else _typed(e.value, kind, e.key, _where(scope))
            shown.append(_origin(flags, scope) + e.key + value + "\n")
        p.out("".join(shown))
        return 0 if hits else 1
    write = target or (next((s for s in _scopes(p, repo) if s[0] == "local"), None))
    if "--remove-section" in flags:
        if write is None:
            raise GitError("not in a git directory")
        section = words[0] if words else ""
        head, dot, sub = section.partition(".")
        if not remove_section(p.fs, write[1], f'{head} "{sub}"' if dot else section):
            raise GitError("no such section: " + section)
        return 0
    if not words:
        if not flags:
            raise GitError(_USAGE[:-1], 129, raw=True)
        raise GitError("error: wrong number of arguments", 129)
    key = words[0]
    _valid(key)
    reading = any(f in flags for f in ("--get", "--get-all", "--unset", "--unset-all"))
    if len(words) > (1 if reading else 2):
        return p.not_simulated()  # a value-pattern (a regex over the values)
    wanted = canonical(key)
    if "--unset" in flags or "--unset-all" in flags:
        if write is None:
            raise GitError("not in a git directory")
        present = [e for e in entries(p.fs, write[1]) if e.key == wanted]
        if len(present) > 1 and "--unset" in flags:
            p.ctx.err.write(f"warning: {key} has multiple values\n")
            return 5
        return 0 if write_config(p.fs, write[1], key, None, every=True) else 5
    if len(words) == 1 or "--get" in flags or "--get-all" in flags:
        values = [(scope, e) for scope, e in found if e.key == wanted]
        if not values:
            return 1
        chosen = values if "--get-all" in flags else values[-1:]
        p.out("".join(_origin(flags, s) + _typed(e.value, kind, e.key, _where(s)) + "\n" for s, e in chosen))
        return 0
    if write is None:
        raise GitError("not in a git directory")
    value = words[1]
    if kind is not None:
        value = _typed(value, kind, key)
    present = [e for e in entries(p.fs, write[1]) if e.key == wanted]
    if "--add" in flags:
        write_config(p.fs, write[1], key, value, add=True)
        return 0
    if len(present) > 1:
        p.ctx.err.write(
            f"warning: {key} has multiple values\nerror: cannot overwrite multiple values with a single value\n"
            f"       Use a regexp, --add or --replace-all to change {key}.\n"
        )
        return 5
    write_config(p.fs, write[1], key, value)
    return 0

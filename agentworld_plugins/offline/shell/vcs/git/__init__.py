"""``git`` over the virtual filesystem: init, status, add, rm, commit, diff, log, show, branch,
checkout, switch, restore, reset, rev-parse, ls-files, config, stash, tag, remote, cat-file, grep,
mv, clean, describe, shortlog, apply, merge, cherry-pick and revert, with git's output and git's
identity rules (:mod:`.ident`).

Repositories live in ``.git`` folders of the virtual filesystem (see :mod:`.repo`), so a
session's snapshot keeps them. Commands that need a network or another program (``push``,
``pull``, ``fetch``, ``clone``, ``rebase``, ...) are not simulated: they
answer like any program the offline world cannot run.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

from ...constants import _VERSIONS
from ...registry import applet
from .apply import cmd_apply
from .blame import cmd_blame
from .branches import cmd_branch
from .configcmd import cmd_config
from .diffopts import NotSimulated
from .grep import cmd_grep
from .history import (
    cmd_cat_file,
    cmd_checkout,
    cmd_diff,
    cmd_log,
    cmd_ls_files,
    cmd_rev_list,
    cmd_rev_parse,
)
from .ident import config
from .merge import cmd_merge
from .more import cmd_check_ignore, cmd_clean, cmd_describe, cmd_merge_base, cmd_mv, cmd_shortlog
from .pick import cmd_cherry_pick, cmd_revert
from .plumbing import cmd_diff_tree
from .reflog import cmd_reflog
from .refs import cmd_remote, cmd_tag
from .repo import GitError, Repo
from .show import cmd_show
from .stash import cmd_stash
from .trees import cmd_ls_tree
from .work import cmd_add, cmd_commit, cmd_init, cmd_reset, cmd_restore, cmd_rm, cmd_status

if TYPE_CHECKING:
    from ...proc import _Proc

COMMANDS: dict[str, Callable[[_Proc, list[str]], int]] = {
    "init": cmd_init,
    "apply": cmd_apply,
    "blame": cmd_blame,
    "check-ignore": cmd_check_ignore,
    "merge": cmd_merge,
    "merge-base": cmd_merge_base,
    "cherry-pick": cmd_cherry_pick,
    "revert": cmd_revert,
    "status": cmd_status,
    "add": cmd_add,
    "rm": cmd_rm,
    "commit": cmd_commit,
    "reset": cmd_reset,
    "restore": cmd_restore,
    "config": cmd_config,
    "diff": cmd_diff,
    "diff-tree": cmd_diff_tree,
    "log": cmd_log,
    "show": cmd_show,
    "branch": cmd_branch,
    "checkout": cmd_checkout,
    "switch": lambda p, args: cmd_checkout(p, args, switch=True),
    "rev-parse": cmd_rev_parse,
    "rev-list": cmd_rev_list,
    "reflog": cmd_reflog,
    "ls-files": cmd_ls_files,
    "ls-tree": cmd_ls_tree,
    "stash": cmd_stash,
    "cat-file": cmd_cat_file,
    "grep": cmd_grep,
    "mv": cmd_mv,
    "clean": cmd_clean,
    "describe": cmd_describe,
    "shortlog": cmd_shortlog,
    "tag": cmd_tag,
    "remote": cmd_remote,
}

#: the aliases being expanded (an alias naming itself, directly or not, is git's "alias loop")
_EXPANDING: ContextVar[tuple[str, ...]] = ContextVar("git_aliases", default=())

#: real git commands this world cannot carry out (a network, an editor, a merge machinery)
_NOT_SIMULATED = {"push", "pull", "fetch", "clone", "rebase", "am",
                  "bisect", "submodule", "worktree", "gc", "notes", "archive",
                  "format-patch"}  # fmt: skip


@applet("git")
def _u_git(p: _Proc) -> int:
    args = list(p.args)
    overrides: list[str] = []
    while args and args[0] in ("-c", "-C") and len(args) > 1:  # git -C dir / -c key=value
        if args[0] == "-C":
            target = p.path(args[1])
            if not p.fs.is_dir(target):
                p.ctx.err.write(f"fatal: cannot change to '{args[1]}': No such file or directory\n")
                return 128
            cwd = p.vm.cwd
            p.vm.cwd = target
            again = [x for item in overrides for x in ("-c", item)] + args[2:]
            try:
                return _u_git(type(p)(p.vm, p.name, again, p.ctx))
            finally:
                p.vm.cwd = cwd
        overrides.append(args[1])
        args = args[2:]
    if overrides:  # what real git hands its own child processes: GIT_CONFIG_PARAMETERS
        saved = p.vm.vars.get("GIT_CONFIG_PARAMETERS")
        quoted = " ".join(
            shlex.quote(item.partition("=")[0]) + "=" + shlex.quote(item.partition("=")[2])
            for item in overrides
        )
        p.vm.vars["GIT_CONFIG_PARAMETERS"] = ((saved + " ") if saved else "") + quoted
        try:
            return _u_git(type(p)(p.vm, p.name, args, p.ctx))
        finally:
            if saved is None:
                p.vm.vars.pop("GIT_CONFIG_PARAMETERS", None)
            else:
                p.vm.vars["GIT_CONFIG_PARAMETERS"] = saved
    while args and args[0] in ("--no-pager", "--paginate", "-P"):
        args = args[1:]
    if not args:
        p.out(
            "usage: git [-v | --version] [-h | --help] [-C <path>] [-c <name>=<value>]\n           <command> [<args>]\n"
        )
        return 1
    if args[0] in ("--version", "version", "-v"):
        p.out(_VERSIONS["git"] + "\n")
        return 0
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None and name not in _NOT_SIMULATED:
        alias = config(p, Repo.discover(p.fs, p.vm.cwd)).get(f"alias.{name.lower()}")
        if alias is not None:
            try:
                return _expand_alias(p, name, alias, rest)
            except GitError as exc:
                return _report(p, exc)
    if command is None:
        if name in _NOT_SIMULATED:
            return p.not_simulated()
        p.ctx.err.write(f"git: '{name}' is not a git command. See 'git --help'.\n")
        return 1
    try:
        return command(p, rest)
    except NotSimulated:
        return p.not_simulated()
    except GitError as exc:
        return _report(p, exc)


def _report(p: _Proc, exc: GitError) -> int:
    """git's message for a failure on stderr (``fatal: `` unless it names its own kind); its status."""
    plain = exc.raw or exc.message.startswith(("error:", "fatal:"))
    p.ctx.err.write(("" if plain else "fatal: ") + exc.message + "\n")
    return exc.status


def _expand_alias(p: _Proc, name: str, alias: str, rest: list[str]) -> int:
    """``alias.NAME``: its words in place of the name (a shell alias, ``!...``, is not simulated)."""
    if alias.startswith("!"):
        return p.not_simulated()
    try:
        words = shlex.split(alias)
    except ValueError:
        raise GitError(f"unclosed quote in alias '{name}'") from None
    seen = _EXPANDING.get()
    if name in seen:
        chain = "".join(
            f"\n  {x}" + (" <==" if x == name else " ==>" if k == len(seen) - 1 else "")
            for k, x in enumerate(seen)
        )
        raise GitError(f"alias loop detected: expansion of '{seen[0]}' does not terminate:{chain}")
    if not words:
        raise GitError(f"empty alias for {name}")
    token = _EXPANDING.set((*seen, name))
    try:
        return _u_git(type(p)(p.vm, p.name, [*words, *rest], p.ctx))
    finally:
        _EXPANDING.reset(token)

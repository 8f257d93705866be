"""chown and chgrp, as GNU coreutils checks and reports them (``-R``, ``-v``, ``-c``, ``-f``).

The virtual files belong to root and keep no other owner, so giving one to another user or group
is said as GNU says it and flagged as an unknown effect (``ls -l`` still shows root).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError
from ..errors import _UsageError
from ..getopt import _getopt
from ..limits import current
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_LONGS: dict[str, str | None] = {
    "recursive": "R", "verbose": "v", "changes": "c", "silent": "f", "quiet": "f",
    "no-dereference": "h", "dereference": None, "preserve-root": None, "no-preserve-root": None,
    "from=": None, "reference=": "reference",
}  # fmt: skip


def _names(p: _Proc, path: str) -> dict[str, str]:
    """``{name: id}`` of /etc/passwd or /etc/group."""
    try:
        text = p.fs.read_text(path)
    except FsError:
        return {}
    rows = [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]
    return {row[0]: row[2] for row in rows if len(row) > 2}


def _known(name: str, table: dict[str, str]) -> bool:
    return name in table or name.isdigit()


def _run(p: _Proc, grp_only: bool) -> int:
    opts, args = _getopt(p.args, "RvcfhHLP", _LONGS)
    if "reference" in opts:
        return p.not_simulated()
    if not args:
        raise _UsageError("missing operand")
    if len(args) < 2:
        raise _UsageError(f"missing operand after {locale_quote(args[0])}")
    spec, targets = args[0], args[1:]
    user, sep, group = (
        ("", ":", spec) if grp_only else spec.partition(":") if ":" in spec else spec.partition(".")
    )
    users, groups = _names(p, "/etc/passwd"), _names(p, "/etc/group")
    if user and not _known(user, users):
        p.err(f"invalid user: {locale_quote(spec)}")
        return 1
    if group and not _known(group, groups):
        p.err(f"invalid group: {locale_quote(spec)}")
        return 1
    new_user = user or "root"
    new_group = group or ("root" if not (sep and user) else user)  # `chown u:` takes u's group
    if sep and user and not group:
        new_group = next((g for g, gid in groups.items() if gid == users.get(user)), user)
    changes = "v" in opts or "c" in opts
    status = 0
    for target in targets:
        for shown in _walk(p, target, "R" in opts):
            if shown is None:
                if "f" not in opts:
                    p.err(f"cannot access {quote_always(target)}: No such file or directory")
                status = 1
                break
            current().spend(1)
            changed = (not grp_only and new_user not in ("root", "0")) or (
                bool(group) and new_group not in ("root", "0")
            )
            if changed:
                p.unknown()  # files here keep root as their owner
            if changes and (changed or "v" in opts):
                owner = (user if changed else new_user, new_group)  # GNU names a changed one as given
                p.out(_report(shown, grp_only, changed, owner, bool(sep)))
    return status


def _report(shown: str, grp_only: bool, changed: bool, owner: tuple[str, str], both: bool) -> str:
    """GNU's ``-v`` line; the files' owner here is always root before the change."""
    quoted = quote_always(shown)
    if grp_only:
        group = owner[1]
        return (
            f"changed group of {quoted} from root to {group}\n"
            if changed
            else f"group of {quoted} retained as {group}\n"
        )
    new = ":".join(owner) if both else owner[0]
    old = "root:root" if both else "root"
    if changed:
        return f"changed ownership of {quoted} from {old} to {new}\n"
    return f"ownership of {quoted} retained as {new}\n"


def _walk(p: _Proc, target: str, recursive: bool) -> list[str | None]:
    """``target`` and, with ``-R``, what it holds, children before their folder as GNU reports
    them; ``[None]`` when it does not exist."""
    path = p.path(target)
    try:
        node = p.fs.lstat(path)
    except FsError:
        return [None]
    if not recursive or not isinstance(node, DirNode):
        return [target]
    found: list[str | None] = []
    for name in sorted(p.fs.listdir(path)):
        found += _walk(p, posixpath.join(target, name), True)
    return [*found, target]


@applet("chown")
def _u_chown(p: _Proc) -> int:
    return _run(p, grp_only=False)


@applet("chgrp")
def _u_chgrp(p: _Proc) -> int:
    return _run(p, grp_only=True)

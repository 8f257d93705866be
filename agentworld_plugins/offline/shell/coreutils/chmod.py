"""chmod and symbolic modes."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ...vfs import DirNode, LinkNode, mode_string
from ..errors import _UsageError
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _parse_mode(spec: str, current: int, is_dir: bool) -> int | None:
    if re.fullmatch(r"[0-7]{1,4}", spec):
        return int(spec, 8)
    mode = current
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if not m:
            return None
        who = m.group(1) or "a"
        op = m.group(2)
        perms = m.group(3)
        bits = 0
        for c in perms:
            if c == "r":
                bits |= 0o444
            elif c == "w":
                bits |= 0o222
            elif c == "x" or (c == "X" and (is_dir or current & 0o111)):
                bits |= 0o111
            elif c == "s":
                bits |= 0o6000
            elif c == "t":
                bits |= 0o1000
        mask = 0
        if "a" in who:
            mask = 0o7777
        else:
            if "u" in who:
                mask |= 0o4700
            if "g" in who:
                mask |= 0o2070
            if "o" in who:
                mask |= 0o1007
        bits &= mask
        if not m.group(1) and "w" in perms:
            bits &= ~0o022
        if op == "+":
            mode |= bits
        elif op == "-":
            mode &= ~bits
        else:
            mode = (mode & ~mask) | bits
    return mode


@applet("chmod")
def _u_chmod(p: _Proc) -> int:
    args = list(p.args)
    recursive = False
    verbose = False
    rest = []
    for a in args:
        if a in ("-R", "--recursive"):
            recursive = True
        elif a in ("-v", "--verbose", "-c"):
            verbose = True
        elif a in ("-f", "--quiet", "--silent"):
            continue
        else:
            rest.append(a)
    if not rest:
        raise _UsageError("missing operand")
    if len(rest) == 1:
        raise _UsageError(f"missing operand after {quote_always(rest[0])}")
    spec, names = rest[0], rest[1:]
    status = 0
    for name in names:
        path = p.path(name)
        node = p.node(name)
        if node is None:
            status = 1
            continue
        targets = [(name, path, node)]
        if recursive and isinstance(node, DirNode):
            for dirpath, dirnames, filenames in p.fs.walk(path):
                for entry in dirnames + filenames:
                    full = posixpath.join(dirpath, entry)
                    targets.append((full, full, p.fs.lstat(full)))
        for shown, full, n in targets:
            if isinstance(n, LinkNode):
                continue
            new = _parse_mode(spec, n.mode, isinstance(n, DirNode))
            if new is None:
                p.err(f"invalid mode: {quote_always(spec)}")
                p.try_help()
                return 1
            old = n.mode
            p.fs.chmod(full, new)
            if verbose:
                p.out(
                    f"mode of {quote_always(shown)} changed from {old:04o} ({mode_string(n)[1:]}) to {new:04o}\n"
                )
    return status

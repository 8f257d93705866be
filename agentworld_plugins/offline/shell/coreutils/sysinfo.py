"""Small GNU coreutils about the session and the system: tty, stty, logname, groups, users, who,
arch, sync, nice, unlink, link, pathchk, tsort and factor.

The shell's standard input is never a terminal here (``[ -t 0 ]`` is false), so ``tty`` says
``not a tty`` and ``stty`` fails as it does on a pipe; nobody is logged in (``logname``, ``who``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FileNode, FsError
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..pipes import delegating
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _no_operands(p: _Proc, operands: list[str], status: int = 1) -> None:
    if operands:
        raise _UsageError(f"extra operand {locale_quote(operands[0])}", status)


@applet("tty")
def _u_tty(p: _Proc) -> int:
    opts, operands = _getopt(p.args, "s", {"silent": "s", "quiet": "s"}, status=2)
    _no_operands(p, operands, 2)
    if "s" not in opts:
        p.out("not a tty\n")
    return 1


@applet("stty")
def _u_stty(p: _Proc) -> int:
    p.err("'standard input': Inappropriate ioctl for device")
    return 1


@applet("logname")
def _u_logname(p: _Proc) -> int:
    _no_operands(p, _getopt(p.args, "")[1])
    p.err("no login name")
    return 1


@applet("users", "who")
def _u_nobody_logged_in(p: _Proc) -> int:
    return 0


@applet("arch")
def _u_arch(p: _Proc) -> int:
    _no_operands(p, _getopt(p.args, "")[1])
    p.out("x86_64\n")
    return 0


@applet("sync")
def _u_sync(p: _Proc) -> int:
    _getopt(p.args, "df", {"data": "d", "file-system": "f"})
    return 0


@applet("groups")
def _u_groups(p: _Proc) -> int:
    _, users = _getopt(p.args, "")
    members = _group_table(p)
    if not users:
        p.out(" ".join(members.get(p.vm.user, [p.vm.user])) + "\n")
        return 0
    status = 0
    for user in users:
        if user not in _passwd_users(p):
            p.err(f"{locale_quote(user)}: no such user")
            status = 1
            continue
        p.out(f"{user} : {' '.join(members.get(user, [user]))}\n")
    return status


def _read_lines(p: _Proc, path: str) -> list[list[str]]:
    try:
        text = p.fs.read_text(path)
    except FsError:
        return []
    return [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]


def _passwd_users(p: _Proc) -> dict[str, str]:
    """Each user's primary group id, from /etc/passwd."""
    return {row[0]: row[3] for row in _read_lines(p, "/etc/passwd") if len(row) > 3}


def _group_table(p: _Proc) -> dict[str, list[str]]:
    """Each user's groups, the primary one first, from /etc/passwd and /etc/group."""
    groups = _read_lines(p, "/etc/group")
    by_id = {row[2]: row[0] for row in groups if len(row) > 2}
    table: dict[str, list[str]] = {}
    for user, gid in _passwd_users(p).items():
        names = [by_id.get(gid, gid)]
        names += [
            row[0] for row in groups if len(row) > 3 and user in row[3].split(",") and row[0] not in names
        ]
        table[user] = names
    return table


@applet("nice")
@delegating
def _u_nice(p: _Proc) -> int:
    args = list(p.args)
    if args and len(args[0]) > 1 and args[0][0] == "-" and args[0][1:].lstrip("-").isdigit():
        args[:1] = ["-n", args[0][1:]]  # the obsolete `nice -5`
    opts, command = _getopt(args, "n:", {"adjustment=": "n"}, status=125, stop_at_operand=True)
    adjustment = _last(opts, "n", "10") or "10"
    if not adjustment.lstrip("+-").isdigit():
        p.err(f"invalid adjustment {locale_quote(adjustment)}")
        return 125
    if not command:
        p.out("0\n")
        return 0
    found = p.vm._locate(command[0])
    if found is None or not p.fs.exists(found):
        p.err(f"{locale_quote(command[0])}: No such file or directory")
        return 127
    return p.vm._exec_path(found, command, p.ctx)


@applet("unlink")
def _u_unlink(p: _Proc) -> int:
    _, operands = _getopt(p.args, "")
    if not operands:
        raise _UsageError("missing operand")
    _no_operands(p, operands[1:])
    path = p.path(operands[0])
    try:
        if p.fs.is_dir(path) and not p.fs.is_link(path):
            p.err(f"cannot unlink {quote_always(operands[0])}: Is a directory")
            return 1
        p.fs.remove(path)
    except FsError as exc:
        p.err(f"cannot unlink {quote_always(operands[0])}: {exc.strerror}")
        return 1
    return 0


@applet("link")
def _u_link(p: _Proc) -> int:
    """``link FILE1 FILE2``: a second name for a file (a copy here: the files do not share their
    content afterwards, which is flagged)."""
    _, operands = _getopt(p.args, "")
    if len(operands) < 2:
        raise _UsageError(
            f"missing operand after {locale_quote(operands[0])}" if operands else "missing operand"
        )
    _no_operands(p, operands[2:])
    source, target = operands
    problem = None
    try:
        node = p.fs.stat(p.path(source))
    except FsError as exc:
        problem = exc.strerror
    else:
        if not isinstance(node, FileNode):
            problem = "Operation not permitted"
        elif p.fs.exists(p.path(target)):
            problem = "File exists"
    if problem is not None:
        p.err(f"cannot create link {quote_always(target)} to {quote_always(source)}: {problem}")
        return 1
    p.fs.write(p.path(target), p.fs.read(p.path(source)))
    p.fs.chmod(p.path(target), node.mode & 0o7777)
    p.unknown()
    return 0


#: characters POSIX allows in portable file names (``pathchk -p``)
_PORTABLE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/")


@applet("pathchk")
def _u_pathchk(p: _Proc) -> int:
    opts, names = _getopt(p.args, "pP", {"portability": "portability"})
    if not names:
        raise _UsageError("missing operand")
    portable = "p" in opts or "portability" in opts
    status = 0
    for name in names:
        problem = _path_problem(name, portable, "P" in opts or "portability" in opts)
        if problem:
            p.err(problem)
            status = 1
    return status


def _path_problem(name: str, portable: bool, strict_extra: bool) -> str | None:
    if strict_extra and not name:
        return "empty file name"
    if strict_extra and any(part.startswith("-") for part in name.split("/")):
        dashed = next(part for part in name.split("/") if part.startswith("-"))
        return f"leading '-' in a component of file name {quote_always(dashed)}"
    if portable:
        bad = next((c for c in name if c not in _PORTABLE), None)
        if bad is not None:
            return f"nonportable character {locale_quote(bad)} in file name {quote_always(name)}"
    limit_name, limit_path = (14, 256) if portable else (255, 4096)
    long_part = next((part for part in name.split("/") if len(part.encode()) > limit_name), None)
    if long_part is not None:
        size = len(long_part.encode())
        return (
            f"limit {limit_name} exceeded by length {size} of file name component {locale_quote(long_part)}"
        )
    if len(name.encode()) >= limit_path:
        return f"limit {limit_path - 1} exceeded by length {len(name.encode())} of file name {quote_always(name)}"
    return None


@applet("tsort")
def _u_tsort(p: _Proc) -> int:
    _, operands = _getopt(p.args, "")
    _no_operands(p, operands[1:])
    name = operands[0] if operands else "-"
    try:
        words = p.read(name).split()
    except FsError as exc:
        p.err(f"{name}: {exc.strerror}")
        return 1
    current().spend(1 + len(words))
    shown = "-" if name == "-" else name
    if len(words) % 2:
        p.err(f"{shown}: input contains an odd number of tokens")
        return 1
    graph = _Graph()
    for a, b in zip(words[::2], words[1::2]):
        graph.relate(a, b)
    return graph.sort(p, shown)


class _Item:
    __slots__ = ("count", "done", "name", "qlink", "successors")

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0
        self.successors: list[_Item] = []  # newest first, as GNU pushes them
        self.qlink: _Item | None = None
        self.done = False


class _Graph:
    """GNU tsort's algorithm (Knuth's T): items walked in byte order to find the ready ones,
    each taken from a queue; a loop is reported member by member and broken at one relation."""

    def __init__(self) -> None:
        self.items: dict[str, _Item] = {}
        self.loop: _Item | None = None

    def _item(self, name: str) -> _Item:
        item = self.items.get(name)
        if item is None:
            item = self.items[name] = _Item(name)
        return item

    def relate(self, a: str, b: str) -> None:
        first, second = self._item(a), self._item(b)
        if a != b:
            second.count += 1
            first.successors.insert(0, second)

    def sort(self, p: _Proc, shown: str) -> int:
        ordered = [
            self.items[k] for k in sorted(self.items, key=lambda k: k.encode("utf-8", "surrogateescape"))
        ]
        left = len(ordered)
        status = 0
        out: list[str] = []
        while left:
            queue = [item for item in ordered if not item.done and item.count == 0]
            while queue:
                item = queue.pop(0)
                out.append(item.name + "\n")
                item.done = True
                left -= 1
                for nxt in item.successors:
                    nxt.count -= 1
                    if nxt.count == 0:
                        queue.append(nxt)
                current().spend(1 + len(item.successors))
            if left:
                p.out("".join(out))
                out = []
                p.err(f"{shown}: input contains a loop:")
                status = 1
                self.loop = None
                while True:  # walks until one loop is broken
                    for k in ordered:
                        current().spend(1)
                        if self._detect(p, k):
                            break
                    if self.loop is None:
                        break
        p.out("".join(out))
        return status

    def _detect(self, p: _Proc, k: _Item) -> bool:
        """GNU's ``detect_loop`` for one item of the walk: follows the chain back through
        ``qlink`` until the relation into the chain's start closes a loop, says its members and
        drops that relation (True: the walk stops there)."""
        if k.count <= 0:
            return False
        if self.loop is None:
            self.loop = k
            return False
        for index, successor in enumerate(k.successors):
            if successor is not self.loop:
                continue
            if k.qlink is None:
                k.qlink, self.loop = self.loop, k
                return False
            loop: _Item | None = self.loop
            while loop is not None:
                after = loop.qlink
                p.err(loop.name)
                if loop is k:
                    successor.count -= 1
                    del k.successors[index]
                    break
                loop.qlink = None
                loop = after
            while loop is not None:
                after, loop.qlink = loop.qlink, None
                loop = after
            self.loop = None
            return True
        return False


@applet("factor")
def _u_factor(p: _Proc) -> int:
    _, numbers = _getopt(p.args, "")
    if not numbers:
        numbers = p.stdin().split()
    status = 0
    for word in numbers:
        text = word.lstrip("+") if word.startswith("+") and word[1:].isdigit() else word
        if not text.isdigit():
            p.err(f"{locale_quote(word)} is not a valid positive integer")
            status = 1
            continue
        n = int(text)
        shown = " ".join(_factors(n))
        p.out(f"{n}:{' ' + shown if shown else ''}\n")
    return status


def _factors(n: int) -> list[str]:
    """The prime factors of ``n`` in ascending order: trial division, then Pollard's rho with
    a fixed start, each step counted against the budget."""
    found: list[int] = []
    for q in (2, 3, 5):
        while n % q == 0 and n > 1:
            found.append(q)
            n //= q
    q, step = 7, 4
    while q * q <= n and q < 10_000:
        while n % q == 0:
            found.append(q)
            n //= q
        q += step
        step = 6 - step
        current().spend(1)
    pending = [n] if n > 1 else []
    while pending:
        m = pending.pop()
        if _is_prime(m):
            found.append(m)
            continue
        d = _rho(m)
        pending += [d, m // d]
    return [str(f) for f in sorted(found)]


def _is_prime(n: int) -> bool:
    if n < 4:
        return n > 1
    if n % 2 == 0:
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _rho(n: int) -> int:
    """A factor of the composite ``n`` (Brent's variant of Pollard's rho, deterministic)."""
    from math import gcd

    for c in range(1, 1000):
        x = y = 2
        d = 1
        while d == 1:
            current().spend(1)
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = gcd(abs(x - y), n)
        if d != n:
            return d
    return n

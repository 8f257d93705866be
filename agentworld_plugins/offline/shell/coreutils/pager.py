"""less and more writing to a pipe or a file: as the real ones do when their output is not a
terminal, they copy their input (more with a ``::::`` header per file). On a terminal the pager
itself (scrolling, keys) is not simulated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError
from ..limits import current
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _operands(p: _Proc) -> list[str] | None:
    """The file names (options and ``+cmd`` words are a terminal's business); None on a tty."""
    if p.ctx.out.tty:
        return None
    names, options_done = [], False
    for a in p.args:
        if a == "--" and not options_done:
            options_done = True
        elif options_done or not (a.startswith(("-", "+")) and len(a) > 1):
            names.append(a)
    return names


@applet("less")
def _u_less(p: _Proc) -> int:
    names = _operands(p)
    if names is None:
        return p.not_simulated()
    for name in names or ["-"]:
        if name != "-" and p.fs.is_dir(p.path(name)):
            p.out(f"{name} is a directory\n")
            continue
        try:
            text = p.read(name)
        except FsError as exc:
            p.out(f"{name}: {exc.strerror}\n")  # less says it on its output
            continue
        current().spend(1 + len(text) // 64)
        p.out(text)
    return 0


@applet("more")
def _u_more(p: _Proc) -> int:
    names = _operands(p)
    if names is None:
        return p.not_simulated()
    if not names:
        text = p.stdin()
        current().spend(1 + len(text) // 64)
        p.out(text)
        return 0
    for name in names:
        if p.fs.is_dir(p.path(name)):
            p.out(f"\n*** {name}: directory ***\n\n")
            continue
        try:
            text = p.read(name)
        except FsError as exc:
            p.err(f"cannot open {name}: {exc.strerror}")
            continue
        current().spend(1 + len(text) // 64)
        p.out(f"::::::::::::::\n{name}\n::::::::::::::\n{text}")
    return 0

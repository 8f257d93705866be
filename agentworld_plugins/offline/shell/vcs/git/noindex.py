"""``git diff --no-index A B`` of two regular files, outside or inside a repository: git's
``diff --git a/A b/B`` section and status 1 when they differ. Folders, and output options other
than the patch, answer as not simulated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....vfs import FsError
from .repo import blob_id
from .text import text_patch

if TYPE_CHECKING:
    from ...proc import _Proc


def diff_no_index(p: _Proc, args: list[str]) -> int:
    rest = [a for a in args if a not in ("--no-index", "--")]
    if len(rest) != 2 or any(a.startswith("-") for a in rest):
        return p.not_simulated()
    texts = []
    for name in rest:
        path = p.path(name)
        if not p.fs.is_file(path) and p.fs.exists(path):
            return p.not_simulated()  # two folders compared
        try:
            data = p.fs.read(path)
        except FsError:
            p.ctx.err.write(f"error: Could not access '{name}'\n")
            return 1
        texts.append(data if isinstance(data, str) else data.decode("utf-8", "surrogateescape"))
    old, new = texts
    if old == new:
        return 0
    a, b = rest
    if "\x00" in old[:8000] or "\x00" in new[:8000]:
        return p.not_simulated()
    mode = "100755" if p.fs.stat(p.path(a)).mode & 0o111 else "100644"  # type: ignore[union-attr]
    ids = [blob_id(t.encode("utf-8", "surrogateescape"))[:7] for t in texts]
    head = f"diff --git a/{a} b/{b}\nindex {ids[0]}..{ids[1]} {mode}\n"
    p.out(head + text_patch(old, new, f"a/{a}", f"b/{b}"))
    return 1

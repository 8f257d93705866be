"""cp and mv."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from ...vfs import DirNode, FsError
from ..applet_io import _join
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("cp")
def _u_cp(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "rRafivnpuTt:",
        {
            "recursive": "r",
            "archive": "a",
            "force": "f",
            "verbose": "v",
            "no-clobber": "n",
            "preserve": None,
            "preserve=": None,
            "target-directory=": "t",
            "no-target-directory": "T",
        },
    )
    return _copy_or_move(p, opts, names, move=False)


@applet("mv")
def _u_mv(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "fivnuTt:",
        {
            "force": "f",
            "verbose": "v",
            "no-clobber": "n",
            "target-directory=": "t",
            "no-target-directory": "T",
        },
    )
    return _copy_or_move(p, opts, names, move=True)


def _copy_or_move(p: _Proc, opts: dict[str, Any], names: list[str], move: bool) -> int:
    fs = p.fs
    recursive = move or "r" in opts or "R" in opts or "a" in opts
    target_dir = _last(opts, "t")
    if target_dir is None:
        if not names:
            raise _UsageError("missing file operand")
        if len(names) == 1:
            raise _UsageError(f"missing destination file operand after {quote_always(names[0])}")
        *sources, dest = names
    else:
        sources, dest = names, target_dir
    dest_path = p.path(dest)
    dest_is_dir = fs.is_dir(dest_path) and "T" not in opts
    try:
        fs.stat(dest_path)
        if dest.endswith("/") and not dest_is_dir:
            raise FsError("ENOTDIR", dest)
    except FsError as exc:
        if exc.code == "ENOTDIR":
            p.err(f"cannot stat {quote_always(dest)}: Not a directory")
            return 1
    if (len(sources) > 1 or target_dir is not None) and not dest_is_dir:
        if fs.exists(dest_path):
            p.err(f"target {quote_always(dest)} is not a directory")
        else:
            p.err(f"target {quote_always(dest)}: No such file or directory")
        return 1
    status = 0
    for src in sources:
        src_path = p.path(src)
        try:
            node = fs.stat(src_path) if not move else fs.lstat(src_path)
        except FsError as exc:
            p.err(f"cannot stat {quote_always(src)}: {exc.strerror}")
            status = 1
            continue
        final = posixpath.join(dest_path, posixpath.basename(src_path)) if dest_is_dir else dest_path
        shown_final = _join(dest, posixpath.basename(src_path)) if dest_is_dir else dest
        if isinstance(node, DirNode) and not recursive:
            p.err(f"-r not specified; omitting directory {quote_always(src)}")
            status = 1
            continue
        if final == src_path:
            p.err(f"{quote_always(src)} and {quote_always(shown_final)} are the same file")
            status = 1
            continue
        if isinstance(node, DirNode) and (final + "/").startswith(src_path + "/"):
            if move:
                p.err(
                    f"cannot move {quote_always(src)} to a subdirectory of itself, {quote_always(shown_final)}"
                )
            else:
                p.err(
                    f"cannot copy a directory, {quote_always(src)}, into itself, {quote_always(shown_final)}"
                )
            status = 1
            continue
        existing = fs.lexists(final)
        if existing and "n" in opts:
            continue
        if existing and isinstance(node, DirNode) and not fs.is_dir(final):
            p.err(
                f"cannot overwrite non-directory {quote_always(shown_final)} with directory {quote_always(src)}"
            )
            status = 1
            continue
        if existing and not isinstance(node, DirNode) and fs.is_dir(final):
            p.err(f"cannot overwrite directory {quote_always(shown_final)} with non-directory")
            status = 1
            continue
        try:
            if move:
                if existing and isinstance(node, DirNode) and fs.listdir(final):
                    p.err(
                        f"cannot move {quote_always(src)} to {quote_always(shown_final)}: Directory not empty"
                    )
                    status = 1
                    continue
                if existing and isinstance(node, DirNode):
                    fs.rmdir(final)
                elif existing:
                    fs.remove(final)
                fs.move(src_path, final)
            else:
                fs.copy(src_path, final, recursive=True)
        except FsError as exc:
            if move:
                p.err(f"cannot move {quote_always(src)} to {quote_always(shown_final)}: {exc.strerror}")
            elif isinstance(node, DirNode):
                p.err(f"cannot create directory {quote_always(shown_final)}: {exc.strerror}")
            else:
                p.err(f"cannot create regular file {quote_always(shown_final)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out(f"{'renamed ' if move else ''}{quote_always(src)} -> {quote_always(shown_final)}\n")
            if not move and isinstance(node, DirNode):
                _copied_entries(p, final, src, shown_final)
    return status


def _copied_entries(p: _Proc, folder: str, src: str, shown: str) -> None:
    """``cp -rv``: every entry under a copied folder, a folder before its contents."""
    for name in sorted(p.fs.listdir(folder)):
        inner_src, inner_shown = _join(src, name), _join(shown, name)
        p.out(f"{quote_always(inner_src)} -> {quote_always(inner_shown)}\n")
        path = posixpath.join(folder, name)
        if p.fs.is_dir(path) and not p.fs.is_link(path):
            _copied_entries(p, path, inner_src, inner_shown)

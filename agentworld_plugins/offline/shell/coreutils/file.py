"""file: a file's type from its name and first bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import DirNode, FileNode, FsError, as_text, is_binary, stub_program
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("file")
def _u_file(p: _Proc) -> int:
    status = 0
    for name in [a for a in p.args if not a.startswith("-")]:
        path = p.path(name)
        try:
            node = p.fs.stat(path)
        except FsError as exc:
            p.out(f"{name}: cannot open `{name}' ({exc.strerror})\n")
            continue
        if isinstance(node, DirNode):
            kind = "directory"
        else:
            assert isinstance(node, FileNode)
            content = node.content
            if stub_program(content):
                kind = "ELF 64-bit LSB pie executable, x86-64, version 1 (SYSV), dynamically linked, stripped"
            elif is_binary(content):
                kind = "data"
            elif not content:
                kind = "empty"
            else:
                text = as_text(content)
                first = text.split("\n", 1)[0]
                if first.startswith("#!") and "python" in first:
                    kind = "Python script, ASCII text executable"
                elif first.startswith("#!") and "sh" in first:
                    kind = "Bourne-Again shell script, ASCII text executable"
                else:
                    kind = "ASCII text" if text.isascii() else "Unicode text, UTF-8 text"
        p.out(f"{name}: {kind}\n")
    return status

"""What every session's system prompt is made of, kept instead of rebuilt: template texts and
rendered tool-definition blocks.

Both are pure functions of their inputs, so the entries hold no settings: a template is keyed by
the file it was read from and checked against that file, a tool block by the tools' JSON. Two
worlds with different prompts dirs or tools never see each other's text.

- Templates in a user's prompts dir (``--prompts-dir`` / ``AGENTWORLD_PROMPTS_DIR``) are read
  again when the file's modification time, size or inode changes: one ``stat`` per session, so an
  edited (or replaced) file reaches the next session of a running process (an edit that keeps
  all three, within the filesystem's timestamp granularity, is missed, as ``make`` would miss
  it). The bundled templates are package data, read once per process like the code beside them.
- A tool block is ``json.dumps(tools, ensure_ascii=False, indent=2)``. The json module's C encoder
  does not indent, so that dump runs in Python (about 0.3 ms for a ten-tool pack, once per
  session); the key is the compact dump, which runs in C in a tenth of the time. Equal compact
  dumps are the same tokens in the same order, so their indented dumps are equal too.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
from collections import OrderedDict
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = ["bundled_template", "file_template", "tool_definitions_json"]

#: at most this many tool blocks are kept (the least recently used goes first)
MAX_TOOL_BLOCKS = 64
#: at most this many template files are kept (a process uses a few prompts dirs at most)
MAX_TEMPLATES = 256

_lock = threading.Lock()
_tool_blocks: OrderedDict[str, str] = OrderedDict()
_bundled: dict[tuple[str, str], str] = {}
_files: dict[str, tuple[tuple[int, int, int], str]] = {}

# what Path.is_file() treats as "not a file" rather than raising (pathlib's _IGNORED_ERRNOS)
_MISSING = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def tool_definitions_json(tools: Any) -> str:
    """``json.dumps(tools, ensure_ascii=False, indent=2)``, remembered for recent tool sets."""
    key = json.dumps(tools, ensure_ascii=False, separators=(",", ":"))
    with _lock:
        text = _tool_blocks.get(key)
        if text is not None:
            _tool_blocks.move_to_end(key)
            return text
    text = json.dumps(tools, ensure_ascii=False, indent=2)
    with _lock:
        _tool_blocks[key] = text
        while len(_tool_blocks) > MAX_TOOL_BLOCKS:
            _tool_blocks.popitem(last=False)
    return text


def file_template(path: Path) -> str | None:
    """The text of the template file at ``path`` (None when no file is there), read again only
    when its modification time, size or inode changed since it was last read."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno in _MISSING:
            return None
        raise
    if not stat.S_ISREG(st.st_mode):
        return None
    key = os.path.abspath(path)
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    found = _files.get(key)
    if found is not None and found[0] == stamp:
        return found[1]
    text = path.read_text(encoding="utf-8")
    with _lock:
        if len(_files) >= MAX_TEMPLATES:
            _files.clear()
        _files[key] = (stamp, text)
    return text


def bundled_template(domain: str, name: str) -> str | None:
    """The bundled ``prompts/<domain>/<name>`` (None when the package ships none), read once."""
    found = _bundled.get((domain, name))
    if found is not None:
        return found
    resource = files("agentworld_plugins.prompts").joinpath(domain).joinpath(name)
    if not resource.is_file():
        return None
    text = resource.read_text(encoding="utf-8")
    _bundled[(domain, name)] = text
    return text


def clear() -> None:
    """Forget every kept template and tool block (tests; a process that rewrites package data)."""
    with _lock:
        _tool_blocks.clear()
        _bundled.clear()
        _files.clear()

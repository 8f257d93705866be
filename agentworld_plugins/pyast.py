"""``ast.parse`` and ``ast.literal_eval`` on source text, safe to call from several threads.

CPython 3.11 keeps the depth counter of its C-to-Python AST conversion per interpreter, not per
thread. When a garbage collection inside one thread's conversion runs a Python finalizer, another
thread can switch in and convert its own tree, and one of them fails with ``SystemError: AST
constructor recursion depth mismatch``. Offline steps of concurrent sessions (``bench infer``,
``rollout run``) parse actions and arithmetic in worker threads, so every parse of text in the
package goes through one lock here. A parse holds it for the time of one bounded parse.

3.10, 3.12 and 3.13 do not show it (checked with the test's workload); the lock costs little there.
"""

from __future__ import annotations

import ast
import re
import threading
from typing import Any, Literal

_PARSING = threading.Lock()
_LINE_END = re.compile(r"(\r\n|\r|\n)")


def parse(source: str, mode: Literal["exec", "eval", "single"] = "exec", filename: str = "<unknown>") -> Any:
    """:func:`ast.parse`, one thread at a time."""
    with _PARSING:
        return ast.parse(source, filename=filename, mode=mode)


def literal_eval(node_or_text: str | ast.AST) -> Any:
    """:func:`ast.literal_eval`; text is parsed under the lock (a node needs no parse)."""
    if isinstance(node_or_text, str):
        node_or_text = parse(node_or_text.lstrip(" \t"), mode="eval")
    return ast.literal_eval(node_or_text)


def source_segments(source: str, nodes: list[ast.AST]) -> list[str]:
    """The source text of each node, as :func:`ast.get_source_segment` gives it, in linear time.

    ``ast.get_source_segment`` splits the whole source again for every node, one character at a
    time, so N statements of a long source cost N times its length (a 300 KB ``fill`` took
    2.6 s); here the source is split once and each line encoded once.
    """
    parts = _LINE_END.split(source)
    lines = [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]
    encoded: dict[int, bytes] = {}

    def line(number: int) -> bytes:  # col offsets count UTF-8 bytes
        if number not in encoded:
            encoded[number] = lines[number].encode("utf-8") if number < len(lines) else b""
        return encoded[number]

    out = []
    for node in nodes:
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            out.append("")
            continue
        first, last = first - 1, last - 1
        if first == last:
            out.append(line(first)[start:end].decode("utf-8", "replace"))
            continue
        pieces = [line(first)[start:].decode("utf-8", "replace")]
        pieces.extend(lines[first + 1 : last])
        pieces.append(line(last)[:end].decode("utf-8", "replace"))
        out.append("".join(pieces))
    return out

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
import threading
from typing import Any, Literal

_PARSING = threading.Lock()


def parse(source: str, mode: Literal["exec", "eval", "single"] = "exec", filename: str = "<unknown>") -> Any:
    """:func:`ast.parse`, one thread at a time."""
    with _PARSING:
        return ast.parse(source, filename=filename, mode=mode)


def literal_eval(node_or_text: str | ast.AST) -> Any:
    """:func:`ast.literal_eval`; text is parsed under the lock (a node needs no parse)."""
    if isinstance(node_or_text, str):
        node_or_text = parse(node_or_text.lstrip(" \t"), mode="eval")
    return ast.literal_eval(node_or_text)

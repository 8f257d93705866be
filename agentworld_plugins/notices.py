"""Warnings said once per process on stderr: what a front could not honour, told to its operator.

A front that cannot do what it was asked (a model-level perturbation on the offline world, an
option the backend ignores) keeps the warning in the observation's ``metadata["warnings"]`` and
says it here, so whichever front runs the session (``step``, the MCP server, search serve,
rollouts, the shim's helper) prints it on its console; a warning repeated on every step is
printed once. A front that reports warnings itself, with counts (``bench infer``), takes the
printing over with :func:`collecting`.

>>> say("the control perturbation needs a world model")        # doctest: +SKIP
agentworld: warning: the control perturbation needs a world model
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["collecting", "forget", "say"]

_LOCK = threading.Lock()
#: distinct warnings kept per sink (a long-running server is not flooded, nor its memory filled)
_MOST = 1024
#: where warnings go, innermost last, each with the warnings it was given; the first is stderr
_SINKS: list[tuple[Callable[[str], None], set[str]]] = [
    (lambda warning: print(f"agentworld: warning: {warning}", file=sys.stderr, flush=True), set())
]


def say(warning: str) -> bool:
    """Print ``agentworld: warning: WARNING`` on stderr the first time this process says it
    (within :func:`collecting`, hand it to that sink the first time it is said there); returns
    whether it was new."""
    with _LOCK:
        sink, said = _SINKS[-1]
        if warning in said or len(said) >= _MOST:
            return False
        said.add(warning)
    sink(warning)
    return True


@contextmanager
def collecting(sink: Callable[[str], None]) -> Iterator[None]:
    """Within the block, each warning said goes to ``sink`` once instead of to stderr."""
    entry: tuple[Callable[[str], None], set[str]] = (sink, set())
    with _LOCK:
        _SINKS.append(entry)
    try:
        yield
    finally:
        with _LOCK:
            _SINKS.remove(entry)


def forget() -> None:
    """Forget what was said, as a new process would (for tests)."""
    with _LOCK:
        for _, said in _SINKS:
            said.clear()

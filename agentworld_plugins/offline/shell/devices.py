"""The character devices of ``/dev``: null, zero, urandom/random, stdin, stdout, stderr, tty.

``/dev/zero`` and ``/dev/urandom`` never end. A program that says how much it wants
(``head -c N``, ``dd count=N``, ``od -N N``) gets exactly that; a redirection from one
(``tr -dc a-z < /dev/urandom | head -c 8``) gets :data:`REDIRECT_BYTES`; a program that would read
one to its end (``cat /dev/zero``) runs into the step's work budget, as the real one into its CPU-time limit.
The random bytes are deterministic per machine (the same actions give the same bytes).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .limits import TIME_STATUS, ResourceLimit

#: devices that never reach their end
ENDLESS = frozenset({"/dev/zero", "/dev/urandom", "/dev/random"})
#: what a redirection from an endless device reads
REDIRECT_BYTES = 1 << 20
#: device nodes made in /dev (stdin/stdout/stderr are served by the shell)
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full", "/dev/tty",
           "/dev/stdin", "/dev/stdout", "/dev/stderr")  # fmt: skip


def device_text(path: str, size: int, rng: random.Random) -> str:
    """``size`` bytes of an endless device, as text (bytes over 0x7F as surrogate escapes)."""
    from .limits import hold

    hold(size)
    if path == "/dev/zero":
        return "\x00" * size
    data = rng.randbytes(size)
    return data.decode("utf-8", "surrogateescape")


def device_chunks(path: str, rng: random.Random, size: int = 65536) -> Iterator[str]:
    """An endless device read to its end by a streaming program: chunk after chunk, until the
    pipe's reader stops (``cat /dev/zero | head -c 5``) or the step's budget does."""
    while True:
        yield device_text(path, size, rng)


def endless(path: str) -> ResourceLimit:
    """What reading an endless device to its end runs into."""
    return ResourceLimit(
        f"CPU time limit exceeded (reading {path} never ends; the offline step budget stops it)", TIME_STATUS
    )

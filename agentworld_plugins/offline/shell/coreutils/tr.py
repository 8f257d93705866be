"""tr."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..getopt import _getopt
from ..pipes import streaming
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _tr_set(spec: str) -> list[str]:
    out: list[str] = []
    i = 0
    n = len(spec)
    while i < n:
        if spec.startswith("[:", i):
            end = spec.find(":]", i)
            if end > 0:
                name = spec[i + 2 : end]
                ranges = {
                    "lower": "abcdefghijklmnopqrstuvwxyz",
                    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                    "digit": "0123456789",
                    "space": " \t\n\r\f\v",
                    "blank": " \t",
                    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "punct": "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum()),
                    "xdigit": "0123456789ABCDEFabcdef",
                }
                out.extend(ranges.get(name, ""))
                i = end + 2
                continue
        c, i = _char(spec, i)
        if i + 1 < n and spec[i] == "-":
            hi, i = _char(spec, i + 1)
            out.extend(chr(x) for x in range(ord(c), ord(hi) + 1))
            continue
        out.append(c)
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}


def _char(spec: str, i: int) -> tuple[str, int]:
    """The character at ``spec[i]`` and where the next begins: a backslash escape (``\\n``, the
    octal ``\\0`` to ``\\377``, as GNU tr reads up to three octal digits that stay under 256)
    or the character itself; a backslash at the end is itself."""
    if spec[i] != "\\" or i + 1 >= len(spec):
        return spec[i], i + 1
    j = i + 1
    while j < len(spec) and j < i + 4 and spec[j] in "01234567" and int(spec[i + 1 : j + 1], 8) < 256:
        j += 1
    if j > i + 1:
        return chr(int(spec[i + 1 : j], 8)), j
    return _ESCAPES.get(spec[i + 1], spec[i + 1]), i + 2


@applet("tr")
@streaming()
def _u_tr(p: _Proc) -> Generator[str, None, int]:
    """tr, streaming: translated a chunk at a time (``cat /dev/urandom | tr -dc a-z | head -c 8``)."""
    opts, sets = _getopt(
        p.args, "dscCt", {"delete": "d", "squeeze-repeats": "s", "complement": "c", "truncate-set1": "t"}
    )
    if not sets:
        raise _UsageError("missing operand")
    delete = "d" in opts
    squeeze = "s" in opts
    if not delete and not squeeze and len(sets) < 2:
        raise _UsageError(
            f"missing operand after {quote_always(sets[0])}\nTwo strings must be given when translating."
        )
    set1 = _tr_set(sets[0])
    complement = "c" in opts or "C" in opts
    member1 = set(set1)

    def in1(ch: str) -> bool:
        return (ch not in member1) if complement else (ch in member1)

    convert: Callable[[str], str]
    squeezed: set[str] | None = None
    if delete:

        def convert(text: str) -> str:
            return "".join(ch for ch in text if not in1(ch))

        if squeeze and len(sets) > 1:
            squeezed = set(_tr_set(sets[1]))
    elif len(sets) >= 2:
        set2 = _tr_set(sets[1])
        if complement:
            last = set2[-1] if set2 else ""

            def convert(text: str) -> str:
                return "".join(last if in1(ch) else ch for ch in text)

        else:
            if "t" in opts:  # -t: set1 cut to set2's length instead of set2 stretched
                set1 = set1[: len(set2)]
            if set2 and len(set2) < len(set1):
                set2 = set2 + [set2[-1]] * (len(set1) - len(set2))
            table = str.maketrans(dict(zip(set1, set2)))

            def convert(text: str) -> str:
                return text.translate(table)

        if squeeze:
            squeezed = set(set2)
    else:

        def convert(text: str) -> str:
            return text

        if squeeze and not complement:
            squeezed = member1
    previous = ""  # the last character written: a run may go on in the next chunk
    for chunk in p.ctx.stdin.chunks():
        text = convert(chunk)
        if squeezed is not None and text:
            text = _squeeze(previous + text, squeezed)[len(previous) :]
        if text:
            previous = text[-1]
            yield text
    return 0


def _squeeze(text: str, chars: set[str]) -> str:
    out: list[str] = []
    for ch in text:
        if out and out[-1] == ch and ch in chars:
            continue
        out.append(ch)
    return "".join(out)

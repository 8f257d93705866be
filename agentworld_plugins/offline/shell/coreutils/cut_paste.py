"""cut and paste."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from ..applet_io import _Inputs, _lines, from_host, to_host
from ..errors import _UsageError
from ..escapes import _echo_escapes
from ..getopt import _getopt, _last
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _parse_list(spec: str) -> list[tuple[int, int | None]]:
    ranges = []
    for part in spec.split(","):
        if not part:
            continue
        if "-" in part:
            a, _, b = part.partition("-")
            ranges.append((int(a) if a else 1, int(b) if b else None))
        else:
            ranges.append((int(part), int(part)))
    return ranges


@applet("cut")
def _u_cut(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "d:f:c:b:s",
        {
            "delimiter=": "d",
            "fields=": "f",
            "characters=": "c",
            "bytes=": "b",
            "only-delimited": "s",
            "output-delimiter=": "od",
            "complement": "complement",
        },
    )
    spec = _last(opts, "f") or _last(opts, "c") or _last(opts, "b")
    if spec is None:
        raise _UsageError("you must specify a list of bytes, characters, or fields")
    try:
        ranges = _parse_list(spec)
    except ValueError:
        p.err(f"invalid field value {quote_always(spec)}")
        return 1
    delim = _last(opts, "d", "\t") or "\t"
    out_delim = _last(opts, "od", delim) or delim
    inputs = _Inputs(p, files)
    out: list[str] = []
    flip = "complement" in opts

    def chosen(k: int) -> bool:
        return any(a <= k and (b is None or k <= b) for a, b in ranges) != flip

    for _, text in inputs:
        for line in _lines(text):
            if "f" in opts:
                if delim not in line:
                    if "s" not in opts:
                        out.append(line + "\n")
                    continue
                fields = line.split(delim)
                out.append(out_delim.join(f for k, f in enumerate(fields, 1) if chosen(k)) + "\n")
            else:  # GNU cut's characters are bytes
                raw = from_host(line)
                out.append(to_host("".join(c for k, c in enumerate(raw, 1) if chosen(k))) + "\n")
    p.out("".join(out))
    return inputs.status


@applet("paste")
def _u_paste(p: _Proc) -> int:
    opts, files = _getopt(p.args, "sd:z", {"serial": "s", "delimiters=": "d"})
    delims = _echo_escapes(_last(opts, "d", "\t") or "\t")[0] or "\t"
    inputs = _Inputs(p, files)
    texts = [(name, text) for name, text in inputs]
    out: list[str] = []

    def joined(items: list[str]) -> str:
        text = ""
        for k, item in enumerate(items):
            text += (delims[(k - 1) % len(delims)] if k else "") + item
        return text

    if "s" in opts:
        out = [joined(_lines(text)) + "\n" for _, text in texts]
    else:
        # every "-" reads on from the one standard input: `paste - -` pairs its lines
        stdin = deque(next((_lines(text) for name, text in texts if name == "-"), []))
        columns = [stdin if name == "-" else deque(_lines(text)) for name, text in texts]
        while any(columns):
            out.append(joined([c.popleft() if c else "" for c in columns]) + "\n")
    p.out("".join(out))
    return inputs.status

"""nl: numbered lines, with GNU nl's styles, formats, logical pages and sections."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..applet_io import _Inputs, _lines
from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last
from ..patterns import _regex_error, posix_regex
from ..quoting import locale_quote
from ..regex import compile_regex
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_LONGS: dict[str, str | None] = {
    "body-numbering=": "b",
    "section-delimiter=": "d",
    "footer-numbering=": "f",
    "header-numbering=": "h",
    "line-increment=": "i",
    "join-blank-lines=": "l",
    "number-format=": "n",
    "no-renumber": "p",
    "number-separator=": "s",
    "starting-line-number=": "v",
    "number-width=": "w",
}
_SECTIONS = ("header", "body", "footer")
#: the widest number GNU nl accepts for a width, a start or an increment
_INTMAX = 2**63 - 1


@dataclass
class _Style:
    """Which lines of a section get a number: ``a`` all, ``t`` non-empty, ``n`` none, ``p`` those
    matching ``regex``."""

    kind: str
    regex: re.Pattern[str] | None = None

    def numbers(self, line: str) -> bool:
        if self.kind == "a":
            return True
        if self.kind == "t":
            return line != ""
        if self.kind == "p":
            assert self.regex is not None
            return self.regex.search(line) is not None
        return False


def _style(value: str, section: str) -> _Style:
    if value in ("a", "t", "n"):
        return _Style(value)
    if value.startswith("p"):
        try:
            return _Style("p", compile_regex(posix_regex(value[1:], False)))
        except re.error as exc:
            raise _Refused(_regex_error(exc)) from None
    raise _UsageError(f"invalid {section} numbering style: {locale_quote(value)}")


def _number(value: str, what: str, low: int, high: int = _INTMAX) -> int:
    """An option's number as GNU reads it (xdectoimax): past what it may hold is EOVERFLOW's
    message, below ``low`` ERANGE's."""
    try:
        number = int(value, 10)
    except ValueError:
        raise _Refused(f"invalid {what}: {locale_quote(value)}") from None
    if not -_INTMAX - 1 <= number <= high:
        raise _Refused(f"invalid {what}: {locale_quote(value)}: Value too large for defined data type")
    if number < low:
        raise _Refused(f"invalid {what}: {locale_quote(value)}: Numerical result out of range")
    return number


@dataclass
class _Settings:
    styles: dict[str, _Style]
    delimiter: str
    increment: int
    join: int
    number_format: str
    renumber: bool
    separator: str
    start: int
    width: int
    markers: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        # a delimiter of one character is that character followed by ':' (GNU)
        d = self.delimiter + ":" if len(self.delimiter) == 1 else self.delimiter
        self.markers = {d * 3: "header", d * 2: "body", d: "footer"} if d else {}

    def format(self, number: int) -> str:
        if self.number_format == "ln":
            return f"{number:<{self.width}d}"
        if self.number_format == "rz":
            return f"{number:0{self.width}d}"
        return f"{number:>{self.width}d}"


def _settings(opts: dict[str, list[str]]) -> _Settings:
    styles = {
        "header": _style(_last(opts, "h") or "n", "header"),
        "body": _style(_last(opts, "b") or "t", "body"),
        "footer": _style(_last(opts, "f") or "n", "footer"),
    }
    number_format = _last(opts, "n") or "rn"
    if number_format not in ("ln", "rn", "rz"):
        raise _UsageError(f"invalid line numbering format: {locale_quote(number_format)}")
    return _Settings(
        styles=styles,
        delimiter=opts["d"][-1] if "d" in opts else "\\:",
        increment=_number(_last(opts, "i") or "1", "line number increment", -_INTMAX - 1),
        join=_number(_last(opts, "l") or "1", "line number of blank lines", 1),
        number_format=number_format,
        renumber="p" not in opts,
        separator=opts["s"][-1] if "s" in opts else "\t",
        start=_number(_last(opts, "v") or "1", "starting line number", -_INTMAX - 1),
        width=_number(_last(opts, "w") or "6", "line number field width", 1, 2**31 - 1),
    )


@applet("nl")
def _u_nl(p: _Proc) -> int:
    opts, files = _getopt(p.args, "b:d:f:h:i:l:n:ps:v:w:", _LONGS)
    s = _settings(opts)  # a bad value is refused on one line (_Refused)
    number = s.start
    section = "body"
    blanks = 0  # blank lines in a row (-l: only every Nth of them gets a number)
    unnumbered = " " * (s.width + len(s.separator))
    inputs = _Inputs(p, files, quote=str)
    for _, text in inputs:
        out = []
        for line in _lines(text):
            marker = s.markers.get(line)
            if marker is not None:
                section = marker
                if s.renumber:
                    number = s.start
                out.append("\n")
                continue
            numbered = s.styles[section].numbers(line)
            if numbered and line == "" and s.styles[section].kind == "a":
                blanks += 1
                numbered = blanks >= s.join
                if numbered:
                    blanks = 0
            else:
                blanks = 0
            if numbered:
                out.append(f"{s.format(number)}{s.separator}{line}\n")
                number += s.increment
            else:
                out.append(f"{unnumbered}{line}\n")
        p.out("".join(out))
    return inputs.status

"""numfmt: numbers to and from SI / IEC units, as GNU coreutils 9.1 prints them.

Values are scaled and rounded exactly (fractions, not floats): one decimal below 10 (``1.5M``),
none above (``13M``), rounded away from zero unless ``--round`` says otherwise; fields keep the
width their leading blanks gave them, as GNU pads them.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..quoting import locale_quote
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_SUFFIXES = "KMGTPEZY"
_SCALES = {"none": 0, "si": 1000, "iec": 1024, "iec-i": 1024, "auto": 0}
_ROUNDS = ("up", "down", "from-zero", "towards-zero", "nearest")
_NUMBER = re.compile(r"\s*([-+]?)(\d*)(?:\.(\d*))?")
_LONGS: dict[str, str | None] = {
    "from=": "from", "to=": "to", "suffix=": "suffix", "padding=": "padding", "round=": "round",
    "format=": "format", "field=": "field", "delimiter=": "d", "header=": "header",
    "invalid=": "invalid", "from-unit=": "from-unit", "to-unit=": "to-unit", "zero-terminated": "z",
    "grouping": None, "debug": None,
}  # fmt: skip


class _Invalid(Exception):
    """An input number numfmt cannot read (the message, quoted as GNU quotes it)."""


def _choice(value: str, option: str, valid: tuple[str, ...]) -> str:
    if value not in valid:
        listed = "".join(f"  - {locale_quote(v)}\n" for v in valid)
        raise _UsageError(
            f"invalid argument {locale_quote(value)} for {locale_quote('--' + option)}\nValid arguments are:\n{listed}".rstrip(
                "\n"
            )
        )
    return value


def _round(value: Fraction, mode: str) -> int:
    if mode == "up":
        return math.ceil(value)
    if mode == "down":
        return math.floor(value)
    if mode == "towards-zero":
        return math.trunc(value)
    if mode == "nearest":
        return int(math.copysign(math.floor(abs(value) + Fraction(1, 2)), value))
    return math.ceil(value) if value > 0 else math.floor(value)  # from-zero


def _parse(text: str, unit_from: str) -> Fraction:
    m = _NUMBER.match(text)
    assert m is not None
    sign, whole, frac = m.group(1), m.group(2), m.group(3)
    if not whole and not frac:
        raise _Invalid(f"invalid number: {locale_quote(text)}")
    value = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    rest = text[m.end() :]
    if rest:
        letter, tail = rest[0], rest[1:]
        if letter not in _SUFFIXES and letter != "k":
            raise _Invalid(f"invalid suffix in input: {locale_quote(text)}")
        if unit_from == "none":
            raise _Invalid(f"rejecting suffix in input: {locale_quote(text)} (consider using --from)")
        power = _SUFFIXES.index(letter.upper()) + 1
        base = _SCALES[unit_from]
        if unit_from == "iec-i" and tail != "i":
            raise _Invalid(f"missing 'i' suffix in input: {locale_quote(text)} (e.g Ki/Mi/Gi)")
        if unit_from == "auto":
            base = 1024 if tail == "i" else 1000
            tail = tail[1:] if tail == "i" else tail
        elif unit_from == "iec-i":
            tail = ""
        if tail:
            raise _Invalid(f"invalid suffix in input: {locale_quote(text)}")
        value *= base**power
    return -value if sign == "-" else value


def _fixed(value: Fraction, mode: str, precision: int) -> str:
    """``value`` rounded to ``precision`` decimals, written out."""
    scaled = _round(value * 10**precision, mode)
    if not precision:
        return str(scaled)
    whole, part = divmod(abs(scaled), 10**precision)
    return f"{'-' if scaled < 0 else ''}{whole}.{part:0{precision}d}"


def _scaled(value: Fraction, base: int) -> tuple[Fraction, int]:
    """``value`` divided by ``base`` until under it (up to Y), and how many times it was."""
    power = 0
    while abs(value) >= base and power < len(_SUFFIXES):
        value /= base
        power += 1
    return value, power


def _human(value: Fraction, unit_to: str, mode: str, precision: int = 0) -> str:
    base = _SCALES[unit_to]
    if not base:
        return _fixed(value, mode, precision)
    value, power = _scaled(value, base)
    if power == 0:
        number = _round(value, mode)
        if abs(number) < base:
            return str(number)
        value, power = Fraction(number, base), 1
    if abs(value) < 10:
        tenths = _round(value * 10, mode)
        if abs(tenths) >= 100:
            shown = str(tenths // 10)
        else:
            shown = f"{'-' if tenths < 0 else ''}{abs(tenths) // 10}.{abs(tenths) % 10}"
    else:
        whole = _round(value, mode)
        if abs(whole) >= base and power < len(_SUFFIXES):
            power += 1
            shown = f"{'-' if whole < 0 else ''}1.0"
        else:
            shown = str(whole)
    return shown + _SUFFIXES[power - 1] + ("i" if unit_to == "iec-i" else "")


class _Numfmt:
    def __init__(self, p: _Proc, opts: dict) -> None:
        self.unit_from = _choice(
            _last(opts, "from", "none") or "none", "from", ("none", "auto", "si", "iec", "iec-i")
        )
        self.unit_to = _choice(_last(opts, "to", "none") or "none", "to", ("none", "si", "iec", "iec-i"))
        self.mode = _choice(_last(opts, "round", "from-zero") or "from-zero", "round", _ROUNDS)
        self.invalid = _choice(
            _last(opts, "invalid", "abort") or "abort", "invalid", ("abort", "fail", "warn", "ignore")
        )
        self.suffix = _last(opts, "suffix") or ""
        self.delimiter = _last(opts, "d")
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise _Refused("the delimiter must be a single character")
        padding = _last(opts, "padding")
        if (padding is not None and not re.fullmatch(r"-?\d+", padding)) or padding == "0":
            raise _Refused(f"invalid padding value {locale_quote(padding or '')}")
        self.padding = int(padding) if padding else 0
        field = _last(opts, "field", "1") or "1"
        if not field.isdigit():
            raise _UsageError(f"invalid field value {locale_quote(field)}")
        if int(field) < 1:
            raise _UsageError("fields are numbered from 1")
        self.field = int(field)
        self.format = _format(_last(opts, "format"))
        self.p = p
        self.failed = False

    def number(self, text: str) -> str:
        """One field converted (the suffix given by ``--suffix`` is read off and put back)."""
        core = text[: -len(self.suffix)] if self.suffix and text.endswith(self.suffix) else text
        value = _parse(core, self.unit_from)
        # with no unit to read, the number keeps the decimals it was given (GNU's precision)
        given = _NUMBER.match(core)
        digits = len(given.group(3) or "") if given and self.unit_from == "none" else 0
        if self.format is not None:
            width, precision, left = self.format
            if precision is not None and self.unit_to == "none":
                shown = _fixed(value, self.mode, precision)
            elif precision is not None:
                shown = _human_precision(value, self.unit_to, self.mode, precision)
            else:
                shown = _human(value, self.unit_to, self.mode, digits)
            shown += self.suffix
            return shown.ljust(width) if left else shown.rjust(width)
        shown = _human(value, self.unit_to, self.mode, digits) + self.suffix
        if self.padding:
            return shown.rjust(self.padding) if self.padding > 0 else shown.ljust(-self.padding)
        return shown

    def line(self, text: str) -> str | None:
        """The line with its field converted; None when numfmt must stop (``--invalid=abort``)."""
        parts = _fields(text, self.delimiter)
        k = self.field - 1
        if k >= len(parts):
            return text
        lead, body = parts[k]
        try:
            shown = self.number(body)
        except _Invalid as exc:
            if self.invalid != "ignore":
                self.p.err(str(exc))
            if self.invalid == "abort":
                return None
            self.failed = self.failed or self.invalid == "fail"
            return text
        if lead and not self.padding and self.format is None:
            shown = shown.rjust(len(lead) + len(body))
            lead = ""
        parts[k] = (lead, shown)
        sep = self.delimiter or ""
        return sep.join(a + b for a, b in parts)


def _fields(text: str, delimiter: str | None) -> list[tuple[str, str]]:
    """``(leading blanks, field)`` pairs; with a delimiter the fields are split at it."""
    if delimiter is not None:
        return [("", part) for part in text.split(delimiter)]
    return [(m.group(1), m.group(2)) for m in re.finditer(r"(\s*)(\S+)", text)] or [("", text)]


def _format(spec: str | None) -> tuple[int, int | None, bool] | None:
    if spec is None:
        return None
    if "%" not in spec:
        raise _Refused(f"format {locale_quote(spec)} has no % directive")
    m = re.fullmatch(r"([^%]*)%(-?)(\d*)(?:\.(\d+))?f(.*)", spec)
    if m is None or m.group(1) or m.group(5):
        raise _Refused(f"invalid format {locale_quote(spec)}, directive must be %[0'-][w][.p]f")
    return int(m.group(3) or 0), int(m.group(4)) if m.group(4) else None, m.group(2) == "-"


def _human_precision(value: Fraction, unit_to: str, mode: str, precision: int) -> str:
    value, power = _scaled(value, _SCALES[unit_to])
    unit = _SUFFIXES[power - 1] + ("i" if unit_to == "iec-i" else "") if power else ""
    return _fixed(value, mode, precision) + unit


@applet("numfmt")
def _u_numfmt(p: _Proc) -> int:
    args = ["--header=1" if a == "--header" else a for a in p.args]  # an optional value
    opts, numbers = _getopt(args, "d:z", _LONGS)
    job = _Numfmt(p, opts)
    if numbers:
        lines = numbers
        end = "\n"
    else:
        end = "\0" if "z" in opts else "\n"
        text = p.stdin()
        lines = text.split(end)
        if lines and lines[-1] == "":
            lines.pop()
        header = opts.get("header")
        skip = int(header[-1]) if header and header[-1].isdigit() else 0
        for line in lines[:skip]:
            p.out(line + end)
        lines = lines[skip:]
    current().spend(1 + len(lines))
    for line in lines:
        shown = job.line(line)
        if shown is None:
            return 2
        p.out(shown + end)
    return 2 if job.failed else 0

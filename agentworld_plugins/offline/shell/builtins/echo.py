"""echo and printf (builtins and /usr/bin programs)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..dates import format_date
from ..escapes import _echo_escapes
from ..limits import reserve
from ..options import shopt_on
from ..quoting import _shell_quote
from ..registry import applet, builtin

if TYPE_CHECKING:
    from ..proc import _Proc


@builtin("echo")
@applet("echo")
def _b_echo(p: _Proc) -> int:
    args = list(p.args)
    newline = True
    escapes = shopt_on(p.vm, "xpg_echo")
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for c in args[0][1:]:
            if c == "n":
                newline = False
            elif c == "e":
                escapes = True
            else:
                escapes = False
        args.pop(0)
    text = " ".join(args)
    if escapes:
        text, stop = _echo_escapes(text)
        if stop:
            p.out(text)
            return 0
    p.out(text + ("\n" if newline else ""))
    return 0


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(\([^)]*\)T|[diouxXeEfFgGcsbq%])")


def _printf_number(p: _Proc, arg: str, conv: str) -> int | float:
    text = arg.strip()
    if not text:
        return 0
    if text[0] in "'\"" and len(text) > 1:
        return ord(text[1])
    try:
        if conv in "eEfFgG":
            return float(text)
        m = re.fullmatch(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0([0-7]+))", text)  # C's 0x hex and 0 octal
        if m:
            value = int(m.group(2), 16) if m.group(2) else int(m.group(3), 8)
            return -value if m.group(1) == "-" else value
        return int(text)
    except ValueError:
        m = re.match(r"[-+]?\d+", text)
        p.shell_err(f"printf: {arg}: invalid number")
        p.vm._printf_error = True  # type: ignore[attr-defined]
        return int(m.group(0)) if m else 0


def _printf_format(p: _Proc, fmt: str, args: list[str]) -> str:
    out: list[str] = []
    args = list(args)
    first = True
    while first or args:
        first = False
        consumed = False
        pos = 0
        for m in _PRINTF_SPEC.finditer(fmt):
            text, stop = _echo_escapes(fmt[pos : m.start()], printf_format=True)
            out.append(text)
            if stop:
                return "".join(out)
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            if width == "*":
                width = args.pop(0) if args else "0"
            if prec == "*":
                prec = args.pop(0) if args else "0"
            for number in (width, prec):  # a width is allocated: refuse one past the budget first
                if number and number.lstrip("-").isdigit():
                    reserve(abs(int(number)))
            arg = args.pop(0) if args else None
            consumed = consumed or arg is not None
            spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
            if conv.endswith("T"):  # %(FORMAT)T: a time (seconds since the epoch; -1 or none: now)
                when = p.fs.now() if arg in (None, "", "-1", "-2") else int(_printf_number(p, arg, "d"))
                out.append((spec + "s") % format_date(when, conv[1:-2]))
            elif conv == "q":
                out.append((spec + "s") % _shell_quote(arg or ""))
            elif conv == "s":
                out.append((spec + "s") % (arg or ""))
            elif conv == "b":
                text, stop = _echo_escapes(arg or "")
                out.append((spec + "s") % text)
                if stop:
                    return "".join(out)
            elif conv == "c":
                out.append((spec + "s") % ((arg or "")[:1]))
            else:
                value = _printf_number(p, arg or "0", conv)
                py_conv = "d" if conv in "iu" else conv
                if py_conv in "doxX":
                    value = int(value)
                out.append((spec + py_conv) % value)
        text, stop = _echo_escapes(fmt[pos:], printf_format=True)
        out.append(text)
        if stop or not consumed:
            break
    return "".join(out)


@builtin("printf")
@applet("printf")
def _b_printf(p: _Proc) -> int:
    args = list(p.args)
    target = None
    if len(args) >= 2 and args[0] == "-v":
        target = args[1]
        args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        p.ctx.err.write("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    p.vm._printf_error = False  # type: ignore[attr-defined]
    text = _printf_format(p, args[0], args[1:])
    if target:
        p.vm._set_var(target, text)
    else:
        p.out(text)
    return 1 if getattr(p.vm, "_printf_error", False) else 0

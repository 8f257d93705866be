"""cat, tac, rev and nl."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..applet_io import _Inputs, _lines
from ..getopt import _getopt
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("cat")
def _u_cat(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "nbAEsTvtue",
        {
            "number": "n",
            "number-nonblank": "b",
            "show-all": "A",
            "show-ends": "E",
            "squeeze-blank": "s",
            "show-tabs": "T",
        },
    )
    inputs = _Inputs(p, files)
    number = 0
    for _, text in inputs:
        if not (set(opts) & set("nbAEsT")):
            p.out(text)
            continue
        out: list[str] = []
        blank_run = False
        pieces = text.split("\n")
        for k, line in enumerate(pieces):
            last = k == len(pieces) - 1
            if last and line == "":
                break
            if "s" in opts:
                if line == "":
                    if blank_run:
                        continue
                    blank_run = True
                else:
                    blank_run = False
            shown = line
            if "T" in opts or "A" in opts:
                shown = shown.replace("\t", "^I")
            if "E" in opts or "A" in opts:
                shown += "$" if not last else ""
            if "b" in opts:
                if line:
                    number += 1
                    shown = f"{number:6d}\t{shown}"
            elif "n" in opts:
                number += 1
                shown = f"{number:6d}\t{shown}"
            out.append(shown + ("" if last else "\n"))
        p.out("".join(out))
    return inputs.status


@applet("tac")
def _u_tac(p: _Proc) -> int:
    _, files = _getopt(p.args, "bs:r")
    inputs = _Inputs(p, files, "failed to open {} for reading: {}", quote_always)
    for _, text in inputs:
        p.out("".join(line + "\n" for line in reversed(_lines(text))))
    return inputs.status


@applet("rev")
def _u_rev(p: _Proc) -> int:
    inputs = _Inputs(p, p.args, "cannot open {}: {}", str)
    for _, text in inputs:
        p.out("".join(line[::-1] + "\n" for line in _lines(text)))
    return inputs.status


@applet("nl")
def _u_nl(p: _Proc) -> int:
    _, files = _getopt(p.args, "b:n:w:s:v:")
    inputs = _Inputs(p, files, quote=str)
    number = 0
    for _, text in inputs:
        out = []
        for line in _lines(text):
            if line.strip():
                number += 1
                out.append(f"{number:6d}\t{line}\n")
            else:
                out.append("\n")
        p.out("".join(out))
    return inputs.status

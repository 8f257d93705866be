"""A function's definition as ``declare -f`` and ``type`` print it: bash's own layout, not the
text as typed (``f () ``, ``{ ``, each command on a line of its own four blanks in, ``;`` between
them, single blanks between words, ``> file`` and ``2>&1`` for redirections).

Bodies of simple commands, assignments, pipelines, ``!``, ``&&``/``||`` lists and ``&`` are
printed; a body holding a compound command (``if``, loops, ``case``, ``[[ ]]``, ``(( ))``, a
group, a subshell, a here-document) is not laid out here: :func:`definition` returns None and
the caller says it is not simulated.
"""

from __future__ import annotations

import re
from typing import Any

from .arith_command import ARITH_COMMAND, ARITH_FOR
from .case_command import CASE_HEAD
from .timed import timed_mark

_ARITH = re.compile(r"\$\{(__AWARITH\d+)\}")
_ARRAY = re.compile(r"(__AWARRAY\d+)")
_MARKERS = (ARITH_COMMAND, ARITH_FOR, CASE_HEAD, "\\[\\[")


class _Unprintable(Exception):
    """The body holds what this printer does not lay out."""


def definition(name: str, body: Any, src: Any) -> str | None:
    """``name``'s definition, or None when its body is beyond this printer."""
    inner = [part for part in body.list if part.kind != "reservedword"] if body.kind == "compound" else []
    if body.kind != "compound" or body.list[0].word != "{":
        return None
    try:
        lines = [_list(part, src) for part in inner]
    except _Unprintable:
        return None
    text = ";\n    ".join(line for line in lines if line)
    return f"{name} () \n{{ \n    {text}\n}}"


def _list(node: Any, src: Any) -> str:
    if node.kind != "list":
        return _pipeline(node, src)
    out: list[str] = []
    for part in node.parts:
        if part.kind != "operator":
            out.append(_pipeline(part, src))
        elif part.op in (";", "\n"):
            out.append(";\n    ")
        else:
            out.append(f" {part.op} ")
    while out and out[-1] == ";\n    ":
        out.pop()
    if out and out[-1] == " & ":
        out[-1] = " &"
    return "".join(out)


def _pipeline(node: Any, src: Any) -> str:
    if node.kind == "command":
        return _command(node, src)
    if node.kind != "pipeline":
        raise _Unprintable(node.kind)
    out: list[str] = []
    for part in node.parts:
        if part.kind == "reservedword" and part.word == "!":
            if timed_mark(src.text, part.pos[0]) is not None:
                raise _Unprintable("time")
            out.append("! ")
        elif part.kind == "pipe":
            out.append(f" {part.pipe} ")
        else:
            out.append(_command(part, src))
    return "".join(out)


def _command(node: Any, src: Any) -> str:
    if node.kind != "command":
        raise _Unprintable(node.kind)
    words: list[str] = []
    for part in node.parts:
        if part.kind in ("word", "assignment"):
            words.append(_written(part, src))
        elif part.kind == "redirect":
            words.append(_redirect(part, src))
        else:
            raise _Unprintable(part.kind)
    return " ".join(words)


def _written(word: Any, src: Any) -> str:
    """A word as the script wrote it (the parser's stand-ins for ``$(( ))`` and ``a=( )`` put
    back)."""
    raw = src.text[word.pos[0] : word.pos[1]]
    if any(marker in raw for marker in _MARKERS):
        raise _Unprintable(raw)
    raw = _ARITH.sub(lambda m: f"$(({src.arith[m.group(1)]}))", raw)
    return _ARRAY.sub(lambda m: f"({' '.join(src.arith[m.group(1)].split())})", raw)


def _redirect(node: Any, src: Any) -> str:
    lead = f"{node.input}{node.type}" if isinstance(node.input, int) else node.type
    target = node.output
    if isinstance(target, int) or target == "-":
        return f"{lead}{target}"
    if node.type == "<" and target.pos[0] in src.heredocs:
        raise _Unprintable("here-document")
    return f"{lead} {_written(target, src)}"

"""awk's tokens: words, numbers, strings, regexes (awk's regex-or-division rule), punctuation,
the parentheses and braces open at each (for mawk's ``missing )`` messages) and the scanner's
complaints mawk gives (``extra '}'``, ``runaway string constant``, ``unexpected character``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

KEYWORDS = {"BEGIN", "END", "function", "if", "else", "while", "for", "do", "break", "continue",
            "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf"}  # fmt: skip
BUILTINS = {"length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "sin", "cos", "atan2",
            "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system", "close",
            "fflush", "systime", "strftime", "mktime"}  # fmt: skip
#: the arguments each built-in takes (mawk checks them as it compiles)
ARITY = {"length": (0, 1), "substr": (2, 3), "index": (2, 2), "split": (2, 3), "sub": (2, 3),
         "gsub": (2, 3), "match": (2, 2), "sprintf": (1, 255), "sin": (1, 1), "cos": (1, 1),
         "atan2": (2, 2), "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1), "int": (1, 1), "rand": (0, 0),
         "srand": (0, 1), "tolower": (1, 1), "toupper": (1, 1), "system": (1, 1), "close": (1, 1),
         "fflush": (0, 1), "systime": (0, 0), "strftime": (0, 3), "mktime": (1, 1)}  # fmt: skip
#: mawk's built-in variables, which cannot be arrays
SCALAR_VARS = {"NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "FILENAME", "SUBSEP", "RSTART", "RLENGTH",
               "CONVFMT", "OFMT", "ARGC"}  # fmt: skip

_PUNCT = ("+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "++", "--", "&&", "||", ">>",
          "!~", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!", ">",
          "<", "|", "?", ":", "~", "$", "=")  # fmt: skip
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: tokens after which ``/`` divides (an operand ended); anywhere else it starts a regex
_OPERAND_END = {"NUMBER", "STRING", "ERE", "NAME", "BUILTIN", ")", "]", "$", "++", "--"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "/": "/", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v"}  # fmt: skip


class AwkSyntaxError(Exception):
    """The program does not compile: mawk's messages, each ``line N: text`` (or ``N: unexpected
    character 'c'``), in the order mawk gives them."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(messages[-1])
        self.messages = messages


@dataclass
class Tok:
    kind: str  # NUMBER STRING ERE NAME FUNC_NAME BUILTIN NEWLINE EOF, a keyword or a punctuator
    value: Any
    line: int
    text: str = ""  # a number as written
    #: parentheses and braces open once this token is read (what mawk's scanner counts)
    parens: int = 0
    braces: int = 0


def unescape(text: str) -> str:
    """The escapes of an awk string (``-v`` values and ``var=value`` operands get them too)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        d = text[i + 1]
        if d in _ESCAPES:
            out.append(_ESCAPES[d])
            i += 2
        elif d in "01234567":
            m = re.match(r"[0-7]{1,3}", text[i + 1 :])
            assert m is not None
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        else:  # an unknown escape keeps its backslash (what a regex built from it needs)
            out.append("\\" + d)
            i += 2
    return "".join(out)


def tokenize(src: str, notes: list[tuple[int, str]] | None = None) -> list[Tok]:
    """The tokens of ``src``; ``notes`` gets mawk's scanner complaints (an extra ``)`` or ``}``,
    dropped) as (index of the token they come before, message)."""
    toks: list[Tok] = []
    i, line, n = 0, 1, len(src)
    parens = braces = 0

    def prev_kind() -> str:
        return toks[-1].kind if toks else ""

    while i < n:
        c = src[i]
        if c == "\\" and src.startswith("\n", i + 1):
            i, line = i + 2, line + 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c == "\n":
            toks.append(Tok("NEWLINE", None, line))
            i, line = i + 1, line + 1
            continue
        if c == '"':
            j = i + 1
            buf: list[str] = []
            while j < n and src[j] != '"':
                if src[j] == "\n":
                    j = n
                    break
                if src[j] == "\\" and j + 1 < n:
                    if src[j + 1] == "\n":
                        j += 2
                        continue
                    buf.append(src[j : j + 2])
                    j += 2
                    continue
                buf.append(src[j])
                j += 1
            if j >= n:
                raise AwkSyntaxError([f'line {line}: runaway string constant "{_head(src, i)} ...'])
            toks.append(Tok("STRING", unescape("".join(buf)), line))
            i = j + 1
            continue
        if c == "/" and prev_kind() not in _OPERAND_END:
            j = i + 1
            buf = []
            in_bracket = False
            while j < n and (src[j] != "/" or in_bracket):
                if src[j] == "\n":
                    j = n
                    break
                if src[j] == "\\" and j + 1 < n:
                    buf.append("/" if src[j + 1] == "/" else src[j : j + 2])
                    j += 2
                    continue
                if src[j] == "[" and not in_bracket:
                    in_bracket = True
                    buf.append("[")
                    j += 1
                    if j < n and src[j] == "^":
                        buf.append("^")
                        j += 1
                    if j < n and src[j] == "]":
                        buf.append("]")
                        j += 1
                    continue
                if src[j] == "]" and in_bracket:
                    in_bracket = False
                buf.append(src[j])
                j += 1
            if j >= n:
                raise AwkSyntaxError([f"line {line}: runaway regular expression /{_head(src, i)} ..."])
            toks.append(Tok("ERE", "".join(buf), line))
            i = j + 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            m = _NUMBER.match(src, i)
            assert m is not None
            toks.append(Tok("NUMBER", float(m.group(0)), line, m.group(0)))
            i = m.end()
            continue
        m = _NAME.match(src, i)
        if m:
            word = m.group(0)
            i = m.end()
            if word in KEYWORDS:
                toks.append(Tok(word, word, line))
            elif word in BUILTINS:
                toks.append(Tok("BUILTIN", word, line))
            elif i < n and src[i] == "(":
                toks.append(Tok("FUNC_NAME", word, line))
            else:
                toks.append(Tok("NAME", word, line))
            continue
        for punct in _PUNCT:
            if src.startswith(punct, i):
                i += len(punct)
                if punct in ")}" and (parens if punct == ")" else braces) == 0:
                    if notes is not None:  # mawk drops it, and a newline there is then out of place
                        notes.append((len(toks), f"line {line}: extra '{punct}'"))
                        if punct == "}" and src[i:].lstrip(" \t").startswith("\n"):
                            notes.append((len(toks), f"line {line}: syntax error at or near end of line"))
                    break
                parens += {"(": 1, ")": -1}.get(punct, 0)
                braces += {"{": 1, "}": -1}.get(punct, 0)
                toks.append(Tok(punct, punct, line))
                break
        else:
            shown = f"'{c}'" if " " < c < "\x7f" else f"0x{ord(c[0]) & 0xFF:02x}"
            raise AwkSyntaxError([f"{line}: unexpected character {shown}"])
    toks.append(Tok("EOF", None, line))
    parens = braces = 0
    for t in toks:
        parens += {"(": 1, ")": -1}.get(t.kind, 0)
        braces += {"{": 1, "}": -1}.get(t.kind, 0)
        t.parens, t.braces = parens, braces
    return toks


def _head(src: str, start: int) -> str:
    """The first ten characters of a runaway string or regex, as mawk quotes them."""
    return src[start + 1 : start + 11].split("\n")[0]

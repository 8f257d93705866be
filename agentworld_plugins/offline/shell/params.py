"""Variables and parameter expansion ($?, ${VAR:-x}, ${#VAR}, ${VAR%x}, $((...)))."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .arith import _arith_eval
from .arrays import _array_slice, substring_bounds
from .brackets import _replace_glob, _split_unescaped
from .callstack import shell_variable, stack_array
from .constants import BASH_VERSION
from .errors import _ExpansionError, _unbound
from .expand import _QUOTED
from .indirect import Indirection, indirection
from .jobtable import last_pid
from .names import _NAME
from .options import SET_LETTERS, set_options, shopt_on
from .patterns import _escape_glob, glob_regex
from .state import MachineState
from .transforms import TRANSFORMS, positional_assignment, transform

if TYPE_CHECKING:
    from .proc import _Ctx


_PIPESTATUS = re.compile(r"(#?)PIPESTATUS\[([^\]]*)\]")


#: bash's own arrays (callstack.py)
_OWN_ARRAYS = frozenset({"FUNCNAME", "BASH_SOURCE", "BASH_LINENO", "BASH_VERSINFO"})


class ParamMixin(MachineState):
    """Variables and parameter expansion: $?, ${VAR:-x}, ${#VAR}, ${VAR%x}, $((...)).

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _special(self, c: str) -> str:
        if c == "?":
            return str(self.last_status)
        if c == "$":
            return "1"
        if c == "#":
            return str(len(self.positional))
        if c in "@*":
            return " ".join(self.positional)
        if c == "!":
            return last_pid(self)
        if c == "-":
            held = set_options(self)
            on = {letter for letter, name in SET_LETTERS.items() if name in held}
            on.update("is" if self.interactive else "c")
            # bash lists them in its own table's order: `set -eux` under bash -c gives ehuxBc
            return "".join(f for f in "abefhikmnptuvxBCEHPTcs" if f in on)
        if c == "0":
            return self.argv0
        k = int(c)
        return self.positional[k - 1] if 0 < k <= len(self.positional) else ""

    def getvar(self, name: str) -> str | None:
        if name == "RANDOM":
            self._rand = (self._rand * 1103515245 + 12345) % (2**31)
            return str(self._rand % 32768)
        if name == "SECONDS":
            return "0"
        if name == "PPID":
            return "0"
        if name == "BASH_VERSION":
            return BASH_VERSION
        if name == "BASHPID":
            return "1"
        if name == "PIPESTATUS":
            return str(self._pipestatus[0])
        found = self.vars.get(self._ref(name))
        if found is None and name.isupper():
            if name in _OWN_ARRAYS:
                items = stack_array(self, name)
                return items[0] if items else None
            return shell_variable(self, name)
        return found

    def pipestatus_words(self) -> list[str]:
        """``"${PIPESTATUS[@]}"``: one word per command of the last pipeline."""
        return [str(s) for s in self._pipestatus]

    def _pipestatus_item(self, index: str, ctx: _Ctx, *, length: bool) -> str:
        """``${PIPESTATUS[i]}``, ``${PIPESTATUS[@]}`` and their lengths (``${#...}``); the one
        array the offline shell has (bash's own, set after every pipeline)."""
        words = self.pipestatus_words()
        if index in ("@", "*"):
            return str(len(words)) if length else " ".join(words)
        k = _arith_eval(self.expand_text(index, ctx), lambda v: self.getvar(v) or "")
        if k < 0:
            k += len(words)
        value = words[k] if 0 <= k < len(words) else ""
        return str(len(value)) if length else value

    def _arith(self, expr: str, ctx: _Ctx) -> int:
        return self._arith_expanded(self.expand_text(expr, ctx))

    def _arith_expanded(self, expanded: str) -> int:
        """The value of an arithmetic text whose ``$``-expansions are done: its assignments made,
        ``name[sub]`` read and set as array elements, ``set -u`` heeded."""

        def lookup(name: str) -> str:
            if name.endswith("]") and "[" in name:
                base, _, sub = name[:-1].partition("[")
                value = self._array_get(base, self._array_key(base, sub, None))
            else:
                value = self.getvar(name)
            if value is None and self.nounset:
                raise _unbound(name)
            return value or ""

        return _arith_eval(expanded, lookup, lambda name, value: self._assign(name, str(value)))

    def _param(self, inner: str, ctx: _Ctx) -> str:
        if inner in ctx.src.arith:
            return str(self._arith(ctx.src.arith[inner], ctx))
        if inner[:1] == "!" and len(inner) > 1:
            named = indirection(self, inner, ctx)
            if isinstance(named, list):
                return " ".join(named)
            if named is not None:
                return " ".join(self._indirected(named, ctx, words=False))
        if "PIPESTATUS[" in inner:
            m = _PIPESTATUS.fullmatch(inner)
            if m:
                return self._pipestatus_item(m.group(2), ctx, length=bool(m.group(1)))
        if "[" in inner:
            got = self._array_param(inner, ctx)
            if got is not None:
                return " ".join(got) if isinstance(got, list) else got
        if inner.startswith("#") and len(inner) > 1 and (_NAME.fullmatch(inner[1:]) or inner[1:] in "@*#?"):
            if inner[1:] in "@*":
                return str(len(self.positional))
            value = self._value(inner[1:])
            if value is None and self.nounset:
                raise _unbound(inner[1:])
            return str(len(value or ""))
        if inner.startswith("!") and self._has_attr(inner[1:], "n"):  # a nameref: the name it stands for
            return self.vars.get(inner[1:], "")
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?$#!@*-])", inner)
        if not m:
            raise _ExpansionError(f"${{{inner}}}: bad substitution", fatal=True)
        name = m.group(1)
        rest = inner[m.end() :]
        if rest and name in ("@", "*"):
            words = self._positional_words(rest, ctx)
            return words if isinstance(words, str) else " ".join(words)
        value = self._value(name)
        is_set = value is not None
        val = value or ""
        if not is_set and self.nounset and rest.lstrip(":")[:1] not in ("-", "=", "+", "?"):
            raise _unbound(f"${name}" if name.isdigit() else name)
        if not rest:
            return val
        return self._param_ops(name, value, rest, ctx)

    def _param_ops(self, name: str, value: str | None, rest: str, ctx: _Ctx) -> str:
        """The operator part of ``${name...}`` (``rest``: ``:-x``, ``#pat``, ``/a/b``, ``:1:2``,
        ``^^``, ...) applied to ``value`` (None: unset)."""
        is_set = value is not None
        val = value or ""
        for op in (":-", ":=", ":+", ":?", "-", "=", "+", "?"):
            if rest.startswith(op):
                word = rest[len(op) :]
                usable = (is_set and val != "") if op.startswith(":") else is_set
                kind = op[-1]
                if kind == "-":
                    return val if usable else self.expand_text(word, ctx)
                if kind == "=":
                    if usable:
                        return val
                    new = self.expand_text(word, ctx)
                    self._assign(name, new)
                    return new
                if kind == "+":
                    return self.expand_text(word, ctx) if usable else ""
                if usable:
                    return val
                default = "parameter null or not set" if op.startswith(":") else "parameter not set"
                error = _ExpansionError(
                    f"{name}: {self.expand_text(word, ctx) if word else default}", fatal=True
                )
                error.unbound = True  # bash -c ends with 127 after it, as after set -u's error
                raise error
        if rest.startswith(("##", "#", "%%", "%")):
            op = rest[:2] if rest[:2] in ("##", "%%") else rest[:1]
            rx = glob_regex(self._pattern_text(rest[len(op) :], ctx), extended=shopt_on(self, "extglob"))
            rng = range(len(val) + 1)
            # shortest prefix or longest suffix first: k ascending; the others descending
            for k in reversed(rng) if op in ("##", "%") else rng:
                if op[0] == "#" and rx.match(val[:k]):
                    return val[k:]
                if op[0] == "%" and rx.match(val[k:]):
                    return val[:k]
            return val
        if rest.startswith("/"):
            body = rest[1:]
            mode = ""
            if body[:1] in "/#%":
                mode, body = body[:1], body[1:]
            pat_raw, _, rep_raw = _split_unescaped(body, "/")
            pattern = self._pattern_text(pat_raw, ctx)
            rep = self.expand_text(rep_raw, ctx)
            return _replace_glob(val, pattern, rep, mode, shopt_on(self, "nocasematch"))
        if rest.startswith(":"):
            m2 = re.fullmatch(r":\s*(-?\s*[^:]*)(?::(.*))?", rest, re.S)
            if m2:
                start = _arith_eval(self.expand_text(m2.group(1), ctx), lambda v: self.getvar(v) or "")
                length_text = "" if m2.group(2) is None else self.expand_text(m2.group(2), ctx)
                length = None
                if m2.group(2) is not None:
                    length = _arith_eval(length_text, lambda v: self.getvar(v) or "")
                return val[substring_bounds(len(val), start, length, length_text, False)]
        if rest in ("^^", ",,", "^", ","):
            if rest == "^^":
                return val.upper()
            if rest == ",,":
                return val.lower()
            return (val[:1].upper() if rest == "^" else val[:1].lower()) + val[1:]
        if rest[:1] == "@" and len(rest) <= 2:
            if rest[1:] in TRANSFORMS and rest != "@P":
                return transform(self, name.partition("[")[0], value, rest[1])
            if value is None:  # bash looks at the operator only when there is a value
                return ""
        raise _ExpansionError(f"${{{name}{rest}}}: bad substitution", fatal=True)

    def _indirected(self, got: Indirection, ctx: _Ctx, *, words: bool) -> list[str]:
        """``${!p rest}``: the parameter named by ``p``'s value, with ``rest`` (``words``: inside
        double quotes, where ``a[@]`` or ``@`` named gives a word per element)."""
        text = got.target + got.rest
        if not text:  # an unset element named nothing
            return [""]
        try:
            if got.target == "!":  # `$!`, whose `${!...}` would be indirect again
                value = self._special("!")
                return [self._param_ops("!", value, got.rest, ctx) if got.rest else value]
            found = self._param_words(text, ctx) if words else None
            return found if found is not None else [self._param(text, ctx)]
        except _ExpansionError as error:
            if error.unbound and error.message == f"{got.target}: unbound variable":
                error.message = f"{got.written}: unbound variable"  # bash names the `!r` written
            raise

    def _positional_words(self, rest: str, ctx: _Ctx) -> list[str] | str:
        """``${@rest}`` / ``${*rest}``: a slice (from ``$0`` at offset 0), a default that sees
        them joined (a string), or the operator applied to each parameter."""
        if rest.startswith(":") and rest[1:2] not in ("-", "=", "+", "?"):

            def ev(text: str) -> int:
                return _arith_eval(self.expand_text(text, ctx), lambda v: self.getvar(v) or "")

            sliced = _array_slice([self.argv0, *self.positional], rest[1:], ev)
            if sliced is not None:
                return sliced
        if rest.lstrip(":")[:1] in ("-", "=", "+", "?"):
            joined = " ".join(self.positional)
            usable = bool(self.positional) and (joined != "" or not rest.startswith(":"))
            if usable and rest.lstrip(":")[0] != "+":  # set: the parameters, a word each
                return list(self.positional)
            return self._param_ops("@", joined if self.positional else None, rest, ctx)
        if rest == "@A":
            return [positional_assignment(self.positional)] if self.positional else []
        if rest in ("@a", "@K", "@k"):  # bash: nothing for @a; @K/@k quote as @Q
            rest = "@Q" if rest != "@a" else rest
        return [self._param_ops("@", v, rest, ctx) for v in self.positional]

    def _param_words(self, inner: str, ctx: _Ctx) -> list[str] | None:
        """The words ``"${inner}"`` gives inside double quotes when it is ``@``, ``name[@]`` (with
        its operators) or ``!name[@]``: one per element; None for any other ``${...}``."""
        if inner == "@":
            return list(self.positional)
        if inner[:1] == "!" and len(inner) > 1:
            named = indirection(self, inner, ctx)
            if isinstance(named, list):  # "${!prefix@}": a word per name; "${!prefix*}": one
                return named if inner[-1] == "@" else [self.vars.get("IFS", " \t\n")[:1].join(named)]
            if named is not None:
                return self._indirected(named, ctx, words=True)
        if inner[:1] == "@" and len(inner) > 1:
            words = self._positional_words(inner[1:], ctx)
            return [words] if isinstance(words, str) else words
        if inner[:1] == "*" and len(inner) > 1:  # "${*rest}": one word, joined with IFS's first
            words = self._positional_words(inner[1:], ctx)
            return [words if isinstance(words, str) else self.vars.get("IFS", " \t\n")[:1].join(words)]
        if "[" not in inner or "PIPESTATUS" in inner:
            return None
        parts = self._subscripted(inner)
        if parts is None or parts[2] == "*" or parts[0] == "#":
            if parts is not None and parts[2] == "*" and not parts[0]:  # "${a[*]}": one word
                got = self._array_param(inner, ctx)
                if isinstance(got, list):
                    return [self.vars.get("IFS", " \t\n")[:1].join(got)]
            return None
        got = self._array_param(inner, ctx)
        return got if isinstance(got, list) else None

    def _pattern_text(self, raw: str, ctx: _Ctx) -> str:
        """A pattern word: quoted parts are literal, unquoted glob characters stay special."""
        segs = self._segments(raw, ctx, None, {})
        return "".join(t if k != _QUOTED else _escape_glob(t) for t, k in segs)

    def _value(self, name: str) -> str | None:
        if name.isdigit():
            k = int(name)
            if k == 0:
                return self.argv0
            return self.positional[k - 1] if k <= len(self.positional) else None
        if name in "?$#!@*-":
            return self._special(name)
        return self.getvar(name)

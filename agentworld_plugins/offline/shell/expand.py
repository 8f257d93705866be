"""Word expansion: quotes, $-expansions, command substitution, field splitting and globbing."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

from ..vfs import FsError
from .applet_io import _join
from .braces import brace_expand
from .brackets import _match_brace, _match_paren
from .errors import _NoMatch, _unbound
from .escapes import _ansi_c
from .limits import hold, reserve
from .names import _NAME
from .options import set_on, shopt_on
from .parser import _match_double_paren, _Source
from .patterns import _escape_glob, _unescape_glob, glob_regex, has_glob
from .proc import _Capture, _Ctx, _Input, _Null
from .state import MachineState

#: a word with nothing to expand, split or match (a lone `[` is no pattern: it stays itself)
_PLAIN_WORD = re.compile(r"\[|[A-Za-z0-9_./:,+%@=\]-]+")


def _closing(text: str, end: int) -> int:
    """Just past the ``)`` that ends a substitution bashlex says ends at ``end``: bashlex ends
    ``$(echo b )`` before the blank that precedes its ``)``."""
    if text[end - 1 : end] == ")":
        return end
    while text[end : end + 1] in (" ", "\t", "\n"):
        end += 1
    return end + 1 if text[end : end + 1] == ")" else end


def _real_substitution(part: Any, node: Any, raw: str) -> bool:
    """Whether ``part`` is a process substitution bash runs: bashlex also reports ``<(..)``
    inside quotes in some places (a brace group), where it is only text."""
    if part.kind != "processsubstitution":
        return False
    quote = ""
    k, end = 0, part.pos[0] - node.pos[0]
    while k < end:
        c = raw[k]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            k += 1
        elif quote == '"':
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        k += 1
    return not quote


class ExpandMixin(MachineState):
    """Word expansion: quoting, $-expansions, command substitution, splitting, globbing.

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _subst_index(self, node: Any) -> dict[int, Any]:
        index: dict[int, Any] = {}
        for part in getattr(node, "parts", None) or []:
            if part.kind == "commandsubstitution":
                index[part.pos[0]] = part
        return index

    def _expand_word(self, node: Any, ctx: _Ctx) -> list[str]:
        raw = ctx.src.text[node.pos[0] : node.pos[1]]
        if _PLAIN_WORD.fullmatch(raw):  # `echo`, `-ge`, `0`: the word itself
            return [raw]
        if raw in ('"$@"', '"${@}"'):
            return list(self.positional)
        if raw == '"${PIPESTATUS[@]}"':
            return self.pipestatus_words()
        if any(_real_substitution(part, node, raw) for part in getattr(node, "parts", None) or []):
            return self._expand_raw(self._process_substitutions(node, raw, ctx), ctx)
        variants = brace_expand(raw) if "{" in raw else [raw]
        if len(variants) == 1:
            segs = self._segments(raw, ctx, node.pos[0], self._subst_index(node))
            return self._fields(segs)
        return self._expand_raw(raw, ctx, variants)

    def _expand_condition_word(self, node: Any, ctx: _Ctx, operand_of: str | None) -> str:
        """A word between ``[[`` and ``]]``: expanded, quotes removed, never split or globbed.
        The right side of ``==``/``!=`` (``operand_of``) stays a pattern whose quoted parts are
        literal; that of ``=~`` a regex whose quoted parts are."""
        raw = ctx.src.text[node.pos[0] : node.pos[1]]
        if _PLAIN_WORD.fullmatch(raw):
            return raw
        segs = self._segments(raw, ctx, node.pos[0], self._subst_index(node))
        quote: Callable[[str], str] | None = None
        if operand_of in ("==", "=", "!="):
            quote = _escape_glob
        elif operand_of == "=~":
            # the parser escapes `( ) | < >` inside [[ ]] for bashlex: those stay the regex's
            quote = _regex_literal
        out: list[str] = []
        for text, kind in segs:
            if kind == _BREAK:
                out.append(" ")  # "${a[@]}": its elements joined
            elif kind != _VANISH:
                out.append(quote(text) if quote is not None and kind == _QUOTED else text)
        if len(out) > 1:
            hold(sum(len(t) for t in out))
        return "".join(out)

    def _expand_raw(self, raw: str, ctx: _Ctx, variants: list[str] | None = None) -> list[str]:
        """The words of a word as written (``raw``; ``variants``: its brace expansion, when
        done): braces, expansions, splitting, globbing."""
        if _PLAIN_WORD.fullmatch(raw):
            return [raw]
        fields: list[str] = []
        for v in variants or (brace_expand(raw) if "{" in raw else [raw]):
            fields.extend(self._fields(self._segments(v, ctx, None, {})))
        return fields

    def _process_substitutions(self, node: Any, raw: str, ctx: _Ctx) -> str:
        """``<(cmd)`` / ``>(cmd)`` in a word, each replaced by the path of a virtual
        ``/dev/fd/N``: ``<(cmd)``'s file holds what ``cmd`` printed (run now, in a subshell);
        ``>(cmd)``'s is read by ``cmd`` once the command that names it is done."""
        pending = self.__dict__.setdefault("_procsubst", [])
        for part in reversed([p for p in node.parts if _real_substitution(p, node, raw)]):
            start, end = part.pos[0] - node.pos[0], _closing(raw, part.pos[1] - node.pos[0])
            path = f"/dev/fd/{63 - len(pending)}"
            if not self.fs.is_dir("/dev/fd"):
                self.fs.mkdir("/dev/fd", parents=True)
            if raw[start] == "<":
                cap = _Capture()
                sub = ctx.with_(out=cap, stdin=_Input())
                self._subshell(lambda sub=sub, part=part: self._exec(part.command, sub), sub)  # type: ignore[misc]
                self.fs.write(path, cap.text)
                pending.append((path, None, ctx))
            else:
                self.fs.write(path, "")
                pending.append((path, part.command, ctx))
            raw = raw[:start] + path + raw[end:]
        return raw

    def _finish_process_substitutions(self, since: int) -> None:
        """After the command that named them: ``>(cmd)`` reads what was written, and the
        ``/dev/fd`` files made since ``since`` go."""
        pending = self.__dict__.get("_procsubst", [])
        done, pending[since:] = pending[since:], []
        for path, command, ctx in done:
            try:
                text = self.fs.read_text(path)
                self.fs.remove(path)
            except FsError:
                continue
            if command is not None:
                sub = ctx.with_(stdin=_Input(text))
                self._subshell(lambda sub=sub, command=command: self._exec(command, sub), sub)  # type: ignore[misc]

    def expand_text(self, text: str, ctx: _Ctx | None = None) -> str:
        """Expand ``text`` like a double-quoted word (no splitting, no globbing)."""
        ctx = ctx or _Ctx(_Input(), _Null(), _Null(), _Source("", set(), {}))
        return "".join(t for t, _ in self._segments(text, ctx, None, {}))

    def _fields(self, segs: list[tuple[str, int]]) -> list[str]:
        if len(segs) > 1:  # joined, they make a new value: refuse one over the budget first
            hold(sum(len(t) for t, _ in segs))
        ifs = self.vars.get("IFS", " \t\n")
        fields: list[list[tuple[str, bool]]] = []
        cur: list[tuple[str, bool]] = []
        started = False
        for text, kind in segs:
            if kind == _BREAK:  # "${a[@]}": one word per element
                fields.append(cur)
                cur = []
                started = True
                continue
            if kind == _VANISH:  # "${a[@]}" of no elements: no word unless something else is here
                continue
            if kind == _EXP:
                if not text:
                    continue
                if not ifs:
                    cur.append((text, True))
                    started = True
                    continue
                pieces = re.split("[" + re.escape(ifs) + "]+", text)
                for k, piece in enumerate(pieces):
                    if k > 0 and started:
                        fields.append(cur)
                        cur = []
                        started = False
                    if piece:
                        cur.append((piece, True))
                        started = True
            else:
                cur.append((text, kind == _LIT))
                started = True
        if started:
            fields.append(cur)
        result: list[str] = []
        for chunks in fields:
            literal = "".join(t for t, _ in chunks)
            if any(g and ("*" in t or "?" in t or "[" in t) for t, g in chunks) and not set_on(
                self, "noglob"
            ):
                pattern = "".join(t if g else _escape_glob(t) for t, g in chunks)
                if has_glob(pattern):
                    matches = self.glob(pattern)
                    if matches:
                        result.extend(matches)
                        continue
                    if shopt_on(self, "failglob"):  # the command is not run; bash -c ends
                        raise _NoMatch(f"no match: {literal}")
                    if shopt_on(self, "nullglob"):
                        continue
            result.append(literal)
        return result

    def glob(self, pattern: str) -> list[str]:
        """Pathname expansion of ``pattern`` against the virtual filesystem (sorted)."""
        absolute = pattern.startswith("/")
        trailing = pattern.endswith("/")
        comps = [c for c in pattern.split("/") if c]
        results: list[tuple[str, str]] = [("/" if absolute else "", "/" if absolute else self.cwd)]
        dotglob = shopt_on(self, "dotglob")
        nocase = shopt_on(self, "nocaseglob")
        globstar = shopt_on(self, "globstar")
        for k, comp in enumerate(comps):
            fresh: list[tuple[str, str]] = []
            if comp == "**" and globstar:
                for shown, real in results:
                    fresh.extend(self._globstar(shown, real, files=k == len(comps) - 1, dotglob=dotglob))
            elif has_glob(comp):
                rx = glob_regex(comp, nocase)
                for shown, real in results:
                    try:
                        names = self.fs.listdir(real)
                    except FsError:
                        continue
                    self._budget.spend(len(names))
                    for name in names:
                        if name.startswith(".") and not (dotglob or comp.startswith((".", "\\."))):
                            continue
                        if rx.match(name):
                            fresh.append((_join(shown, name), posixpath.join(real, name)))
            else:
                lit = _unescape_glob(comp)
                for shown, real in results:
                    fresh.append(
                        (
                            _join(shown, lit),
                            posixpath.join(real, lit) if lit != ".." else posixpath.dirname(real),
                        )
                    )
            results = fresh
            if not results:
                return []
        out = []
        for shown, real in results:
            if not shown:  # `**` at the top: the working directory itself is no match
                continue
            if trailing:
                if self.fs.is_dir(real):
                    out.append(shown + "/")
            elif self.fs.lexists(real):
                out.append(shown)
        return sorted(out)

    def _globstar(self, shown: str, real: str, *, files: bool, dotglob: bool) -> list[tuple[str, str]]:
        """``**`` under ``shopt -s globstar``: the directory itself and every directory below it
        (``files``, as the pattern's last part: every file below it too); hidden names only with
        dotglob; symbolic links are listed, not followed."""
        found: list[tuple[str, str]] = [(shown + "/" if shown and files else shown, real)]
        pending = [(shown, real)]
        while pending:
            at_shown, at_real = pending.pop()
            try:
                names = self.fs.listdir(at_real)
            except FsError:
                continue
            self._budget.spend(len(names))
            for name in names:
                if name.startswith(".") and not dotglob:
                    continue
                path = posixpath.join(at_real, name)
                entry = (_join(at_shown, name), path)
                if self.fs.is_dir(path) and not self.fs.is_link(path):
                    found.append(entry)
                    pending.append(entry)
                elif files:
                    found.append(entry)
        return found

    def _segments(
        self,
        text: str,
        ctx: _Ctx,
        offset: int | None,
        subst: dict[int, Any],
        *,
        heredoc: bool = False,
        assign: bool = False,
    ) -> list[tuple[str, int]]:
        segs: list[tuple[str, int]] = []
        lit: list[str] = []
        exp_kind = _QUOTED if heredoc else _EXP

        def flush() -> None:
            if lit:
                segs.append(("".join(lit), _QUOTED if heredoc else _LIT))
                lit.clear()

        i = 0
        n = len(text)
        while i < n:
            c = text[i]
            if c == "\\":
                if heredoc:
                    if i + 1 < n and text[i + 1] in "$`\\\n":
                        if text[i + 1] != "\n":
                            lit.append(text[i + 1])
                        i += 2
                    else:
                        lit.append("\\")
                        i += 1
                    continue
                if i + 1 < n:
                    if text[i + 1] != "\n":
                        flush()
                        segs.append((text[i + 1], _QUOTED))
                    i += 2
                else:
                    lit.append("\\")
                    i += 1
                continue
            if c == "'" and not heredoc:
                flush()
                j = text.find("'", i + 1)
                j = n if j < 0 else j
                segs.append((text[i + 1 : j], _QUOTED))
                i = j + 1
                continue
            if c == '"' and not heredoc:
                flush()
                i = self._dquote(text, i + 1, ctx, offset, subst, segs)
                continue
            if c == "$":
                if i + 1 < n and text[i + 1] == "'" and not heredoc:
                    flush()
                    value, i = _ansi_c(text, i + 2)
                    segs.append((value, _QUOTED))
                    continue
                if i + 1 < n and text[i + 1] == '"' and not heredoc:
                    flush()
                    i = self._dquote(text, i + 2, ctx, offset, subst, segs)
                    continue
                got = self._dollar(text, i, ctx, offset, subst)
                if got is None:
                    lit.append("$")
                    i += 1
                    continue
                value, i = got
                flush()
                segs.append((value, exp_kind))
                continue
            if c == "`":
                flush()
                value, i = self._backtick(text, i, ctx)
                segs.append((value, exp_kind))
                continue
            if c == "~" and not heredoc and (i == 0 or (assign and text[i - 1] in ":=")):
                j = i + 1
                while j < n and text[j] not in "/:":
                    j += 1
                user = text[i + 1 : j]
                home = None
                if user == "":
                    home = self.vars.get("HOME", "/root")
                elif user == "root":
                    home = "/root"
                elif user == "+":
                    home = self.cwd
                if home is not None:
                    flush()
                    segs.append((home, _QUOTED))
                    i = j
                    continue
            lit.append(c)
            i += 1
        flush()
        return segs

    def _dquote(
        self,
        text: str,
        i: int,
        ctx: _Ctx,
        offset: int | None,
        subst: dict[int, Any],
        segs: list[tuple[str, int]],
    ) -> int:
        buf: list[str] = []
        n = len(text)
        size = 0  # of the expansions joined so far: the joined value is counted before it is made
        vanished = False  # the quotes held only "${a[@]}" of an empty array
        while i < n:
            c = text[i]
            if c == '"':
                i += 1
                break
            if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                if text[i + 1] != "\n":
                    buf.append(text[i + 1])
                i += 2
                continue
            if c == "$" and text[i + 1 : i + 2] in ("{", "@"):
                j = _match_brace(text, i + 2) if text[i + 1] == "{" else i + 1
                words = self._param_words(text[i + 2 : j] if text[i + 1] == "{" else "@", ctx)
                if words is not None:  # "${a[@]}", "$@": a word per element
                    i = j + 1
                    if not words and not buf and text[i : i + 1] == '"':
                        vanished = True
                    for k, word in enumerate(words):
                        if k:
                            segs.append(("".join(buf), _QUOTED))
                            segs.append((" ", _BREAK))  # joined (`x="${a[@]}"`): a blank
                            buf = []
                        size += len(word)
                        reserve(size)
                        buf.append(word)
                    continue
            if c == "$":
                got = self._dollar(text, i, ctx, offset, subst)
                if got is not None:
                    value, i = got
                    size += len(value)
                    reserve(size)
                    buf.append(value)
                    continue
            if c == "`":
                value, i = self._backtick(text, i, ctx)
                size += len(value)
                reserve(size)
                buf.append(value)
                continue
            buf.append(c)
            i += 1
        if len(buf) > 1:
            hold(size + len(buf))
        segs.append(("".join(buf), _VANISH if vanished and not buf else _QUOTED))
        return i

    def _backtick(self, text: str, i: int, ctx: _Ctx) -> tuple[str, int]:
        j = i + 1
        inner: list[str] = []
        while j < len(text) and text[j] != "`":
            if text[j] == "\\" and j + 1 < len(text) and text[j + 1] in "`\\$":
                inner.append(text[j + 1])
                j += 2
                continue
            inner.append(text[j])
            j += 1
        return self._command_output_text("".join(inner), ctx), j + 1

    def _command_output(self, ctx: _Ctx, run: Callable[[_Ctx], int]) -> str:
        """What ``run`` prints in a subshell (trailing newlines cut); its status is kept for ``$?``."""
        cap = _Capture()
        sub = ctx.with_(out=cap, stdin=_Input())

        def inside() -> int:
            # bash (not in POSIX mode) runs command substitutions without `set -e`
            self.errexit = False
            return run(sub)

        self._xtrace_level += 1
        try:
            self._subst_status = self._subshell(inside, sub)
        finally:
            self._xtrace_level -= 1
        return cap.text.rstrip("\n")

    def _command_output_text(self, command: str, ctx: _Ctx) -> str:
        return self._command_output(ctx, lambda sub: self._run_status(command, sub))

    def _command_output_node(self, node: Any, ctx: _Ctx) -> str:
        return self._command_output(ctx, lambda sub: self._exec(node, sub))

    def _dollar(
        self, text: str, i: int, ctx: _Ctx, offset: int | None, subst: dict[int, Any]
    ) -> tuple[str, int] | None:
        n = len(text)
        if i + 1 >= n:
            return None
        nx = text[i + 1]
        if nx == "(":
            if text.startswith("$((", i):
                j = _match_double_paren(text, i + 3)
                if j > 0:
                    return str(self._arith(text[i + 3 : j], ctx)), j + 2
            node = subst.get(offset + i) if offset is not None else None
            if node is not None and offset is not None:
                return self._command_output_node(node.command, ctx), _closing(text, node.pos[1] - offset)
            j = _match_paren(text, i + 2)
            return self._command_output_text(text[i + 2 : j], ctx), j + 1
        if nx == "{":
            j = _match_brace(text, i + 2)
            return self._param(text[i + 2 : j], ctx), j + 1
        if nx in "?$#!@*-0123456789":
            if self.nounset and nx in "123456789" and int(nx) > len(self.positional):
                raise _unbound(f"${nx}")
            return self._special(nx), i + 2
        m = _NAME.match(text, i + 1)
        if m:
            value = self.getvar(m.group(0))
            if value is None and self.nounset:
                raise _unbound(m.group(0))
            return value or "", m.end()
        return None


#: literal text, quoted text, an expansion (split and globbed), a break between two words of
#: "${a[@]}", and an empty "${a[@]}" (no word, unless something else is in it)
_LIT, _QUOTED, _EXP, _BREAK, _VANISH = 0, 1, 2, 3, 4


def _regex_literal(text: str) -> str:
    """A quoted part of ``=~``'s regex, matched as it is (one bracket or bar alone is the parser's
    own escape, left to the regex)."""
    return text if len(text) == 1 and text in "()|<>" else re.escape(text)

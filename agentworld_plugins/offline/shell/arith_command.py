"""The arithmetic command ``(( expr ))`` and the C-style loop ``for (( init; cond; step ))``.

bashlex parses neither. The parser's pre-pass (:func:`~.parser._prepare`) rewrites them, where a
command starts, into forms bashlex parses that keep each expression's text in single quotes:
``(( expr ))`` becomes the simple command ``__AWARITH_CMD 'expr'`` (so redirections, ``&&``,
``if``, ``while`` and ``set -e`` treat it as any command) and ``for (( a; b; c ))`` becomes the
loop head ``while __AWARITH_FOR 'a' 'b' 'c'``. :class:`ArithCommandMixin` runs those as bash runs
the originals. A text cut out of the rewritten one (a command substitution run again from its
text) still holds the expressions, so nothing depends on a side table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .case_command import marker_command
from .errors import _AbortLine, _ExpansionError, _Readonly
from .quoting import single_quoted
from .state import MachineState

if TYPE_CHECKING:
    from .proc import _Ctx

#: the command word ``(( expr ))`` is rewritten to (no one types it)
ARITH_COMMAND = "__AWARITH_CMD"
#: the condition word ``for (( a; b; c ))`` is rewritten to, as ``while __AWARITH_FOR 'a' 'b' 'c'``
ARITH_FOR = "__AWARITH_FOR"


def split_for_head(body: str) -> list[str] | None:
    """The three expressions of ``for (( init; cond; step ))`` (``body`` is what the parentheses
    hold), split at the ``;`` outside nested parentheses; None unless there are exactly three."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(body):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts if len(parts) == 3 else None


def rewritten(head: str, expressions: list[str]) -> str:
    """``head`` followed by each expression as one single-quoted word."""
    return head + "".join(" " + single_quoted(e) for e in expressions)


def arith_for_head(cond_nodes: list[Any]) -> Any:
    """The ``__AWARITH_FOR`` command of a ``while`` loop's condition, if it is a rewritten C-style
    ``for``; else None."""
    found = marker_command(cond_nodes, ARITH_FOR)
    return found[0] if found and len(found[1]) == 4 else None


class ArithCommandMixin(MachineState):
    """Running ``(( expr ))`` and ``for (( init; cond; step ))``.

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _exec_arith_command(self, word: Any, redirects: list[Any], ctx: _Ctx) -> int:
        """``(( expr ))``: status 0 when the value is non-zero, 1 when it is zero or the
        expression is bad (bash: ``((: 1/0: division by 0 (error token is "0")``)."""
        text = self._arith_expand(self._expand_word(word, ctx)[0], ctx)
        if text is None:
            return 1
        if self.xtrace:  # bash: `+ ((  i < 3  ))`, the expression as expanded, inner blanks kept
            self._trace_line(f"(( {text} ))", ctx)
        try:
            rctx = self._apply_redirects(redirects, ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            return exc.status
        value = self._arith_value(text, rctx)
        return 0 if value else 1

    def _exec_arith_for(self, head: Any, body: list[Any], ctx: _Ctx) -> int:
        """``for (( init; cond; step ))``: ``init`` once, then ``body`` and ``step`` while ``cond``
        is non-zero (an empty one is true); ``continue`` still runs ``step``. The status is the
        body's last, 0 when it never ran, 1 after a bad expression."""
        self._lineno = ctx.src.line_of(head.pos[0])
        words = [w for w in head.parts if w.kind == "word"][1:]
        # bash runs (and traces) an empty expression as `(( 1 ))`: an empty condition is true
        init, cond, step = (e if e.strip() else "1" for e in (self._expand_word(w, ctx)[0] for w in words))
        if self._arith_part(init, ctx) is None:
            return 1
        status = 0
        while True:
            self._step()
            value = self._arith_part(cond, ctx)
            if value is None:
                return 1
            if not value:
                return status
            status, stop = self._loop_body(body, ctx, status)
            if stop:
                return status
            if self._arith_part(step, ctx) is None:
                return 1

    def _arith_part(self, raw: str, ctx: _Ctx) -> int | None:
        """One expression of a ``for (( ))`` head, expanded, traced and evaluated: its value, or
        None after an error (reported)."""
        text = self._arith_expand(raw, ctx)
        if text is None:
            return None
        text = text.lstrip()
        if self.xtrace:  # bash: `+ (( i<3 ))`, leading blanks dropped
            self._trace_line(f"(( {text} ))", ctx)
        return self._arith_value(text, ctx)

    def _arith_expand(self, raw: str, ctx: _Ctx) -> str | None:
        """``raw`` with its ``$``-expansions done (as in double quotes); None after a reported
        error (a fatal one, such as ``set -u``'s, abandons the line)."""
        try:
            return self.expand_text(raw, ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal:
                raise _AbortLine(exc.status, exc.unbound) from None
            return None

    def _arith_value(self, text: str, ctx: _Ctx) -> int | None:
        """The value of an expanded expression (assignments done); None after a reported error."""
        try:
            return self._arith_expanded(text)
        except _Readonly as exc:
            self._complain(ctx, exc.message)
            return None
        except _ExpansionError as exc:
            if exc.unbound:  # `set -u`: bash abandons the line, as for `$((y))`
                self._complain(ctx, exc.message)
                raise _AbortLine(exc.status, True) from None
            self._complain(ctx, f"((: {exc.message}")  # `((: a=1/0: division by 0 (error token is "0")`
            return None

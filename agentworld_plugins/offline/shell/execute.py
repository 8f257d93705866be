"""Running parsed nodes: lists, pipelines, compound commands, loops, simple commands."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from .arith_command import ARITH_COMMAND, arith_for_head
from .arrays import COMPOUND_MARKER, Compound
from .callstack import defined_in
from .case_command import case_head_words
from .constants import STEP_BUDGET
from .errors import (
    _AbortLine,
    _DiscardLine,
    _ErrExit,
    _ExitShell,
    _ExpansionError,
    _LoopControl,
    _NoMatch,
    _Unsupported,
)
from .jobtable import started
from .limits import COMMAND_WORK, TIME_STATUS, ResourceLimit, current
from .options import set_on, shopt_on
from .pipes import _finish, _Pipe, _PipeInput
from .proc import _Input
from .quoting import xtrace_quote
from .state import MachineState
from .timed import DEFAULT_FORMAT, TimeFormatError, format_times, timed_mark

if TYPE_CHECKING:
    from .proc import _Ctx, _Sink


#: a value this long counts against the memory the step's variables hold together
BIG_VALUE = 1 << 20

#: `a[3]=z` / `a[k]+=z`: an element's assignment, which bashlex reads as a word
_ELEMENT_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]]*\]\+?=")


class ExecuteMixin(MachineState):
    """Running parsed nodes: lists, pipelines, compound commands, loops, simple commands.

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _step(self) -> None:
        """Count one step against the budget of a ``run`` (runaway loops end here)."""
        self._steps += 1
        self._budget.spend(COMMAND_WORK)
        if self._steps > STEP_BUDGET:
            raise ResourceLimit(
                f"maximum command count exceeded ({STEP_BUDGET} in one offline step)", TIME_STATUS
            )

    def _exec(self, node: Any, ctx: _Ctx) -> int:
        self._step()
        kind = node.kind
        if kind == "command":
            since = len(self.__dict__.get("_procsubst", ()))
            try:
                status = self._exec_command(node, ctx)
            finally:
                if len(self.__dict__.get("_procsubst", ())) > since:
                    self._finish_process_substitutions(since)
            self._pipestatus = (status,)  # bash: every simple command sets ${PIPESTATUS[@]}
            return self._check_errexit(status, ctx)
        if kind == "list":
            return self._exec_list(node.parts, ctx)
        if kind == "pipeline":
            return self._exec_pipeline(node, ctx)
        if kind == "compound":
            return self._exec_compound(node, ctx)
        if kind == "function":
            name = next(p.word for p in node.parts if p.kind == "word")
            body = [p for p in node.parts if p.kind == "compound"]
            if body:
                self.functions[name] = (body[-1], ctx.src)
                self.__dict__.setdefault("_defined_in", {})[name] = defined_in(self)
            return 0
        if kind in ("if", "for", "while", "until"):
            return self._exec_flow(node, ctx)
        if kind == "reservedword" or kind == "operator":
            return self.last_status
        raise _Unsupported(kind)

    def _check_errexit(self, status: int, ctx: _Ctx) -> int:
        """A failure outside the contexts that ignore it (those of ``set -e``): ``trap ... ERR``
        runs (with ``$?`` the status, not again from inside itself), then ``set -e`` ends the
        shell."""
        if status and not self._errexit_off:
            action = (self.__dict__.get("_traps") or {}).get("ERR")
            in_function = any(frame[0] != "source" for frame in self.__dict__.get("_frames", ()))
            if in_function and not set_on(self, "errtrace"):  # functions lack it without set -E
                action = None
            if action and not self.__dict__.get("_in_err_trap"):
                self.__dict__["_in_err_trap"] = True
                self.last_status = status
                try:
                    self._run_status(action, ctx)
                finally:
                    self.__dict__["_in_err_trap"] = False
                self.last_status = status
            if self.errexit:
                raise _ErrExit(status)
        return status

    def _errexit_ignored(self, fn: Callable[[], int]) -> int:
        """Run ``fn`` where bash ignores ``set -e`` (and so do the functions it calls)."""
        self._errexit_off += 1
        try:
            return fn()
        finally:
            self._errexit_off -= 1

    def _exec_list(self, parts: list[Any], ctx: _Ctx) -> int:
        status = 0
        op = None
        for i, part in enumerate(parts):
            if part.kind == "operator":
                op = part.op
                continue
            if part.kind == "reservedword":
                continue
            if (op == "&&" and status != 0) or (op == "||" and status == 0):
                continue
            following = next((q.op for q in parts[i + 1 :] if q.kind == "operator"), None)
            if following in ("&&", "||"):  # bash: only the last command of an and-or list counts
                status = self._errexit_ignored(lambda part=part: self._exec(part, ctx))  # type: ignore[misc]
            elif following == "&":  # run now, but in a subshell as bash's background job: status 0
                started(self, ctx.src.text[part.pos[0] : part.pos[1]], self._background(part, ctx))
                status = 0
            else:
                status = self._exec(part, ctx)
            self.last_status = status
        return status

    def _background(self, part: Any, ctx: _Ctx) -> int:
        """``part &``: run to its end in a subshell, where ``set -e`` does not reach."""
        return self._errexit_ignored(lambda: self._subshell(lambda: self._exec(part, ctx), ctx))

    def _exec_pipeline(self, node: Any, ctx: _Ctx) -> int:
        negate = False
        timed: str | None = None  # `time`: the format it was given (timed.py)
        commands: list[Any] = []
        pipes: list[str] = []
        for part in node.parts:
            if part.kind == "reservedword" and part.word == "!":
                mark = timed_mark(ctx.src.text, part.pos[0])
                if mark is None:
                    negate = not negate
                else:
                    timed = mark
            elif part.kind == "pipe":
                pipes.append(part.pipe)
            else:
                commands.append(part)
        if timed is None:
            return self._pipeline_status(commands, pipes, negate, ctx)
        budget = current()
        work, slept = budget.work, budget.slept

        def report() -> None:
            real = budget.work - work + round((budget.slept - slept) * 1_000_000)
            self._report_time(ctx, timed, real, budget.work - work)

        try:
            status = self._pipeline_status(commands, pipes, negate, ctx)
        except _ExitShell as exc:  # `exit` and set -e end the shell after the times; exec, kill not
            if type(exc) in (_ExitShell, _ErrExit):
                report()
            raise
        report()
        return status

    def _pipeline_status(self, commands: list[Any], pipes: list[str], negate: bool, ctx: _Ctx) -> int:
        if negate:  # `! cmd`: its status (and all inside) is not set -e's business
            status = self._errexit_ignored(lambda: self._run_pipeline(commands, pipes, ctx))
            return 0 if status else 1
        return self._check_errexit(self._run_pipeline(commands, pipes, ctx), ctx)

    def _report_time(self, ctx: _Ctx, fmt: str, real_us: int, user_us: int) -> None:
        """What ``time`` writes after its pipeline, on the shell's standard error."""
        if not fmt:
            fmt = self.vars.get("TIMEFORMAT", DEFAULT_FORMAT)
        if not fmt:
            return
        try:
            ctx.err.write(format_times(fmt, real_us, user_us, 0) + "\n")
        except TimeFormatError as exc:
            ctx.err.write(f"{self.prefix()}TIMEFORMAT: `{exc.letter}': invalid format character\n")

    def _run_pipeline(self, commands: list[Any], pipes: list[str], ctx: _Ctx) -> int:
        if len(commands) == 1:
            return self._exec(commands[0], ctx)
        stdin = ctx.stdin
        statuses: list[int] = []
        readers: list[_Input] = []
        try:
            for i, command in enumerate(commands):
                last = i == len(commands) - 1
                out: _Sink = ctx.out if last else _Pipe()
                err = out if (not last and i < len(pipes) and pipes[i] == "|&") else ctx.err
                # a stage that is one simple command may stream into the pipe (pipes.py)
                lazy = not last and command.kind == "command" and err is not out
                sub = ctx.with_(stdin=stdin, out=out, err=err, lazy=lazy)
                if last and not self.interactive and shopt_on(self, "lastpipe"):
                    statuses.append(self._exec(command, sub))  # in this shell (no job control)
                else:
                    statuses.append(self._subshell(lambda c=command, s=sub: self._exec(c, s), sub))  # type: ignore[misc]
                if not last:
                    assert isinstance(out, _Pipe)
                    stdin = out.reader()
                    readers.append(stdin)
            # the last command has ended; the others end as bash's would: done, or SIGPIPE
            for k in range(len(readers) - 1, -1, -1):
                statuses[k] = _finish(readers[k], statuses[k])
        finally:
            for reader in readers:
                if isinstance(reader, _PipeInput):
                    reader.close()
        self._pipestatus = tuple(statuses)
        # with pipefail: the status of the last command that failed, else 0
        return next((s for s in reversed(statuses) if s), 0) if self.pipefail else statuses[-1]

    def _exec_compound(self, node: Any, ctx: _Ctx) -> int:
        try:
            ctx = self._apply_redirects(getattr(node, "redirects", []) or [], ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            return exc.status
        items = node.list
        inner = [p for p in items if p.kind != "reservedword"]

        def run_items() -> int:
            return self._run_nodes(inner, ctx)

        if items and items[0].kind == "reservedword" and items[0].word == "(":
            ctx = ctx.forked()  # the subshell's descriptors are its own (`(exec >log)`)
            status = self._subshell(run_items, ctx)
            self._pipestatus = (status,)
            return self._check_errexit(status, ctx)  # bash: even one failing where set -e was ignored
        return run_items()

    def _groups(self, node: Any) -> list[tuple[str, list[Any]]]:
        groups: list[tuple[str, list[Any]]] = []
        for part in _flat(node.parts):
            if part.kind == "reservedword" and part.word not in (";", "\n"):
                groups.append((part.word, []))
            elif groups and part.kind != "reservedword":
                groups[-1][1].append(part)
        return groups

    def _run_nodes(self, nodes: list[Any], ctx: _Ctx) -> int:
        status = 0
        for n in nodes:
            status = self._exec(n, ctx)
            self.last_status = status
        return status

    def _exec_flow(self, node: Any, ctx: _Ctx) -> int:
        if node.kind == "if":
            return self._exec_flow_inner(node, ctx)
        self._loop_depth += 1
        try:
            return self._exec_flow_inner(node, ctx)
        finally:
            self._loop_depth -= 1

    def _exec_flow_inner(self, node: Any, ctx: _Ctx) -> int:
        groups = self._groups(node)
        kind = node.kind
        if kind == "if":
            if (head := case_head_words(groups)) is not None:
                return self._exec_case(head, groups, ctx)  # `case`, rewritten by the parser
            i = 0
            while i < len(groups):
                word, nodes = groups[i]
                if word in ("if", "elif"):
                    cond = self._errexit_ignored(lambda nodes=nodes: self._run_nodes(nodes, ctx))  # type: ignore[misc]
                    if cond == 0:
                        return self._run_nodes(groups[i + 1][1], ctx)
                    i += 2
                    continue
                if word == "else":
                    return self._run_nodes(nodes, ctx)
                i += 1
            return 0
        if kind == "for":
            self._lineno = ctx.src.line_of(node.pos[0])
            var = node.parts[1].word
            items: list[str] = []
            if any(g[0] == "in" for g in groups):
                for w in dict(groups).get("in", []):
                    if w.kind == "word":
                        try:
                            items.extend(self._expand_word(w, ctx))
                        except _NoMatch as exc:
                            self._no_match(exc, ctx)
            else:
                items = list(self.positional)
            body = dict(groups).get("do", [])
            status = 0
            for item in items:
                try:
                    self._assign(var, item)
                except _ExpansionError as exc:  # a readonly loop variable
                    self._complain(ctx, exc.message)
                    return 1
                status, stop = self._loop_body(body, ctx, status)
                if stop:
                    break
            return status
        # while / until
        cond_nodes = groups[0][1]
        body = dict(groups).get("do", [])
        if kind == "while" and (head := arith_for_head(cond_nodes)) is not None:
            return self._exec_arith_for(head, body, ctx)  # `for (( ; ; ))`, rewritten by the parser
        status = 0
        while True:
            self._step()
            c = self._errexit_ignored(lambda: self._run_nodes(cond_nodes, ctx))
            if (c == 0) != (kind == "while"):
                break
            status, stop = self._loop_body(body, ctx, status)
            if stop:
                break
        return status

    def _loop_body(self, body: list[Any], ctx: _Ctx, status: int) -> tuple[int, bool]:
        """Run a loop's body once: its status (``status`` where ``break``/``continue`` cut it
        short) and whether the loop ends here. Outer loops' ``break N``/``continue N`` pass on."""
        try:
            return self._run_nodes(body, ctx), False
        except _LoopControl as lc:
            if lc.levels > 1:
                lc.levels -= 1
                raise
            return status, lc.is_break

    def _exec_command(self, node: Any, ctx: _Ctx) -> int:
        self._lineno = ctx.src.line_of(node.pos[0])
        assigns = [p for p in node.parts if p.kind == "assignment"]
        words = [p for p in node.parts if p.kind == "word"]
        while words and _ELEMENT_ASSIGNMENT.match(ctx.src.text, words[0].pos[0], words[0].pos[1]):
            assigns.append(words.pop(0))  # `a[3]=z`: bashlex leaves it a word
        redirects = [p for p in node.parts if p.kind == "redirect"]
        named = _named_redirects(node.parts, words) if redirects else None
        if words and words[0].word == ARITH_COMMAND and len(words) == 2:  # `(( expr ))`
            return self._exec_arith_command(words[1], redirects, ctx)
        src = ctx.src.text
        if words and self.aliases and shopt_on(self, "expand_aliases"):
            first = src[words[0].pos[0] : words[0].pos[1]]
            if first in self.aliases and first not in self._expanding_aliases:
                rest = src[words[0].pos[1] : node.pos[1]]
                prefix = "".join(src[a.pos[0] : a.pos[1]] + " " for a in assigns)
                self._expanding_aliases.add(first)
                try:
                    return self._run_status(prefix + self.aliases[first] + rest, ctx)
                finally:
                    self._expanding_aliases.discard(first)
        self._subst_status = None
        try:
            argv: list[str] = []
            if words and words[0].word == "[[":  # a conditional: its words are neither split nor globbed
                argv.append("[[")
                for w in words[1:]:
                    argv.append(self._expand_condition_word(w, ctx, argv[-1] if len(argv) > 1 else None))
            else:
                for w in words:
                    argv.extend(self._expand_word(w, ctx))
            values = [self._expand_assignment(a, ctx) for a in assigns]
        except _NoMatch as exc:
            self._no_match(exc, ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal:
                raise _AbortLine(exc.status, exc.unbound) from None
            return exc.status
        subst_status = self._subst_status
        if self.xtrace:  # after expansion, before the command's own redirections
            self._trace(values, argv, ctx)
        try:
            if argv == ["exec"]:  # `exec 3>log 2>&1`: the shell's own descriptors, from now on
                self._exec_redirects(redirects, ctx, named)
                rctx = ctx
            else:
                if named:  # `cmd {fd}>f`: the descriptor outlives the command, as in bash
                    self._exec_redirects([r for r in redirects if id(r) in named], ctx, named)
                    redirects = [r for r in redirects if id(r) not in named]
                rctx = self._apply_redirects(redirects, ctx)
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            return exc.status
        if ctx.lazy and rctx is not ctx and rctx.out is ctx.out and rctx.err is not rctx.out:
            rctx = rctx.with_(lazy=True)  # `seq 9 2>/dev/null | head`: stdout is still the pipe
        if not argv:
            for name, value, append in values:
                try:
                    self._assign(name, value, append)
                except _ExpansionError as exc:  # `readonly x; x=1`: the rest of the line is abandoned
                    self._complain(ctx, exc.message)
                    raise _DiscardLine(exc.status) from None
            return subst_status if subst_status is not None else 0
        saved: list[tuple[str, str | None, bool]] = []
        for name, value, append in values:
            old = self.vars.get(name)
            try:
                self._assign(name, value, append)
            except _ExpansionError as exc:  # `x=1 cmd` with x readonly: said, and cmd runs
                self._complain(ctx, exc.message)
                continue
            saved.append((name, old, name in self.exported))
            self.exported.add(name)
        try:
            return self._invoke(argv, rctx)
        finally:
            for name, old, was_exported in reversed(saved):
                self._put_back(name, old)
                if not was_exported:
                    self.exported.discard(name)

    def _trace(self, values: list[tuple[str, str, bool]], argv: list[str], ctx: _Ctx) -> None:
        """``set -x``: the assignments and the command as they will run, one line each, after
        ``$PS4`` (its first character once more per enclosing command substitution)."""
        lead = self._xtrace_lead()
        lines = [
            f"{lead}{name}{'+=' if append else '='}{xtrace_quote(value)}\n" for name, value, append in values
        ]
        if argv:
            lines.append(lead + " ".join(xtrace_quote(a) for a in argv) + "\n")
        ctx.err.write("".join(lines))

    def _xtrace_lead(self) -> str:
        """What starts a ``set -x`` line: ``$PS4``, its first character once more per enclosing
        command substitution."""
        ps4 = self.vars.get("PS4", "+ ")
        return ps4[:1] * self._xtrace_level + ps4

    def _trace_line(self, line: str, ctx: _Ctx) -> None:
        """``set -x``: one traced line (a compound's own, such as ``(( i < 3 ))``)."""
        ctx.err.write(f"{self._xtrace_lead()}{line}\n")

    def _put_back(self, name: str, old: Any) -> None:
        """Give a variable back a value it had (None: it was unset; a tuple: what
        ``_snapshot_var`` kept of a ``local``)."""
        self._path_assigned(name)
        if isinstance(old, tuple):
            self._restore_var(name, old)
        elif old is None:
            self.vars.pop(name, None)
        else:
            self.vars[name] = old

    def _assign(self, name: str, value: str, append: bool = False) -> None:
        """``name=value`` (``+=``: appended, or added for ``declare -i``); ``name`` may be
        ``a[sub]`` and ``value`` a :class:`~.arrays.Compound` (``a=(x y)``). A readonly ``name``
        raises ``_Readonly`` (an ``_ExpansionError``: ``NAME: readonly variable``)."""
        if isinstance(value, Compound):
            self._compound_assign(name, value.inner, append, value.ctx)
            return
        if name.endswith("]") and "[" in name:
            base, _, sub = name[:-1].partition("[")
            self._array_set(base, self._array_key(base, sub, None), value, append)
            return
        name = self._ref(name)
        self._check_writable(name)
        self._path_assigned(name)
        if self.__dict__.get("_array_table") and name in self._arrays():
            self._array_set(name, "0" if self._is_assoc(name) else 0, value, append)
            return
        if self.__dict__.get("_attr_table", {}).get(name, {"r"}) - {"r"}:  # -i, -u, -l
            value = self._attr_value(name, value, self.vars.get(name, "") if append else None)
            append = False
        if append:
            self._budget.hold(len(value) + len(self.vars.get(name, "")))
        if name in ("PWD",):
            self.vars[name] = value
            return
        new = self.vars.get(name, "") + value if append else value
        self._hold_variable(name, new)
        self.vars[name] = new
        if set_on(self, "allexport"):
            self.exported.add(name)

    def _set_var(self, name: str, value: str) -> None:
        """Set a variable from a builtin (``read``, ``printf -v``, ``declare``), counted as
        :meth:`_assign` counts it."""
        if self.__dict__.get("_attr_table"):
            self._assign(name, value)
            return
        self._path_assigned(name)
        self._hold_variable(name, value)
        self.vars[name] = value
        if set_on(self, "allexport"):
            self.exported.add(name)

    def _hold_variable(self, name: str, value: str) -> None:
        """Count a big value against what the step may hold in all its variables together (many
        values each under the budget must not add up past it)."""
        big = self.__dict__.setdefault("_big_values", {})
        if len(value) < BIG_VALUE:
            big.pop(name, None)
            return
        big[name] = len(value)
        if sum(big.values()) <= self.limits.memory_bytes:
            return
        for other in list(big):  # the quick count may hold values changed elsewhere: recount
            held = len(self.vars.get(other, "")) if other != name else len(value)
            if held < BIG_VALUE:
                del big[other]
            else:
                big[other] = held
        total = sum(big.values())
        if total > self.limits.memory_bytes:
            del big[name]
            self._budget.reserve(total)

    def _no_match(self, exc: _NoMatch, ctx: _Ctx) -> NoReturn:
        """failglob's error: said, and the rest of the line abandoned."""
        self._complain(ctx, exc.message)
        raise _DiscardLine(exc.status)

    def _expand_assignment(self, node: Any, ctx: _Ctx) -> tuple[str, str, bool]:
        raw = ctx.src.text[node.pos[0] : node.pos[1]]
        name, _, value = raw.partition("=")
        append = name.endswith("+")
        if append:
            name = name[:-1]
        if value in ctx.src.arith and COMPOUND_MARKER.fullmatch(value):  # `a=(x y)`
            return name, Compound.of(ctx.src.arith[value], ctx), append
        offset = node.pos[0] + len(raw) - len(value)
        segs = self._segments(value, ctx, offset, self._subst_index(node), assign=True)
        if len(segs) > 1:
            self._budget.hold(sum(len(t) for t, _ in segs))
        return name, "".join(t for t, _ in segs), append


def _flat(parts: list[Any]) -> list[Any]:
    """An ``if`` node's parts; bashlex 0.18 nests a third ``elif`` and on in a reserved-word node
    whose ``word`` is the list of their parts."""
    flat: list[Any] = []
    for part in parts:
        if part.kind == "reservedword" and isinstance(part.word, list):
            flat.extend(_flat(part.word))
        else:
            flat.append(part)
    return flat


#: ``{name}`` right before a redirection operator: the variable of a descriptor bash allocates
_DESCRIPTOR_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _named_redirects(parts: list[Any], words: list[Any]) -> dict[int, str] | None:
    """The redirections written ``{var}>file`` (by ``id``: the parsed nodes are shared), their
    ``{var}`` words taken out of ``words``."""
    named: dict[int, str] = {}
    for k, part in enumerate(parts[:-1]):
        after = parts[k + 1]
        if part.kind != "word" or after.kind != "redirect" or part.pos[1] != after.pos[0]:
            continue
        m = _DESCRIPTOR_VARIABLE.fullmatch(part.word)
        if m is not None and not isinstance(after.input, int) and part in words:
            named[id(after)] = m.group(1)
            words.remove(part)
    return named or None

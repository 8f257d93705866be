"""The state every part of VirtualMachine shares, declared once for readers and type checkers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..vfs import VirtualFS
    from .limits import Budget, StepLimits
    from .parser import _Source
    from .proc import _Ctx, _Input, _Sink


class MachineState:
    """What :class:`~.machine.VirtualMachine` holds (set in its ``__init__``); the phase mixins
    (execute, invoke, expand, params, redirect) build on it. Declarations only: nothing here runs."""

    fs: VirtualFS
    user: str
    hostname: str
    interactive: bool
    vars: dict[str, str]
    exported: set[str]
    cwd: str
    oldpwd: str | None
    last_status: int
    history: list[str]
    functions: dict[str, tuple[Any, _Source]]
    aliases: dict[str, str]
    positional: list[str]
    argv0: str
    _locals: list[dict[str, Any]]
    _rand: int
    _steps: int
    _subst_status: int | None
    _unknown: list[str]
    _expanding_aliases: set[str]
    _tty_in: _Input
    _tty_out: _Sink
    _tty_err: _Sink
    _lineno: int
    _scripts: list[str]
    _loop_depth: int
    _budget: Budget
    limits: StepLimits
    #: ``set -o pipefail``
    pipefail: bool
    #: ``set -e``, ``set -u``, ``set -x``
    errexit: bool
    nounset: bool
    xtrace: bool
    #: how many contexts that ignore ``set -e`` enclose the running command (if/while
    #: conditions, all but the last command of ``&&``/``||`` lists, ``!`` pipelines)
    _errexit_off: int
    #: how many command substitutions enclose the running command (``set -x`` prints ``++``)
    _xtrace_level: int
    #: ``${PIPESTATUS[@]}``: the statuses of the last pipeline (one for a simple command)
    _pipestatus: tuple[int, ...]

    if TYPE_CHECKING:
        # methods one part calls on another, as the part that defines them spells them

        def _abort_status(self, exc: Any) -> int: ...

        def _apply_redirects(self, redirects: list[Any], ctx: _Ctx) -> _Ctx: ...

        def _exec_redirects(
            self, redirects: list[Any], ctx: _Ctx, named: dict[int, str] | None = None
        ) -> None: ...

        def _arith(self, expr: str, ctx: _Ctx) -> int: ...

        def _arith_expanded(self, expanded: str) -> int: ...

        def _complain(self, ctx: _Ctx, message: str) -> None: ...

        def prefix(self) -> str: ...

        def _exec(self, node: Any, ctx: _Ctx) -> int: ...

        def _exec_arith_command(self, word: Any, redirects: list[Any], ctx: _Ctx) -> int: ...

        def _exec_case(self, head: list[Any], groups: list[tuple[str, list[Any]]], ctx: _Ctx) -> int: ...

        def _pattern_text(self, raw: str, ctx: _Ctx) -> str: ...

        def _run_nodes(self, nodes: list[Any], ctx: _Ctx) -> int: ...

        def _exec_arith_for(self, head: Any, body: list[Any], ctx: _Ctx) -> int: ...

        def _expand_word(self, node: Any, ctx: _Ctx) -> list[str]: ...

        def _invoke(self, argv: list[str], ctx: _Ctx) -> int: ...

        def _not_simulated(self, argv: list[str], ctx: _Ctx) -> int: ...

        def device_random(self) -> Any: ...

        def _param(self, inner: str, ctx: _Ctx) -> str: ...

        def _put_back(self, name: str, old: Any) -> None: ...

        def _run_status(self, text: str, ctx: _Ctx, reader: bool = False, noexec: bool = False) -> int: ...

        def _segments(
            self,
            text: str,
            ctx: _Ctx,
            offset: int | None,
            subst: dict[int, Any],
            *,
            heredoc: bool = False,
            assign: bool = False,
        ) -> list[tuple[str, int]]: ...

        def _special(self, c: str) -> str: ...

        def _trace_line(self, line: str, ctx: _Ctx) -> None: ...

        def _step(self) -> None: ...

        def _loop_body(self, body: list[Any], ctx: _Ctx, status: int) -> tuple[int, bool]: ...

        def _subshell(
            self, fn: Callable[[], int], ctx: _Ctx | None = None, *, process: bool = False
        ) -> int: ...

        def _finish_process_substitutions(self, since: int) -> None: ...

        def _expand_raw(self, raw: str, ctx: _Ctx) -> list[str]: ...

        def _param_ops(self, name: str, value: str | None, rest: str, ctx: _Ctx) -> str: ...

        def _param_words(self, inner: str, ctx: _Ctx) -> list[str] | None: ...

        def _assign(self, name: str, value: str, append: bool = False) -> None: ...

        def _set_var(self, name: str, value: str) -> None: ...

        # arrays and attributes (arrays.ArrayMixin)

        def _arrays(self) -> dict[str, dict[Any, str]]: ...

        def _ref(self, name: str) -> str: ...

        def _attrs(self) -> dict[str, set[str]]: ...

        def _has_attr(self, name: str, letter: str) -> bool: ...

        def _is_assoc(self, name: str) -> bool: ...

        def _check_writable(self, name: str, fatal: bool = False) -> None: ...

        def _array_key(self, name: str, sub: str, ctx: _Ctx | None) -> Any: ...

        def _array_get(self, name: str, key: Any) -> str | None: ...

        def _array_set(self, name: str, key: Any, value: str, append: bool = False) -> None: ...

        def _array_param(self, inner: str, ctx: _Ctx) -> list[str] | str | None: ...

        def _subscripted(self, inner: str) -> tuple[str, str, str, str] | None: ...

        def _compound_assign(self, name: str, inner: str, append: bool, ctx: _Ctx | None) -> None: ...

        def _integer_value(self, name: str, value: str, old: str | None = None) -> str: ...

        def _array_replace(self, name: str, values: list[str]) -> None: ...

        def _recount_arrays(self) -> None: ...

        def _fresh_getopts(self) -> None: ...

        def _drop_array(self, name: str) -> None: ...

        def _to_array(self, name: str) -> dict[Any, str]: ...

        def _array_unset(self, name: str, key: Any) -> None: ...

        def _attr_value(self, name: str, value: str, old: str | None) -> str: ...

        def _snapshot_var(self, name: str) -> tuple[str | None, dict[Any, str] | None, set[str] | None]: ...

        def _restore_var(
            self, name: str, saved: tuple[str | None, dict[Any, str] | None, set[str] | None]
        ) -> None: ...

        def _subst_index(self, node: Any) -> dict[int, Any]: ...

        def _expand_condition_word(self, node: Any, ctx: _Ctx, operand_of: str | None) -> str: ...

        def expand_text(self, text: str, ctx: _Ctx | None = None) -> str: ...

        def getvar(self, name: str) -> str | None: ...

        def pipestatus_words(self) -> list[str]: ...

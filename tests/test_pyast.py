"""pyast: parsing source text from many threads at once never trips CPython's AST conversion."""

from __future__ import annotations

import ast
import gc
import threading

import pytest

from agentworld_plugins import pyast

SOURCE = "x = [" + ",".join(f"f({i}, y={i})" for i in range(300)) + "]\n"


class _Finalized:
    """A cyclic object whose finalizer runs Python code, so a garbage collection inside a parse
    lets another thread run (what breaks an unguarded ``ast.parse`` on CPython 3.11)."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(200))


def _hammer(parse, threads: int = 8, rounds: int = 40) -> list[str]:
    errors: list[str] = []

    def work() -> None:
        for _ in range(rounds):
            _Finalized()
            try:
                parse(SOURCE)
            except SystemError as exc:  # "AST constructor recursion depth mismatch"
                errors.append(str(exc))

    previous = gc.get_threshold()
    gc.set_threshold(50)
    try:
        workers = [threading.Thread(target=work) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        gc.set_threshold(*previous)
    return errors


def test_parse_from_many_threads_with_finalizers_running():
    assert _hammer(pyast.parse) == []


def test_parse_and_literal_eval_match_ast():
    assert ast.dump(pyast.parse("a = 1")) == ast.dump(ast.parse("a = 1"))
    assert ast.dump(pyast.parse("1 + 2", mode="eval")) == ast.dump(ast.parse("1 + 2", mode="eval"))
    assert pyast.literal_eval("  (1, 'two', [3.0])") == (1, "two", [3.0])
    assert pyast.literal_eval(ast.parse("{'k': None}", mode="eval").body) == {"k": None}
    with pytest.raises(ValueError):
        pyast.literal_eval("f(1)")
    with pytest.raises(SyntaxError):
        pyast.parse("def (")

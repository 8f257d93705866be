"""TEMPORARY placeholder, being replaced by the full android domain."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import RootModel

from ..hookspecs import hookimpl
from .base import Domain


class _Action(RootModel[str]):
    pass


class _Tmp(Domain):
    name = "android"
    Action = _Action
    action_fence = None


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(_Tmp())

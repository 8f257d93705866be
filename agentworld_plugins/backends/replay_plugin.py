"""Built-in plugin: the ``cassette`` and ``scenario`` backends (record/replay and scripted worlds).

``cassette:PATH[?mode=none|once|new_episodes|all]`` alone can only replay; in a chain
(``cassette:run.db,openai``) it wraps everything after it and records what that answers. A
cassette with no path is ``<home>/cassettes/default.db``. ``scenario:PATH`` answers from a
YAML/JSON script; in a chain, actions it has no step for fall through to the next backend.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..config import Settings
    from .base import Backend


def _cassette(settings: Settings, spec: str, *, inner: Backend | None = None) -> Backend:
    from .cassette import CassetteBackend, default_cassette_dir, parse_cassette_spec

    path_text, options = parse_cassette_spec(spec)
    path = Path(path_text).expanduser() if path_text else default_cassette_dir(settings.home) / "default.db"
    return CassetteBackend(path, inner, options.get("mode") or None, model=settings.model)


def _scenario(settings: Settings, spec: str, *, fallthrough: bool = False) -> Backend:
    from .scenario import scenario_from_spec

    return scenario_from_spec(spec, fallthrough=fallthrough)


@hookimpl
def register_backends(register: Callable[..., None]) -> None:
    register("cassette", _cassette)
    register("scenario", _scenario)

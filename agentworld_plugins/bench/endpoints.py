"""How ``bench`` reaches the world model under test and the judge.

The world model is any backend (``openai`` against vLLM/SGLang, ``offline``, ``cassette:...``):
its settings come from the arguments, then the ``AGENTWORLD_*`` variables. The judge is an
OpenAI-compatible server, or any backend string (a scenario for offline runs); its settings come
from the arguments, then the ``AGENTWORLD_JUDGE_*`` variables, never from the world model's.

An ``openai`` backend is :class:`~agentworld_plugins.backends.openai.OpenAIBackend` over its lean
transport unless ``http_client="openai"`` asks for the SDK transport (for proxies, or a server the
lean client does not suit).

Retries are the bench runner's (so they cover unparseable judgements too): the backends are built
with no retries of their own, a timeout equal to the per-request timeout, and room for the
whole concurrency.
"""

from __future__ import annotations

from ..backends import Backend, make_backend, split_backend_spec
from ..config import Settings, load_settings
from ..errors import ConfigError

JUDGE_ENV_PREFIX = "AGENTWORLD_JUDGE_"
HTTP_CLIENTS = ("lean", "openai")


def _build(settings: Settings, text: str | None, http_client: str) -> Backend:
    from ..plugins import get_plugin_manager

    if http_client not in HTTP_CLIENTS:
        raise ConfigError(f"Unknown HTTP client {http_client!r}", hint=f"choose {' or '.join(HTTP_CLIENTS)}")
    chosen = text or settings.backend or ("openai" if settings.base_url else None)
    if chosen and "," not in chosen and http_client == "lean":
        name, spec = split_backend_spec(chosen)
        if name == "openai":
            from ..backends.openai import from_settings

            if not spec and not settings.base_urls:
                raise ConfigError(
                    "The openai backend needs a base URL", hint="pass --base-url http://localhost:8000/v1"
                )
            return from_settings(settings, spec, "lean")
    return make_backend(settings, get_plugin_manager().registry, chosen)


def _endpoint(
    env_prefix: str,
    missing: ConfigError,
    default_backend: str | None,
    http_client: str,
    timeout: float,
    concurrency: int,
    **given: str | None,
) -> Backend:
    """The backend named by ``given`` (or ``env_prefix``* variables); ``missing`` when none is."""
    settings = load_settings(
        env_prefix=env_prefix, timeout=timeout, max_retries=0, concurrency=max(concurrency, 1), **given
    )
    if not settings.backend and not settings.base_url:
        raise missing
    return _build(settings, settings.backend or default_backend, http_client)


def world_backend(
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    backend: str | None = None,
    *,
    timeout: float = 600.0,
    concurrency: int = 32,
    http_client: str = "lean",
) -> Backend:
    """The backend of the world model under test. One must be named: bench never falls back to
    the offline world silently."""
    missing = ConfigError(
        "No world model to evaluate",
        hint="pass --base-url http://localhost:8000/v1 (vLLM/SGLang) or --backend NAME "
        "(offline, cassette:FILE, ...), or set AGENTWORLD_BASE_URL",
    )
    return _endpoint(
        "AGENTWORLD_",
        missing,
        None,
        http_client,
        timeout,
        concurrency,
        base_url=base_url,
        model=model,
        api_key=api_key,
        backend=backend,
    )


def judge_backend(
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    backend: str | None = None,
    *,
    timeout: float = 600.0,
    concurrency: int = 32,
    http_client: str = "lean",
) -> Backend:
    """The judge's backend: an OpenAI-compatible server, or any backend string."""
    missing = ConfigError(
        "No judge to score with",
        hint="pass the judge's --base-url (--judge-base-url for `bench run`) or set "
        "AGENTWORLD_JUDGE_BASE_URL; for offline runs a scenario: --judge-backend scenario:judge.yaml",
    )
    return _endpoint(
        JUDGE_ENV_PREFIX,
        missing,
        "openai",
        http_client,
        timeout,
        concurrency,
        base_url=base_url,
        model=model,
        api_key=api_key,
        backend=backend,
    )

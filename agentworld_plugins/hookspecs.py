"""Every hook a plugin can implement, grouped by phase.

Plugins implement hooks with ``@agentworld_plugins.hookimpl``; pluggy calls them with keyword
arguments only, so an implementation may accept any subset of the parameters below. See
``docs/plugin-hooks.md`` for an example of each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from .backends.base import BackendRequest, Completion
    from .observation import Observation
    from .plugins import Registry
    from .session import Session

hookspec = pluggy.HookspecMarker("agentworld")
hookimpl = pluggy.HookimplMarker("agentworld")


# --- Registration: called when a registry is first needed ------------------------------------


@hookspec
def register_domains(register: Callable[..., None]) -> None:
    """Register environment domains.

    :param register: ``register(domain)`` with a :class:`~agentworld_plugins.domains.Domain`
        instance; its ``name`` is the key. A later registration of the same name replaces an
        earlier one, so a plugin can override a built-in domain.
    """


@hookspec
def register_backends(register: Callable[..., None]) -> None:
    """Register world-model backends.

    :param register: ``register(name, factory)`` where ``factory(settings, spec)`` returns a
        :class:`~agentworld_plugins.backends.Backend`; ``spec`` is the text after ``name:`` in a
        backend string such as ``cassette:run.db`` (``""`` when absent).
    """


@hookspec
def register_perturbations(register: Callable[..., None]) -> None:
    """Register perturbations (fault injection, latency, control text, ...).

    :param register: ``register(name, factory)`` where ``factory(**options)`` returns a plugin
        object implementing step hooks; it is registered for the sessions that ask for ``name``.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``agentworld`` CLI.

    :param cli: the root click group; call ``cli.command()`` / ``cli.add_command()``.
    """


@hookspec
def register_tool_packs(register: Callable[..., None]) -> None:
    """Register named sets of tool definitions (for the mcp and swe domains).

    :param register: ``register(name, tools)`` with a list of MCP tool definitions (dicts with
        ``name``, ``description``, ``inputSchema`` and optionally ``outputSchema``).
    """


@hookspec
def register_offline_worlds(register: Callable[..., None]) -> None:
    """Register the embedded ``offline`` backend's deterministic world of a domain.

    :param register: ``register(domain_name, step)`` where ``step(state, action, context)``
        returns an :class:`~agentworld_plugins.domains.base.OfflineResult`. ``state`` is a dict
        owned by one offline session (mutated in place), ``action`` the domain's validated
        ``Action``, ``context`` the session's context. The same actions on a fresh state must give
        the same answers (the backend may replay them). A later registration of a name replaces an
        earlier one. ``register(kind_name, build, kind="machine")`` registers a builder of
        machines several sessions share (``"shell"``: ``build({session: domain}, files=, cwd=,
        hostname=, user=, env=) -> {session: state}``), used by
        :meth:`~agentworld_plugins.backends.offline.OfflineBackend.start_machine`.
        ``register(domain_name, update, kind="answered")`` registers how the world takes in a turn
        answered without it (an injected fault): ``update(state, action, observation_text,
        context)``; the terminal's pane shows the faulted screen, so the next screen continues it.
        ``register(domain_name, tables, kind="tables")`` registers the SQL tables (``sql``
        rewards read them) a session's world state has whatever its steps:
        ``tables(context) -> ({table: [column, ...]}, more)``, ``more`` true when steps can make
        tables of other names too (the mcp world's SQL tools).
        ``register(domain_name, read, kind="resource")`` registers how the world reads an MCP
        resource of its state: ``read(state, uri, context) -> (text, mime_type) | None`` (None: the
        world does not know that resource); ``mcp serve`` answers ``resources/read`` with it.
        ``register(domain_name, light, kind="light")`` registers which steps are light:
        ``light(state, action, context) -> bool``, true for a step whose work is bounded by its
        action and a small state. An async step (``acomplete``) that is light runs on the
        caller's thread; any other runs in a worker thread, so that no session holds up the
        event loop others are served on. The answer is the same either way.
    """


@hookspec
def register_rewards(register: Callable[..., None]) -> None:
    """Register reward checks for rollouts (``rollout run``, the TRL and OpenEnv environments).

    :param register: ``register(name, check)`` where ``check(episode, **params)`` returns a score
        in [0, 1] (a float, a bool or a :class:`~agentworld_plugins.rollout.rewards.RewardResult`)
        or an awaitable of one. ``params`` are the task's reward entry less ``type``, ``weight``
        and ``name``. A later registration of the same name replaces an earlier one.
    """


@hookspec
def register_guards(register: Callable[..., None]) -> None:
    """Register consistency guards for the ``guarded`` backend (docs/guard.md).

    :param register: ``register(domain, factory)`` where ``factory()`` returns a
        :class:`~agentworld_plugins.guard.Checker` for sessions of ``domain``. A later
        registration for the same domain replaces an earlier one (a plugin's guard replaces the
        built-in one).
    """


# --- Session phase: called when a World or Session is created ---------------------------------


@hookspec(firstresult=True)
def resolve_perturbation(spec: Any, registry: Registry) -> Any | None:
    """Turn a perturbation given by text or data into the plugin object a session registers.

    Called by :meth:`World.session <agentworld_plugins.World.session>` for each item of
    ``perturbations`` (and of the world's). Stops at the first non-None result; when every
    implementation returns ``None`` a non-text item is used as it is.

    :param spec: a ``"name:key=value,..."`` string, a ``(name, options)`` pair, a mapping with a
        ``name``, or an object (a plugin already).
    :param registry: the registry (``registry.perturbations`` maps names to factories).
    """


@hookspec
def default_perturbations(registry: Registry) -> list[Any] | None:
    """The perturbations every session of a new :class:`~agentworld_plugins.World` gets when the
    world is created without ``perturbations=`` (the built-in plugin reads ``AGENTWORLD_PERTURB``
    and ``AGENTWORLD_PERTURB_FILE``, so every front honours them).

    The lists of all implementations are joined, in pluggy's call order.

    :param registry: the registry, to resolve names.
    """


# --- Step phase: called, in this order, for every Session.step --------------------------------


@hookspec
def prepare_system_prompt(session: Session, prompt: str) -> str | None:
    """Rewrite the session's system prompt once, when the session is created.

    Implementations are chained: each receives the prompt as left by the previous one and returns
    a new prompt, or ``None`` to leave it unchanged.

    :param session: the new session (domain, context, seed are set; no turns yet).
    :param prompt: the system prompt rendered from the domain template.
    """


@hookspec(firstresult=True)
def before_step(session: Session, action: Any) -> Observation | None:
    """Look at a validated action before the world model is asked.

    Return an :class:`~agentworld_plugins.Observation` to answer the turn without the backend
    (injected faults, canned answers). Stops at the first non-None result.

    :param session: the session taking the step.
    :param action: the domain's validated ``Action`` instance.
    """


def leaves_messages(function: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a ``transform_messages`` implementation that never edits a message in place (it
    returns a new list, with new dicts for the messages it changes). Earlier turns' messages are
    shared between a session's requests; unless every implementation is marked, each request
    gets copies first, so that an in-place edit changes only that request."""
    function.leaves_messages = True  # type: ignore[attr-defined]
    return function


@hookspec
def transform_messages(session: Session, messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Change the chat messages about to be sent to the backend.

    Chained like :func:`prepare_system_prompt`: return a new list, or ``None`` to keep it (in
    place edits are allowed). Only the request is changed; the session's history is not. An
    implementation that never edits a message in place says so with :func:`leaves_messages`,
    which spares each request a copy of the history.

    :param session: the session taking the step.
    :param messages: system prompt, earlier turns, current turn prompt.
    """


@hookspec(firstresult=True)
def call_backend(session: Session, request: BackendRequest) -> Completion | Any:
    """Perform the backend call; the place to wrap it for latency, caching or tracing.

    The built-in implementation (``trylast``) calls ``request.backend``. Wrap it with
    ``@hookimpl(wrapper=True)`` and ``result = yield``. When ``request.is_async`` is true the
    result is an awaitable of a :class:`~agentworld_plugins.backends.Completion`, so wrappers must
    return an awaitable too (see ``docs/plugin-hooks.md``). Stops at the first non-None result.

    :param session: the session taking the step.
    :param request: messages, sampling, backend and ``is_async``.
    """


@hookspec
def after_observation(session: Session, action: Any, observation: Observation) -> Observation | None:
    """Change the observation before the agent sees it and before it is recorded.

    Chained: each implementation receives the observation left by the previous one and returns
    a replacement, or ``None`` to keep it. Also called for observations from ``before_step``.

    :param session: the session taking the step.
    :param action: the domain's validated ``Action`` instance.
    :param observation: the parsed observation.
    """

"""``agentworld serve``: expose a backend (or chain) as an OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..backends.base import Backend, Completion, Sampling
from ..domain_detect import forced_domain
from .options import (
    BACKEND_HELP,
    ensure_port_free,
    guard_option,
    perturb_options,
    say_ignored_options,
    server_options,
)


class ForcedDomainBackend(Backend):
    """Answers every conversation as one domain (``serve --domain``): the domain is set for the
    duration of each call, so the offline world's guess is skipped."""

    def __init__(self, inner: Backend, domain: str) -> None:
        self.inner = inner
        self.domain = domain
        self.name = getattr(inner, "name", "forced")

    def describe(self) -> str:
        return f"{self.inner.describe()} (domain {self.domain})"

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        token = forced_domain.set(self.domain)
        try:
            return self.inner.complete(messages, sampling)
        finally:
            forced_domain.reset(token)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        token = forced_domain.set(self.domain)
        try:
            return await self.inner.acomplete(messages, sampling)
        finally:
            forced_domain.reset(token)

    def close(self) -> None:
        self.inner.close()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option("--backend", envvar="AGENTWORLD_BACKEND", help=f"{BACKEND_HELP} Default: the offline world.")
@guard_option
@click.option(
    "--upstream", envvar="AGENTWORLD_BASE_URL", help="Base URL(s) of a real world model for 'openai'."
)
@click.option("--model", envvar="AGENTWORLD_MODEL", help="Upstream model name.")
@click.option("--upstream-api-key", envvar="AGENTWORLD_API_KEY", help="Upstream API key.")
@click.option("--api-key", "api_key", envvar="AGENTWORLD_SERVE_API_KEY", help="Require this bearer token.")
@click.option("--model-name", default="agentworld", show_default=True, help="Name listed by /v1/models.")
@click.option(
    "--prompts-dir",
    envvar="AGENTWORLD_PROMPTS_DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of <domain>/system_prompt.txt templates (e.g. the official ones).",
)
@click.option(
    "--domain",
    help="Answer every conversation as this domain (default: recognised from each conversation's turns).",
)
@perturb_options("every conversation in a recognised domain")
@click.option(
    "--world",
    "world_name",
    envvar="AGENTWORLD_WORLD",
    metavar="NAME",
    help="Run each conversation as a front of this named world (its files, tables and records "
    "are the other fronts' too; agentworld world show NAME lists the calls).",
)
@server_options
def serve(
    host: str,
    port: int,
    backend: str | None,
    upstream: str | None,
    model: str | None,
    upstream_api_key: str | None,
    api_key: str | None,
    model_name: str,
    prompts_dir: Path | None,
    domain: str | None,
    perturb: tuple[str, ...],
    perturb_file: Path | None,
    world_name: str | None,
    allow_remote: bool,
    max_body: int,
) -> None:
    """Serve /v1/chat/completions and /v1/models from any backend.

    With --perturb, each conversation is rebuilt into a session (named by the client's
    X-Agentworld-Conversation header, which agentworld's own client sends, else by its system
    prompt and first turn, so it is perturbed the same way on every request) and the
    perturbations run around the backend's answer.
    """
    from .. import http_guard
    from ..perturbations.config import perturbations_from_options
    from ..perturbations.proxy import PerturbingBackend
    from ..plugins import get_plugin_manager
    from ..redaction import redact_text
    from ..server import create_app, refuse_self_upstream
    from ..session import World

    http_guard.check_exposure(
        host, token=api_key, allow_remote=allow_remote, what="chat-completions server", token_flag="--api-key"
    )
    ensure_port_free(host, port)
    if upstream and (not backend or "openai" in backend):
        source = (
            "--upstream"
            if click.get_current_context().get_parameter_source("upstream")
            == (click.core.ParameterSource.COMMANDLINE)
            else "AGENTWORLD_BASE_URL"
        )
        refuse_self_upstream(host, port, upstream, source)
    say_ignored_options(backend, ("upstream", "model", "upstream_api_key"))
    perturbations = perturbations_from_options(perturb, perturb_file, get_plugin_manager().registry)
    world = World(
        base_url=upstream,
        model=model,
        api_key=upstream_api_key,
        backend=backend,
        prompts_dir=prompts_dir,
        perturbations=perturbations,
    )
    served = world.backend
    if world_name:
        from ..served_world import WorldServedBackend

        world = World(
            backend=world.backend, settings=world.settings, perturbations=world.perturbations, name=world_name
        )
        served = WorldServedBackend(world)  # the world's sessions run the perturbations
    elif world.perturbations:
        served = PerturbingBackend(served, world, world.perturbations)
    if domain:
        get_plugin_manager().registry.domain(domain)  # an unknown name fails now, naming the domains
        served = ForcedDomainBackend(served, domain)
    app = create_app(
        served, api_key=api_key, model_name=model_name, limits=http_guard.HttpLimits(max_body=max_body)
    )
    click.echo(f"agentworld: serving {redact_text(served.describe())} at http://{host}:{port}/v1", err=True)
    http_guard.run(app, host=host, port=port, limits=app.limits)

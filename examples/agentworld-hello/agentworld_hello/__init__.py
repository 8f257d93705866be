"""agentworld-hello: the smallest complete agentworld plugin.

It adds a ``hello`` domain (the agent sends ``{"name": "Ada"}``, the simulated service greets
Ada) and an ``agentworld hello NAME`` command that runs one step of it::

    pip install -e examples/agentworld-hello
    agentworld plugins                      # lists "hello" with the hooks below
    agentworld hello Ada --backend offline  # or --base-url http://localhost:8000/v1

In Python::

    from agentworld_plugins import World

    with World() as world:
        print(world.session("hello").step({"name": "Ada"}).text)
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

import click
from pydantic import BaseModel, ConfigDict, Field

from agentworld_plugins import Sampling, hookimpl
from agentworld_plugins.cli.options import make_world, world_options
from agentworld_plugins.domains.base import Domain, OfflineResult
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.perturbations.base import TargetedPerturbation, TargetOptions

__all__ = ["Greeting", "Grumpy", "HelloDomain"]


class Greeting(BaseModel):
    """The hello domain's action: who to greet."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="The name of the person to greet, e.g. 'Ada'.")


class HelloDomain(Domain):
    """A greeting service: the smallest domain that runs on every backend."""

    name = "hello"
    description = "A greeting service: send a name, get a greeting."
    Action = Greeting
    example_action: ClassVar[Any] = {"name": "Ada"}
    requires_block = True  # the template asks for one <predicted_observation> block
    sampling = Sampling(temperature=0.0, max_tokens=256)

    def template(self, prompts_dir: Path | None = None, name: str = "system_prompt.txt") -> str:
        """A ``hello/`` folder in ``prompts_dir`` wins; otherwise the template shipped in this package."""
        if prompts_dir is not None and (Path(prompts_dir) / self.name / name).is_file():
            return super().template(prompts_dir, name)
        resource = files(__name__).joinpath(name)
        if not resource.is_file():
            raise ConfigError(
                f"Domain 'hello' ships no {name}",
                hint=f"put one in <prompts dir>/hello/{name}",
            )
        return resource.read_text(encoding="utf-8")

    def offline_step(
        self, state: dict[str, Any], action: BaseModel, context: dict[str, Any]
    ) -> OfflineResult:
        """The ``offline`` backend's answer: always the same greeting for the same name."""
        greeting = Greeting.model_validate(action)
        return OfflineResult(text=f"Hello, {greeting.name}!")


class GrumpyOptions(TargetOptions):
    """Grumpy's own option, next to the targeting and schedule options every perturbation has."""

    phrase: str = Field("Go away", min_length=1, description="what the service says instead of 'Hello'")


class Grumpy(TargetedPerturbation):
    """A perturbation: on the steps its schedule picks, the greeting service is rude.

    ``--perturb grumpy:rate=0.5,phrase=Not now`` or ``world.session("hello",
    perturbations=[Grumpy(every=2)])``. The base class gives it targeting (domains, tools,
    turns), schedules (rate, every, first, at), a reproducible random stream per session and
    provenance in ``metadata["perturbations"]``.
    """

    name = "grumpy"
    Options = GrumpyOptions
    example = "grumpy:rate=0.5,phrase=Not now"

    @hookimpl
    def after_observation(self, session: Any, action: Any, observation: Any) -> Any:
        view = self.view(session, action)
        fires = self.fires(session, view)
        self.count(session, view)  # once per step, after deciding: schedules count matching steps
        if not fires:
            return None
        phrase = self.options.phrase
        rude = observation.model_copy(update={"text": observation.text.replace("Hello", phrase)})
        return self.record(rude, self.entry(session, phrase=phrase))


@hookimpl
def register_domains(register: Any) -> None:
    register(HelloDomain())


@hookimpl
def register_perturbations(register: Any) -> None:
    register(Grumpy.name, Grumpy)


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.argument("name")
    @world_options
    def hello(name: str, **world_args: Any) -> None:
        """Greet NAME: run one step of the hello domain and print the observation."""
        with make_world(**world_args) as world:
            observation = world.session("hello").step({"name": name})
        click.echo(observation.text)

"""Tasks for the simulated environments: a goal, where it starts, and how success is judged.

A task file is JSON or YAML::

    id: shop-find-mouse
    domain: web
    instruction: Find the cheapest wireless mouse and tell me its price.
    start_url: https://shop.example.com/            # web: the page the browser opens
    initial_state: |                                 # optional: the first screen, as text
      URL: https://shop.example.com/
      Title: Example Shop
      ...
    success:                                         # optional: reward 1 when all hold
      observation_contains: ["Logitech M185"]
      answer_contains: ["14.99"]

``start_app`` names the app an Android or desktop task starts in. Without ``initial_state`` the
world model invents a fictional but consistent start that fits the instruction (on the offline
world: its default screen). ``pages`` (web) and ``screens`` (android) give the offline world the
text of pages and screens it may open; ``tools`` are tool definitions (mcp, swe); ``context``
holds any other session context (``files``, ``cwd``, ``world_bible``, ``corpus``, ...). OSWorld
task configs (``snapshot``, ``config``, ``evaluator``, ...) load as they are.

>>> task = load_task("web/shop-find-mouse")      # a bundled task            # doctest: +SKIP
>>> task = load_task("my_task.yaml")             # a file                    # doctest: +SKIP
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentworld_plugins.domains.formats.android import DEFAULT_ANDROID_SCREEN
from agentworld_plugins.domains.formats.os import DEFAULT_OS_DESKTOP
from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE
from agentworld_plugins.errors import ConfigError

if TYPE_CHECKING:
    from agentworld_plugins.session import World

__all__ = [
    "DOMAINS",
    "GUI_DOMAINS",
    "InitialState",
    "SuccessCriteria",
    "Task",
    "bundled_tasks",
    "initial_state",
    "load_task",
    "offline_default_state",
]

DOMAINS: tuple[str, ...] = ("mcp", "search", "terminal", "swe", "android", "web", "os")
GUI_DOMAINS: tuple[str, ...] = ("web", "android", "os")
DomainName = Literal["mcp", "search", "terminal", "swe", "android", "web", "os"]

_TASK_SUFFIXES = (".json", ".yaml", ".yml")


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError("give a string or a list of strings")


class SuccessCriteria(BaseModel):
    """When a task counts as done: every listed string appears (case-insensitive)."""

    model_config = ConfigDict(extra="forbid")

    observation_contains: list[str] = Field(
        default_factory=list, description="Strings the current screen/page/output must all contain."
    )
    answer_contains: list[str] = Field(
        default_factory=list,
        description="Strings the agent's final answer (send_msg_to_user, answer, ...) must all contain.",
    )

    @field_validator("observation_contains", "answer_contains", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> list[str]:
        return _strings(value)

    @property
    def empty(self) -> bool:
        return not (self.observation_contains or self.answer_contains)

    def met(self, observation: str, answer: str | None) -> bool:
        """Whether the criteria hold for this observation and answer (never true when empty)."""
        if self.empty:
            return False
        seen = observation.casefold()
        if not all(s.casefold() in seen for s in self.observation_contains):
            return False
        if self.answer_contains:
            if answer is None:
                return False
            said = answer.casefold()
            return all(s.casefold() in said for s in self.answer_contains)
        return True


class Task(BaseModel):
    """One task: its instruction, its start and (optionally) its success criteria."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field("task", description="Task identifier (default: the file name).")
    domain: DomainName | None = Field(None, description="The environment kind the task is for.")
    instruction: str = Field("", description="The goal given to the agent.")
    start_url: str | None = Field(None, description="web: the page the browser starts on.")
    start_app: str | None = Field(None, description="android/os: the app the task starts in.")
    initial_state: str | None = Field(
        None, description="The first screen as the domain's observation text (tree, element list, table)."
    )
    pages: dict[str, str] | None = Field(None, description="web, offline world: page text by URL.")
    screens: dict[str, str] | None = Field(None, description="android, offline world: screen text by name.")
    tools: list[dict[str, Any]] | None = Field(None, description="mcp/swe: tool definitions.")
    context: dict[str, Any] = Field(default_factory=dict, description="Other session context.")
    success: SuccessCriteria | None = Field(None, description="When the task counts as done.")
    max_steps: int | None = Field(None, ge=1, description="Steps before the episode is truncated.")
    user_answer: str | None = Field(None, description="android: what the simulated user answers.")
    # OSWorld task-config keys, kept as they are
    snapshot: str | None = None
    source: str | None = None
    config: list[dict[str, Any]] | None = None
    trajectory: str | None = None
    related_apps: list[str] | None = None
    evaluator: dict[str, Any] | None = None
    proxy: bool | None = None
    fixed_ip: bool | None = None
    possibility_of_env_change: str | None = None

    @field_validator("instruction", mode="before")
    @classmethod
    def _no_none(cls, value: Any) -> Any:
        return "" if value is None else value

    @property
    def criteria(self) -> SuccessCriteria:
        return self.success or SuccessCriteria()

    def session_context(self) -> dict[str, Any]:
        """What a session of this task gets as context (task, pages, screens, files, ...)."""
        context = dict(self.context)
        if self.instruction:
            context.setdefault("task", self.instruction)
        if self.pages:
            context["pages"] = dict(self.pages)
        if self.screens:
            context["screens"] = dict(self.screens)
        if self.tools is not None:
            context["tools"] = list(self.tools)
        return context

    def setup_lines(self) -> list[str]:
        """The task's start described in words (start URL/app, OSWorld setup steps)."""
        lines = []
        if self.start_url:
            lines.append(f"The browser opens {self.start_url}.")
        if self.start_app:
            lines.append(f"The app {self.start_app!r} is open in front.")
        for step in self.config or []:
            kind = step.get("type", "?")
            params = json.dumps(step.get("parameters", {}), ensure_ascii=False)
            lines.append(f"Setup step {kind}: {params}")
        return lines


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the task file {path}: {exc}", hint="check the path") from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"Task file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                hint="fix the JSON",
            ) from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"Task file {path} is not valid YAML: {exc}", hint="fix the YAML") from None


def _tasks_root() -> Any:
    return files("agentworld_plugins.adapters.gui").joinpath("tasks")


def bundled_tasks(domain: str | None = None) -> dict[str, Any]:
    """The bundled example tasks as ``{"<domain>/<id>": resource}``, sorted by name."""
    found: dict[str, Any] = {}
    root = _tasks_root()
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir(), key=lambda p: p.name):
        if not folder.is_dir() or (domain is not None and folder.name != domain):
            continue
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            name = item.name
            for suffix in _TASK_SUFFIXES:
                if name.endswith(suffix) and item.is_file():
                    found[f"{folder.name}/{name[: -len(suffix)]}"] = item
    return found


def _validate(data: Any, source: str, default_id: str | None, domain: str | None) -> Task:
    if not isinstance(data, dict):
        raise ConfigError(
            f"Task {source} is {type(data).__name__}, not a mapping",
            hint="a task is a mapping with instruction, initial_state, ...",
        )
    data = dict(data)
    if default_id and "id" not in data:
        data["id"] = default_id
    if domain is not None and data.get("domain") is None:
        data["domain"] = domain
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(task)'}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(
            f"Task {source} is not valid: {problems}",
            hint="see the task file format in docs/gui.md",
        ) from None
    if domain is not None and task.domain not in (None, domain):
        raise ConfigError(
            f"Task {source} is for domain {task.domain!r}, not {domain!r}",
            hint=f"pick a {domain} task (agentworld_plugins.adapters.gui.task.bundled_tasks({domain!r}))",
        )
    return task


def load_task(source: str | Path | dict[str, Any] | Task, domain: str | None = None) -> Task:
    """A task from a :class:`Task`, a mapping, a file path, or a bundled task id.

    A bundled id is ``<domain>/<name>`` or, with ``domain`` given, ``<name>``. ``domain``
    checks the task's domain (and fills it in when the task does not say).
    """
    if isinstance(source, Task):
        if domain is not None and source.domain not in (None, domain):
            raise ConfigError(
                f"Task {source.id!r} is for domain {source.domain!r}, not {domain!r}",
                hint=f"pick a {domain} task",
            )
        return source if source.domain or domain is None else source.model_copy(update={"domain": domain})
    if isinstance(source, dict):
        return _validate(source, "(inline)", None, domain)
    text = str(source)
    path = Path(text).expanduser()
    if path.suffix.lower() in _TASK_SUFFIXES and path.is_file():
        return _validate(_read(path), str(path), path.stem, domain)
    bundled = bundled_tasks()
    key = text if "/" in text else (f"{domain}/{text}" if domain else text)
    key = key.removeprefix("agentworld.")
    if key not in bundled and domain is None:
        matches = [k for k in bundled if k.split("/", 1)[1] == text.removeprefix("agentworld.")]
        if len(matches) == 1:
            key = matches[0]
    if key in bundled:
        resource = bundled[key]
        name = key.split("/", 1)[1]
        data = _read_resource(resource)
        return _validate(data, f"{key} (bundled)", name, domain or key.split("/", 1)[0])
    known = ", ".join(bundled) or "none"
    raise ConfigError(
        f"No task file or bundled task named {text!r}",
        hint=f"give the path of a .json/.yaml task file or one of the bundled tasks: {known}",
    )


def _read_resource(resource: Any) -> Any:
    text = resource.read_text(encoding="utf-8")
    if resource.name.endswith(".json"):
        return json.loads(text)
    import yaml

    return yaml.safe_load(text)


# -- the first screen ------------------------------------------------------------------------------

#: per GUI domain: an action that changes nothing, used to ask the world model for the start screen
_NOOP_ACTIONS: dict[str, Any] = {
    "web": "noop()",
    "android": {"action_type": "wait"},
    "os": "WAIT",
    "terminal": [{"keystrokes": "", "duration": 0.1}],
}

_START_SECTION = """

## Start of the Episode
The agent has just been given the task below. Before its first action, show the environment as it
is at the start of this task: a fictional but realistic and self-consistent starting point that fits
the task (the right site, app or window already open, with plausible content), as the agent would
observe it. Do not perform or complete any part of the task.

Task: {instruction}
{setup}"""


class InitialState(BaseModel):
    """The first observation of an episode and where it came from."""

    text: str | None = Field(description="The first screen (None for domains without one).")
    source: Literal["task", "world_model", "offline_default", "none"] = "none"
    error: str | None = Field(None, description="Why the world model's start was not usable.")


def offline_default_state(domain: str, task: Task | None = None) -> str | None:
    """The offline world's default first screen of ``domain`` (None for domains without one)."""
    if domain == "web":
        return DEFAULT_WEB_PAGE
    if domain == "android":
        return DEFAULT_ANDROID_SCREEN
    if domain == "os":
        return DEFAULT_OS_DESKTOP
    if domain == "terminal":
        from agentworld_plugins.session import World

        # the offline machine's screen before any key: an empty batch types nothing
        context = task.session_context() if task is not None else {}
        session = World(backend="offline", perturbations=()).session("terminal", **context)
        return session.step([{"keystrokes": ""}]).text
    return None


def _start_action(domain: str, task: Task) -> Any:
    if domain == "web" and task.start_url:
        return f"goto({task.start_url!r})"
    if domain == "android" and task.start_app:
        return {"action_type": "open_app", "app_name": task.start_app}
    return _NOOP_ACTIONS[domain]


def initial_state(
    world: World, domain: str, task: Task, *, seed: int | None = None, valid: Any = None
) -> InitialState:
    """The first screen of an episode of ``task``.

    From the task's ``initial_state`` when it has one; else the world model is asked for a start
    that fits the instruction (a side session whose only turn is a no-op, ``goto(start_url)`` or
    ``open_app``); on the offline world that is its default screen. ``valid(text)`` says whether
    an answer is a usable screen; an unusable one falls back to the offline default, with
    ``error`` saying why.
    """
    if task.initial_state is not None:
        return InitialState(text=task.initial_state, source="task")
    if domain not in _NOOP_ACTIONS:
        return InitialState(text=None, source="none")
    fallback = offline_default_state(domain, task)
    setup = "\n".join(task.setup_lines())
    start = _START_SECTION.format(instruction=task.instruction or "(no instruction given)", setup=setup)
    session = world.make_session(domain, seed=seed, system_suffix=start, **task.session_context())
    observation = session.step(_start_action(domain, task))
    text = observation.text
    backend = str(observation.metadata.get("backend", ""))
    problem: str | None = None
    if valid is not None and not valid(text):
        problem = "the world model's start screen could not be read"
    elif domain != "terminal" and not text.strip():
        problem = "the world model's start screen is empty"
    if problem is not None:
        return InitialState(text=fallback, source="offline_default", error=problem)
    source: Literal["world_model", "offline_default"] = (
        "offline_default" if observation.metadata.get("offline") and backend == "offline" else "world_model"
    )
    return InitialState(text=text, source=source)

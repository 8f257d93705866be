"""Every hookspec is documented, and every step hook really takes effect where it is documented to."""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pluggy
import pytest

from agentworld_plugins import hookspecs
from agentworld_plugins.backends.base import BackendRequest, Completion
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.hookspecs import hookimpl
from agentworld_plugins.plugins import PluginManager
from agentworld_plugins.session import Observation, Session, World

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plugin-hooks.md"
STEP_HOOKS = (
    "prepare_system_prompt",
    "before_step",
    "transform_messages",
    "call_backend",
    "after_observation",
)
LIST_ISSUES = {"tool_name": "list_issues", "arguments": {"repo": "acme/api"}}


# --- documentation ------------------------------------------------------------------------------


def hookspec_names() -> list[str]:
    """The hooks declared in hookspecs.py: the functions carrying pluggy's ``agentworld_spec`` mark."""
    return [
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, "agentworld_spec")
    ]


def undocumented(names: list[str], markdown: str) -> list[str]:
    """The names that have no ``## name`` heading in ``markdown``."""
    headings = set(re.findall(r"^## +`?(\w+)`? *$", markdown, re.MULTILINE))
    return [name for name in names if name not in headings]


def test_hookspecs_are_found() -> None:
    names = hookspec_names()
    assert set(STEP_HOOKS) <= set(names)
    assert {"register_domains", "register_backends", "register_commands"} <= set(names)
    assert "hookspec" not in names and "hookimpl" not in names


def test_every_hookspec_has_a_section_in_plugin_hooks_md() -> None:
    missing = undocumented(hookspec_names(), DOCS.read_text(encoding="utf-8"))
    assert missing == [], f"docs/plugin-hooks.md needs a '## name' section for: {', '.join(missing)}"


def test_the_documentation_check_catches_a_missing_section() -> None:
    text = DOCS.read_text(encoding="utf-8")
    without = re.sub(r"^## before_step *$", "## before_steps", text, flags=re.MULTILINE)
    assert without != text
    assert undocumented(hookspec_names(), without) == ["before_step"]


# --- fixtures (pm and register: tests/conftest.py) ----------------------------------------------------


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def world(pm: PluginManager, backend: FakeBackend) -> World:
    return World(backend=backend, plugin_manager=pm)


def sent(backend: FakeBackend, call: int = -1) -> list[dict[str, Any]]:
    """The messages of one backend call."""
    return backend.history[call][0]


# --- prepare_system_prompt ----------------------------------------------------------------------------


class Append:
    """Appends ``text`` to the system prompt and remembers the sessions it saw."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.seen: list[Session] = []

    @hookimpl
    def prepare_system_prompt(self, session: Session, prompt: str) -> str:
        self.seen.append(session)
        return prompt + self.text


class KeepPrompt:
    def __init__(self) -> None:
        self.received: list[str] = []

    @hookimpl
    def prepare_system_prompt(self, prompt: str) -> None:
        self.received.append(prompt)
        return None


def test_prepare_system_prompt_is_chained_in_call_order(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    base = world.session("mcp").system_prompt
    first, second, keep = Append(" [first]"), Append(" [second]"), KeepPrompt()
    register(first)
    register(keep)
    register(second)  # registered last: pluggy calls it first

    session = world.session("mcp", task="triage")

    assert session.system_prompt == base + " [second] [first]"
    assert keep.received == [base + " [second]"]  # got the value as left by the one before it
    assert first.seen == [session] and second.seen == [session]
    assert session.context["task"] == "triage"
    assert session.trajectory.system_prompt == session.system_prompt
    session.step(LIST_ISSUES)
    assert sent(backend)[0] == {"role": "system", "content": session.system_prompt}


def test_prepare_system_prompt_runs_once_per_session(
    world: World, register: Callable[[object], object]
) -> None:
    plugin = register(Append("!"))
    assert isinstance(plugin, Append)
    session = world.session("mcp")
    session.step(LIST_ISSUES)
    session.step(LIST_ISSUES)
    assert plugin.seen == [session]


# --- before_step --------------------------------------------------------------------------------------


class Fault:
    """Answers calls to ``tool`` itself, as an injected fault."""

    def __init__(self, tool: str, text: str = "Error: 503 Service Unavailable") -> None:
        self.tool = tool
        self.text = text
        self.actions: list[Any] = []

    @hookimpl
    def before_step(self, session: Session, action: Any) -> Observation | None:
        self.actions.append(action)
        if action.tool_name != self.tool:
            return None
        return Observation(text=self.text, is_error=True, metadata={"injected": self.tool})


class Mark:
    """Appends ``text`` to every observation and remembers what it got."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.got: list[tuple[Any, Observation]] = []

    @hookimpl
    def after_observation(self, session: Session, action: Any, observation: Observation) -> Observation:
        self.got.append((action, observation))
        return observation.model_copy(update={"text": observation.text + self.text})


def test_before_step_short_circuits_the_backend(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    fault = Fault("delete_issue")
    mark = Mark(" [seen]")
    register(fault)
    register(mark)
    session = world.session("mcp")

    observation = session.step({"tool_name": "delete_issue", "arguments": {"id": 7}})

    assert backend.history == []
    assert observation.text == "Error: 503 Service Unavailable [seen]"
    assert observation.is_error and observation.metadata["injected"] == "delete_issue"
    assert mark.got[0][1].text == "Error: 503 Service Unavailable"  # after_observation saw it first
    assert type(fault.actions[0]).__name__ == "ToolCall"  # the validated action, not the dict
    (turn,) = session.trajectory.turns
    assert turn.number == 1
    assert turn.observation == observation
    assert turn.action == {"tool_name": "delete_issue", "arguments": {"id": 7}}
    assert turn.prompt.startswith("### Turn 1") and "delete_issue" in turn.prompt


def test_before_step_returning_none_lets_the_step_through(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    fault = Fault("delete_issue")
    register(fault)
    backend.enqueue('{"issues": []}')
    session = world.session("mcp")

    assert session.step(LIST_ISSUES).text == '{"issues": []}'
    assert len(backend.history) == 1
    assert len(fault.actions) == 1


def test_before_step_stops_at_the_first_result(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    older, newer = Fault("list_issues", "older"), Fault("list_issues", "newer")
    register(older)
    register(newer)  # called first
    observation = world.session("mcp").step(LIST_ISSUES)
    assert observation.text == "newer"
    assert older.actions == []
    assert backend.history == []


async def test_before_step_short_circuits_astep(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    register(Fault("list_issues", "cached"))
    session = world.session("mcp")
    observation = await session.astep(LIST_ISSUES)
    assert observation.text == "cached"
    assert backend.history == []
    assert session.trajectory.turns[0].observation.text == "cached"


# --- transform_messages -------------------------------------------------------------------------------


class Remind:
    """Returns a new list whose last message carries a reminder."""

    @hookimpl
    def transform_messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last = messages[-1]
        return [*messages[:-1], {**last, "content": last["content"] + "\nREMINDER"}]


class RedactInPlace:
    """Edits the list in place and returns None."""

    @hookimpl
    def transform_messages(self, session: Session, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            message["content"] = message["content"].replace("acme/api", "<repo>")


def test_transform_messages_changes_the_request_only(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    register(Remind())
    backend.enqueue("first answer", "second answer")
    session = world.session("mcp")

    session.step(LIST_ISSUES)
    session.step({"tool_name": "get_issue", "arguments": {"id": 1}})

    first, second = sent(backend, 0), sent(backend, 1)
    assert first[-1]["content"].endswith("\nREMINDER")
    assert second[-1]["content"].endswith("\nREMINDER")
    # the history sent on turn 2 is the session's, without turn 1's reminder
    assert second[1] == {"role": "user", "content": session.trajectory.turns[0].prompt}
    assert "REMINDER" not in second[1]["content"]
    assert all("REMINDER" not in turn.prompt for turn in session.trajectory.turns)
    assert second[2] == {"role": "assistant", "content": "first answer"}


def test_transform_messages_in_place_edits_and_chaining(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    register(Remind())
    register(RedactInPlace())  # runs first, edits in place; Remind then gets the edited list
    session = world.session("mcp")

    session.step(LIST_ISSUES)

    request = sent(backend)
    assert "<repo>" in request[-1]["content"] and "acme/api" not in request[-1]["content"]
    assert request[-1]["content"].endswith("\nREMINDER")
    assert "acme/api" in session.trajectory.turns[0].prompt


# --- call_backend -------------------------------------------------------------------------------------


class Shout:
    """A wrapper around the backend call that upper-cases the completion, sync or async."""

    def __init__(self) -> None:
        self.requests: list[BackendRequest] = []

    @hookimpl(wrapper=True)
    def call_backend(self, session: Session, request: BackendRequest) -> Any:
        self.requests.append(request)
        result = yield
        if request.is_async:

            async def shout() -> Completion:
                completion = await result
                return self.louder(completion)

            return shout()
        return self.louder(result)

    @staticmethod
    def louder(completion: Completion) -> Completion:
        return dataclasses.replace(
            completion, text=completion.text.upper(), metadata={**completion.metadata, "shouted": True}
        )


def test_call_backend_wrapper_sees_sync_calls(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    shout = Shout()
    register(shout)
    backend.enqueue("quiet answer")
    session = world.session("mcp")

    observation = session.step(LIST_ISSUES)

    assert observation.text == "QUIET ANSWER"
    assert observation.raw == "QUIET ANSWER"
    assert observation.metadata["shouted"] is True
    (request,) = shout.requests
    assert request.is_async is False
    assert request.backend is backend
    assert request.messages == sent(backend)
    assert request.sampling == session.sampling
    assert session.trajectory.turns[0].observation.text == "QUIET ANSWER"


async def test_call_backend_wrapper_sees_async_calls(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    shout = Shout()
    register(shout)
    backend.enqueue("quiet answer")
    session = world.session("mcp")

    observation = await session.astep(LIST_ISSUES)

    assert observation.text == "QUIET ANSWER"
    assert observation.metadata["shouted"] is True
    assert [r.is_async for r in shout.requests] == [True]
    assert len(backend.history) == 1


class Cache:
    """A plain implementation that answers the call itself (firstresult), sync and async."""

    @hookimpl
    def call_backend(self, request: BackendRequest) -> Any:
        completion = Completion(text="from cache", metadata={"cache_hit": True})
        if request.is_async:

            async def hit() -> Completion:
                return completion

            return hit()
        return completion


async def test_call_backend_first_result_replaces_the_default(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    register(Cache())
    shout = Shout()
    register(shout)  # a wrapper wraps whichever implementation answers
    session = world.session("mcp")

    assert session.step(LIST_ISSUES).text == "FROM CACHE"
    observation = await session.astep(LIST_ISSUES)
    assert observation.text == "FROM CACHE"
    assert observation.metadata["cache_hit"] is True
    assert backend.history == []


def test_call_backend_wrapper_sees_backend_errors(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    class Fallback:
        @hookimpl(wrapper=True)
        def call_backend(self) -> Any:
            try:
                return (yield)
            except ConnectionError:
                return Completion(text="fallback")

    register(Fallback())
    backend.enqueue(ConnectionError("refused"))
    assert world.session("mcp").step(LIST_ISSUES).text == "fallback"


# --- after_observation --------------------------------------------------------------------------------


def test_after_observation_is_chained_and_recorded(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    class Keep:
        def __init__(self) -> None:
            self.got: list[Observation] = []

        @hookimpl
        def after_observation(self, observation: Observation) -> None:
            self.got.append(observation)

    first, second, keep = Mark(" [1]"), Mark(" [2]"), Keep()
    register(first)
    register(keep)
    register(second)  # runs first
    backend.enqueue("model text")
    session = world.session("mcp")

    observation = session.step(LIST_ISSUES)

    assert observation.text == "model text [2] [1]"
    assert keep.got[0].text == "model text [2]"
    assert second.got[0][1].text == "model text"
    assert second.got[0][1].raw == "model text"
    assert type(second.got[0][0]).__name__ == "ToolCall"
    assert session.trajectory.turns[0].observation == observation
    session.step(LIST_ISSUES)
    assert sent(backend)[2] == {"role": "assistant", "content": "model text [2] [1]"}


# --- ordering -------------------------------------------------------------------------------------------


class Tagged:
    """Records its tag in every chained step hook; ``tryfirst``/``trylast`` set by ``_tagged`` below."""

    def __init__(self, tag: str, log: list[str]) -> None:
        self.tag = tag
        self.log = log

    def _note(self, hook: str) -> None:
        self.log.append(f"{hook}:{self.tag}")


def _tagged(**marks: bool) -> type[Tagged]:
    """A ``Tagged`` whose three chained step hooks carry ``marks`` (``tryfirst``/``trylast``)."""

    class Marked(Tagged):
        @hookimpl(**marks)
        def prepare_system_prompt(self) -> None:
            self._note("prompt")

        @hookimpl(**marks)
        def transform_messages(self) -> None:
            self._note("messages")

        @hookimpl(**marks)
        def after_observation(self) -> None:
            self._note("observation")

    return Marked


PlainTagged = _tagged()
FirstTagged = _tagged(tryfirst=True)
LastTagged = _tagged(trylast=True)


def test_tryfirst_and_trylast_order_the_chains(world: World, register: Callable[[object], object]) -> None:
    log: list[str] = []
    # registered in the order that would be called last-first without the markers
    register(FirstTagged("first", log))
    register(PlainTagged("old", log))
    register(LastTagged("last", log))
    register(PlainTagged("new", log))

    world.session("mcp").step(LIST_ISSUES)

    order = ["first", "new", "old", "last"]
    assert log == (
        [f"prompt:{t}" for t in order]
        + [f"messages:{t}" for t in order]
        + [f"observation:{t}" for t in order]
    )


def test_tryfirst_before_step_wins(
    world: World, register: Callable[[object], object], backend: FakeBackend
) -> None:
    class Early(Fault):
        @hookimpl(tryfirst=True)
        def before_step(self, session: Session, action: Any) -> Observation | None:
            return super().before_step(session, action)

    register(Early("list_issues", "early"))
    register(Fault("list_issues", "late"))  # registered later, but not tryfirst
    assert world.session("mcp").step(LIST_ISSUES).text == "early"


# --- per-session perturbations ---------------------------------------------------------------------------


class Perturb:
    """A perturbation touching every step hook, to show it reaches one session only."""

    @hookimpl
    def prepare_system_prompt(self, prompt: str) -> str:
        return prompt + "\nPERTURBED"

    @hookimpl
    def transform_messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*messages, {"role": "user", "content": "PERTURBED"}]

    @hookimpl
    def after_observation(self, observation: Observation) -> Observation:
        return observation.model_copy(update={"text": "PERTURBED " + observation.text})


def test_perturbations_affect_only_their_session(
    world: World, pm: PluginManager, backend: FakeBackend
) -> None:
    perturbation = Perturb()
    backend.responder = lambda messages: "plain"
    calm_before = world.session("mcp")
    perturbed = world.session("mcp", perturbations=[perturbation])
    calm_after = world.session("mcp")

    assert perturbed.system_prompt.endswith("\nPERTURBED")
    assert perturbed.step(LIST_ISSUES).text == "PERTURBED plain"
    assert sent(backend)[-1] == {"role": "user", "content": "PERTURBED"}

    for session in (calm_before, calm_after):
        assert "PERTURBED" not in session.system_prompt
        assert session.step(LIST_ISSUES).text == "plain"
        assert all(m["content"] != "PERTURBED" for m in sent(backend))

    assert not pm.is_registered(perturbation)
    assert perturbed.pm is not pm and perturbed.pm.is_registered(perturbation)
    assert calm_before.pm is pm and calm_after.pm is pm


def test_perturbation_by_registered_name(world: World, register: Callable[[object], object]) -> None:
    made: list[dict[str, str]] = []

    class Suffix:
        def __init__(self, **options: str) -> None:
            made.append(options)
            self.text = options.get("text", "!")

        @hookimpl
        def after_observation(self, observation: Observation) -> Observation:
            return observation.model_copy(update={"text": observation.text + self.text})

    class Registers:
        @hookimpl
        def register_perturbations(self, register: Callable[..., None]) -> None:
            register("suffix", Suffix)

    register(Registers())
    session = world.session("mcp", perturbations=["suffix:text=?, level = 2"])
    assert session.step(LIST_ISSUES).text.endswith("?")
    assert made == [{"text": "?", "level": "2"}]
    assert world.session("mcp").step(LIST_ISSUES).text.endswith("?") is False


def test_session_manager_keeps_the_world_plugins(world: World, register: Callable[[object], object]) -> None:
    register(Mark(" [world]"))
    session = world.session("mcp", perturbations=[Mark(" [session]")])
    # the session's own plugin was registered last, so it runs first
    assert session.step(LIST_ISSUES).text.endswith(" [session] [world]")


# --- validation -------------------------------------------------------------------------------------------


def test_check_pending_rejects_a_misspelled_hook(
    pm: PluginManager, register: Callable[[object], object]
) -> None:
    class Typo:
        @hookimpl
        def after_observaton(self, observation: Observation) -> None:  # sic
            return None

    register(Typo())
    with pytest.raises(pluggy.PluginValidationError, match="after_observaton"):
        pm.check_pending()


def test_a_hookimpl_with_an_unknown_argument_is_rejected(pm: PluginManager) -> None:
    class WrongArgument:
        @hookimpl
        def before_step(self, sesion: Session) -> None:  # sic
            return None

    with pytest.raises(pluggy.PluginValidationError, match="sesion"):
        pm.register(WrongArgument())


def test_fresh_manager_has_no_pending_hooks(pm: PluginManager) -> None:
    pm.check_pending()
    assert pm.hook.call_backend.get_hookimpls()[0].trylast

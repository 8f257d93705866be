"""What a domain plugin provides: its action model, prompts, turn format and output parsing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from ..backends.base import Sampling
from ..errors import ActionValidationError, ConfigError
from ..jsontext import dumps_indented
from ..limits import LimitError, check_depth, check_json_text, loads_limited
from ..observation import OfflineResult as OfflineResult  # re-exported: its home before observation.py
from ..turns import ParsedOutput, parse_output, render_turn
from .prompt_cache import bundled_template, file_template, tool_definitions_json

TOOL_DEFINITIONS = "{tool_definitions}"
DEMONSTRATIONS = "{demonstrations}"


def _expected(err: Any) -> str:
    ctx = err.get("ctx") or {}
    if "expected" in ctx:
        return str(ctx["expected"])
    return err.get("type", "")


def validation_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """pydantic errors as ``{loc, msg, input, expected}`` dicts with dotted locations."""
    out = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"] if p != "root")
        out.append({"loc": loc, "msg": err["msg"], "input": err.get("input"), "expected": _expected(err)})
    return out


class Domain:
    """Base class of domain plugins. Subclasses set the class attributes and may override hooks.

    Instances are registered through ``register_domains``; they hold no per-session state.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    Action: ClassVar[type[BaseModel]]
    #: an action that validates, shown in error hints and ``agentworld domains``
    example_action: ClassVar[Any] = None
    #: code-block language of the action in a turn prompt (None: written bare)
    action_fence: ClassVar[str | None] = "json"
    #: whether the domain has a visible state written under ``**Current State:**``
    has_state: ClassVar[bool] = False
    #: whether the template demands exactly one ``<predicted_observation>`` block
    requires_block: ClassVar[bool] = False
    #: whether an observation reaches the agent verbatim (a tool's text: trailing newlines and
    #: spaces are content), so parsing takes off only the format; otherwise it is a screen whose
    #: surrounding blank lines and trailing whitespace are trimmed
    exact_text: ClassVar[bool] = False
    sampling: ClassVar[Sampling] = Sampling(temperature=0.6, max_tokens=4096)

    # -- actions ---------------------------------------------------------------------------------

    def validate_action(self, action: Any) -> BaseModel:
        """Validate what the agent sent; raise :class:`ActionValidationError` naming each field.

        Size and depth limits (:mod:`..limits`) are checked before anything is parsed, and nothing
        but :class:`ActionValidationError` leaves this method for any input.
        """
        if isinstance(action, self.Action):
            return action
        try:
            if isinstance(action, str) and self._json_action():
                check_json_text(action)
            else:
                check_depth(action)
        except LimitError as exc:
            raise self._invalid(action, f"too large: {exc}", "a smaller action") from None
        if isinstance(action, str) and self._json_action():
            try:
                action = loads_limited(action)
            except json.JSONDecodeError as exc:
                raise self._invalid(action, f"not valid JSON ({exc.msg} at char {exc.pos})", "JSON") from None
            except LimitError as exc:
                raise self._invalid(action, f"too large: {exc}", "a smaller action") from None
        try:
            return self.Action.model_validate(action)
        except ValidationError as exc:
            raise ActionValidationError(self.name, validation_errors(exc), hint=self.action_hint()) from None
        except ActionValidationError:
            raise
        except (ValueError, TypeError, RecursionError, OverflowError) as exc:  # a parser inside a validator
            raise self._invalid(
                action, f"cannot be read ({type(exc).__name__}: {exc})", "an action"
            ) from None

    def _invalid(self, action: Any, message: str, expected: str) -> ActionValidationError:
        errors = [{"loc": "", "msg": message, "input": action, "expected": expected}]
        return ActionValidationError(self.name, errors, hint=self.action_hint())

    def _json_action(self) -> bool:
        return self.action_fence == "json"

    def action_hint(self) -> str:
        example = self.example_action
        shown = example if isinstance(example, str) else json.dumps(example)
        return f"a valid {self.name} action looks like {shown}"

    def render_action(self, action: BaseModel) -> str:
        """The action as written under ``**Action:**``."""
        return dumps_indented(action.model_dump(mode="json", exclude_none=True), ensure_ascii=False)

    # -- prompts ---------------------------------------------------------------------------------

    def template(self, prompts_dir: Path | None = None, name: str = "system_prompt.txt") -> str:
        """The raw template: from ``prompts_dir/<domain>/`` when given, else the bundled one.

        Files are kept once read (:mod:`.prompt_cache`): a prompts dir's file is read again when
        it changes, the bundled ones once per process.
        """
        if prompts_dir is not None:
            path = Path(prompts_dir) / self.name / name
            text = file_template(path)
            if text is None:
                raise ConfigError(
                    f"No {name} for domain {self.name!r} in prompts dir {prompts_dir}",
                    hint=f"create {path} or unset --prompts-dir / AGENTWORLD_PROMPTS_DIR",
                )
            return text
        text = bundled_template(self.name, name)
        if text is None:
            raise ConfigError(
                f"Domain {self.name!r} ships no {name}",
                hint="pass a prompts dir holding <domain>/" + name,
            )
        return text

    def render_tool_definitions(self, context: dict[str, Any]) -> str:
        tools = context.get("tools")
        if not tools:
            return "(no tool definitions were given)"
        return tool_definitions_json(tools)

    def render_demonstrations(self, context: dict[str, Any]) -> str:
        demos = context.get("demonstrations")
        if not demos:
            return ""
        if isinstance(demos, str):
            return demos
        return "\n\n".join(str(d) for d in demos)

    def system_prompt(self, context: dict[str, Any], prompts_dir: Path | None = None) -> str:
        """The template with ``{tool_definitions}`` and ``{demonstrations}`` filled (plain replace)."""
        text = self.template(prompts_dir)
        if TOOL_DEFINITIONS in text:
            text = text.replace(TOOL_DEFINITIONS, self.render_tool_definitions(context))
        if DEMONSTRATIONS in text:
            text = text.replace(DEMONSTRATIONS, self.render_demonstrations(context))
        return text

    def render_turn(self, number: int, action: BaseModel, state: str | None = None) -> str:
        return render_turn(number, self.render_action(action), state=state, fence=self.action_fence)

    def state_for_turn(self, number: int, context: dict[str, Any]) -> str | None:
        """The ``**Current State:**`` text for a turn: the initial state on the first turn."""
        if number == 1 and self.has_state:
            state = context.get("initial_state")
            return None if state is None else str(state)
        return None

    # -- observations ----------------------------------------------------------------------------

    def parse_output(self, content: str | None, reasoning: str | None = None) -> ParsedOutput:
        return parse_output(content, reasoning, require_block=self.requires_block, exact=self.exact_text)

    def is_error(self, text: str, action: BaseModel) -> bool:
        """Whether an observation reports a failure (MCP ``isError``, a non-zero exit code, ...)."""
        return False

    def sampling_for(self, overrides: dict[str, Any] | None = None) -> Sampling:
        return self.sampling.model_copy(update=overrides or {})

    # -- offline world ---------------------------------------------------------------------------

    def offline_step(
        self, state: dict[str, Any], action: BaseModel, context: dict[str, Any]
    ) -> OfflineResult:
        """The deterministic answer of the embedded ``offline`` backend to ``action``.

        Offline worlds are registered through the ``register_offline_worlds`` hook; a domain may
        instead override this method with its own world (the backend prefers an override).
        ``state`` is a dict owned by one offline session: the world keeps whatever it needs there
        (a virtual filesystem, a ledger of created items) and mutates it in place. ``context`` is
        the session's context (tools, initial_state, task, corpus, ...). The same sequence of
        actions on a fresh state must give the same answers (the backend may replay them).

        This default answers with the world registered for the domain's name in the process-wide
        registry (:func:`~agentworld_plugins.plugins.get_plugin_manager`).
        """
        from ..plugins import get_plugin_manager

        step = get_plugin_manager().registry.offline_world(self.name)
        if step is None:
            raise NotImplementedError(f"domain {self.name!r} has no offline behaviour")
        return step(state, self.validate_action(action), context)  # type: ignore[no-any-return]

    #: marks the default above, so the offline backend knows a domain did not override it
    offline_step.registry_lookup = True  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

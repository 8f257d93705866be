"""Scenarios: scripted observations for expected actions, for tests that assert agent behaviour.

A scenario file (YAML or JSON)::

    domain: mcp            # optional, shown in descriptions
    ordered: true          # optional (default false): steps must come in this order
    steps:
      - match: {tool_name: list_issues}            # JSON subset of the action
        observation: '{"issues": []}'
      - match: {regex: "rm -rf"}                    # re.search on the action text
        observation: "rm: permission denied"
        is_error: true
        repeat: always                              # or a count (default 1)
      - match: "click('12')"                        # the exact action text (or equal JSON)
        observation: "URL: https://shop.example.com/cart"

>>> backend = ScenarioBackend("tests/checkout.yaml")                 # doctest: +SKIP
>>> World(backend=backend).session("web").step("click('12')").text  # doctest: +SKIP

The action is read from the last user message: the fenced block (```json, ```python, ...) under
``**Action:**``, or the bare text there (web actions). An action no step matches raises
:class:`BackendError` naming it and the steps still expected; inside a chain
(``fallthrough=True``) it raises :class:`~agentworld_plugins.backends.chain.NoAnswer` so the next
backend answers instead.

In an ordered scenario each step must be used ``repeat`` times before the next one is reached;
a ``repeat: always`` step must be used once and then may repeat until the next step matches. An
unordered scenario answers with the first matching step that has uses left.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BackendError, ConfigError
from ..files import yaml_problem
from .base import Backend, Completion, Sampling
from .chain import NoAnswer

ACTION_MARKER = "**Action:**"
_FENCE = re.compile(r"```[^\n`]*\n(.*?)\n?[ \t]*```", re.DOTALL)
_NOT_JSON = object()
_STEP_KEYS = {"match", "observation", "is_error", "repeat"}
_TOP_KEYS = {"domain", "ordered", "steps", "name", "description"}


# -- actions ------------------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def extract_action(messages: list[dict[str, Any]]) -> str:
    """The action text of the last user message (its fenced block, or the bare text)."""
    content = ""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = _content_text(message.get("content"))
            break
    at = content.rfind(ACTION_MARKER)
    body = content[at + len(ACTION_MARKER) :] if at >= 0 else content
    fenced = _FENCE.search(body)
    return (fenced.group(1) if fenced else body).strip()


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return _NOT_JSON


def _same(a: Any, b: Any) -> bool:
    """Deep equality that does not take ``True`` for ``1``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def json_subset(pattern: Any, value: Any) -> bool:
    """Whether ``value`` has every key of ``pattern`` with a matching value, recursively (lists
    match element by element and must have the same length)."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(
            k in value and json_subset(v, value[k]) for k, v in pattern.items()
        )
    if isinstance(pattern, list):
        return (
            isinstance(value, list)
            and len(pattern) == len(value)
            and all(json_subset(p, v) for p, v in zip(pattern, value))
        )
    return _same(pattern, value)


# -- steps --------------------------------------------------------------------------------------


@dataclass
class Step:
    """One scripted answer: when the action matches ``match``, answer ``observation``."""

    index: int
    match: Any
    observation: str
    is_error: bool | None = None
    repeat: int | None = 1  # None: always
    regex: re.Pattern[str] | None = None
    used: int = 0

    def matches(self, text: str, parsed: Any) -> bool:
        if self.regex is not None:
            return self.regex.search(text) is not None
        if isinstance(self.match, str):
            if text == self.match.strip():
                return True
            wanted = _parse_json(self.match)
            return wanted is not _NOT_JSON and parsed is not _NOT_JSON and _same(wanted, parsed)
        return parsed is not _NOT_JSON and json_subset(self.match, parsed)

    @property
    def left(self) -> bool:
        return self.repeat is None or self.used < self.repeat

    def pattern(self) -> str:
        if self.regex is not None:
            return f"{{regex: {self.regex.pattern!r}}}"
        if isinstance(self.match, str):
            return repr(self.match)
        return json.dumps(self.match, ensure_ascii=False)

    def describe(self) -> str:
        times = "always" if self.repeat is None else f"{self.used}/{self.repeat} used"
        return f"step {self.index + 1} (match: {self.pattern()}; {times})"


def _problem(source: str, problem: str, hint: str | None = None) -> BackendError:
    return BackendError(
        f"Scenario {source}: {problem}",
        hint=hint or "each step needs match and observation; see the scenario backend docs",
    )


def _load(path_or_data: str | Path | dict[str, Any] | list[Any]) -> tuple[str, Any]:
    if isinstance(path_or_data, (dict, list)):
        return "(inline)", path_or_data
    path = Path(path_or_data).expanduser()
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _problem(
            source, f"cannot read the file ({type(exc).__name__}: {exc})", "check the path"
        ) from None
    if path.suffix.lower() == ".json":
        try:
            return source, json.loads(text)
        except json.JSONDecodeError as exc:
            raise _problem(
                source, f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", "fix the JSON"
            ) from None
    import yaml

    try:
        return source, yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _problem(source, yaml_problem(exc), "fix the YAML") from None


def _step(source: str, index: int, raw: Any) -> Step:
    where = f"step {index + 1}"
    if not isinstance(raw, dict):
        raise _problem(source, f"{where} is {type(raw).__name__}, not a mapping")
    unknown = sorted(set(raw) - _STEP_KEYS)
    if unknown:
        raise _problem(
            source,
            f"{where} has unknown key(s) {', '.join(unknown)}",
            f"a step has {', '.join(sorted(_STEP_KEYS))}",
        )
    for key in ("match", "observation"):
        if key not in raw:
            raise _problem(source, f"{where} lacks {key!r}")
    match = raw["match"]
    regex = None
    if isinstance(match, dict) and set(match) == {"regex"}:
        if not isinstance(match["regex"], str):
            raise _problem(source, f"{where}: regex must be a string")
        try:
            regex = re.compile(match["regex"])
        except re.error as exc:
            raise _problem(
                source, f"{where}: bad regex {match['regex']!r}: {exc}", "fix the pattern"
            ) from None
    elif match is None:
        raise _problem(source, f"{where}: match is empty")
    observation = raw["observation"]
    if observation is None:
        raise _problem(source, f"{where}: observation is empty", 'use observation: "" for an empty screen')
    if not isinstance(observation, str):
        observation = json.dumps(observation, ensure_ascii=False, indent=2)
    is_error = raw.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        raise _problem(source, f"{where}: is_error must be true or false, not {is_error!r}")
    repeat = raw.get("repeat", 1)
    if repeat == "always":
        repeat = None
    elif isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise _problem(source, f"{where}: repeat must be a count of at least 1 or 'always', not {repeat!r}")
    return Step(index, match, observation, is_error, repeat, regex)


class ScenarioBackend(Backend):
    """Answers each action with the observation its scenario step scripts (see the module docs)."""

    name = "scenario"

    def __init__(
        self, path_or_data: str | Path | dict[str, Any] | list[Any], fallthrough: bool = False
    ) -> None:
        self.source, data = _load(path_or_data)
        if isinstance(data, list):
            data = {"steps": data}
        if not isinstance(data, dict):
            raise _problem(self.source, f"the top level is {type(data).__name__}, not a mapping with steps")
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise _problem(
                self.source,
                f"unknown key(s) {', '.join(unknown)}",
                f"the keys are {', '.join(sorted(_TOP_KEYS))}",
            )
        steps = data.get("steps")
        if not isinstance(steps, list) or not steps:
            raise _problem(self.source, "missing 'steps' (a non-empty list of {match, observation})")
        ordered = data.get("ordered", False)
        if not isinstance(ordered, bool):
            raise _problem(self.source, f"ordered must be true or false, not {ordered!r}")
        self.domain: str | None = data.get("domain")
        self.ordered = ordered
        self.fallthrough = fallthrough
        self.steps = [_step(self.source, i, raw) for i, raw in enumerate(steps)]
        self._position = 0  # ordered: the step expected next
        self._lock = threading.Lock()

    def describe(self) -> str:
        kind = "ordered" if self.ordered else "unordered"
        return f"scenario({self.source}, {len(self.steps)} steps, {kind})"

    # -- matching ----------------------------------------------------------------------------

    def _find(self, text: str, parsed: Any) -> Step | None:
        if not self.ordered:
            return next((s for s in self.steps if s.left and s.matches(text, parsed)), None)
        position = self._position
        while position < len(self.steps):
            step = self.steps[position]
            if step.left and step.matches(text, parsed):
                return step
            if step.repeat is None and step.used >= 1:
                position += 1  # an "always" step already used may be passed
                continue
            return None
        return None

    def _advance(self, step: Step) -> None:
        step.used += 1
        if self.ordered:
            self._position = step.index + 1 if not step.left else step.index

    def expected(self) -> list[Step]:
        """The steps that could answer next."""
        if not self.ordered:
            return [s for s in self.steps if s.left]
        out = []
        for step in self.steps[self._position :]:
            out.append(step)
            if not (step.repeat is None and step.used >= 1):
                break
        return out

    def pending(self) -> list[Step]:
        """Steps not used as often as their ``repeat`` says (``always`` steps: never used)."""
        return [s for s in self.steps if (s.used == 0 if s.repeat is None else s.used < s.repeat)]

    def assert_done(self) -> None:
        """Raise :class:`BackendError` when some step was not used up (end of a test)."""
        left = self.pending()
        if left:
            raise _problem(
                self.source,
                "steps not reached: " + "; ".join(s.describe() for s in left),
                "the agent did not take the scripted actions",
            )

    def _unmatched(self, text: str, messages: list[dict[str, Any]]) -> BackendError:
        from .cassette import turn_label

        expected = self.expected()
        if expected:
            listing = "; ".join(s.describe() for s in expected)
            wanted = f"expected {listing}"
        else:
            wanted = f"all {len(self.steps)} steps are used up"
        parsed = _parse_json(text)
        suggestion = json.dumps(parsed, ensure_ascii=False) if parsed is not _NOT_JSON else repr(text)
        cls = NoAnswer if self.fallthrough else BackendError
        return cls(
            f"Scenario {self.source}: no step matches the action {text!r} ({turn_label(messages)}); {wanted}",
            hint=f"add a step with match: {suggestion}",
        )

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        text = extract_action(messages)
        parsed = _parse_json(text)
        with self._lock:
            step = self._find(text, parsed)
            if step is None:
                raise self._unmatched(text, messages)
            self._advance(step)
        metadata: dict[str, Any] = {"scenario": step.index}
        if step.is_error is not None:
            metadata["scenario_is_error"] = step.is_error
        return Completion(
            text=f"<predicted_observation>\n{step.observation}\n</predicted_observation>",
            model="scenario",
            finish_reason="stop",
            metadata=metadata,
        )

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return self.complete(messages, sampling)


def scenario_from_spec(spec: str, *, fallthrough: bool = False) -> ScenarioBackend:
    """The backend for ``scenario:PATH``."""
    if not spec.strip():
        raise ConfigError(
            "The scenario backend needs a file", hint="e.g. --backend scenario:tests/checkout.yaml"
        )
    return ScenarioBackend(spec.strip(), fallthrough=fallthrough)

"""``drift``: a fake world model that contradicts earlier state, to measure and test the guard.

It wraps another backend (default: the embedded offline world, which is consistent) and, at a set
rate, corrupts the answer the way language world models go wrong: it **forgets** (drops the last
item of a list, the last line of a file or listing), **invents** (repeats a record under the same
id, adds a line) or **resurrects** (brings back an item an earlier answer showed that is gone now).
Draws come from a seeded random stream, so a run is reproducible.

``drift:RATE[:SEED]`` (``drift:0.2``), optionally in front of a chain (``drift:0.2,openai``).
A second request for the same turn (a repair) is answered from the same underlying answer, drawn
again.
"""

from __future__ import annotations

import json
import random
import re
from typing import TYPE_CHECKING, Any

from ..backends.base import Backend, Completion, Sampling
from ..current import current_session
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..config import Settings

KINDS = ("forget", "invent", "resurrect")
_BLOCK = re.compile(r"<predicted_observation>\n?(.*?)\n?</predicted_observation>", re.S)


class DriftBackend(Backend):
    name = "drift"

    def __init__(self, inner: Backend, rate: float, seed: int | str = 0) -> None:
        if not 0 <= rate <= 1:
            raise ConfigError(f"drift rate {rate} is not in [0, 1]", hint="e.g. drift:0.2")
        self.inner = inner
        self.rate = rate
        self.random = random.Random(seed)
        #: False: answer unchanged (a driver arms it for the steps it wants corrupted)
        self.armed = True
        #: the uncorrupted text of the last answer, and what was done to it (None: nothing)
        self.last_clean: str | None = None
        self.last_kind: str | None = None
        #: what each request since the driver last cleared it got: a kind, or None (unchanged)
        self.calls: list[str | None] = []
        self._answers: dict[tuple[str, int], Completion] = {}
        self.context_budget = inner.context_budget

    def describe(self) -> str:
        return f"drift({self.rate}: {self.inner.describe()})"

    def close(self) -> None:
        self.inner.close()

    def _key(self, messages: list[dict[str, Any]]) -> tuple[str, int] | None:
        session = current_session.get()
        return None if session is None else (session.id, session.turn_number)

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        key = self._key(messages)
        clean = self._answers.get(key) if key else None
        if clean is None:
            clean = self.inner.complete(messages, sampling)
            if key:
                self._answers = {key: clean}
        return self._corrupt(clean, messages)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        key = self._key(messages)
        clean = self._answers.get(key) if key else None
        if clean is None:
            clean = await self.inner.acomplete(messages, sampling)
            if key:
                self._answers = {key: clean}
        return self._corrupt(clean, messages)

    def _corrupt(self, clean: Completion, messages: list[dict[str, Any]]) -> Completion:
        answer = self._draw(clean, messages)
        self.calls.append(self.last_kind)
        return answer

    def _draw(self, clean: Completion, messages: list[dict[str, Any]]) -> Completion:
        match = _BLOCK.search(clean.text)
        text = match.group(1) if match else clean.text
        self.last_clean, self.last_kind = text, None
        if not self.armed or self.random.random() >= self.rate:
            return Completion(
                clean.text,
                clean.reasoning,
                clean.usage,
                clean.model,
                clean.finish_reason,
                dict(clean.metadata),
            )
        history = [str(m.get("content") or "") for m in messages if m.get("role") == "assistant"]
        kinds = list(KINDS)
        self.random.shuffle(kinds)
        span = _shell_output(text, messages)
        for kind in kinds:
            if span is not None:
                part = corrupt(text[span[0] : span[1]], kind, [])
                changed = None if part is None else text[: span[0]] + part + text[span[1] :]
            else:
                changed = corrupt(text, kind, history)
            if changed is not None and changed != text:
                self.last_kind = kind
                body = f"<predicted_observation>\n{changed}\n</predicted_observation>"
                return Completion(
                    body, clean.reasoning, clean.usage, clean.model, clean.finish_reason, dict(clean.metadata)
                )
        return Completion(
            clean.text, clean.reasoning, clean.usage, clean.model, clean.finish_reason, dict(clean.metadata)
        )


def corrupt(text: str, kind: str, history: list[str]) -> str | None:
    """``text`` changed by ``kind``; None when that kind cannot change it."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    indent = 2 if "\n" in text.strip() else None
    if isinstance(data, dict):  # a structured answer: its first non-empty list ("rows", "items")
        wrappers = ("rows", "items", "results", "data", "records", "entries", "issues")
        lists = [(k, v) for k, v in data.items() if isinstance(v, list) and v and k in wrappers]
        lists.sort(key=lambda kv: not isinstance(kv[1][0], (list, dict)))  # rows before column names
        for key, value in lists:
            changed = corrupt(json.dumps(value), kind, [])
            if changed is None:
                return None
            return json.dumps({**data, key: json.loads(changed)}, indent=indent, ensure_ascii=False)
        return _misremember(data, kind, indent)
    if isinstance(data, list) and data:
        if kind == "forget":
            return json.dumps(data[:-1], indent=indent, ensure_ascii=False)
        if kind == "invent":
            return json.dumps([*data, data[0]], indent=indent, ensure_ascii=False)
        for earlier in reversed(history):
            old = _json_list(earlier)
            gone = [item for item in old or [] if item not in data]
            if gone:
                return json.dumps([*data, gone[0]], indent=indent, ensure_ascii=False)
        return None
    if isinstance(data, (dict, list)) or not text.strip():
        return None
    if kind == "forget" and '"is_checked": true' in text and "UI element" in text:  # a toggle switched back
        return text.replace('"is_checked": true', '"is_checked": false', 1)
    lines = text.rstrip("\n").split("\n")
    if kind == "forget":
        return "\n".join(lines[:-1]) if len(lines) > 1 else ""
    if kind == "invent":
        return "\n".join([*lines, lines[-1]])
    shown = set(lines)
    for earlier in reversed(history):
        body = _BLOCK.search(earlier)
        for line in (body.group(1) if body else earlier).split("\n"):
            if line.strip() and line not in shown and not line.startswith(("root@", "{", "}")):
                return "\n".join([*lines, line])
    return None


def _shell_output(text: str, messages: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The output of the last command a shell step ran, in the observation ``text``."""
    session = current_session.get()
    if session is None or session.domain.name not in ("terminal", "swe") or not messages:
        return None
    from ..turns import extract_action
    from .shell import command_lines, output_span

    found = extract_action(str(messages[-1].get("content") or ""))
    if found is None:
        return None
    try:
        lines = command_lines(session.domain.validate_action(found[1]), session.domain.name)
    except Exception:
        return None
    span = output_span(text, lines[-1], session.domain.name) if lines else None
    return span if span is not None and span[0] < span[1] else None


def _misremember(record: dict[str, Any], kind: str, indent: int | None) -> str | None:
    """A record with a value changed: a state flipped back (forget), a title reworded (invent)."""
    if kind == "forget" and isinstance(record.get("state"), str):
        flipped = "closed" if record["state"] == "open" else "open"
        return json.dumps({**record, "state": flipped}, indent=indent, ensure_ascii=False)
    for key in ("title", "name", "subject", "body"):
        if kind == "invent" and isinstance(record.get(key), str):
            return json.dumps({**record, key: record[key] + " (draft)"}, indent=indent, ensure_ascii=False)
    return None


def _json_list(text: str) -> list[Any] | None:
    body = _BLOCK.search(text)
    try:
        data = json.loads(body.group(1) if body else text)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


def drift_backend(settings: Settings, spec: str, inner: Backend | None = None) -> Backend:
    from ..backends import make_backend
    from ..plugins import get_plugin_manager

    rate_text, _, seed_text = spec.partition(":")
    try:
        rate = float(rate_text or "0.2")
        seed = int(seed_text or "0")
    except ValueError:
        raise ConfigError(f"Bad drift spec {spec!r}", hint="drift:RATE[:SEED], e.g. drift:0.2:7") from None
    if inner is None:
        inner = make_backend(
            settings.model_copy(update={"guard": None, "backend": None}),
            get_plugin_manager().registry,
            "offline",
        )
    return DriftBackend(inner, rate, seed)

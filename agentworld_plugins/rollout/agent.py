"""Agent policies: what plays a task. An OpenAI-compatible server, or a script.

A policy's :meth:`~Policy.act` gets the conversation so far (OpenAI chat messages) and the
tools offered (OpenAI ``tools`` form, empty for action-text domains) and returns the next
assistant message: with ``tool_calls`` to act through tools, with content to act in an
action-text domain or to answer.

>>> policy = make_policy("openai", base_urls=["http://localhost:8001/v1"], model="Qwen/Qwen3-8B")  # doctest: +SKIP
>>> policy = make_policy("scripted:agent.yaml")                                                    # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..backends.openai.transport import LeanTransport
from ..bench.runner import Outcome, retrying
from ..errors import BackendError, BackendUnavailableError, ConfigError
from ..files import parse_data
from ..jsontext import dumps_body
from .tasks import TOOL_DOMAINS

T = TypeVar("T")


@dataclass
class EpisodeInfo:
    """What a policy may know about the episode it plays."""

    task_id: str
    sample: int
    seed: int
    domain: str


class Policy:
    """Base class of agent policies."""

    name = "policy"

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], episode: EpisodeInfo
    ) -> dict[str, Any]:
        """The next assistant message (``role``, ``content``, optionally ``tool_calls``)."""
        raise NotImplementedError

    def describe(self) -> str:
        return self.name

    def check_tasks(self, task_ids: Sequence[str]) -> None:
        """Raise a :class:`ConfigError` when this policy cannot play some of the tasks (called
        before a run starts)."""

    async def aclose(self) -> None:
        """Release connections (called once at the end of a run, inside its event loop)."""


async def act_retrying(
    policy: Policy,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    episode: EpisodeInfo,
    *,
    max_retries: int,
    backoff: float,
    timeout: float | None,
    check: Callable[[dict[str, Any]], str | None] | None = None,
    revise: Callable[[], tuple[list[dict[str, Any]], EpisodeInfo]] | None = None,
) -> Outcome[dict[str, Any]]:
    """``policy.act`` with retries of transient failures (and of replies ``check`` rejects); a
    :class:`ConfigError` (a broken setup: no script for the task, no model) is raised at once, so
    the run stops instead of failing every episode the same way. ``revise`` (when given) makes
    each attempt's conversation and episode (seed), so a retry can differ from what was rejected."""
    setup_error: list[ConfigError] = []

    async def call() -> dict[str, Any]:
        asked, info = revise() if revise is not None else (messages, episode)
        try:
            return await policy.act(asked, tools, info)
        except ConfigError as exc:
            setup_error.append(exc)
            raise

    outcome = await retrying(call, max_retries=max_retries, backoff=backoff, timeout=timeout, check=check)
    if setup_error:
        raise setup_error[0]
    return outcome


# -- OpenAI-compatible -----------------------------------------------------------------------------


class OpenAIPolicy(Policy):
    """An agent model behind ``/v1/chat/completions`` (vLLM, SGLang, a hosted API).

    Several base URLs are spread by least outstanding requests. Each request has a timeout;
    transport failures raise :class:`BackendUnavailableError` (the runner retries those). With no
    ``model``, the first one the server lists (``GET /models``) is used. ``role`` names the
    options in error messages (``agent``: ``--agent-model``; ``generator`` for envgen).
    """

    name = "openai"

    def __init__(
        self,
        base_urls: Sequence[str],
        model: str = "",
        api_key: str | None = None,
        *,
        temperature: float = 1.0,
        max_tokens: int = 2048,
        timeout: float = 120.0,
        extra_body: dict[str, Any] | None = None,
        role: str = "agent",
    ) -> None:
        self.role = role
        if not base_urls:
            hint = f"pass --{role}-base-url URL (an OpenAI-compatible server)"
            if role == "agent":
                hint += ", or --agent scripted:FILE to play a script"
            raise ConfigError(f"The {role} has no base URL", hint=hint)
        self.base_urls = [u.rstrip("/") for u in base_urls]
        self.model = model
        self.api_key = api_key or "EMPTY"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.extra_body = extra_body or {}
        self._outstanding = [0] * len(self.base_urls)
        self._turn = 0
        self._clients: dict[int, LeanTransport] = {}
        self._tools_json: dict[int, tuple[list[dict[str, Any]], bytes]] = {}

    def describe(self) -> str:
        return f"openai({','.join(self.base_urls)}, model={self.model or '?'})"

    def _unanswered(self, base: str, why: str) -> BackendUnavailableError:
        return BackendUnavailableError(
            f"The {self.role} server at {base} did not answer: {why}",
            hint=f"check --{self.role}-base-url and that the server is up",
        )

    def _transport(self) -> LeanTransport:
        """The lean HTTP/1.1 client of this event loop (a client's connections belong to one loop;
        Ray actors and trainers may call from several). It spends a fraction of a general client's
        CPU per request, which decides throughput when many episodes run at once."""
        loop = id(asyncio.get_running_loop())
        transport = self._clients.get(loop)
        if transport is None:
            transport = LeanTransport(self.base_urls, self.api_key, max_idle=1024)
            self._clients[loop] = transport
        return transport

    async def _send(self, index: int, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        base = self.base_urls[index]
        try:
            return await _bounded(self._transport().arequest(index, method, path, body), self.timeout)
        except asyncio.TimeoutError:
            raise self._unanswered(base, f"no answer in {self.timeout:g}s") from None
        except BackendUnavailableError as exc:
            raise self._unanswered(base, exc.message) from None

    async def _discover_model(self, index: int) -> None:
        """Take the first model the server lists (vLLM and SGLang list the one they serve)."""
        status, body = await self._send(index, "GET", "/models", None)
        try:
            self.model = self.model or str(json.loads(body)["data"][0]["id"])
        except (ValueError, KeyError, IndexError, TypeError):
            raise ConfigError(
                f"No --{self.role}-model given, and {self.base_urls[index]}/models names no model "
                f"(HTTP {status}: {body[:120].decode('utf-8', 'replace')})",
                hint=f"pass --{self.role}-model NAME",
            ) from None

    async def resolve_model(self) -> str:
        """The model asked for: the one given, else the first one the server lists."""
        if not self.model:
            await self._discover_model(0)
        return self.model

    def __getstate__(self) -> dict[str, Any]:
        # shipped to Ray actors: connections belong to this process's event loops
        return {**self.__dict__, "_clients": {}, "_tools_json": {}}

    def payload(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], episode: EpisodeInfo
    ) -> dict[str, Any]:
        """The request body: the conversation, the tools, sampling and the episode's agent seed."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": episode.seed,
            **self.extra_body,
        }
        if tools:
            body["tools"] = tools
        return body

    def _body(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], episode: EpisodeInfo
    ) -> bytes:
        """:meth:`payload` as JSON bytes (non-ASCII escaped: the encoder's fast path; the server
        reads the same text). An episode offers the same tools every turn: their JSON is encoded
        once and spliced in, the conversation anew each turn."""
        payload = self.payload(messages, [], episode)
        if not tools or "tools" in payload:
            return dumps_body(self.payload(messages, tools, episode)).encode("ascii")
        cached = self._tools_json.get(id(tools))
        if cached is None or cached[0] is not tools:
            if len(self._tools_json) >= 1024:  # the episodes in flight; older ones are done
                self._tools_json.clear()
            cached = self._tools_json[id(tools)] = (tools, json.dumps(tools).encode("ascii"))
        return dumps_body(payload).encode("ascii")[:-1] + b', "tools": ' + cached[1] + b"}"

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], episode: EpisodeInfo
    ) -> dict[str, Any]:
        n = len(self.base_urls)
        self._turn += 1  # ties go round the replicas, so sequential requests spread too
        index = min(((self._turn + k) % n for k in range(n)), key=lambda i: self._outstanding[i])
        if not self.model:
            await self._discover_model(index)
        body = self._body(messages, tools, episode)
        self._outstanding[index] += 1
        try:
            status, answer = await self._send(index, "POST", "/chat/completions", body)
        finally:
            self._outstanding[index] -= 1
        base = self.base_urls[index]
        if status != 200:
            error = BackendUnavailableError if status in (429, 502, 503, 504) else BackendError
            raise error(
                f"The {self.role} server at {base} answered HTTP {status}: "
                f"{answer[:200].decode('utf-8', 'replace')}",
                hint=f"check --{self.role}-model and the server's log",
            )
        try:
            message = json.loads(answer)["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise BackendError(
                f"The {self.role} server at {base} answered without choices: "
                f"{answer[:200].decode('utf-8', 'replace')}",
                hint=f"point --{self.role}-base-url at an OpenAI-compatible /v1 endpoint",
            ) from None
        return assistant_message(message)

    async def aclose(self) -> None:
        transports, self._clients = list(self._clients.values()), {}
        for transport in transports:
            await transport.aclose_idle()


async def _bounded(call: Coroutine[Any, Any, T], seconds: float) -> T:
    """``call`` cancelled after ``seconds`` (``asyncio.TimeoutError``), without the extra task
    ``asyncio.wait_for`` makes on Python 3.11 and earlier."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await call
    return await asyncio.wait_for(call, seconds)


def assistant_message(message: dict[str, Any]) -> dict[str, Any]:
    """The parts of an assistant message a trajectory keeps: content, reasoning, tool calls."""
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        out["reasoning_content"] = reasoning
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        out["tool_calls"] = [
            {
                "id": str(call.get("id") or f"call_{n}"),
                "type": "function",
                "function": {
                    "name": str((call.get("function") or {}).get("name") or ""),
                    "arguments": _arguments_text((call.get("function") or {}).get("arguments")),
                },
            }
            for n, call in enumerate(calls)
            if isinstance(call, dict)
        ]
    return out


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


# -- scripted --------------------------------------------------------------------------------------


class ScriptedPolicy(Policy):
    """Plays a script, for offline runs and tests.

    The file (JSON or YAML) maps task ids to scripts; ``"*"`` is the script of any other task. A
    script is a list of steps, or a list of such lists: episode ``k`` of a group plays script
    ``k mod n``. A step is ``{"tool": NAME, "arguments": {...}}`` (a tool call),
    ``{"tools": [{"tool": ..., "arguments": ...}, ...]}`` (several in one turn), ``{"action": A}``
    (an action-text domain's action) or ``{"answer": TEXT}`` (the final answer). When the steps
    run out the episode ends with an empty answer.
    """

    name = "scripted"

    def __init__(self, scripts: dict[str, Any], source: str = "script") -> None:
        if not isinstance(scripts, dict) or not scripts:
            raise ConfigError(
                f"{source} must map task ids to lists of steps", hint='e.g. {"*": [{"answer": "done"}]}'
            )
        self.source = source
        self.scripts: dict[str, list[list[dict[str, Any]]]] = {}
        for task_id, script in scripts.items():
            if not isinstance(script, list):
                raise ConfigError(
                    f"{source}: the script of {task_id!r} is not a list", hint="a list of steps"
                )
            variants = script if script and all(isinstance(s, list) for s in script) else [script]
            for variant in variants:
                for n, step in enumerate(variant):
                    _check_step(step, f"{source}: {task_id!r} step {n}")
            self.scripts[str(task_id)] = variants

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedPolicy:
        path = Path(path)
        try:
            data = parse_data(path.read_text(encoding="utf-8"), path)
        except OSError as exc:
            raise ConfigError(
                f"Cannot read agent script {path}: {exc.strerror}", hint="check the path"
            ) from None
        except Exception as exc:
            raise ConfigError(
                f"Agent script {path} does not parse: {exc}", hint="fix the JSON/YAML"
            ) from None
        return cls(data, str(path))

    def describe(self) -> str:
        return f"scripted({self.source})"

    def check_tasks(self, task_ids: Sequence[str]) -> None:
        if "*" in self.scripts:
            return
        missing = [t for t in task_ids if t not in self.scripts]
        if missing:
            shown = ", ".join(repr(t) for t in missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise ConfigError(
                f"{self.source} has no script for task {shown} ({len(missing)} of {len(task_ids)})",
                hint="add a script under each task id, or a '*' script for every other task",
            )

    def script_for(self, episode: EpisodeInfo) -> list[dict[str, Any]]:
        variants = self.scripts.get(episode.task_id) or self.scripts.get("*")
        if not variants:
            raise ConfigError(
                f"{self.source} has no script for task {episode.task_id!r}",
                hint="add one under its id, or a '*' script for every task",
            )
        return variants[episode.sample % len(variants)]

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], episode: EpisodeInfo
    ) -> dict[str, Any]:
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        script = self.script_for(episode)
        if turn >= len(script):
            return {"role": "assistant", "content": ""}
        step = script[turn]
        if "answer" in step:
            answer = str(step["answer"])
            if episode.domain not in TOOL_DOMAINS:  # action-text domains mark the answer
                answer = f"<answer>{answer}</answer>"
            return {"role": "assistant", "content": answer}
        if "action" in step:
            action = step["action"]
            text = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False)
            return {"role": "assistant", "content": f"```\n{text}\n```"}
        calls = step.get("tools", [step])
        return {
            "role": "assistant",
            "content": str(step.get("say", "")),
            "tool_calls": [
                {
                    "id": f"call_{turn}_{n}",
                    "type": "function",
                    "function": {
                        "name": str(call["tool"]),
                        "arguments": _arguments_text(call.get("arguments", {})),
                    },
                }
                for n, call in enumerate(calls)
            ],
        }


def _check_step(step: Any, where: str) -> None:
    kinds = [k for k in ("tool", "tools", "action", "answer") if isinstance(step, dict) and k in step]
    if len(kinds) != 1:
        raise ConfigError(
            f"{where} must have exactly one of tool, tools, action, answer",
            hint='e.g. {"tool": "create_issue", "arguments": {"title": "x"}} or {"answer": "done"}',
        )
    if kinds == ["tools"]:
        calls = step["tools"]
        if (
            not isinstance(calls, list)
            or not calls
            or not all(isinstance(c, dict) and "tool" in c for c in calls)
        ):
            raise ConfigError(f"{where}: 'tools' must be a list of {{tool, arguments}}", hint="or use 'tool'")


def make_policy(spec: str, **options: Any) -> Policy:
    """A policy from ``--agent``: ``openai`` (with base_urls, model, ...) or ``scripted:FILE``."""
    kind, _, rest = spec.partition(":")
    if kind == "scripted":
        if not rest:
            raise ConfigError("--agent scripted needs a file", hint="pass --agent scripted:agent.yaml")
        return ScriptedPolicy.from_file(rest)
    if kind == "openai":
        return OpenAIPolicy(**options)
    raise ConfigError(
        f"Unknown agent {spec!r}", hint="use --agent openai (the default) or --agent scripted:FILE"
    )

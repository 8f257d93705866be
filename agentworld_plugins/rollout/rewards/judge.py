"""The ``judge`` reward: an LLM behind an OpenAI-compatible API grades the episode with a rubric.

Task entry: ``{"type": "judge", "rubric": "...", "base_url": ..., "model": ...}``; ``base_url``
and ``model`` default to ``rollout run --judge-base-url/--judge-model`` (or
``AGENTWORLD_JUDGE_BASE_URL`` / ``AGENTWORLD_JUDGE_MODEL``). The judge ends its answer with
``SCORE: N`` out of ``max_score`` (default 10); the reward is ``N / max_score``.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from ...errors import BackendError, BackendUnavailableError, ConfigError
from .result import RewardResult

if TYPE_CHECKING:
    from ..episode import Episode

_SCORE = re.compile(r"SCORE:\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)

SYSTEM = (
    "You grade how well an agent carried out a task in a simulated environment. Read the rubric, "
    "the task, the agent's actions with what the environment answered, and its final answer. "
    "Explain briefly, then end with one line: SCORE: N, where N is a number from 0 to {max_score}."
)


def transcript(episode: Episode, limit: int = 2000) -> str:
    """The episode as numbered lines: each action and (cut to ``limit`` characters) its answer."""
    lines = []
    for n, (name, action, observation) in enumerate(episode.steps, 1):
        shown = json.dumps(action, ensure_ascii=False) if not isinstance(action, str) else action
        answer = observation.text if observation is not None else "(rejected)"
        lines.append(f"[{n}] {name}: {shown}\n    -> {answer[:limit]}")
    return "\n".join(lines) or "(no actions)"


def judge_messages(episode: Episode, rubric: str, max_score: float) -> list[dict[str, str]]:
    user = (
        f"Rubric:\n{rubric}\n\nTask:\n{episode.task.instruction}\n\nActions:\n{transcript(episode)}\n\n"
        f"Final answer:\n{episode.final_answer or '(none)'}"
    )
    return [
        {"role": "system", "content": SYSTEM.replace("{max_score}", f"{max_score:g}")},
        {"role": "user", "content": user},
    ]


def judge_endpoint(
    defaults: dict[str, Any],
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
) -> tuple[str, str, str]:
    """The judge's ``(base_url, model, api_key)``: the reward entry's, else ``defaults`` (``rollout
    run --judge-base-url/--judge-model``), else ``AGENTWORLD_JUDGE_*``; a ConfigError when none."""
    base_url = base_url or defaults.get("base_url") or os.environ.get("AGENTWORLD_JUDGE_BASE_URL")
    model = model or defaults.get("model") or os.environ.get("AGENTWORLD_JUDGE_MODEL")
    api_key = api_key or defaults.get("api_key") or os.environ.get("AGENTWORLD_JUDGE_API_KEY") or "EMPTY"
    if not base_url or not model:
        raise ConfigError(
            "The judge reward has no endpoint",
            hint="pass --judge-base-url and --judge-model (or base_url/model in the reward entry)",
        )
    return base_url, model, api_key


async def judge(
    episode: Episode,
    rubric: str,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    max_score: float = 10.0,
    timeout: float = 120.0,
) -> RewardResult:
    """Ask the judge; the score is the last ``SCORE: N`` of its answer over ``max_score``."""
    import httpx

    base_url, model, api_key = judge_endpoint(episode.judge, base_url, model, api_key)
    body = {
        "model": model,
        "messages": judge_messages(episode, rubric, max_score),
        "temperature": 0.0,
        "max_tokens": 1024,
    }
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.post(
                f"{base_url.rstrip('/')}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {api_key}"},
            )
    except httpx.HTTPError as exc:
        raise BackendUnavailableError(
            f"The judge at {base_url} did not answer: {type(exc).__name__}",
            hint="check --judge-base-url and that the server is up",
        ) from None
    if response.status_code != 200:
        raise BackendError(
            f"The judge at {base_url} answered HTTP {response.status_code}: {response.text[:200]}",
            hint="check --judge-model and the server's log",
        )
    try:
        text = str(response.json()["choices"][0]["message"].get("content") or "")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise BackendError(
            f"The judge at {base_url} answered without choices: {response.text[:200]}",
            hint="point --judge-base-url at an OpenAI-compatible /v1 endpoint",
        ) from None
    found = _SCORE.findall(text)
    if not found:
        return RewardResult(0.0, f"the judge gave no SCORE line: {text[-120:]!r}")
    score = float(found[-1])
    return RewardResult(score / max_score, f"judge: {score:g}/{max_score:g}")

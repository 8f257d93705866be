"""``bench infer``: ask the world model for the observation of every benchmark record.

Each record's messages are the official script's (:func:`.official.inference_messages`): the
record's ``system_str`` when it is not empty, the prompt/observation pairs before ``turn_idx``,
then the turn prompt under test. The answer is parsed like a session's (reasoning removed, the
last ``<predicted_observation>``) for ``prediction``, a convenience; judging extracts again from
``gen``, the generation as the server returned it (the official field name, so the official
``judge`` reads our files).

A result line is the record with three fields added::

    {..., "gen": "<predicted_observation>total 0\\n...</predicted_observation>",
     "prediction": "total 0\\n...",
     "infer": {"status": "ok", "model": "...", "reasoning": null,
               "finish_reason": "stop", "usage": {...}, "warnings": []}}

With ``--perturb`` the ``infer`` object also lists the injected ``perturbations``.

A record whose inference fails (after retries) is written with ``"status": "failed"`` and its
``error``, never as an empty prediction; it is left out of the scores and retried by the next run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

from ..backends import Backend, Completion, Sampling
from ..current import current_conversation
from ..turns import parse_output
from .data import record_domain
from .defaults import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from .official import inference_messages
from .runner import JobResult, RunOptions, RunSummary, release_connections, retrying, run_jobs


def default_sampling(**overrides: Any) -> Sampling:
    """Temperature 0.6 and 32768 max tokens (the published figures' settings), with overrides."""
    fields = {"temperature": DEFAULT_TEMPERATURE, "max_tokens": DEFAULT_MAX_TOKENS}
    fields.update({k: v for k, v in overrides.items() if v is not None})
    return Sampling(**fields)


def _requires_block(domain: str) -> bool:
    from ..plugins import get_plugin_manager

    found = get_plugin_manager().registry.domains.get(domain)
    return bool(found and found.requires_block)


def _check_completion(completion: Completion) -> str | None:
    if not isinstance(completion, Completion):
        return f"the backend answered {type(completion).__name__}, not a Completion"
    return None


def _backend_warnings(completion: Completion) -> list[str]:
    found = completion.metadata.get("warnings")
    return [str(w) for w in found] if isinstance(found, list) else []


def prediction_line(record: dict[str, Any], completion: Completion) -> dict[str, Any]:
    """The result line for a record the world model answered."""
    parsed = parse_output(
        completion.text, completion.reasoning, require_block=_requires_block(record_domain(record))
    )
    infer: dict[str, Any] = {
        "status": "ok",
        "model": completion.model,
        "reasoning": parsed.reasoning,
        "finish_reason": completion.finish_reason,
        "usage": completion.usage,
        # the parse's, then what the answer could not honour (a perturbation the backend ignores)
        "warnings": [*parsed.warnings, *_backend_warnings(completion)],
    }
    if "perturbations" in completion.metadata:  # bench infer --perturb: what was injected
        infer["perturbations"] = completion.metadata["perturbations"]
    if "guard" in completion.metadata:  # a guarded backend: what it checked and found
        infer["guard"] = completion.metadata["guard"]
    return {**record, "gen": completion.text or "", "prediction": parsed.text, "infer": infer}


def failed_line(record: dict[str, Any], error: str) -> dict[str, Any]:
    """A record whose inference failed: ``gen`` is empty, as the official script writes it."""
    return {**record, "gen": "", "prediction": None, "infer": {"status": "failed", "error": error}}


async def _in_episode(record: dict[str, Any], call: Awaitable[Completion]) -> Completion:
    """``call`` named as the record's episode, so a PerturbingBackend keys its random streams by it."""
    named = current_conversation.set(f"{record_domain(record)}/{record.get('id')}")
    try:
        return await call
    finally:
        current_conversation.reset(named)


async def infer_record(
    record: dict[str, Any], backend: Backend, sampling: Sampling, options: RunOptions
) -> JobResult:
    """Infer one record with retries; failures come back as a failed line, never raised."""
    try:
        messages = inference_messages(record)
    except Exception as exc:  # the loader checks records; this guards records given directly
        return JobResult(failed_line(record, f"cannot build the messages: {exc}"), ok=False)
    outcome = await retrying(
        lambda: _in_episode(record, backend.acomplete(messages, sampling)),
        max_retries=options.max_retries,
        backoff=options.retry_backoff,
        timeout=options.request_timeout,
        check=_check_completion,
    )
    if outcome.error is not None or outcome.value is None:
        error = outcome.error or "no answer"
        if outcome.attempts > 1:
            error += f" (after {outcome.attempts} attempts)"
        return JobResult(failed_line(record, error), ok=False, unavailable=outcome.unreachable)
    return JobResult(prediction_line(record, outcome.value), ok=True)


async def infer_records(
    records: Sequence[dict[str, Any]],
    backend: Backend,
    output: str | Path,
    *,
    sampling: Sampling | None = None,
    options: RunOptions | None = None,
    on_result: Any = None,
) -> RunSummary:
    """Infer every record not already done in ``output`` (resume), appending results as they come."""
    chosen = sampling or default_sampling()
    opts = options or RunOptions()
    try:
        return await run_jobs(
            records,
            lambda record: infer_record(record, backend, chosen, opts),
            output,
            opts,
            label="infer",
            on_result=on_result,
        )
    finally:
        await release_connections(backend)

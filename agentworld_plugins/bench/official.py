"""The official AgentWorldBench semantics, in our own code: what the published figures rest on.

These functions follow the behaviour of the official evaluation script (QwenLM/Qwen-AgentWorld,
``eval/``) exactly, so our figures can stand next to the paper's:

- :func:`inference_messages`: the world model's request for a record;
- :func:`remove_thinking`, :func:`extract_prediction`, :func:`clean_marker`: what the judge is
  shown of a generation, of the reference and of the history;
- :func:`parse_official_judgement`: how a judge answer becomes five scores (or a failure).

They are deliberately literal, quirks included (a missing tag falls back to the whole text, an
empty answer becomes the sentinel ``No output``, 3.5 rounds to 4 and 2.5 to 2, a capitalised key
scores 0). The agent-facing parser (:func:`agentworld_plugins.turns.parse_output`) keeps friendlier
rules; docs/bench.md lists the differences.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .jsonscan import object_end

#: the tag around the world model's prediction, and around the judge's answer
PREDICTION_TAG = "predicted_observation"
JUDGE_TAG = "final_evaluation"
#: what an empty or blank generation becomes before judging (official sentinel)
NO_OUTPUT = "No output"
SCORE_DIMENSIONS: tuple[str, ...] = ("format", "factuality", "consistency", "realism", "quality")

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINK_CLOSE_LEN = len("</think>")


# -- inference --------------------------------------------------------------------------------------


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, (list, tuple)) else []


def current_prompt_of(record: Mapping[str, Any]) -> str:
    """The turn prompt under test: ``prompt[turn_idx - 1]``, else ``current_prompt``."""
    prompts = _as_list(record.get("prompt"))
    turn = max(int(record.get("turn_idx") or 1) - 1, 0)
    if turn < len(prompts):
        return str(prompts[turn])
    return str(record.get("current_prompt") or "")


def inference_messages(record: Mapping[str, Any]) -> list[dict[str, str]]:
    """The world model's messages for a record, as the official script sends them.

    A system message only when ``system_str`` is not empty; then the prompt/response pairs before
    ``turn_idx``; then the turn prompt under test (``prompt[turn_idx - 1]``, falling back to
    ``current_prompt`` for records that lack it).
    """
    messages: list[dict[str, str]] = []
    system = record.get("system_str")
    if system:
        messages.append({"role": "system", "content": str(system)})
    prompts, responses = _as_list(record.get("prompt")), _as_list(record.get("response"))
    turn = max(int(record.get("turn_idx") or 1) - 1, 0)
    for prompt, response in zip(prompts[:turn], responses[:turn]):
        messages.append({"role": "user", "content": str(prompt)})
        messages.append({"role": "assistant", "content": str(response)})
    messages.append({"role": "user", "content": current_prompt_of(record)})
    return messages


# -- extraction -------------------------------------------------------------------------------------


def remove_thinking(text: str, response_tag: str) -> str:
    """Cut ``<think>`` sections out of ``text`` the way the official parser does.

    Each opening tag is paired with the next unpaired closing tag after it; a closing tag left over
    removes everything before it; an opening tag left over removes up to the first
    ``<response_tag>`` after it (or to the end). Overlapping cuts merge, and the result is stripped.
    A text with no think tag at all comes back unchanged (not stripped).
    """
    if not text:
        return text
    tags = sorted(
        [(m.start(), True) for m in _THINK_OPEN.finditer(text)]
        + [(m.start(), False) for m in _THINK_CLOSE.finditer(text)]
    )
    if not tags:
        return text
    used = [False] * len(tags)
    cuts: list[tuple[int, int]] = []
    for i, (pos, is_open) in enumerate(tags):
        if used[i] or not is_open:
            continue
        for j in range(i + 1, len(tags)):
            if not used[j] and not tags[j][1]:
                cuts.append((pos, tags[j][0] + _THINK_CLOSE_LEN))
                used[i] = used[j] = True
                break
    for i, (pos, is_open) in enumerate(tags):
        if not used[i] and not is_open:
            cuts.append((0, pos + _THINK_CLOSE_LEN))
            used[i] = True
    response_open = re.compile(f"<{re.escape(response_tag)}>", re.IGNORECASE) if response_tag else None
    for i, (pos, _) in enumerate(tags):
        if used[i]:
            continue
        end = len(text)
        if response_open is not None:
            found = response_open.search(text, pos)
            if found:
                end = found.start()
        cuts.append((pos, end))
        used[i] = True
    cuts.sort()
    merged: list[list[int]] = []
    for start, end in cuts:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    kept, previous = [], 0
    for start, end in merged:
        if start > previous:
            kept.append(text[previous:start])
        previous = end
    kept.append(text[previous:])
    return "".join(kept).strip()


def last_tagged(text: str, tag: str) -> str | None:
    """The stripped content of the LAST ``<tag>`` (any case) up to the next ``</tag>`` or the end;
    None when there is no opening tag."""
    openings = list(re.finditer(f"<{re.escape(tag)}>", text, re.IGNORECASE))
    if not openings:
        return None
    opening = openings[-1]
    rest = text[opening.end() :]
    closing = re.search(f"</{re.escape(tag)}>", rest, re.IGNORECASE)
    return (rest[: closing.start()] if closing else rest).strip()


def extract_prediction(generation: str | None, tag: str = PREDICTION_TAG) -> str:
    """What the judge is shown of a generation (official ``parse_model_output``).

    Think sections are removed, then the LAST ``<predicted_observation>`` block (any case; an
    unclosed one runs to the end) is taken, stripped. Without a block the cleaned text is used,
    stripped. An empty generation, or an empty text without a block, is ``No output``.
    """
    if not generation:
        return NO_OUTPUT
    cleaned = remove_thinking(generation, tag)
    found = last_tagged(cleaned, tag)
    if found is not None:
        return found
    return cleaned.strip() or NO_OUTPUT


def clean_marker(text: str, marker: str) -> str:
    """Remove the ``**Environment Observation:**`` marker (official ``clean_response_marker``): at
    the very start it is cut once; elsewhere every occurrence is removed; the result is stripped."""
    if not marker:
        return text.strip()
    if text.startswith(marker):
        return text[len(marker) :].strip()
    return text.replace(marker, "").strip()


# -- judge answers ----------------------------------------------------------------------------------


@dataclass
class OfficialJudgement:
    """A judge answer read with the official rules: ``scores`` holds all five dimensions (0 for
    one missing or unreadable), ``total`` the mean of the positive ones (0 when none)."""

    success: bool
    scores: dict[str, int] = field(default_factory=dict)
    total: float = 0.0
    strengths: list[str] = field(default_factory=list)
    weaknesses: list[str] = field(default_factory=list)
    error: str | None = None


_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SINGLE_QUOTED_KEY = re.compile(r"'(\w+)'(\s*:)")
_BARE_KEY = re.compile(r"([{,])\s*(\w+)\s*:")
_SCORES_OBJECT = re.compile(r'"scores"\s*:\s*\{[^}]+\}')


def _from_fences(text: str) -> str | None:
    blocks = [m.group(1).strip() for m in _FENCE.finditer(text)]
    objects = [b for b in blocks if b.startswith("{") and b.endswith("}")]
    with_scores = [b for b in objects if '"scores"' in b]
    if with_scores:
        return with_scores[-1]
    return objects[-1] if objects else None


def _object_at(text: str, start: int) -> str | None:
    """The balanced object opened at ``start`` (double-quoted strings and their escapes respected)."""
    end = object_end(text, start)
    return None if end is None else text[start:end]


def _best_object(text: str) -> str | None:
    """Every balanced object scanning forward; the last holding ``"scores"``, else the last."""
    found: list[str] = []
    pos = 0
    while (start := text.find("{", pos)) >= 0:
        obj = _object_at(text, start)
        if obj is None:
            pos = start + 1
        else:
            found.append(obj)
            pos = start + len(obj)
    with_scores = [obj for obj in found if '"scores"' in obj]
    if with_scores:
        return with_scores[-1]
    return found[-1] if found else None


def _last_object(text: str) -> str | None:
    """The object ending at the last ``}``, matched backwards (a quote preceded by a backslash does
    not toggle the string state)."""
    end = text.rfind("}")
    if end < 0:
        return None
    depth = 0
    in_string = False
    for i in range(end, -1, -1):
        ch = text[i]
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            in_string = not in_string
        if in_string:
            continue
        if ch == "}":
            depth += 1
        elif ch == "{":
            depth -= 1
            if depth == 0:
                return text[i : end + 1]
    return None


def _repair(text: str) -> str:
    text = _TRAILING_COMMA.sub(r"\1", text)
    text = _SINGLE_QUOTED_KEY.sub(r'"\1"\2', text)
    return _BARE_KEY.sub(r'\1"\2":', text)


def _score(value: Any) -> int:
    """One dimension's score: ints as they are, floats rounded half to even, ``"4/5"`` as 4,
    anything else 0; positive values are clamped to 1-5."""
    if isinstance(value, bool):
        number = int(value)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"score {value!r} is not a finite number")
        number = round(value)  # half to even, as Python's round: 3.5 -> 4, 2.5 -> 2
    elif isinstance(value, str):
        try:
            number = int(value.split("/")[0].strip())
        except ValueError:
            number = 0
    else:
        number = 0
    return max(1, min(5, number)) if number > 0 else number


def _as_strings(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(x) for x in value]
    if isinstance(value, str):
        return [value] if value else []
    return []


def _failed(error: str) -> OfficialJudgement:
    return OfficialJudgement(success=False, scores=dict.fromkeys(SCORE_DIMENSIONS, 0), error=error)


def parse_official_judgement(raw: str | None, tag: str = JUDGE_TAG) -> OfficialJudgement:
    """Read a judge answer with the official rules. Never raises.

    Think sections removed; inside the last ``<final_evaluation>`` block when there is one (else the
    whole answer): the last fenced object holding ``"scores"`` (else the last fenced object), else
    the last balanced object scanning forward (preferring one with ``"scores"``), else the object
    ending at the last brace; three textual repairs; on a JSON error only the ``"scores"`` object is
    kept. ``scores`` must be an object; each dimension is read by its lower-case name.
    """
    cleaned = raw.strip() if raw else ""
    if not cleaned:
        return _failed("empty judge answer")
    cleaned = remove_thinking(cleaned, tag)
    tagged = last_tagged(cleaned, tag)
    target = tagged or cleaned
    text = _from_fences(target) or _best_object(target) or _last_object(target)
    if not text:
        return _failed("no JSON object in the judge's answer")
    text = _repair(text)
    try:
        try:
            result = json.loads(text)
        except json.JSONDecodeError as exc:
            only_scores = _SCORES_OBJECT.search(text)
            if only_scores is None:
                return _failed(f"the judge's JSON does not parse ({exc.msg})")
            result = json.loads('{"strengths":[],"weaknesses":[],' + only_scores.group(0) + "}")
        if "scores" not in result or not isinstance(result["scores"], dict):
            keys = list(result.keys())  # a non-object answer fails here, as officially
            return _failed(f"no 'scores' object in the judgement (keys: {keys})")
        scores = {dim: _score(result["scores"].get(dim, 0)) for dim in SCORE_DIMENSIONS}
        positive = [v for v in scores.values() if v > 0]
        return OfficialJudgement(
            success=True,
            scores=scores,
            total=sum(positive) / len(positive) if positive else 0,
            strengths=_as_strings(result.get("strengths", [])),
            weaknesses=_as_strings(result.get("weaknesses", [])),
        )
    except json.JSONDecodeError as exc:
        return _failed(f"the judge's JSON does not parse ({exc.msg})")
    except Exception as exc:  # the official parser turns every error into a failed judgement
        return _failed(f"unusable judgement ({type(exc).__name__}: {exc})")

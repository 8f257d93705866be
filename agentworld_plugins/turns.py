"""Turns in the format the world model was trained on, and parsing of what it answers.

A session's messages are ``system``, then a ``user`` turn prompt and an ``assistant``
observation per earlier turn, then the current ``user`` turn prompt. The list only grows, so
servers with prefix caching reuse the whole history. The format is read back here too: the action
of a turn prompt, its turn number, a conversation's system prompt and the tools embedded in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import AgentWorldError, short_repr

OBSERVATION_MARKER = "**Environment Observation:**"

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)
_OPEN_OBS = "<predicted_observation>"
_CLOSE_OBS = "</predicted_observation>"
_MARKER = re.compile(r"^\s*(\*\*)?Environment Observation:?(\*\*)?:?[ \t]*\n?", re.IGNORECASE)


def render_turn(number: int, action: str, *, state: str | None = None, fence: str | None = "json") -> str:
    """The user message for turn ``number`` (counted from 1).

    ``fence`` is the code-block language for the action (``None`` writes the action bare, as
    for BrowserGym action strings).
    """
    parts = [f"### Turn {number}"]
    if state is not None:
        parts.append(f"**Current State:**\n{state}\n")
    body = f"```{fence}\n{action}\n```" if fence is not None else action
    parts.append(f"**Action:**\n{body}")
    return "\n".join(parts)


def build_messages(
    system_prompt: str, history: Sequence[tuple[str, str]], current_prompt: str
) -> list[dict[str, str]]:
    """System prompt, then (turn prompt, observation) pairs, then the current turn prompt."""
    messages = [{"role": "system", "content": system_prompt}]
    for prompt, observation in history:
        messages.append({"role": "user", "content": prompt})
        messages.append({"role": "assistant", "content": observation})
    messages.append({"role": "user", "content": current_prompt})
    return messages


_RECORD_FIELDS = ("system_str", "prompt", "response", "current_prompt", "turn_idx")


def _record_text(record: Mapping[str, Any], value: Any, where: str) -> str:
    """A record's text field: a string (None is empty, a plain number its digits), else an error
    naming the field; never ``str()`` of a structure (a deep one overflows the stack)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return str(value)
        except ValueError:  # an int over Python's 4,300-digit conversion limit
            pass
    raise AgentWorldError(
        f"AgentWorldBench record {_record_id(record)}: {where} must be text, got {type(value).__name__}",
        hint="system_str, current_prompt and each prompt/response entry are strings",
    )


def _record_id(record: Mapping[str, Any]) -> str:
    return short_repr(record.get("id", "?"))


def messages_for_record(record: Mapping[str, Any]) -> list[dict[str, str]]:
    """The inference messages for one AgentWorldBench record.

    ``system_str``, then the prompt/response pairs of the turns before ``turn_idx`` (1-based),
    then ``current_prompt``. A record that cannot give them raises :class:`AgentWorldError`
    naming the field, whatever it holds (deep nesting, huge numbers, wrong types).
    """
    if not isinstance(record, Mapping):
        raise AgentWorldError(
            f"An AgentWorldBench record must be a JSON object, got {type(record).__name__}",
            hint="each line of a <domain>_test.jsonl file is one record object",
        )
    missing = [f for f in _RECORD_FIELDS if f not in record]
    if missing:
        raise AgentWorldError(
            f"AgentWorldBench record {_record_id(record)} lacks {', '.join(missing)}",
            hint="each record needs system_str, prompt, response, current_prompt and turn_idx",
        )
    turn_idx, prompts, responses = record["turn_idx"], record["prompt"], record["response"]
    if isinstance(turn_idx, str) and turn_idx.strip().isdigit() and len(turn_idx) < 10:
        turn_idx = int(turn_idx)
    if not isinstance(turn_idx, int) or isinstance(turn_idx, bool):
        raise AgentWorldError(
            f"AgentWorldBench record {_record_id(record)}: turn_idx must be an integer, "
            f"got {type(turn_idx).__name__}",
            hint="turn_idx is the 1-based number of the current turn",
        )
    if not isinstance(prompts, (list, tuple)) or not isinstance(responses, (list, tuple)):
        raise AgentWorldError(
            f"AgentWorldBench record {_record_id(record)}: prompt and response must be lists",
            hint="prompt and response hold the earlier turns' prompts and answers",
        )
    if turn_idx < 1 or turn_idx - 1 > min(len(prompts), len(responses)):
        shown = turn_idx if abs(turn_idx) < 10**12 else "out of any range"
        raise AgentWorldError(
            f"AgentWorldBench record {_record_id(record)}: turn_idx {shown} is out of range",
            hint=f"turn_idx counts from 1 and the record has {len(prompts)} prompts",
        )
    history = [
        (
            _record_text(record, prompt, f"prompt[{number}]"),
            _record_text(record, response, f"response[{number}]"),
        )
        for number, (prompt, response) in enumerate(zip(prompts[: turn_idx - 1], responses[: turn_idx - 1]))
    ]
    system = _record_text(record, record["system_str"], "system_str")
    return build_messages(system, history, _record_text(record, record["current_prompt"], "current_prompt"))


@dataclass
class ParsedOutput:
    """The observation found in a model answer, what was reasoning, and what needed repair."""

    text: str
    reasoning: str | None = None
    warnings: list[str] = field(default_factory=list)


def split_reasoning(content: str) -> tuple[str, list[str], list[str]]:
    """Remove ``<think>`` sections: returns (kept text, reasoning pieces, warnings).

    Handles nested and repeated tags, an unclosed ``<think>`` (reasoning to the end, unless an
    observation block follows), and a stray ``</think>`` with no opening (a chat template that
    opened the tag in the prompt): everything before it is reasoning.
    """
    kept: list[str] = []
    reasoning: list[str] = []
    warnings: list[str] = []
    depth = 0
    pos = 0
    buf: list[str] = []  # text inside the current think section
    for match in _THINK_TAG.finditer(content):
        piece = content[pos : match.start()]
        pos = match.end()
        closing = match.group(1) == "/"
        if depth == 0:
            if closing:
                # stray close: all that came before was reasoning
                reasoning.extend(p for p in kept if p.strip())
                reasoning.append(piece) if piece.strip() else None
                kept = []
                warnings.append("stray </think> without an opening tag")
            else:
                kept.append(piece)
                depth = 1
                buf = []
        else:
            buf.append(piece)
            if closing:
                depth -= 1
                if depth == 0:
                    reasoning.append("".join(buf))
                    buf = []
                else:
                    buf.append(match.group(0))
            else:
                depth += 1
                buf.append(match.group(0))
    tail = content[pos:]
    if depth > 0:
        inside = "".join(buf) + tail
        cut = inside.rfind(_OPEN_OBS)
        if cut >= 0:
            reasoning.append(inside[:cut])
            kept.append(inside[cut:])
            warnings.append("unclosed <think> before the observation block")
        else:
            reasoning.append(inside)
            warnings.append("unclosed <think>: the rest of the answer was taken as reasoning")
    else:
        kept.append(tail)
    return "".join(kept), [r.strip() for r in reasoning if r.strip()], warnings


def _strip_marker(text: str) -> str:
    text = text.strip("\n")
    previous = None
    while previous != text:
        previous = text
        text = _MARKER.sub("", text, count=1).strip("\n")
    return text.rstrip()


def _exact_content(body: str, opened: bool, closed: bool) -> str:
    """The observation in ``body`` with only the format taken off: the newline that follows an
    opening tag and the one that precedes a closing tag (we write a block as
    ``<predicted_observation>\\nTEXT\\n</predicted_observation>``), blank lines before bare text
    (what separates it from the reasoning), and a leading ``**Environment Observation:**`` with
    the newlines after it. Everything else, trailing newlines and spaces included, is content."""
    if not opened:
        body = body.lstrip("\n")
    elif body.startswith("\n"):
        body = body[1:]
    if closed and body.endswith("\n"):
        body = body[:-1]
    while True:
        unmarked = _MARKER.sub("", body, count=1)
        if unmarked == body:
            return body
        body = unmarked.lstrip("\n")


def parse_output(
    content: str | None,
    reasoning: str | None = None,
    *,
    require_block: bool = False,
    exact: bool = False,
) -> ParsedOutput:
    """Find the observation in a model answer. Never raises.

    Reasoning (inline ``<think>`` or the server's ``reasoning_content``) is removed, the LAST
    ``<predicted_observation>`` block is taken (an unclosed one runs to the end), and without a
    block the cleaned text is used. A leading ``**Environment Observation:**`` is stripped.
    ``require_block`` adds a warning when the block is missing (web, android and os templates
    demand one). By default surrounding blank lines and trailing whitespace go too (a screen's
    trailing blanks are not content); ``exact`` takes off only the format (the newline inside each
    tag, see :func:`_exact_content`), for observations an agent gets verbatim (an MCP tool's text).
    """
    text = content if isinstance(content, str) else ""
    kept, thoughts, warnings = split_reasoning(text)
    if isinstance(reasoning, str) and reasoning.strip():
        thoughts.insert(0, reasoning.strip())
    start = kept.rfind(_OPEN_OBS)
    opened = closed = False
    if start >= 0:
        body = kept[start + len(_OPEN_OBS) :]
        end = body.find(_CLOSE_OBS)
        opened = True
        if end >= 0:
            body = body[:end]
            closed = True
        else:
            warnings.append("unclosed <predicted_observation> block: taken to the end")
    elif _CLOSE_OBS in kept:
        before = kept[: kept.rfind(_CLOSE_OBS)]
        body = before.split(_CLOSE_OBS)[-1]
        closed = True
        warnings.append("</predicted_observation> without an opening tag")
    else:
        body = kept
        if require_block:
            warnings.append("no <predicted_observation> block: the whole answer was used")
    body = body.replace(_OPEN_OBS, "").replace(_CLOSE_OBS, "")
    observation = _exact_content(body, opened, closed) if exact else _strip_marker(body)
    if not observation.strip():
        warnings.append("empty observation")
    return ParsedOutput(text=observation, reasoning="\n\n".join(thoughts) or None, warnings=warnings)


def estimate_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """A cheap token estimate (4 characters a token, plus framing per message)."""
    return sum(len(str(m.get("content") or "")) // 4 + 4 for m in messages)


# -- reading the trained format back: actions, turn numbers, system prompts ------------------------

_ACTION = re.compile(r"\*\*Action:\*\*\n", re.MULTILINE)
_FENCED = re.compile(r"\A```([\w-]*)\n(.*?)\n?```\s*\Z", re.DOTALL)
_TURN = re.compile(r"\A### Turn (\d+)")


#: the labels of the sections a model-level perturbation (``placement=turn``) appends to a turn
#: prompt after its action: instructions to the world model, never part of the action
TURN_SECTION_LABELS = ("Control Instruction", "World Bible", "Adversarial Steering")
_TURN_SECTION = re.compile(r"\n\n\*\*(?:" + "|".join(TURN_SECTION_LABELS) + r"):\*\*\n")


def turn_section(label: str, body: str) -> str:
    """The text a ``placement=turn`` perturbation appends to a turn prompt (``label`` one of
    :data:`TURN_SECTION_LABELS`, so that :func:`extract_action` leaves it out of the action)."""
    if label not in TURN_SECTION_LABELS:
        raise ValueError(f"turn section label {label!r} is not one of {', '.join(TURN_SECTION_LABELS)}")
    return f"\n\n**{label}:**\n{body}"


def extract_action(turn_prompt: str) -> tuple[str | None, str] | None:
    """``(fence language or None, action text)`` from a rendered turn prompt, or None.

    Sections a perturbation appended after the action (:func:`turn_section`) are not part of it.
    """
    first = _ACTION.search(turn_prompt)
    if first is not None:
        section = _TURN_SECTION.search(turn_prompt, first.end())
        if section is not None:
            turn_prompt = turn_prompt[: section.start()]
    matches = list(_ACTION.finditer(turn_prompt))
    if not matches:
        return None
    body = turn_prompt[matches[-1].end() :].strip("\n")
    fenced = _FENCED.match(body)
    if fenced:
        return fenced.group(1) or "", fenced.group(2)
    return None, body


_STATE = "**Current State:**\n"


def state_of_turn(turn_prompt: str) -> str | None:
    """The ``**Current State:**`` text of a rendered turn prompt (the first turn's), or None.

    >>> state_of_turn(render_turn(1, "[]", state="root@box:/srv# "))
    'root@box:/srv# '
    """
    start = turn_prompt.find(_STATE)
    actions = list(_ACTION.finditer(turn_prompt))
    if start < 0 or not actions or actions[-1].start() < start:
        return None
    state = turn_prompt[start + len(_STATE) : actions[-1].start()]
    return state[:-2] if state.endswith("\n\n") else state.rstrip("\n")


def turn_number(prompt: str) -> int | None:
    """The N of a prompt's leading ``### Turn N`` header, or None."""
    found = _TURN.match(prompt.lstrip())
    return int(found.group(1)) if found else None


def system_of(messages: list[dict[str, Any]]) -> str:
    """The content of a conversation's first system message (``""`` when there is none)."""
    return next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")


def context_from_system(system: str) -> dict[str, Any]:
    """Tool definitions embedded in a system prompt as a JSON list (best effort)."""
    start = system.find('[\n  {\n    "name"')
    if start < 0:
        return {}
    depth = 0
    for i, ch in enumerate(system[start:], start):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            try:
                tools = json.loads(system[start : i + 1])
            except json.JSONDecodeError:
                return {}
            return {"tools": tools} if isinstance(tools, list) else {}
    return {}

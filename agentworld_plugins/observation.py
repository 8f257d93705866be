"""What the agent sees after one action (:class:`Observation`) and what an offline world answers
(:class:`OfflineResult`): the observation types every layer passes around.

It sits in the base layer so that hooks, backends, perturbations and fronts can name it without
importing the session or the domains; :mod:`agentworld_plugins.session`,
:mod:`agentworld_plugins.domains.base` and the package re-export them.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field


class Observation(BaseModel):
    """What the agent sees after one action, and how it came about."""

    text: str = Field(description="The observation as the agent sees it.")
    raw: str | None = Field(None, description="The model's whole answer (None when no model was asked).")
    reasoning: str | None = Field(None, description="The model's reasoning, kept apart from the text.")
    is_error: bool = Field(False, description="Whether the environment reports a failure.")
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass
class Turn:
    """One step of a trajectory: the action, the prompt sent for it, and the observation."""

    number: int
    action: Any
    prompt: str
    observation: Observation


@dataclass
class OfflineResult:
    """What an offline world (``register_offline_worlds``) answers: the observation text and,
    optionally, whether it is an error (``None``: let :meth:`Domain.is_error` decide) and extra
    metadata."""

    text: str
    is_error: bool | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


#: ``Observation.metadata`` key of a command's exact output, where a world knows it: base64 of the
#: stdout and stderr bytes, and a digest of the text they belong to (a perturbation that rewrites
#: the text makes them stale, so a front uses them only while the text is the world's own)
RAW_STREAMS = "raw_streams"

#: lone surrogates that stand for no byte (``surrogateescape`` uses U+DC80..U+DCFF for 0x80..0xFF)
_NOT_A_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def stream_bytes(text: str) -> bytes:
    """A stream kept as ``surrogateescape`` text, as its bytes (a surrogate standing for no byte
    becomes U+FFFD)."""
    return _NOT_A_BYTE.sub("\ufffd", text).encode("utf-8", "surrogateescape")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def raw_streams_metadata(text: str, stdout: str, stderr: str) -> dict[str, str]:
    """The :data:`RAW_STREAMS` entry for an observation ``text`` showing ``stdout`` / ``stderr``."""
    return {
        "stdout": base64.b64encode(stream_bytes(stdout)).decode("ascii"),
        "stderr": base64.b64encode(stream_bytes(stderr)).decode("ascii"),
        "text": _digest(text),
    }


def raw_streams(observation: Observation) -> tuple[bytes, bytes] | None:
    """The exact ``(stdout, stderr)`` bytes behind ``observation``, or None when the world did not
    give them or the text was changed since (then only the text tells)."""
    entry = observation.metadata.get(RAW_STREAMS)
    if not isinstance(entry, dict) or entry.get("text") != _digest(observation.text):
        return None
    try:
        return base64.b64decode(entry["stdout"]), base64.b64decode(entry["stderr"])
    except (KeyError, TypeError, ValueError):
        return None

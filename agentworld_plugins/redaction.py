"""One redaction of secrets for everything the package stores, prints or serves.

Cassettes, trajectories, ``/health`` answers, startup lines and error messages all go through
:func:`redact` (structures) or :func:`redact_text` (strings): secret-looking tokens (``sk-...``,
``hf_...``, ``ghp_...``, ``Bearer ...``), credentials inside URLs (``http://user:pass@host``),
key-like query parameters (``?api_key=...``) and the values of keys named like ``api_key`` or
``authorization`` become ``***REDACTED***``.

>>> redact_text("GET http://bob:hunter2@gpu:8000/v1 with Bearer abcdefgh12345678")
'GET http://***REDACTED***@gpu:8000/v1 with Bearer ***REDACTED***'
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["REDACTED", "REDACT_ENV", "redact", "redact_record", "redact_text", "redact_url"]

REDACTED = "***REDACTED***"
#: ``0`` keeps secrets in written trajectories (cassettes always redact)
REDACT_ENV = "AGENTWORLD_REDACT"

_SECRET_TEXT = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})"
)
_BEARER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
# userinfo of a URL: scheme://user[:password]@
_URL_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#@]+@")
_URL_KEY_PARAM = re.compile(
    r"([?&](?:api[_-]?key|key|token|access[_-]?token|auth|password|secret)=)[^&#\s]+", re.IGNORECASE
)
_SECRET_KEY = re.compile(
    r"^(api[_-]?key|authorization|x-api-key|access[_-]?token|secret|password|token)$", re.IGNORECASE
)


def _redact_text(text: str) -> tuple[str, int]:
    text, n1 = _SECRET_TEXT.subn(REDACTED, text)
    text, n2 = _BEARER.subn(lambda m: f"{m.group(1)} {REDACTED}", text)
    text, n3 = _URL_USERINFO.subn(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text, n4 = _URL_KEY_PARAM.subn(lambda m: f"{m.group(1)}{REDACTED}", text)
    return text, n1 + n2 + n3 + n4


def redact_text(text: str) -> str:
    """``text`` with secret-looking tokens and URL credentials replaced."""
    return _redact_text(text)[0]


def redact_url(url: str | None) -> str | None:
    """A URL safe to print: its user, password and key-like query parameters replaced."""
    return None if url is None else redact_text(url)


def redact(value: Any, *, keys: re.Pattern[str] | None = None) -> tuple[Any, int]:
    """A copy of ``value`` with secret-looking strings replaced; returns (copy, replacements).

    ``keys`` (default: names like ``api_key``, ``authorization``, ``password``) selects dict keys
    whose values are replaced whole. Iterative over nesting, so deep values cannot overflow it.
    """
    secret_key = keys or _SECRET_KEY
    count = 0

    def leaf(item: Any, key: str | None) -> tuple[bool, Any]:
        nonlocal count
        if key is not None and secret_key.match(key) and item not in (None, ""):
            count += 1
            return True, REDACTED
        if isinstance(item, str):
            new, n = _redact_text(item)
            count += n
            return True, new
        if isinstance(item, (dict, list, tuple)):
            return False, None
        return True, item

    done, result = leaf(value, None)
    if done:
        return result, count
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for k, item in pairs:
            done, new = leaf(item, str(k) if isinstance(source, dict) else None)
            if not done:
                new = {} if isinstance(item, dict) else []
                stack.append((item, new))
            if isinstance(target, dict):
                target[k] = new
            else:
                target.append(new)
    return root, count


def redact_record(record: Any, enabled: bool | None = None) -> Any:
    """``record`` as a trajectory file stores it: redacted unless ``enabled`` is False (None:
    the ``AGENTWORLD_REDACT`` setting, on unless ``0``/``false``/``no``/``off``)."""
    if enabled is None:
        enabled = os.environ.get(REDACT_ENV, "1").strip().lower() not in ("0", "false", "no", "off")
    return redact(record)[0] if enabled else record

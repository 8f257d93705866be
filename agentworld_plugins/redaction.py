"""One redaction of secrets for everything the package stores, prints or serves.

Cassettes, trajectories, rollout and bench result lines, ``/health`` answers, startup lines and
error messages all go through :func:`redact` (structures) or :func:`redact_text` (strings):
secret-looking tokens (``sk-...``, ``hf_...``, ``ghp_...``, ``glpat-...``, ``Bearer ...``),
credentials inside URLs (``http://user:pass@host``), key-like query parameters
(``?api_key=...``), the values of keys named like a secret (:func:`is_secret_key`, at any depth
of a structure and as ``key=value`` / ``"key": "value"`` inside text) and the configured secrets
(:func:`remember_secret`) become ``***REDACTED***``. Linear time in the text's length.

>>> redact_text("GET http://bob:hunter2@gpu:8000/v1 with Bearer abcdefgh12345678")
'GET http://***REDACTED***@gpu:8000/v1 with Bearer ***REDACTED***'
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "REDACTED",
    "REDACT_ENV",
    "forget_secrets",
    "is_secret_key",
    "redact",
    "redact_record",
    "redact_text",
    "redact_url",
    "remember_secret",
]

REDACTED = "***REDACTED***"
#: ``0`` keeps secrets in written trajectories (cassettes always redact)
REDACT_ENV = "AGENTWORLD_REDACT"
#: shortest configured secret redacted by value (shorter ones would hit ordinary words)
MIN_SECRET_CHARS = 8

# Linear time, by construction (tests/test_redaction.py checks the structure): every pattern may
# begin only at the start of a run of its first characters (a negative lookbehind, ``\b`` or a
# literal), every unbounded repetition is possessive (never gives characters back), and the one
# lazy repetition (a key's prefix) ranges over the same run its lookbehind starts. So each
# character is scanned a bounded number of times, whatever the input (an 80 KB run of ``a.a.a.``
# or ``sk-sk-`` made the old URL pattern rescan to the end from every position: quadratic).
_SECRET_TEXT = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{16,}+|hf_[A-Za-z0-9]{16,}+|gh[pousr]_[A-Za-z0-9]{20,}+"
    r"|github_pat_[A-Za-z0-9_]{20,}+|glpat-[A-Za-z0-9_\-]{20,}+|xox[abprs]-[A-Za-z0-9\-]{10,}+"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}|[rs]k_live_[A-Za-z0-9]{16,}+)"
)
_BEARER = re.compile(r"\b(Bearer|Basic)\s++[A-Za-z0-9._~+/=\-]{8,}+", re.IGNORECASE)
# userinfo of a URL: scheme://user[:password]@ (the scheme starts a run of scheme characters)
_URL_USERINFO = re.compile(r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*+://)[^\s/?#@]++@")
_URL_KEY_PARAM = re.compile(
    r"([?&](?:api[_-]?key|key|token|access[_-]?token|auth|password|secret)=)[^&#\s]++", re.IGNORECASE
)
#: the words that make a key name secret when it ends in one (``password``, ``client_secret``,
#: ``X-Api-Key``, ``accessToken``; not ``max_tokens`` or ``token_count``)
_KEY_WORDS = (
    r"(?:password|passwd|passphrase|secret|token|api[_\-]?key|authorization|private[_\-]?key"
    r"|access[_\-]?key|credentials?|cookie)"
)
#: a key names a secret when, lower-cased without separators, it ends in one of these
_KEY_ENDINGS = (
    "password", "passwd", "passphrase", "secret", "token", "apikey", "authorization", "privatekey",
    "accesskey", "credential", "credentials", "cookie",
)  # fmt: skip
_KEY_SEPARATORS = str.maketrans("", "", "_-. ")
# ``password=v``, ``"api_key": "v"``, ``\"token\": \"v\"`` (JSON inside a JSON string),
# ``Authorization: Bearer v`` inside text: the key (ending in a key word), then its value
_KEY_VALUE = re.compile(
    r"(?<![\w\-])((\\?[\"']?+)[\w\-]*?" + _KEY_WORDS + r"\2[ \t]*+[:=][ \t]*+)"
    r"(\\\"(?:[^\"\\\n]|\\(?!\")[^\n])*+\\\"|\\'(?:[^'\\\n]|\\(?!')[^\n])*+\\'"
    r"|\"(?:[^\"\\\n]|\\.)*+\"|'[^'\n]*+'"
    r"|(?:Bearer|Basic)[ \t]++[^\s\"',;&}\]\\]++|[^\s\"',;&}\]\\]++)",
    re.IGNORECASE,
)
_PATTERNS = (_SECRET_TEXT, _BEARER, _URL_USERINFO, _URL_KEY_PARAM, _KEY_VALUE)
_NOT_SECRET_VALUES = {"null", "true", "false", "none", '""', "''", '\\"\\"', "\\'\\'", REDACTED}

_known: set[str] = set()
_known_lock = threading.Lock()
_known_longest_first: tuple[str, ...] = ()


def remember_secret(value: str | None) -> None:
    """Redact ``value`` wherever it appears from now on (a configured API key or token, which may
    have no recognisable form, quoted back by an upstream's 401 or typed by an agent). Values
    shorter than :data:`MIN_SECRET_CHARS` are ignored."""
    global _known_longest_first
    if value and len(value.strip()) >= MIN_SECRET_CHARS:
        with _known_lock:
            _known.add(value.strip())
            _known_longest_first = tuple(sorted(_known, key=len, reverse=True))


def forget_secrets() -> None:
    """Forget every value :func:`remember_secret` was given (for tests)."""
    global _known_longest_first
    with _known_lock:
        _known.clear()
        _known_longest_first = ()


def is_secret_key(name: str) -> bool:
    """Whether a key (a dict key, a header, a variable) names a secret: it ends in ``password``,
    ``secret``, ``token``, ``api_key``, ``authorization``, ``credentials``, ... (any case, any
    separators)."""
    found = _SECRET_KEYS.get(name)
    if found is None:
        found = name.lower().translate(_KEY_SEPARATORS).endswith(_KEY_ENDINGS)
        if len(name) <= 64:  # the same few names in every record: kept (cleared when full)
            if len(_SECRET_KEYS) >= 4096:
                _SECRET_KEYS.clear()
            _SECRET_KEYS[name] = found
    return found


#: :func:`is_secret_key`'s answers for short names
_SECRET_KEYS: dict[str, bool] = {}


_SENTENCE_START = re.compile(r"[A-Z][a-z]++ [a-z]")


def _is_prose(match: re.Match[str]) -> bool:
    """Whether a bare value after ``key:`` starts a sentence (``password: Field required``, as a
    validation error names a field), not a secret."""
    return ":" in match.group(1) and _SENTENCE_START.match(match.string, match.start(3)) is not None


def _value_redacted(match: re.Match[str], replaced: list[int]) -> str:
    value = match.group(3)
    if value.lower() in _NOT_SECRET_VALUES or REDACTED in value or _is_prose(match):
        return match.group(0)
    replaced[0] += 1
    if value[0] == "\\":  # a quote escaped inside a JSON string or a repr
        hidden = f"{value[:2]}{REDACTED}{value[:2]}"
    elif value[0] in "\"'":
        hidden = f"{value[0]}{REDACTED}{value[0]}"
    elif value[:6].lower() in ("bearer", "basic "):
        hidden = f"{value.split()[0]} {REDACTED}"
    else:
        hidden = REDACTED
    return match.group(1) + hidden


#: strings already redacted, with the known secrets they were redacted under: a rollout writes
#: the same system prompts, tool definitions and names in every line (bounded by characters held:
#: cleared when full; replaced whole when a secret is remembered)
_CACHE_ENTRY_CHARS = 256 * 1024
_CACHE_CHARS = 16 * 1024 * 1024
_cache: tuple[tuple[str, ...], dict[str, tuple[str, int]]] = ((), {})
_cache_held = [0]


def _redact_text(text: str) -> tuple[str, int]:
    global _cache
    if len(text) > _CACHE_ENTRY_CHARS or len(text) < 4:
        return _redact_uncached(text)
    known, done = _cache
    if known is not _known_longest_first:
        known, done = _known_longest_first, {}
        _cache = (known, done)
        _cache_held[0] = 0
    found = done.get(text)
    if found is None:
        if _cache_held[0] + len(text) > _CACHE_CHARS:
            done.clear()
            _cache_held[0] = 0
        found = done[text] = _redact_uncached(text)
        _cache_held[0] += len(text)
    return found


def _redact_uncached(text: str) -> tuple[str, int]:
    count = 0
    for secret in _known_longest_first:  # a tuple replaced whole: safe to read from any thread
        if secret in text:
            count += text.count(secret)
            text = text.replace(secret, REDACTED)
    text, n1 = _SECRET_TEXT.subn(REDACTED, text)
    text, n2 = _BEARER.subn(lambda m: f"{m.group(1)} {REDACTED}", text)
    text, n3 = _URL_USERINFO.subn(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text, n4 = _URL_KEY_PARAM.subn(lambda m: f"{m.group(1)}{REDACTED}", text)
    replaced = [0]
    text = _KEY_VALUE.sub(lambda m: _value_redacted(m, replaced), text)
    return text, count + n1 + n2 + n3 + n4 + replaced[0]


def redact_text(text: str) -> str:
    """``text`` with secret-looking tokens and URL credentials replaced."""
    return _redact_text(text)[0]


def redact_url(url: str | None) -> str | None:
    """A URL safe to print: its user, password and key-like query parameters replaced."""
    return None if url is None else redact_text(url)


def redact(value: Any, *, keys: re.Pattern[str] | None = None) -> tuple[Any, int]:
    """A copy of ``value`` with secret-looking strings replaced; returns (copy, replacements).

    ``keys`` (default: names ending in ``api_key``, ``authorization``, ``password``, ``token``,
    ``secret``, ... see :func:`is_secret_key`) selects dict keys, at any depth, whose values are
    replaced whole. Iterative over nesting, so deep values cannot overflow it.
    """
    secret_key: Callable[[str], object] = keys.match if keys is not None else is_secret_key
    count = 0

    def leaf(item: Any, key: str | None) -> tuple[bool, Any]:
        nonlocal count
        # a secret is a scalar: under a secret key a structure (a tool schema's "password"
        # property) is walked, not replaced
        if (
            key is not None
            and item not in (None, "")
            and not isinstance(item, (dict, list, tuple, bool))
            and secret_key(key)
        ):
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

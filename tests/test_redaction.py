"""The one redaction: linear time by construction, secrets by key name at any depth and in any text
form, and by the configured keys' values."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from agentworld_plugins import redaction
from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.redaction import (
    REDACTED,
    forget_secrets,
    is_secret_key,
    redact,
    redact_text,
    remember_secret,
)

try:  # Python 3.11+
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


# -- linear time, shown by the patterns' structure -------------------------------------------------


def _repeats(items: Any) -> Iterator[tuple[Any, Any]]:
    """Every (opcode, (min, max, body)) repetition inside a parsed pattern."""
    for op, av in items:
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
            yield op, av
            yield from _repeats(av[2])
        elif op is sre_constants.SUBPATTERN:
            yield from _repeats(av[3])
        elif op is sre_constants.BRANCH:
            for branch in av[1]:
                yield from _repeats(branch)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            yield from _repeats(av[1])
        elif op is sre_constants.ATOMIC_GROUP:
            yield from _repeats(av)


def _module_patterns() -> list[re.Pattern[str]]:
    return [value for value in vars(redaction).values() if isinstance(value, re.Pattern)]


def test_every_pattern_is_linear_by_structure() -> None:
    """The rule that makes each ``sub`` linear: every unbounded repetition is possessive (it never
    gives characters back, so one start scans its run once), except a lazy one over exactly the
    class its leading negative lookbehind excludes (a key's prefix: it can start only where such
    a run starts, so the runs it scans are disjoint). Every pattern starts at such a lookbehind,
    a ``\\b`` or a literal, so no start lies inside a run another start already scanned."""
    patterns = _module_patterns()
    assert set(redaction._PATTERNS) <= set(patterns) and len(patterns) >= 6
    for pattern in patterns:
        parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
        first_op, first_av = parsed[0]
        assert first_op in (sre_constants.ASSERT_NOT, sre_constants.AT, sre_constants.SUBPATTERN) or (
            first_op in (sre_constants.LITERAL, sre_constants.IN)
        ), (pattern.pattern, first_op)
        lookbehind = list(first_av[1]) if first_op is sre_constants.ASSERT_NOT and first_av[0] == -1 else None
        for op, (_, high, body) in _repeats(parsed):
            if high != sre_constants.MAXREPEAT:
                continue  # bounded: a constant amount of work per start
            if op is sre_constants.POSSESSIVE_REPEAT:
                continue
            assert op is sre_constants.MIN_REPEAT and lookbehind is not None, pattern.pattern
            assert list(body) == lookbehind, (pattern.pattern, body, lookbehind)


@pytest.mark.parametrize(
    "unit",
    ["a.", "sk-", "a://", "x:", "password=", '"password": "', '\\"token\\": \\"', "token_", '"', "\\", "-"],
)
def test_hostile_runs_are_redacted_whole_and_alike(unit: str) -> None:
    """80 KB of each shape the old patterns rescanned from every position; the result of a run
    twice as long is the result for the run, twice (each unit is handled on its own)."""
    text = unit * (80_000 // len(unit))
    once = redact_text(text)
    assert redact_text(text + text) == once + once or len(once) <= len(text)


# -- by key name -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["password", "DB_PASSWORD", "client_secret", "token", "access_token", "accessToken", "apiKey",
     "X-Api-Key", "api-key", "Authorization", "private_key", "credentials", "Cookie", "passwd"],
)  # fmt: skip
def test_secret_key_names(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize(
    "name", ["max_tokens", "total_tokens", "token_count", "tokenizer", "password_hint", "keystrokes", "key"]
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert not is_secret_key(name)


def test_structures_are_redacted_by_key_at_any_depth() -> None:
    value: dict[str, Any] = {
        "usage": {"total_tokens": 3, "prompt_tokens": 1},
        "max_tokens": 50,
        "tools": [{"parameters": {"properties": {"password": {"type": "string"}}}}],
        "calls": [{"arguments": {"user": "ann", "password": "pw-1", "nested": [{"apiKey": 12345}]}}],
    }
    for _ in range(300):
        value = {"deeper": [value]}
    copy, count = redact(value)
    for _ in range(300):
        copy = copy["deeper"][0]
    assert count == 2
    assert copy["calls"][0]["arguments"] == {
        "user": "ann",
        "password": REDACTED,
        "nested": [{"apiKey": REDACTED}],
    }
    assert copy["tools"][0]["parameters"]["properties"]["password"] == {"type": "string"}
    assert copy["usage"] == {"total_tokens": 3, "prompt_tokens": 1} and copy["max_tokens"] == 50


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ('{"user": "ann", "password": "pw 1"}', '{"user": "ann", "password": "***REDACTED***"}'),
        ('{\\"token\\": \\"abc\\"}', '{\\"token\\": \\"***REDACTED***\\"}'),
        ("export DB_PASSWORD=pw1 && run", "export DB_PASSWORD=***REDACTED*** && run"),
        ("mysql --password='pw 1' -e x", "mysql --password='***REDACTED***' -e x"),
        ("got 'mysql --password=\\'pw\\''", "got 'mysql --password=\\'***REDACTED***\\''"),
        ("Authorization: Basic dXNlcjpwdw==", "Authorization: Basic ***REDACTED***"),
        ("X-Api-Key: abc123\r\n", "X-Api-Key: ***REDACTED***\r\n"),
        ("clone with glpat-" + "x1" * 12, "clone with ***REDACTED***"),
        ('{"max_tokens": 5, "token": null, "secret": ""}', '{"max_tokens": 5, "token": null, "secret": ""}'),
        ("the password is long; tokens: 5", "the password is long; tokens: 5"),
        ("  arguments.password: Input should be a string", "  arguments.password: Input should be a string"),
        ("password: Summer2024 was set", "password: ***REDACTED*** was set"),
    ],
)
def test_text_forms_of_secret_keys(text: str, redacted: str) -> None:
    assert redact_text(text) == redacted


# -- by the configured keys' values ----------------------------------------------------------------


def test_configured_values_are_redacted_wherever_they_appear() -> None:
    key = "Qz7pL2vX9kWr4mTnB8cD"  # no known form: only its value identifies it
    body = f'{{"error": {{"message": "Incorrect API key provided: {key}"}}}}'
    assert key in redact_text(body)
    remember_secret(key)
    remember_secret("short")  # under MIN_SECRET_CHARS: would hit ordinary words
    assert key not in redact_text(body) and REDACTED in redact_text(body)
    assert redact_text("a short answer") == "a short answer"
    assert key not in str(BackendError(f"upstream answered 401: {body}"))
    copy, count = redact({"reply": [body, key]})
    assert count == 2 and key not in str(copy)


def test_the_backend_learns_its_key_and_refuses_credentials_in_the_url_beside_it() -> None:
    OpenAIBackend(["http://127.0.0.1:9/v1"], "m", "Zx8cV7bN6mQ5wE4r")
    assert "Zx8cV7bN6mQ5wE4r" not in redact_text("key Zx8cV7bN6mQ5wE4r")
    with pytest.raises(ConfigError, match="carries credentials") as caught:
        OpenAIBackend(["http://bob:hunter2pass@127.0.0.1:9/v1"], "m", "Zx8cV7bN6mQ5wE4r")
    assert "hunter2pass" not in str(caught.value) and "--upstream-api-key" not in str(caught.value)
    # credentials in the URL alone are what the user asked for (HTTP Basic); they are never printed
    backend = OpenAIBackend(["http://bob:hunter2pass@127.0.0.1:9/v1"], "m")
    assert "hunter2pass" not in backend.describe() and "hunter2pass" not in redact_text("pw hunter2pass")

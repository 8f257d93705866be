"""Settings, read from ``AGENTWORLD_*`` environment variables; constructor arguments win."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: what a world name may be: it names a stored record, a lock file and a CLI argument
WORLD_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$")


class Settings(BaseSettings):
    """Everything a :class:`~agentworld_plugins.World` needs to know, with its env var.

    ``base_url`` may list several OpenAI-compatible servers separated by commas; requests are
    spread over them by least outstanding requests.
    """

    model_config = SettingsConfigDict(env_prefix="AGENTWORLD_", extra="forbid", validate_default=True)

    base_url: str | None = Field(
        None, description="OpenAI-compatible base URL(s) of the world model, comma separated."
    )
    model: str | None = Field(None, description="Model name; asked from /v1/models when unset.")
    api_key: str | None = Field(None, description="API key for the world-model server ('EMPTY' if unset).")
    backend: str | None = Field(
        None, description="Backend name or chain; 'openai' when base_url is set, else the embedded default."
    )
    guard: str | None = Field(
        None,
        pattern="^(|flag|repair|engine|default)$",
        description="Check every observation against the facts earlier turns established: "
        "'flag', 'repair', 'engine' or 'default' (each domain's own policy); see docs/guard.md.",
    )
    prompts_dir: Path | None = Field(
        None, description="Folder of <domain>/system_prompt.txt templates overriding the bundled ones."
    )
    timeout: float = Field(120.0, gt=0, description="Seconds before one world-model request times out.")
    max_retries: int = Field(3, ge=0, description="Retries on connection errors, 429 and 5xx.")
    retry_backoff: float = Field(0.5, ge=0, description="First retry delay in seconds; doubles each time.")
    concurrency: int = Field(64, ge=1, description="Most world-model requests in flight per backend.")
    max_context_tokens: int = Field(262144, ge=256, description="Context budget of one session.")
    seed: int | None = Field(None, description="Seed passed to the backend for reproducible sampling.")
    offline_step_seconds: float = Field(
        5.0,
        gt=0,
        description="Virtual CPU seconds of work of one offline shell step (deterministic; 1 s = "
        "1,000,000 work units); past it the command fails (152).",
    )
    offline_step_memory_mb: int = Field(
        256, ge=1, description="Memory budget (MB) of one offline shell step; past it the command fails (2)."
    )
    offline_unknown_programs: str = Field(
        "fail",
        pattern="^(fail|succeed)$",
        description="What a program the offline shell cannot simulate answers: 'fail' (a notice, 126) "
        "or 'succeed' (nothing, 0).",
    )
    home: Path = Field(
        Path.home() / ".agentworld", description="Where worlds, sessions, cassettes and caches are kept."
    )
    world: str | None = Field(
        None,
        description="The named world every front attaches to (kept in AGENTWORLD_HOME across "
        "connections, processes and restarts); unset: each front's own world.",
    )

    @field_validator("world")
    @classmethod
    def _world_name(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not WORLD_NAME_PATTERN.match(value):
            raise ValueError(
                f"world {value!r} is not a valid world name: use 1-128 letters, digits and . _ - : @ + "
                "(starting with a letter or digit), e.g. demo-1"
            )
        return value

    @field_validator("base_url")
    @classmethod
    def _strip_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        urls = [u.strip().rstrip("/") for u in value.split(",") if u.strip()]
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise ValueError(
                    f"base_url {url!r} must start with http:// or https://, e.g. http://localhost:8000/v1"
                )
        return ",".join(urls) or None

    @property
    def base_urls(self) -> list[str]:
        return self.base_url.split(",") if self.base_url else []


def load_settings(*, env_prefix: str = "AGENTWORLD_", **overrides: object) -> Settings:
    """Settings from the environment (variables named ``env_prefix`` + field), with the non-None
    ``overrides`` applied on top. A bad value is a :class:`ConfigError` naming the field."""
    from pydantic import ValidationError

    from .errors import ConfigError

    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(_env_prefix=env_prefix, **given)  # type: ignore[arg-type, call-arg]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise ConfigError(
            f"Invalid settings: {problems}",
            hint=f"fix the argument or the matching {env_prefix}* environment variable",
        ) from None

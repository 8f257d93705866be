"""What every built-in perturbation shares: validated options, per-session state, provenance.

A perturbation is a plugin object registered for some sessions only (see ``docs/perturbations.md``).
One object may serve many sessions (a ``World``'s default perturbations do), so everything that
changes during a session lives in ``session.state["perturbations"][perturbation.key]``, as plain
JSON values, never on the object.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..errors import ConfigError
from .targeting import ActionView, Schedule, SessionRandom, Target, describe_action, parse_turns

if TYPE_CHECKING:
    from ..session import Observation, Session

#: where injected perturbations are listed in ``Observation.metadata``
METADATA_KEY = "perturbations"


def split_list(value: Any, separator: str = "+") -> Any:
    """``"a+b"`` -> ``["a", "b"]``; lists and other values are returned as they are."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(separator) if part.strip()]
    return value


class PerturbationOptions(BaseModel):
    """Base of every perturbation's options: unknown names are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


_EXAMPLES = {"domains": "mcp+swe", "tools": "write_*+curl", "commands": "'git push*'", "at": "2+5"}


class TargetOptions(PerturbationOptions):
    """Targeting and schedule options shared by the harness-level perturbations."""

    domains: list[str] = Field(
        default_factory=list, description="only these domains, e.g. mcp+swe (globs; default: all)"
    )
    tools: list[str] = Field(
        default_factory=list,
        description="only these tools, e.g. write_*+delete_* (globs on the tool name, the program a "
        "terminal command runs, the browser/pyautogui function or the Android action_type)",
    )
    commands: list[str] = Field(
        default_factory=list, description="only actions whose command text matches, e.g. 'git push*' (globs)"
    )
    match: str | None = Field(None, description="only actions whose text this regular expression finds")
    turns: str | None = Field(None, description="only these turns, e.g. 3-10, 5- or -4 (counted from 1)")
    rate: float | None = Field(
        None, ge=0, le=1, description="schedule: fire with this probability on each matching step"
    )
    every: int | None = Field(None, ge=1, description="schedule: fire on every Nth matching step")
    first: int | None = Field(None, ge=1, description="schedule: fire on the first N matching steps")
    at: list[int] | None = Field(None, description="schedule: fire on these turn numbers, e.g. 2+5+9")
    seed: int = Field(0, description="varies this perturbation's random stream within a session")

    @field_validator("domains", "tools", "commands", "at", mode="before")
    @classmethod
    def _plus_list(cls, value: Any, info: ValidationInfo) -> Any:
        listed = split_list(value)
        if isinstance(value, str) and not listed:  # `tools=` would silently mean every tool
            raise ValueError(
                f"{info.field_name}= names nothing; give one or more, e.g. {info.field_name}="
                f"{_EXAMPLES.get(str(info.field_name), 'a+b')}, or leave the option out to match every step"
            )
        return listed

    @field_validator("match")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"match={value!r} is not a valid regular expression ({exc})") from None
        return value

    @field_validator("turns")
    @classmethod
    def _turns(cls, value: str | None) -> str | None:
        if value is not None:
            parse_turns(str(value))
        return value

    @field_validator("at")
    @classmethod
    def _turn_numbers(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and any(t < 1 for t in value):
            raise ValueError("turn numbers count from 1")
        return value

    @model_validator(mode="after")
    def _one_schedule(self) -> TargetOptions:
        given = [k for k in ("rate", "every", "first", "at") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"{' and '.join(given)} are both schedules; give one of rate, every, first or at "
                "(none: every matching step)"
            )
        return self

    def target(self) -> Target:
        return Target(
            domains=list(self.domains),
            tools=list(self.tools),
            commands=list(self.commands),
            match=re.compile(self.match) if self.match is not None else None,
            turns=parse_turns(self.turns) if self.turns is not None else None,
        )

    def schedule(self) -> Schedule:
        return Schedule(
            rate=self.rate,
            every=self.every,
            first=self.first,
            at=frozenset(self.at) if self.at is not None else None,
        )


def _clean_message(msg: str) -> str:
    return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def options_help(options: type[PerturbationOptions]) -> list[tuple[str, str]]:
    """``(name, description)`` of each option, in declaration order."""
    return [(name, info.description or "") for name, info in options.model_fields.items()]


def build_options(
    name: str, options: type[PerturbationOptions], given: dict[str, Any], example: str = ""
) -> Any:
    """Validate ``given`` against ``options``; a :class:`ConfigError` names the bad key and the fix."""
    try:
        return options.model_validate(given)
    except ValidationError as exc:
        known = list(options.model_fields)
        errors = exc.errors(include_url=False)
        unknown = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden" and e["loc"]]
        if unknown:
            key = unknown[0]
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            guess = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(
                f"Unknown option {key!r} for perturbation {name!r}",
                hint=f"{guess}{name} takes: {', '.join(known)}" + (f" (e.g. {example})" if example else ""),
            ) from None
        err = errors[0]
        key = ".".join(str(p) for p in err["loc"][:1])
        message = _clean_message(err["msg"])
        if key:
            description = options.model_fields[key].description or ""
            shown = f"{key}={err['input']!r}"
            if not message.startswith(shown):
                message = f"{shown}: {message}"
            raise ConfigError(
                f"Invalid option for perturbation {name!r}: {message}",
                hint=f"{name} option {key}: {description}" if description else f"fix {key}",
            ) from None
        raise ConfigError(
            f"Invalid options for perturbation {name!r}: {message}",
            hint=f"{name} takes: {', '.join(known)}" + (f" (e.g. {example})" if example else ""),
        ) from None


class Perturbation:
    """Base class of the built-in perturbations: ``Perturbation(**options)``.

    Options may be given as Python values or as the strings of a ``name:key=value`` spec (lists
    joined with ``+``); they are validated at once, so a bad value fails when the perturbation is
    configured, not in the middle of a run.
    """

    name: ClassVar[str] = ""
    Options: ClassVar[type[PerturbationOptions]] = PerturbationOptions
    #: a spec string shown in error hints and ``agentworld perturbations``
    example: ClassVar[str] = ""

    def __init__(self, **options: Any) -> None:
        self.options = build_options(self.name, self.Options, options, self.example)
        dump = json.dumps(self.options.model_dump(mode="json"), sort_keys=True)
        #: names this perturbation's state in ``session.state``; equal options share it
        self.key = f"{self.name}:{hashlib.blake2b(dump.encode(), digest_size=4).hexdigest()}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec()}>"

    def spec(self) -> str:
        """The perturbation as a ``name:key=value,...`` string (options that differ from defaults)."""
        parts = []
        for key, value in self.options.model_dump(mode="json", exclude_defaults=True).items():
            if isinstance(value, list):
                value = "+".join(str(v) for v in value)
            parts.append(f"{key}={value}")
        return self.name + (":" + ",".join(parts) if parts else "")

    # -- per-session state -------------------------------------------------------------------------

    def state(self, session: Session) -> dict[str, Any]:
        """This perturbation's JSON-safe scratch space in ``session``."""
        store = session.state.setdefault(METADATA_KEY, {})
        found: dict[str, Any] = store.setdefault(self.key, {})
        return found

    def entry(self, session: Session, **fields: Any) -> dict[str, Any]:
        """A provenance entry: ``{"name", "turn", ...fields}``."""
        return {"name": self.name, "turn": session.turn_number, **fields}

    @staticmethod
    def record(observation: Observation, entry: dict[str, Any], **update: Any) -> Observation:
        """A copy of ``observation`` with ``entry`` appended to ``metadata["perturbations"]``."""
        listed = [*observation.metadata.get(METADATA_KEY, []), entry]
        metadata = {**observation.metadata, METADATA_KEY: listed}
        return observation.model_copy(update={**update, "metadata": metadata})


class TargetedPerturbation(Perturbation):
    """A perturbation that fires on some steps: targeting, a schedule and a random stream.

    Subclasses call :meth:`fires` where they act and :meth:`count` from ``after_observation``
    (which runs for every step, also those another plugin answered), so ``every`` and ``first``
    count matching steps exactly once.
    """

    Options: ClassVar[type[PerturbationOptions]] = TargetOptions
    #: whether actions that change nothing (wait, done) are left alone
    skip_inert: ClassVar[bool] = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts: TargetOptions = self.options
        self.target = opts.target()
        self.schedule = opts.schedule()

    def random(self, session: Session) -> SessionRandom:
        return SessionRandom.for_session(session, f"{self.name}:{self.options.seed}")

    def view(self, session: Session, action: Any) -> ActionView:
        return describe_action(session.domain.name, action)

    def matches(self, session: Session, view: ActionView) -> bool:
        if self.skip_inert and view.inert:
            return False
        return self.target.matches(view, session.turn_number)

    def fires(self, session: Session, view: ActionView) -> bool:
        """Whether this step is perturbed (the same answer however often it is asked in a step)."""
        if not self.matches(session, view):
            return False
        state = self.state(session)
        number = int(state.get("matched", 0)) + 1
        if state.get("counted_turn") == session.turn_number:
            number -= 1  # this turn again (a front's corrective retry): the number it had
        return self.schedule.fires(self.random(session), session.turn_number, number)

    def count(self, session: Session, view: ActionView) -> None:
        """Count this step as a matching one (call once per step, at its end). A turn stepped again
        (the MCP server's outputSchema retry replaces the rejected answer) is counted once."""
        if self.matches(session, view):
            state = self.state(session)
            if state.get("counted_turn") == session.turn_number:
                return
            state["matched"] = int(state.get("matched", 0)) + 1
            state["counted_turn"] = session.turn_number

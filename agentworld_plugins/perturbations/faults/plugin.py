"""The ``faults`` perturbation: draws a kind per matching step and answers or damages it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from ...hookspecs import hookimpl
from ...notices import say
from ..base import TargetedPerturbation, TargetOptions, split_list
from ..targeting import split_command
from .bash import fault_applies
from .core import ERROR_KINDS, KINDS, OUTPUT_KINDS, FaultContext, FaultKind
from .outputs import degrade
from .render import render_error

if TYPE_CHECKING:
    from ...session import Observation, Session


class FaultOptions(TargetOptions):
    kinds: list[FaultKind] = Field(
        default_factory=lambda: list(ERROR_KINDS),  # type: ignore[arg-type]
        description="fault kinds to draw from, e.g. permission_denied+timeout (default: the six error "
        f"kinds; all: {', '.join(KINDS)})",
    )
    retry_after: int = Field(30, ge=0, description="the seconds a rate_limit error asks the agent to wait")
    timeout_s: int = Field(30, ge=1, description="the seconds a timeout error says it waited")
    keep: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="the fraction truncated_output keeps (default: 30-70%, drawn per step)",
    )

    @field_validator("kinds", mode="before")
    @classmethod
    def _kinds(cls, value: Any) -> Any:
        value = split_list(value)
        if value == ["all"]:
            return list(KINDS)
        if isinstance(value, list) and not value:
            raise ValueError(f"give at least one kind: {', '.join(KINDS)}")
        return value


class Faults(TargetedPerturbation):
    """Injects realistic failures on matching steps; see the module docstring for the kinds."""

    name = "faults"
    Options = FaultOptions
    example = "faults:rate=0.3,kinds=permission_denied+timeout,tools=write_*"

    def _kind(self, session: Session) -> str:
        kinds: list[str] = list(self.options.kinds)
        return self.random(session).rng(session.turn_number, "kind").choice(kinds)

    @staticmethod
    def previous(session: Session) -> str:
        """What the agent saw last: the last observation, else the initial state."""
        if session.trajectory.turns:
            return session.trajectory.turns[-1].observation.text
        state = session.context.get("initial_state")
        return "" if state is None else str(state)

    @hookimpl
    def before_step(self, session: Session, action: Any) -> Observation | None:
        from ...session import Observation

        view = self.view(session, action)
        if not self.fires(session, view):
            return None
        kind = self._kind(session)
        if kind in OUTPUT_KINDS:
            self.state(session)["pending"] = {"turn": session.turn_number, "kind": kind}
            return None
        opts: FaultOptions = self.options
        focus = self.target.focus(view)
        program = split_command(focus or view.command)[0] if view.programs else ""
        if program and not fault_applies(kind, program):  # echo cannot be rate limited
            usable = [k for k in opts.kinds if fault_applies(k, program)]
            if not usable:
                self.state(session)["unapplied"] = {
                    "turn": session.turn_number,
                    "warning": f"the faults perturbation did not inject {kind} into `{program}`: it "
                    "makes no network request, so it cannot fail that way; the step ran unperturbed "
                    "(give kinds it can suffer, e.g. permission_denied+not_found+timeout, or tools=curl+git)",
                }
                return None
            kind = self.random(session).rng(session.turn_number, "local kind").choice(usable)
            if kind in OUTPUT_KINDS:
                self.state(session)["pending"] = {"turn": session.turn_number, "kind": kind}
                return None
        ctx = FaultContext(
            session.domain.name,
            replace(view, focus=focus),
            self.previous(session),
            opts.retry_after,
            opts.timeout_s,
        )
        entry = self.entry(session, kind=kind, tool=view.tool, replaced=True)
        if view.programs and view.tool not in view.programs:  # a shell tool: which program failed
            entry["program"] = split_command(focus or view.command)[0]
        return Observation(
            text=render_error(kind, ctx),
            is_error=True,
            metadata={
                "turn": session.turn_number,
                "session_id": session.id,
                "perturbations": [entry],
            },
        )

    @hookimpl
    def after_observation(
        self, session: Session, action: Any, observation: Observation
    ) -> Observation | None:
        view = self.view(session, action)
        self.count(session, view)
        unapplied = self.state(session).pop("unapplied", None)
        if unapplied and unapplied.get("turn") == session.turn_number:
            warning = str(unapplied["warning"])
            say(warning)
            warnings = [*observation.metadata.get("warnings", []), warning]
            return observation.model_copy(update={"metadata": {**observation.metadata, "warnings": warnings}})
        pending = self.state(session).pop("pending", None)
        if not pending or pending.get("turn") != session.turn_number:
            return None
        kind = pending["kind"]
        keep = self.options.keep
        if keep is None:
            keep = 0.3 + 0.4 * self.random(session).uniform(session.turn_number, "keep")
        text = degrade(kind, session.domain.name, view, observation.text, keep)
        is_error = observation.is_error
        if kind == "empty_result":
            is_error = session.domain.is_error(text, action)
        entry = self.entry(session, kind=kind, tool=view.tool, replaced=False)
        if kind == "truncated_output":
            entry["kept"] = round(keep, 3)
        return self.record(observation, entry, text=text, is_error=is_error)

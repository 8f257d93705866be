"""``control``: free-text control instructions for the world model (model-level perturbation).

The world model was trained to follow control instructions that shape what it simulates ("the
next write fails with a disk-full error", "the API is being migrated and answers slowly").
``placement=system`` (the default) adds them to the system prompt for the whole session;
``placement=turn`` appends them to the turn prompt of the matching steps only (with the usual
targeting and schedule options), leaving the history untouched so prefix caching still works.

>>> Control(text="Every write to /etc fails with EROFS.").spec()
'control:text=Every write to /etc fails with EROFS.'
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from ..hookspecs import hookimpl, leaves_messages
from ..notices import say
from ..turns import turn_section
from .base import TargetedPerturbation, TargetOptions

if TYPE_CHECKING:
    from ..session import Observation, Session

#: options that only make sense when the text goes into chosen turns
_TURN_ONLY = ("tools", "commands", "match", "turns", "rate", "every", "first", "at")


def read_text_option(name: str, text: str | None, file: str | None, what: str) -> str:
    """The text of a ``text=``/``file=`` pair; exactly one must be given and the file readable."""
    if (text is None) == (file is None):
        raise ValueError(f"give {what} as text=... or file=PATH (exactly one of them)")
    if file is not None:
        path = Path(file).expanduser()
        try:
            body = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(
                f"file={file!r} cannot be read ({exc.strerror or exc}); give a readable file"
            ) from None
        except UnicodeDecodeError:
            raise ValueError(f"file={file!r} is not UTF-8 text") from None
    else:
        body = str(text)
    if not body.strip():
        raise ValueError(f"{what} is empty; give some text")
    return body.strip()


class PromptOptions(TargetOptions):
    """Options of the perturbations that add text to what the world model is asked."""

    placement: Literal["system", "turn"] = Field(
        "system", description="system: the system prompt, whole session; turn: the matching turn prompts"
    )

    @model_validator(mode="after")
    def _turn_options(self) -> PromptOptions:
        if self.placement == "system":
            given = [k for k in _TURN_ONLY if getattr(self, k) not in (None, [])]
            if given:
                raise ValueError(
                    f"{', '.join(given)} choose turns, which needs placement=turn "
                    "(the system prompt is the same for every turn)"
                )
        return self


class PromptPerturbation(TargetedPerturbation):
    """Base of ``control``, ``fictional_world`` and ``adversarial``: a text section added to the
    system prompt, or to matching turn prompts."""

    Options: ClassVar[Any] = PromptOptions
    skip_inert = False
    #: the section heading in the system prompt, e.g. ``## Control Instructions``
    heading: ClassVar[str] = ""
    #: the label of the text in a turn prompt (``**Control Instruction:**``), one of
    #: :data:`~agentworld_plugins.turns.TURN_SECTION_LABELS`
    turn_label: ClassVar[str] = ""

    def body(self) -> str:
        """The text this perturbation adds."""
        raise NotImplementedError

    def system_section(self) -> str:
        return f"{self.heading}\n{self.body()}"

    def turn_section(self) -> str:
        return turn_section(self.turn_label, self.body())

    def applies_to(self, session: Session) -> bool:
        return self.target.domain_matches(session.domain.name)

    def prepare(self, session: Session) -> None:
        """Called once when the session is created, before the prompt is changed."""

    @hookimpl
    def prepare_system_prompt(self, session: Session, prompt: str) -> str | None:
        if not self.applies_to(session):
            return None
        self.prepare(session)
        if self.options.placement != "system":
            return None
        self.state(session)["system"] = True
        return f"{prompt.rstrip()}\n\n{self.system_section()}\n"

    @hookimpl
    def before_step(self, session: Session, action: Any) -> None:
        state = self.state(session)
        if self.options.placement == "turn" and self.fires(session, self.view(session, action)):
            state["fire"] = session.turn_number
        return None

    @hookimpl
    @leaves_messages
    def transform_messages(
        self, session: Session, messages: list[dict[str, Any]]
    ) -> list[dict[str, Any]] | None:
        state = self.state(session)
        turn = session.turn_number
        if state.get("system"):
            state["applied"] = turn
            return None
        if state.get("fire") != turn or not messages:
            return None
        state["applied"] = turn
        last = messages[-1]
        content = f"{str(last.get('content') or '').rstrip()}{self.turn_section()}"
        return [*messages[:-1], {**last, "content": content}]

    @hookimpl
    def after_observation(
        self, session: Session, action: Any, observation: Observation
    ) -> Observation | None:
        self.count(session, self.view(session, action))
        state = self.state(session)
        turn = session.turn_number
        applied = state.pop("applied", None) == turn
        fired = state.pop("fire", None) == turn
        # due this turn: sent with every prompt (system), or fired (turn); a step another
        # perturbation answered (a fault) sent no prompt, so nothing was due
        due = self.applies_to(session) and (self.options.placement == "system" or fired)
        if observation.metadata.get("short_circuit"):
            due = False
        offline = bool(observation.metadata.get("offline"))
        if offline and self.works_offline(session) and due:
            applied = True  # the offline world honours it without a prompt (a search world's bible)
        if offline and not self.works_offline(session) and (applied or due):
            return self._warn(
                observation,
                f"the {self.name} perturbation needs a world model: the offline world does not read "
                "prompts, so it was not applied (set AGENTWORLD_BASE_URL or pass --base-url)",
            )
        if applied:
            return self.record(observation, self.entry(session, placement=self.options.placement))
        if due and not self.works_offline(session):  # this front stepped without a prompt
            return self._warn(
                observation,
                f"the {self.name} perturbation was not applied: this step reached the world without "
                "a world-model prompt to carry it",
            )
        return None

    @staticmethod
    def _warn(observation: Observation, warning: str) -> Observation:
        say(warning)  # on the console of whichever front runs the session, once
        warnings = [*observation.metadata.get("warnings", []), warning]
        return observation.model_copy(update={"metadata": {**observation.metadata, "warnings": warnings}})

    def works_offline(self, session: Session) -> bool:
        """Whether the offline world honours this perturbation in ``session`` (it reads no prompt)."""
        return False


class ControlOptions(PromptOptions):
    text: str | None = Field(None, description="the control instruction, free text")
    file: str | None = Field(None, description="a file holding the control instruction (instead of text)")

    @model_validator(mode="after")
    def _text(self) -> ControlOptions:
        read_text_option("control", self.text, self.file, "the control instruction")
        return self


class Control(PromptPerturbation):
    """Free-text instructions to the world model, in the system prompt or in chosen turns."""

    name = "control"
    Options = ControlOptions
    example = "control:text=The disk is almost full: writes over 1 MB fail with ENOSPC."
    heading = (
        "## Control Instructions\n"
        "The operator of this simulation gives the instructions below. Follow them for the whole "
        "session; they take precedence over the usual behaviour described above, but every output "
        "keeps the format required above and stays realistic.\n"
    )
    turn_label = "Control Instruction"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._body = read_text_option(
            "control", self.options.text, self.options.file, "the control instruction"
        )

    def body(self) -> str:
        return self._body

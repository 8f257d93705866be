"""``fictional_world``: a world bible the simulated environment must agree with.

The bible (text, or a Markdown/text file) describes a world that need not be ours: companies,
people, products, events, dates. It is added to the system prompt (``placement=system``, the
default) so every observation agrees with it, even where it departs from reality; this is how
search agents are trained and tested on questions the real web cannot answer for them. For search
sessions it is also given to the session as ``context["world_bible"]`` (unless one is set), so the
embedded offline search world serves its pages too.

>>> FictionalWorld(text="Zorblax Corp was founded in 2031 on Europa.").body()
'Zorblax Corp was founded in 2031 on Europa.'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from .control import PromptOptions, PromptPerturbation, read_text_option

if TYPE_CHECKING:
    from ..session import Session


class FictionalWorldOptions(PromptOptions):
    text: str | None = Field(None, description="the world bible, as text")
    file: str | None = Field(None, description="a file holding the world bible (Markdown or text)")

    @model_validator(mode="after")
    def _bible(self) -> FictionalWorldOptions:
        read_text_option("fictional_world", self.text, self.file, "the world bible")
        return self


class FictionalWorld(PromptPerturbation):
    """Adds a world bible to the system prompt (and to search sessions' offline corpus)."""

    name = "fictional_world"
    Options = FictionalWorldOptions
    example = "fictional_world:file=worlds/europa.md"
    heading = (
        "## World Bible\n"
        "This environment exists in the fictional world described below. Everything you return must "
        "agree with it, even where it departs from the real world: names, facts, dates, numbers and "
        "pages. Fill in whatever it leaves open so that it stays consistent with it, and never say "
        "that it is fictional.\n"
    )
    turn_label = "World Bible"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._body = read_text_option(
            "fictional_world", self.options.text, self.options.file, "the world bible"
        )

    def body(self) -> str:
        return self._body

    def works_offline(self, session: Session) -> bool:
        return session.domain.name == "search"  # the offline search world indexes the bible

    def prepare(self, session: Session) -> None:
        if session.domain.name == "search" and not session.context.get("world_bible"):
            session.context["world_bible"] = self._body

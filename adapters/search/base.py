"""The base of the simulated search tools: a LangChain tool whose work is a flow on a session group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, Field

from .._world import SessionGroup
from .flows import Flow, arun_flow, run_flow


class _SearchTool(BaseTool):
    """A search tool bound to a :class:`SessionGroup` (built from ``world``/``session`` when absent)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    handle_tool_error: bool | str | Callable[[ToolException], str] | None = True
    group: Any = Field(default=None, exclude=True, description="The shared SessionGroup.")
    world: Any = Field(default=None, exclude=True, description="The World (default: World()).")
    session: Any = Field(default=None, exclude=True, description="A search Session to use.")
    world_bible: Any = Field(default=None, exclude=True, description="Facts results must agree with.")
    corpus: Any = Field(default=None, exclude=True, description="Offline corpus folder or pages.")

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if self.group is None:
            self.group = SessionGroup(
                self.world, session=self.session, world_bible=self.world_bible, corpus=self.corpus
            )

    #: fields of the real tool that configure it, copied by :meth:`options_from`
    option_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def options_from(cls, tool: Any) -> dict[str, Any]:
        """The configuration of a real tool of this kind, as keyword arguments for ``cls``."""
        return {f: getattr(tool, f) for f in cls.option_fields if getattr(tool, f, None) is not None}

    def flow(self, arguments: dict[str, Any]) -> Flow:
        """The tool's work for one call as a flow of search actions."""
        raise NotImplementedError

    def call(self, arguments: dict[str, Any]) -> Any:
        return run_flow(self.flow(arguments), self.group)

    async def acall(self, arguments: dict[str, Any]) -> Any:
        return await arun_flow(self.flow(arguments), self.group)

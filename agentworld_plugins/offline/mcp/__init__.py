"""The offline MCP world: tool calls answered deterministically, without a model.

A session keeps a small ledger in its ``state`` so that CRUD-style tools stay consistent: what
``create_issue`` made, ``get_issue`` returns, ``list_issues`` lists, ``update_issue`` changes and
``delete_issue`` removes. Tools are classified by the verb and noun in their name. Results obey
the tool's ``outputSchema`` when it has one: ledger data is laid over values generated with jsf
(seeded from the call, so the same calls give the same answers), then checked with jsonschema and
repaired until they validate. Argument errors read like FastMCP's pydantic errors.

Modules: :mod:`.naming` (what a tool's name says), :mod:`.schema` and :mod:`.document` (JSON
Schema reading, checking and repair), :mod:`.fakes` (deterministic values, jsf), :mod:`.ledger`
(the session's resources), :mod:`.resources` (the resources a tool set acts on, before any call),
:mod:`.shaping` (results fitted to ``outputSchema``), :mod:`.servers` (known reference servers,
answered as they answer: ``server-memory``'s knowledge graph), :mod:`.world` (the step).

>>> state: dict = {}
>>> tools = [{"name": "create_note", "inputSchema": {"type": "object",
...           "properties": {"text": {"type": "string"}}, "required": ["text"]}}]
>>> print(mcp_step(state, "create_note", {"text": "hi"}, {"tools": tools}).text)
{
  "id": 1,
  "text": "hi"
}
"""

from __future__ import annotations

from ...tool_arguments import check_arguments
from .classify import FAMILIES, family_of
from .naming import classify_tool
from .resources import known_resources
from .world import STATE_KEY, mcp_step

__all__ = [
    "FAMILIES",
    "STATE_KEY",
    "check_arguments",
    "classify_tool",
    "family_of",
    "known_resources",
    "mcp_step",
]

"""A small agent that retries failed tool calls, run against the offline MCP world with faults.

Run it offline (no model, no key, about a second):

    python examples/perturbations/retrying_agent.py

It plays the same seeded episode twice to show the run is reproducible, prints each observation
with the perturbations recorded in its metadata, writes the trajectory with provenance to
``chaos-run.jsonl`` and prints the scorecard (``agentworld report chaos-run.jsonl`` prints the
same).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agentworld_plugins import Session, World
from agentworld_plugins.demo import NOTES_TOOLS
from agentworld_plugins.perturbations import Faults, Latency, PromptInjection, scorecard
from agentworld_plugins.perturbations.report import turns_of, write_jsonl

PLAN: list[dict[str, Any]] = [
    {"tool_name": "create_note", "arguments": {"title": "groceries", "body": "milk, eggs"}},
    {"tool_name": "create_note", "arguments": {"title": "ideas"}},
    {"tool_name": "list_notes", "arguments": {}},
    {"tool_name": "delete_note", "arguments": {"id": "note_1"}},
    {"tool_name": "list_notes", "arguments": {}},
]
MAX_TRIES = 3


def play(session: Session, quiet: bool = False) -> list[int]:
    """Runs the plan, retrying each failed call up to MAX_TRIES times; returns the faulted turns."""
    faulted = []
    for action in PLAN:
        for attempt in range(1, MAX_TRIES + 1):
            observation = session.step(action)
            injected = observation.metadata.get("perturbations", [])
            if any(entry["name"] == "faults" for entry in injected):
                faulted.append(observation.metadata["turn"])
            if not quiet:
                names = ", ".join(e["name"] + (f"={e['kind']}" if "kind" in e else "") for e in injected)
                print(
                    f"turn {observation.metadata['turn']}: {action['tool_name']} (try {attempt})  [{names or 'clean'}]"
                )
                first_line = observation.text.strip().splitlines()[0] if observation.text.strip() else ""
                print(f"   {first_line[:100]}")
            if not observation.is_error:
                break
    return faulted


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("chaos-run.jsonl")
    perturbations = [
        Faults(rate=0.4, kinds="rate_limit+timeout+server_error", tools="create_*+delete_*"),
        PromptInjection(tools="list_*", first=1, position="end"),
        Latency(distribution="uniform", min_ms=5, max_ms=20),
    ]
    world = World(backend="offline", perturbations=perturbations)
    session = world.session("mcp", tools=NOTES_TOOLS, seed=16, session_id="retrying-agent")
    faulted = play(session)
    again = play(world.session("mcp", tools=NOTES_TOOLS, seed=16), quiet=True)
    print(f"\nfaulted turns: {faulted}; same seed again: {again} (reproducible: {faulted == again})")
    write_jsonl(session.trajectory, out, append=False)
    print(f"trajectory with provenance written to {out}\n")
    print(scorecard([turns_of(session.trajectory)]).render())


if __name__ == "__main__":
    main()

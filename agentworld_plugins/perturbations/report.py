"""The perturbation scorecard: what was injected, and what the agent did about it.

For every injected fault: its kind and tool, what the agent did next (``retried`` the identical
call, ``adjusted`` the same tool's arguments, ``changed_approach`` to another tool, or
``gave_up``: the episode ended or the agent declared it done), and the steps until the next
observation that is not an error. Separately, loops: the same action repeated ``loop_threshold``
or more times in a row, injected or not.

It reads :class:`~agentworld_plugins.Trajectory` objects, or JSONL files: trajectory records that
carry each turn's provenance in a ``perturbations`` list (as :meth:`Trajectory.to_jsonl`, the MCP
server's ``--record`` and ``agentworld shell export`` write them), and ``bench infer`` / ``bench
judge`` output, whose lines list it in ``infer.perturbations``. A bench line is one predicted turn
that no agent saw, so its faults are counted without a reaction or loops. Anything else (chat-form
trajectories, a file that is not UTF-8 JSONL) is refused with the reason::

    agentworld report run.jsonl
    agentworld report run.jsonl --json
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AgentWorldError
from ..files import iter_jsonl
from ..turns import extract_action
from .base import METADATA_KEY
from .targeting import describe_action

#: reactions to a fault, in the order the scorecard shows them
REACTIONS = ("retried", "adjusted", "changed_approach", "gave_up")
#: the reaction of a fault on a turn no agent acted on (a bench prediction)
UNOBSERVED = "not_observed"
_WAITS = {"wait", "WAIT", "noop"}


@dataclass
class TurnInfo:
    """One turn as the scorecard needs it."""

    session_id: str
    domain: str
    number: int
    action: Any
    is_error: bool
    perturbations: list[dict[str, Any]] = field(default_factory=list)
    #: False for a turn no agent acted on afterwards (a ``bench infer`` prediction)
    observed: bool = True
    #: what a guarded backend's consistency guard found on the turn (docs/guard.md), if it ran
    guard: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        return json.dumps(self.action, sort_keys=True, ensure_ascii=False)

    @property
    def tool(self) -> str:
        try:
            return describe_action(self.domain, self.action).tool
        except Exception:
            return ""

    @property
    def final(self) -> bool:
        """Whether the action ends the episode (done, give up, an answer)."""
        try:
            view = describe_action(self.domain, self.action)
        except Exception:
            return False
        return view.inert and view.tool not in _WAITS


@dataclass
class FaultOutcome:
    session_id: str
    turn: int
    kind: str
    tool: str
    reaction: str
    steps_to_recovery: int | None


@dataclass
class Loop:
    session_id: str
    first_turn: int
    last_turn: int
    repeats: int
    tool: str
    action: str


@dataclass
class Scorecard:
    sessions: int = 0
    turns: int = 0
    #: bench infer lines read: single predicted turns, without an agent's reaction
    predictions: int = 0
    faults: list[FaultOutcome] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    other: Counter[str] = field(default_factory=Counter)
    #: the consistency guard's counts: steps checked, contradicted, by outcome and by kind
    guard: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        recovered = [f.steps_to_recovery for f in self.faults if f.steps_to_recovery is not None]
        observed = [f for f in self.faults if f.reaction != UNOBSERVED]
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "predictions": self.predictions,
            "faults_injected": len(self.faults),
            "faults_by_kind": dict(Counter(f.kind for f in self.faults).most_common()),
            "faults_by_tool": dict(Counter(f.tool for f in self.faults).most_common()),
            "reactions": {r: sum(f.reaction == r for f in self.faults) for r in REACTIONS},
            UNOBSERVED: len(self.faults) - len(observed),
            "steps_to_recovery": {
                "mean": round(sum(recovered) / len(recovered), 3) if recovered else None,
                "max": max(recovered) if recovered else None,
                "not_recovered": sum(f.steps_to_recovery is None for f in observed),
            },
            "loops": [asdict(loop) for loop in self.loops],
            "other_perturbations": dict(self.other.most_common()),
            "faults": [asdict(f) for f in self.faults],
            "guard": dict(sorted(self.guard.items())),
        }

    def render(self) -> str:
        data = self.to_dict()

        def listing(counts: dict[str, int]) -> str:
            return ", ".join(f"{k or '(none)'} {v}" for k, v in counts.items()) or "none"

        read = f"{self.sessions} session(s), {self.turns} turn(s)"
        if self.predictions:
            read += f", {self.predictions} bench prediction(s)"
        lines = [
            f"Perturbation scorecard: {read}",
            f"Faults injected: {len(self.faults)}",
            f"  by kind: {listing(data['faults_by_kind'])}",
            f"  by tool: {listing(data['faults_by_tool'])}",
            f"What the agent did next: {listing(data['reactions'])}",
        ]
        if data[UNOBSERVED]:
            lines.append(f"  not observed: {data[UNOBSERVED]} (bench predictions: no agent acted on them)")
        rec = data["steps_to_recovery"]
        if any(f.reaction != UNOBSERVED for f in self.faults):
            mean = "n/a" if rec["mean"] is None else rec["mean"]
            lines.append(
                f"Steps to recovery: mean {mean}, max {rec['max'] or 'n/a'}, not recovered {rec['not_recovered']}"
            )
        lines.append(f"Loops (the same action repeated in a row): {len(self.loops)}")
        for loop in self.loops:
            lines.append(
                f"  session {loop.session_id} turns {loop.first_turn}-{loop.last_turn}: "
                f"{loop.tool or 'action'} x{loop.repeats}: {loop.action[:80]}"
            )
        if self.other:
            lines.append(f"Other perturbations: {listing(dict(self.other.most_common()))}")
        if self.guard:
            outcomes = {k: v for k, v in self.guard.items() if k.startswith("outcome:")}
            kinds = {k[5:]: v for k, v in self.guard.items() if k.startswith("kind:")}
            lines.append(
                f"Consistency guard: {self.guard['checked']} step(s) checked, {self.guard['contradicted']} "
                f"contradicted ({listing({k[8:]: v for k, v in outcomes.items()})}); by kind: {listing(kinds)}"
            )
        return "\n".join(lines)


def _count_guard(card: Scorecard, event: dict[str, Any] | None) -> None:
    if not isinstance(event, dict):
        return
    card.guard["guarded"] += 1
    card.guard["checked"] += bool(event.get("checked"))
    found = event.get("contradictions") or []
    if found:
        card.guard["contradicted"] += 1
        card.guard[f"outcome:{event.get('outcome')}"] += 1
        for item in found:
            card.guard[f"kind:{item.get('kind') if isinstance(item, dict) else '?'}"] += 1


def _reaction(fault: TurnInfo, following: TurnInfo | None) -> str:
    if following is None or following.final:
        return "gave_up"
    if following.key == fault.key:
        return "retried"
    if following.tool and following.tool == fault.tool:
        return "adjusted"
    return "changed_approach"


def _loops(turns: list[TurnInfo], threshold: int) -> list[Loop]:
    found: list[Loop] = []
    start = 0
    for i in range(1, len(turns) + 1):
        if i < len(turns) and turns[i].key == turns[start].key:
            continue
        run = i - start
        if run >= threshold and not turns[start].final:
            first = turns[start]
            found.append(
                Loop(first.session_id, first.number, turns[i - 1].number, run, first.tool, first.key)
            )
        start = i
    return found


def scorecard(sessions: Iterable[list[TurnInfo]], *, loop_threshold: int = 3) -> Scorecard:
    """The scorecard of sessions given as ordered lists of :class:`TurnInfo`."""
    card = Scorecard()
    for turns in sessions:
        turns = sorted(turns, key=lambda t: t.number)
        if not turns:
            continue
        observed = [t for t in turns if t.observed]
        card.predictions += len(turns) - len(observed)
        for turn in turns:
            _count_guard(card, turn.guard)
        if observed:
            card.sessions += 1
            card.turns += len(observed)
        for i, turn in enumerate(turns):
            for entry in turn.perturbations:
                name = str(entry.get("name", ""))
                if name != "faults":
                    card.other[name] += 1
                    continue
                if turn.observed:
                    following = turns[i + 1] if i + 1 < len(turns) else None
                    reaction = _reaction(turn, following)
                    recovery = next((j - i for j in range(i + 1, len(turns)) if not turns[j].is_error), None)
                else:
                    reaction, recovery = UNOBSERVED, None
                card.faults.append(
                    FaultOutcome(
                        turn.session_id,
                        turn.number,
                        str(entry.get("kind", "")),
                        str(entry.get("tool") or turn.tool),
                        reaction,
                        recovery,
                    )
                )
        card.loops.extend(_loops(observed, loop_threshold))
    return card


def turns_of(trajectory: Any) -> list[TurnInfo]:
    """:class:`TurnInfo` for each turn of a :class:`~agentworld_plugins.Trajectory`."""
    return [
        TurnInfo(
            trajectory.session_id,
            trajectory.domain,
            turn.number,
            turn.action,
            turn.observation.is_error,
            list(turn.observation.metadata.get(METADATA_KEY, [])),
            guard=turn.observation.metadata.get("guard"),
        )
        for turn in trajectory.turns
    ]


def write_jsonl(trajectory: Any, path: str | Path, *, append: bool = True) -> Path:
    """Append (or write) the trajectory's records, which carry each turn's ``perturbations``."""
    return trajectory.to_jsonl(path, append=append)


def _refusal(path: str | Path, lineno: int, row: Any) -> str:
    where = f"{path}:{lineno}"
    if isinstance(row, dict) and "messages" in row:
        return (
            f"{where} is a chat-form trajectory (one `messages` list) without `world_turns`, which does "
            "not keep which turns were perturbed; report reads trajectory records (Trajectory.to_jsonl(path), "
            "`agentworld shell export --form records`, `mcp serve --record`), `rollout run` episodes "
            "and bench infer output"
        )
    if isinstance(row, dict) and "turn_idx" in row:
        return (
            f"{where} is a benchmark record without an action or predictions (no `action`, no `infer`); "
            "report reads trajectory records and bench infer output"
        )
    shown = type(row).__name__ if not isinstance(row, dict) else "an object without `turn_idx`"
    return (
        f"{where} is {shown}, not a trajectory record or a bench infer line; report reads trajectory "
        "records (Trajectory.to_jsonl) and bench infer / judge output"
    )


def _bench_turn(row: dict[str, Any], domain: str) -> TurnInfo:
    """A ``bench infer`` line: one predicted turn, its faults under ``infer.perturbations``."""
    infer = row["infer"]
    listed = list(infer.get(METADATA_KEY) or [])
    found = extract_action(str(row.get("current_prompt") or ""))
    action: Any = None
    if found is not None:
        try:
            action = json.loads(found[1])
        except (TypeError, ValueError):
            action = found[1]
    replaced = any(e.get("name") == "faults" and e.get("replaced") for e in listed)
    name = f"{row.get('id')}#{row.get('turn_idx')}"
    guard = infer.get("guard")
    return TurnInfo(name, domain, int(row["turn_idx"]), action, replaced, listed, observed=False, guard=guard)


def _rollout_turns(row: dict[str, Any], domain: str) -> list[TurnInfo]:
    """The world steps of a ``rollout run`` episode line (its ``world_turns``)."""
    turns: list[TurnInfo] = []
    for step in row["world_turns"]:
        if not isinstance(step, dict):
            continue
        try:
            action = json.loads(str(step.get("action")))
            listed = json.loads(str(step.get("perturbations") or "[]"))
        except ValueError:
            action, listed = step.get("action"), []
        session = str(row.get("id"))
        number = int(step.get("turn") or len(turns) + 1)
        listed = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
        turns.append(TurnInfo(session, domain, number, action, bool(step.get("is_error")), listed))
    return turns


def read_jsonl(path: str | Path) -> list[list[TurnInfo]]:
    """Sessions (lists of turns) from a JSONL file of trajectory records or ``bench infer`` output.

    Raises :class:`~agentworld_plugins.errors.AgentWorldError` naming the line and the reason for
    anything else (a chat-form trajectory, a line that is not a record). A turn written twice (a
    trajectory appended again) counts once: the last line wins.
    """
    sessions: dict[str, dict[int, TurnInfo]] = {}
    hint = "give a file written by Trajectory.to_jsonl or bench infer"
    for lineno, row in iter_jsonl(path, hint=hint):
        domain = str(row.get("task", "")).rsplit("/", 1)[-1] if isinstance(row, dict) else ""
        if isinstance(row, dict) and isinstance(row.get("world_turns"), list):  # a rollout episode
            for turn in _rollout_turns(row, domain):
                sessions.setdefault(turn.session_id, {})[turn.number] = turn
            continue
        if isinstance(row, dict) and "turn_idx" in row and isinstance(row.get("infer"), dict):
            if row["infer"].get("status") != "ok":
                continue  # a failed inference: nothing was predicted, nothing injected
            turn = _bench_turn(row, domain)
        elif isinstance(row, dict) and "turn_idx" in row and ("action" in row or METADATA_KEY in row):
            listed = row.get(METADATA_KEY)
            if listed is None and isinstance(row.get("metadata"), dict):
                listed = row["metadata"].get(METADATA_KEY)
            turn = TurnInfo(
                str(row.get("id")),
                domain,
                int(row["turn_idx"]),
                row.get("action"),
                bool(row.get("is_error")),
                list(listed or []),
                guard=row.get("guard") if isinstance(row.get("guard"), dict) else None,
            )
        else:
            raise AgentWorldError(_refusal(path, lineno, row))
        sessions.setdefault(turn.session_id, {})[turn.number] = turn
    return [list(turns.values()) for turns in sessions.values()]

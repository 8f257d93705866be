"""The offline environment generator: CRUD-style MCP services from templates and a seed.

Environment ``index`` of a run with seed ``s`` is always the same (a stable hash of both picks
the business, the resources and their fields), so a resumed run regenerates nothing differently.
"""

from __future__ import annotations

import random
from typing import Any

from ..episode import derive_seed

#: (business, what it keeps) pairs the generator draws from
BUSINESSES = [
    ("greenhouse", "plant"), ("bakery", "order"), ("clinic", "appointment"), ("library", "loan"),
    ("garage", "repair"), ("studio", "booking"), ("warehouse", "shipment"), ("school", "course"),
    ("hotel", "reservation"), ("brewery", "batch"), ("kennel", "pet"), ("museum", "exhibit"),
    ("observatory", "observation"), ("orchestra", "rehearsal"), ("pharmacy", "prescription"),
    ("marina", "berth"), ("farm", "harvest"), ("gym", "membership"), ("theatre", "performance"),
    ("vineyard", "cask"), ("airline", "flight"), ("cinema", "screening"), ("florist", "bouquet"),
    ("helpdesk", "ticket"), ("lab", "sample"), ("newsroom", "story"), ("podcast", "episode"),
    ("recycler", "pickup"), ("tailor", "fitting"), ("zoo", "enclosure"),
]  # fmt: skip

#: field name -> (JSON Schema, values a task may ask for)
FIELDS: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "title": ({"type": "string", "minLength": 1}, ["North wing", "Spring batch", "Blue room", "Rush job"]),
    "owner": ({"type": "string"}, ["Ada Park", "Bo Chen", "Cleo Diaz", "Dev Iyer"]),
    "status": (
        {"type": "string", "enum": ["open", "scheduled", "done", "cancelled"]},
        ["open", "scheduled", "done"],
    ),
    "priority": ({"type": "string", "enum": ["low", "normal", "high"]}, ["low", "high"]),
    "quantity": ({"type": "integer", "minimum": 1}, [2, 5, 12]),
    "notes": ({"type": "string"}, ["fragile", "call first", "second floor"]),
    "tags": ({"type": "array", "items": {"type": "string"}}, ["urgent", "vip", "weekly"]),
    "date": ({"type": "string", "format": "date"}, ["2026-03-14", "2026-07-01"]),
}


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "ch", "sh", "x")) else "s")


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _tools(resource: str, fields: list[str]) -> list[dict[str, Any]]:
    props = {name: dict(FIELDS[name][0]) for name in fields}
    item = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, **props},
        "required": ["id", fields[0]],
    }
    id_arg = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    plural = _plural(resource)
    return [
        {
            "name": f"create_{resource}",
            "description": f"Create {_a(resource)} and return it with its new id.",
            "inputSchema": {"type": "object", "properties": props, "required": [fields[0]]},
            "outputSchema": item,
        },
        {
            "name": f"get_{resource}",
            "description": f"Return one {resource} by id.",
            "inputSchema": id_arg,
            "outputSchema": item,
        },
        {
            "name": f"list_{plural}",
            "description": f"List the {plural}, optionally filtered by any field.",
            "inputSchema": {"type": "object", "properties": {k: v for k, v in props.items() if k != "tags"}},
            "outputSchema": {
                "type": "object",
                "properties": {plural: {"type": "array", "items": item}},
                "required": [plural],
            },
        },
        {
            "name": f"update_{resource}",
            "description": f"Change fields of {_a(resource)}.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, **props},
                "required": ["id"],
            },
            "outputSchema": item,
        },
        {
            "name": f"delete_{resource}",
            "description": f"Delete {_a(resource)} by id.",
            "inputSchema": id_arg,
        },
    ]


def _task(resource: str, field: str, rnd: random.Random) -> dict[str, Any]:
    """Create one ``resource`` with ``field`` set: the instruction, its reward and a solution."""
    value = rnd.choice(FIELDS[field][1])
    title = rnd.choice(FIELDS["title"][1])
    is_list = FIELDS[field][0]["type"] == "array"
    wanted = f"whose {field} include {value!r}" if is_list else f"whose {field} is {value!r}"
    arguments = {"title": title, field: [value] if is_list else value}
    return {
        "instruction": f"Create {_a(resource)} titled '{title}' {wanted}, then tell me its id.",
        "max_turns": 4,
        "reward": [
            {
                "type": "ledger_item",
                "resource": resource,
                "where": {"title": title, field: value},
                "weight": 3,
            },
            {"type": "tool_called", "tool": f"create_{resource}"},
        ],
        # a reference solution: the scripted agent of envgen's solutions.json plays it
        "metadata": {
            "solution": [
                {"tool": f"create_{resource}", "arguments": arguments},
                {"answer": f"Created the {resource}."},
            ]
        },
    }


def offline_environment(index: int, seed: int = 0) -> dict[str, Any]:
    """Environment ``index`` of the run seeded ``seed``: tools, world bible, initial state and
    tasks with reward checks (the environment form :func:`.validate.check_environment` reads).

    The first pass over the catalogue gives one business each; later passes give a business that
    also keeps another's records (pass k pairs it with the business k places on), so about
    ``len(BUSINESSES) ** 2`` environments differ before the near-duplicate filter drops repeats.
    """
    rnd = random.Random(derive_seed("envgen", seed, index))
    order = list(range(len(BUSINESSES)))
    random.Random(derive_seed("envgen-order", seed)).shuffle(order)
    rounds, slot = divmod(index, len(order))
    business, resource = BUSINESSES[order[slot]]
    resources = [resource]
    if rounds:
        step = rounds % len(order) or 1
        resources.append(BUSINESSES[order[(slot + step) % len(order)]][1])
    town = rnd.choice(["Oakridge", "Port Liss", "Vellmar", "Hollow Creek", "Sundby"])
    name = "-".join([town.lower().replace(" ", "-"), business, *(_plural(r) for r in resources[1:])])
    if rounds >= len(order):
        name += f"-{rounds // len(order)}"
    tools: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    bible = [f"The {town} {business} keeps its {' and '.join(_plural(r) for r in resources)} in one service."]
    for kept in resources:
        fields = ["title", *rnd.sample([f for f in FIELDS if f != "title"], 3)]
        tools += _tools(kept, fields)
        bible.append(f"Every {kept} has a {fields[0]}; {', '.join(fields[1:])} are optional.")
        tasks += [_task(kept, field, rnd) for field in fields[1 : 1 + (3 - len(resources))]]
    bible.append("Ids count up from 1 for each kind of record. Deleted records are gone for good.")
    shown = " and ".join(_plural(r) for r in resources)
    return {
        "name": name,
        "description": f"Records of the {town} {business}: {shown}.",
        "world_bible": " ".join(bible),
        "initial_state": f"The {business} has no {shown} yet.",
        "tools": tools,
        "tasks": tasks,
    }

"""The offline environment generator: CRUD-style MCP services from templates and a seed.

Environment ``index`` of a run with seed ``s`` is always the same (a stable hash of both picks
the business, the resource and its fields), so a resumed run regenerates nothing differently.
Distinct indexes get distinct (business, resource) pairs until the catalogue is exhausted; the
near-duplicate filter drops whatever repeats after that.
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


def offline_environment(index: int, seed: int = 0) -> dict[str, Any]:
    """Environment ``index`` of the run seeded ``seed``: tools, world bible, initial state and
    tasks with reward checks (the environment form :func:`.validate.check_environment` reads)."""
    rnd = random.Random(derive_seed("envgen", seed, index))
    order = list(range(len(BUSINESSES)))
    random.Random(derive_seed("envgen-order", seed)).shuffle(order)
    business, resource = BUSINESSES[order[index % len(order)]]
    fields = ["title", *rnd.sample([f for f in FIELDS if f != "title"], 3)]
    town = rnd.choice(["Oakridge", "Port Liss", "Vellmar", "Hollow Creek", "Sundby"])
    name = f"{town.lower().replace(' ', '-')}-{business}"
    if index >= len(order):  # past the catalogue: same shapes, another town
        name += f"-{index // len(order)}"
    bible = (
        f"The {town} {business} keeps its {_plural(resource)} in one service. Ids count up from 1. "
        f"Every {resource} has a {fields[0]}; {', '.join(fields[1:])} are optional. "
        "Deleted records are gone for good."
    )
    tasks = []
    for n in range(2):
        field = fields[1 + n]
        value = rnd.choice(FIELDS[field][1])
        title = rnd.choice(FIELDS["title"][1])
        is_list = FIELDS[field][0]["type"] == "array"
        wanted = f"whose {field} include {value!r}" if is_list else f"whose {field} is {value!r}"
        arguments = {"title": title, field: [value] if is_list else value}
        tasks.append(
            {
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
        )
    return {
        "name": name,
        "description": f"Records of the {town} {business}: {_plural(resource)}.",
        "world_bible": bible,
        "initial_state": f"The {business} has no {_plural(resource)} yet.",
        "tools": _tools(resource, fields),
        "tasks": tasks,
    }

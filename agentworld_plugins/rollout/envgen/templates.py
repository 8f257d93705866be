"""The offline environment generator: CRUD-style MCP services from templates and a seed.

Environment ``index`` of a run with seed ``s`` is always the same (a stable hash of both draws
the business, the resources, their fields and operations), so a resumed run regenerates nothing
differently.
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
    "location": ({"type": "string"}, ["Dock 4", "Room 12", "East yard"]),
    "contact": ({"type": "string", "format": "email"}, ["ops@example.com", "desk@example.org"]),
    "cost": ({"type": "number", "minimum": 0}, [9.5, 120, 48.25]),
    "rating": ({"type": "integer", "minimum": 1, "maximum": 5}, [1, 4, 5]),
    "category": ({"type": "string", "enum": ["standard", "express", "special"]}, ["express", "special"]),
    "assignee": ({"type": "string"}, ["Eli Moss", "Fay Ng", "Gus Oduya"]),
}

#: operations beyond create, get and list that a resource's tools may have
EXTRA_OPERATIONS = ("update", "delete", "archive", "count")
#: towns the businesses are in
TOWNS = ["Oakridge", "Port Liss", "Vellmar", "Hollow Creek", "Sundby", "Marrow Bay", "Elston", "Kestrel Hill"]


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "ch", "sh", "x")) else "s")


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _tools(resource: str, fields: list[str], extra: list[str], business: str) -> list[dict[str, Any]]:
    """The tools of one resource: create, get and list, and the ``extra`` operations; their
    descriptions name the fields, so environments that differ in them read differently too."""
    props = {name: dict(FIELDS[name][0]) for name in fields}
    item = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, **props},
        "required": ["id", fields[0]],
    }
    id_arg = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    plural = _plural(resource)
    shown = ", ".join(fields)
    tools = [
        {
            "name": f"create_{resource}",
            "description": f"Create {_a(resource)} of the {business} ({shown}) and return it with its new id.",
            "inputSchema": {"type": "object", "properties": props, "required": [fields[0]]},
            "outputSchema": item,
        },
        {
            "name": f"get_{resource}",
            "description": f"Return one {resource} by id, with its {shown}.",
            "inputSchema": id_arg,
            "outputSchema": item,
        },
        {
            "name": f"list_{plural}",
            "description": f"List the {plural}, optionally filtered by {', '.join(f for f in fields if f != 'tags')}.",
            "inputSchema": {"type": "object", "properties": {k: v for k, v in props.items() if k != "tags"}},
            "outputSchema": {
                "type": "object",
                "properties": {plural: {"type": "array", "items": item}},
                "required": [plural],
            },
        },
    ]
    if "update" in extra:
        tools.append(
            {
                "name": f"update_{resource}",
                "description": f"Change the {shown} of {_a(resource)}.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, **props},
                    "required": ["id"],
                },
                "outputSchema": item,
            }
        )
    if "delete" in extra:
        tools.append(
            {
                "name": f"delete_{resource}",
                "description": f"Delete {_a(resource)} by id.",
                "inputSchema": id_arg,
            }
        )
    if "archive" in extra:
        tools.append(
            {
                "name": f"archive_{resource}",
                "description": f"Archive {_a(resource)} by id: it leaves the {plural} list but stays readable.",
                "inputSchema": id_arg,
                "outputSchema": item,
            }
        )
    if "count" in extra:
        tools.append(
            {
                "name": f"count_{plural}",
                "description": f"Count the {plural}, optionally by {fields[1]}.",
                "inputSchema": {"type": "object", "properties": {fields[1]: props[fields[1]]}},
                "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}},
            }
        )
    return tools


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
    two tasks with reward checks (the environment form :func:`.validate.check_environment` reads).

    Everything is drawn from a stable hash of ``(seed, index)``: the business and town, one to
    three kinds of record (the business's own and others'), each kind's fields (title and two to
    five more) and its operations (create, get, list and any of update, delete, archive, count),
    so thousands of environments differ in their tool sets (``benchmarks/bench_envgen.py``).
    """
    rnd = random.Random(derive_seed("envgen", seed, index))
    business, resource = rnd.choice(BUSINESSES)
    others = [r for _, r in BUSINESSES if r != resource]
    resources = [resource, *rnd.sample(others, rnd.choices([0, 1, 2], weights=[2, 5, 3])[0])]
    town = rnd.choice(TOWNS)
    name = f"{town.lower().replace(' ', '-')}-{business}-{index}"
    tools: list[dict[str, Any]] = []
    choices: list[tuple[str, str]] = []
    shown = " and ".join(_plural(r) for r in resources)
    bible = [f"The {town} {business} keeps its {shown} in one service."]
    for kept in resources:
        fields = ["title", *rnd.sample([f for f in FIELDS if f != "title"], rnd.randint(2, 5))]
        extra = [op for op in EXTRA_OPERATIONS if rnd.random() < 0.5]
        tools += _tools(kept, fields, extra, business)
        bible.append(f"Every {kept} has a {fields[0]}; {', '.join(fields[1:])} are optional.")
        choices += [(kept, field) for field in fields[1:]]
    tasks = [_task(kept, field, rnd) for kept, field in rnd.sample(choices, 2)]
    bible.append("Ids count up from 1 for each kind of record. Deleted records are gone for good.")
    return {
        "name": name,
        "description": f"Records of the {town} {business}: {shown}.",
        "world_bible": " ".join(bible),
        "initial_state": f"The {business} has no {shown} yet.",
        "tools": tools,
        "tasks": tasks,
    }

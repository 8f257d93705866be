"""``@modelcontextprotocol/server-memory``: a knowledge graph of entities (name, entityType,
observations) and relations (from, to, relationType).

Facts taken from the server (version 0.6.3, ``dist/index.js``): every tool answers with
``JSON.stringify(result, null, 2)`` as its text and the result as ``structuredContent``
(``{"entities": [...]}``, ``{"relations": [...]}``, ``{"results": [...]}`` or the graph itself);
deletions answer "Entities deleted successfully" (and so on) with ``{"success": true, "message":
...}``. New entities and relations are those not in the graph yet (by name; by all three fields);
a batch is not checked against itself. ``add_observations`` fails as a whole, changing nothing,
when one entity is missing ("Entity with name X not found"); deleting from a missing entity is
ignored. ``search_nodes`` matches a case-insensitive substring of a name, type or observation;
``search_nodes`` and ``open_nodes`` return the relations with at least one end among the entities
found. Only the fields above are kept (the server's JSONL file has no others).
"""

from __future__ import annotations

from typing import Any

from ....jsontext import dumps_indented

__all__ = ["KnowledgeGraph"]


def _text(value: Any) -> str:
    # JSON.stringify(value, null, 2): two-space indent, ", " never at line ends, non-ASCII kept
    return dumps_indented(value, ensure_ascii=False)


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _entity(raw: Any) -> dict[str, Any]:
    data = raw if isinstance(raw, dict) else {}
    return {
        "name": str(data.get("name", "")),
        "entityType": str(data.get("entityType", "")),
        "observations": _strings(data.get("observations")),
    }


def _relation(raw: Any) -> dict[str, str]:
    data = raw if isinstance(raw, dict) else {}
    return {
        "from": str(data.get("from", "")),
        "to": str(data.get("to", "")),
        "relationType": str(data.get("relationType", "")),
    }


def _list(arguments: dict[str, Any], key: str) -> list[Any]:
    value = arguments.get(key)
    return value if isinstance(value, list) else []


class KnowledgeGraph:
    """The server's graph and its nine tools; ``call`` answers ``(text, structured, is_error)``."""

    def __init__(self) -> None:
        self.entities: list[dict[str, Any]] = []
        self.relations: list[dict[str, str]] = []
        #: (the entity list, its length, its names) as last read
        self._known: tuple[list[dict[str, Any]], int, set[str]] | None = None

    @property
    def size(self) -> int:
        """How many items the graph holds (what a light call's set of known names costs)."""
        return len(self.entities) + len(self.relations)

    def graph(self) -> dict[str, Any]:
        return {
            "entities": [dict(e, observations=list(e["observations"])) for e in self.entities],
            "relations": [dict(r) for r in self.relations],
        }

    def graph_text(self) -> str:
        """The graph as the ``memory://knowledge-graph`` resource's text."""
        return _text(self.graph())

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        handler = getattr(self, f"_{name}", None)
        if handler is None:
            return f"Tool {name} not found", None, True
        return handler(arguments)  # type: ignore[no-any-return]

    def _done(self, what: str) -> tuple[str, Any, bool]:
        message = f"{what} deleted successfully"
        return message, {"success": True, "message": message}, False

    def _names(self) -> set[str]:
        """The entities' names, kept while the list only grows (a deletion makes a new list)."""
        entities = self.entities
        kept = getattr(self, "_known", None)  # absent from a graph kept before it was added
        if kept is None or kept[0] is not entities or kept[1] != len(entities):
            kept = self._known = (entities, len(entities), {e["name"] for e in entities})
        return kept[2]

    def _create_entities(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        known = self._names()
        new = [e for e in map(_entity, _list(arguments, "entities")) if e["name"] not in known]
        self.entities.extend(new)
        known.update(e["name"] for e in new)
        self._known = (self.entities, len(self.entities), known)
        result = [dict(e, observations=list(e["observations"])) for e in new]
        return _text(result), {"entities": result}, False

    def _create_relations(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        known = {(r["from"], r["to"], r["relationType"]) for r in self.relations}
        new = [
            r
            for r in map(_relation, _list(arguments, "relations"))
            if (r["from"], r["to"], r["relationType"]) not in known
        ]
        self.relations.extend(new)
        result = [dict(r) for r in new]
        return _text(result), {"relations": result}, False

    def _add_observations(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        by_name = {e["name"]: e for e in reversed(self.entities)}  # the first of a name wins
        wanted = [o if isinstance(o, dict) else {} for o in _list(arguments, "observations")]
        for item in wanted:  # one missing entity: nothing changes
            if str(item.get("entityName", "")) not in by_name:
                return f"Entity with name {item.get('entityName', '')} not found", None, True
        results = []
        for item in wanted:
            entity = by_name[str(item.get("entityName", ""))]
            added = [c for c in _strings(item.get("contents")) if c not in entity["observations"]]
            entity["observations"].extend(added)
            results.append({"entityName": entity["name"], "addedObservations": added})
        return _text(results), {"results": results}, False

    def _delete_entities(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        names = set(_strings(arguments.get("entityNames")))
        self.entities = [e for e in self.entities if e["name"] not in names]
        self.relations = [r for r in self.relations if r["from"] not in names and r["to"] not in names]
        return self._done("Entities")

    def _delete_observations(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        for item in _list(arguments, "deletions"):
            item = item if isinstance(item, dict) else {}
            gone = set(_strings(item.get("observations")))
            for entity in self.entities:
                if entity["name"] == str(item.get("entityName", "")):
                    entity["observations"] = [o for o in entity["observations"] if o not in gone]
                    break
        return self._done("Observations")

    def _delete_relations(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        gone = {
            (r["from"], r["to"], r["relationType"]) for r in map(_relation, _list(arguments, "relations"))
        }
        self.relations = [r for r in self.relations if (r["from"], r["to"], r["relationType"]) not in gone]
        return self._done("Relations")

    def _subgraph(self, entities: list[dict[str, Any]]) -> tuple[str, Any, bool]:
        names = {e["name"] for e in entities}
        graph = {
            "entities": [dict(e, observations=list(e["observations"])) for e in entities],
            "relations": [dict(r) for r in self.relations if r["from"] in names or r["to"] in names],
        }
        return _text(graph), graph, False

    def _read_graph(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        graph = self.graph()
        return _text(graph), graph, False

    def _search_nodes(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        query = str(arguments.get("query", "")).lower()
        found = [
            e
            for e in self.entities
            if query in e["name"].lower()
            or query in e["entityType"].lower()
            or any(query in o.lower() for o in e["observations"])
        ]
        return self._subgraph(found)

    def _open_nodes(self, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        names = set(_strings(arguments.get("names")))
        return self._subgraph([e for e in self.entities if e["name"] in names])

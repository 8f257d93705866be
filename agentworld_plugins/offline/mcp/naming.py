"""What a tool's name says: its verb, the resource it acts on, and the words used to read names."""

from __future__ import annotations

import re
from functools import lru_cache

_VERBS: dict[str, tuple[str, ...]] = {
    "create": ("create", "add", "new", "insert", "post", "make", "upload"),
    "get": ("get", "read", "fetch", "show", "describe", "view"),
    "list": ("list", "search", "find", "query"),
    "update": ("update", "edit", "set", "modify", "patch", "rename"),
    "delete": ("delete", "remove", "drop", "archive", "close"),
}
_VERB_KIND = {verb: kind for kind, verbs in _VERBS.items() for verb in verbs}
#: verbs of the delete class that keep the item and mark it instead
SOFT_DELETE = {"archive": "archived", "close": "closed"}
_NOUN_STOP = {"by", "for", "with", "from", "in", "on", "of", "to", "using"}
_NOUN_FILLER = {"all", "my", "the", "a", "an", "new", "details", "detail", "info", "many", "one"}


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def singular_of(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("ses") and not word.endswith("uses"):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)  # pure and called for every tool on every step
def classify_tool(name: str) -> tuple[str | None, str | None, bool]:
    """``(kind, resource, plural)`` of a tool name: ``list_issues`` -> ``("list", "issue", True)``.

    ``kind`` is create/get/list/update/delete (None when no known verb is in the name) and
    ``resource`` the singular noun after the verb (before it when the verb comes last).
    """
    tokens = _tokens(name)
    index = next((i for i, t in enumerate(tokens) if t in _VERB_KIND), None)
    if index is None:
        return None, None, False
    kind = _VERB_KIND[tokens[index]]
    noun = tokens[index + 1 :] or tokens[:index]
    for i, token in enumerate(noun):
        if token in _NOUN_STOP and i > 0:
            noun = noun[:i]
            break
    noun = [t for t in noun if t not in _NOUN_FILLER and t not in _VERB_KIND]
    if not noun:
        return kind, None, False
    singular = singular_of(noun[-1])
    plural = singular != noun[-1]
    resource = "_".join([*noun[:-1], singular])
    if kind == "get" and plural:
        kind = "list"
    return kind, resource, plural


def verb_of(name: str) -> str:
    return next((t for t in _tokens(name) if t in _VERB_KIND), "")


@lru_cache(maxsize=4096)
def norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@lru_cache(maxsize=4096)
def is_id_name(prop: str, resource: str) -> bool:
    """Whether an argument or field name identifies an item of ``resource``."""
    n = norm(prop)
    if n in ("id", "number", "uid", "uuid"):
        return True
    heads = {norm(resource), norm(resource.split("_")[-1])}
    return any(n in (h + "id", h + "number", h + "uuid", h + "key") for h in heads)

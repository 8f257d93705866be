"""File facts, shared by the file tools of every domain (MCP filesystem tools, coding-agent file
tools, the shell): ``facts["files"]`` maps a normalised path to ``[content, turn, source]``.

``content`` is the file's text, :data:`ABSENT` (``None``: the file is known not to exist) or
:data:`PRESENT` (it exists, its content is not known).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from .core import Contradiction

ABSENT = None
PRESENT = "\x00present"

#: the first words of an answer that says a file is not there, as servers and shells write it
_MISSING = re.compile(
    r"ENOENT|no such file|not found|does not exist|doesn't exist|cannot find|could not find|"
    r"not exist|nonexistent",
    re.I,
)


def norm(path: str, cwd: str = "/") -> str:
    """``path`` made absolute against ``cwd`` and normalised (``/app/./a`` -> ``/app/a``)."""
    path = path.strip()
    if path.startswith("~"):
        path = "/root" + path[1:]
    return posixpath.normpath(posixpath.join(cwd, path)) if path else cwd


def files(facts: dict[str, Any]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = facts.setdefault("files", {})
    return found


def known(facts: dict[str, Any], path: str) -> list[Any] | None:
    """``[content, turn, source]`` of ``path``, or None when nothing is known of it."""
    return files(facts).get(path)


def establish(facts: dict[str, Any], path: str, content: str | None, turn: int, source: str) -> None:
    files(facts)[path] = [content, turn, source]


def forget(facts: dict[str, Any], path: str) -> None:
    files(facts).pop(path, None)


def move(facts: dict[str, Any], source: str, destination: str, turn: int) -> None:
    """What ``mv source destination`` establishes, for the file and everything under it."""
    table = files(facts)
    moved = {p: v for p, v in table.items() if p == source or p.startswith(source.rstrip("/") + "/")}
    for path, value in moved.items():
        table[destination + path[len(source) :]] = [value[0], turn, "agent"]
        table[path] = [ABSENT, turn, "agent"]
    if source not in moved:
        table[destination] = [PRESENT, turn, "agent"]
        table[source] = [ABSENT, turn, "agent"]


def says_missing(text: str) -> bool:
    return bool(_MISSING.search(text[:400]))


def same_text(a: str, b: str) -> bool:
    """Equal as file content, trailing blank space aside."""
    return a.rstrip() == b.rstrip()


def check_read(facts: dict[str, Any], path: str, text: str, is_error: bool) -> list[Contradiction]:
    """A read of ``path`` that answered ``text``."""
    fact = known(facts, path)
    if fact is None:
        return []
    content, turn, source = fact
    missing = is_error and says_missing(text)
    if content is ABSENT:
        if missing or is_error:
            return []
        return [Contradiction("absence", path, "no such file", text, turn, source)]
    if missing:
        return [Contradiction("presence", path, "the file exists", text, turn, source)]
    if content == PRESENT or is_error:
        return []
    if not same_text(content, text):
        return [Contradiction("content", path, content, text, turn, source)]
    return []


def learn_read(facts: dict[str, Any], path: str, text: str, is_error: bool, turn: int) -> None:
    """What a read's answer tells of a file nothing established yet."""
    fact = known(facts, path)
    if fact is not None and fact[0] not in (PRESENT,):
        return
    if not is_error:
        establish(facts, path, text, turn, "model")
    elif says_missing(text) and fact is None:
        establish(facts, path, ABSENT, turn, "model")


# -- directory listings -----------------------------------------------------------------------------

_ENTRY = re.compile(r"^\s*(?:\[(?:FILE|DIR)\]\s*)?(.+?)\s*$")


def listed_names(text: str) -> set[str] | None:
    """The names a directory listing shows: ``[FILE] a.txt`` lines (the reference filesystem
    server), a JSON list of names or of objects with a ``name``, or one name per line; None
    when the text is not a listing."""
    stripped = text.strip()
    if not stripped:
        return set()
    if stripped[0] in "[{":
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), None)
        if isinstance(data, list):
            names = set()
            for item in data:
                if isinstance(item, str):
                    names.add(item.rstrip("/"))
                elif isinstance(item, dict) and isinstance(item.get("name"), str):
                    names.add(item["name"].rstrip("/"))
            return names
    names = set()
    for line in stripped.splitlines():
        match = _ENTRY.match(line)
        if match:
            names.add(match.group(1).rstrip("/").split("/")[-1])
    return names


def children(facts: dict[str, Any], directory: str) -> dict[str, list[Any]]:
    """The known facts of the entries directly in ``directory``: ``{name: fact}``."""
    found = {}
    for path, fact in files(facts).items():
        if posixpath.dirname(path) == directory and path != directory:
            found[posixpath.basename(path)] = fact
    return found


def repeated(text: str) -> set[str]:
    """Names a listing shows more than once (a directory holds each name once)."""
    seen: set[str] = set()
    twice: set[str] = set()
    for line in text.strip().splitlines():
        for name in line.split() if "  " in line and "[" not in line else [line]:
            match = _ENTRY.match(name)
            if not match:
                continue
            entry = match.group(1).rstrip("/").split("/")[-1]
            (twice if entry in seen else seen).add(entry)
    return twice


def check_listing(
    facts: dict[str, Any],
    directory: str,
    names: set[str],
    twice: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Contradiction]:
    found: list[Contradiction] = []
    for name in sorted(twice):
        fact = known(facts, posixpath.join(directory, name))
        turn, source = (fact[1], fact[2]) if fact else (0, "model")
        found.append(
            Contradiction(
                "duplicate-id", posixpath.join(directory, name), "listed once", "listed twice", turn, source
            )
        )
    for name, (content, turn, source) in sorted(children(facts, directory).items()):
        path = posixpath.join(directory, name)
        if content is ABSENT and name in names:
            found.append(
                Contradiction("absence", path, "not listed (it was removed)", "listed", turn, source)
            )
        elif content is not ABSENT and name not in names:
            found.append(Contradiction("presence", path, "listed", "missing from the listing", turn, source))
    return found


def learn_listing(facts: dict[str, Any], directory: str, names: set[str], turn: int) -> None:
    for name in names:
        path = posixpath.join(directory, name)
        if known(facts, path) is None:
            establish(facts, path, PRESENT, turn, "model")


def fixed_listing(facts: dict[str, Any], directory: str, text: str) -> str:
    """``text`` (a listing) with removed entries dropped and missing known ones added, in the
    listing's own style."""
    known_children = children(facts, directory)
    lines = text.rstrip("\n").splitlines()
    kept = []
    shown = set()
    for line in lines:
        match = _ENTRY.match(line)
        name = match.group(1).rstrip("/").split("/")[-1] if match else ""
        fact = known_children.get(name)
        if (fact is not None and fact[0] is ABSENT) or (name in shown and name):
            continue
        shown.add(name)
        kept.append(line)
    tagged = any(line.lstrip().startswith("[FILE]") or line.lstrip().startswith("[DIR]") for line in lines)
    for name, fact in sorted(known_children.items()):
        if fact[0] is not ABSENT and name not in shown:
            kept.append(f"[FILE] {name}" if tagged else name)
    if tagged:
        return "\n".join(kept)
    return "\n".join(sorted(kept, key=lambda line: line.strip()))

"""git's config files read and edited as git reads and edits them: ``[section]`` and
``[section "sub"]`` headers, ``name = value`` lines (a bare name is ``true``), quotes, escapes
and comments; a set replaces the last line of its key in place (or adds one at the end of the
last such section, or a new section), an unset removes lines and a section left empty, names
keep the case they were given. ``git config`` (``config.py`` commands) reads through here."""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

from ....vfs import FsError, VirtualFS
from ...applet_io import lines_with_ends

_HEADER = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(?:[#;].*)?$')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$")


@dataclass(frozen=True)
class Entry:
    """One variable: ``key`` is ``section[.sub].name`` with section and name lower case."""

    key: str
    #: None for a bare name (a boolean true, printed empty)
    value: str | None
    line: int
    path: str
    #: the name as written in the file
    name: str


def _value(raw: str) -> str:
    """A value as git reads it: quotes joined, ``\\n \\t \\b \\" \\\\`` escapes, comments cut,
    blanks outside quotes trimmed at the ends."""
    out: list[str] = []
    quoted = False
    pending = ""
    k = 0
    while k < len(raw):
        c = raw[k]
        k += 1
        if c == "\\" and k < len(raw):
            esc = raw[k]
            k += 1
            out.append(pending + {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}.get(esc, esc))
            pending = ""
        elif c == '"':
            out.append(pending)
            pending = ""
            quoted = not quoted
        elif not quoted and c in "#;":
            break
        elif not quoted and c in " \t":
            pending += c if out else ""
        else:
            out.append(pending + c)
            pending = ""
    return "".join(out)


def _key(section: str, sub: str | None, name: str) -> str:
    return (
        f"{section.lower()}.{sub}.{name.lower()}" if sub is not None else f"{section.lower()}.{name.lower()}"
    )


def entries(fs: VirtualFS, path: str) -> list[Entry]:
    """Every variable of the file at ``path`` in order (none when it cannot be read)."""
    try:
        text = fs.read_text(path)
    except FsError:
        return []
    out: list[Entry] = []
    section: str | None = None
    sub: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _HEADER.match(line)
        if header:
            section, sub = header.group(1), header.group(2)
            if sub is None and "." in section:  # [section.sub], the old spelling
                section, _, sub = section.partition(".")
                sub = sub.lower()
            continue
        entry = _ENTRY.match(line.split("#")[0] if "=" not in line else line)
        if entry is None or section is None:
            continue
        raw = entry.group(2)
        out.append(Entry(_key(section, sub, entry.group(1)), None if raw is None else _value(raw), number, path,
                         entry.group(1)))  # fmt: skip
    return out


def read_config(fs: VirtualFS, paths: list[str]) -> dict[str, str]:
    """``section.key`` -> value from git config files (later files and lines win)."""
    return {e.key: "true" if e.value is None else e.value for path in paths for e in entries(fs, path)}


def _split(key: str) -> tuple[str, str | None, str]:
    section, _, name = key.rpartition(".")
    head, dot, sub = section.partition(".")
    return (head, sub, name) if dot else (section, None, name)


def canonical(key: str) -> str:
    """``Section.Sub.Name`` as git compares keys: section and name lower case, the subsection kept."""
    return _key(*_split(key))


def parameters(raw: str) -> list[Entry]:
    """The settings ``git -c key=value`` passes down (``GIT_CONFIG_PARAMETERS``); ``-c key`` is true."""
    try:
        words = shlex.split(raw)
    except ValueError:
        words = []
    out = []
    for word in words:
        key, eq, value = word.partition("=")
        out.append(Entry(canonical(key), value if eq else None, 0, "", key.rpartition(".")[2]))
    return out


def _quoted(value: str) -> str:
    """A value written as git writes it: quoted when it has blanks at an end, ``#`` or ``;``."""
    body = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    if value != value.strip() or any(c in value for c in "#;"):
        return f'"{body}"'
    return body


def write_config(
    fs: VirtualFS, path: str, key: str, value: str | None, every: bool = False, add: bool = False
) -> int:
    """Set ``key`` (or with ``value`` None remove it, ``every`` line of it) in the file at
    ``path``, git's way; ``add``: one more line after its last. The number of lines changed or
    removed (0 and nothing written when there was nothing to unset)."""
    section, sub, name = _split(key)
    try:
        text = fs.read_text(path)
    except FsError:
        text = ""
    lines = lines_with_ends(text)
    wanted = _key(section, sub, name)
    found = [e for e in entries(fs, path) if e.key == wanted] if text else []
    if value is None:
        if not found:
            return 0
        drop = {e.line for e in (found if every else found[-1:])}
        kept = [line for k, line in enumerate(lines, 1) if k not in drop]
        fs.write(path, "".join(_without_empty_sections(kept)))
        return len(drop)
    new_line = f"\t{name} = {_quoted(value)}\n"
    if found and add:
        lines.insert(found[-1].line, new_line)
    elif found:
        lines[found[-1].line - 1] = new_line
    else:
        end = _section_end(lines, section, sub)
        if end is None:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            header = f'[{section} "{sub}"]\n' if sub is not None else f"[{section}]\n"
            lines += [header, new_line]
        else:
            lines.insert(end, new_line)
    fs.mkdir(posixpath.dirname(path), parents=True)
    fs.write(path, "".join(lines))
    return 1


def _matches(line: str, section: str, sub: str | None) -> bool:
    header = _HEADER.match(line)
    if header is None:
        return False
    name, inner = header.group(1), header.group(2)
    if inner is None and "." in name:
        name, _, inner = name.partition(".")
    return name.lower() == section.lower() and inner == sub


def _section_end(lines: list[str], section: str, sub: str | None) -> int | None:
    """The index after the last variable line of the last ``[section]``, or None."""
    end = None
    inside = False
    for k, line in enumerate(lines):
        if _HEADER.match(line):
            inside = _matches(line, section, sub)
            if inside:
                end = k + 1
        elif inside and line.strip() and line.strip()[0] not in "#;":
            end = k + 1
    return end


def _without_empty_sections(lines: list[str]) -> list[str]:
    out: list[str] = []
    k = 0
    while k < len(lines):
        if _HEADER.match(lines[k]):
            j = k + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or _HEADER.match(lines[j]):
                k = j
                continue
        out.append(lines[k])
        k += 1
    return out


def remove_section(fs: VirtualFS, path: str, section: str) -> bool:
    """Remove a whole ``[section]`` (``remote "origin"``) from a config file; whether it was there."""
    try:
        text = fs.read_text(path)
    except FsError:
        return False
    out: list[str] = []
    skipping = found = False
    for line in lines_with_ends(text):
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped == f"[{section}]"
            found = found or skipping
        if not skipping:
            out.append(line)
    if found:
        fs.write(path, "".join(out))
    return found

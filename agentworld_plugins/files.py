"""Reading the data files users hand the package (JSON/YAML documents, JSONL logs), and creating
the files it writes private to their owner."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .errors import AgentWorldError, ConfigError
from .limits import LimitError, loads_limited

#: longest JSONL line read, in characters (a line of a user's own file: far above an action's limit)
MAX_LINE_CHARS = 1 << 30


def parse_data(text: str, name: str | Path) -> Any:
    """Parse ``text`` as YAML when ``name`` ends in .yaml/.yml, else as JSON (errors propagate)."""
    if str(name).lower().endswith((".yaml", ".yml")):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def yaml_problem(exc: Exception) -> str:
    """One line for a YAML parse error: ``not valid YAML at line 3, column 7: <problem>``."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    context, started = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and started is not None:  # where the unclosed thing began, e.g. a flow mapping
        problem += f" ({context} at line {started.line + 1}, column {started.column + 1})"
    return f"not valid YAML{where}: {problem}"


def iter_jsonl(
    path: str | Path, *, hint: str = "each line must be one JSON object"
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line; an unreadable file or a line that is not
    JSON is an :class:`AgentWorldError` naming the file and line."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise AgentWorldError(f"Cannot read {path}: {exc.strerror or exc}", hint="check the path") from None
    except UnicodeDecodeError as exc:
        raise AgentWorldError(
            f"{path} is not a UTF-8 text file (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}), "
            "so not JSONL"
        ) from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, loads_limited(line, max_chars=MAX_LINE_CHARS)
        except json.JSONDecodeError as exc:
            raise AgentWorldError(f"{path}:{lineno} is not JSON ({exc.msg})", hint=hint) from None
        except LimitError as exc:
            raise AgentWorldError(f"{path}:{lineno} is too large to read: {exc}", hint=hint) from None


#: suffixes that make a one-line string a file name rather than text (see :func:`text_or_file`)
TEXT_FILE_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".json", ".yaml", ".yml")


def looks_like_path(value: str) -> bool:
    """Whether a string given where "text or a file" is accepted names a file: one line that ends
    in a text-file suffix (``bible.md``) or starts like a path (``/``, ``./``, ``../``, ``~``)."""
    text = value.strip()
    if not text or "\n" in text or len(text) > 1024:
        return False
    return text.lower().endswith(TEXT_FILE_SUFFIXES) or text.startswith(("/", "./", "../", "~"))


def text_or_file(value: str | Path, what: str) -> str:
    """``value``'s text: a :class:`~pathlib.Path`, or a string that :func:`looks_like_path`, is
    read (a missing or unreadable file is a :class:`ConfigError` naming it); other strings are the
    text itself."""
    if isinstance(value, Path) or looks_like_path(str(value)):
        path = Path(str(value).strip()).expanduser()
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise ConfigError(
                f"Cannot read the {what} file {path}: {reason}",
                hint=f"check the path, or pass the {what} itself as text (more than one line, or a "
                f"Path for a file)",
            ) from None
    return str(value)


# -- files the package writes ----------------------------------------------------------------------

#: mode of every file the package creates that may hold prompts, keys or agent input
PRIVATE_MODE = 0o600


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags, PRIVATE_MODE)


def open_private(path: str | Path, mode: str = "a") -> IO[Any]:
    """Open a file for writing (text unless ``mode`` has ``b``); a file this creates is readable by
    its owner only (0600)."""
    if "b" in mode:
        return open(path, mode, opener=_private_opener)
    return open(path, mode, encoding="utf-8", opener=_private_opener)


def write_private(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (replacing it); a file this creates is 0600, as every file the
    package writes."""
    with open_private(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)


def create_private(path: str | Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (before SQLite opens it: its journal
    files take the database file's mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE))

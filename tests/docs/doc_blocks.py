"""Find the runnable code blocks in the project's Markdown docs (used by ``test_docs.py``).

A fenced block tagged ``bash``/``sh``/``shell`` is a shell block (``console``: only its ``$ ``
lines are run, the rest is output), ``python``/``py`` a Python block; other fences (json, yaml,
toml, text, untagged diagrams) are not run. An HTML comment on the line right before the fence
(blank lines between are fine) marks it:

- ``<!-- docs-test: needs-model -->``: runs with ``AGENTWORLD_BASE_URL`` pointing at an
  ``agentworld serve`` the test starts (``http://localhost:PORT/v1`` in the block is rewritten to it);
- ``<!-- docs-test: skip reason=WHY -->``: not run; the reason is required;
- ``<!-- docs-test: expect-error -->`` (alone, or after ``needs-model``): the block shows an error
  on purpose (a fault, a refused call); without it, a block whose output reports an error
  (``is_error=True``, ``"is_error": true``, ``"isError": true``, a traceback) fails even when it
  exits 0.

A block of any language whose first line is ``# file: PATH`` (``# file: PATH (continued)`` appends)
is the content of a file a tutorial builds: it is written to PATH in the working directory (without
that first line) for later blocks to use, not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGS = {"bash", "sh", "shell", "console", "shell-session", "zsh"}
#: blocks that show a session: lines after a ``$ `` prompt are run, the rest is expected output
SESSION_LANGS = {"console", "shell-session"}
PYTHON_LANGS = {"python", "py", "python3"}
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)[^`]*$")
_FILE = re.compile(r"^(?:#|//)\s*file:\s*(?P<path>\S+)(?P<cont>\s+\(continued\))?\s*$")
EXPECT_ERROR = "expect-error"
#: what an output that reports an error looks like (a repr, JSON, an MCP result, a traceback)
ERROR_REPORTS = re.compile(
    r"\bis_error=True\b|\"is_error\":\s*true|\"isError\":\s*true|isError=True|^Traceback \(most recent call last\):",
    re.MULTILINE,
)
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")


@dataclass
class Block:
    """One fenced code block: where it is, what it is, how it is marked."""

    path: str  # relative to the repository root
    line: int  # 1-based line of the opening fence
    lang: str  # "shell", "python" or "file"
    code: str
    mark: str = ""  # "", "needs-model" or "skip"
    reason: str = ""
    expects_error: bool = False  # marked expect-error: its output may report an error

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    def file_target(self) -> tuple[str, bool]:
        """For a ``file`` block: the path it writes and whether it appends."""
        m = _FILE.match(self.code.splitlines()[0])
        assert m is not None
        return m.group("path"), bool(m.group("cont"))


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md, docs/*.md and examples/*/README.md."""
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    files += sorted((root / "examples").glob("*/README.md"))
    return [f for f in files if f.is_file()]


def parse_marker(text: str) -> tuple[str, str] | None:
    """``(mark, reason)`` for a ``<!-- docs-test: ... -->`` line, else None."""
    m = _MARKER.match(text)
    if not m:
        return None
    body = m.group("body")
    words, _, reason = body.partition("reason=")
    marks = [w for w in words.split() if w != EXPECT_ERROR]
    word = marks[0] if marks else ""
    if EXPECT_ERROR in words.split():
        word = f"{word} {EXPECT_ERROR}".strip()
    return word, reason.strip().strip("\"'")


def blocks_in(path: Path, root: Path = ROOT) -> list[Block]:
    """The shell and Python blocks of one Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(root).as_posix()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent, info = m.group("fence"), m.group("indent"), m.group("info").lower()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3] * 1):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1  # the closing fence
        lang = "shell" if info in SHELL_LANGS else "python" if info in PYTHON_LANGS else ""
        if body and _FILE.match(body[0]):
            lang = "file"
        if not lang:
            continue
        mark, reason = "", ""
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and (parsed := parse_marker(lines[j])):
            mark, reason = parsed
        expects = mark.endswith(EXPECT_ERROR)
        mark = mark.removesuffix(EXPECT_ERROR).strip()
        if info in SESSION_LANGS and lang == "shell":
            body = [line[2:] for line in body if line.startswith("$ ")]
        out.append(Block(rel, start + 1, lang, "\n".join(body) + "\n", mark, reason, expects))
    return out


def all_blocks(root: Path = ROOT) -> list[Block]:
    return [b for f in doc_files(root) for b in blocks_in(f, root)]

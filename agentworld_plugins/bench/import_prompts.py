"""``agentworld bench import-prompts``: the official prompts, from the user's own checkout.

We do not ship the official prompt text. A user who has cloned the official repository
(QwenLM/Qwen-AgentWorld) runs::

    agentworld bench import-prompts ~/src/Qwen-AgentWorld --to official-prompts/
    agentworld bench run ... --prompts-dir official-prompts/

and gets a prompts folder: ``<domain>/system_prompt.txt`` and ``<domain>/judge_system_prompt.txt``
copied as they are, and ``judge_user_template.json`` made from the evaluation source. The source is
read as text and parsed (Python's ``ast``), never imported or executed: the judge user template
is the string assigned to ``JUDGE_USER_PROMPT``, the per-domain response markers come from the
``TASK_CONFIGS`` literal, and the wrappers of the request's parts (history, current turn,
prediction, reference) from the f-strings of ``build_judge_messages``.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import pyast
from ..errors import ConfigError
from ..files import write_private
from .judge_template import TEMPLATE_FILE, WRAPPER_FIELDS, JudgeTemplate

PROMPT_FILES = ("system_prompt.txt", "judge_system_prompt.txt")
_HINT = "give the folder of a clone of https://github.com/QwenLM/Qwen-AgentWorld"


def _python_files(checkout: Path) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(checkout.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(checkout).parts):
            continue
        try:
            yield path, pyast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue


def _assigned(tree: ast.Module, name: str) -> ast.expr | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.value
    return None


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _fstring(node: ast.expr, placeholder: str, where: str) -> str:
    """An f-string with exactly one substituted value, as a wrapper holding ``placeholder``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        raise ConfigError(f"{where} substitutes nothing", hint=_HINT)
    if not isinstance(node, ast.JoinedStr):
        raise ConfigError(f"{where} is not an f-string", hint=_HINT)
    parts: list[str] = []
    values = 0
    for piece in node.values:
        if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
            parts.append(piece.value)
        elif isinstance(piece, ast.FormattedValue) and piece.conversion == -1 and piece.format_spec is None:
            parts.append(placeholder)
            values += 1
        else:
            raise ConfigError(f"{where} has a formatted value this importer does not understand", hint=_HINT)
    if values != 1:
        raise ConfigError(f"{where} substitutes {values} values, not one", hint=_HINT)
    return "".join(parts)


def _concatenation(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_concatenation(node.left), *_concatenation(node.right)]
    return [node]


def _history_turn(function: ast.FunctionDef, where: str) -> str:
    """``context += prompts[i] + "..." + responses[i] + "..."`` as ``{prompt}...{response}...``."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)):
            continue
        if not (isinstance(node.target, ast.Name) and node.target.id == "context"):
            continue
        parts: list[str] = []
        for piece in _concatenation(node.value):
            if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                parts.append(piece.value)
            elif isinstance(piece, ast.Subscript) and isinstance(piece.value, ast.Name):
                placeholder = {"prompts": "{prompt}", "responses": "{response}"}.get(piece.value.id)
                if placeholder is None:
                    raise ConfigError(f"{where}: the history adds {piece.value.id}[...]", hint=_HINT)
                parts.append(placeholder)
            else:
                raise ConfigError(
                    f"{where}: the history line holds an expression this importer does not understand",
                    hint=_HINT,
                )
        turn = "".join(parts)
        if turn.count("{prompt}") != 1 or turn.count("{response}") != 1:
            raise ConfigError(f"{where}: the history line must add one prompt and one response", hint=_HINT)
        return turn
    raise ConfigError(f"{where}: found no `context += ...` history line", hint=_HINT)


def _format_call(function: ast.FunctionDef) -> tuple[ast.Call, bool] | None:
    """The ``JUDGE_USER_PROMPT.format(...)`` call, and whether its result is ``.strip()``-ed."""
    stripped: set[int] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "strip"
            and isinstance(node.func.value, ast.Call)
            and not node.args
        ):
            stripped.add(id(node.func.value))
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "JUDGE_USER_PROMPT"
        ):
            return node, id(node) in stripped
    return None


def _context_wrapper(function: ast.FunctionDef, where: str) -> str:
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "context"
            and isinstance(node.value, ast.JoinedStr)
        ):
            return _fstring(node.value, "{history}", f"{where}: the context header")
    raise ConfigError(f'{where}: found no `context = f"...{{context}}"` header', hint=_HINT)


def read_official_template(checkout: str | Path) -> dict[str, Any]:
    """The judge user template of an official checkout, as a ``judge_user_template.json`` mapping."""
    root = Path(checkout).expanduser()
    if not root.is_dir():
        raise ConfigError(f"No folder at {root}", hint=_HINT)
    template: str | None = None
    configs: Any = None
    builder: tuple[Path, ast.FunctionDef] | None = None
    for path, tree in _python_files(root):
        value = _assigned(tree, "JUDGE_USER_PROMPT")
        if template is None and isinstance(value, ast.Constant) and isinstance(value.value, str):
            template = value.value
        value = _assigned(tree, "TASK_CONFIGS")
        if configs is None and value is not None:
            try:
                configs = pyast.literal_eval(value)
            except ValueError:
                configs = None
        function = _function(tree, "build_judge_messages")
        if builder is None and function is not None:
            builder = (path, function)
    if template is None:
        raise ConfigError(f"No JUDGE_USER_PROMPT string in the Python files under {root}", hint=_HINT)
    if builder is None:
        raise ConfigError(f"No build_judge_messages function in the Python files under {root}", hint=_HINT)
    path, function = builder
    where = str(path.relative_to(root))
    found = _format_call(function)
    if found is None:
        raise ConfigError(f"{where}: build_judge_messages never calls JUDGE_USER_PROMPT.format", hint=_HINT)
    call, strip = found
    wrappers: dict[str, str] = {"context": _context_wrapper(function, where)}
    for keyword in call.keywords:
        if keyword.arg in WRAPPER_FIELDS and keyword.arg != "context":
            wrappers[keyword.arg] = _fstring(
                keyword.value, WRAPPER_FIELDS[keyword.arg], f"{where}: {keyword.arg}"
            )
    missing = [name for name in WRAPPER_FIELDS if name not in wrappers]
    if missing:
        raise ConfigError(f"{where}: JUDGE_USER_PROMPT.format(...) lacks {', '.join(missing)}", hint=_HINT)
    markers: dict[str, str] = {}
    if isinstance(configs, dict):
        for domain, config in configs.items():
            if isinstance(config, dict) and isinstance(config.get("response_marker"), str):
                markers[str(domain)] = config["response_marker"]
    data = {
        "source": f"imported from {root}",
        "template": template,
        **wrappers,
        "history_turn": _history_turn(function, where),
        "strip": strip,
        "response_markers": markers,
    }
    JudgeTemplate.from_mapping(data, f"the template read from {root}")  # the same checks as loading
    return data


def import_prompts(checkout: str | Path, to: str | Path) -> dict[str, Any]:
    """Write a ``--prompts-dir`` folder from an official checkout. Returns what was written:
    ``{"domains": [...], "template": path}``."""
    root = Path(checkout).expanduser()
    data = read_official_template(root)
    prompts_root = root / "prompts"
    if not prompts_root.is_dir():
        raise ConfigError(f"No prompts/ folder in {root}", hint=_HINT)
    out = Path(to).expanduser()
    domains: list[str] = []
    for folder in sorted(p for p in prompts_root.iterdir() if p.is_dir()):
        present = [name for name in PROMPT_FILES if (folder / name).is_file()]
        if not present:
            continue
        (out / folder.name).mkdir(parents=True, exist_ok=True)
        for name in present:
            (out / folder.name / name).write_bytes((folder / name).read_bytes())
        domains.append(folder.name)
    if not domains:
        raise ConfigError(f"No prompts/<domain>/{PROMPT_FILES[1]} in {root}", hint=_HINT)
    out.mkdir(parents=True, exist_ok=True)
    target = out / TEMPLATE_FILE
    write_private(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return {"domains": domains, "template": target}

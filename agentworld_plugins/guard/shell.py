"""The guard of shells (terminal keystrokes, coding-agent tools): the offline shell runs every
command the agent types as a shadow, on a filesystem that holds only what the episode
established.

A file is *known* when a command the shadow ran cleanly (exit 0, nothing on stderr, no effect it
could not simulate) wrote it whole (``>``, ``tee``, ``cp``/``mv`` of known files, edits of known
files), when a file tool wrote it, when ``rm`` removed it, or when the model first showed it
(``cat FILE`` of a file nothing established: its output becomes the content). Checked: the output
of ``cat``, ``head``, ``tail``, ``wc`` and ``nl`` of known files (exactly), and the names ``ls``
shows (files known to exist must be listed, removed ones must not be).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import TYPE_CHECKING, Any

from . import files as F
from .core import Checker, Contradiction, Verdict
from .mcp import _commit_edit

if TYPE_CHECKING:
    from pydantic import BaseModel

#: commands whose whole output the shadow computes from the files they read
_EXACT = {"cat", "head", "tail", "wc", "nl"}
_PROMPT = re.compile(r"^\S*@\S*:[^\n]*?[#$] ?")
_SHELL_TOOLS = ("run_shell_command", "execute_bash", "bash", "shell", "run_command")
_READ_TOOLS = ("read_file",)
_WRITE_TOOLS = ("write_file",)
_EDIT_TOOLS = ("edit", "replace")
_LIST_TOOLS = ("list_directory", "ls")


def _machine(facts: dict[str, Any]) -> Any:
    vm = facts.get("shadow")
    if vm is None:
        from ..offline.shell import VirtualMachine
        from ..offline.vfs import VirtualFS

        vm = facts["shadow"] = VirtualMachine(VirtualFS.from_seed({}, base="/app"), "/app", interactive=False)
    return vm


def command_lines(action: BaseModel, domain: str) -> list[str]:
    """The command lines an action runs: the complete lines typed (terminal), or the command of
    a shell tool (swe)."""
    from ..perturbations.targeting import strip_setup

    if domain == "terminal":
        typed = "".join(str(getattr(k, "keystrokes", "")) for k in (getattr(action, "root", None) or action))  # type: ignore[attr-defined]
        return [line for line in typed.split("\n")[:-1] if line.strip()]
    name = str(getattr(action, "tool_name", ""))
    args = getattr(action, "arguments", {}) or {}
    if name in _SHELL_TOOLS and isinstance(args.get("command"), str):
        return [strip_setup(args["command"])]  # the shim's `export FOO=...; ` goes first
    return []


def _words(line: str) -> list[str] | None:
    if re.search(r"[;&|<>`$(){}*?\[\]\\]", line):
        return None
    try:
        return shlex.split(line)
    except ValueError:
        return None


def output_span(screen: str, line: str, domain: str) -> tuple[int, int] | None:
    """Where what ``line`` printed lies in the model's observation: the screen lines between the
    echoed command and the next prompt (terminal), or the tool's Stdout/Output field (swe)."""
    if domain != "terminal":
        match = _FIELD.search(screen)
        return match.span(1) if match else (0, len(screen))
    offsets = [0]
    lines = screen.split("\n")
    for text in lines:
        offsets.append(offsets[-1] + len(text) + 1)
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip().endswith(line.strip()) and _PROMPT.match(lines[i]):
            end = i + 1
            while end < len(lines) and not _PROMPT.match(lines[end]):
                end += 1
            start = offsets[i + 1]
            return (min(start, len(screen)), max(min(start, len(screen)), offsets[end] - 1))
    return None


_FIELD = re.compile(
    r"(?:^|\n)(?:Stdout|Output):[ \t]?(.*?)(?=\n(?:Stderr|Error|Exit Code|Signal|Background PIDs|"
    r"Process Group PGID):|\Z)",
    re.S,
)


def output_of(screen: str, line: str, domain: str) -> str | None:
    span = output_span(screen, line, domain)
    if span is None:
        return None
    body = screen[span[0] : span[1]]
    return "" if body.strip() == "(empty)" else body


class ShellChecker(Checker):
    """Terminal and swe steps, checked by the offline shell as a shadow."""

    def __init__(self, domain: str) -> None:
        self.domain = domain

    def _targets(self, facts: dict[str, Any], words: list[str]) -> list[str]:
        vm = _machine(facts)
        return [F.norm(w, vm.cwd) for w in words[1:] if not w.startswith("-")]

    def check(self, facts: dict[str, Any], action: BaseModel, text: str, context: dict[str, Any]) -> Verdict:
        file_verdict = self._check_file_tool(facts, action, text)
        if file_verdict is not None:
            return file_verdict
        lines = command_lines(action, self.domain)
        if len(lines) != 1:
            return Verdict()
        words = _words(lines[0])
        if not words:
            return Verdict()
        shown = output_of(text, lines[0], self.domain)
        if shown is None:
            return Verdict()
        targets = self._targets(facts, words)
        if words[0] in _EXACT and targets:
            facts_of = [F.known(facts, t) for t in targets]
            if any(f is None or f[0] == F.PRESENT for f in facts_of):
                return Verdict()
            expected = self._shadow_output(facts, lines[0])
            if F.same_text(expected, shown):
                return Verdict(checked=True)
            turn, source = max((f[1], f[2]) for f in facts_of if f is not None)
            return Verdict([Contradiction("content", " ".join(targets), expected, shown, turn, source)], True)
        if words[0] == "ls":
            directory = targets[0] if targets else _machine(facts).cwd
            if "No such file" in shown:
                return Verdict()
            names = _ls_names(shown, "-l" in " ".join(words[1:]))
            found = F.check_listing(
                facts, directory, names, F.repeated(shown) if "-l" not in words else set()
            )
            return Verdict(found, True)
        return Verdict()

    def _check_file_tool(self, facts: dict[str, Any], action: BaseModel, text: str) -> Verdict | None:
        if self.domain != "swe":
            return None
        name = str(getattr(action, "tool_name", ""))
        path = _tool_path(action)
        if name in _READ_TOOLS and path:
            body = text
            is_error = F.says_missing(text[:200]) and F.known(facts, path) is not None
            return Verdict(F.check_read(facts, path, body, is_error), F.known(facts, path) is not None)
        return Verdict() if name in _WRITE_TOOLS + _EDIT_TOOLS else None

    def _shadow_output(self, facts: dict[str, Any], line: str) -> str:
        vm = _machine(facts)
        result = vm.run(line)
        return str(result.output)

    def substitute(
        self, facts: dict[str, Any], action: BaseModel, text: str, verdict: Verdict, context: dict[str, Any]
    ) -> str:
        name = str(getattr(action, "tool_name", ""))
        path = _tool_path(action)
        if self.domain == "swe" and name in _READ_TOOLS and path:
            fact = F.known(facts, path)
            if fact is not None and fact[0] is F.ABSENT:
                return f"Error: File not found: {path}"
            return text if fact is None or fact[0] == F.PRESENT else str(fact[0])
        lines = command_lines(action, self.domain)
        words = _words(lines[0]) if len(lines) == 1 else None
        shown = output_of(text, lines[0], self.domain) if words else None
        if not words or shown is None:
            return text
        if words[0] == "ls":
            directory = (self._targets(facts, words) or [_machine(facts).cwd])[0]
            fixed = F.fixed_listing(facts, directory, "\n".join(sorted(_ls_names(shown, False))))
            columns = any("  " in line.strip() for line in shown.splitlines()) or "\n" not in shown.strip()
            replacement = "  ".join(fixed.split("\n")) if columns else fixed
        else:
            replacement = self._shadow_output(facts, lines[0]).rstrip("\n")
        span = output_span(text, lines[0], self.domain)
        assert span is not None
        start, end = span
        if self.domain == "terminal" and start == end and replacement and text[start : start + 1] != "\n":
            replacement += "\n"
        elif self.domain == "terminal" and start < end and not replacement:
            end += 1
        return text[:start] + replacement + text[end:]

    def commit(
        self,
        facts: dict[str, Any],
        action: BaseModel,
        text: str,
        is_error: bool,
        turn: int,
        context: dict[str, Any],
    ) -> None:
        if self.domain == "swe" and self._commit_file_tool(facts, action, text, is_error, turn):
            return
        for line in command_lines(action, self.domain):
            self._commit_line(facts, line, text, turn)

    def _commit_file_tool(
        self, facts: dict[str, Any], action: BaseModel, text: str, is_error: bool, turn: int
    ) -> bool:
        name = str(getattr(action, "tool_name", ""))
        path = _tool_path(action)
        args = getattr(action, "arguments", {}) or {}
        if not path or name not in _READ_TOOLS + _WRITE_TOOLS + _EDIT_TOOLS:
            return False
        vm = _machine(facts)
        if name in _READ_TOOLS:
            missing = F.says_missing(text[:200]) and is_error
            F.learn_read(facts, path, text, missing, turn)
        elif is_error:
            return True
        elif name in _WRITE_TOOLS and isinstance(args.get("content"), str):
            F.establish(facts, path, args["content"], turn, "agent")
        else:
            _commit_edit(facts, path, args, turn)
        fact = F.known(facts, path)
        _sync(vm, path, fact)
        return True

    def _commit_line(self, facts: dict[str, Any], line: str, text: str, turn: int) -> None:
        vm = _machine(facts)
        words = _words(line)
        shown = output_of(text, line, self.domain)
        targets = self._targets(facts, words) if words else []
        if words and words[0] == "cat" and shown is not None and len(targets) == 1:
            fact = F.known(facts, targets[0])
            if fact is None or fact[0] == F.PRESENT:  # what the model showed first is the content
                F.learn_read(facts, targets[0], shown, "No such file" in shown, turn)
                _sync(vm, targets[0], F.known(facts, targets[0]))
            return
        if words and words[0] == "ls" and shown is not None and "No such file" not in shown:
            directory = (self._targets(facts, words) or [vm.cwd])[0]
            F.learn_listing(facts, directory, _ls_names(shown, "-l" in line), turn)
            return
        before = vm.fs.now()
        existed = {p for p in F.files(facts) if vm.fs.exists(p)}
        removed = _rm_targets(line, vm.cwd)
        whole = _whole_writes(line, vm.cwd)
        result = vm.run(line)
        clean = result.exit_code == 0 and not result.stderr and not result.unknown_effect
        for path in _changed(vm.fs, before):
            fact = F.known(facts, path)
            if clean and (path in whole or (fact is not None and fact[0] not in (F.ABSENT, F.PRESENT))):
                F.establish(facts, path, vm.fs.read_text(path), turn, "agent")
            else:
                F.forget(facts, path)
        for path in removed:
            F.establish(facts, path, F.ABSENT, turn, "agent")
        for path in existed:
            if not vm.fs.exists(path) and path not in removed:
                F.establish(facts, path, F.ABSENT, turn, "agent")


def _sync(vm: Any, path: str, fact: list[Any] | None) -> None:
    """Put what is known of ``path`` into the shadow's filesystem."""
    try:
        if fact is None or fact[0] is F.ABSENT:
            if vm.fs.is_file(path):
                vm.fs.remove(path)
        elif fact[0] != F.PRESENT:
            vm.fs.mkdir(posixpath.dirname(path), parents=True)
            vm.fs.write(path, str(fact[0]))
    except Exception:  # the shadow cannot hold it (a directory in the way): it stays unknown
        return


def _changed(fs: Any, since: int) -> list[str]:
    found = []
    for directory, _dirs, names in fs.walk("/"):
        for name in names:
            path = posixpath.join(directory, name)
            try:
                node = fs.lstat(path)
            except Exception:
                continue
            if getattr(node, "mtime", 0) > since and hasattr(node, "content"):
                found.append(path)
    return found


def _rm_targets(line: str, cwd: str) -> set[str]:
    words = _words(line)
    if not words or words[0] != "rm":
        return set()
    return {F.norm(w, cwd) for w in words[1:] if not w.startswith("-")}


def _whole_writes(line: str, cwd: str) -> set[str]:
    """Files a line writes whole: targets of ``>`` (not ``>>``), of ``tee`` without ``-a``, and
    the destination of ``cp``/``mv``."""
    found = {F.norm(m, cwd) for m in re.findall(r"(?<![>&0-9])>\s*([^\s;&|<>]+)", line)}
    for part in re.split(r"[;&|]+", line):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if words and words[0] == "tee" and "-a" not in words:
            found.update(F.norm(w, cwd) for w in words[1:] if not w.startswith("-"))
        if words and words[0] in ("cp", "mv") and len([w for w in words[1:] if not w.startswith("-")]) == 2:
            found.add(F.norm(words[-1], cwd))
    return found


def _ls_names(shown: str, long: bool) -> set[str]:
    names = set()
    for line in shown.splitlines():
        if long:
            parts = line.split()
            if len(parts) >= 9:
                names.add(parts[-1])
        else:
            names.update(part.rstrip("/*") for part in line.split())
    return names - {".", ".."}


def _tool_path(action: BaseModel) -> str | None:
    args = getattr(action, "arguments", {}) or {}
    for key in ("file_path", "absolute_path", "path"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return F.norm(value, "/app")
    return None

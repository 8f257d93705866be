"""``mcp-server-git``: git on the world's machine, answered in the server's text forms.

The repositories are the offline shell's (:mod:`agentworld_plugins.offline.shell.vcs.git`), on the
filesystem the session's file tools use: in a named world that is the machine the shell fronts
share, so a ``git commit`` typed in the shim is in ``git_log`` here, and the other way round.

Facts taken from the server (2026.10.19, ``mcp_server_git/server.py``): ``git_status`` answers
"Repository status:" and ``git status``'s output; the diffs "Unstaged changes:", "Staged
changes:", "Diff with TARGET:" and ``git diff --unified=N`` (``--cached``, TARGET); ``git_add``
"Files staged successfully"; ``git_reset`` "All staged changes reset"; ``git_commit`` "Changes
committed successfully with hash SHA", refused with nothing staged; ``git_log`` "Commit history:"
and per commit ``Commit:``, ``Author:``, ``Date:`` (Python's ``str`` of the author date),
``Message:`` lines; ``git_create_branch`` "Created branch 'B' from 'BASE'"; ``git_checkout``
"Switched to branch 'B'"; failures read "Error executing tool NAME: ...". Output is the command's,
as the offline git writes it (docs/shell.md lists where it differs from git's).
"""

from __future__ import annotations

import shlex
from datetime import datetime, timezone
from typing import Any

__all__ = ["GitServer"]

_NOT_STAGED = (
    "No changes staged for commit. Use git_add to stage changes first; git_status shows what is "
    "currently staged."
)


#: separators of git log's fields and records (text no commit message holds)
_FIELD, _RECORD = "@@agentworld-field@@", "@@agentworld-record@@"


class _Refused(Exception):
    pass


class GitServer:
    """The server's tools on an offline shell of the world's filesystem."""

    def __init__(self, fs: Any) -> None:
        self.fs = fs

    def _git(self, repo: str, *args: str) -> str:
        from ...shell import VirtualMachine

        if not self.fs.is_dir(repo):
            raise _Refused(f"{repo}: not a directory")
        vm = VirtualMachine(self.fs, repo, interactive=False)
        done = vm.run("git " + " ".join(shlex.quote(a) for a in args))
        if done.exit_code != 0:
            raise _Refused((done.stderr or done.stdout).strip() or f"git {args[0]} failed ({done.exit_code})")
        return done.stdout[:-1] if done.stdout.endswith("\n") else done.stdout  # GitPython strips it

    def _identity(self, repo: str) -> tuple[str, ...]:
        """GitPython's fallback where git has no identity: ``user@host`` (it never refuses)."""
        try:
            self._git(repo, "config", "user.email")
            return ()
        except _Refused:
            from ...shell import VirtualMachine

            vm = VirtualMachine(self.fs, repo, interactive=False)
            return ("-c", f"user.name={vm.user}", "-c", f"user.email={vm.user}@{vm.hostname}")

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        try:
            repo = str(arguments.get("repo_path") or "")
            if not repo:
                raise _Refused("Missing required argument: repo_path")
            return self._call(name, repo, arguments), None, False
        except _Refused as exc:
            return f"Error executing tool {name}: {exc}", None, True

    def _call(self, name: str, repo: str, arguments: dict[str, Any]) -> str:
        lines = f"--unified={int(arguments.get('context_lines', 3))}"
        if name == "git_status":
            return f"Repository status:\n{self._git(repo, 'status')}"
        if name == "git_diff_unstaged":
            return f"Unstaged changes:\n{self._git(repo, 'diff', lines)}"
        if name == "git_diff_staged":
            return f"Staged changes:\n{self._git(repo, 'diff', lines, '--cached')}"
        if name == "git_diff":
            target = str(arguments.get("target", ""))
            if target.startswith("-"):
                raise _Refused(f"Invalid target: '{target}' - cannot start with '-'")
            return f"Diff with {target}:\n{self._git(repo, 'diff', lines, target)}"
        if name == "git_add":
            files = [str(f) for f in arguments.get("files") or []]
            self._git(repo, "add", "--", *files)
            return "Files staged successfully"
        if name == "git_reset":
            self._git(repo, "reset")
            return "All staged changes reset"
        if name == "git_commit":
            if not self._git(repo, "diff", "--cached", "--name-only").strip() and self._has_head(repo):
                raise _Refused(_NOT_STAGED)
            self._git(repo, *self._identity(repo), "commit", "-m", str(arguments.get("message", "")))
            return f"Changes committed successfully with hash {self._git(repo, 'rev-parse', 'HEAD')}"
        if name == "git_log":
            return "Commit history:\n" + "\n".join(self._log(repo, int(arguments.get("max_count", 10))))
        if name == "git_create_branch":
            branch, base = str(arguments.get("branch_name", "")), arguments.get("base_branch")
            base_name = str(base) if base else self._git(repo, "rev-parse", "--abbrev-ref", "HEAD")
            self._git(repo, "branch", branch, base_name)
            return f"Created branch '{branch}' from '{base_name}'"
        if name == "git_checkout":
            branch = str(arguments.get("branch_name", ""))
            self._git(repo, "checkout", branch)
            return f"Switched to branch '{branch}'"
        if name == "git_show":
            return self._git(repo, "show", str(arguments.get("revision", "HEAD")))
        if name == "git_branch":
            return self._git(repo, "branch")
        raise _Refused(f"Unknown tool: {name}")

    def _has_head(self, repo: str) -> bool:
        try:
            self._git(repo, "rev-parse", "HEAD")
        except _Refused:
            return False
        return True

    def _log(self, repo: str, count: int) -> list[str]:
        if not self._has_head(repo):
            return []
        raw = self._git(
            repo, "log", f"-n{max(0, count)}", f"--format=%H{_FIELD}%an{_FIELD}%at{_FIELD}%B{_RECORD}"
        )
        entries = []
        for record in raw.split(_RECORD):
            fields = record.strip("\n").split(_FIELD)
            if len(fields) != 4:
                continue
            sha, author, when, message = fields
            # GitPython's authored_datetime, as the server prints it: 2026-01-15 09:30:19+00:00
            stamp = str(datetime.fromtimestamp(int(when), tz=timezone.utc)) if when.isdigit() else when
            entries.append(f"Commit: {sha}\nAuthor: {author}\nDate: {stamp}\nMessage: {message}\n")
        return entries

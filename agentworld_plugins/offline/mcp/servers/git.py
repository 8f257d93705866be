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


def _no_flag(what: str, value: str) -> None:
    if value.startswith("-"):
        raise _Refused(f"Invalid {what}: '{value}' - cannot start with '-'")


class GitServer:
    """The server's tools on an offline shell of the world's filesystem."""

    def __init__(self, fs: Any) -> None:
        self.fs = fs
        #: messages of the commits this server made, as given (GitPython's index.commit keeps a
        #: message as it is; the offline git, like git, ends it with a newline)
        self.messages: dict[str, str] = {}

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
            self._resolve(repo, target)  # the server looks the target up first, as a ref
            return f"Diff with {target}:\n{self._git(repo, 'diff', lines, target)}"
        if name == "git_add":
            return self._add(repo, [str(f) for f in arguments.get("files") or []])
        if name == "git_reset":
            self._git(repo, "reset")
            return "All staged changes reset"
        if name == "git_commit":
            if not self._git(repo, "diff", "--cached", "--name-only").strip() and self._has_head(repo):
                raise _Refused(_NOT_STAGED)
            message = str(arguments.get("message", ""))
            self._git(repo, *self._identity(repo), "commit", "-q", "-m", message)
            sha = self._git(repo, "rev-parse", "HEAD")
            self.messages[sha] = message
            return f"Changes committed successfully with hash {sha}"
        if name == "git_log":
            return "Commit history:\n" + "\n".join(self._log(repo, int(arguments.get("max_count", 10))))
        if name == "git_create_branch":
            branch, base = str(arguments.get("branch_name", "")), arguments.get("base_branch")
            _no_flag("branch name", branch)
            base_name = str(base) if base else self._git(repo, "rev-parse", "--abbrev-ref", "HEAD")
            if branch in self._branches(repo):
                raise _Refused(f"Cannot create branch '{branch}': refs/heads/{branch} already exists")
            self._git(repo, "branch", branch, base_name)
            return f"Created branch '{branch}' from '{base_name}'"
        if name == "git_checkout":
            branch = str(arguments.get("branch_name", ""))
            _no_flag("branch name", branch)
            self._resolve(repo, branch)
            self._git(repo, "checkout", "-q", branch)
            active = self._git(repo, "rev-parse", "--abbrev-ref", "HEAD")
            if active == "HEAD":
                return f"HEAD is now detached at {self._git(repo, 'rev-parse', 'HEAD')[:7]}"
            return f"Switched to branch '{active}'"
        if name == "git_show":
            return self._show(repo, str(arguments.get("revision", "HEAD")))
        if name == "git_branch":
            return self._git(repo, "branch")
        raise _Refused(f"Unknown tool: {name}")

    def _branches(self, repo: str) -> list[str]:
        return [line[2:] for line in self._git(repo, "branch").splitlines() if not line.startswith("* (")]

    def _resolve(self, repo: str, revision: str) -> str:
        try:
            return self._git(repo, "rev-parse", "--verify", "-q", revision)
        except _Refused:
            raise _Refused(f"Ref '{revision}' did not resolve to an object") from None

    def _add(self, repo: str, files: list[str]) -> str:
        if not files:
            raise _Refused(
                "No files provided to stage. Pass one or more paths, or ['.'] to stage everything."
            )
        root = self.fs.normalize(repo)
        for path in files:
            inside = self.fs.normalize(path if path.startswith("/") else f"{root}/{path}")
            if inside != root and not inside.startswith(root.rstrip("/") + "/"):
                raise _Refused(f"Path '{path}' is outside the repository '{root}'")
        before = self._git(repo, "status", "--porcelain")
        self._git(repo, "add", "--", *files)
        if self._git(repo, "status", "--porcelain") == before:  # git add exits 0 staging nothing
            return (
                "No changes were staged: the given paths had nothing new to stage. git_status shows "
                "what is modified or untracked."
            )
        return "Files staged successfully"

    def _show(self, repo: str, revision: str) -> str:
        """The commit as the server writes it: a ``git show --date=iso``-like header, then each
        file's ``---``/``+++`` lines and hunks (GitPython's diff, without git's extended header)."""
        _no_flag("revision", revision)
        sha = self._resolve(repo, revision)
        head = self._git(repo, "show", "-s", f"--format=%an{_FIELD}%ae{_FIELD}%at{_FIELD}%B", sha)
        author, email, when, message = head.split(_FIELD, 3)
        message = self.messages.get(sha, message)
        stamp = datetime.fromtimestamp(int(when), tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S %z")
        body = "".join(f"    {line}\n" for line in message.rstrip("\n").split("\n"))
        out = [f"commit {sha}\nAuthor: {author} <{email}>\nDate:   {stamp}\n\n{body}"]
        patch = "\n" + self._git(repo, "show", "--format=", sha)  # the first file's header opens it
        for section in patch.split("\ndiff --git ")[1:]:
            lines = section.split("\n")
            start = next((i for i, line in enumerate(lines) if line.startswith("--- ")), None)
            if start is None or start + 1 >= len(lines):
                continue
            hunks = "\n".join(lines[start + 2 :]).rstrip("\n")
            out.append(f"\n{lines[start]}\n{lines[start + 1]}\n" + (f"{hunks}\n" if hunks else ""))
        return "".join(out)

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
            repo,
            "log",
            f"--max-count={max(0, count)}",
            f"--format=%H{_FIELD}%an{_FIELD}%at{_FIELD}%B{_RECORD}",
        )
        entries = []
        for record in raw.split(_RECORD):
            fields = record.lstrip("\n").split(_FIELD)
            if len(fields) != 4:
                continue
            sha, author, when, message = fields
            message = self.messages.get(sha, message)
            # GitPython's authored_datetime, as the server prints it: 2026-01-15 09:30:19+00:00
            stamp = str(datetime.fromtimestamp(int(when), tz=timezone.utc)) if when.isdigit() else when
            entries.append(f"Commit: {sha}\nAuthor: {author}\nDate: {stamp}\nMessage: {message}\n")
        return entries

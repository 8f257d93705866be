"""Failures of shell commands as bash and the GNU tools (curl, wget, git, pip, apt, ...) report them."""

from __future__ import annotations

from ..targeting import ActionView
from .core import HTTP_STATUS, host_of, url_in

_NETWORK = {
    "curl",
    "wget",
    "git",
    "pip",
    "pip3",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "apt",
    "apt-get",
    "uv",
}


def _bash_local(
    kind: str, program: str, args: list[str], target: str | None, cwd: str
) -> tuple[list[str], int]:
    """Permission and not-found errors of local commands, as bash and coreutils word them."""
    denied = kind == "permission_denied"
    reason = "Permission denied" if denied else "No such file or directory"
    if not target:
        if denied:
            return [f"bash: {program}: Permission denied"], 126
        if program.startswith(("./", "/")):
            return [f"bash: {program}: No such file or directory"], 127
        return [f"bash: {program}: command not found"], 127
    if program in ("python", "python3"):
        shown = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
        errno = 13 if denied else 2
        return [f"{program}: can't open file '{shown}': [Errno {errno}] {reason}"], 2
    if program == "cd":
        return [f"bash: cd: {target}: {reason}"], 1
    if program == "ls":
        if denied:
            return [f"ls: cannot open directory '{target}': Permission denied"], 2
        return [f"ls: cannot access '{target}': No such file or directory"], 2
    if program == "rm":
        return [f"rm: cannot remove '{target}': {reason}"], 1
    if program == "mkdir":
        return [f"mkdir: cannot create directory '{target}': {reason}"], 1
    if program == "touch":
        return [f"touch: cannot touch '{target}': {reason}"], 1
    if program in ("cp", "mv"):
        operands = [a for a in args if not a.startswith("-")]
        if denied:
            return [f"{program}: cannot create regular file '{target}': Permission denied"], 1
        source = operands[0] if operands else target
        return [f"{program}: cannot stat '{source}': No such file or directory"], 1
    if program == "chmod" and denied:
        return [f"chmod: changing permissions of '{target}': Operation not permitted"], 1
    if program in ("grep", "egrep", "rg"):
        return [f"{program}: {target}: {reason}"], 2
    if program == "git" and denied:
        return ["fatal: Unable to create '.git/index.lock': Permission denied"], 128
    return [f"{program}: {target}: {reason}"], 1


def _bash_network(
    kind: str, program: str, args: list[str], command: str, timeout_s: int
) -> tuple[list[str], int] | None:
    """How the usual network clients report a fault, or None for other programs."""
    if program not in _NETWORK:
        return None
    url = url_in(command)
    status = HTTP_STATUS.get(kind)
    package = next(
        (a for a in reversed(args) if not a.startswith("-") and a not in ("install", "add", "i")),
        "",
    )
    if program == "curl":
        if not url and not any(not a.startswith("-") for a in args):  # curl takes bare hosts too
            return None
        if kind == "timeout":
            return [
                f"curl: (28) Operation timed out after {timeout_s * 1000 + 1} milliseconds with 0 bytes received"
            ], 28
        if kind == "connection_reset":
            return ["curl: (56) Recv failure: Connection reset by peer"], 56
        assert status is not None
        return [f"curl: (22) The requested URL returned error: {status[0]}"], 22
    if program == "wget":
        if not url:
            return None
        host = host_of(url)
        if kind == "timeout":
            return [
                f"Connecting to {host} ({host})|{host}|:443... failed: Connection timed out.",
                "Retrying.",
            ], 4
        if kind == "connection_reset":
            return [
                "HTTP request sent, awaiting response... Read error (Connection reset by peer) in headers.",
                "Retrying.",
            ], 4
        assert status is not None
        return [
            f"Connecting to {host} ({host})|{host}|:443... connected.",
            f"HTTP request sent, awaiting response... {status[0]} {status[1]}",
            f"ERROR {status[0]}: {status[1]}.",
        ], 8
    if program == "git":
        if not url and not (args and args[0] in ("clone", "fetch", "pull", "push", "ls-remote", "remote")):
            return None
        remote = url or "https://github.com/"
        host = host_of(remote, "github.com")
        if kind == "timeout":
            return [
                f"fatal: unable to access '{remote}': Failed to connect to {host} port 443 after {timeout_s * 1000} ms: Timeout was reached"
            ], 128
        if kind == "connection_reset":
            return [
                "error: RPC failed; curl 56 Recv failure: Connection reset by peer",
                "fatal: expected flush after ref listing",
            ], 128
        assert status is not None
        if kind == "not_found":
            return [
                "remote: Repository not found.",
                f"fatal: repository '{remote}' not found",
            ], 128
        if kind == "permission_denied":
            return [
                "remote: Permission to this repository denied.",
                f"fatal: unable to access '{remote}': The requested URL returned error: 403",
            ], 128
        return [f"fatal: unable to access '{remote}': The requested URL returned error: {status[0]}"], 128
    if program in ("pip", "pip3", "uv"):
        index = f"https://pypi.org/simple/{package or 'requests'}/"
        if kind == "timeout":
            return [
                "ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)"
            ], 1
        if kind == "connection_reset":
            return [
                "ERROR: Could not install packages due to an OSError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"
            ], 1
        if kind == "not_found":
            return [
                f"ERROR: Could not find a version that satisfies the requirement {package or 'requests'} (from versions: none)",
                f"ERROR: No matching distribution found for {package or 'requests'}",
            ], 1
        if kind == "permission_denied":
            return [
                f"ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.11/site-packages/{package or 'requests'}'",
                "Consider using the `--user` option or check the permissions.",
            ], 1
        assert status is not None
        return [f"ERROR: HTTP error {status[0]} while getting {index}"], 1
    if program in ("npm", "npx", "yarn", "pnpm"):
        registry = f"https://registry.npmjs.org/{package or 'express'}"
        if kind == "timeout":
            return [
                "npm ERR! code ETIMEDOUT",
                f"npm ERR! network request to {registry} failed, reason: connect ETIMEDOUT",
            ], 1
        if kind == "connection_reset":
            return ["npm ERR! code ECONNRESET", "npm ERR! network aborted"], 1
        if kind == "permission_denied":
            return [
                "npm ERR! code EACCES",
                "npm ERR! syscall mkdir",
                "npm ERR! path /usr/local/lib/node_modules",
                "npm ERR! errno -13",
            ], 243
        assert status is not None
        return [
            f"npm ERR! code E{status[0]}",
            f"npm ERR! {status[0]} {status[1]} - GET {registry}",
        ], 1
    # apt, apt-get
    mirror = "http://archive.ubuntu.com/ubuntu"
    if kind == "permission_denied":
        return [
            "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)",
            "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?",
        ], 100
    if kind == "not_found":
        return [f"E: Unable to locate package {package or 'curl'}"], 100
    if kind == "timeout":
        return [
            f"Err:1 {mirror} jammy InRelease",
            "  Could not connect to archive.ubuntu.com:80 (185.125.190.36), connection timed out",
        ], 100
    if kind == "connection_reset":
        return [
            f"Err:1 {mirror} jammy InRelease",
            "  Connection failed [IP: 185.125.190.36 80]",
        ], 100
    assert status is not None
    return [
        f"Err:1 {mirror} jammy InRelease",
        f"  {status[0]}  {status[1]} [IP: 185.125.190.36 80]",
    ], 100


def bash_failure(
    kind: str,
    command: str,
    view: ActionView,
    cwd: str,
    timeout_s: int,
    retry_after: int,
) -> tuple[list[str], int | None]:
    """The stderr lines and exit status of a failing command (exit None: still running)."""
    from ..targeting import last_operand, split_command

    # the simple command targeting picked out (``curl`` in ``cd /srv && curl x``), else the first
    line = view.focus or command
    program, args = split_command(line)
    program = program or "bash"
    target = last_operand(args)
    network = _bash_network(kind, program, args, line, timeout_s)
    if network is not None:
        return network
    if kind in ("permission_denied", "not_found"):
        return _bash_local(kind, program, args, target, cwd)
    if kind == "timeout":
        return [], None  # the command hangs: no output, no prompt
    if program in ("python", "python3") and target:
        script = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
        url = url_in(line) or "https://api.example.com/v1/items"
        last = {
            "rate_limit": f"requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: {url}",
            "server_error": f"requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: {url}",
        }.get(kind, "ConnectionResetError: [Errno 104] Connection reset by peer")
        return [
            "Traceback (most recent call last):",
            f'  File "{script}", line 1, in <module>',
            last,
        ], 1
    if kind == "rate_limit":
        return [
            f"{program}: error: 429 Too Many Requests (rate limit exceeded, retry after {retry_after} seconds)"
        ], 1
    if kind == "server_error":
        return [f"{program}: error: 500 Internal Server Error"], 1
    return [f"{program}: error: Connection reset by peer"], 1

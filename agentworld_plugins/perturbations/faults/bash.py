"""Failures of shell commands as bash and the GNU tools (curl, wget, git, pip, apt, ...) report them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..targeting import ActionView
from .core import HTTP_STATUS, host_of, url_in


@dataclass
class ShellFailure:
    """What a failing command line shows: its stderr lines, its exit status (None: it hangs) and
    the stdout lines it printed before or instead (an error page)."""

    stderr: list[str]
    status: int | None
    stdout: list[str] = field(default_factory=list)


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


def _curl(kind: str, args: list[str], status: tuple[int, str] | None, timeout_s: int) -> ShellFailure:
    """curl as its options make it report a fault: an HTTP error status is a success that prints
    the server's error page unless ``-f``/``--fail`` (exit 22, message ``(22)``); ``-s`` hides
    curl's own message (``-S`` shows it again); ``--fail-with-body`` prints the page and exits 22."""
    flags = curl_flags(args)
    quiet = "silent" in flags and "show-error" not in flags
    if kind == "timeout":
        message = (
            f"curl: (28) Operation timed out after {timeout_s * 1000 + 1} milliseconds with 0 bytes received"
        )
        return ShellFailure([] if quiet else [message], 28)
    if kind == "connection_reset":
        return ShellFailure([] if quiet else ["curl: (56) Recv failure: Connection reset by peer"], 56)
    assert status is not None
    page = _error_page(status)
    if "fail-with-body" in flags:
        shown = [] if quiet else [f"curl: (22) The requested URL returned error: {status[0]}"]
        return ShellFailure(shown, 22, stdout=page)
    if "fail" in flags:
        return ShellFailure(
            [] if quiet else [f"curl: (22) The requested URL returned error: {status[0]}"], 22
        )
    return ShellFailure([], 0, stdout=page)  # curl's job was done: it got an answer


_CURL_SHORT = {"s": "silent", "S": "show-error", "f": "fail"}
_CURL_LONG = {
    "--silent": "silent",
    "--show-error": "show-error",
    "--fail": "fail",
    "--fail-with-body": "fail-with-body",
}
#: curl's short options that take a value (the rest of a bundle after one is that value)
_CURL_VALUED = set("ouHdXAeEKmrTwxyYzbcCDFPQtU")


def curl_flags(args: list[str]) -> set[str]:
    """The options of a curl command line that decide how it reports errors."""
    found: set[str] = set()
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):
            if arg in _CURL_LONG:
                found.add(_CURL_LONG[arg])
            continue
        if arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                if letter in _CURL_SHORT:
                    found.add(_CURL_SHORT[letter])
                if letter in _CURL_VALUED:
                    break
    return found


def _error_page(status: tuple[int, str]) -> list[str]:
    """The error page a web server (nginx) sends with an error status."""
    title = f"{status[0]} {status[1]}"
    return [
        "<html>",
        f"<head><title>{title}</title></head>",
        "<body>",
        f"<center><h1>{title}</h1></center>",
        "<hr><center>nginx</center>",
        "</body>",
        "</html>",
    ]


def _bash_network(
    kind: str, program: str, args: list[str], command: str, timeout_s: int
) -> ShellFailure | tuple[list[str], int] | None:
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
        return _curl(kind, args, status, timeout_s)
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


#: programs that do no network I/O: an HTTP status or a dropped connection cannot be their error
_LOCAL = """echo printf cat ls cd pwd cp mv rm rmdir mkdir touch ln chmod chown chgrp grep egrep fgrep sed
    awk head tail wc sort uniq cut tr tee diff cmp find xargs stat file du df basename dirname
    realpath readlink seq yes true false test [ export unset env printenv which type command
    alias source . set shopt read sleep date whoami id uname hostname ps kill jobs history
    less more nano vi vim tar gzip gunzip zip unzip md5sum sha256sum base64 od dd nl rev tac
    column join paste split expr bc"""
LOCAL_PROGRAMS = frozenset(_LOCAL.split())
#: the kinds that only a program talking to a server can suffer
NETWORK_KINDS = ("rate_limit", "server_error", "connection_reset")


def fault_applies(kind: str, program: str) -> bool:
    """Whether ``program`` can fail with ``kind`` (a local tool cannot be rate limited)."""
    return not (kind in NETWORK_KINDS and program in LOCAL_PROGRAMS)


_REDIRECT = re.compile(r"^(\d*|&)(>>|>\||>&?|<)(.*)$")


def _redirections(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``(arguments without redirections, files written by > and >>, files read by <)``."""
    kept: list[str] = []
    written: list[str] = []
    read: list[str] = []
    pending: list[str] | None = None
    for arg in args:
        if pending is not None:
            pending.append(arg)
            pending = None
            continue
        match = _REDIRECT.match(arg)
        if match is None:
            kept.append(arg)
            continue
        into = read if match.group(2) == "<" else written
        target = match.group(3)
        if match.group(2) == ">&" or target.startswith("&"):  # 2>&1: a descriptor, no file
            continue
        if target:
            into.append(target)
        else:
            pending = into
    return kept, written, read


def _redirection_error(kind: str, written: list[str], read: list[str]) -> ShellFailure | None:
    """bash's own message when a redirection fails: it opens the files before the command runs."""
    if kind == "permission_denied" and written:
        return ShellFailure([f"bash: {written[-1]}: Permission denied"], 1)
    if kind == "not_found" and read:
        return ShellFailure([f"bash: {read[0]}: No such file or directory"], 1)
    return None


def _pipeline_rest(command: str, line: str) -> list[str]:
    """The commands ``line`` (one simple command of ``command``) pipes its output into."""
    at = command.find(line) if line else -1
    rest = command[at + len(line) :] if at >= 0 else ""
    stage = re.split(r"&&|\|\||;|\n", rest, maxsplit=1)[0]
    parts = [p.strip() for p in re.split(r"(?<!\|)\|(?!\|)", stage)]
    return [p for p in parts[1:] if p] if parts and not parts[0] else []


def _through_pipeline(failure: ShellFailure, rest: list[str], pipefail: bool) -> ShellFailure:
    """A failing command's result after the commands it pipes into: they read what it printed
    (``head``/``tail``/``cat`` keep lines of it, ``grep`` filters it, ``wc -l`` counts it) and the
    last one's status is the line's, unless ``set -o pipefail``."""
    from ..targeting import split_command

    if failure.status is None:
        return failure  # it hangs: so does the pipeline
    lines, status = list(failure.stdout), 0
    for stage in rest:
        program, args = split_command(stage)
        numbers = [int(a.lstrip("-n") or 0) for a in args if re.fullmatch(r"-n?\d+", a)]
        if program == "head":
            lines = lines[: numbers[0] if numbers else 10]
        elif program == "tail":
            lines = lines[-(numbers[0] if numbers else 10) :] if lines else []
        elif program in ("grep", "egrep", "fgrep"):
            words = [a for a in args if not a.startswith("-")]
            lines = [ln for ln in lines if words and words[0] in ln]
            status = 0 if lines else 1
            continue
        elif program == "wc" and "-l" in args:
            lines = [str(len(lines))]
        elif program not in ("cat", "tee"):
            lines = []  # what another program makes of the page is not known here: nothing shown
        status = 0
    if pipefail and failure.status:
        status = failure.status
    return ShellFailure(failure.stderr, status, stdout=lines)


def bash_failure(
    kind: str,
    command: str,
    view: ActionView,
    cwd: str,
    timeout_s: int,
    retry_after: int,
) -> ShellFailure:
    """What a command line shows when its command fails with ``kind``: stderr lines, exit status
    (None: still running) and any stdout (curl's error page), through the pipeline it is in."""
    from ..targeting import split_command

    # the simple command targeting picked out (``curl`` in ``cd /srv && curl x``), else the first
    line = view.focus or command
    program, args = split_command(line)
    program = program or "bash"
    failure = _failure(kind, program, args, line, cwd, timeout_s, retry_after)
    first = line if view.focus else re.split(r"&&|\|\||;|\||\n", command, maxsplit=1)[0].strip()
    rest = _pipeline_rest(command, first)
    if rest:
        failure = _through_pipeline(failure, rest, "pipefail" in command)
    return failure


def _failure(
    kind: str, program: str, args: list[str], line: str, cwd: str, timeout_s: int, retry_after: int
) -> ShellFailure:
    from ..targeting import last_operand

    args, written, read = _redirections(args)
    redirected = _redirection_error(kind, written, read)
    if redirected is not None:
        return redirected
    target = last_operand(args)
    network = _bash_network(kind, program, args, line, timeout_s)
    if isinstance(network, ShellFailure):
        return network
    if network is not None:
        return ShellFailure(*network)
    if kind in ("permission_denied", "not_found"):
        if target is None and written and kind == "not_found":
            return ShellFailure([f"bash: {written[-1]}: No such file or directory"], 1)
        return ShellFailure(*_bash_local(kind, program, args, target, cwd))
    if kind == "timeout":
        return ShellFailure([], None)  # the command hangs: no output, no prompt
    if program in ("python", "python3") and target:
        script = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
        url = url_in(line) or "https://api.example.com/v1/items"
        last = {
            "rate_limit": f"requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: {url}",
            "server_error": f"requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: {url}",
        }.get(kind, "ConnectionResetError: [Errno 104] Connection reset by peer")
        return ShellFailure(
            [
                "Traceback (most recent call last):",
                f'  File "{script}", line 1, in <module>',
                last,
            ],
            1,
        )
    if kind == "rate_limit":
        return ShellFailure(
            [
                f"{program}: error: 429 Too Many Requests (rate limit exceeded, retry after {retry_after} seconds)"
            ],
            1,
        )
    if kind == "server_error":
        return ShellFailure([f"{program}: error: 500 Internal Server Error"], 1)
    return ShellFailure([f"{program}: error: Connection reset by peer"], 1)

"""The ``bash`` / ``sh`` shim: a program that looks like bash and simulates every command.

``agentworld shim install DIR`` writes ``DIR/bash`` and ``DIR/sh``, small scripts that load this
file. With ``DIR`` first on ``PATH``::

    bash -c 'echo hi > a.txt; cat a.txt'       # hi
    bash -lc 'ls'                              # README.md a.txt main.py requirements.txt
    echo 'wc -l a.txt' | bash                  # a script on stdin
    bash                                       # an interactive shell (for pexpect-driven agents)

Nothing is run on the host: the command text goes to the virtual terminal of the session named
by ``AGENTWORLD_SESSION`` (default ``default``) in ``AGENTWORLD_HOME`` (see :mod:`.service`),
and the simulated stdout, stderr and exit status come back as a real shell's would. Options are
parsed as bash parses them (``-c``, ``-l``, ``-i``, ``-s``, ``-e``, ``-o pipefail``, ``-O
shopt``, ``--norc``, ...); one bash rejects gets bash's message and exit status 2.

Speed: importing the simulation (pydantic, bashlex, ...) takes a second or more, far too long
for every ``bash -c``. So this file imports nothing but built-in modules and forwards each
request over a Unix socket to a long-lived helper, :mod:`.daemon`, started on first use and gone
after ``AGENTWORLD_SHIM_IDLE`` seconds (default 900) without requests. ``AGENTWORLD_SHIM_DAEMON=0``
(or a helper that cannot start) makes the shim serve itself in-process instead: the same
answers, slowly.

Other variables: ``AGENTWORLD_SHIM_STDIN`` (``auto``: feed stdin to ``-c`` commands when data
is waiting on it; ``never``; ``always``), ``AGENTWORLD_SHIM_START_TIMEOUT`` (seconds to wait
for the helper to start, default 30).
"""

from __future__ import annotations

import os
import sys

__all__ = ["Invocation", "ShimExit", "build_token", "caller_env", "main", "parse_args", "socket_path"]

BASH_VERSION = "5.2.21(1)-release"
VERSION_TEXT = (
    f"GNU bash, version {BASH_VERSION} (x86_64-pc-linux-gnu)\n"
    "Copyright (C) 2022 Free Software Foundation, Inc.\n"
    "License GPLv3+: GNU GPL version 3 or later <http://gnu.org/licenses/gpl.html>\n"
    "\n"
    "This is free software; you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n"
)
_LONG_OPTIONS = (
    "debug",
    "debugger",
    "dump-po-strings",
    "dump-strings",
    "help",
    "init-file",
    "login",
    "noediting",
    "noprofile",
    "norc",
    "posix",
    "pretty-print",
    "rcfile",
    "restricted",
    "verbose",
    "version",
)
USAGE = (
    "Usage:\t{name} [GNU long option] [option] ...\n"
    "\t{name} [GNU long option] [option] script-file ...\n"
    "GNU long options:\n" + "".join(f"\t--{o}\n" for o in _LONG_OPTIONS) + "Shell options:\n"
    "\t-ilrsD or -c command or -O shopt_option\t\t(invocation only)\n"
    "\t-abefhkmnptuvxBCEHPT or -o option\n"
)
HELP_TAIL = (
    'Type `{name} -c "help set"\' for more information about shell options.\n'
    "Type `{name} -c help' for more information about shell builtin commands.\n"
    "Use the `bashbug' command to report bugs.\n"
)
_SET_LETTERS = "abefhkmnptuvxBCEHPT"
_INVOCATION_LETTERS = "ilrsD"
_SET_O_NAMES = """
    allexport braceexpand emacs errexit errtrace functrace hashall histexpand history ignoreeof
    interactive-comments keyword monitor noclobber noexec noglob nolog notify nounset onecmd
    physical pipefail posix privileged verbose vi xtrace
"""
_SET_O = _SET_O_NAMES.split()  # the names of `set -o`, in bash's order
_SHOPT_NAMES = """
    assoc_expand_once autocd cdable_vars cdspell checkhash checkjobs checkwinsize cmdhist compat31
    compat32 compat40 compat41 compat42 compat43 compat44 complete_fullquote direxpand dirspell
    dotglob execfail expand_aliases extdebug extglob extquote failglob force_fignore globasciiranges
    globskipdots globstar gnu_errfmt histappend histreedit histverify hostcomplete huponexit
    inherit_errexit interactive_comments lastpipe lithist localvar_inherit localvar_unset
    login_shell mailwarn no_empty_cmd_completion nocaseglob nocasematch noexpand_translation
    nullglob patsub_replacement progcomp progcomp_alias promptvars restricted_shell shift_verbose
    sourcepath varredir_close xpg_echo
"""
_SHOPT = _SHOPT_NAMES.split()  # the names of `shopt`, in bash's order
_DASH_LETTERS = "aCefhimnpsuvxEIlVbc"
#: bytes of stdin one command may receive
MAX_STDIN = 16 * 1024 * 1024
#: variables holding paths, made absolute before they reach the helper
_PATH_VARS = (
    "AGENTWORLD_HOME",
    "AGENTWORLD_SHELL_STATE",
    "AGENTWORLD_PERTURB_FILE",
    "AGENTWORLD_PROMPTS_DIR",
)


def _absolute_part(part: str) -> str:
    """A ``cassette:FILE`` / ``scenario:FILE`` part of a backend chain, its file made absolute."""
    name, sep, path = part.strip().partition(":")
    if not sep or name not in ("cassette", "scenario") or not path or os.path.isabs(os.path.expanduser(path)):
        return part
    return f"{name}:{os.path.abspath(os.path.expanduser(path))}"


#: the caller's variables a simulated bash does not take: the machine's own (its PATH, HOME,
#: user, terminal, locale), the host's paths and session plumbing, and anything secret-looking
# fmt: off
_HOST_PREFIXES = (
    "AGENTWORLD_", "BASH_", "LC_", "XDG_", "SSH_", "GPG_", "DBUS_", "TMUX", "TERM_", "PYTHON", "PYENV",
    "CONDA_", "VIRTUAL_ENV", "LD_", "DYLD_", "AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "GH_", "GITHUB_",
    "OPENAI_", "ANTHROPIC_", "HF_", "HUGGING", "NPM_", "PIP_", "DOCKER_",
)
_HOST_NAMES = frozenset((
    "PATH", "HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "HOSTNAME", "SHLVL", "TERM", "LANG",
    "LANGUAGE", "TZ", "TMPDIR", "MAIL", "MAILPATH", "DISPLAY", "WAYLAND_DISPLAY", "COLORTERM",
    "LS_COLORS", "PS1", "PS2", "PS4", "IFS", "ENV", "CDPATH", "_", "EUID", "UID", "PPID", "SHELLOPTS",
    "BASHOPTS", "HISTFILE", "INPUTRC", "MANPATH", "INFOPATH", "KUBECONFIG",
))
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "AUTH", "COOKIE",
                 "SESSION", "PRIVATE", "CERT")
# fmt: on
#: a variable longer than this stays on the host (a command line is no place for it)
_ENV_VALUE_MAX = 4096
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _passes(name: str, value: str) -> bool:
    upper = name.upper()
    return (
        bool(name)
        and not name[0].isdigit()
        and set(name) <= _NAME_CHARS
        and upper not in _HOST_NAMES
        and not upper.startswith(_HOST_PREFIXES)
        and not any(word in upper for word in _SECRET_WORDS)
        and not upper.endswith("_PASS")
        and len(value) <= _ENV_VALUE_MAX
    )


def caller_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's exported variables a real ``bash -c`` would see (``FOO=bar bash -c 'echo
    $FOO'``), less the machine's own, the host's plumbing and anything secret-looking."""
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if _passes(k, v)}


class ShimExit(Exception):
    """Leave with ``code`` after writing ``stdout`` / ``stderr`` (bad options, --version, --help)."""

    def __init__(self, code: int, stderr: str = "", stdout: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.stderr = stderr
        self.stdout = stdout


class Invocation:
    """What a bash command line asks for."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.command: str | None = None
        self.script: str | None = None
        self.args: list[str] = []
        self.dollar0: str | None = None
        self.read_stdin = False
        self.interactive = False
        self.noexec = False
        self.set_letters = ""
        self.set_options: list[str] = []
        #: ``-O NAME``: shopt options turned on
        self.shopts: list[str] = []
        #: the caller's variables the command sees (:func:`caller_env`)
        self.env: dict[str, str] = {}

    def command_text(self) -> str:
        """The command line the simulated machine runs for this invocation."""
        if self.command is not None:
            text = self.command
            if self.name != "bash" and self.dollar0 is None and ("$0" in text or "${0" in text):
                self.dollar0 = self.name
            if self.dollar0 is not None or self.args:
                text = " ".join(
                    _quote(a) for a in ["bash", "-c", text, self.dollar0 or self.name, *self.args]
                )
        elif self.script is not None:
            text = " ".join(_quote(a) for a in ["bash", self.script, *self.args])
        else:
            text = ""
        flags, options = self.set_letters, self.set_options
        prefix = []
        if flags or options:
            prefix.append("set" + (f" -{flags}" if flags else "") + "".join(f" -o {o}" for o in options))
        if self.shopts:
            prefix.append("shopt -s " + " ".join(self.shopts))
        if prefix:
            text = "; ".join([*prefix, text])  # on line 1, so messages' `line N` count as bash -c's
        if self.env and text:  # the caller's environment, exported for this command only
            text = "export " + " ".join(f"{k}={_quote(v)}" for k, v in sorted(self.env.items())) + "; " + text
        return text


def _quote(text: str) -> str:
    if text and all(ch.isalnum() or ch in "@%+=:,./-_" for ch in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def _is_dash(name: str) -> bool:
    return name in ("sh", "dash")


def parse_args(name: str, args: list[str]) -> Invocation:
    """Parse a bash (or, for ``sh``, dash) command line; raise :class:`ShimExit` where the real
    shell would stop (invalid option: message and status 2; ``--version`` / ``--help``: 0)."""
    inv = Invocation(name)
    dash = _is_dash(name)
    wants_c = False
    i = 0
    # GNU long options come first
    while i < len(args) and args[i].startswith("--") and len(args[i]) > 2 and not dash:
        opt = args[i][2:]
        if opt not in _LONG_OPTIONS:
            raise ShimExit(2, f"{name}: --{opt}: invalid option\n" + USAGE.format(name=name))
        if opt == "version":
            raise ShimExit(0, stdout=VERSION_TEXT)
        if opt == "help":
            out = f"GNU bash, version {BASH_VERSION}-(x86_64-pc-linux-gnu)\n" + USAGE.format(name=name)
            raise ShimExit(0, stdout=out + HELP_TAIL.format(name=name))
        if opt in ("rcfile", "init-file"):
            if i + 1 >= len(args):
                raise ShimExit(2, f"{name}: {opt}: option requires an argument\n")
            i += 1
        i += 1
    while i < len(args):
        arg = args[i]
        if arg in ("--", "-"):
            i += 1
            break
        if dash and arg.startswith("--"):
            raise ShimExit(2, f"{name}: 0: Illegal option --\n")
        if len(arg) < 2 or arg[0] not in "-+":
            break
        on = arg[0] == "-"
        i += 1
        for letter in arg[1:]:
            if letter == "c":
                wants_c = True
            elif letter in "oO":
                if i >= len(args):
                    if letter == "o":
                        raise ShimExit(0, stdout="".join(f"{o:<15}\toff\n" for o in _SET_O))
                    raise ShimExit(2, f"{name}: -O: option requires an argument\n")
                value = args[i]
                i += 1
                if letter == "o" and value not in _SET_O:
                    raise ShimExit(2, f"{name}: line 0: {name}: {value}: invalid option name\n")
                if letter == "O" and value not in _SHOPT:
                    raise ShimExit(2, f"{name}: {value}: invalid shell option name\n")
                if letter == "o" and on:
                    inv.set_options.append(value)
                elif letter == "O" and on:
                    inv.shopts.append(value)
            elif (dash and letter in _DASH_LETTERS) or (
                not dash and letter in _SET_LETTERS + _INVOCATION_LETTERS
            ):
                if letter == "i":
                    inv.interactive = True
                elif letter == "s":
                    inv.read_stdin = True
                elif letter == "n":
                    inv.noexec = True
                elif on and letter in _SET_LETTERS:
                    inv.set_letters += letter
            elif dash:
                raise ShimExit(2, f"{name}: 0: Illegal option -{letter}\n")
            else:
                raise ShimExit(2, f"{name}: {arg[0]}{letter}: invalid option\n" + USAGE.format(name=name))
    rest = args[i:]
    if wants_c:
        if not rest:
            msg = (
                f"{name}: 0: -c requires an argument\n"
                if dash
                else f"{name}: -c: option requires an argument\n"
            )
            raise ShimExit(2, msg)
        inv.command = rest[0]
        if len(rest) > 1:
            inv.dollar0 = rest[1]
            inv.args = rest[2:]
    elif rest and not inv.read_stdin:
        inv.script = rest[0]
        inv.args = rest[1:]
    else:
        inv.read_stdin = True
        inv.args = rest
    return inv


# -- talking to the helper -------------------------------------------------------------------------


def build_token() -> str:
    """What the running helper must have been started from (this folder's sources, this Python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    newest = 0
    try:
        with os.scandir(here) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
    except OSError:
        pass
    return f"{sys.version_info[0]}.{sys.version_info[1]}:{newest}"


def home_dir(env: dict[str, str] | None = None) -> str:
    source = os.environ if env is None else env
    home = source.get("AGENTWORLD_HOME") or os.path.join(os.path.expanduser("~"), ".agentworld")
    return os.path.abspath(os.path.expanduser(home))


def socket_dir(home: str) -> str:
    """The private folder (0700, ours) of the helper's socket: ``home/run``, or when a socket path
    there would be too long for ``AF_UNIX``, a folder under ``$XDG_RUNTIME_DIR`` or ``/tmp``."""
    run = os.path.join(home, "run")
    if len(os.path.join(run, "shelld.sock").encode()) < 100:
        return run
    import zlib

    tag = f"agentworld-{os.getuid()}-{zlib.crc32(home.encode()):08x}"
    runtime = os.environ.get("XDG_RUNTIME_DIR") or ""
    if runtime and os.path.isabs(runtime) and len(os.path.join(runtime, tag, "shelld.sock").encode()) < 100:
        return os.path.join(runtime, tag)
    return os.path.join("/tmp", tag)


def socket_path(home: str) -> str:
    """The helper's socket for ``home``, inside :func:`socket_dir`."""
    return os.path.join(socket_dir(home), "shelld.sock")


def private_dir_problem(path: str) -> str | None:
    """Why ``path`` is not a folder only this user can enter (None when it is, or is absent)."""
    import stat

    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # nobody can have a socket there
        return None
    except OSError as exc:
        return str(exc)
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    if info.st_uid != os.getuid():
        return f"{path} belongs to uid {info.st_uid}, not to this user (uid {os.getuid()})"
    if info.st_mode & 0o077:
        return f"{path} is open to other users (mode {stat.S_IMODE(info.st_mode):o}, expected 700)"
    return None


def make_private_dir(path: str) -> None:
    """Create ``path`` (mode 0700) if needed; raise ``PermissionError`` unless it is private to us."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError:
        pass  # reported below, with the reason that matters
    problem = private_dir_problem(path) or (None if os.path.isdir(path) else f"cannot create {path}")
    if problem:
        raise PermissionError(problem)


def peer_uid(sock: object) -> int | None:
    """The user id of the process at the other end of a Unix socket, where the platform tells it."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        creds = sock.getsockopt(_socket.SOL_SOCKET, option, 12)  # type: ignore[attr-defined]
    except OSError:
        return None
    return int.from_bytes(creds[4:8], sys.byteorder)  # struct ucred: pid, uid, gid (32-bit each)


def socket_problem(path: str, sock: object | None = None) -> str | None:
    """Why the helper socket at ``path`` (connected as ``sock``) may belong to someone else."""
    problem = private_dir_problem(os.path.dirname(path))
    if problem:
        return problem
    try:
        owner = os.lstat(path).st_uid
    except OSError:
        owner = os.getuid()
    if owner != os.getuid():
        return f"{path} belongs to uid {owner}, not to this user (uid {os.getuid()})"
    uid = None if sock is None else peer_uid(sock)
    if uid is not None and uid != os.getuid():
        return f"the process serving {path} runs as uid {uid}, not as this user (uid {os.getuid()})"
    return None


def _send(sock: object, message: dict[str, object]) -> None:
    import marshal

    payload = marshal.dumps(message)
    sock.sendall(len(payload).to_bytes(4, "big") + payload)  # type: ignore[attr-defined]


def _recv_exact(sock: object, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))  # type: ignore[attr-defined]
        if not chunk:
            raise ConnectionError("the shell helper closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _recv(sock: object) -> dict[str, object]:
    import marshal

    size = int.from_bytes(_recv_exact(sock, 4), "big")
    message = marshal.loads(_recv_exact(sock, size))
    if not isinstance(message, dict):
        raise ConnectionError("the shell helper sent something unexpected")
    return message


class _Unavailable(Exception):
    """No helper answers and none could be started."""


class _Refused(Exception):
    """The helper's socket may be someone else's: nothing was sent to it."""


class _Client:
    """Requests to the helper, starting it on first use."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.home = home_dir(env)
        self.path = socket_path(self.home)
        self.token = build_token()

    def _connect(self) -> object | None:
        import _socket

        problem = socket_problem(self.path)
        if problem:
            raise _Refused(problem)
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.connect(self.path)
        except OSError:
            sock.close()
            return None
        problem = socket_problem(self.path, sock)
        if problem:
            sock.close()
            raise _Refused(problem)
        return sock

    def _start(self) -> object:
        import subprocess

        run_dir = os.path.join(self.home, "run")
        try:
            os.makedirs(run_dir, mode=0o700, exist_ok=True)
            log = os.fdopen(
                os.open(os.path.join(run_dir, "shelld.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
                "ab",
            )
        except OSError as exc:
            raise _Unavailable(str(exc)) from None
        with log:
            return subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "agentworld_plugins.adapters.shell.daemon",
                    "--home",
                    self.home,
                    "--build",
                    self.token,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                cwd="/",
                start_new_session=True,
                close_fds=True,
            )

    def connect(self) -> object:
        sock = self._connect()
        if sock is not None:
            return sock
        import time

        helper = self._start()
        deadline = time.monotonic() + float(os.environ.get("AGENTWORLD_SHIM_START_TIMEOUT") or 30)
        while time.monotonic() < deadline:
            time.sleep(0.02)
            sock = self._connect()
            if sock is not None:
                return sock
            code = helper.poll()  # type: ignore[attr-defined]
            if code is not None and code != 3:  # 3: another helper won the race and serves
                break
        raise _Unavailable("the shell helper did not start")

    def request(self, message: dict[str, object], sock: object | None = None) -> dict[str, object]:
        message = {**message, "env": self.env, "build": self.token}
        for _attempt in range(3):
            if sock is None:
                try:
                    sock = self.connect()
                except _Refused as exc:
                    return {"error": f"refusing to send commands to the shell helper socket: {exc}"}
            try:
                _send(sock, message)
                answer = _recv(sock)
            except OSError as exc:
                return {"error": f"lost the shell helper ({exc})"}
            finally:
                sock.close()  # type: ignore[attr-defined]
                sock = None
            if not answer.get("restart"):
                return answer
            import time

            time.sleep(0.05)  # an older helper is leaving: start the current one
        return {"error": "the shell helper keeps restarting"}


class _Local:
    """Requests served in this process (no helper)."""

    def __init__(self, env: dict[str, str]) -> None:
        try:
            from agentworld_plugins.adapters.shell.service import ShellService
        except ImportError as exc:
            _fail(f"{sys.executable} cannot import agentworld_plugins ({exc}); reinstall the shim")
            raise
        self.env = env
        self.service = ShellService()

    def request(self, message: dict[str, object]) -> dict[str, object]:
        return self.service.handle({**message, "env": self.env})


# -- the shell -------------------------------------------------------------------------------------


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")  # bytes that were not UTF-8 go out as they came in
    while data:
        try:
            written = os.write(fd, data)
        except BrokenPipeError:
            os._exit(141)
        except InterruptedError:
            continue
        data = data[written:]


def _read_stdin(wait: float | None) -> str | None:
    """What is waiting on stdin (None when it is a terminal or nothing comes within ``wait``);
    ``wait`` None reads to the end of the input, as a shell reading a script does."""
    try:
        if os.isatty(0):
            return None
    except OSError:
        return None
    import select

    chunks: list[bytes] = []
    total = 0
    try:
        if wait is not None and not select.select([0], [], [], wait)[0]:
            return None
        while total < MAX_STDIN:
            data = os.read(0, 1 << 16)
            if not data:
                break
            chunks.append(data)
            total += len(data)
            if wait is not None and not select.select([0], [], [], 0.5)[0]:
                break
    except (OSError, ValueError):
        pass
    return b"".join(chunks).decode("utf-8", "surrogateescape")


def _fail(message: str) -> None:
    _write(2, f"agentworld: {message}\n")
    sys.exit(1)


def _interactive(name: str, client: _Client | _Local, first: dict[str, object]) -> None:
    if "error" in first:
        _fail(str(first["error"]))
    prompt = str(first.get("prompt") or "$ ")
    status = 0
    stdin = sys.stdin
    while True:
        _write(2, prompt)
        try:
            line = stdin.readline()
        except KeyboardInterrupt:
            _write(2, "\n")
            if prompt.strip() == ">":
                answer = client.request({"op": "interrupt"})
                prompt = str(answer.get("prompt") or prompt)
            continue
        if not line:
            _write(2, "exit\n")
            sys.exit(status)
        try:
            answer = client.request({"op": "line", "text": line.rstrip("\n")})
        except KeyboardInterrupt:
            _write(2, "\n")
            continue
        if "error" in answer:
            _write(2, f"agentworld: {answer['error']}\n")
            continue
        output = str(answer.get("output") or "")
        if answer.get("exited") is not None:
            if output.endswith("exit\n"):  # bash says it on stderr
                output = output[:-5]
            _write(1, output)
            _write(2, "exit\n")
            sys.exit(int(answer["exited"]) & 0xFF)  # type: ignore[call-overload]
        _write(1, output)
        status = int(answer.get("status") or 0)  # type: ignore[call-overload]
        prompt = str(answer.get("prompt") or prompt)


def _full_python() -> bool:
    return not sys.flags.no_site


def _serve_locally(argv: list[str], name: str) -> None:
    """Continue in a Python that can import the package (this one, or one exec'd now)."""
    if _full_python():
        return
    os.environ["AGENTWORLD_SHIM_ARGV0"] = name
    os.environ["AGENTWORLD_SHIM_DAEMON"] = "0"
    os.execv(sys.executable, [sys.executable, "-m", "agentworld_plugins.adapters.shell.shim", *argv[1:]])


def main(argv: list[str] | None = None) -> None:
    """Behave as ``bash`` (or ``sh``) invoked with ``argv``; never returns."""
    argv = list(sys.argv if argv is None else argv)
    name = os.environ.pop("AGENTWORLD_SHIM_ARGV0", "") or os.path.basename(argv[0]) or "bash"
    if len(argv) > 2 and argv[1] == "--argv0" and argv[0].endswith(".py"):  # the /bin/sh trampoline
        name, argv = argv[2], [argv[0], *argv[3:]]
    if name.endswith(".py") or name == "__main__":
        name = "bash"
    try:
        inv = parse_args(name, argv[1:])
    except ShimExit as stop:
        _write(1, stop.stdout)
        _write(2, stop.stderr)
        sys.exit(stop.code)
    if inv.noexec:
        sys.exit(0)
    env = {k: v for k, v in os.environ.items() if k.startswith("AGENTWORLD_")}
    for key in _PATH_VARS:  # the helper runs elsewhere: relative paths are this process's
        if env.get(key):
            env[key] = os.path.abspath(os.path.expanduser(env[key]))
    if env.get("AGENTWORLD_BACKEND"):  # cassette:run.db is a file of this directory too
        env["AGENTWORLD_BACKEND"] = ",".join(map(_absolute_part, env["AGENTWORLD_BACKEND"].split(",")))
    env["AGENTWORLD_HOME"] = home_dir(env)
    client: _Client | _Local
    sock: object | None = None
    if os.environ.get("AGENTWORLD_SHIM_DAEMON", "1").strip().lower() in ("0", "no", "false", "off"):
        _serve_locally(argv, name)
        client = _Local(env)
    else:
        client = _Client(env)
        try:
            sock = client.connect()
        except _Refused as exc:
            _fail(
                f"refusing to send commands to the shell helper socket: {exc}; remove it or set AGENTWORLD_HOME"
            )
        except _Unavailable:
            _serve_locally(argv, name)
            client = _Local(env)
            sock = None
    interactive = inv.interactive or (inv.command is None and inv.script is None and _stdin_is_tty())
    if interactive:
        first = (
            client.request({"op": "prompt"}, sock)
            if isinstance(client, _Client)
            else client.request({"op": "prompt"})
        )
        _interactive(name, client, first)
    stdin_data: str | None = None
    if inv.command is None and inv.script is None:
        text = _read_stdin(None) or ""
        inv.command = text
    else:
        mode = os.environ.get("AGENTWORLD_SHIM_STDIN", "auto").strip().lower()
        if mode != "never":
            stdin_data = _read_stdin(None if mode == "always" else 0.02)
    inv.env = caller_env()
    request: dict[str, object] = {"op": "run", "command": inv.command_text(), "stdin": stdin_data or ""}
    answer = client.request(request, sock) if isinstance(client, _Client) else client.request(request)
    if "error" in answer:
        _fail(str(answer["error"]))
    _write(1, str(answer.get("stdout") or ""))
    for warning in answer.get("warnings") or ():  # what the world could not honour, once a session
        _write(2, f"agentworld: warning: {warning}\n")
    _write(2, str(answer.get("stderr") or ""))
    sys.exit(int(answer.get("exit_code") or 0) & 0xFF)  # type: ignore[call-overload]


def _stdin_is_tty() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


# -- installing ------------------------------------------------------------------------------------

NAMES = ("bash", "sh")
_SCRIPT = """#!{python} -IS
# Written by `agentworld shim install`: a simulated {name}. Nothing this runs touches this
# computer; every command goes to the agentworld session named by $AGENTWORLD_SESSION.
# (loaded with the loader Python starts with: importing importlib.util would cost ~20 ms a call)
import sys
from _frozen_importlib_external import SourceFileLoader as _Loader

_shim = type(sys)("_agentworld_shim")
_shim.__file__ = {shim!r}
sys.modules["_agentworld_shim"] = _shim
exec(_Loader("_agentworld_shim", {shim!r}).get_code("_agentworld_shim"), _shim.__dict__)
_shim.main()
"""
_TRAMPOLINE = """#!/bin/sh
# Written by `agentworld shim install`: a simulated {name} (see {shim}).
exec {python} -IS {shim} "$@"
"""


def is_plain_name(name: str) -> bool:
    """Whether ``name`` names a file inside a folder (no separator, not ``.`` or ``..``)."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def install(directory: str, names: tuple[str, ...] = NAMES, python: str | None = None) -> list[str]:
    """Write the shim executables (``bash``, ``sh``) into ``directory``; return their paths.

    They run ``python`` (default: this interpreter) without site packages, which is what keeps
    them fast; the interpreter path is written into them, so reinstall after moving it.
    """
    bad = [name for name in names if not is_plain_name(name)]
    if bad:
        raise ValueError(f"not a plain file name: {bad[0]!r} (the shims are written inside {directory})")
    python = os.path.abspath(python or sys.executable)
    shim = os.path.abspath(__file__)
    os.makedirs(directory, exist_ok=True)
    written = []
    for name in names:
        path = os.path.join(directory, name)
        if len(python) < 120 and " " not in python:
            text = _SCRIPT.format(python=python, name=name, shim=shim)
        else:  # a shebang cannot hold this path: go through /bin/sh (it runs only python)
            text = _TRAMPOLINE.format(python=_quote(python), name=name, shim=_quote(shim))
            text = text.replace(f'{_quote(shim)} "$@"', f'{_quote(shim)} --argv0 {name} "$@"')
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
        written.append(path)
    return written


if __name__ == "__main__":
    main()

"""``subprocess`` and ``os.system`` inside the guest run their command in the virtual shell.

WASI has no processes, so CPython's ``subprocess.Popen`` refuses to start. The start-up hook puts
:data:`GUEST_MODULE` (plain Python, run inside the guest) in front of it: ``Popen`` writes its
request (argv or shell text, cwd, stdin bytes, environment) to a private file, and closing that
file runs the command in the machine's shell, as ``bash -c`` would, counted against the same
step budget; the answer (status, stdout, stderr) is read back from the same path. The command
runs synchronously when its output is first asked for (``communicate``, ``wait``, ``stdout``).
The patch is applied when the guest first imports ``subprocess`` (or calls ``os.system``), so a
start that never uses it pays nothing for it.
"""

from __future__ import annotations

import base64
import json
import shlex
from typing import TYPE_CHECKING, Any

from ...proc import _Capture, _Input

if TYPE_CHECKING:
    from ...proc import _Proc

#: the private path (under the hook's tree) the guest writes requests to and reads answers from
SPAWN = "/spawn"

GUEST_MODULE = '''\
"""subprocess for the offline world's WASI Python: commands run in the virtual shell."""
import base64 as _b64, json as _json, os as _os

_sp = subprocess  # the module being patched: given by the start-up hook when it is imported
_PATH = __file__.rsplit("/", 1)[0] + "/spawn"


def _raw(data, text):
    if data is None:
        return b""
    return data.encode() if isinstance(data, str) else bytes(data)


class Popen:
    def __init__(self, args, bufsize=-1, executable=None, stdin=None, stdout=None, stderr=None,
                 preexec_fn=None, close_fds=True, shell=False, cwd=None, env=None,
                 universal_newlines=None, startupinfo=None, creationflags=0, restore_signals=True,
                 start_new_session=False, pass_fds=(), *, text=None, encoding=None, errors=None,
                 **_ignored):
        self.args = args
        self.text_mode = bool(text or universal_newlines or encoding or errors)
        self._streams = (stdin, stdout, stderr)
        self._shell, self._cwd, self._env = shell, cwd, env
        self.returncode = None
        self.pid = 4242
        self._out = self._err = None
        self.stdin = None

    def _run(self, data=None):
        if self.returncode is not None:
            return
        stdin, stdout, stderr = self._streams
        if hasattr(stdin, "read") and data is None:
            data = stdin.read()
        if isinstance(self.args, (str, bytes)):
            argv = [_os.fsdecode(self.args)]
        else:
            argv = [_os.fsdecode(a) for a in self.args]
        request = {"argv": argv, "shell": bool(self._shell), "cwd": _os.fsdecode(self._cwd or _os.getcwd()),
                   "stdin": _b64.b64encode(_raw(data, self.text_mode)).decode(),
                   "capture_out": stdout == _sp.PIPE, "capture_err": stderr == _sp.PIPE,
                   "err_to_out": stderr == _sp.STDOUT, "quiet_out": stdout == _sp.DEVNULL,
                   "quiet_err": stderr == _sp.DEVNULL,
                   "env": dict(self._env) if self._env is not None else None}
        with open(_PATH, "w") as f:
            f.write(_json.dumps(request))
        with open(_PATH) as f:
            answer = _json.loads(f.read())
        self.returncode = answer["status"]
        out, err = _b64.b64decode(answer["stdout"]), _b64.b64decode(answer["stderr"])
        for stream, chunk in ((stdout, out), (stderr, err)):
            if hasattr(stream, "write") and chunk:
                stream.write(chunk.decode() if "b" not in getattr(stream, "mode", "b") else chunk)
        if self.text_mode:
            out, err = out.decode(), err.decode()
        self._out = out if stdout == _sp.PIPE else None
        self._err = err if stderr == _sp.PIPE else None

    def communicate(self, input=None, timeout=None):
        self._run(input)
        return self._out, self._err

    def wait(self, timeout=None):
        self._run()
        return self.returncode

    def poll(self):
        self._run()
        return self.returncode

    def kill(self):
        pass

    terminate = kill

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._run()

    def _reader(self, which):
        import io
        self._run()
        data = self._out if which == 1 else self._err
        if data is None:
            return None
        return io.StringIO(data) if self.text_mode else io.BytesIO(data)

    stdout = property(lambda self: self._reader(1), lambda self, value: None)
    stderr = property(lambda self: self._reader(2), lambda self, value: None)


def system(command):
    p = Popen(command, shell=True)
    p.wait()
    return p.returncode << 8 if p.returncode >= 0 else -p.returncode


_sp.Popen = Popen
_sp._can_fork_exec = True
_os.system = system
'''


def run_request(p: _Proc, data: bytes) -> bytes:
    """Run one request of the guest's ``Popen`` in ``p``'s machine; its answer as JSON bytes."""
    try:
        request: dict[str, Any] = json.loads(data)
        argv = [str(a) for a in request["argv"]]
    except (ValueError, KeyError, TypeError):  # not what the guest's Popen writes
        return json.dumps({"status": 126, "stdout": "", "stderr": ""}).encode()
    command = argv[0] if request["shell"] else shlex.join(argv)
    vm = p.vm
    out, err = _Capture(), _Capture()
    ctx = p.ctx.with_(stdin=_Input(base64.b64decode(request["stdin"]).decode("utf-8", "surrogateescape")),
                      out=out if request["capture_out"] else (_Capture() if request["quiet_out"] else p.ctx.out),
                      err=(out if request["err_to_out"] else err if request["capture_err"]
                           else _Capture() if request["quiet_err"] else p.ctx.err))  # fmt: skip
    saved_cwd, saved_pwd = vm.cwd, vm.vars.get("PWD")
    try:
        if vm.fs.is_dir(str(request["cwd"])):
            vm.cwd = str(request["cwd"])
        status = vm._run_script(command, ["bash"], ctx, name="bash")
    finally:
        vm.cwd = saved_cwd
        if saved_pwd is not None:
            vm.vars["PWD"] = saved_pwd

    def b64(sink: _Capture) -> str:
        return base64.b64encode(sink.text.encode("utf-8", "surrogateescape")).decode()

    answer = {"status": status, "stdout": b64(out), "stderr": b64(err)}
    return json.dumps(answer).encode()

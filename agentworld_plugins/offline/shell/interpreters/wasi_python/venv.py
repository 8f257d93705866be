"""``python3 -m venv DIR``: the layout CPython's venv module makes (the WASI build has no venv).

``bin/python*`` link to ``/usr/bin/python3``, ``bin/pip*`` are the offline pip, ``bin/activate``
sets ``VIRTUAL_ENV`` and ``PATH`` as venv's script does, and ``pyvenv.cfg`` says where it came from.
With ``VIRTUAL_ENV`` set, the guest puts the environment's ``site-packages`` on ``sys.path``
(``guest``), and pip lists what is there.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ....vfs import FsError, _stub_binary
from .runtime import PYTHON_VERSION

if TYPE_CHECKING:
    from ...proc import _Proc

SITE = "lib/python3.12/site-packages"

_ACTIVATE = """\
# This file must be used with "source bin/activate" *from bash*
# You cannot run it directly

deactivate () {{
    if [ -n "${{_OLD_VIRTUAL_PATH:-}}" ] ; then
        PATH="${{_OLD_VIRTUAL_PATH:-}}"
        export PATH
        unset _OLD_VIRTUAL_PATH
    fi
    if [ -n "${{_OLD_VIRTUAL_PS1:-}}" ] ; then
        PS1="${{_OLD_VIRTUAL_PS1:-}}"
        export PS1
        unset _OLD_VIRTUAL_PS1
    fi
    unset VIRTUAL_ENV
    unset VIRTUAL_ENV_PROMPT
    if [ ! "${{1:-}}" = "nondestructive" ] ; then
        unset -f deactivate
    fi
}}

deactivate nondestructive

VIRTUAL_ENV="{root}"
export VIRTUAL_ENV

_OLD_VIRTUAL_PATH="$PATH"
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH

_OLD_VIRTUAL_PS1="${{PS1:-}}"
PS1="({prompt}) ${{PS1:-}}"
export PS1
VIRTUAL_ENV_PROMPT="({prompt}) "
export VIRTUAL_ENV_PROMPT
"""


def make_venv(p: _Proc, args: list[str]) -> int:
    """``python3 -m venv [--without-pip] [--system-site-packages] [--clear] [--prompt P] DIR...``."""
    with_pip, system, prompt, dirs = True, False, None, []
    words = iter(args)
    for a in words:
        if a == "--without-pip":
            with_pip = False
        elif a == "--system-site-packages":
            system = True
        elif a == "--prompt":
            prompt = next(words, None)
        elif a.startswith("-") and a not in ("--clear", "--upgrade-deps", "--copies", "--symlinks"):
            p.ctx.err.write(f"usage: venv [-h] [--system-site-packages] [--symlinks | --copies] [--clear]\n"
                            f"venv: error: unrecognized arguments: {a}\n")  # fmt: skip
            return 2
        elif not a.startswith("-"):
            dirs.append(a)
    if not dirs:
        p.ctx.err.write("usage: venv [-h] [--system-site-packages] [--symlinks | --copies] [--clear]\n"
                        "            [--upgrade] [--without-pip] [--prompt PROMPT] [--upgrade-deps]\n"
                        "            ENV_DIR [ENV_DIR ...]\n"
                        "venv: error: the following arguments are required: ENV_DIR\n")  # fmt: skip
        return 2
    for d in dirs:
        root = p.path(d)
        try:
            _layout(p, root, with_pip, system, prompt or posixpath.basename(root))
        except FsError as exc:
            p.ctx.err.write(f"Error: [Errno 2] {exc.strerror}: '{root}'\n")
            return 1
    return 0


def _layout(p: _Proc, root: str, with_pip: bool, system: bool, prompt: str) -> None:
    fs = p.fs
    for sub in ("bin", "include", SITE):
        fs.mkdir(posixpath.join(root, sub), parents=True)
    if not fs.lexists(posixpath.join(root, "lib64")):
        fs.symlink("lib", posixpath.join(root, "lib64"))
    fs.write(posixpath.join(root, "pyvenv.cfg"),
             f"home = /usr/bin\ninclude-system-site-packages = {'true' if system else 'false'}\n"
             f"version = {PYTHON_VERSION}\nexecutable = /usr/bin/python3.12\n"
             f"command = /usr/bin/python3 -m venv {root}\n")  # fmt: skip
    for name, target in (("python3", "/usr/bin/python3"), ("python", "python3"), ("python3.12", "python3")):
        if not fs.lexists(posixpath.join(root, "bin", name)):
            fs.symlink(target, posixpath.join(root, "bin", name))
    fs.write(posixpath.join(root, "bin", "activate"), _ACTIVATE.format(root=root, prompt=prompt))
    if with_pip:
        for name in ("pip", "pip3", "pip3.12"):
            fs.write(posixpath.join(root, "bin", name), _stub_binary("pip"))
            fs.chmod(posixpath.join(root, "bin", name), 0o755)
        fs.mkdir(posixpath.join(root, SITE, "pip-24.0.dist-info"), parents=True)

"""Who and where: whoami, id, hostname, uname."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..constants import KERNEL, KERNEL_VERSION
from ..errors import _UsageError
from ..getopt import _getopt
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("whoami")
def _u_whoami(p: _Proc) -> int:
    if p.args:
        raise _UsageError(f"extra operand {quote_always(p.args[0])}")
    p.out(p.vm.user + "\n")
    return 0


@applet("id")
def _u_id(p: _Proc) -> int:
    info = ("0", "root") if p.vm.user == "root" else ("1000", p.vm.user)
    if "-u" in p.args or "-g" in p.args:
        p.out((info[1] if "-n" in p.args else info[0]) + "\n")
    elif "-un" in p.args or "-nu" in p.args:
        p.out(info[1] + "\n")
    else:
        p.out(f"uid={info[0]}({info[1]}) gid={info[0]}({info[1]}) groups={info[0]}({info[1]})\n")
    return 0


@applet("hostname")
def _u_hostname(p: _Proc) -> int:
    if p.args and p.args[0] in ("-I", "-i"):
        p.out("172.17.0.2 \n" if p.args[0] == "-I" else "172.17.0.2\n")
        return 0
    if p.args and not p.args[0].startswith("-"):
        p.err("you must be root to change the host name")
        return 1
    p.out(p.vm.hostname + "\n")
    return 0


@applet("uname")
def _u_uname(p: _Proc) -> int:
    opts, extra = _getopt(
        p.args,
        "asnrvmpio",
        {
            "all": "a",
            "kernel-name": "s",
            "nodename": "n",
            "kernel-release": "r",
            "kernel-version": "v",
            "machine": "m",
            "processor": "p",
            "hardware-platform": "i",
            "operating-system": "o",
        },
    )
    if extra:
        raise _UsageError(f"extra operand {quote_always(extra[0])}")
    fields = [
        ("s", "Linux"),
        ("n", p.vm.hostname),
        ("r", KERNEL),
        ("v", KERNEL_VERSION),
        ("m", "x86_64"),
        ("p", "x86_64"),
        ("i", "x86_64"),
        ("o", "GNU/Linux"),
    ]
    chosen = [v for _, v in fields] if "a" in opts else ([v for k, v in fields if k in opts] or ["Linux"])
    p.out(" ".join(chosen) + "\n")
    return 0

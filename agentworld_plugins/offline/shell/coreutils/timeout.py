"""timeout: run a command with a deadline on the step's virtual clock.

The offline world's time is virtual (:mod:`..limits`): the clock is the work done plus what
``sleep`` slept. ``timeout 1 sleep 5`` ends at once with status 124, after one virtual second,
as the real one would after a real second; ``timeout 1 sh -c 'while :; do :; done'`` ends when
the loop's work reaches one virtual second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..durations import duration
from ..errors import _UsageError
from ..limits import Timeout, current
from ..pipes import delegating
from ..quoting import locale_quote
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

#: the signals timeout may send, by name and number
_SIGNALS = {"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "USR1": 10, "USR2": 12, "ALRM": 14, "TERM": 15}


def _signal(name: str) -> int | None:
    name = name.upper().removeprefix("SIG")
    if name.isdigit():
        return int(name) if 0 < int(name) < 65 else None
    return _SIGNALS.get(name)


@applet("timeout")
@delegating
def _u_timeout(p: _Proc) -> int:
    args = list(p.args)
    signal, preserve, verbose = 15, False, False
    while args and args[0].startswith("-") and args[0] != "-":
        a = args.pop(0)
        if a == "--":
            break
        name, eq, value = a.partition("=")
        if name in ("-s", "--signal", "-k", "--kill-after") and not eq:
            if not args:
                raise _UsageError(f"option requires an argument -- '{a.lstrip('-')[0]}'", status=125)
            value = args.pop(0)
        elif a.startswith("-s") and len(a) > 2:
            name, value = "-s", a[2:]
        elif a.startswith("-k") and len(a) > 2:
            name, value = "-k", a[2:]
        if name in ("-s", "--signal"):
            number = _signal(value)
            if number is None:
                p.err(f"{locale_quote(value)}: invalid signal")
                p.try_help()
                return 125
            signal = number
        elif name in ("-k", "--kill-after"):
            if duration(value) is None:
                p.err(f"invalid time interval {locale_quote(value)}")
                p.try_help()
                return 125
        elif a == "--preserve-status":
            preserve = True
        elif a == "--foreground":
            pass
        elif a in ("-v", "--verbose"):
            verbose = True
        else:
            raise _UsageError(
                f"unrecognized option '{a}'" if a.startswith("--") else f"invalid option -- '{a[1]}'",
                status=125,
            )
    if not args:  # GNU timeout says only where to look
        p.try_help()
        return 125
    seconds = duration(args[0])
    if seconds is None:
        p.err(f"invalid time interval {locale_quote(args[0])}")
        p.try_help()
        return 125
    argv = args[1:]
    if not argv:  # GNU timeout says only where to look
        p.try_help()
        return 125
    path = p.vm._locate(argv[0])
    if path is None or not p.fs.exists(path):
        p.err(f"failed to run command {locale_quote(argv[0])}: No such file or directory")
        return 127
    if not seconds or seconds == float("inf"):
        return p.vm._exec_path(path, argv, p.ctx)
    budget = current()
    level = budget.push_deadline(seconds)
    try:
        return p.vm._exec_path(path, argv, p.ctx)
    except Timeout as exc:
        if exc.level != level:
            raise
    finally:
        budget.pop_deadline(level)
    if verbose:
        name = next((n for n, k in _SIGNALS.items() if k == signal), str(signal))
        p.ctx.err.write(f"timeout: sending signal {name} to command {locale_quote(argv[0])}\n")
    if preserve or signal == 9:
        return 128 + signal
    return 124

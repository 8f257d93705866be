"""bash, sh and dash: running scripts and -c in a child shell."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..constants import BASH_VERSION
from ..options import SET_LETTERS, SET_NAMES, SHOPT_NAMES, simulated_set
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


_FLAGS = re.compile(r"[-+][abcefhklmnprstuvxBCEHPTioO]+")


@applet("bash", "sh", "dash")
def _u_bash(p: _Proc) -> int:
    vm = p.vm
    args = list(p.args)
    options: set[str] = set()
    command_mode = False
    # options before the command or script, as bash reads them: flags (-e, -eu, +x, ...), -c,
    # -o NAME / +o NAME (a cluster holding `o` takes the next word: `bash -euo pipefail x.sh`),
    # -O NAME / +O NAME (shopt options)
    while args and (args[0] in ("--login", "--norc", "--noprofile") or _FLAGS.fullmatch(args[0])):
        flags = args.pop(0)
        for flag in flags[1:]:
            if flag == "c" and flags[0] == "-":
                command_mode = True
            elif flag in SET_LETTERS or (flag == "o" and args and args[0] in SET_NAMES):
                # -n (noexec): read the commands, run none (a syntax check)
                name = args.pop(0) if flag == "o" else SET_LETTERS[flag]
                (options.add if flags[0] == "-" else options.discard)(name)
            elif flag == "O" and args and args[0] in SHOPT_NAMES:
                (options.add if flags[0] == "-" else options.discard)("shopt:" + args.pop(0))
            elif flag in "oO" and args:
                # bash's own words, from a shell that has read no line yet
                said = (
                    f"{p.name}: {args[0]}: invalid option"
                    if flag == "o"
                    else f"{args[0]}: invalid shell option"
                )
                p.ctx.err.write(f"{p.name}: line 0: {said} name\n")
                return 2
    if any(
        not simulated_set(name) and name != "noexec" and not name.startswith("shopt:") for name in options
    ):
        p.unknown()  # accepted; what it changes is not simulated
    if command_mode:
        args.insert(0, "-c")
    if args and args[0] in ("--version",):
        p.out(f"GNU bash, version {BASH_VERSION} (x86_64-pc-linux-gnu)\n")
        return 0
    if args and args[0] == "-c":
        if len(args) < 2:
            p.ctx.err.write(f"{p.name}: -c: option requires an argument\n")
            return 2
        command = args[1]
        script_args = args[2:] or [p.name]
        return vm._run_script(command, script_args, p.ctx, name="bash", options=options)
    if not args:
        stdin = p.ctx.stdin.read()
        if stdin:  # a script read from stdin (its syntax errors say `bash: line N:`, not `-c:`)
            return vm._run_script(stdin, [p.name], p.ctx, name="bash", options=options | {"stdin"})
        vm._unknown.append(p.name)
        return 0
    path = p.path(args[0])
    try:
        text = vm.fs.read_text(path)
    except FsError as exc:
        p.ctx.err.write(f"{p.name}: {args[0]}: {exc.strerror}\n")
        return 127
    return vm._run_script(text, args, p.ctx, options=options)

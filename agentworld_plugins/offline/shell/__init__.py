"""A bash look-alike over the in-memory filesystem: parsed with bashlex, run entirely in Python.

Nothing is ever executed on the host: every command is a Python function over
:class:`~.vfs.VirtualFS`. Usage::

    vm = VirtualMachine()                       # default tree, cwd /app, user root
    vm.prompt()                                 # 'root@agentworld:/app# '
    r = vm.run("echo hi > a.txt && cat a.txt | wc -l; nope")
    r.stdout, r.stderr, r.exit_code             # ('1\n', 'bash: nope: command not found\n', 127)

What is simulated: lists (``;``, ``&&``, ``||``), pipes, redirections (``>``, ``>>``, ``2>``,
``2>&1``, ``&>``, ``<``, here-documents, here-strings), quoting, parameter expansion (``$VAR``,
``${VAR:-x}``, ``${#VAR}``, ``${VAR%x}``, ...), ``$?``, command substitution, ``$((...))``,
``(( expr ))`` and C-style ``for (( ; ; ))``, brace expansion, globbing, assignments, ``export``, ``if``/``case``/``for``/``while``/``until``, functions,
shell scripts, and about seventy utilities with GNU wording for their errors (see ``PROGRAMS`` and
``BUILTINS``).

Programs that exist on the fake ``PATH`` but are not simulated (``pip install``,
``python3 main.py``, ``curl``, editors, ...) print a one-line notice on stderr and exit 126 (or,
with ``AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS=succeed``, nothing and 0), and the result says so:
``ShellResult.unknown_effect`` is True and ``unknown_commands`` names them, so callers can mark
the observation as a guess (``metadata["offline_unknown_effect"]``). A few of their answers are
known and given: ``--version`` strings and ``python3 missing.py``'s error. ``git`` is simulated
over the virtual files (``vcs/git``). Every run has a wall-clock and memory budget (``limits``).

:class:`TerminalScreen` puts a machine behind a 160x40 terminal pane (keystrokes in, screen out)
and :func:`machine_from_context` builds one from a session's context (``files``, ``cwd``, ``env``).

Simplifications: commands run one after the other (``&`` runs its command at once, in a subshell), though a pipeline
stage of a streaming program (``yes``, ``seq``, ``cat``, ``grep``, ...) is pulled lazily by the
next one, so readers that stop early stop it (``pipes``); stdin that is not redirected reads as
empty; ``select``, ``coproc`` and job control are not parsed (they count as unknown effect;
arrays, ``trap``, ``readonly``, ``declare``, ``mapfile`` and ``<( )`` are in ``arrays`` and
``builtins``); loops stop after a
fixed budget of commands (``STEP_BUDGET``); ``find`` and ``grep -r`` walk directories in sorted
order (real ones use the filesystem's order).

Layout, split the way shells and busybox are: the shell's phases (``reader``, which reads a
script a command at a time, ``parser`` and its bashlex-free fast path ``simple``, ``braces``,
``expand``, ``params``, ``arith``, ``redirect``, ``execute``, ``pipes``, ``invoke``; ``machine``
joins them into :class:`VirtualMachine`), what commands share (``proc``, ``getopt``, ``applet_io``,
``patterns``, ``quoting``, ``escapes``), ``terminal`` (the screen) and ``context``. Builtins live
in ``builtins/`` and programs in ``coreutils/``, ``findutils/``, ``editors/``, ``procps/``,
``debianutils/``, ``interpreters/`` (bash, python and ``awk/``, a POSIX awk), ``vcs/`` (git) and
``archivers/`` (tar, gzip/gunzip/zcat, zip/unzip over ``compression``, the bounded codec);
each registers itself with ``@builtin(...)`` or ``@applet(...)`` from ``registry`` when this
package is imported. A new program is a function
``(p: _Proc) -> int`` decorated with ``@applet("name")`` in a module imported by its folder's
``__init__``; one that can stream is a generator of output chunks under ``@streaming()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .braces import brace_expand
from .constants import (
    BASH_VERSION,
    CLEAR_SCREEN,
    COLUMNS,
    KERNEL,
    KERNEL_VERSION,
    PYTHON_VERSION,
    STEP_BUDGET,
)
from .context import machine_from_context
from .coreutils.ls import columns
from .dates import format_date
from .fileinfo import human_size
from .machine import VirtualMachine
from .patterns import glob_regex, has_glob, posix_regex
from .quoting import locale_quote, quote_always, quote_if_needed
from .registry import BUILTINS, PROGRAMS
from .result import ShellResult
from .terminal import TMUX_KEYS, ScreenStep, TerminalScreen

#: the applet packages: importing them registers their programs and builtins (@applet, @builtin)
APPLET_PACKAGES = tuple(
    importlib.import_module(f"{__name__}.{name}")
    for name in (
        "archivers", "builtins", "coreutils", "debianutils", "dumpers", "editors", "findutils", "interpreters", "libcbin",
        "procps", "vcs",
    )
)  # fmt: skip

__all__ = [
    "BASH_VERSION",
    "BUILTINS",
    "CLEAR_SCREEN",
    "COLUMNS",
    "KERNEL",
    "KERNEL_VERSION",
    "PROGRAMS",
    "PYTHON_VERSION",
    "STEP_BUDGET",
    "TMUX_KEYS",
    "ScreenStep",
    "ShellResult",
    "TerminalScreen",
    "VirtualMachine",
    "brace_expand",
    "columns",
    "format_date",
    "glob_regex",
    "has_glob",
    "human_size",
    "locale_quote",
    "machine_from_context",
    "posix_regex",
    "quote_always",
    "quote_if_needed",
]

#: private names of the former single module, by the module that holds them now; kept reachable
#: so that pickled machines (session snapshots) and older imports still resolve
_MOVED = {
    "_ANSI": "terminal",
    "_ARITH_BIN": "arith",
    "_ARITH_CMP": "arith",
    "_AbortLine": "errors",
    "_BudgetExceeded": "errors",
    "_CLASSES": "patterns",
    "_Capture": "proc",
    "_Ctx": "proc",
    "_ESCAPES": "escapes",
    "_EXP": "expand",
    "_ExitShell": "errors",
    "_ExpansionError": "errors",
    "_FREE_HEADER": "coreutils.disk",
    "_FileSink": "proc",
    "_FindError": "findutils.find",
    "_GNU_VERSIONS": "constants",
    "_HelpRequested": "errors",
    "_Input": "proc",
    "_Inputs": "applet_io",
    "_InvalidCount": "applet_io",
    "_KEYWORDS": "builtins.lookup",
    "_LIT": "expand",
    "_LoopControl": "errors",
    "_NAME": "names",
    "_Null": "proc",
    "_PRINTF_SPEC": "builtins.echo",
    "_PROMPT_LINE": "context",
    "_Proc": "proc",
    "_QUOTED": "expand",
    "_Return": "errors",
    "_SAFE_NAME": "quoting",
    "_ShellSyntaxError": "errors",
    "_Sink": "proc",
    "_Source": "parser",
    "_Stream": "proc",
    "_TEST_BINARY": "builtins.test",
    "_TestError": "builtins.test",
    "_UNSUPPORTED_HINT": "parser",
    "_Unsupported": "errors",
    "_UsageError": "errors",
    "_VERSIONS": "constants",
    "_ansi_c": "escapes",
    "_arith_eval": "arith",
    "_b_alias": "builtins.session",
    "_b_cd": "builtins.dirs",
    "_b_command": "builtins.lookup",
    "_b_declare": "builtins.variables",
    "_b_echo": "builtins.echo",
    "_b_eval": "builtins.control",
    "_b_exec": "builtins.control",
    "_b_exit": "builtins.control",
    "_b_export": "builtins.variables",
    "_b_false": "builtins.control",
    "_b_history": "builtins.session",
    "_b_let": "builtins.variables",
    "_b_local": "builtins.variables",
    "_b_noop": "builtins.session",
    "_b_printf": "builtins.echo",
    "_b_pwd": "builtins.dirs",
    "_b_read": "builtins.variables",
    "_b_return": "builtins.control",
    "_b_set": "builtins.variables",
    "_b_shift": "builtins.variables",
    "_b_source": "builtins.control",
    "_b_test": "builtins.test",
    "_b_true": "builtins.control",
    "_b_type": "builtins.lookup",
    "_b_umask": "builtins.session",
    "_b_unalias": "builtins.session",
    "_b_unset": "builtins.variables",
    "_blocks": "fileinfo",
    "_bracket": "patterns",
    "_c_div": "arith",
    "_copy_or_move": "coreutils.cp_mv",
    "_count_arg": "applet_io",
    "_describe": "builtins.lookup",
    "_display": "quoting",
    "_echo_escapes": "escapes",
    "_escape_glob": "patterns",
    "_fixed_report": "coreutils.disk",
    "_getopt": "getopt",
    "_grep_regex": "findutils.grep",
    "_hash_program": "coreutils.checksums",
    "_head_or_tail": "coreutils.head_tail",
    "_head_tail_args": "coreutils.head_tail",
    "_indicator": "coreutils.ls",
    "_join": "applet_io",
    "_last": "getopt",
    "_lines": "applet_io",
    "_loop_control": "builtins.control",
    "_ls_time": "coreutils.ls",
    "_match_brace": "brackets",
    "_match_closing": "brackets",
    "_match_double_paren": "parser",
    "_match_paren": "brackets",
    "_nlink": "fileinfo",
    "_parse": "parser",
    "_parse_list": "coreutils.cut_paste",
    "_parse_mode": "coreutils.chmod",
    "_prepare": "parser",
    "_printf_format": "builtins.echo",
    "_printf_number": "builtins.echo",
    "_regex_error": "patterns",
    "_removed_lines": "coreutils.rm",
    "_replace_glob": "brackets",
    "_shell_quote": "quoting",
    "_split_unescaped": "brackets",
    "_squeeze": "coreutils.tr",
    "_stat_field": "coreutils.stat",
    "_ternary": "arith",
    "_test_eval": "builtins.test",
    "_tr_set": "coreutils.tr",
    "_u_base64": "coreutils.base64",
    "_u_basename": "coreutils.paths",
    "_u_bash": "interpreters.bash",
    "_u_cat": "coreutils.cat",
    "_u_chmod": "coreutils.chmod",
    "_u_clear": "coreutils.clear",
    "_u_cmp": "editors.diff",
    "_u_cp": "coreutils.cp_mv",
    "_u_cut": "coreutils.cut_paste",
    "_u_date": "coreutils.date",
    "_u_df": "coreutils.disk",
    "_u_diff": "editors.diff",
    "_u_dirname": "coreutils.paths",
    "_u_du": "coreutils.disk",
    "_u_env": "coreutils.env",
    "_u_expr": "coreutils.expr",
    "_u_file": "coreutils.file",
    "_u_find": "findutils.find",
    "_u_free": "coreutils.disk",
    "_u_grep": "findutils.grep",
    "_u_head": "coreutils.head_tail",
    "_u_hostname": "coreutils.identity",
    "_u_id": "coreutils.identity",
    "_u_kill": "procps.ps",
    "_u_ln": "coreutils.ln",
    "_u_ls": "coreutils.ls",
    "_u_mkdir": "coreutils.mkdir",
    "_u_mv": "coreutils.cp_mv",
    "_u_nl": "coreutils.cat",
    "_u_paste": "coreutils.cut_paste",
    "_u_printenv": "coreutils.env",
    "_u_ps": "procps.ps",
    "_u_python": "interpreters.wasi_python.command",
    "_u_readlink": "coreutils.paths",
    "_u_realpath": "coreutils.paths",
    "_u_rev": "coreutils.cat",
    "_u_rm": "coreutils.rm",
    "_u_rmdir": "coreutils.mkdir",
    "_u_sed": "editors.sed",
    "_u_seq": "coreutils.seq",
    "_u_sleep": "coreutils.date",
    "_u_sort": "coreutils.sort.program",
    "_u_stat": "coreutils.stat",
    "_u_tac": "coreutils.cat",
    "_u_tail": "coreutils.head_tail",
    "_u_tee": "coreutils.tee",
    "_u_touch": "coreutils.touch",
    "_u_tr": "coreutils.tr",
    "_u_uname": "coreutils.identity",
    "_u_uniq": "coreutils.uniq",
    "_u_unknown": "invoke",
    "_u_wc": "coreutils.wc",
    "_u_which": "debianutils.which",
    "_u_whoami": "coreutils.identity",
    "_u_xargs": "findutils.xargs",
    "_u_yes": "coreutils.expr",
    "_unescape_glob": "patterns",
    "_unquoted": "parser",
    "_valid_name": "names",
    "_write_or_err": "applet_io",
    "_xargs_split": "findutils.xargs",
}


def __getattr__(name: str) -> Any:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)

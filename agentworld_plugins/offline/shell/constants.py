"""Fixed facts of the simulated box: terminal width, versions, kernel, step budget."""

from __future__ import annotations

#: width of the terminal the output is formatted for (``ls`` columns)
COLUMNS = 160


PYTHON_VERSION = "3.12.3"


BASH_VERSION = "5.2.21(1)-release"


KERNEL = "6.8.0-50-generic"


KERNEL_VERSION = "#50-Ubuntu SMP PREEMPT_DYNAMIC Sat Nov  9 16:06:25 UTC 2024"


#: commands one ``run`` may execute (a backstop: the step's work budget, ``limits``, ends
#: runaway loops first)
STEP_BUDGET = 10_000_000


CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"


_VERSIONS = {
    "git": "git version 2.43.0",
    "pip": "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)",
    "pip3": "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)",
    "python": f"Python {PYTHON_VERSION}",
    "python3": f"Python {PYTHON_VERSION}",
    "python3.12": f"Python {PYTHON_VERSION}",
    "gcc": "gcc (Ubuntu 13.2.0-23ubuntu4) 13.2.0",
    "make": "GNU Make 4.3",
    "curl": "curl 8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13 zlib/1.3",
    "perl": "This is perl 5, version 38, subversion 2 (v5.38.2) built for x86_64-linux-gnu-thread-multi",
    "bash": f"GNU bash, version {BASH_VERSION} (x86_64-pc-linux-gnu)",
}


_GNU_VERSIONS = {
    "grep": "grep (GNU grep) 3.11",
    "egrep": "grep (GNU grep) 3.11",
    "fgrep": "grep (GNU grep) 3.11",
    "sed": "sed (GNU sed) 4.9",
    "find": "find (GNU findutils) 4.9.0",
    "xargs": "xargs (GNU findutils) 4.9.0",
}


#: the one-letter ``set`` / ``bash`` options the offline shell simulates, by their ``set -o``
#: names (each is also the machine's attribute holding it)
FLAG_OPTIONS = {"e": "errexit", "u": "nounset", "x": "xtrace"}
SIMULATED_OPTIONS = ("errexit", "nounset", "pipefail", "xtrace")

#: the processors the offline machine reports (``nproc``, ``getconf _NPROCESSORS_ONLN``)
NPROC = 4

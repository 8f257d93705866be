"""bash's variables about itself against the host's bash: the call stack (``FUNCNAME``,
``BASH_SOURCE``, ``BASH_LINENO``) in scripts, sourced files, stdin and ``bash -c``, the
``dirname "${BASH_SOURCE[0]}"`` idiom, ``LINENO``, ``BASH_VERSINFO``, ``SHELLOPTS``, ``BASHOPTS``."""

from __future__ import annotations

import shutil

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine

SCRIPTS = [
    'printf \'g() { echo "L: ${FUNCNAME[*]}|${BASH_SOURCE[*]}|${BASH_LINENO[*]}|$LINENO"; }\\necho "top: [${BASH_SOURCE[*]}] [${FUNCNAME[*]}]"\\n\' > lib.sh; printf \'source ./lib.sh\\nf() { echo "F: ${FUNCNAME[*]}|${BASH_SOURCE[*]}|${BASH_LINENO[*]}|$LINENO"; g; }\\necho "main: [${BASH_SOURCE[*]}] [${FUNCNAME[*]}] [${BASH_LINENO[*]}] $LINENO"\\nf\\n\' > m.sh; bash m.sh; echo ---; bash < m.sh; echo ---; bash -c "$(cat m.sh)"; echo ---; bash -c \'source ./m.sh\'; echo ---; source ./m.sh',
    'mkdir -p sub; printf \'cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P | sed "s|.*/||"\\n\' > sub/s.sh; bash sub/s.sh; cd sub && bash ../sub/s.sh',
    'echo "${BASH_SOURCE[0]-none}" "${FUNCNAME[0]-none}" $LINENO; f() { echo "${FUNCNAME[0]} $LINENO ${#FUNCNAME[@]}"; }; f',
    "echo ${BASH_VERSINFO[0]} ${BASH_VERSINFO[5]} ${#BASH_VERSINFO[@]}; echo $HOSTTYPE $OSTYPE $MACHTYPE",
    "echo $SHELLOPTS; set -e -u; echo $SHELLOPTS; echo $BASHOPTS; shopt -s nullglob; echo $BASHOPTS",
    'echo $LINENO\necho $LINENO; f() {\n  echo "in $LINENO"\n}\nf',
    'f() { g; }; g() { echo "${FUNCNAME[@]}"; printf \'%s\\n\' "${!FUNCNAME[@]}"; }; f',
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", SCRIPTS)
def test_the_shells_own_variables_answer_as_the_hosts_bash(script: str) -> None:
    ours, host = both(script)
    assert ours == host


def test_uid_follows_the_machines_user() -> None:
    assert VirtualMachine(user="root").run("echo $UID $EUID").stdout == "0 0\n"
    assert VirtualMachine(user="dev").run("echo $UID; id -u").stdout == "1000\n1000\n"

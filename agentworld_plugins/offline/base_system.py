"""What a fresh offline machine holds: the programs in /usr/bin, the files of /etc, root's
dotfiles and the demo project in /app (an Ubuntu 24.04 container's, trimmed).

:meth:`.vfs.VirtualFS.base` and :meth:`.vfs.VirtualFS.default` build the tree from these.
"""

from __future__ import annotations

#: programs present in /usr/bin (the shell simulates some; the others have an unknown effect)
USR_BIN = (
    "[", "apt", "apt-get", "arch", "awk", "b2sum", "base32", "base64", "basename", "basenc", "bash",
    "cat", "chgrp", "chmod", "chown", "cksum", "clear", "cmp", "column", "comm", "cp", "curl", "cut",
    "dash", "date", "dd", "df", "diff", "dirname", "dpkg", "du", "echo", "egrep", "env", "expand",
    "expr", "factor", "false", "fgrep", "file", "find", "fold", "free", "gcc", "getconf", "git", "grep",
    "groups", "gunzip", "gzip", "hd", "head", "hexdump", "hostname", "id", "install", "join", "kill",
    "less", "link", "ln", "locale", "logname", "ls", "make", "mawk", "md5sum", "mkdir", "mktemp",
    "more", "mv", "nano", "nawk", "nice", "nl", "nohup", "nproc", "numfmt", "od", "paste", "patch", "pathchk",
    "perl", "pip", "pip3", "printenv", "printf", "ps", "pwd", "python", "python3", "python3.12",
    "readlink", "realpath", "rev", "rm", "rmdir", "sed", "seq", "setsid", "sh", "sha1sum", "sha224sum",
    "sha256sum", "sha384sum", "sha512sum", "shuf", "sleep", "sort", "split", "stat", "strings", "stty",
    "sum", "sync", "tac", "tail", "tar", "tee", "test", "timeout", "top", "touch", "tr", "true",
    "truncate", "tsort", "tty", "uname", "unexpand", "uniq", "unlink", "unzip", "users", "vi", "vim",
    "wc", "wget", "which", "who", "whoami", "xargs", "xxd", "yes", "zcat", "zip",
)  # fmt: skip

OS_RELEASE = """\
PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
"""

BASHRC = """\
# ~/.bashrc: executed by bash(1) for non-login shells.

[ -z "$PS1" ] && return

HISTCONTROL=ignoredups:ignorespace
HISTSIZE=1000
HISTFILESIZE=2000

PS1='${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ '

alias ll='ls -alF'
alias la='ls -A'
alias l='ls -CF'
"""

PROFILE = """\
# ~/.profile: executed by Bourne-compatible login shells.

if [ "$BASH" ]; then
  if [ -f ~/.bashrc ]; then
    . ~/.bashrc
  fi
fi

mesg n 2> /dev/null || true
"""

APP_README = """\
# demo-app

A tiny example project.

## Usage

    pip install -r requirements.txt
    python3 main.py
"""

APP_MAIN = '''\
"""Entry point of the demo app."""


def greet(name: str) -> str:
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''

ETC_FILES = {
    "/etc/hostname": "agentworld\n",
    "/etc/os-release": OS_RELEASE,
    "/etc/lsb-release": (
        "DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=24.04\nDISTRIB_CODENAME=noble\n"
        'DISTRIB_DESCRIPTION="Ubuntu 24.04.1 LTS"\n'
    ),
    "/etc/debian_version": "trixie/sid\n",
    "/etc/hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n172.17.0.2\tagentworld\n",
    "/etc/passwd": (
        "root:x:0:0:root:/root:/bin/bash\n"
        "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        "ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n"
    ),
    "/etc/group": "root:x:0:\ndaemon:x:1:\nnogroup:x:65534:\nubuntu:x:1000:\n",
    "/etc/shells": "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n",
    "/etc/resolv.conf": "nameserver 8.8.8.8\n",
}

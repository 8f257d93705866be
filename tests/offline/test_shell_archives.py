"""tar, gzip/gunzip/zcat, zip and unzip in the offline shell, compared with the host's GNU tar 1.34,
gzip 1.12 and Info-ZIP zip 3.0 / UnZip 6.00 (the same command lines give the same stdout, stderr
and status), round trips through the virtual files, a decompression bomb and determinism."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.archivers.infozip.archive import Entry, write_archive
from agentworld_plugins.offline.shell.limits import StepLimits

#: fixed dates, and directories of one entry each (the host's tar and zip walk a directory in
#: the filesystem's order; the offline ones in sorted order)
TREE = (
    "mkdir work && cd work && printf 'hello world hello world hello world\\n' > a.txt && seq 1000 > n.txt && : > e.txt && "
    "printf 'x\\n' > b.py && chmod 755 b.py && mkdir -p p/q && seq 50 > p/q/s.txt && "
    "touch -d '2024-01-02 03:04:05' a.txt n.txt e.txt b.py p/q/s.txt p/q p && "
)

TAR = [
    TREE + "tar cf t.tar a.txt p b.py && tar tf t.tar && tar tvf t.tar",
    TREE + "tar cvf t.tar p && tar -tvf t.tar p/q/s.txt",
    TREE + "tar cf t.tar a.txt nosuch; echo $?; tar tf t.tar",
    TREE + "tar tf nosuch.tar; echo $?",
    TREE + "tar tf a.txt; echo $?",
    TREE + "tar cf e.tar; echo $?",
    TREE + "tar f t.tar; echo $?",
    TREE + "tar cf t.tar a.txt && tar tf t.tar zz; echo $?",
    TREE + "tar cf abs.tar \"$PWD/a.txt\" && tar tf abs.tar | sed 's|.*/||'",
    TREE + "tar czf t.tgz a.txt p && tar tzf t.tgz && tar tf t.tgz && gzip -l t.tgz",
    TREE + "tar cjf t.tbz a.txt && tar tjf t.tbz && tar tvf t.tbz",
    TREE + "tar cJf t.txz a.txt && tar tJf t.txz && tar xJf t.txz -O",
    TREE + "tar caf t.tar.gz a.txt && gzip -l t.tar.gz && tar tf t.tar.gz",
    TREE + "tar cf t.tar a.txt && tar tzf t.tar; echo $?",
    TREE + "tar czf - a.txt | tar tvzf -",
    TREE + "tar cvzf - a.txt | tar xzf - -C p && stat -c '%n %A %s %Y' p/a.txt",
    TREE
    + "tar cf t.tar p && mkdir o && tar xvf t.tar -C o --strip-components=1 && find o -mindepth 1 | sort | xargs stat -c '%n %A %s %Y'",
    TREE
    + "tar cf t.tar p a.txt b.py && mkdir o && cd o && tar xf ../t.tar && find . -mindepth 1 | sort | xargs stat -c '%n %A %s %Y'",
    TREE + "tar cf t.tar p && tar xf t.tar -C nodir; echo $?",
    TREE + "tar cf t.tar a.txt n.txt --exclude='n.*' && tar tf t.tar",
    TREE + "tar cf t.tar p --exclude=q && tar tf t.tar",
    TREE + "tar cf t.tar a.txt && tar xOf t.tar a.txt && tar -xf t.tar --to-stdout",
    TREE + "tar cf t.tar a.txt && tar xkf t.tar; echo $?",
    TREE + "tar -c -f t.tar -C p q && tar -t -f t.tar",
    TREE + "tar --create --file=t.tar a.txt && tar --list --verbose --file t.tar",
    TREE + "tar cf t.tar a.txt && tar xvf t.tar a.txt nosuch; echo $?",
    TREE + "head -c 700 n.txt > t.tar && tar tf t.tar; echo $?",
    TREE + ": > z.tar && tar tf z.tar; echo $?",
    TREE + "tar cf t.tar a.txt && tar --wildcards -tf t.tar '*.txt'",
    TREE + "cd p && tar cf t.tar . && tar tf t.tar",
    TREE + "tar cf p/q/t.tar p; echo $?; tar tf p/q/t.tar",
    TREE + "cd p && tar czf ../t.tgz . && cd .. && mkdir o && tar -xzvf t.tgz --strip-components 1 -C o",
    TREE + "tar cvvf t.tar a.txt b.py && tar xvvf t.tar && tar -tvvf t.tar",
    TREE + "tar cf t.tar p --exclude=q; echo $?; tar tf t.tar",
    TREE + "tar cf t.tar --exclude='*.txt' p a.txt b.py && tar tf t.tar",
    TREE + "tar cf t.tar p a.txt && tar xf t.tar -C p p/q/s.txt && find p | sort",
    TREE + "tar -cf t.tar a.txt && tar -xf t.tar < /dev/null && tar -tf - < t.tar",
    TREE + "tar -czf t.tgz p && tar -xOzf t.tgz | tail -1",
    TREE + "tar cf t.tar; tar; echo $?",
    TREE + "tar xf; echo $?",
    TREE + "tar -cz a.txt | tar -tz",
    TREE
    + "tar cf t.tar a.txt p && tar tf t.tar --exclude=a.txt && tar xvOf t.tar --exclude='*/q' > /dev/null",
    TREE
    + "printf 'a.txt\\n*.py\\n' > ex && tar cf t.tar -X ex a.txt b.py p ex && tar tf t.tar && tar tf t.tar -X ex",
    TREE + "tar cf t.tar -X nosuch a.txt; echo $?",
    TREE
    + "tar cPf abs.tar \"$PWD/a.txt\" && tar tf abs.tar | grep -c '^/' && mkdir x && tar xf abs.tar -C x && "
    "find x -name a.txt | wc -l",
    TREE + "tar -tvf t.tar 2>&1; tar -c -t -f x.tar a.txt; echo $?",
]

GZIP = [
    TREE
    + "gzip a.txt && ls && gzip -l a.txt.gz && zcat a.txt.gz && gunzip a.txt.gz && stat -c '%n %A %s %Y' a.txt",
    TREE + "gzip -k n.txt && stat -c '%n %A %s %Y' n.txt n.txt.gz && gzip -d -c n.txt.gz | tail -2",
    TREE + "gzip -v a.txt n.txt && gzip -dv a.txt.gz",
    TREE + "gzip -kv a.txt && gunzip -kfv a.txt.gz",
    TREE + "gzip -9 -c n.txt | od -A d -t x1 | head -2 && gzip -1 -c n.txt | wc -c",
    TREE + "gzip -c a.txt > x.gz && gzip -l x.gz && od -A d -t x1 x.gz | head -1",
    TREE + "cat a.txt | gzip | od -A d -t x1 | head -1 && cat a.txt | gzip | gunzip",
    TREE + "gzip -k a.txt && gzip a.txt < /dev/null; echo $?",
    TREE + "gzip -k a.txt && gzip a.txt.gz; echo $?",
    TREE + "gzip nosuch; echo $?; gunzip nosuch; echo $?; zcat nosuch; echo $?",
    TREE + "gunzip a.txt; echo $?; zcat a.txt; echo $?",
    TREE + "gzip p; echo $?; gzip -r p && ls p/q && gunzip -r p && ls p/q",
    TREE + "printf 'xx' > bad.gz && gunzip bad.gz; echo $?; gzip -t bad.gz; echo $?",
    TREE + "gzip -c n.txt | head -c 100 > tr.gz && gunzip tr.gz; echo $?",
    TREE + "gzip -c a.txt > m.gz && gzip -c b.py >> m.gz && zcat m.gz && gzip -l m.gz",
    TREE + "gzip -c a.txt > g.gz && printf 'junk' >> g.gz && zcat g.gz; echo $?",
    TREE + "gzip -c e.txt | od -A d -t x1 && gzip e.txt && gzip -l e.txt.gz",
    TREE + "gzip -S .zz a.txt && ls a.txt* && gunzip -S .zz a.txt.zz && cat a.txt",
    TREE + "gzip -k a.txt n.txt && gzip -l a.txt.gz n.txt.gz",
    TREE + "gzip -x a.txt; echo $?",
    "gzip --version && gzip -V | head -1 && zcat --version && gunzip --version",
    TREE + "gzip -c n.txt > n.gz && cp n.gz n2.tgz && gunzip n2.tgz && ls n2*",
    TREE + "gzip -k a.txt n.txt && gzip -lv a.txt.gz n.txt.gz && gzip -l - < n.txt.gz",
    TREE + "gzip -c a.txt b.py > ab.gz && zcat ab.gz && gzip -l ab.gz && gzip -t ab.gz && echo ok",
    TREE + "gzip -c a.txt | gzip -d | gzip -dc; echo $?",
    TREE + "gzip -qk a.txt && gzip -q a.txt < /dev/null; echo $?",
    TREE + "gzip -n -c a.txt | od -A d -t x1 | head -1 && gzip -nv a.txt && gzip -l a.txt.gz",
    TREE
    + "gzip -k a.txt && mv a.txt.gz b.gz && gunzip -N b.gz; echo $?; rm a.txt; gunzip -Nv b.gz && stat -c '%n %Y' a.txt",
    TREE + "gzip --best -k n.txt && gzip --fast -c n.txt | wc -c && gzip --list n.txt.gz",
    TREE
    + "gzip -k n.txt && gzip --decompress --stdout n.txt.gz | wc -l && gunzip --keep --force n.txt.gz && ls n.txt*",
]

ZIP = [
    TREE + "zip -r z.zip a.txt p n.txt e.txt && unzip -l z.zip",
    TREE + "zip z.zip a.txt && zip z.zip a.txt b.py && unzip -l z.zip",
    TREE + "zip z.zip nosuch; echo $?",
    TREE + "zip z.zip nosuch a.txt; echo $?",
    TREE + "zip -r z.zip a.txt p && zip -d z.zip a.txt && unzip -l z.zip",
    TREE + "zip -q -j z.zip p/q/s.txt && unzip -l z.zip",
    TREE + "zip -r -q z.zip p && zip -r z2 p -x '*.txt' && ls z2.zip",
    TREE + "zip -0 z.zip n.txt && zip -9 z9.zip n.txt && zip -1 z1.zip n.txt",
    TREE + "zip p.zip p && unzip -l p.zip",
    TREE + "cp a.txt notzip.zip && zip notzip.zip a.txt; echo $?",
    TREE
    + "zip -qr z.zip a.txt p b.py e.txt && mkdir u && cd u && unzip ../z.zip && find . -mindepth 1 | sort | xargs stat -c '%n %A %s %Y'",
    TREE
    + "zip -qr z.zip a.txt p && mkdir u && cd u && unzip -q ../z.zip && unzip ../z.zip < /dev/null; echo $?",
    TREE + "zip -qr z.zip a.txt p && mkdir u && cd u && unzip -q ../z.zip && unzip -o ../z.zip",
    TREE + "zip -qr z.zip a.txt p && unzip -p z.zip p/q/s.txt | tail -1 && unzip -d out z.zip && ls out",
    TREE + "zip -qr z.zip a.txt p && unzip -o z.zip zz; echo $?",
    TREE + "unzip nosuch.zip; echo $?",
    TREE + "zip -qr z.zip a.txt p && unzip -t z.zip",
    TREE + "zip -qr z.zip a.txt p && mkdir u && unzip -q -j z.zip -d u && ls u",
    TREE + "zip -qr z.zip a.txt p && mkdir u && unzip -q z.zip -x a.txt -d u && ls u",
    TREE + "zip -qr z.zip a.txt n.txt && unzip -q z.zip 'n*' -d u && ls u",
    TREE + "ln -s a.txt l && zip -y -q y.zip l a.txt && mkdir o && cd o && unzip ../y.zip && readlink l",
    TREE + "zip -q z a.txt && unzip -l z",
    TREE + "cd p && zip -r ../z.zip . ../a.txt && unzip -l ../z.zip",
    TREE + "zip -r z.zip \"$PWD/a.txt\" | sed 's|: .*/|: |'",
    TREE + "zip -qr z.zip p && unzip -qo z.zip && unzip -l z.zip p/q/s.txt",
    TREE + "cd p && zip -q ../z.zip ../a.txt && mkdir x && cd x && unzip ../../z.zip; echo $?; ls",
]


#: edge cases: damaged archives, missing places, options in their long and short forms
EDGES = [
    TREE + "tar cf nodir/t.tar a.txt; echo $?",
    TREE + "tar czf t.tgz a.txt && tar xjf t.tgz; echo $?",
    TREE + "tar czf t.tgz n.txt && head -c 300 t.tgz > tr.tgz && tar tzf tr.tgz; echo $?",
    TREE + "unzip -l nosuch; echo $?",
    TREE + "zip -q z.zip a.txt && unzip -o z.zip -d nodir/deeper && ls nodir/deeper",
    TREE + "zip -q z.zip a.txt && zip -d z.zip nosuch; echo $?",
    TREE + "gzip -k a.txt && gunzip -t a.txt.gz && gzip -tv a.txt.gz; echo $?",
    TREE + "zip -r z.zip nosuchdir; echo $?",
    TREE + "tar cf t.tar a.txt && tar xf t.tar --strip-components=x; echo $?",
    TREE + "tar cf t.tar a.txt && tar --list -f t.tar --verbose --verbose",
    TREE + "tar -cvf t.tar -C p . && tar -tf t.tar",
    TREE + "tar cf - a.txt | tar xvf - -C p; ls p",
    TREE + "echo hi | gzip > h.gz && gunzip h.gz; echo $?; ls h*",
    TREE + "echo hi | gzip -c > h.gz && gzip -d < h.gz",
    TREE + "zip -q z.zip a.txt && unzip -qq z.zip -d o && ls o",
    TREE + "zip -q z.zip a.txt b.py && unzip -n z.zip; echo $?",
    TREE + "zip -q z.zip a.txt && cp a.txt x && unzip -o z.zip a.txt -d x; echo $?",
    TREE + "tar tf; echo $?",
    TREE + "tar -xzf nosuch.tgz; echo $?",
    TREE + "gzip -c nosuch a.txt > o.gz; echo $?; zcat o.gz",
    TREE + "gzip -d a.txt.gz nosuch.gz; echo $?",
    TREE + "tar -cf t.tar --no-recursion p && tar tf t.tar",
    TREE + "tar cf t.tar a.txt && tar xf t.tar --overwrite && echo fine",
    TREE + "zip -q -r z.zip p && zip -r z.zip p",
    TREE + "tar cjf t.tbz a.txt && tar tzf t.tbz; echo $?",
    TREE + "tar cJf - a.txt | head -c 100 | tar tJf -; echo $?",
    TREE + "echo | tar xJf -; echo $?",
    TREE + "tar czf t.tgz n.txt && head -c 300 t.tgz > tr.tgz && mkdir o && tar xzf tr.tgz -C o; echo $?",
    TREE + "gzip -c n.txt | head -c 300 > tr.gz && zcat tr.gz | tail -1; echo $?",
    TREE + "tar -czvf backup.tar.gz p a.txt && tar -tzvf backup.tar.gz",
    TREE + "tar -xvf nosuch.tar; echo $?",
    TREE + "tar czf t.tgz p && rm -r p && tar xzf t.tgz && cat p/q/s.txt | wc -l",
    TREE + "tar cf t.tar a.txt && echo changed > a.txt && tar xf t.tar && cat a.txt",
    TREE + "tar cf t.tar a.txt && echo changed > a.txt && tar xf t.tar --keep-old-files; echo $?; cat a.txt",
    TREE + "tar cf t.tar a.txt && echo changed > a.txt && tar xf t.tar --skip-old-files; echo $?; cat a.txt",
    TREE + "zip -r out.zip p a.txt -q && unzip -l out.zip | tail -1",
    TREE + "zip out.zip; echo $?",
    TREE + "gzip -f a.txt && gzip -f a.txt.gz; echo $?; ls a.txt*",
    TREE + "gzip -c -d; echo $?",
    TREE + "tar -tf t.tar.gz; echo $?",
    TREE + "gunzip -c nosuch.gz 2>&1; echo $?",
    TREE + "zip -q z.zip a.txt && unzip -p z.zip nosuch; echo $?",
    TREE + "tar cf t.tar a.txt n.txt && tar tf t.tar a.txt; tar xf t.tar -O n.txt | head -2",
    TREE + "mkdir -p dist && tar czf dist/app.tgz p && ls dist && tar tzf dist/app.tgz | head -1",
    TREE + "tar zcf t.tgz a.txt && tar zxvf t.tgz",
    TREE + "tar -C p -czf t.tgz q && tar -tzf t.tgz",
    TREE + "tar cf t.tar p && tar xf t.tar --strip-components=2 && ls -d s.txt",
    TREE + "zip -q z.zip p/q/s.txt && unzip -j -o z.zip && ls s.txt",
    TREE + "cat a.txt | gzip -9 > a.gz && gzip -dc a.gz",
    TREE + "gzip -1 a.txt && gzip -l a.txt.gz",
    TREE + "zip -q -r z.zip . -x 'n.txt' && unzip -l z.zip | grep -c txt",
    TREE + "tar cf t.tar . --exclude=./p 2>&1 | head -3; echo $?",
    TREE + "tar --exclude=./p -cf t.tar . && tar tf t.tar | sort",
    TREE + "tar --exclude=p -cf t.tar . && tar tf t.tar | sort",
    TREE + "zip -q z.zip a.txt b.py n.txt e.txt && unzip -v z.zip",
    TREE
    + "zip -q -9 z.zip n.txt && zip -q -1 z1.zip n.txt && zip -q -3 z3.zip n.txt && unzip -v z.zip && unzip -v z1.zip && unzip -v z3.zip",
    TREE + "zip -q z.zip a.txt b.py && printf 'y\\nn\\n' | unzip z.zip; echo $?",
    TREE + "zip -q z.zip a.txt b.py && printf 'A\\n' | unzip z.zip; echo $?",
    TREE + "zip -q z.zip a.txt b.py && printf 'N\\n' | unzip z.zip; echo $?",
    TREE + "zip -q z.zip a.txt b.py && printf 'x\\ny\\nn\\n' | unzip z.zip; echo $?",
    # the very bytes: GNU tar's headers, gzip's, libbz2's and liblzma's streams
    TREE
    + "tar cf - a.txt p b.py | md5sum && tar czf - a.txt p | md5sum && gzip -c n.txt | md5sum && gzip -9 -c n.txt | md5sum",
    TREE + "tar cjf - a.txt p | md5sum && tar cJf - a.txt | md5sum",
    TREE
    + "tar --mtime='2020-02-03 04:05:06' -cf t.tar a.txt p && tar tvf t.tar && tar cf - --mtime=@0 a.txt | md5sum",
    TREE + "tar --mtime=./n.txt -cf t.tar a.txt && tar tvf t.tar",
    TREE + "tar --mtime=nonsense -cf t.tar a.txt; echo $?; tar tf t.tar",
    TREE
    + "zip -q z.zip a.txt b.py && unzip -Z1 z.zip && unzip -Z -1 z.zip && unzip -lq z.zip && unzip -lqq z.zip && unzip -tq z.zip",
    # a name that is not ASCII: its bytes as they are (UnZip pads by bytes)
    TREE
    + "echo x > é.txt && touch -d '2024-01-02 03:04:05' é.txt && zip z.zip é.txt && unzip -l z.zip && mkdir o && cd o && unzip ../z.zip && ls && cat é.txt",
    TREE
    + "echo x > é.txt && touch -d '2024-01-02 03:04:05' é.txt && tar cvf t.tar é.txt && tar tvf t.tar && tar cf - é.txt | md5sum",
]


#: touch -d / -t / -r, which set the dates the archives keep
TOUCH = [
    "touch -d '2024-01-02 03:04:05' f && stat -c %Y f && touch -d @5 f && stat -c %Y f",
    "touch -t 202401020304.05 f && stat -c %Y f && touch -t 2401020304 f && stat -c %Y f",
    "touch -d '2024-01-02' f && touch -r f g && stat -c %Y g",
    "touch -d nonsense f; echo $?; ls f; touch -t 2024 f; echo $?",
    "touch -r nosuch f; echo $?",
    "touch -c -d @7 nofile; echo $?; ls nofile",
]

UNZIP_CORRUPT = TREE + "unzip a.txt; echo $?"


def _needs_infozip(command: str) -> bool:
    """Whether ``command`` runs zip or unzip and the host lacks them (it then cannot compare)."""
    uses = re.search(r"(?<![\w-])(un)?zip\b", command) is not None
    return uses and (shutil.which("zip") is None or shutil.which("unzip") is None)


@pytest.mark.parametrize("command", TAR + GZIP + ZIP + EDGES + TOUCH + [UNZIP_CORRUPT])
def test_the_archivers_answer_as_the_host_s(command: str, same_as_bash: Callable[[str], None]) -> None:
    if _needs_infozip(command):
        pytest.skip("the host has no Info-ZIP zip/unzip to compare with")
    same_as_bash(command)


def _machine() -> VirtualMachine:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=120, memory_mb=256)
    return vm


SETUP = (
    "mkdir -p w/d/e && printf 'one\\n' > w/a && printf 'two\\n' > w/d/b && chmod 600 w/d/b && "
    "printf 'bin\\x00\\xff\\x01' > w/d/e/c && ln -s ../a w/d/l && chmod 750 w/d/e && "
    "touch -d '2023-05-06 07:08:09' w/a && touch -d @1000000000 w/d/b"
)


@pytest.mark.parametrize(
    ("make", "unpack"),
    [
        ("tar cf x.tar w", "tar xf ../x.tar"),
        ("tar czf x.tar w", "tar xf ../x.tar"),
        ("tar cjf x.tar w", "tar xjf ../x.tar"),
        ("tar cJf x.tar w", "tar -x -f ../x.tar"),
        ("zip -qry x.tar w", "unzip -q ../x.tar"),
    ],
)
def test_archives_round_trip_bytes_modes_mtimes_and_links(make: str, unpack: str) -> None:
    vm = _machine()
    assert vm.run(SETUP).exit_code == 0
    before = vm.run("cd w && find . -mindepth 1 | sort | xargs stat -c '%n %A %Y %s'")
    contents = vm.fs.snapshot("/app/w")
    r = vm.run(f"cd /app && {make} && mkdir o && cd o && {unpack}")
    assert (r.stderr, r.exit_code) == ("", 0)
    after = vm.run("cd /app/o/w && find . -mindepth 1 | sort | xargs stat -c '%n %A %Y %s'")
    assert "lrwxrwxrwx" in after.stdout
    if make.startswith("zip"):  # unzip, as UnZip 6.00, leaves a link's own mtime at the time it made it
        before.stdout, after.stdout = (re.sub(r"(lrwxrwxrwx) \d+", r"\1", x.stdout) for x in (before, after))
    assert after.stdout == before.stdout
    unpacked = {k.replace("/app/o/w", "/app/w"): v for k, v in vm.fs.snapshot("/app/o/w").items()}
    assert {k: _bytes(v) for k, v in unpacked.items()} == {k: _bytes(v) for k, v in contents.items()}


def _bytes(value: object) -> object:
    """File content as bytes (text the shell wrote and bytes an archive gave back compare alike)."""
    return value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value


def test_gzip_round_trips_binary_bytes_through_pipes() -> None:
    vm = _machine()
    vm.fs.write("/app/bin", bytes(range(256)) * 40)
    r = vm.run(
        "gzip -c bin | gunzip | cmp - bin && gzip -k bin && zcat bin.gz > back && cmp back bin && echo same"
    )
    assert (r.stdout, r.exit_code) == ("same\n", 0)


def _bomb() -> bytes:
    """A gzip member that inflates to 10 GiB of zeros (about 10 MB): 1 MiB of zeros compressed
    once and its flushed block repeated (a full flush resets the window, so each copy stands
    alone); the stream is never finished, since nothing reads that far."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = comp.compress(b"\x00" * (1 << 20)) + comp.flush(zlib.Z_FULL_FLUSH)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03" + block * 10240


def _zip_bomb() -> bytes:
    """A zip of one member that says it holds 4 GiB and inflates to 10 GiB of zeros."""
    stream = _bomb()[10:]
    entry = Entry("bomb", 0o100644, 0, zipfile.ZIP_DEFLATED, 0, 0xFFFFFFFF, stream)
    return write_archive([entry])


@pytest.mark.parametrize(
    "command",
    ["gunzip bomb.gz", "zcat bomb.gz | head -c 10", "tar tzf bomb.gz", "gzip -t bomb.gz", "unzip -o bomb.zip",
     "unzip -p bomb.zip | head -c 1"],
)  # fmt: skip
def test_a_decompression_bomb_ends_with_the_memory_limit_answer(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    vm.fs.write("/app/bomb.gz", _bomb())
    vm.fs.write("/app/bomb.zip", _zip_bomb())
    r = vm.run(command + "; echo after")
    assert "xmalloc: cannot allocate" in r.stderr
    assert r.exit_code == 2 and "after" not in r.stdout
    assert not vm.fs.exists("/app/bomb")
    assert vm.run("echo still").stdout == "still\n"


WRITERS = [
    "tar cf out w",
    "tar czf out w",
    "tar cjf out w",
    "tar cJf out w",
    "zip -qr out w",
    "gzip -c w/d/e/c > out",
]


@pytest.mark.parametrize("command", WRITERS)
def test_two_fresh_machines_write_the_same_archive_bytes(command: str) -> None:
    made = []
    for _ in range(2):
        vm = _machine()
        assert vm.run(SETUP + " && " + command).exit_code == 0
        made.append(vm.fs.read("/app/out.zip" if command.startswith("zip") else "/app/out"))
    assert made[0] == made[1] and len(made[0]) > 20


def test_tar_says_it_is_ubuntu_24_04_s() -> None:
    r = _machine().run("tar --version | head -1; tar --vers | head -1")
    assert (r.stdout, r.exit_code) == ("tar (GNU tar) 1.35\n" * 2, 0)


@pytest.mark.parametrize(
    "command",
    ["tar rf t.tar a", "tar --delete -f t.tar a", "tar cf t.tar --totals a", "gzip --rsyncable a",
     "zip -u z.zip a", "unzip -Z z.zip", "tar -d -f t.tar"],
)  # fmt: skip
def test_what_is_not_simulated_says_so(command: str) -> None:
    vm = _machine()
    r = vm.run("echo x > a && " + command)
    assert r.unknown_effect and r.exit_code == 126
    assert "cannot run in the offline world" in r.stderr


#: (what makes the archive, its name, what reads it): made by one side, read by both
CROSS = [
    ("tar czf x.tgz p a.txt b.py", "x.tgz",
     "tar tvzf x.tgz && mkdir o && tar xzf x.tgz -C o && find o -mindepth 1 | sort | xargs stat -c '%n %A %s %Y'"),
    ("tar cjf x.tbz p", "x.tbz", "tar tvf x.tbz && tar xOjf x.tbz | tail -1"),
    ("tar cJf x.txz a.txt", "x.txz", "tar tvJf x.txz && tar xOf x.txz"),
    ("tar cf x.tar p n.txt", "x.tar", "tar tvf x.tar && tar xf x.tar -O n.txt | tail -1"),
    ("zip -qr x.zip p a.txt n.txt e.txt b.py", "x.zip",
     "unzip -l x.zip && mkdir o && cd o && unzip ../x.zip && find . -mindepth 1 | sort | xargs stat -c '%n %A %s %Y'"),
    ("gzip -k n.txt", "n.txt.gz", "gzip -lv n.txt.gz && zcat n.txt.gz | tail -1 && gzip -t n.txt.gz"),
    ("gzip -9 -c a.txt > a.gz", "a.gz", "gzip -l a.gz && gunzip -c a.gz"),
    ("printf 'x\\n' > é.txt && zip -q x.zip é.txt a.txt", "x.zip", "unzip -l x.zip && unzip -o x.zip && cat é.txt"),
]  # fmt: skip


@pytest.mark.parametrize(("make", "archive", "read"), CROSS)
@pytest.mark.parametrize("maker", ["host", "offline"])
def test_an_archive_made_on_one_side_reads_the_same_on_both(
    make: str, archive: str, read: str, maker: str, tmp_path: Path,
    real_bash_err: Callable[[str], tuple[str, str, int]],
) -> None:  # fmt: skip
    """The host's GNU tar, gzip and Info-ZIP archives read offline as on the host, and the
    offline world's archives read on the host as offline: the formats are the real ones."""
    if _needs_infozip(make):
        pytest.skip("the host has no Info-ZIP zip/unzip to compare with")
    vm = _machine()
    host_made = real_bash_err(TREE + make)
    offline_made = vm.run(TREE + make)
    assert host_made[2] == offline_made.exit_code == 0
    host_file = tmp_path / "work" / archive
    path = f"/app/work/{archive}"
    if maker == "host":
        vm.fs.write(path, host_file.read_bytes())
        vm.fs.set_mtime(path, int(host_file.stat().st_mtime))
    else:
        data = vm.fs.read(path)
        host_file.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape"))
        os.utime(host_file, (vm.fs.stat(path).mtime, vm.fs.stat(path).mtime))
    offline = vm.run(read)
    assert not offline.unknown_effect
    assert (offline.stdout, offline.stderr, offline.exit_code) == real_bash_err("cd work && " + read)


@pytest.mark.parametrize("command", ["tar cf t.tar big1 big2 big3", "zip -q z.zip big1 big2 big3",
                                     "tar czf t.tgz big1 big2 big3"])  # fmt: skip
def test_an_archive_that_outgrows_the_memory_budget_is_refused_as_it_grows(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=120, memory_mb=3)  # one value may take 1 MiB
    for i in (1, 2, 3):
        vm.fs.write(f"/app/big{i}", bytes(range(256)) * 2400)  # 600 KiB each
    r = vm.run(command)
    assert r.exit_code == 2 and "xmalloc: cannot allocate" in r.stderr


def test_compressing_is_work_counted_against_the_step_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.05, memory_mb=256)  # 50,000 units of work
    vm.fs.write("/app/big", b"0123456789abcdef" * (1 << 18))  # 4 MiB
    r = vm.run("gzip -k big")
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr
    assert vm.run("echo ok").stdout == "ok\n"


@pytest.mark.skipif(shutil.which("zip") is None or shutil.which("unzip") is None, reason="needs Info-ZIP")
def test_a_member_saved_at_an_odd_second_lists_the_minute_unzip_lists(tmp_path: Path) -> None:
    """The DOS time rounds 22:13:59 up to 22:14:00; UnZip lists the ``UT`` field's 22:13."""
    (tmp_path / "a").write_text("x\n")
    os.utime(tmp_path / "a", (1_700_000_039, 1_700_000_039))
    subprocess.run(["zip", "-q", "z.zip", "a"], cwd=tmp_path, check=True)
    vm = VirtualMachine(cwd="/w")
    vm.fs.write("/w/z.zip", (tmp_path / "z.zip").read_bytes())
    for listing in ("-l", "-v"):
        host = subprocess.run(["unzip", listing, "z.zip"], cwd=tmp_path, capture_output=True, text=True,
                              env={"TZ": "UTC", "PATH": os.environ["PATH"]}, check=True)  # fmt: skip
        assert vm.run(f"unzip {listing} z.zip").stdout == host.stdout
        assert "22:13" in host.stdout

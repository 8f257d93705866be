"""file as file 5.44 names what agents meet: scripts, source, data formats, archives, encodings
and line endings, links, errors and the output options, compared with the host's file."""

from __future__ import annotations

import io
import shutil
import zipfile
from collections.abc import Callable

import pytest

#: a project's files
SETUP = (
    "mkdir -p proj/src proj/tests && cd proj && "
    "printf 'import os\\n\\ndef add(a, b):\\n    return a + b\\n' > src/calc.py && "
    "printf 'from calc import add\\n' > tests/test_calc.py && "
    "printf 'name,qty,price\\napple,3,1.5\\nbanana,12,0.25\\ncherry,7,3\\n' > data.csv && "
    "printf '# Title\\n\\nSome text.\\n' > README.md && "
)


def _zip(method: int) -> str:
    """A small zip archive (fixed date) as a printf argument, the same bytes for both shells."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        info = zipfile.ZipInfo("t.txt", date_time=(2024, 3, 1, 10, 20, 30))
        info.compress_type = method
        archive.writestr(info, "hello hello hello hello\n")
    return "".join(f"\\{byte:03o}" for byte in buf.getvalue())


SAME_AS_FILE = [
    "file src/calc.py",
    "file src/calc.py tests/test_calc.py data.csv README.md src tests",
    "file -b src/calc.py",
    "file -N src/calc.py data.csv",
    "file -F ' =>' src/calc.py data.csv",
    "file -i src/calc.py data.csv src",
    "file --mime-type src/calc.py data.csv src",
    "file --mime-encoding src/calc.py",
    "printf '#!/bin/sh\\necho\\n' > a; printf '#!/bin/bash\\necho\\n' > b; printf '#!/usr/bin/env python3\\nprint(1)\\n' > c; printf '#!/usr/bin/env bash\\n' > d; printf '#!/usr/bin/perl\\n' > e; printf '#!/usr/bin/env node\\n' > f; printf '#!/bin/zsh\\n' > g; printf '#!/usr/bin/ruby\\n' > h; file a b c d e f g h; file -i a c e f",
    "printf 'def f():\\n    pass\\n' > a.py; printf 'import os\\n' > b.py; printf 'class A:\\n  pass\\n' > c.py; printf 'from x import y\\n' > d.py; printf 'try:\\n    x()\\nexcept E:\\n    pass\\n' > e.py; printf 'x = 1\\nclass B(A, C):\\n    pass\\n' > f.py; file *.py",
    "printf '{\"a\": 1}\\n' > a.json; printf '[1, 2]' > b.json; printf '{\"a\": }' > c.json; printf '{\\n  \"k\": [true, null]\\n}\\n' > d.json; file *.json; file -i a.json",
    "printf '<!DOCTYPE html>\\n<html></html>\\n' > a.html; printf '<html>\\n' > b.html; printf '<p>x</p>\\n' > c.html; printf '  <HTML>\\n' > d.html; file *.html; file -i a.html",
    'printf \'<?xml version="1.0"?>\\n<a/>\\n\' > a.xml; printf \'<?xml version="1.0" encoding="UTF-8"?>\\n<svg xmlns="http://www.w3.org/2000/svg"></svg>\\n\' > b.svg; printf \'<svg xmlns="http://www.w3.org/2000/svg"/>\\n\' > c.svg; file a.xml b.svg c.svg; file -i a.xml',
    "printf 'diff --git a/x b/x\\n' > a.patch; printf -- '--- a/x\\n+++ b/x\\n' > b.patch; printf 'Index: x\\n' > c.patch; file *.patch",
    "printf '#include <stdio.h>\\nint main(){}\\n' > a.c; printf 'struct a {\\n int b;\\n};\\n' > b.c; file a.c b.c; file -i a.c",
    "printf 'all:\\n\\techo hi\\n' > Makefile; printf 'clean:\\n\\trm -f x\\n' > mk2; printf 'CC=gcc\\n' > mk3; file Makefile mk2 mk3; file -i Makefile",
    "printf 'a\\r\\nb\\r\\n' > a.txt; printf 'a\\r\\nb\\n' > b.txt; printf 'a\\rb\\r' > c.txt; printf 'abc' > d.txt; printf '\\033[1mbold\\n' > e.txt; printf 'x\\bx\\n' > f.txt; printf 'caf\\303\\251\\n' > g.txt; printf '\\351t\\351\\n' > h.txt; printf '\\001\\002\\n' > i.txt; file *.txt; file -i g.txt h.txt i.txt",
    ": > empty; file empty; file -i empty; file -b empty",
    "ln -s src/calc.py link; ln -s nowhere broken; file link broken; file -L link; file -h link; file -i link; file -L broken",
    "file nope; echo $?; file -E nope; echo $?",
    "file; echo $?",
    "file -x src; echo $?",
    "file /usr/bin/ls | cut -d, -f1",
    "printf '%%PDF-1.4\\n%%\\342\\343\\n' > a.pdf; file a.pdf",
    "printf 'BZh91AY&SY' > a.bz2; file a.bz2; file -i a.bz2",
    "printf '\\375\\067zXZ\\000\\000\\004\\346\\326\\264\\106' > a.xz; file a.xz",
    "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR\\000\\000\\000\\003\\000\\000\\000\\002\\010\\006\\000\\000\\000\\000\\000\\000\\000' > a.png; file a.png; file -i a.png",
    "printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003\\003\\000\\000\\000\\000\\000\\000\\000\\000\\000' > a.gz; file a.gz; file -i a.gz",
    "printf '\\037\\213\\010\\010\\200\\000\\000\\000\\002\\003t.txt\\000\\003\\000\\000\\000\\000\\000\\002\\000\\000\\000' > b.gz; file b.gz",
    "printf 'PK\\003\\004\\024\\000\\000\\000\\010\\000' > a.zip; printf 'PK\\003\\004\\012\\000\\000\\000\\000\\000' > b.zip; file a.zip b.zip; file -i a.zip",
    "printf 'a,b\\n1,2\\n3,4\\n' > a.csv; printf 'a,b\\n1,2\\n' > b.csv; printf 'a,\"b\\nc\",d\\n1,2,3\\n4,5,6\\n' > c.csv; printf 'a,b\\n1,2\\n3\\n' > d.csv; printf 'a;b\\n1;2\\n3;4\\n' > e.csv; file *.csv; file -i a.csv",
    "printf 'install:\\n\\tcp x y\\n' > m1; printf '.PHONY: all\\nall:\\n' > m2; printf 'CFLAGS=-O2\\n' > m3; printf 'x: y\\n\\tcc y\\n' > m4; printf 'foo\\nall:\\n' > m6; file m1 m2 m3 m4 m6",
    "printf -- '--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n' > u1; printf -- '--- a\\n+++ b\\n' > u2; file u1 u2; file -i u1",
    "printf '%%PDF-1.7\\n\\342\\n' > p1.pdf; file -i p1.pdf",
    "printf '%0400d\\n\\033x\\bx\\r\\n' 0 > combo; file combo",
    f"printf '{_zip(zipfile.ZIP_STORED)}' > st.zip; printf '{_zip(zipfile.ZIP_DEFLATED)}' > df.zip; "
    "file st.zip df.zip; file -i st.zip",
]


@pytest.mark.skipif(shutil.which("file") is None, reason="the host has no file(1) to compare with")
@pytest.mark.parametrize("command", SAME_AS_FILE)
def test_file_names_types_as_libmagic(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(SETUP + command)

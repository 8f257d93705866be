"""file: a file's type from its first bytes, as file 5.44 (libmagic) names the common ones.

What is recognised: directories, symbolic links, empty files, the stub executables of /usr/bin;
gzip, bzip2, xz, zip, tar, PNG, PDF and SQLite headers; scripts by their ``#!`` line; XML, SVG,
HTML, JSON, diffs, C, makefiles and Python by libmagic's own tests; otherwise the text's encoding
(ASCII, UTF-8, ISO-8859, else ``data``) with its line terminators, very long lines, escape
sequences and overstriking. ``-b``, ``-i``/``--mime``, ``--mime-type``, ``--mime-encoding``,
``-L``/``-h``, ``-N``, ``-F`` and ``-E`` are understood.
"""

from __future__ import annotations

import json
import re
import struct
import time
from typing import TYPE_CHECKING

from ...vfs import DirNode, FileNode, FsError, LinkNode, stub_program
from ..errors import _UsageError
from ..getopt import _getopt
from ..limits import BYTES_PER_UNIT, current
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

#: how much of a file libmagic looks at (its default ``bytes`` parameter)
LOOKED_AT = 1024 * 1024
#: libmagic's longest ordinary line; longer ones are "very long lines"
LONG_LINE = 300
_VERSION = "file-5.44\nmagic file from /etc/magic:/usr/share/misc/magic\n"
_USAGE = (
    "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n"
    "            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n"
    "            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"
    "            <file> ...\n"
    "       file -C [-m <magicfiles>]\n"
    "       file [--help]\n"
)
_LONGS: dict[str, str | None] = {
    "brief": "b",
    "mime": "i",
    "mime-type": "mimetype",
    "mime-encoding": "mimeencoding",
    "dereference": "L",
    "no-dereference": "h",
    "no-pad": "N",
    "separator=": "F",
    "uncompress": None,
    "special-files": None,
    "keep-going": None,
}
#: interpreters of ``#!`` lines: (description, ``{enc}`` where the encoding goes; mime type)
_INTERPRETERS = {
    "sh": ("POSIX shell script, {enc} executable", "text/x-shellscript"),
    "dash": ("POSIX shell script, {enc} executable", "text/x-shellscript"),
    "bash": ("Bourne-Again shell script, {enc} executable", "text/x-shellscript"),
    "zsh": ("Paul Falstad's zsh script, {enc} executable", "text/x-shellscript"),
    "python": ("Python script, {enc} executable", "text/x-script.python"),
    "ruby": ("Ruby script, {enc} executable", "text/x-ruby"),
    "perl": ("Perl script text executable", "text/x-perl"),
    "node": ("Node.js script executable, {enc}", "application/javascript"),
}
_PYTHON = re.compile(
    r"^from[ \t\f\r\n]+[\w.]+[ \t\f\r\n]+import.*$"
    r"|^[ \t\f\r\n]*def[ \t\f\r\n]+[A-Za-z_]\w*[ \t\f\r\n]*\(.*\)[ \t\f\r\n]*:"
    r"|^class[ \t\f\r\n]+[A-Za-z_]\w*([ \t\f\r\n]*\([\w, ]*\))?[ \t\f\r\n]*:",
    re.M,
)
_MAKEFILE = re.compile(r"^(?:all:|\.PHONY|CFLAGS\s*=)", re.M)
#: how many lines libmagic's CSV test reads, and how many it needs
CSV_LINES, CSV_FEWEST = 10, 3
_C_SOURCE = re.compile(r"^#include[ \t]*[<\"]|^struct[ \t]+\w+[ \t]*\{", re.M)


class _Kind:
    """What file says of one file: its description and mime type (and charset)."""

    def __init__(self, text: str, mime: str, charset: str = "binary") -> None:
        self.text, self.mime, self.charset = text, mime, charset


def _binary_kind(data: bytes, tail: bytes) -> _Kind | None:
    """The kinds libmagic knows by their first bytes (a zip archive also by the end of its central
    directory, in ``tail``, the file's last 64 KiB)."""
    if data.startswith(b"\x1f\x8b") and len(data) >= 10:
        flags, mtime = data[3], struct.unpack("<I", data[4:8])[0]
        parts = ["gzip compressed data"]
        if flags & 0x08:
            end = data.find(b"\x00", 10)
            name = data[10 : end if end >= 0 else len(data)].decode("latin-1")
            parts.append(f'was "{name}"')
        if mtime:
            parts.append("last modified: " + time.strftime("%a %b %e %H:%M:%S %Y", time.gmtime(mtime)))
        if data[8] == 2:
            parts.append("max compression")
        elif data[8] == 4:
            parts.append("max speed")
        parts.append(
            "from Unix" if data[9] == 3 else "from FAT filesystem (MS-DOS, OS/2, NT)" if data[9] == 0 else ""
        )
        size = struct.unpack("<I", data[-4:])[0] if len(data) >= 18 else 0
        parts.append(f"original size modulo 2^32 {size}")
        return _Kind(", ".join(p for p in parts if p), "application/gzip")
    if data.startswith(b"BZh") and data[3:4].isdigit():
        return _Kind(f"bzip2 compressed data, block size = {data[3] - 48}00k", "application/x-bzip2")
    if data.startswith(b"\xfd7zXZ\x00") and len(data) >= 8:
        check = {0: "none", 1: "CRC32", 4: "CRC64", 10: "SHA-256"}.get(data[7] & 0x0F, "unknown")
        return _Kind(f"XZ compressed data, checksum {check}", "application/x-xz")
    if data.startswith(b"PK\x03\x04") and len(data) >= 30 and b"PK\x05\x06" in tail:
        version, method = struct.unpack("<H", data[4:6])[0], struct.unpack("<H", data[8:10])[0]
        methods = {0: "store", 8: "deflate", 12: "bzip2", 14: "lzma"}
        text = f"Zip archive data, at least v{version // 10}.{version % 10} to extract"
        return _Kind(f"{text}, compression method={methods.get(method, str(method))}", "application/zip")
    if len(data) >= 263 and data[257:263] in (b"ustar ", b"ustar\x00"):
        gnu = data[257:265] == b"ustar  \x00"
        return _Kind("POSIX tar archive (GNU)" if gnu else "POSIX tar archive", "application/x-tar")
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 29:
        width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
        colors = {0: "grayscale", 2: "RGB", 3: "colormap", 4: "gray+alpha", 6: "RGBA"}
        laced = "interlaced" if interlace else "non-interlaced"
        return _Kind(
            f"PNG image data, {width} x {height}, {depth}-bit/color {colors.get(color, '')}, {laced}",
            "image/png",
        )
    if data.startswith(b"%PDF-"):
        version = re.match(rb"%PDF-(\d+\.\d+)", data)
        return _Kind(
            f"PDF document, version {version.group(1).decode() if version else ''}", "application/pdf"
        )
    if data.startswith(b"SQLite format 3\x00") and len(data) >= 100:
        counter, pages = struct.unpack(">II", data[24:32])
        cookie, schema = struct.unpack(">II", data[40:48])
        encoding = {1: "UTF-8", 2: "UTF-16le", 3: "UTF-16be"}.get(struct.unpack(">I", data[56:60])[0], "")
        valid, version = struct.unpack(">II", data[92:100])
        text = (
            f"SQLite 3.x database, last written using SQLite version {version}, file counter {counter}, "
            f"database pages {pages}, cookie {cookie:#x}, schema {schema}, {encoding}, version-valid-for {valid}"
        )
        return _Kind(text, "application/vnd.sqlite3")
    return None


def _encoding(data: bytes) -> tuple[str, str] | None:
    """``(description, charset)`` of text, None for data."""
    controls = set(range(0x20)) - {0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B}
    if any(b in controls or b == 0x7F for b in data):
        return None
    if data.isascii():
        return "ASCII text", "us-ascii"
    try:
        data.decode("utf-8")
        return "Unicode text, UTF-8 text", "utf-8"
    except UnicodeDecodeError:
        pass
    if all(b >= 0xA0 or b < 0x80 for b in data):
        return "ISO-8859 text", "iso-8859-1"
    return None


def _attributes(data: bytes) -> str:
    """libmagic's notes after a text's encoding."""
    notes = []
    longest = max((len(line) for line in re.split(rb"\r\n|\n|\r", data)), default=0)
    if longest > LONG_LINE:
        notes.append(f"with very long lines ({longest})")
    crlf = data.count(b"\r\n")
    lf, cr = data.count(b"\n") - crlf, data.count(b"\r") - crlf
    terminators = [name for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    if not terminators:
        notes.append("with no line terminators")
    elif terminators != ["LF"]:
        notes.append(f"with {', '.join(terminators)} line terminators")
    if b"\x1b" in data:
        notes.append("with escape sequences")
    if b"\x08" in data:
        notes.append("with overstriking")
    return "".join(", " + note for note in notes)


def _script(first: str) -> tuple[str, str]:
    """The description and mime type a ``#!`` line gives."""
    words = first[2:].split()
    program = words[0] if words else ""
    if program.endswith("/env") and len(words) > 1:
        program = words[1]
    name = re.sub(r"[\d.]+$", "", program.rsplit("/", 1)[-1])
    if name in _INTERPRETERS:
        return _INTERPRETERS[name]
    return f"a {program} script, {{enc}} executable", "text/plain"


def _text_kind(data: bytes) -> _Kind:
    found = _encoding(data)
    if found is None:
        return _Kind("data", "application/octet-stream")
    enc, charset = found
    text = data.decode("utf-8" if charset != "iso-8859-1" else "latin-1")
    notes = _attributes(data)
    stripped = text.lstrip()
    if text.startswith("#!"):
        description, mime = _script(text.split("\n", 1)[0])
        return _Kind(description.format(enc=enc) + notes, mime, charset)
    if stripped.startswith("<?xml"):
        if "<svg" in stripped:
            return _Kind("SVG Scalable Vector Graphics image", "image/svg+xml", charset)
        version = re.match(r"<\?xml\s+version=[\"']([\d.]+)", stripped)
        return _Kind(
            f"XML {version.group(1) if version else '1.0'} document, {enc}{notes}", "text/xml", charset
        )
    if stripped.startswith("<svg"):
        return _Kind("SVG Scalable Vector Graphics image", "image/svg+xml", charset)
    if re.match(r"<(?:!doctype\s+html|html|head|body|title)\b", stripped, re.I):
        return _Kind(f"HTML document, {enc}{notes}", "text/html", charset)
    if stripped[:1] in ("{", "["):
        try:
            json.loads(text)
        except ValueError:
            pass
        else:
            return _Kind("JSON text data", "application/json", charset)
    if text.startswith("diff "):
        return _Kind(f"diff output, {enc}{notes}", "text/x-diff", charset)
    if text.startswith("Index:"):
        return _Kind(f"RCS/CVS diff output, {enc}{notes}", "text/x-diff", charset)
    if text.startswith("--- ") and re.match(r"--- [^\n]*\n\+\+\+ [^\n]*\n@@ ", text):
        return _Kind(f"unified diff output, {enc}{notes}", "text/x-diff", charset)
    if _is_csv(text):
        return _Kind("CSV text", "text/csv", charset)
    if _C_SOURCE.search(text):
        return _Kind(f"C source, {enc}{notes}", "text/x-c", charset)
    if _MAKEFILE.search(text):
        return _Kind(f"makefile script, {enc}{notes}", "text/x-makefile", charset)
    if _PYTHON.search(text) or (
        re.search(r"^\s*try:", text, re.M) and re.search(r"^\s*(except.*|finally):", text, re.M)
    ):
        return _Kind(f"Python script, {enc} executable{notes}", "text/x-script.python", charset)
    return _Kind(enc + notes, "text/plain", charset)


def _is_csv(text: str) -> bool:
    """libmagic's test: the first lines (up to CSV_LINES, at least CSV_FEWEST) have the same
    number of comma-separated fields, two or more (a quoted field may hold commas and newlines)."""
    fields, counts, quoted = 1, [], False
    for c in text:
        if c == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif c == ",":
            fields += 1
        elif c == "\n":
            counts.append(fields)
            fields = 1
            if len(counts) == CSV_LINES:
                break
    if not text.endswith("\n") and len(counts) < CSV_LINES:
        counts.append(fields)
    return len(counts) >= CSV_FEWEST and counts[0] > 1 and len(set(counts)) == 1


def _kind(p: _Proc, name: str, follow: bool) -> _Kind | str:
    """What file says of ``name``; its error text where it cannot look."""
    path = p.path(name)
    try:
        node = p.fs.stat(path, follow=False)
        if isinstance(node, LinkNode):
            if not follow:
                broken = not p.fs.exists(path)
                return _Kind(f"{'broken ' if broken else ''}symbolic link to {node.target}", "inode/symlink")
            node = p.fs.stat(path)
    except FsError as exc:
        return f"cannot open `{name}' ({exc.strerror})"  # -E: an error (file's ERROR: line)
    if isinstance(node, DirNode):
        return _Kind("directory", "inode/directory")
    assert isinstance(node, FileNode)
    content = node.content
    whole = content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape")
    data = whole[:LOOKED_AT]
    current().spend(len(data) // BYTES_PER_UNIT)
    if not data:
        return _Kind("empty", "inode/x-empty")
    if stub_program(content):
        text = "ELF 64-bit LSB pie executable, x86-64, version 1 (SYSV), dynamically linked, stripped"
        return _Kind(text, "application/x-pie-executable")
    found = _binary_kind(data, whole[-65557:])
    if found is not None:
        encoding = _encoding(data)  # libmagic names the bytes' charset even for a binary format
        found.charset = encoding[1] if encoding else "binary"
        return found
    return _text_kind(data)


@applet("file")
def _u_file(p: _Proc) -> int:
    try:
        opts, names = _getopt(p.args, "bcdEhikLlNnprsSvzZ0e:F:f:m:P:", _LONGS)
    except _UsageError as exc:
        p.err(exc.message)
        p.ctx.err.write(_USAGE)
        return 1
    if "v" in opts:
        p.out(_VERSION)
        return 0
    if not names:
        p.ctx.err.write(_USAGE)
        return 1
    follow = "L" in opts and "h" not in opts
    separator = str(opts["F"][-1]) if "F" in opts else ":"
    pad = not ("N" in opts or "b" in opts)
    width = max(len(name) + len(separator) for name in names)
    status = 0
    for name in names:
        found = _kind(p, name, follow)
        if isinstance(found, str):
            if "E" in opts:
                status = 1
                found = "ERROR: " + found.replace("cannot open", "cannot stat", 1)
            shown = found
        elif "mimetype" in opts:
            shown = found.mime
        elif "mimeencoding" in opts:
            shown = found.charset
        elif "i" in opts:
            shown = f"{found.mime}; charset={found.charset}"
        else:
            shown = found.text
        if "b" in opts:
            p.out(shown + "\n")
        else:
            label = name + separator
            p.out(f"{label:<{width}} {shown}\n" if pad else f"{label} {shown}\n")
    return status

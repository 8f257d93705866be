"""cat, tac and rev."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _Inputs, _lines, from_host
from ..devices import ENDLESS, device_chunks
from ..getopt import _getopt
from ..pipes import streaming
from ..quoting import quote_always, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("cat")
@streaming()
def _u_cat(p: _Proc) -> Generator[str, None, int]:
    """cat, streaming: a pipe's reader that stops stops it (``cat /dev/zero | head -c 5``)."""
    opts, files = _getopt(
        p.args,
        "nbAEsTvtue",
        {
            "number": "n",
            "number-nonblank": "b",
            "show-all": "A",
            "show-ends": "E",
            "squeeze-blank": "s",
            "show-tabs": "T",
            "show-nonprinting": "v",
        },
    )
    # paths now: the generator may run on after the shell's directory has changed
    sources = [(name, None if name == "-" else p.path(name)) for name in files or ["-"]]
    plain = not (set(opts) & set("nbAEsTvte"))
    numbering = _Numbering(opts)
    status = 0
    for name, path in sources:
        try:
            chunks = _chunks_of(p, path)
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            status = 1
            continue
        if plain:
            yield from chunks
            continue
        for chunk in chunks:
            yield numbering.feed(chunk)
    return status


def _chunks_of(p: _Proc, path: str | None) -> Iterable[str]:
    """What cat reads of stdin (None) or a file; raises FsError. An endless device streams,
    where cat streams; elsewhere reading one to its end meets the step's budget at once."""
    if path is None:
        return p.ctx.stdin.chunks()
    if path in ENDLESS and p.ctx.lazy:
        return device_chunks(path, p.vm.device_random())
    return [p.read_path(path)]


def _visible(piece: str, tabs: bool) -> str:
    """``cat -v``: each byte a control character shows as ^X (DEL ^?), past ASCII as M- and the
    byte less 128; a tab stays unless ``tabs`` (-T) makes it ^I."""
    out = []
    for c in from_host(piece):
        b = ord(c)
        lead = "M-" if b >= 128 else ""
        b &= 0x7F
        if b == 9 and not lead and not tabs:
            out.append("\t")
        elif b < 32:
            out.append(f"{lead}^{chr(b + 64)}")
        elif b == 127:
            out.append(f"{lead}^?")
        else:
            out.append(lead + chr(b))
    return "".join(out)


class _Numbering:
    """cat's line options (-n, -b, -s, -E, -T, -A), applied as text comes, across files: a
    line is shown as it arrives, so a line that never ends (``cat -n /dev/zero``) still streams."""

    def __init__(self, opts: dict[str, object]) -> None:
        self.opts = opts
        self.number = 0
        self.blank_run = False
        self.at_start = True

    def feed(self, chunk: str) -> str:
        opts = self.opts
        out: list[str] = []
        start = 0
        while start < len(chunk):
            end = chunk.find("\n", start)
            ended = end >= 0
            piece = chunk[start:end] if ended else chunk[start:]
            start = end + 1 if ended else len(chunk)
            if self.at_start:
                if not piece and not ended:
                    break
                blank = not piece  # the line is just its newline
                if "s" in opts:
                    if blank and self.blank_run:
                        continue
                    self.blank_run = blank
                if "b" in opts:
                    if not blank:
                        self.number += 1
                        out.append(f"{self.number:6d}\t")
                elif "n" in opts:
                    self.number += 1
                    out.append(f"{self.number:6d}\t")
            if set(opts) & set("vAet"):
                piece = _visible(piece, tabs="T" in opts or "A" in opts or "t" in opts)
            elif "T" in opts:
                piece = piece.replace("\t", "^I")
            out.append(piece)
            if ended:
                out.append("$\n" if set(opts) & set("EAe") else "\n")
            self.at_start = ended
        return "".join(out)


@applet("tac")
def _u_tac(p: _Proc) -> int:
    _, files = _getopt(p.args, "bs:r")
    inputs = _Inputs(p, files, "failed to open {} for reading: {}", quote_always)
    for _, text in inputs:
        p.out("".join(line + "\n" for line in reversed(_lines(text))))
    return inputs.status


@applet("rev")
def _u_rev(p: _Proc) -> int:
    inputs = _Inputs(p, p.args, "cannot open {}: {}", str)
    for _, text in inputs:
        p.out("".join(line[::-1] + "\n" for line in _lines(text)))
    return inputs.status

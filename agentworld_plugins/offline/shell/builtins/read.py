"""``read`` as bash 5.2 reads: ``-r``, ``-a ARRAY``, ``-d DELIM``, ``-n``/``-N COUNT``, ``-u FD``,
``-t TIMEOUT``, ``-p PROMPT``, ``-s``, ``-e``, ``-i``, and bash's field splitting.

Without ``-r`` a backslash keeps the next character from being a delimiter or a field separator
(``a\\ b`` is one field) and a backslash-newline continues the line. Fields split on ``IFS`` as
bash's ``read`` splits them: runs of IFS whitespace separate fields and are trimmed at the ends;
each other IFS character separates one field from the next, so two in a row make an empty field.
The last name gets the rest of the line, separators and all, trailing IFS whitespace trimmed and
a single trailing separator dropped when only one field is left (``IFS=, read a b <<< 1,2,``
makes ``b`` ``2``; with ``1,2,3,`` it is ``2,3,``). ``REPLY`` (no name) gets the line as read.
"""

from __future__ import annotations

import re

from ..errors import _UsageError
from ..getopt import _getopt
from ..names import _valid_name
from ..proc import _Input, _Proc
from ..registry import builtin

_USAGE = (
    "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] "
    "[-p prompt] [-t timeout] [-u fd] [name ...]\n"
)
_WHITE = " \t\n"


@builtin("read")
def _b_read(p: _Proc) -> int:
    try:
        opts, names = _getopt(p.args, "ersa:d:i:n:N:p:t:u:", status=2, stop_at_operand=True)
    except _UsageError as exc:
        flag = exc.message.rpartition("'")[0].rpartition("'")[2]
        wanted = "option requires an argument" if "requires" in exc.message else "invalid option"
        p.shell_err(f"read: -{flag}: {wanted}")
        p.ctx.err.write(_USAGE)
        return 2
    stdin = p.input_fd(_last(opts, "u"))
    if stdin is None:
        return 1
    limit = None
    exact = False
    for flag in ("n", "N"):
        value = _last(opts, flag)
        if value is not None:
            if not value.isdigit():
                p.shell_err(f"read: {value}: invalid number")
                return 1
            limit, exact = int(value), flag == "N"
    timeout = _last(opts, "t")
    if timeout is not None:
        try:
            if float(timeout) < 0 or not timeout.replace(".", "", 1).isdigit():
                raise ValueError(timeout)
        except ValueError:
            p.shell_err(f"read: {timeout}: invalid timeout specification")
            return 1
        if float(timeout) == 0:  # is there input? (there always is: at worst its end)
            return 0
    array = _last(opts, "a")
    if array is not None and not _valid_name(array):
        return _invalid(p, array)
    prompt = _last(opts, "p")
    if prompt is not None and p.vm.interactive and stdin is p.vm._tty_in:
        p.ctx.err.write(prompt)  # bash prompts only when it reads from the terminal
    delim = _last(opts, "d")
    delim = "\n" if delim is None else (delim[:1] or "\0")
    text, escaped, complete = _take(stdin, delim, limit, exact, raw="r" in opts)
    if limit == 0:
        complete = True
    vm = p.vm
    ifs = vm.vars.get("IFS", _WHITE)
    if exact:  # -N: the characters as they came, not split
        if names and not _valid_name(names[0]):
            return _invalid(p, names[0])
        vm._set_var(names[0] if names else "REPLY", text)
        return 0 if complete else 1
    fields = _Fields(text, escaped, ifs)
    if array is not None:
        vm._array_replace(array, fields.words())
        return 0 if complete else 1
    if not names:
        vm._set_var("REPLY", text)
        return 0 if complete else 1
    i = fields.skip_white(0)
    for k, name in enumerate(names):
        if not _valid_name(name):  # the names before it are set, as bash sets them
            return _invalid(p, name)
        if k == len(names) - 1:
            vm._set_var(name, fields.rest(i))
        else:
            word, i = fields.word(i)
            vm._set_var(name, word)
    return 0 if complete else 1


def _invalid(p: _Proc, name: str) -> int:
    p.shell_err(f"read: `{name}': not a valid identifier")
    return 1


def _last(opts: dict, flag: str) -> str | None:
    values = opts.get(flag)
    return values[-1] if values else None


def _take(
    stdin: _Input, delim: str, limit: int | None, exact: bool, *, raw: bool
) -> tuple[str, set[int], bool]:
    """What one ``read`` takes from ``stdin``: the text (escapes resolved), the indices of the
    characters a backslash made literal, and whether it ended at the delimiter (or the count)."""
    out: list[str] = []
    escaped: set[int] = set()
    if delim == "\n" and limit is None:  # a whole line at a time: the common case, kept fast
        while (line := stdin.readline()) is not None:
            complete = line.endswith("\n")
            body = line[:-1] if complete else line
            if raw or "\\" not in body:
                out.append(body)
                return "".join(out), escaped, complete
            more = _unescape(body, out, escaped)
            if not (more and complete):  # a backslash-newline: the line goes on
                return "".join(out), escaped, complete
        return "".join(out), escaped, False
    pending = False  # the last character was an unquoted backslash
    count = 0
    while limit is None or count < limit:
        c = _next_char(stdin)
        if c is None:
            return "".join(out), escaped, False
        if pending:
            pending = False
            if c == "\n":
                continue
            escaped.add(len(out))
        elif c == "\\" and not raw:
            pending = True
            continue
        elif c == delim and not exact:
            return "".join(out), escaped, True
        out.append(c)
        count += 1
    return "".join(out), escaped, True


def _unescape(body: str, out: list[str], escaped: set[int]) -> bool:
    """Append ``body`` with its backslashes resolved; True when it ends in a lone backslash."""
    base = sum(len(part) for part in out)
    chars: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 == len(body):
                out.append("".join(chars))
                return True
            escaped.add(base + len(chars))
            chars.append(body[i + 1])
            i += 2
            continue
        chars.append(c)
        i += 1
    out.append("".join(chars))
    return False


def _next_char(stdin: _Input) -> str | None:
    """One character, taken so that the rest stays for the next reader (bash reads a pipe a byte
    at a time for the same reason)."""
    if type(stdin) is _Input or stdin.seekable:
        if stdin.pos >= len(stdin.data):
            return None
        c = stdin.data[stdin.pos]
        stdin.pos += 1
        return c
    return stdin.read_chunk(1)


class _Fields:
    """Field splitting of one line read: by regular expressions when no character is escaped
    (a line may be megabytes long), a character at a time when some are."""

    def __init__(self, text: str, escaped: set[int], ifs: str) -> None:
        self.text, self.escaped, self.ifs = text, escaped, ifs
        self.white = "".join(c for c in ifs if c in _WHITE)
        self.others = "".join(c for c in ifs if c not in _WHITE)
        if not escaped:
            self._white_run = re.compile(f"[{re.escape(self.white)}]*" if self.white else "")
            self._field = re.compile(f"[^{re.escape(ifs)}]*" if ifs else ".*", re.S)

    def _sep(self, i: int) -> bool:
        return self.text[i] in self.ifs and i not in self.escaped

    def skip_white(self, i: int) -> int:
        if not self.escaped:
            return self._white_run.match(self.text, i).end()  # type: ignore[union-attr]
        text = self.text
        while i < len(text) and text[i] in self.white and i not in self.escaped:
            i += 1
        return i

    def _field_end(self, i: int) -> int:
        if not self.escaped:
            return self._field.match(self.text, i).end()  # type: ignore[union-attr]
        while i < len(self.text) and not self._sep(i):
            i += 1
        return i

    def word(self, i: int) -> tuple[str, int]:
        """The field at ``i`` and where the next starts (past one separator and the IFS
        whitespace around it)."""
        i = self.skip_white(i)
        end = self._field_end(i)
        j = self.skip_white(end)
        if j < len(self.text) and self.text[j] in self.others and j not in self.escaped:
            j = self.skip_white(j + 1)
        return self.text[i:end], j

    def words(self) -> list[str]:
        words: list[str] = []
        i = self.skip_white(0)
        while i < len(self.text):
            word, i = self.word(i)
            words.append(word)
        return words

    def rest(self, i: int) -> str:
        """What the last name gets: the rest from ``i``; just its one field when that is all."""
        text = self.text
        if i >= len(text):
            return ""
        word, end = self.word(i)
        if end >= len(text):
            return word
        end = len(text)
        while end > i and text[end - 1] in self.white and end - 1 not in self.escaped:
            end -= 1
        return text[i:end]

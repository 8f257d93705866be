"""Arrays and variable attributes: ``a=(x y)``, ``a[3]=z``, ``declare -A``, ``declare -i``,
``readonly``; ``${a[@]}``, ``${#a[@]}``, ``${!a[@]}``, ``${a[i]}`` and slices.

An array lives in :meth:`ArrayMixin._arrays` (name -> {key: value}; int keys for an indexed
array, str keys in an :class:`~.assoc.AssocItems` for an associative one, which lists them in
bash's hash-table order).
Element 0 (key ``"0"`` of an associative array) is also ``vars[name]``, so ``$a`` and every
reader of plain variables see it as bash shows it. Attributes (``a``, ``A``, ``i``, ``r``) are
in :meth:`ArrayMixin._attrs`. Every element counts against the step's memory budget: the bytes
of all arrays together, plus :data:`ELEMENT_BYTES` for each element, may not pass it (bash's
own error, ``xmalloc: cannot allocate``), and each element set is work.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .arith import _arith_eval
from .assoc import AssocItems, listing_order
from .brackets import _match_closing
from .callstack import stack_array
from .errors import _ExpansionError, _Readonly
from .names import _NAME
from .state import MachineState
from .transforms import array_transform

if TYPE_CHECKING:
    from .proc import _Ctx

#: what one element costs beyond its characters (bash's ARRAY_ELEMENT is about this size)
ELEMENT_BYTES = 48

#: ``name[subscript]`` at the start of a word or a ``${...}``
SUBSCRIPTED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[")

#: the marker the parser's pre-pass leaves for a compound assignment's ``( ... )``
COMPOUND_MARKER = re.compile(r"__AWARRAY\d+")


class Compound(str):
    """The value of ``name=( ... )`` as :meth:`~.execute.ExecuteMixin._expand_assignment` hands it
    to ``_assign``: shown as written, its words expanded when it is assigned."""

    inner: str
    ctx: Any

    @classmethod
    def of(cls, inner: str, ctx: Any) -> Compound:
        value = cls(f"({inner})")
        value.inner, value.ctx = inner, ctx
        return value


def substring_bounds(n: int, start: int, length: int | None, length_text: str, every: bool) -> slice:
    """What ``${x:start:length}`` takes of ``n`` characters (``every``: of ``n`` elements of
    ``${a[@]}`` or of ``$0`` and the positional parameters), as bash's ``verify_substring_values``
    reckons it: a negative start counts from the end, and a start before the first or past the
    last takes nothing; a negative length ends that far from the end (an error for elements, or
    before the start: ``-2: substring expression < 0``, which abandons the line)."""
    if start < 0:
        start += n
    if start < 0 or start > n:
        return slice(0, 0)
    if length is None:
        return slice(start, n)
    if length >= 0:
        return slice(start, min(n, start + length))
    if every or n + length < start:
        raise _ExpansionError(f"{length_text.strip()}: substring expression < 0", fatal=True)
    return slice(start, n + length)


def _array_slice(items: list[str], spec: str, ev: Any, assoc: bool = False) -> list[str] | None:
    """``${a[@]:off:len}`` (``spec`` is what follows the first ``:``), or None if it is no slice.
    ``assoc``: of an associative array's values, in bash's order, which it counts otherwise."""
    if spec[:1] in ("-", "=", "+", "?"):
        return None
    start_text, colon, length_text = spec.partition(":")
    length = ev(length_text) if colon else None
    if assoc:
        return items[_assoc_bounds(len(items), ev(start_text), length, length_text)]
    return items[substring_bounds(len(items), ev(start_text), length, length_text, True)]


def _assoc_bounds(n: int, start: int, length: int | None, length_text: str) -> slice:
    """bash 5.2's slice of an associative array's ``n`` values (found by comparing offsets -7..6
    and lengths -1..2 with it): an offset counts from 1 (0 and 1 both start at the first), a
    negative one from the end (``-n-1`` still at the first); a length of 0 takes one."""
    counted = start + n + 1 if start < 0 else start
    first = max(counted - 1, 0)
    if counted < 0 or first >= n:
        return slice(0, 0)
    if length is None:
        return slice(first, n)
    if length < 0:
        raise _ExpansionError(f"{length_text.strip()}: substring expression < 0", fatal=True)
    return slice(first, first + max(length, 1))


class ArrayMixin(MachineState):
    """Arrays and attributes. One part of :class:`~.machine.VirtualMachine`."""

    # -- the tables (kept in the instance's __dict__: machines pickled before them still load) --

    def _arrays(self) -> dict[str, dict[Any, str]]:
        found: dict[str, dict[Any, str]] = self.__dict__.setdefault("_array_table", {})
        return found

    def _attrs(self) -> dict[str, set[str]]:
        found: dict[str, set[str]] = self.__dict__.setdefault("_attr_table", {})
        return found

    def _has_attr(self, name: str, letter: str) -> bool:
        attrs = self.__dict__.get("_attr_table")
        return attrs is not None and letter in attrs.get(name, ())

    def _is_assoc(self, name: str) -> bool:
        return self._has_attr(self._ref(name), "A")

    def _ref(self, name: str) -> str:
        """The variable that ``name`` stands for: a nameref's (``declare -n r=target``) target,
        followed through up to 8 links; ``name`` itself for any other (or a nameref whose
        value names no variable)."""
        attrs = self.__dict__.get("_attr_table")
        if not attrs:
            return name
        for _ in range(8):
            if "n" not in attrs.get(name, ()):
                return name
            target = self.vars.get(name)
            if not target or not _NAME.fullmatch(target):
                return name
            name = target
        return name

    def _check_writable(self, name: str, fatal: bool = False) -> None:
        if self._has_attr(name, "r"):
            raise _Readonly(name, fatal)

    def _snapshot_var(self, name: str) -> tuple[str | None, dict[Any, str] | None, set[str] | None]:
        """What a function's ``local`` gives back on return: the value, elements, attributes."""
        items = self._arrays().get(name)
        attrs = self._attrs().get(name)
        return self.vars.get(name), items.copy() if items is not None else None, set(attrs) if attrs else None

    def __setstate__(self, state: dict[str, Any]) -> None:
        """An unpickled machine (a stored session); one stored before associative arrays kept
        bash's order has each of them as a plain dict, made an :class:`AssocItems` here."""
        self.__dict__.update(state)
        attrs = state.get("_attr_table") or {}
        for name, items in (state.get("_array_table") or {}).items():
            if "A" in attrs.get(name, ()) and not isinstance(items, AssocItems):
                state["_array_table"][name] = AssocItems(items.items())

    def _restore_var(
        self, name: str, saved: tuple[str | None, dict[Any, str] | None, set[str] | None]
    ) -> None:
        value, items, attrs = saved
        self._drop_array(name)
        self._attrs().pop(name, None)
        if value is None:
            self.vars.pop(name, None)
        else:
            self.vars[name] = value
        if items is not None:
            self._arrays()[name] = items
            self._recount_arrays()
        if attrs:
            self._attrs()[name] = attrs

    def _attr_value(self, name: str, value: str, old: str | None) -> str:
        """The value ``name`` takes from ``value`` under its attributes (``old``: ``+=``'s)."""
        if self._has_attr(name, "i"):
            return self._integer_value(name, value, old)
        if old is not None:
            value = old + value
        if self._has_attr(name, "u"):
            return value.upper()
        if self._has_attr(name, "l"):
            return value.lower()
        return value

    def _integer_value(self, name: str, value: str, old: str | None = None) -> str:
        """``declare -i``: the value an integer variable takes (``+=`` adds)."""
        result = self._arith_expanded(value) if value.strip() else 0
        if old is not None:
            result += self._arith_expanded(old) if old.strip() else 0
        return str(result)

    # -- memory -----------------------------------------------------------------------------------

    def _recount_arrays(self) -> None:
        self.__dict__["_array_bytes"] = sum(
            sum(len(v) + ELEMENT_BYTES for v in items.values()) for items in self._arrays().values()
        )

    def _array_grew(self, delta: int) -> None:
        total = self.__dict__.get("_array_bytes", 0) + delta
        self.__dict__["_array_bytes"] = total
        if delta > 0 and total > self.limits.memory_bytes:
            self.__dict__["_array_bytes"] = total - delta
            self._budget.reserve(total)  # bash's `xmalloc: cannot allocate N bytes`

    # -- elements ---------------------------------------------------------------------------------

    def _array_key(self, name: str, sub: str, ctx: _Ctx | None) -> Any:
        """The key ``name[sub]`` stands for: arithmetic for an indexed array (negative counts from
        the end), the expanded text for an associative one."""
        if self._is_assoc(name):
            key = self.expand_text(sub, ctx)
            if key == "":
                raise _ExpansionError(f"{name}[{sub}]: bad array subscript")
            return key
        k = self._arith_expanded(self.expand_text(sub, ctx)) if sub.strip() else 0
        if k < 0:
            items = self._arrays().get(name)
            top = (max(items) + 1) if items else (1 if name in self.vars else 0)
            if k + top < 0:
                raise _ExpansionError(f"{name}[{sub}]: bad array subscript")
            k += top
        return k

    def _to_array(self, name: str) -> dict[Any, str]:
        """The elements of ``name``, making it an array (a set scalar becomes element 0)."""
        name = self._ref(name)
        arrays = self._arrays()
        items = arrays.get(name)
        if items is None:
            fresh: dict[Any, str] = AssocItems() if self._is_assoc(name) else {}
            items = arrays[name] = fresh
            if name in self.vars:
                items["0" if self._is_assoc(name) else 0] = self.vars[name]
                self._array_grew(len(self.vars[name]) + ELEMENT_BYTES)
            self._attrs().setdefault(name, set()).add("A" if self._is_assoc(name) else "a")
        return items

    def _array_set(self, name: str, key: Any, value: str, append: bool = False) -> None:
        """``name[key]=value`` (``+=``: appended to the element)."""
        name = self._ref(name)
        self._check_writable(name)
        items = self._to_array(name)
        old = items.get(key)
        if self.__dict__.get("_attr_table", {}).get(name, {"a"}) - {"a", "A", "r"}:
            value = self._attr_value(name, value, old if append else None)
        elif append and old is not None:
            value = old + value
        self._budget.spend(1 + len(value) // 512)
        self._array_grew(len(value) - (len(old) if old is not None else -ELEMENT_BYTES))
        items[key] = value
        if key == 0 or key == "0":
            self.vars[name] = value

    def _array_get(self, name: str, key: Any) -> str | None:
        name = self._ref(name)
        items = self._arrays().get(name)
        if items is None:
            own = stack_array(self, name) if name.isupper() else None
            if own is not None:
                return own[key] if isinstance(key, int) and -len(own) <= key < len(own) else None
            return self.vars.get(name) if key in (0, "0") else None
        return items.get(key)

    def _array_unset(self, name: str, key: Any) -> None:
        name = self._ref(name)
        items = self._arrays().get(name)
        if items is None:
            if key in (0, "0"):
                self.vars.pop(name, None)
            return
        old = items.pop(key, None)
        if old is not None:
            self._array_grew(-(len(old) + ELEMENT_BYTES))
        if key in (0, "0"):
            self.vars.pop(name, None)

    def _drop_array(self, name: str) -> None:
        """Forget ``name``'s elements and array attributes (``unset a``, ``a=x`` on no array)."""
        items = self._arrays().pop(name, None)
        if items:
            self._array_grew(-sum(len(v) + ELEMENT_BYTES for v in items.values()))
        attrs = self.__dict__.get("_attr_table")
        if attrs and name in attrs:
            attrs[name] -= {"a", "A"}
            if not attrs[name]:
                del attrs[name]

    def _array_values(self, name: str) -> list[str]:
        """The elements of ``name`` in order (a set scalar is one; unset: none)."""
        name = self._ref(name)
        items = self._arrays().get(name)
        if items is None:
            own = stack_array(self, name) if name.isupper() else None
            if own is not None:
                return own
            value = self.getvar(name)
            return [] if value is None else [value]
        return [items[k] for k in listing_order(items)]

    def _array_keys(self, name: str) -> list[str]:
        name = self._ref(name)
        items = self._arrays().get(name)
        if items is None:
            own = stack_array(self, name) if name.isupper() else None
            if own is not None:
                return [str(k) for k in range(len(own))]
            return ["0"] if name in self.vars else []
        return [str(k) for k in listing_order(items)]

    def _array_replace(self, name: str, values: list[str]) -> None:
        """Make ``name`` the indexed array of ``values`` (``BASH_REMATCH``, ``mapfile``)."""
        name = self._ref(name)
        self._check_writable(name)
        self._drop_array(name)
        self.vars.pop(name, None)
        items = self._to_array(name)
        self._array_grew(sum(len(v) + ELEMENT_BYTES for v in values))
        self._budget.spend(1 + len(values))
        for k, v in enumerate(values):
            items[k] = v
        if values:
            self.vars[name] = values[0]

    # -- compound assignment ----------------------------------------------------------------------

    def _compound_assign(self, name: str, inner: str, append: bool, ctx: _Ctx | None) -> None:
        """``name=( ... )`` / ``name+=( ... )``: the words in the parentheses, each an element
        (``[key]=value`` sets that key)."""
        name = self._ref(name)
        self._check_writable(name)
        words = _raw_words(inner)
        assoc = self._is_assoc(name)
        if not append:
            self._drop_array(name)
            self.vars.pop(name, None)
            if assoc:
                self._attrs().setdefault(name, set()).add("A")
        items = self._to_array(name)
        nxt = (max(items) + 1 if items else 0) if not assoc else 0
        pending: list[str] = []
        for raw in words:
            m = _KEYED.match(raw)
            if m:
                key = self._array_key(name, m.group(1), ctx)
                value = "".join(
                    t for t, _ in self._segments(m.group(3), ctx or _empty_ctx(), None, {}, assign=True)
                )
                self._array_set(name, key, value, append=bool(m.group(2)))
                if not assoc:
                    nxt = key + 1
                continue
            for value in self._expand_raw(raw, ctx or _empty_ctx()):
                if assoc:  # bash 5.1+: `m=(k1 v1 k2 v2)`, keys and values in turn
                    pending.append(value)
                    if len(pending) == 2:
                        self._array_set(name, pending[0], pending[1])
                        pending.clear()
                    continue
                self._array_set(name, nxt, value)
                nxt += 1
        if pending:
            self._array_set(name, pending[0], "")

    # -- expansion ---------------------------------------------------------------------------------

    def _subscripted(self, inner: str) -> tuple[str, str, str, str] | None:
        """``${#name[sub]rest}`` / ``${!name[@]}`` / ``${name[sub]rest}`` as (prefix, name, sub,
        rest), or None when ``inner`` is no array reference."""
        prefix = inner[:1] if inner[:1] in ("#", "!") else ""
        m = SUBSCRIPTED.match(inner, len(prefix))
        if m is None:
            return None
        end = _match_closing(inner, m.end(), "[]")
        if end >= len(inner):
            return None
        return prefix, m.group(1), inner[m.end() : end], inner[end + 1 :]

    def _array_param(self, inner: str, ctx: _Ctx) -> list[str] | str | None:
        """An array reference in ``${...}``: a list of words for ``[@]`` (and ``[*]``: the caller
        joins), a string for one element; None when ``inner`` is none."""
        parts = self._subscripted(inner)
        if parts is None:
            return None
        prefix, name, sub, rest = parts
        if name == "PIPESTATUS":  # bash's own, kept apart (params)
            return None
        every = sub in ("@", "*")
        if prefix == "#":
            if rest:
                raise _ExpansionError(f"${{{inner}}}: bad substitution", fatal=True)
            if every:  # counted, not listed (listing an associative array sorts it)
                items = self._arrays().get(self._ref(name))
                return str(len(items if items is not None else self._array_values(name)))
            value = self._array_get(name, self._array_key(name, sub, ctx))
            return str(len(value or ""))
        if prefix == "!":
            if not every or rest:
                raise _ExpansionError(f"${{{inner}}}: bad substitution", fatal=True)
            return self._array_keys(name)
        if not every:
            value = self._array_get(name, self._array_key(name, sub, ctx))
            if not rest:
                if value is None and self.nounset:
                    from .errors import _unbound

                    raise _unbound(f"{name}[{sub}]")
                return value or ""
            return self._param_ops(f"{name}[{sub}]", value, rest, ctx)
        values = self._array_values(name)
        if not rest:
            return values
        if rest.startswith(":"):

            def ev(text: str) -> int:
                return _arith_eval(self.expand_text(text, ctx), lambda v: self.getvar(v) or "")

            sliced = _array_slice(values, rest[1:], ev, self._is_assoc(name))
            if sliced is not None:
                return sliced
        if rest[:1] in ("-", "=", "+", "?") or rest[:2] in (":-", ":=", ":+", ":?"):
            joined = " ".join(values)
            return self._param_ops(name, joined if values else None, rest, ctx)
        if rest[:1] == "@" and len(rest) == 2:
            whole = array_transform(self, name, rest[1])
            if whole is not None:
                return whole
        return [self._param_ops(name, v, rest, ctx) for v in values]


#: ``[key]=value`` / ``[key]+=value`` in a compound assignment
_KEYED = re.compile(r"\[([^\]]*)\](\+?)=(.*)", re.S)


def _empty_ctx() -> Any:
    from .parser import _Source
    from .proc import _Ctx, _Input, _Null

    return _Ctx(_Input(), _Null(), _Null(), _Source("", set(), {}))


def _raw_words(text: str) -> list[str]:
    """The words of a compound assignment's ``( ... )`` as written: blanks and newlines part
    them, quotes, ``$(...)``, ``${...}`` and backslashes hold them together, ``#`` starts a
    comment."""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\n":
            i += 1
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        start = i
        while i < n and text[i] not in " \t\n":
            c = text[i]
            if c == "\\":
                i += 2
            elif c in "'\"`":
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if (text[j] == "\\" and c != "'") else 1
                i = j + 1
            elif c == "$" and text[i + 1 : i + 2] in ("(", "{"):
                pair = "()" if text[i + 1] == "(" else "{}"
                i = _match_closing(text, i + 2, pair) + 1
            else:
                i += 1
        words.append(text[start:i])
    return words

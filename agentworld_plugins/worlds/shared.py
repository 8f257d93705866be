"""A named world: every front's session on one state, kept in the world store across processes.

A real environment is one thing whatever touches it: the files an MCP filesystem tool writes are
the files ``cat`` prints in a shell, and a server keeps its state when a client reconnects. So
state belongs to a :class:`SharedWorld`, not to a connection or a front. A front (the MCP server,
the virtual terminal's command and screen fronts, a search server, a gym environment) asks the
world for its session by a front name (:meth:`SharedWorld.front`) and runs each step inside
:meth:`SharedWorld.operate`.

What a world holds:

- the offline engines' state of every front (the shell machine's one filesystem, a shell and its
  cwd per front, the MCP world's ledger and SQL database, GUI screens, search memory), pickled
  together so that objects the fronts share (the filesystem) stay shared;
- each front's turns (action, turn prompt, observation), in the order they happened across
  fronts: with a world model they are each front's conversation history;
- each front's JSON state (perturbation counters, a model-drawn screen's scrollback).

With a store (the world store of ``AGENTWORLD_HOME``, :mod:`agentworld_plugins.store`) the
world is a record named after it: every operation takes the world's lock (``fcntl.flock``),
reloads the record when another process changed it, runs, and writes what it added in one SQLite
transaction, so concurrent writers in several processes never lose an update. Without a store the
world lives in this process only (one ``mcp serve`` process's world shared by its connections).

>>> shared = SharedWorld(World(backend="offline"), "demo", store=True)       # doctest: +SKIP
>>> cmd = shared.front("command", "swe", tools=coding_tools)                 # doctest: +SKIP
>>> shared.operate(lambda: cmd.step({"tool_name": "run_shell_command", ...}))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import pickle
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import WORLD_NAME_PATTERN
from ..errors import AgentWorldError, ConfigError
from ..observation import Observation, Turn
from ..store import SessionStore, TurnRow

if TYPE_CHECKING:
    from ..session import Session, World

__all__ = [
    "MACHINE_KEY",
    "NAME_PATTERN",
    "SharedWorld",
    "check_world_name",
    "fresh_world",
    "observation_json",
]

T = TypeVar("T")

NAME_PATTERN = WORLD_NAME_PATTERN
#: the key of the shared machine (its filesystem) in a world's pickled state
MACHINE_KEY = "__machine__"
#: who holds a world taken by :meth:`SharedWorld.aoperate` (no thread's ident is negative)
_ASYNC_OWNER = -1
#: the key of the fronts' consistency-guard facts (``session.state["guard"]``) in the pickled state
GUARD_KEY = "__guard__"
#: the pickled state's layout; bump when it changes incompatibly
STATE_FORMAT = 3


def check_world_name(name: str) -> str:
    """``name`` when it can name a world, else a :class:`ConfigError` saying what can."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ConfigError(
            f"{name!r} is not a valid world name",
            hint="use 1-128 letters, digits and . _ - : @ + (starting with a letter or digit), e.g. demo-1",
        )
    return name


def _turn(row: TurnRow) -> Turn:
    # the store holds what Observation.model_dump wrote: no need to validate it again
    data = row.observation
    observation = Observation.model_construct(
        text=str(data.get("text", "")),
        raw=data.get("raw"),
        reasoning=data.get("reasoning"),
        is_error=bool(data.get("is_error")),
        metadata=dict(data.get("metadata") or {}),
    )
    return Turn(row.number, row.action, row.prompt, observation)


def observation_json(observation: Any) -> dict[str, Any]:
    """An observation as a JSON object (metadata values JSON cannot hold become their text)."""
    from pydantic_core import to_jsonable_python

    data: dict[str, Any] = to_jsonable_python(observation.model_dump(), fallback=str)
    return data


def _json_safe(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


class SharedWorld:
    """One world, several fronts (see the module docstring).

    :param world: the :class:`~agentworld_plugins.World` sessions come from (backend, plugins).
    :param name: the world's name; None for an anonymous world of this process.
    :param store: a :class:`SessionStore`, a path to one, ``True`` for the one in the world's
        ``AGENTWORLD_HOME``, or None to keep the world in memory.
    :param machine: the machine a new world starts as (``files``, ``cwd``, ``hostname``, ``user``,
        ``env``, ``description``); a stored world keeps the machine it started as.
    :param seed: the sessions' seed when the world is new.
    """

    def __init__(
        self,
        world: World,
        name: str | None = None,
        *,
        store: SessionStore | str | Path | bool | None = None,
        machine: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> None:
        self.world = world
        self.name = check_world_name(name) if name is not None else f"anon-{uuid.uuid4().hex[:12]}"
        self._owns_store = store is True or isinstance(store, (str, Path))
        if store is True:
            store = SessionStore.at_home(world.settings.home)
        elif isinstance(store, (str, Path)):
            store = SessionStore(store)
        self.store: SessionStore | None = store or None
        self._given_machine = dict(machine) if machine is not None else None
        self._given_seed = seed
        self._lock = threading.RLock()  # this object's fields
        self._mutex = threading.Lock()  # the world, held by one operation at a time
        self._owner: int | None = None
        self._depth = 0
        self._held: contextlib.ExitStack | None = None
        self._async_lock: Any = None
        self._closed = False
        #: how each front's session is made in this process: (domain, World.session keywords)
        self._specs: dict[str, tuple[str, dict[str, Any]]] = {}
        self._pool: dict[str, Session] = {}  # each front's session object, kept across reloads
        self._offline_checked = False
        self._offline_api: Any = None
        self._reset_memory()
        if self.store is None:
            self._version = 0

    # -- memory ----------------------------------------------------------------------------------

    def _reset_memory(self) -> None:
        self.machine: dict[str, Any] = dict(self._given_machine or {})
        self.seed: int | None = self._given_seed
        self._sessions: dict[str, Session] = {}
        self._turns: dict[str, list[Turn]] = {}
        self._rows: dict[str, list[TurnRow]] = {}  # stored turns of fronts not opened here
        self._saved: dict[str, int] = {}
        self._extra: dict[str, dict[str, Any]] = {}  # each front's JSON session state
        self._meta: dict[str, dict[str, Any]] = {}  # each front adapter's own JSON state
        self._fronts: dict[str, str] = {}  # front -> domain, of every front the world has had
        self._prompts: dict[str, str] = {}
        self._dormant: dict[str, Any] = {}  # offline states of fronts not opened here
        self._guards: dict[str, Any] = {}  # consistency-guard facts of fronts not opened here
        self._machine_state: dict[str, Any] = {}  # the shared machine (its filesystem)
        self._seq = 0
        self._version = -1
        self._created: float | None = None
        self._loaded: set[str] = set()  # fronts whose stored turns were read
        self._dirty = False

    def _offline(self) -> Any:
        """The world's embedded offline backend (its public state API), or None."""
        if not self._offline_checked:
            self._offline_api = self.world.offline
            self._offline_checked = True
        return self._offline_api

    @property
    def persistent(self) -> bool:
        """True when the world lives in a store (other processes can attach to it)."""
        return self.store is not None

    def machine_options(self) -> dict[str, Any]:
        """The machine as the offline backend builds it (all but the description)."""
        return {k: v for k, v in self.machine.items() if k != "description" and v is not None}

    # -- fronts ----------------------------------------------------------------------------------

    def front(self, front: str, domain: str, **session_kwargs: Any) -> Session:
        """The session of ``front`` (made on first use with ``World.make_session(domain,
        **kwargs)``; later calls get that session whatever they pass), its turns and offline
        state taken from the world. Step it inside :meth:`operate`. The same object stays the
        front's session when the world is reloaded from the store."""
        with self._lock:
            known = self._specs.get(front)
            if known is not None and known[0] != domain:
                raise ConfigError(
                    f"Front {front!r} of world {self.name!r} is a {known[0]} session, not {domain}",
                    hint="give each front its own name",
                )
            if known is None:
                self._specs[front] = (domain, dict(session_kwargs))
            # a front asked for again (another client of the same server) gets the session it
            # has: one front, one history, whatever each caller passes along
            found = self._sessions.get(front)
            if found is not None:
                return found
            return self._open_front(front)

    def _open_front(self, front: str) -> Session:
        domain, kwargs = self._specs[front]
        stored = self._fronts.get(front)
        if stored is not None and stored != domain:
            raise ConfigError(
                f"World {self.name!r} already has a front {front!r} of domain {stored}, not {domain}",
                hint="use another front name or another world",
            )
        session = self._pool.get(front)
        if session is None:
            options = {"seed": self.seed, "session_id": f"{self.name}.{front}", **kwargs}
            session = self._pool[front] = self.world.make_session(domain, **options)
        else:  # the world was reloaded: the same session, on the stored state
            session.state.clear()
        session.state.update(json.loads(json.dumps(self._extra.get(front) or {})))
        if front in self._guards:
            session.state["guard"] = self._guards.pop(front)
        turns: list[Turn] = self._turns.setdefault(front, [])
        if self.store is not None and front not in self._loaded and self._version >= 0:
            self._rows[front] = self.store.turns(self.name, fronts=[front], upto=self._seq)
        self._loaded.add(front)
        turns.extend(_turn(row) for row in self._rows.pop(front, []))
        session.trajectory.turns = turns
        self._saved.setdefault(front, len(turns))
        self._sessions[front] = session
        self._fronts[front] = domain
        offline = self._offline()
        if offline is not None:
            state = self._dormant.pop(front, None)
            if state is not None:
                session.state["offline"] = state
            else:
                if not self._machine_state.get("fs"):  # the first front makes the machine:
                    for key in ("files", "cwd", "env"):  # what its context seeds, unless given
                        if self.machine.get(key) is None and session.context.get(key) is not None:
                            self.machine[key] = session.context[key]
                offline.join_machine(session, self._machine_state, **self.machine_options())
            offline.share_lock(list(self._sessions.values()))
        self._dirty = True
        return session

    def sessions(self) -> dict[str, Session]:
        """The fronts opened in this process, by name."""
        return dict(self._sessions)

    def meta(self, front: str) -> dict[str, Any]:
        """``front``'s own JSON state, kept with the world; call :meth:`changed` after editing it."""
        return self._meta.setdefault(front, {})

    def changed(self) -> None:
        """Something outside the turns changed (a front's meta, an offline screen edited in
        place): the next write stores the world even if no turn was taken."""
        self._dirty = True

    def turns(self, front: str) -> list[Turn]:
        """``front``'s turns so far, in this process's view of the world."""
        return list(self._turns.get(front) or ())

    # -- the store -------------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {"machine": self.machine, "seed": self.seed, "kind": "world"}

    def _sync(self) -> None:
        assert self.store is not None
        version = self.store.version(self.name)
        if version is None:
            self._restart()
            self._version = self.store.create(self.name, self._config(), self._record_meta())
            if self._version != 0:  # another process created it meanwhile
                self._load()
            else:
                created = self.store.load(self.name, with_turns=False)
                self._created = created.created if created is not None else None
                self._dirty = True
        elif version != self._version:
            self._load()

    def _restart(self) -> None:
        """Forget the world's state: the fronts opened here start afresh on a new machine."""
        with self._lock:
            self._reset_memory()
            for front in list(self._specs):
                self._open_front(front)

    def _record_meta(self) -> dict[str, Any]:
        for front, session in self._sessions.items():
            self._extra[front] = {
                k: v for k, v in session.state.items() if k not in ("offline", "guard") and _json_safe(v)
            }
            self._prompts[front] = session.system_prompt
        return {
            "fronts": {
                front: {
                    "domain": domain,
                    "state": self._extra.get(front) or {},
                    "meta": self._meta.get(front) or {},
                    "system_prompt": self._prompts.get(front, ""),
                }
                for front, domain in self._fronts.items()
            }
        }

    def _load(self) -> None:
        assert self.store is not None
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        """Bring this process's view up to the stored world: only the turns added since, when it
        is the same record it read last (not removed or reset meanwhile), else all of it."""
        assert self.store is not None
        record = self.store.load(self.name, with_turns=False)
        if record is None:  # removed meanwhile: start again
            self._version = -1
            self._sync()
            return
        if self._version >= 0 and record.created == self._created:
            rows = self.store.turns(self.name, after_seq=self._seq)
        else:
            self._reset_memory()
            self._created = record.created
            self._loaded = set(self._specs)  # other fronts' turns are read when one is opened
            rows = self.store.turns(self.name, fronts=sorted(self._loaded))
            self._seq = self.store.last_seq(self.name)
        self.machine = dict(record.config.get("machine") or {})
        self.seed = record.config.get("seed")
        for front, data in (record.meta.get("fronts") or {}).items():
            self._fronts[front] = str(data.get("domain"))
            self._extra[front] = dict(data.get("state") or {})
            self._meta[front] = dict(data.get("meta") or {})
            self._prompts[front] = str(data.get("system_prompt") or "")
        for row in rows:
            self._seq = max(self._seq, row.seq)
            if row.front in self._sessions:
                self._turns[row.front].append(_turn(row))
                self._saved[row.front] = len(self._turns[row.front])
            elif row.front in self._loaded:
                self._rows.setdefault(row.front, []).append(row)
        states = self._unpickle(record.snapshot, record.snapshot_tag)
        if states is not None:
            self._machine_state = states.pop(MACHINE_KEY, None) or {}
            self._guards = states.pop(GUARD_KEY, None) or {}
        else:  # written by another version: the machine as it started, the turns replayed into it
            states, self._machine_state, self._guards = {}, {}, {}
        self._version = record.version
        for front, session in self._sessions.items():  # the fronts opened here, on the new state
            session.state.clear()
            session.state.update(json.loads(json.dumps(self._extra.get(front) or {})))
            if front in self._guards:
                session.state["guard"] = self._guards.pop(front)
            if front in states:
                session.state["offline"] = states.pop(front)
            elif self._offline() is not None:
                self._offline().join_machine(session, self._machine_state, **self.machine_options())
        self._dormant = states
        for front in self._specs:
            if front not in self._sessions:
                self._open_front(front)
        self._dirty = False

    def _tag(self) -> str:
        from ..backends.offline import snapshot_tag

        return f"{snapshot_tag()}|w{STATE_FORMAT}"

    def _unpickle(self, blob: bytes | None, tag: str | None) -> dict[str, Any] | None:
        if blob is None or tag is None or tag != self._tag():
            return None
        try:
            states = pickle.loads(blob)
        except Exception:
            return None
        return states if isinstance(states, dict) else None

    def state_blob(self) -> bytes | None:
        """Every front's offline state, the shared machine and the fronts' consistency-guard
        facts, pickled together (None when there is none of them)."""
        states: dict[str, Any] = dict(self._dormant)
        guards: dict[str, Any] = dict(self._guards)
        for front, session in self._sessions.items():
            if "offline" in session.state:
                states[front] = session.state["offline"]
            if "guard" in session.state:
                guards[front] = session.state["guard"]
        if self._offline() is None and not guards:
            return None
        states[MACHINE_KEY] = self._machine_state
        states[GUARD_KEY] = guards
        return pickle.dumps(states, protocol=pickle.HIGHEST_PROTOCOL)

    def _persist(self) -> None:
        assert self.store is not None
        rows: list[TurnRow] = []
        for front, turns in self._turns.items():
            for turn in turns[self._saved.get(front, 0) :]:
                self._seq += 1
                observation = observation_json(turn.observation)
                rows.append(TurnRow(self._seq, front, turn.number, turn.action, turn.prompt, observation))
            self._saved[front] = len(turns)
        if not rows and not self._dirty:
            return
        blob = self.state_blob()
        self._version = self.store.save(
            self.name,
            self._version,
            rows,
            meta=self._record_meta(),
            snapshot=blob,
            snapshot_seq=self._seq,
            snapshot_tag=self._tag() if blob is not None else None,
        )
        self._dirty = False

    def _acquire(self, owner: int) -> None:
        """Hold the world for ``owner`` (a thread's ident, or the async sentinel), up to date."""
        if self._owner == owner:
            self._depth += 1
            return
        self._mutex.acquire()
        try:
            if self._closed:
                raise AgentWorldError(f"World {self.name!r} is closed", hint="attach to it again")
            self._owner, self._depth = owner, 1
            if self.store is not None:
                self._held = contextlib.ExitStack()
                self._held.enter_context(self.store.lock(self.name))
                self._sync()
        except BaseException:
            self._let_go()
            raise

    def _release(self) -> None:
        """One hold less; the last one stores what was added and lets the world go."""
        self._depth -= 1
        if self._depth:
            return
        try:
            if self.store is not None:
                self._persist()
        finally:
            self._let_go()

    def _let_go(self) -> None:
        held, self._held = self._held, None
        self._owner, self._depth = None, 0
        try:
            if held is not None:
                held.close()  # the world's lock file: other processes may go on
        finally:
            self._mutex.release()

    def operate(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the up-to-date world, holding it (other threads and processes wait), and
        store what it added. Re-entrant: an operation inside an operation is part of it."""
        self._acquire(threading.get_ident())
        try:
            return fn()
        finally:
            self._release()

    async def aoperate(self, fn: Callable[[], Awaitable[T]]) -> T:
        """:meth:`operate` for a coroutine function: the world is taken and stored in worker
        threads (the event loop never waits on another process), ``fn`` awaited in between;
        other operations of this process wait their turn without blocking the loop."""
        import anyio

        if self._async_lock is None:
            self._async_lock = anyio.Lock(fast_acquire=True)  # uncontended: no trip through the loop
        async with self._async_lock:
            if self.store is None and self._take_now():  # in memory: nothing to read or write
                try:
                    return await fn()
                finally:
                    self._release()
            await anyio.to_thread.run_sync(self._acquire, _ASYNC_OWNER)
            try:
                return await fn()
            finally:
                await anyio.to_thread.run_sync(self._release)

    def _take_now(self) -> bool:
        """Hold an in-memory world for the event loop if no thread holds it (no waiting)."""
        if self._owner == _ASYNC_OWNER:
            self._depth += 1
            return True
        if not self._mutex.acquire(blocking=False):
            return False
        if self._closed:
            self._mutex.release()
            raise AgentWorldError(f"World {self.name!r} is closed", hint="attach to it again")
        self._owner, self._depth = _ASYNC_OWNER, 1
        return True

    def open(self) -> SharedWorld:
        """Load (or create) the stored world now."""
        self.operate(lambda: None)
        return self

    def reload(self) -> None:
        """Forget this process's view; the next operation reads the store."""
        with self._lock:
            self._version = -1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self.store is not None and self._owns_store:  # a store given stays the giver's
                self.store.close()

    def __enter__(self) -> SharedWorld:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.store.path if self.store is not None else "memory"
        return f"<SharedWorld {self.name} fronts={sorted(self._fronts)} in {where}>"


_STORES: dict[str, SessionStore] = {}
_STORES_LOCK = threading.Lock()


def fresh_world(world: World, name: str) -> SharedWorld:
    """World ``name`` emptied and attached (an episode that starts: an environment's ``reset``,
    a rollout episode played again), on one store per ``AGENTWORLD_HOME`` so that many episodes
    hold no connection each."""
    home = str(world.settings.home)
    with _STORES_LOCK:
        store = _STORES.get(home)
        if store is None:
            store = _STORES[home] = SessionStore.at_home(home)
    with store.lock(check_world_name(name)):
        store.delete(name)
    return SharedWorld(world, name, store=store)

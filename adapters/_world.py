"""The sessions behind simulated tools: one per domain, shared by every tool of one agent run.

A LangChain agent may mix tools of several kinds (``send_email`` is an MCP-style call,
``tavily_search`` belongs to the search world). A :class:`SessionGroup` holds one
:class:`~agentworld_plugins.Session` per domain, created on first use with the same world, seed,
perturbations and context (``world_bible``, ``corpus``, ``task``, ...), so that state carries
across every call of one domain. Calls into one session are serialised: tools may run in
parallel threads (LangGraph's ToolNode does that), a session's history may not interleave.

>>> group = SessionGroup(world_bible="Vornholm is the capital of Estria.")   # doctest: +SKIP
>>> group.step("search", {"name": "web_search", "arguments": {"query": "capital of Estria"}})  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentworld_plugins.files import text_or_file

if TYPE_CHECKING:
    from agentworld_plugins.session import Observation, Session, World

__all__ = ["SessionGroup", "read_world_bible", "world_bible_section"]

_BIBLE_HEADING = "## World Bible"


def read_world_bible(value: str | Path | None) -> str | None:
    """The text of a world bible given as text or as a file (None stays None).

    A :class:`~pathlib.Path`, or a one-line string that looks like a file name (``bible.md``,
    ``./facts.txt``, ``~/world.md``), is read, and a missing file is an error naming it; any other
    string is the bible itself (:func:`agentworld_plugins.files.text_or_file`).
    """
    if value is None:
        return None
    return text_or_file(value, "world bible")


def world_bible_section(context: dict[str, Any]) -> Callable[[str], str] | None:
    """The ``system_suffix`` for a session context's ``world_bible`` (None when there is none):
    its section, unless the prepared prompt has one already (a ``fictional_world`` perturbation).

    The offline search world indexes the bible as pages; a real world model learns it from the
    prompt, so that every result stays consistent with the fictional facts.
    """
    bible = context.get("world_bible")
    if not bible:
        return None
    text = read_world_bible(bible)
    section = (
        f"\n\n{_BIBLE_HEADING}\n"
        "The environment is a fictional world. Everything it returns must agree with these facts, "
        "and nothing may contradict them:\n\n"
        f"{(text or '').strip()}\n"
    )
    return lambda prompt: "" if _BIBLE_HEADING in prompt else section


class SessionGroup:
    """One session per domain, created lazily with shared settings; thread- and task-safe.

    ``world`` defaults to ``World()`` (``AGENTWORLD_*`` settings, else the offline world). A
    ``session`` given up front is used for its own domain. ``tools`` maps a domain to MCP-style
    tool definitions (``name``, ``description``, ``inputSchema``) that the domain's session gets
    as its ``tools`` context. Other keyword arguments become every session's context.
    """

    def __init__(
        self,
        world: World | None = None,
        *,
        session: Session | None = None,
        seed: int | None = None,
        perturbations: Iterable[Any] = (),
        tools: dict[str, list[dict[str, Any]]] | None = None,
        **context: Any,
    ) -> None:
        self._world = world if world is not None else (session.world if session is not None else None)
        self.seed = seed
        self.perturbations = list(perturbations)
        self.context = {k: v for k, v in context.items() if v is not None}
        if self.context.get("world_bible"):  # read now: a missing file fails here, not as odd results
            self.context["world_bible"] = read_world_bible(self.context["world_bible"])
        self._tools: dict[str, list[dict[str, Any]]] = {d: list(v) for d, v in (tools or {}).items()}
        self._sessions: dict[str, Session] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        if session is not None:
            self._sessions[session.domain.name] = session
            self._locks[session.domain.name] = threading.Lock()

    @property
    def world(self) -> World:
        if self._world is None:
            from agentworld_plugins.session import World

            with self._guard:
                if self._world is None:
                    self._world = World()
        return self._world

    @property
    def sessions(self) -> dict[str, Session]:
        """The sessions created so far, by domain name."""
        return dict(self._sessions)

    def add_tools(self, domain: str, definitions: Iterable[dict[str, Any]]) -> None:
        """Make tool definitions known to ``domain``'s session (now, or when it is created)."""
        with self._guard:
            known = self._tools.setdefault(domain, [])
            names = {d.get("name") for d in known}
            for definition in definitions:
                if definition.get("name") not in names:
                    known.append(definition)
                    names.add(definition.get("name"))
            session = self._sessions.get(domain)
        if session is not None:
            listed = session.context.get("tools")
            if isinstance(listed, list):
                have = {t.get("name") for t in listed if isinstance(t, dict)}
                listed.extend(d for d in self._tools[domain] if d.get("name") not in have)
            elif listed is None and self._tools[domain]:
                session.context["tools"] = list(self._tools[domain])

    def session(self, domain: str) -> Session:
        """The group's session of ``domain``, created on first use."""
        found = self._sessions.get(domain)
        if found is not None:
            return found
        world = self.world
        with self._guard:
            found = self._sessions.get(domain)
            if found is None:
                tools = self._tools.get(domain)
                found = world.session(
                    domain,
                    tools=list(tools) if tools else None,
                    seed=self.seed,
                    perturbations=self.perturbations,
                    system_suffix=world_bible_section(self.context),
                    **self.context,
                )
                self._sessions[domain] = found
                self._locks[domain] = threading.Lock()
        return found

    def _lock(self, domain: str) -> threading.Lock:
        self.session(domain)
        return self._locks[domain]

    def step(self, domain: str, action: Any) -> Observation:
        """``Session.step`` on the domain's session, one call at a time."""
        session = self.session(domain)
        with self._lock(domain):
            return session.step(action)

    async def astep(self, domain: str, action: Any) -> Observation:
        """``Session.astep`` on the domain's session, one call at a time across threads and tasks."""
        session = self.session(domain)
        lock = self._lock(domain)
        # polling keeps cancellation safe: a thread blocked in acquire() could not be called back
        while not lock.acquire(blocking=False):
            await asyncio.sleep(0.0005)
        try:
            return await session.astep(action)
        finally:
            lock.release()

    def __repr__(self) -> str:
        listed = ", ".join(f"{d}={s.id}" for d, s in self._sessions.items()) or "no sessions yet"
        return f"<SessionGroup {listed}>"

"""The session whose step is being answered, for backends that keep per-session state.

:meth:`Session.run_step <agentworld_plugins.session.Session.run_step>` sets it around the backend
call; the offline world reads it to find the session's world state. It lives in the base layer
so that the session sets it and a backend reads it without either importing the other.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import Session

#: the session whose step is being answered (``None`` outside a step, e.g. ``agentworld serve``)
current_session: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "agentworld_current_session", default=None
)

#: the name of the conversation a request belongs to (``bench infer``: the record's domain and
#: episode id), set by whoever sends it; a ``PerturbingBackend`` keys its random streams by it
current_conversation: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agentworld_current_conversation", default=None
)

"""The session whose step is being answered, and the conversation a request belongs to.

:meth:`Session.run_step <agentworld_plugins.session.Session.run_step>` sets both around the backend
call; the offline world reads the session to find its world state, the ``openai`` backend reads
the conversation's name to send it along. They live in the base layer so that the session sets
them and a backend reads them without either importing the other.
"""

from __future__ import annotations

import contextvars
import hashlib
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from .session import Session

#: the session whose step is being answered (``None`` outside a step, e.g. ``agentworld serve``)
current_session: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "agentworld_current_session", default=None
)

#: the name of the conversation a request belongs to, set by whoever sends it (``bench infer``: the
#: record's domain and episode id; ``serve``: what its client sent; ``Session.run_step``:
#: ``domain/session-id`` when nobody named it); a ``PerturbingBackend`` keys its random streams by
#: it, and the ``openai`` backend sends it as ``X-Agentworld-Conversation``
current_conversation: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agentworld_current_conversation", default=None
)

#: the HTTP header that carries :data:`current_conversation` (``agentworld serve`` reads it)
CONVERSATION_HEADER = "X-Agentworld-Conversation"

# sent as they are: printable ASCII but "%" (the escape) and the space (servers trim it at the ends)
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) != "%")
_MAX_HEADER = 512


def conversation_header(name: str) -> str:
    """``name`` as a header value: percent-encoded (UTF-8) outside printable ASCII, so no name can
    break the header (a CR/LF, non-Latin-1 text); a very long one is cut and ends with its digest."""
    value = quote(name, safe=_SAFE)
    if len(value) > _MAX_HEADER:
        digest = hashlib.blake2b(name.encode(), digest_size=12).hexdigest()
        value = f"{value[: _MAX_HEADER - 25]}~{digest}"
    return value


def conversation_from_header(value: str) -> str:
    """The name a :func:`conversation_header` value carries (a plain name comes back unchanged)."""
    return unquote(value)

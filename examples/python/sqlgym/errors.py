"""The protocol's constants, its JSON-RPC error codes, and the errors this
package raises: :class:`RPCError` (the server answered with a JSON-RPC
error; ``code`` says which), :class:`TransportError` and its kinds. All
derive from :class:`SQLGymError`."""

from __future__ import annotations

from typing import Any, Optional

PROTOCOL = "sqlgym/1"
"""The protocol version this client speaks (``server.info`` reports it)."""

DEFAULT_URL = "ws://127.0.0.1:8765/v1/ws"
"""Where ``sqlgym serve`` listens by default."""

# JSON-RPC error codes (docs/protocol.md, "Errors").
PARSE_ERROR = -32700
"""The frame was not JSON, or was a binary frame."""
INVALID_REQUEST = -32600
"""Not a JSON-RPC 2.0 request."""
METHOD_NOT_FOUND = -32601
"""Unknown method."""
INVALID_PARAMS = -32602
"""Unknown field, wrong type or value out of range; the message names the field."""
INTERNAL_ERROR = -32603
"""A fault of the server."""
EPISODE_NOT_FOUND = -32001
"""No live episode with that id (never existed, or expired)."""
EPISODE_ENDED = -32002
"""The episode has ended: it cannot be stepped again."""
CAPACITY_REACHED = -32003
"""The server holds its maximum of live episodes."""
NOT_FOUND = -32004
"""No such dataset or task."""
EPISODE_BUSY = -32005
"""Too many steps of that episode already waiting."""
DRAINING = -32006
"""The server is draining (shutting down): it starts no new episode. A
client that resumes sends the reset again on a new connection, which the
load balancer gives to another replica."""
EPISODE_ELSEWHERE = -32007
"""Another replica drives the episode, or this one handed it back while
draining. A client that resumes reconnects and sends the request again
(``error.data`` may hold ``retry_after_ms``)."""


class SQLGymError(Exception):
    """Base class of every error this module raises."""


class RPCError(SQLGymError):
    """A JSON-RPC error the server answered with.

    ``code`` is one of the module's code constants (``INVALID_PARAMS``,
    ``EPISODE_NOT_FOUND``, ...); ``message`` says what was wrong.
    """

    def __init__(self, code: int, message: str, data: Any = None, method: str = ""):
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.data = data
        self.method = method

    def __str__(self) -> str:
        where = f"{self.method}: " if self.method else ""
        return f"{where}{self.message} (JSON-RPC error {self.code})"


class TransportError(SQLGymError):
    """The connection failed, or the server refused it.

    ``status`` is the HTTP status when the server answered one (401 for a
    missing or wrong token, 503 while it shuts down), else ``None``.
    """

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


class ConnectionClosed(TransportError):
    """The connection has ended; calls on it fail with this."""


class CallTimeout(SQLGymError, TimeoutError):
    """No reply came within the call's timeout.

    The call is given up: a reply that comes later is dropped. The server
    may still have run it (a step may have been applied, a reset may have
    started an episode, which the client then closes): ``episode.get``
    tells what the server recorded.
    """


class ReplyLost(ConnectionClosed):
    """The connection dropped after the call was sent and before its reply came.

    Raised by :class:`~sqlgym.AsyncClient` for a call it cannot safely
    send again (``episode.step``, ``episode.reset``) after reconnecting:
    the server may have run it. ``episode_id`` is the step's episode
    (``None`` for a reset); ``get(episode_id)`` shows the steps the server
    recorded.
    """

    def __init__(self, message: str, method: str, episode_id: Optional[str] = None):
        super().__init__(message)
        self.method = method
        self.episode_id = episode_id

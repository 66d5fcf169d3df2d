"""sqlgym: the Python client of the sqlgym text-to-SQL environment server.

- :class:`Client`: blocking, thread-safe, many calls in flight on one
  WebSocket (or plain HTTP); :class:`SQLEnv` and :func:`run_batch` on top.
- :class:`AsyncClient`: the same methods as coroutines, for asyncio code.
- Both resume: they reconnect when the connection drops (or another
  replica has the episode) and send again the calls that had no reply,
  each step with its turn, so that none runs twice.
- :class:`SQLGymEnv`: a Gymnasium-style env (``reset``/``step``), by duck
  typing, with no dependency.

Standard library only. The wire protocol is docs/protocol.md.
"""

from .aio import AsyncClient
from .client import Client, Policy, Rollout, SQLEnv, run_batch
from .env import SQLGymEnv
from .errors import (CAPACITY_REACHED, DEFAULT_URL, DRAINING, EPISODE_BUSY, EPISODE_ELSEWHERE, EPISODE_ENDED,
                     EPISODE_NOT_FOUND, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, NOT_FOUND,
                     PARSE_ERROR, PROTOCOL, CallTimeout, ConnectionClosed, ReplyLost, RPCError, SQLGymError,
                     TransportError)

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "Client", "SQLEnv", "SQLGymEnv", "Rollout", "Policy", "run_batch",
    "PROTOCOL", "DEFAULT_URL",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "EPISODE_NOT_FOUND", "EPISODE_ENDED", "CAPACITY_REACHED", "NOT_FOUND", "EPISODE_BUSY", "DRAINING",
    "EPISODE_ELSEWHERE",
    "SQLGymError", "RPCError", "TransportError", "ConnectionClosed", "CallTimeout", "ReplyLost",
]

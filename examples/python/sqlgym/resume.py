"""The rules a client follows to reconnect and resume, shared by
:class:`~sqlgym.Client` and :class:`~sqlgym.AsyncClient`, without any I/O.

Several sqlgym replicas may serve one episode in turn (docs/protocol.md,
"Clients that resume"). A client therefore:

- numbers its steps: :class:`Turns` knows, per episode, the turn its next
  step will have, sent as the step's ``turn``, so that a step sent again
  after a lost reply is answered from the record instead of run twice;
- reconnects after a lost connection, or when the server answers
  ``EPISODE_ELSEWHERE`` (or ``DRAINING`` to a reset), waiting
  :func:`backoff` between tries, for at most ``reconnect_timeout``
  seconds in all;
- sends again every request that had no reply (:func:`resendable`).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any, Dict, Optional

from .errors import DRAINING, EPISODE_ELSEWHERE, EPISODE_ENDED, EPISODE_NOT_FOUND

BACKOFF_START = 0.05
"""The first wait before reconnecting, in seconds."""
BACKOFF_CAP = 2.0
"""The longest wait between two tries to reconnect, in seconds."""
MAX_TRACKED_EPISODES = 1 << 16
"""Episodes whose next turn a client keeps; past it the least recently used is forgotten."""

FATAL_CLOSE_CODES = frozenset({1002, 1003, 1007, 1008, 1009, 1010})
"""Close codes that say the client did something wrong: reconnecting would not help."""
FATAL_STATUSES = frozenset({400, 401, 403, 404, 405})
"""HTTP statuses of a refused handshake (or POST) that trying again cannot change."""


def backoff(attempt: int, start: float = BACKOFF_START, cap: float = BACKOFF_CAP) -> float:
    """The wait before try ``attempt`` (0 for the first): ``start``
    doubled each time up to ``cap``, with its upper half drawn at random so
    that the clients of a replica that died do not come back all at once."""
    full = min(cap, start * (2 ** min(attempt, 30)))
    return full / 2 + random.uniform(0, full / 2)


def retry_elsewhere(method: str, code: int) -> bool:
    """True when a JSON-RPC error means: reconnect and send the request
    again (the episode is driven by another replica, or this one drains
    and starts no episode)."""
    return code == EPISODE_ELSEWHERE or (code == DRAINING and method == "episode.reset")


def resendable(method: str, params: Any) -> bool:
    """True when a request whose reply was lost may be sent again as it
    is: it reads, it closes (a repeated close answers the same summary),
    it starts a new episode (a reset is never answered twice: the lost
    one's episode is an orphan the server ends), or it is a step that
    carries its ``turn`` (a recorded turn is answered from the record)."""
    if method in ("server.info", "tasks.list", "tasks.schema", "episode.get", "episode.close", "episode.reset"):
        return True
    return method == "episode.step" and isinstance(params, dict) and isinstance(params.get("turn"), int)


class Turns:
    """The turn of each episode's next step, as this client knows it.

    A reset starts an episode at 1; a step sent takes the next number
    (:meth:`take`); its reply confirms it (:meth:`acked`); a JSON-RPC
    error gives the number back when no later step took one meanwhile
    (:meth:`refused`). An episode that ended, or that the server no longer
    knows, is forgotten. Not thread-safe: the caller holds its lock.
    """

    def __init__(self, limit: int = MAX_TRACKED_EPISODES):
        self._next: "OrderedDict[str, int]" = OrderedDict()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._next)

    def started(self, episode_id: str) -> None:
        """A reset's reply: the episode's first step is turn 1."""
        self._set(episode_id, 1)

    def take(self, episode_id: str) -> Optional[int]:
        """The turn of a step about to be sent; None for an episode this
        client never saw (its step goes without ``turn``)."""
        turn = self._next.get(episode_id)
        if turn is not None:
            self._set(episode_id, turn + 1)
        return turn

    def acked(self, episode_id: str, result: Any) -> None:
        """A step's reply: the next turn follows ``info.turn``; an ended
        episode is forgotten."""
        if not isinstance(result, dict):
            return
        if result.get("terminated") or result.get("truncated"):
            self.forget(episode_id)
            return
        info = result.get("info")
        turn = info.get("turn") if isinstance(info, dict) else None
        if isinstance(turn, int):
            self._set(episode_id, max(self._next.get(episode_id, 0), turn + 1))

    def refused(self, episode_id: str, turn: Optional[int], code: int) -> None:
        """A step's JSON-RPC error: nothing ran, so its turn is free again
        unless a later step took the next one; an episode that ended or is
        gone is forgotten."""
        if code in (EPISODE_ENDED, EPISODE_NOT_FOUND):
            self.forget(episode_id)
        elif turn is not None and self._next.get(episode_id) == turn + 1:
            self._next[episode_id] = turn

    def forget(self, episode_id: str) -> None:
        """Drops an episode that was closed or ended."""
        self._next.pop(episode_id, None)

    def _set(self, episode_id: str, turn: int) -> None:
        self._next[episode_id] = turn
        self._next.move_to_end(episode_id)
        while len(self._next) > self._limit:
            self._next.popitem(last=False)


def step_turn(turns: Turns, method: str, params: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """params of a request, with the step's ``turn`` added when the client
    knows it and the caller gave none (a copy: the caller's dict is left
    alone)."""
    if method != "episode.step" or not isinstance(params, dict) or "turn" in params:
        return params
    episode_id = params.get("episode_id")
    turn = turns.take(episode_id) if isinstance(episode_id, str) else None
    return params if turn is None else {**params, "turn": turn}


def observe(turns: Turns, method: str, params: Any, result: Any, code: Optional[int]) -> None:
    """Keeps turns up to date from one reply: its result, or its error's code."""
    if not isinstance(params, dict):
        params = {}
    episode_id = params.get("episode_id")
    if code is None and method == "episode.reset" and isinstance(result, dict):
        if isinstance(result.get("episode_id"), str):
            turns.started(result["episode_id"])
    elif not isinstance(episode_id, str):
        return
    elif method == "episode.close" and code is None:
        turns.forget(episode_id)
    elif method == "episode.step":
        if code is None:
            turns.acked(episode_id, result)
        else:
            turns.refused(episode_id, params.get("turn"), code)

"""A Gymnasium-style environment over a sqlgym server, without Gymnasium.

:class:`SQLGymEnv` follows Gymnasium's ``Env`` API by duck typing (the
package depends on nothing): ``reset(*, seed=None, options=None) ->
(observation, info)``, ``step(action) -> (observation, reward,
terminated, truncated, info)``, ``render()`` and ``close()``, with
``metadata``, ``render_mode``, ``spec`` and ``unwrapped``. The spaces
are text, which Gymnasium's ``Box``/``Discrete`` cannot describe, so
``action_space`` and ``observation_space`` are ``None``.

- The observation is the whole conversation so far, a list of chat
  messages ready for a chat template: the prompt after ``reset``, then
  each assistant completion and the tool message that answered it.
- The action is the model's whole completion (a string), parsed by the
  server with the episode's action format, or its reply as an assistant
  message (a dict with ``role: "assistant"``, or an ``openai`` message
  object) from a native tool-calling endpoint: every call runs, in order,
  and the conversation gains the message and a tool message per call.
- ``seed`` draws the task deterministically (the same seed gives the same
  task); ``options`` are ``episode.reset`` params for this episode
  (``task_id``, ``dataset``, ``max_turns``, ``action_format``, ``reward``,
  ``tags``), over the ones given to the constructor.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple, Union

from .client import Client, SQLEnv
from .errors import DEFAULT_URL

__all__ = ["SQLGymEnv"]

Messages = List[Dict[str, Any]]


class SQLGymEnv:
    """One episode at a time, Gymnasium-style; see the module docstring.

    Give ``url`` (and ``token``) to have the env open, and close, its own
    :class:`~sqlgym.Client`, or a client to share one between many envs:
    as the first argument, as :class:`~sqlgym.SQLEnv` takes it
    (``SQLGymEnv(client)``), or as ``client=``. ``reconnect_timeout`` is
    the :class:`~sqlgym.Client`'s the env opens. ``reset_kwargs`` are
    :meth:`sqlgym.Client.reset`'s keyword arguments.
    """

    metadata: Dict[str, Any] = {"render_modes": ["ansi"]}
    action_space = None
    observation_space = None
    spec = None

    def __init__(self, url: Union[str, Client] = DEFAULT_URL, *, client: Optional[Client] = None,
                 token: Optional[str] = None, render_mode: Optional[str] = None,
                 reconnect_timeout: float = 60.0, **reset_kwargs: Any):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if isinstance(url, Client):
            if client is not None:
                raise TypeError("SQLGymEnv: give the client once, as the first argument or as client=, not both")
            url, client = DEFAULT_URL, url
        elif not isinstance(url, str):
            raise TypeError(f"SQLGymEnv: the first argument is a server URL (a str) or a sqlgym.Client, "
                            f"not {type(url).__name__}")
        self.render_mode = render_mode
        self._owns_client = client is None
        self.client = client if client is not None else Client(url, token=token, reconnect_timeout=reconnect_timeout)
        self._episode = SQLEnv(self.client, **reset_kwargs)

    @property
    def unwrapped(self) -> "SQLGymEnv":
        """This env (Gymnasium's wrappers look for it)."""
        return self

    @property
    def episode_id(self) -> Optional[str]:
        """The episode of the last reset."""
        return self._episode.episode_id

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Messages, Dict[str, Any]]:
        """Starts an episode (closing one still running) and returns the
        prompt and ``{episode_id, task, tools, max_turns, action_format}``."""
        overrides = dict(options or {})
        if seed is not None:
            overrides["seed"] = seed
        _, info = self._episode.reset(**overrides)
        return list(self._episode.messages), info

    def step(self, action: Any, **usage: Any) -> Tuple[Messages, float, bool, bool, Dict[str, Any]]:
        """Sends the completion ``action`` (or the assistant message); returns
        the conversation with it and its answers, the step's reward, whether
        the episode ended by a submit (terminated) or by the turn budget
        (truncated), and the server's ``info`` (``outcome`` once ended;
        ``calls`` for a message). ``usage`` are
        :meth:`sqlgym.Client.step`'s ``completion_tokens``, ``prompt_tokens``
        and ``finish_reason``."""
        if hasattr(action, "model_dump"):
            action = action.model_dump()
        if not isinstance(action, str) and not (isinstance(action, dict) and action.get("role") == "assistant"):
            raise TypeError("SQLGymEnv.step: the action is the model's completion (a str) or its assistant message "
                            f"(a dict with role 'assistant'), not {type(action).__name__}")
        _, reward, terminated, truncated, info = self._episode.step(action, **usage)
        return list(self._episode.messages), reward, terminated, truncated, info

    def render(self) -> Optional[str]:
        """With ``render_mode="ansi"``, the conversation as text."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(_rendered(m) for m in self._episode.messages)

    def close(self) -> None:
        """Closes the episode if it is still running, and the client if the env opened it."""
        ep = self._episode
        if ep.episode_id is not None and not ep.done and not self.client.closed:
            ep.close()
        if self._owns_client:
            self.client.close()


def _rendered(m: Dict[str, Any]) -> str:
    """One message as a line of text: its role, its content, and its calls."""
    line = f"[{m['role']}] {m.get('content') or ''}".rstrip()
    for call in m.get("tool_calls") or []:
        fn = call.get("function", {})
        args = fn.get("arguments", "")
        line += f"\n  call {call.get('id', '')} {fn.get('name', '')} {args if isinstance(args, str) else json.dumps(args)}"
    return line

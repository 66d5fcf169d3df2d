"""Episodes over a shared :class:`~sqlgym.Client`: :class:`SQLEnv`, a
gym-style view of one episode at a time, and :func:`run_batch`, which runs
many episodes concurrently over one socket, one policy call per turn for
every episode still running (the shape of an RL rollout worker)."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import wait as _wait_futures
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from .errors import CallTimeout
from .futures import give_up as _give_up
from .futures import then as _then
from .jsonrpc import assistant_message, drop_none

if TYPE_CHECKING:
    from .client import Client

__all__ = ["SQLEnv", "Rollout", "Policy", "run_batch"]


class SQLEnv:
    """A gym-style view of one episode at a time, over a shared Client.

    ``reset()`` starts an episode and returns ``(messages, info)``: the
    prompt, ready for a chat template, and ``{episode_id, task, tools,
    max_turns, action_format}``. ``step(text)`` sends the model's whole
    completion and returns ``(observation, reward, terminated, truncated,
    info)``, where ``observation`` is the tool message the model sees next.
    ``messages`` keeps the whole conversation so far, and ``tools`` the
    tool schemas for the chat template's ``tools=`` argument.

    ``step`` also takes the model's reply as an assistant message (a dict
    or an ``openai`` message object, from a native tool-calling endpoint):
    every call runs, in order, and ``messages`` gains the message as sent
    and one tool message per call (``observations``), each answering its
    call's id, which is what the model's next request holds (a call with
    no id is given ``call_<turn>_<i>`` before it is sent). The step's
    ``observation`` is then every tool message's content, in order.

    ``reset_kwargs`` are :meth:`Client.reset`'s (``task_id``, ``dataset``,
    ``seed``, ``max_turns``, ``action_format``, ``reward``, ``tags``,
    ``prompt_style``: ``"native"`` for a model whose chat template is
    given ``tools``). Many
    SQLEnvs may share one Client; the ``*_async`` methods return Futures so
    that their episodes run concurrently over its socket.

    A step given up on (a :class:`CallTimeout`, or its Future cancelled)
    may still have run on the server, and its late reply is dropped, so
    ``messages`` and ``rewards`` may lack a turn the server recorded.
    ``in_doubt`` is then True and ``step`` refuses until ``reset()``;
    ``client.episode(env.episode_id)`` (``episode.get``) shows what the
    server recorded. A reset given up on starts no episode here: if the
    server started one, the client closes it when the reply comes.
    """

    def __init__(self, client: "Client", **reset_kwargs: Any):
        self.client = client
        self.reset_kwargs = reset_kwargs
        self.episode_id: Optional[str] = None
        self.task: Dict[str, Any] = {}
        self.tools: List[Dict[str, Any]] = []
        self.messages: List[Dict[str, Any]] = []
        self.rewards: List[float] = []
        self.outcome: Optional[str] = None
        self.done = False
        self.in_doubt = False
        """True once a step of this episode was given up on (see the class docstring)."""

    def reset(self, **overrides: Any) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
        """Starts a new episode (closing a previous one still running)."""
        return self.client._wait(self.reset_async(**overrides), "episode.reset")

    def reset_async(self, **overrides: Any) -> Future:
        """:meth:`reset` without waiting. Until it completes the env has no
        episode; cancelling it closes the episode the server may start."""
        if self.episode_id is not None and not self.done:
            self.client.close_episode_async(self.episode_id)  # recorded as no_submit
        self.episode_id, self.in_doubt = None, False
        kwargs = {**self.reset_kwargs, **overrides}
        return _then(self.client.reset_async(**kwargs), self._on_reset, orphan=self.client._close_orphan)

    def _on_reset(self, r: Dict[str, Any]) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
        self.episode_id = r["episode_id"]
        self.task, self.tools = r["task"], r["tools"]
        self.messages = list(r["messages"])
        self.rewards, self.outcome, self.done = [], None, False
        info = {k: r[k] for k in ("episode_id", "task", "tools", "max_turns", "action_format")}
        return list(self.messages), info

    def step(self, completion_text: Any, **usage: Any) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        """Sends the model's completion (a str), or its reply as an assistant
        message (a dict, or an ``openai`` message object); see the class
        docstring. ``usage`` are :meth:`Client.step`'s ``completion_tokens``,
        ``prompt_tokens`` and ``finish_reason``."""
        return self.client._wait(self.step_async(completion_text, **usage), "episode.step")

    def step_async(self, completion_text: Any, **usage: Any) -> Future:
        """:meth:`step` without waiting."""
        if self.episode_id is None:
            raise RuntimeError("SQLEnv.step: call reset() first")
        if self.done:
            raise RuntimeError("SQLEnv.step: the episode has ended; call reset()")
        if self.in_doubt:
            raise RuntimeError("SQLEnv.step: an earlier step got no reply in time and may have run on the server, "
                               "so messages may lack it (client.episode(env.episode_id) shows what the server "
                               "recorded); call reset()")
        ep = self.episode_id
        if isinstance(completion_text, str):
            fut = self.client.step_async(ep, text=completion_text, **usage)
            sent: Dict[str, Any] = {"role": "assistant", "content": completion_text}
        else:
            sent = assistant_message(completion_text)
            for i, call in enumerate(sent.get("tool_calls", [])):
                # as the server would name it, so that the message kept and recorded matches its tool message
                call.setdefault("id", f"call_{len(self.rewards) + 1}_{i}")
                call.setdefault("type", "function")
            fut = self.client.step_async(ep, message=sent, **usage)
        is_message = not isinstance(completion_text, str)
        out = _then(fut, lambda r: self._on_step(sent, is_message, r))
        out.add_done_callback(lambda o: self._gave_up(ep) if o.cancelled() else None)
        return out

    def _gave_up(self, episode_id: str) -> None:
        if self.episode_id == episode_id:
            self.in_doubt = True

    def _on_step(self, sent: Dict[str, Any], is_message: bool,
                 r: Dict[str, Any]) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        obs = r["observation"]
        self.messages.append(sent)
        if not is_message:
            self.messages.append(obs)
        elif r.get("observations"):
            self.messages += r["observations"]  # a tool message per call, each answering its call's id
        else:
            self.messages.append({"role": "user", "content": obs["content"]})  # no call awaits a tool message
        self.rewards.append(r["reward"])
        self.done = bool(r["terminated"] or r["truncated"])
        self.outcome = r["info"].get("outcome", self.outcome)
        return obs, r["reward"], r["terminated"], r["truncated"], r["info"]

    def close(self) -> Dict[str, Any]:
        """Closes the episode (``no_submit`` if it had not ended) and returns its summary."""
        if self.episode_id is None:
            raise RuntimeError("SQLEnv.close: no episode")
        summary = self.client.close_episode(self.episode_id)
        self.done, self.outcome = True, summary["outcome"]
        return summary


@dataclass
class Rollout:
    """One finished episode of :func:`run_batch`."""

    episode_id: str
    task: Dict[str, Any]
    tags: Dict[str, Any]
    messages: List[Dict[str, Any]]
    """The prompt, then each assistant completion and the tool message after it (for an
    assistant message: the message, then one tool message per call)."""
    rewards: List[float]
    """The reward of each step; their sum is ``total_reward``."""
    outcome: str
    total_reward: float
    turns: int
    summary: Dict[str, Any]
    """The ``episode.close`` result, with ``reward_components``."""


Policy = Callable[[List[List[Dict[str, Any]]]], Sequence[Any]]
"""Maps the conversations of the episodes still running to one completion each: a
string (a text action), or an assistant message (a dict) from a native tool-calling model."""


def run_batch(client: "Client", policy_fn: Policy, task_ids: Sequence[Optional[str]], *,
              group_size: int = 1, tags: Optional[Dict[str, Any]] = None,
              timeout: Optional[float] = None, **reset_kwargs: Any) -> List[Rollout]:
    """Runs ``group_size`` episodes of each task concurrently over one socket.

    Each turn, ``policy_fn`` gets the conversations of every episode still
    running (a list of chat-message lists, in a stable order) and returns
    one completion per conversation: one batched generation call, as with
    vLLM. All resets, steps and closes of a turn are in flight at once.

    Episode ``(i, j)`` (task ``task_ids[i]``, sample ``j``) is tagged
    ``{**tags, "group": i, "sample": j}``: put the policy version and the
    batch or step number in ``tags`` so that GRPO groups can be found in
    the trajectories later. A ``None`` task id draws a task from
    ``reset_kwargs["dataset"]`` (by ``seed`` if given). ``timeout`` bounds
    each turn (default: the client's). Returns one :class:`Rollout` per
    episode, group by group; every episode is closed, and recorded, even
    when this raises: a reset that timed out has its episode closed when
    the late reply comes.
    """
    envs = []
    for i, task_id in enumerate(task_ids):
        for j in range(group_size):
            t = {**(tags or {}), "group": i, "sample": j}
            envs.append(SQLEnv(client, **drop_none(task_id=task_id), tags=t, **reset_kwargs))
    limit = client.timeout if timeout is None else timeout
    try:
        _gather([e.reset_async() for e in envs], limit)
        active = list(envs)
        while active:
            completions = list(policy_fn([list(e.messages) for e in active]))
            if len(completions) != len(active):
                raise ValueError(f"run_batch: policy returned {len(completions)} completions for {len(active)} episodes")
            _gather([e.step_async(c) for e, c in zip(active, completions)], limit)
            active = [e for e in active if not e.done]
        summaries = _gather([client.close_episode_async(e.episode_id) for e in envs], limit)
    except BaseException:
        for e in envs:
            if e.episode_id is not None:
                client.close_episode_async(e.episode_id)
        raise
    return [Rollout(episode_id=s["episode_id"], task=e.task, tags=e.reset_kwargs["tags"], messages=e.messages,
                    rewards=e.rewards, outcome=s["outcome"], total_reward=s["total_reward"], turns=s["turns"],
                    summary=s) for e, s in zip(envs, summaries)]


def _gather(futures: List[Future], timeout: float) -> List[Any]:
    """Every result, waiting for all; raises the first failure in order.
    On a timeout the calls still out are given up (their late replies
    dropped, the episodes of late resets closed)."""
    _, not_done = _wait_futures(futures, timeout=timeout)
    if not_done:
        given_up = sum(_give_up(f) for f in not_done)
        if given_up:
            raise CallTimeout(f"{given_up} of {len(futures)} calls got no reply within {timeout}s")
    return [f.result() for f in futures]


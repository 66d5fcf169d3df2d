"""The blocking client of the sqlgym protocol (sqlgym/1), standard library only.

sqlgym serves text-to-SQL episodes over JSON-RPC 2.0, on a WebSocket
(``ws://host:8765/v1/ws``) or as plain HTTP (``http://host:8765/v1/rpc``).

- :class:`Client` holds one socket and a reader thread; many calls may be
  in flight on it at once (``call_async`` returns a
  :class:`concurrent.futures.Future`), and it is safe to share between
  threads. JSON-RPC errors raise :class:`RPCError`.
- :class:`SQLEnv` is a gym-style view of one episode:
  ``reset() -> (messages, info)`` and
  ``step(text) -> (observation, reward, terminated, truncated, info)``.
- :func:`run_batch` runs many episodes concurrently over one socket, one
  policy call per turn for every episode still running: the shape of an RL
  rollout worker.

For asyncio code, :class:`sqlgym.AsyncClient` has the same methods as
coroutines. Example::

    with Client("ws://127.0.0.1:8765/v1/ws") as client:
        env = SQLEnv(client, task_id="demo/library-001")
        messages, info = env.reset()
        obs, reward, terminated, truncated, info = env.step(completion)
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as _FutureTimeout
from concurrent.futures import wait as _wait_futures
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .errors import (CAPACITY_REACHED, DEFAULT_URL, EPISODE_BUSY, EPISODE_ENDED, EPISODE_NOT_FOUND,
                     INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, NOT_FOUND,
                     PARSE_ERROR, PROTOCOL, CallTimeout, ConnectionClosed, RPCError, SQLGymError,
                     TransportError)
from .jsonrpc import assistant_message, drop_none, encode_request, replies, reset_params, result_of, step_params
from .websocket import USER_AGENT, WebSocket, accept_key, connect_websocket, encode_frame

__all__ = [
    "PROTOCOL", "DEFAULT_URL",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "EPISODE_NOT_FOUND", "EPISODE_ENDED", "CAPACITY_REACHED", "NOT_FOUND", "EPISODE_BUSY",
    "SQLGymError", "RPCError", "TransportError", "ConnectionClosed", "CallTimeout",
    "WebSocket", "connect_websocket", "accept_key", "encode_frame",
    "Client", "SQLEnv", "Rollout", "Policy", "run_batch",
]


class _HTTPTransport:
    """POST /v1/rpc, one request per call, calls run on a small thread pool."""

    def __init__(self, url: str, headers: Dict[str, str], timeout: float, max_bytes: int, workers: int):
        parts = urllib.parse.urlsplit(url)
        self.url = url if parts.path not in ("", "/") else urllib.parse.urljoin(url, "/v1/rpc")
        self._headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._ids = itertools.count(1)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sqlgym-http")

    def submit(self, method: str, params: Optional[Dict[str, Any]]) -> Future:
        """Encodes the request here (a ValueError is the caller's) and posts
        it from the pool. The Future stays pending until the reply is in,
        so that cancelling it drops a late reply."""
        body = encode_request(next(self._ids), method, params)
        return _then(self._pool.submit(self._post, body, method), lambda r: r)

    def call(self, method: str, params: Optional[Dict[str, Any]]) -> Any:
        """One call on the calling thread."""
        return self._post(encode_request(next(self._ids), method, params), method)

    def _post(self, body: bytes, method: str) -> Any:
        req = urllib.request.Request(self.url, data=body, headers=self._headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                data = resp.read(self._max_bytes + 1)
        except urllib.error.HTTPError as e:
            text = e.read(4096).decode("utf-8", "replace").strip()
            raise TransportError(f"{method}: HTTP {e.code}: {text}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            raise TransportError(f"{method}: {getattr(e, 'reason', e)}") from None
        if len(data) > self._max_bytes:
            raise TransportError(f"{method}: reply larger than {self._max_bytes} bytes")
        return result_of(json.loads(data), method)

    def close(self) -> None:
        self._pool.shutdown(wait=True)




class Client:
    """A connection to a sqlgym server.

    ``url`` picks the transport: ``ws://``/``wss://`` holds one WebSocket
    with a reader thread, and any number of calls may be in flight on it
    (replies are matched to callers by id); ``http://``/``https://`` posts
    each call to ``/v1/rpc`` from a small thread pool, for networks that
    cannot hold a socket. A URL without a path gets ``/v1/ws`` or
    ``/v1/rpc``. ``token`` is sent as ``Authorization: Bearer``; ``timeout``
    bounds each blocking call in seconds.

    A Client is thread-safe. Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, url: str = DEFAULT_URL, token: Optional[str] = None, timeout: float = 60.0, *,
                 connect_timeout: float = 10.0, max_frame_bytes: int = 64 << 20, http_workers: int = 16):
        self.url = url
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._lock = threading.Lock()  # guards _ids, _pending, _settling, _closed, _error
        self._ids = itertools.count(1)
        self._pending: Dict[int, Tuple[Future, str]] = {}
        # Replies taken from _pending whose Futures (and so their callbacks,
        # which may send calls of their own) are still being settled.
        self._settling = 0
        self._settled = threading.Condition(self._lock)  # notified as _settling drops
        self._closed = False
        self._error: Optional[TransportError] = None
        self._done = threading.Event()
        self._ws: Optional[WebSocket] = None
        self._http: Optional[_HTTPTransport] = None
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme in ("http", "https"):
            self._http = _HTTPTransport(url, headers, timeout, max_frame_bytes, http_workers)
            return
        if scheme not in ("ws", "wss"):
            raise ValueError(f"url must start with ws://, wss://, http:// or https://, got {url!r}")
        self._ws = connect_websocket(url, headers, connect_timeout, max_frame_bytes)
        self._reader = threading.Thread(target=self._read_loop, name="sqlgym-client-reader", daemon=True)
        self._reader.start()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once the client was closed or its connection ended."""
        with self._lock:
            return self._closed or self._error is not None

    @property
    def close_code(self) -> Optional[int]:
        """The code of the server's close frame (1000 after a clean close)."""
        return self._ws.close_code if self._ws else None

    # --- calls -------------------------------------------------------------

    def call_async(self, method: str, params: Optional[Dict[str, Any]] = None) -> Future:
        """Sends one request and returns a Future of its result.

        The Future fails with :class:`RPCError` for a JSON-RPC error and with
        :class:`ConnectionClosed` when the connection ends first. Its
        callbacks run on the reader thread: keep them short, and never
        block on another call there. Cancelling it gives the call up: its
        reply is dropped, though the server may still run it. Raises
        ValueError, sending nothing, when JSON cannot carry ``params``
        (NaN, Infinity, a lone surrogate).
        """
        return self._call_async(method, params, closing_ok=False)

    def _call_async(self, method: str, params: Optional[Dict[str, Any]], closing_ok: bool) -> Future:
        """call_async; closing_ok lets the call through while close() waits for calls in flight."""
        if self._http is not None:
            with self._lock:
                if self._closed:
                    return _failed(ConnectionClosed(f"{method}: client closed"))
                return self._http.submit(method, params)
        with self._lock:
            req_id = next(self._ids)
        frame = encode_request(req_id, method, params)  # before registering: a ValueError leaves nothing behind
        fut: Future = Future()
        with self._lock:
            if self._closed and not closing_ok:
                return _failed(ConnectionClosed(f"{method}: client closed"))
            if self._error is not None:
                return _failed(ConnectionClosed(f"{method}: {self._error}"))
            self._pending[req_id] = (fut, method)
        fut.add_done_callback(lambda f: self._abandon(req_id, f))
        try:
            self._ws.send_text(frame)  # type: ignore[union-attr]
        except (OSError, TransportError) as e:
            if self._take(req_id):  # else the reader's _end settled it in the meantime
                _settle(fut, exc=ConnectionClosed(f"{method}: send: {e}"))
        return fut

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Sends one request and waits for its result (see :meth:`call_async`).

        Raises :class:`CallTimeout` when no reply came within ``timeout``
        (default: the client's); the call is then given up, but the
        server may still have run it.
        """
        return self._wait(self.call_async(method, params), method, timeout)

    # Whoever takes a request out of _pending settles its Future: the
    # reader with the reply (_dispatch), _end with ConnectionClosed, a
    # failed send, or _abandon for a cancelled Future. So each Future is
    # settled once, and a reply that comes after a cancel is dropped.

    def _take(self, req_id: int) -> bool:
        """Removes req_id from _pending; False when another holder took it first."""
        with self._lock:
            return self._pending.pop(req_id, None) is not None

    def _abandon(self, req_id: int, fut: Future) -> None:
        """Forgets the request of a cancelled Future, whose reply is then dropped."""
        if fut.cancelled() and self._take(req_id):
            fut.set_running_or_notify_cancel()  # wakes concurrent.futures.wait on it

    def _close_orphan(self, reply: Any) -> None:
        """Closes the episode of an ``episode.reset`` reply that came after
        its caller gave up, which would otherwise idle until the server's
        --idle-timeout. Runs where the reply completed: the reader thread,
        or an HTTP pool thread (which may block)."""
        if not isinstance(reply, dict) or not isinstance(reply.get("episode_id"), str):
            return
        params = {"episode_id": reply["episode_id"]}
        try:
            if self._http is not None:
                self._http.call("episode.close", params)
            else:
                self._call_async("episode.close", params, closing_ok=True)
        except (SQLGymError, OSError, ValueError):
            pass  # the connection is gone: the server ends the episode as abandoned after --idle-timeout

    # --- the reader --------------------------------------------------------

    def _read_loop(self) -> None:
        ws = self._ws
        assert ws is not None
        err: Optional[TransportError] = None
        try:
            while True:
                msg = ws.recv_message()
                if msg is None:
                    break
                self._dispatch(msg)
        except TransportError as e:
            err = e
        except OSError as e:
            err = ConnectionClosed(f"connection lost: {e}")
        except Exception as e:  # a bug here must still release every waiter
            ws.close(1011)
            err = TransportError(f"client reader failed: {e!r}")
        if err is None:
            reason = f": {ws.close_reason}" if ws.close_reason else ""
            err = ConnectionClosed(f"connection closed by the server (code {ws.close_code}{reason})")
        self._end(err)

    def _end(self, err: TransportError) -> None:
        with self._lock:
            self._error = err
            pending, self._pending = self._pending, {}
        for fut, method in pending.values():
            _settle(fut, exc=ConnectionClosed(f"{method}: {err}", err.status))
        if self._ws is not None:
            self._ws.abort()
        self._done.set()

    def _dispatch(self, msg: str) -> None:
        for req_id, item in replies(msg):
            with self._lock:
                entry = self._pending.pop(req_id, None)
                if entry is None:
                    continue
                self._settling += 1
            fut, method = entry
            try:
                try:
                    _settle(fut, result=result_of(item, method))
                except SQLGymError as e:
                    _settle(fut, exc=e)
            finally:
                with self._lock:
                    self._settling -= 1
                    self._settled.notify_all()

    # --- closing -----------------------------------------------------------

    def close(self, timeout: float = 5.0) -> None:
        """Closes the client: waits up to ``timeout`` for calls in flight,
        then runs the WebSocket close handshake. Later calls fail with
        :class:`ConnectionClosed`. Closing twice does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._http is not None:
            self._http.close()
            return
        deadline = time.monotonic() + timeout
        while True:  # until every call is in, and the closes of orphaned resets they sent
            with self._lock:
                # A waiter wakes as a Future completes, before its callbacks
                # run: wait for them, since one may close an orphaned episode.
                while self._settling and time.monotonic() < deadline:
                    self._settled.wait(deadline - time.monotonic())
                in_flight = [fut for fut, _ in self._pending.values()]
            left = deadline - time.monotonic()
            if not in_flight or left <= 0:
                break
            _wait_futures(in_flight, timeout=left)
        self._ws.close(1000)  # type: ignore[union-attr]
        if not self._done.wait(timeout):
            self._ws.abort()  # type: ignore[union-attr]
        self._reader.join(timeout)

    # --- methods -----------------------------------------------------------

    def info(self) -> Dict[str, Any]:
        """``server.info``: name, version, protocol, datasets, tools, reward spec, limits."""
        return self.call("server.info")

    def tasks(self, dataset: Optional[str] = None, offset: int = 0, limit: int = 100) -> Dict[str, Any]:
        """``tasks.list``: one page ``{tasks: [...], total}``; gold answers are never listed."""
        return self.call("tasks.list", drop_none(dataset=dataset, offset=offset, limit=limit))

    def iter_tasks(self, dataset: Optional[str] = None, page: int = 1000) -> Iterator[Dict[str, Any]]:
        """Every task of ``dataset`` (or of all datasets), page by page."""
        offset = 0
        while True:
            got = self.tasks(dataset, offset, page)
            yield from got["tasks"]
            offset += len(got["tasks"])
            if not got["tasks"] or offset >= got["total"]:
                return

    def reset_async(self, task_id: Optional[str] = None, dataset: Optional[str] = None,
                    seed: Optional[int] = None, max_turns: Optional[int] = None,
                    action_format: Optional[str] = None, reward: Optional[Union[str, Dict[str, Any]]] = None,
                    tags: Optional[Dict[str, Any]] = None, *, prompt_style: Optional[str] = None) -> Future:
        """``episode.reset`` without waiting (see :meth:`reset`).

        Cancelling the Future cannot unstart the episode: if the reply comes
        later, the client closes its episode (recorded as ``no_submit``).
        """
        fut = self.call_async("episode.reset", reset_params(task_id, dataset, seed, max_turns, action_format,
                                                           reward, tags, prompt_style=prompt_style))
        return _then(fut, lambda r: r, orphan=self._close_orphan)

    def reset(self, task_id: Optional[str] = None, dataset: Optional[str] = None,
              seed: Optional[int] = None, max_turns: Optional[int] = None,
              action_format: Optional[str] = None, reward: Optional[Union[str, Dict[str, Any]]] = None,
              tags: Optional[Dict[str, Any]] = None, *, prompt_style: Optional[str] = None) -> Dict[str, Any]:
        """``episode.reset``: starts an episode and returns
        ``{episode_id, task, messages, tools, max_turns, action_format}``.

        Without ``task_id`` the task is drawn from ``dataset`` by ``seed``.
        ``reward`` is a partial RewardSpec merged over the server's, or a
        reward preset's name (``"binary"``);
        ``tags`` (policy version, GRPO group id, ...) are stored verbatim
        with the trajectory. ``prompt_style`` chooses the system prompt:
        ``"text"`` lists the tools and how to call them in the action
        format; ``"native"`` states the task and the rules only, for a
        model whose chat template renders ``tools=`` (pass the reply's
        ``tools``); left out, the server's default (``server.info``'s
        ``prompt_style``). After a :class:`CallTimeout` the client closes
        the episode if the server started one.
        """
        fut = self.reset_async(task_id, dataset, seed, max_turns, action_format, reward, tags,
                               prompt_style=prompt_style)
        return self._wait(fut, "episode.reset")

    def step_async(self, episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
                   arguments: Optional[Dict[str, Any]] = None,
                   completion_tokens: Optional[int] = None, *, message: Any = None,
                   prompt_tokens: Optional[int] = None, finish_reason: Optional[str] = None) -> Future:
        """``episode.step`` without waiting (see :meth:`step`)."""
        return self.call_async("episode.step", step_params(episode_id, text, tool, arguments, completion_tokens,
                                                           message=message, prompt_tokens=prompt_tokens,
                                                           finish_reason=finish_reason))

    def step(self, episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
             arguments: Optional[Dict[str, Any]] = None,
             completion_tokens: Optional[int] = None, *, message: Any = None,
             prompt_tokens: Optional[int] = None, finish_reason: Optional[str] = None) -> Dict[str, Any]:
        """``episode.step``: one turn, either the model's whole completion
        (``text``, parsed with the episode's action format), a call the
        client parsed (``tool`` and ``arguments``), or the model's reply as
        an assistant message (``message``: a chat endpoint's message, a dict
        or an ``openai`` message object, see
        :func:`sqlgym.jsonrpc.assistant_message`), whose calls all run, in
        order. ``completion_tokens``, the completion's length as the
        inference server reported it, is recorded with the step and paid by
        the reward's length term; ``prompt_tokens`` and ``finish_reason``
        are recorded.

        Returns ``{observation, reward, terminated, truncated, info}``, and
        for a message (or a hermes text) ``observations``: one tool message
        per call, ``{role: "tool", tool_call_id, name, content}``, in call
        order, and ``info["calls"]`` with what each call earned. Bad SQL,
        timeouts and unparseable text are observations with
        ``info["error"]``, not exceptions.

        A :class:`CallTimeout` (or a :class:`ConnectionClosed` after the
        request was sent) does not mean the step did not happen: the server
        may have applied it, or still apply it, and only its reply is lost.
        :meth:`episode` (``episode.get``) shows the steps the server
        recorded; check it before sending the step again.
        """
        return self._wait(self.step_async(episode_id, text, tool, arguments, completion_tokens, message=message,
                                          prompt_tokens=prompt_tokens, finish_reason=finish_reason), "episode.step")

    def close_episode_async(self, episode_id: str) -> Future:
        """``episode.close`` without waiting."""
        return self.call_async("episode.close", {"episode_id": episode_id})

    def close_episode(self, episode_id: str) -> Dict[str, Any]:
        """``episode.close``: ends (as ``no_submit`` if still running) and
        records the episode; returns
        ``{episode_id, outcome, final_reward, total_reward, turns, reward_components}``."""
        return self._wait(self.close_episode_async(episode_id), "episode.close")

    def get(self, episode_id: str) -> Dict[str, Any]:
        """``episode.get``: the trajectory record of a live or recently ended episode."""
        return self.call("episode.get", {"episode_id": episode_id})

    episode = get
    """The name :meth:`get` had first; both stay."""

    def _wait(self, fut: Future, method: str, timeout: Optional[float] = None) -> Any:
        """fut's result within timeout (default: the client's), else
        CallTimeout, after cancelling fut so that a late reply is dropped."""
        limit = self.timeout if timeout is None else timeout
        try:
            return fut.result(limit)
        except _FutureTimeout:
            pass
        if not _give_up(fut):
            return fut.result()  # the reply came in at the last moment
        raise CallTimeout(f"{method}: no reply within {limit}s (the server may still have run it)")


def _failed(exc: BaseException) -> Future:
    fut: Future = Future()
    fut.set_exception(exc)
    return fut


def _give_up(fut: Future) -> bool:
    """Cancels fut; False when its result is in or being delivered, which
    this then waits for (this module's Futures stay pending until their
    reply is in, so that wait is short)."""
    if fut.cancel():
        return True
    _wait_futures([fut])
    return False


def _settle(fut: Future, result: Any = None, exc: Optional[BaseException] = None) -> None:
    """Completes fut unless its caller cancelled it."""
    if not fut.set_running_or_notify_cancel():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


def _then(fut: Future, fn: Callable[[Any], Any], orphan: Optional[Callable[[Any], None]] = None) -> Future:
    """A Future of fn(fut's result); fn runs where fut completes.

    Cancelling the returned Future keeps fn from running. Without orphan
    the cancel passes on to fut, so that a Client call forgets its request
    and drops a late reply. With orphan, fut is left to complete, and a
    result that arrives after the cancel goes to orphan instead of fn.
    """
    out: Future = Future()

    def done(f: Future) -> None:
        if not out.set_running_or_notify_cancel():
            if orphan is not None and not f.cancelled() and f.exception() is None:
                orphan(f.result())
            return
        try:
            out.set_result(fn(f.result()))
        except BaseException as e:  # noqa: B902 - handed to the waiter
            out.set_exception(e)

    def cancelled(o: Future) -> None:
        if o.cancelled() and orphan is None:
            fut.cancel()

    fut.add_done_callback(done)
    out.add_done_callback(cancelled)
    return out


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

    def __init__(self, client: Client, **reset_kwargs: Any):
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


def run_batch(client: Client, policy_fn: Policy, task_ids: Sequence[Optional[str]], *,
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

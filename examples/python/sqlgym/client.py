"""The blocking client of the sqlgym protocol (sqlgym/1), standard library only.

sqlgym serves text-to-SQL episodes over JSON-RPC 2.0, on a WebSocket
(``ws://host:8765/v1/ws``) or as plain HTTP (``http://host:8765/v1/rpc``).

- :class:`Client` holds one socket and a reader thread; many calls may be
  in flight on it at once (``call_async`` returns a
  :class:`concurrent.futures.Future`), and it is safe to share between
  threads. JSON-RPC errors raise :class:`RPCError`. When the connection
  drops, or the server says another replica has the episode, it
  reconnects and sends again every call still waiting for its reply
  (docs/protocol.md, "Clients that resume").
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
import threading
import time
import urllib.parse
from concurrent.futures import Future
from concurrent.futures import TimeoutError as _FutureTimeout
from concurrent.futures import wait as _wait_futures
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from .batch import Policy, Rollout, SQLEnv, run_batch
from .errors import (CAPACITY_REACHED, DEFAULT_URL, DRAINING, EPISODE_BUSY, EPISODE_ELSEWHERE, EPISODE_ENDED,
                     EPISODE_NOT_FOUND, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
                     NOT_FOUND, PARSE_ERROR, PROTOCOL, CallTimeout, ConnectionClosed, ReplyLost, RPCError,
                     SQLGymError, TransportError)
from .futures import failed as _failed
from .futures import give_up as _give_up
from .futures import settle as _settle
from .futures import then as _then
from .httprpc import HTTPTransport
from .jsonrpc import drop_none, encode_request, replies, reset_params, result_of, step_params
from .resume import (FATAL_CLOSE_CODES, FATAL_STATUSES, Turns, backoff, observe, resendable, retry_elsewhere,
                     step_turn)
from .websocket import WebSocket, accept_key, connect_websocket, encode_frame

__all__ = [
    "PROTOCOL", "DEFAULT_URL",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "EPISODE_NOT_FOUND", "EPISODE_ENDED", "CAPACITY_REACHED", "NOT_FOUND", "EPISODE_BUSY", "DRAINING",
    "EPISODE_ELSEWHERE",
    "SQLGymError", "RPCError", "TransportError", "ConnectionClosed", "CallTimeout", "ReplyLost",
    "WebSocket", "connect_websocket", "accept_key", "encode_frame",
    "Client", "SQLEnv", "Rollout", "Policy", "run_batch",
]


@dataclass
class _Call:
    """A request waiting for its reply."""

    method: str
    params: Any
    frame: bytes
    future: Future
    conn: Optional[WebSocket] = None
    """The connection it was sent on; None while it waits for one."""
    since: Optional[float] = None
    """When it first had to be sent again: it is, until reconnect_timeout later."""


class Client:
    """A connection to a sqlgym server.

    ``url`` picks the transport: ``ws://``/``wss://`` holds one WebSocket
    with a reader thread, and any number of calls may be in flight on it
    (replies are matched to callers by id); ``http://``/``https://`` posts
    each call to ``/v1/rpc`` from a small thread pool, for networks that
    cannot hold a socket. A URL without a path gets ``/v1/ws`` or
    ``/v1/rpc``. ``token`` is sent as ``Authorization: Bearer``; ``timeout``
    bounds each blocking call in seconds (reconnecting included).

    The client resumes (docs/protocol.md, "Clients that resume"): it sends
    every step with its ``turn``, and when the connection is lost, or the
    server answers ``EPISODE_ELSEWHERE`` (``DRAINING`` to a reset), it
    reconnects to the same URL, waiting 50 ms at first and doubling up to
    2 s, with jitter, for at most ``reconnect_timeout`` seconds (0: never),
    and sends again every call that had no reply: a step keeps its turn, so
    the server runs it once; a reset whose reply was lost is sent as a new
    reset. ``reconnects`` counts the connections made after the first.

    A Client is thread-safe. Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, url: str = DEFAULT_URL, token: Optional[str] = None, timeout: float = 60.0, *,
                 connect_timeout: float = 10.0, max_frame_bytes: int = 64 << 20, http_workers: int = 16,
                 reconnect_timeout: float = 60.0):
        if reconnect_timeout < 0:
            raise ValueError(f"reconnect_timeout must be 0 (never reconnect) or more, got {reconnect_timeout}")
        self.url = url
        self.timeout = timeout
        self.reconnect_timeout = reconnect_timeout
        self.reconnects = 0
        """How many connections the client made after its first."""
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._connect_timeout = connect_timeout
        self._max_frame_bytes = max_frame_bytes
        # _lock guards _ids, _pending, _queue, _settling, _closed, _error, _ws,
        # _conns, _redialing, _attempt, _turns and reconnects.
        self._lock = threading.Lock()
        self._send_lock = threading.RLock()  # taken before _lock, never after it
        self._ids = itertools.count(1)
        self._pending: Dict[int, _Call] = {}
        self._queue: Dict[int, _Call] = {}  # calls of _pending waiting for a connection (some may be gone)
        # Replies taken from _pending whose Futures (and so their callbacks,
        # which may send calls of their own) are still being settled.
        self._settling = 0
        self._settled = threading.Condition(self._lock)  # notified as _settling drops
        self._closed = False
        self._error: Optional[TransportError] = None
        self._turns = Turns()
        self._stop = threading.Event()  # set once the client stops resuming (closed, or failed for good)
        self._ws: Optional[WebSocket] = None  # where new calls go; None while reconnecting
        self._conns: Dict[WebSocket, threading.Thread] = {}  # every open connection and its reader
        self._redialing = False
        self._attempt = 0  # reconnects in a row with no answer between them
        self._close_code: Optional[int] = None
        self._http: Optional[HTTPTransport] = None
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme in ("http", "https"):
            self._http = HTTPTransport(url, self._headers, timeout, max_frame_bytes, http_workers,
                                       reconnect_timeout, self._observe)
            return
        if scheme not in ("ws", "wss"):
            raise ValueError(f"url must start with ws://, wss://, http:// or https://, got {url!r}")
        self._attach(connect_websocket(url, self._headers, connect_timeout, max_frame_bytes))

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once the client was closed or its connection ended for good."""
        with self._lock:
            return self._closed or self._error is not None

    @property
    def close_code(self) -> Optional[int]:
        """The code of the last close frame the server sent (1000 after a clean close)."""
        return self._close_code

    # --- calls -------------------------------------------------------------

    def call_async(self, method: str, params: Optional[Dict[str, Any]] = None) -> Future:
        """Sends one request and returns a Future of its result.

        The Future fails with :class:`RPCError` for a JSON-RPC error and with
        :class:`ConnectionClosed` when the connection ends first and cannot
        be resumed (:class:`ReplyLost` for a request that is not safe to
        send twice). Its callbacks run on a reader thread: keep them short,
        and never block on another call there. Cancelling it gives the call
        up: its reply is dropped, though the server may still run it.
        Raises ValueError, sending nothing, when JSON cannot carry
        ``params`` (NaN, Infinity, a lone surrogate).
        """
        return self._call_async(method, params, closing_ok=False)

    def _call_async(self, method: str, params: Optional[Dict[str, Any]], closing_ok: bool) -> Future:
        """call_async; closing_ok lets the call through while close() waits for calls in flight."""
        if self._http is not None:
            with self._lock:
                if self._closed and not closing_ok:
                    return _failed(ConnectionClosed(f"{method}: client closed"))
                params = step_turn(self._turns, method, params)
            try:
                return self._http.submit(method, params)
            except ValueError:
                self._observe(method, params, None, INVALID_PARAMS)  # gives the step's turn back
                raise
        # One call at a time from its turn to its frame's write, so that the
        # steps of an episode reach the server in the order of their turns.
        with self._send_lock:
            call, req_id, ws = self._register(method, params, closing_ok)
            if ws is not None:
                self._send(ws, [call])
        return call.future

    def _register(self, method: str, params: Optional[Dict[str, Any]],
                  closing_ok: bool) -> Tuple[_Call, int, Optional[WebSocket]]:
        """Numbers a call (a step's turn too), encodes it and puts it among
        the calls waiting for replies; returns it, its id and the connection
        to send it on (None: it waits for the next one)."""
        with self._lock:
            req_id = next(self._ids)
            if self._error is None and not (self._closed and not closing_ok):
                params = step_turn(self._turns, method, params)
        try:
            frame = encode_request(req_id, method, params)  # before registering: a ValueError leaves nothing behind
        except ValueError:
            self._observe(method, params, None, INVALID_PARAMS)  # gives the step's turn back
            raise
        call = _Call(method, params, frame, Future())
        with self._lock:
            if self._closed and not closing_ok:
                call.future = _failed(ConnectionClosed(f"{method}: client closed"))
                return call, req_id, None
            if self._error is not None:
                call.future = _failed(ConnectionClosed(f"{method}: {self._error}"))
                return call, req_id, None
            self._pending[req_id] = call
            call.conn = ws = self._ws
            if ws is None:
                self._queue[req_id] = call
        call.future.add_done_callback(lambda f: self._abandon(req_id, f))
        return call, req_id, ws

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Sends one request and waits for its result (see :meth:`call_async`).

        Raises :class:`CallTimeout` when no reply came within ``timeout``
        (default: the client's); the call is then given up, but the
        server may still have run it.
        """
        return self._wait(self.call_async(method, params), method, timeout)

    def _send(self, ws: WebSocket, calls: List[_Call]) -> None:
        """Writes the calls' frames on ws; a failed write is a lost connection."""
        for call in calls:
            try:
                ws.send_text(call.frame)
            except (OSError, TransportError) as e:
                self._lost(ws, ConnectionClosed(f"send: {e}"))
                return

    # Whoever takes a request out of _pending settles its Future: a reader
    # with the reply (_dispatch), _lost or _fail with an error, or _abandon
    # for a cancelled Future. So each Future is settled once, and a reply
    # that comes after a cancel is dropped.

    def _take(self, req_id: int) -> bool:
        """Removes req_id from _pending; False when another holder took it first."""
        with self._lock:
            return self._pending.pop(req_id, None) is not None

    def _abandon(self, req_id: int, fut: Future) -> None:
        """Forgets the request of a cancelled Future, whose reply is then dropped."""
        if fut.cancelled() and self._take(req_id):
            fut.set_running_or_notify_cancel()  # wakes concurrent.futures.wait on it

    def _observe(self, method: str, params: Any, result: Any, code: Optional[int]) -> None:
        """Keeps the episodes' turns up to date from a call's final outcome."""
        with self._lock:
            observe(self._turns, method, params, result, code)

    def _close_orphan(self, reply: Any) -> None:
        """Closes the episode of an ``episode.reset`` reply that came after
        its caller gave up, which would otherwise idle until the server's
        --idle-timeout. Runs where the reply completed: a reader thread,
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

    # --- connections and their readers --------------------------------------

    def _attach(self, ws: WebSocket) -> None:
        """Makes ws the connection new calls go to, with a reader of its own."""
        reader = threading.Thread(target=self._read_loop, args=(ws,), name="sqlgym-client-reader", daemon=True)
        with self._lock:
            self._ws, self._conns[ws] = ws, reader
        reader.start()

    @property
    def _reader(self) -> Optional[threading.Thread]:
        """The reader of the current connection (tests look at it)."""
        with self._lock:
            return self._conns.get(self._ws) if self._ws is not None else None

    def _read_loop(self, ws: WebSocket) -> None:
        err: Optional[TransportError] = None
        try:
            while True:
                msg = ws.recv_message()
                if msg is None:
                    break
                self._dispatch(msg, ws)
        except TransportError as e:
            err = e
        except OSError as e:
            err = ConnectionClosed(f"connection lost: {e}")
        except Exception as e:  # a bug here must still release every waiter
            ws.close(1011)
            err = TransportError(f"client reader failed: {e!r}")
        if ws.close_code is not None:
            self._close_code = ws.close_code
        if err is None:
            reason = f": {ws.close_reason}" if ws.close_reason else ""
            err = ConnectionClosed(f"connection closed by the server (code {ws.close_code}{reason})")
            if ws.close_code in FATAL_CLOSE_CODES:
                err = TransportError(str(err))  # not worth reconnecting
        self._lost(ws, err)

    def _dispatch(self, msg: str, ws: Optional[WebSocket] = None) -> None:
        for req_id, item in replies(msg):
            with self._lock:
                call = self._pending.get(req_id)
                if call is None:
                    continue
                try:
                    result, error = result_of(item, call.method), None
                except SQLGymError as e:
                    result, error = None, e
                if isinstance(error, RPCError) and self._again(call, error):
                    self._wait_for_conn(req_id, call)
                    self._retire(ws)
                    continue
                del self._pending[req_id]
                self._settling += 1
                if ws is not None and ws is self._ws:
                    self._attempt = 0  # this connection answers: the next drop starts from the first wait
                observe(self._turns, call.method, call.params, result,
                        error.code if isinstance(error, RPCError) else None)
            try:
                _settle(call.future, result=result, exc=error)
            finally:
                with self._lock:
                    self._settling -= 1
                    self._settled.notify_all()
        self._after_dispatch(ws)

    def _after_dispatch(self, ws: Optional[WebSocket]) -> None:
        """Sends the calls waiting for a connection, when one is up, and
        closes ws once it is retired and answered every call sent on it."""
        with self._lock:
            current = self._ws
            queued = self._queued(current) if current is not None else []
            idle = ws is not None and ws is not current and not any(c.conn is ws for c in self._pending.values())
        if queued:
            self._send(current, queued)  # type: ignore[arg-type]
        if idle:
            ws.close(1000)  # type: ignore[union-attr]

    def _again(self, call: _Call, error: RPCError) -> bool:
        """True when call is to be sent again on another connection (held: _lock)."""
        if not retry_elsewhere(call.method, error.code) or not self._resumes():
            return False
        now = time.monotonic()
        call.since = call.since if call.since is not None else now
        if now - call.since >= self.reconnect_timeout:
            return False  # it persisted: the caller gets the error
        return True

    def _retire(self, ws: Optional[WebSocket]) -> None:
        """Sends no more calls on ws, and reconnects (held: _lock). ws stays
        open until it answered the calls sent on it."""
        if ws is not None and ws is self._ws:
            self._ws = None
            self._redial()

    def _resumes(self) -> bool:
        return self.reconnect_timeout > 0 and not self._stop.is_set() and self._error is None

    def _wait_for_conn(self, req_id: int, call: _Call) -> None:
        """Puts call among those waiting for a connection (held: _lock)."""
        call.conn = None
        self._queue[req_id] = call

    def _queued(self, ws: WebSocket) -> List[_Call]:
        """The calls waiting for a connection, in the order they were made,
        now given to ws (held: _lock)."""
        out = [c for i, c in sorted(self._queue.items()) if self._pending.get(i) is c]
        self._queue.clear()
        for c in out:
            c.conn = ws
        return out

    # --- losing a connection, and reconnecting ------------------------------

    def _lost(self, ws: WebSocket, err: TransportError) -> None:
        """ws has ended: the calls sent on it wait for the next connection,
        or fail when they cannot be resumed."""
        with self._lock:
            if self._conns.pop(ws, None) is None:
                return  # seen already
            if self._ws is ws:
                self._ws = None
            resume = self._resumes() and type(err) is ConnectionClosed
            if resume:
                failed = self._sort_out(ws, err)
                if self._ws is None:
                    self._redial()
        ws.abort()
        if not resume:
            self._fail(err)
            return
        for call, exc in failed:
            _settle(call.future, exc=exc)
        self._after_dispatch(None)

    def _sort_out(self, ws: WebSocket, err: TransportError) -> List[Tuple[_Call, Exception]]:
        """Marks the calls sent on ws to be sent again, and takes out the
        ones that cannot be, with their errors (held: _lock)."""
        now, failed = time.monotonic(), []
        for req_id, call in list(self._pending.items()):
            if call.conn is not ws:
                continue
            if resendable(call.method, call.params):
                call.since = call.since if call.since is not None else now
                if now - call.since < self.reconnect_timeout:
                    self._wait_for_conn(req_id, call)
                    continue
            del self._pending[req_id]
            failed.append((call, self._lost_error(call, err)))
        return failed

    def _lost_error(self, call: _Call, err: TransportError) -> Exception:
        """The error of a call sent on a connection that was lost."""
        if resendable(call.method, call.params):
            return ConnectionClosed(f"{call.method}: {err}; sent again for {self.reconnect_timeout}s "
                                    "(reconnect_timeout) without a reply", err.status)
        episode_id = call.params.get("episode_id") if isinstance(call.params, dict) else None
        return ReplyLost(f"{call.method}: the connection dropped before the reply came ({err}); the server may "
                         "have run it, and the step carried no turn to send it again with", call.method, episode_id)

    def _redial(self) -> None:
        """Starts the thread that reconnects, unless one runs (held: _lock)."""
        if self._redialing:
            return
        self._redialing = True
        threading.Thread(target=self._reconnect, name="sqlgym-client-reconnect", daemon=True).start()

    def _reconnect(self) -> None:
        """Dials the URL again, waiting longer each time, until a connection
        is up or reconnect_timeout has passed (then the client fails)."""
        deadline = time.monotonic() + self.reconnect_timeout
        while True:
            with self._lock:
                wait, self._attempt = backoff(self._attempt), self._attempt + 1
            if self._stop.wait(min(wait, max(deadline - time.monotonic(), 0))):
                break
            try:
                ws = connect_websocket(self.url, self._headers, self._connect_timeout, self._max_frame_bytes)
            except TransportError as e:
                if e.status in FATAL_STATUSES or time.monotonic() >= deadline:
                    self._fail(ConnectionClosed(f"connection lost, and reconnecting failed for "
                                                f"{self.reconnect_timeout}s: {e}", e.status))
                    return
                continue
            with self._send_lock:  # the calls waiting go out before any new one
                with self._lock:
                    if self._stop.is_set():
                        ws.abort()
                        break
                    self._redialing, self.reconnects = False, self.reconnects + 1
                self._attach(ws)
                self._after_dispatch(None)
            return
        with self._lock:
            self._redialing = False

    def _fail(self, err: TransportError) -> None:
        """Ends the client for good: every call waiting fails with err."""
        with self._lock:
            self._error = self._error or err
            self._redialing = False
            calls, self._pending = list(self._pending.values()), {}
            self._queue.clear()
            conns = list(self._conns)
        self._stop.set()
        for call in calls:
            _settle(call.future, exc=ConnectionClosed(f"{call.method}: {err}", err.status))
        for ws in conns:
            ws.abort()

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
                in_flight = [c.future for c in self._pending.values()]
            left = deadline - time.monotonic()
            if not in_flight or left <= 0:
                break
            _wait_futures(in_flight, timeout=left)
        self._stop.set()
        with self._lock:
            conns = list(self._conns.items())
        for ws, _ in conns:
            ws.close(1000)
        for ws, reader in conns:
            reader.join(max(deadline - time.monotonic(), 0.1))
            if reader.is_alive():
                ws.abort()
                reader.join(timeout)
        self._fail(ConnectionClosed("client closed"))

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



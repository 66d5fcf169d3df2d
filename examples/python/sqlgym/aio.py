"""The asyncio client of the sqlgym protocol, standard library only.

:class:`AsyncClient` has the blocking :class:`~sqlgym.Client`'s methods
as coroutines, with the same names and keyword arguments. It holds one
WebSocket; any number of calls may be in flight on it, from any number of
tasks, and replies are matched to callers by id::

    async with AsyncClient("ws://127.0.0.1:8765/v1/ws") as client:
        r = await client.reset(task_id="demo/library-001")
        s = await client.step(r["episode_id"], tool="execute_sql", arguments={"sql": "SELECT 1"})

The client resumes (docs/protocol.md, "Clients that resume"). It sends
every step of an episode it started with the step's ``turn``. When the
connection drops, or the server answers ``EPISODE_ELSEWHERE`` (or
``DRAINING`` to a reset), it reconnects to the same URL (through a load
balancer: to a live replica), waiting 50 ms at first and doubling up to
2 s, with jitter, for at most ``reconnect_timeout`` seconds, and sends
again every call that had no reply: a step keeps its turn, so the server
runs it once (a turn it recorded is answered from the record, with
``info["replayed"]``); a reset whose reply was lost is sent as a new
reset. Only a step with no turn (of an episode this client never saw
start) whose reply was lost fails, with :class:`~sqlgym.errors.ReplyLost`:
the server may have run it; ``get(episode_id)`` shows the steps it
recorded.
"""

from __future__ import annotations

import asyncio
import itertools
import ssl
import urllib.parse
from dataclasses import dataclass
from typing import Any, AsyncIterator, Dict, List, Optional, Set, Union

from .errors import (DEFAULT_URL, INVALID_PARAMS, CallTimeout, ConnectionClosed, ReplyLost, RPCError, SQLGymError,
                     TransportError)
from .jsonrpc import drop_none, encode_request, replies, reset_params, result_of, step_params
from .resume import (BACKOFF_START, FATAL_CLOSE_CODES, FATAL_STATUSES, Turns, backoff, observe, resendable,
                     retry_elsewhere, step_turn)
from .websocket import (MAX_HEADERS, OP_CLOSE, OP_PONG, OP_TEXT, FrameError, FrameRules, add_header,
                        body_length, check_upgrade, close_payload, encode_frame, handshake_request,
                        parse_status, refused, split_ws_url)

__all__ = ["AsyncClient"]

class _NotSent(ConnectionClosed):
    """The frame did not leave: the connection was gone before it was written whole."""


class _Conn:
    """One WebSocket connection over asyncio streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_frame_bytes: int):
        self.reader, self.writer = reader, writer
        self.rules = FrameRules(max_frame_bytes)
        self.lock = asyncio.Lock()  # one frame written, and drained, at a time
        self.close_sent = False
        self.close_code: Optional[int] = None
        self.close_reason = ""
        self.ended = asyncio.Event()
        """Set once the reader has seen the connection end."""

    async def send(self, opcode: int, payload: bytes) -> None:
        """Writes one frame; raises _NotSent when none of it can have
        reached the server, ConnectionClosed or OSError when it may have."""
        async with self.lock:
            if self.close_sent:
                raise ConnectionClosed("websocket: close frame already sent")
            transport = self.writer.transport
            if transport.is_closing():
                raise _NotSent("websocket: connection closing")
            self.close_sent = opcode == OP_CLOSE
            self.writer.write(encode_frame(opcode, payload))
            if transport.is_closing():  # the write itself failed: the frame did not leave
                raise _NotSent("websocket: connection lost while writing")
            whole = transport.get_write_buffer_size() == 0
            try:
                await self.writer.drain()
            except (OSError, ConnectionClosed) as e:
                if not whole:  # the frame's tail was still buffered when the connection failed
                    raise _NotSent(f"websocket: {e!r}") from None
                raise

    async def close(self, code: int = 1000) -> None:
        try:
            await self.send(OP_CLOSE, close_payload(code))
        except (ConnectionClosed, OSError):
            pass

    def abort(self) -> None:
        """Drops the connection without a handshake, as a failing network would."""
        self.writer.transport.abort()

    async def recv(self) -> Optional[str]:
        """The next text message; None once the peer's close frame came.
        Answers pings; raises TransportError on a violation (after sending
        its close code) and ConnectionClosed when the stream ends."""
        try:
            while True:
                event = self.rules.frame(*await self._read_frame())
                if event is None or event[0] == "pong":
                    continue
                if event[0] == "text":
                    return event[1]
                if event[0] == "ping":
                    try:
                        await self.send(OP_PONG, event[1])
                    except ConnectionClosed:
                        pass
                    continue
                _, self.close_code, self.close_reason = event
                await self.close(self.close_code if self.close_code != 1005 else 1000)
                return None
        except FrameError as e:
            await self.close(e.code)
            raise TransportError(str(e)) from None
        except (asyncio.IncompleteReadError, OSError) as e:
            raise ConnectionClosed(f"websocket: connection ended without a close frame ({e!r})") from None

    async def _read_frame(self) -> Any:
        b0, b1 = await self.reader.readexactly(2)
        fin, opcode, n = self.rules.header(b0, b1)
        if n == 126:
            n = int.from_bytes(await self.reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await self.reader.readexactly(8), "big")
        n = self.rules.check_length(n)
        return fin, opcode, (await self.reader.readexactly(n)) if n else b""


async def _dial(parts: urllib.parse.SplitResult, headers: Dict[str, str], max_frame_bytes: int) -> _Conn:
    """Opens the TCP (or TLS) connection and runs the opening handshake."""
    secure = parts.scheme == "wss"
    host = parts.hostname or "127.0.0.1"
    try:
        reader, writer = await asyncio.open_connection(
            host, parts.port or (443 if secure else 80),
            ssl=ssl.create_default_context() if secure else None, limit=1 << 16)
    except OSError as e:
        raise TransportError(f"connect {parts.geturl()}: {e}") from None
    try:
        request, key = handshake_request(parts, headers)
        writer.write(request)
        status, reason = parse_status(await reader.readline())
        got: Dict[str, str] = {}
        for _ in range(MAX_HEADERS):
            if not add_header(got, await reader.readline()):
                break
        else:
            raise TransportError("websocket handshake: too many response headers")
        if status != 101:
            n = body_length(got)
            raise refused(status, reason, await reader.read(n) if n else b"")
        check_upgrade(got, key)
    except BaseException as e:
        writer.transport.abort()
        if isinstance(e, (OSError, asyncio.IncompleteReadError, ValueError)):
            raise TransportError(f"websocket handshake: {e}") from None
        raise
    return _Conn(reader, writer, max_frame_bytes)


@dataclass
class _Call:
    """A request waiting for its reply."""

    method: str
    params: Any
    frame: bytes
    future: "asyncio.Future[Any]"
    episode_id: Optional[str] = None
    conn: Optional[_Conn] = None
    """The connection it was sent on; None while it waits to be (re)sent."""
    orphaned: bool = False
    """A reset whose caller gave up: its episode is closed when the reply comes."""
    resend: bool = False
    """Sent on a connection that dropped, to be sent again on the next."""
    writing: bool = False
    """Its frame is being written: the writer settles it if the connection drops."""
    since: Optional[float] = None
    """When it first had to be sent again: it is, until reconnect_timeout later."""


class AsyncClient:
    """An asyncio connection to a sqlgym server over one WebSocket.

    Open it with ``await AsyncClient.connect(url, token=None)`` or
    ``async with AsyncClient(url, token=None) as client``; close it with
    :meth:`aclose`. ``url`` is ``ws://`` or ``wss://`` (a URL without a
    path gets ``/v1/ws``); ``token`` is sent as ``Authorization: Bearer``;
    ``timeout`` bounds each call in seconds (the time spent reconnecting
    included). JSON-RPC errors raise :class:`~sqlgym.RPCError`, whose
    ``code`` is one of the package's code constants. See the module's
    docstring for what happens when the connection drops:
    ``reconnect_timeout`` (0: never reconnect) bounds the time spent
    reconnecting and sending a call again, ``reconnect_delay`` is the
    first wait, and ``reconnect_attempts``, when given, also bounds the
    tries of one reconnect.
    """

    def __init__(self, url: str = DEFAULT_URL, token: Optional[str] = None, timeout: float = 60.0, *,
                 connect_timeout: float = 10.0, max_frame_bytes: int = 64 << 20,
                 reconnect_timeout: float = 60.0, reconnect_attempts: Optional[int] = None,
                 reconnect_delay: float = BACKOFF_START):
        if reconnect_timeout < 0:
            raise ValueError(f"reconnect_timeout must be 0 (never reconnect) or more, got {reconnect_timeout}")
        self.url = url
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.reconnect_timeout = reconnect_timeout
        self.reconnect_attempts = reconnect_attempts
        self.reconnect_delay = reconnect_delay
        self._attempt = 0  # reconnects in a row with no answer between them
        self._turns = Turns()
        self.reconnects = 0
        """How many times the client reconnected after a drop."""
        self._parts = split_ws_url(url)
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._max_frame_bytes = max_frame_bytes
        self._ids = itertools.count(1)
        self._pending: Dict[int, _Call] = {}
        self._live: Set[str] = set()
        self._conn: Optional[_Conn] = None
        self._ready: Optional[asyncio.Event] = None  # set while a connection is up, or for good once failed
        self._error: Optional[TransportError] = None
        self._closing = False
        self._close_code: Optional[int] = None
        self._tasks: Set["asyncio.Task[Any]"] = set()

    @classmethod
    async def connect(cls, url: str = DEFAULT_URL, token: Optional[str] = None, **kwargs: Any) -> "AsyncClient":
        """A connected client; raises :class:`~sqlgym.TransportError` when
        the server cannot be reached or refuses (``status`` 401 for a token)."""
        client = cls(url, token, **kwargs)
        await client._open()
        return client

    async def __aenter__(self) -> "AsyncClient":
        await self._open()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` began or the connection was lost for good."""
        return self._closing or self._error is not None

    @property
    def live_episodes(self) -> List[str]:
        """Episodes this client started that have not ended as far as it knows."""
        return sorted(self._live)

    async def _open(self) -> None:
        if self._ready is not None:
            raise RuntimeError("AsyncClient: already connected")
        self._ready = asyncio.Event()
        self._attach(await self._dial())

    async def _dial(self) -> _Conn:
        try:
            return await asyncio.wait_for(_dial(self._parts, self._headers, self._max_frame_bytes),
                                          self.connect_timeout)
        except asyncio.TimeoutError:
            raise TransportError(f"connect {self.url}: no answer within {self.connect_timeout}s") from None

    def _attach(self, conn: _Conn) -> None:
        self._conn = conn
        self._spawn(self._read_loop(conn))
        assert self._ready is not None
        self._ready.set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- calls -------------------------------------------------------------

    async def call(self, method: str, params: Optional[Dict[str, Any]] = None,
                   timeout: Optional[float] = None) -> Any:
        """Sends one request and returns its result.

        Raises :class:`~sqlgym.RPCError` for a JSON-RPC error,
        :class:`~sqlgym.CallTimeout` when no reply came within ``timeout``
        (default: the client's; the server may still run the call), and
        ValueError, sending nothing, when JSON cannot carry ``params``.
        """
        if self._ready is None:
            raise RuntimeError("AsyncClient: not connected (use AsyncClient.connect or async with)")
        if self.closed:
            raise ConnectionClosed(f"{method}: client closed" + (f" ({self._error})" if self._error else ""))
        req_id = next(self._ids)
        params = step_turn(self._turns, method, params)
        try:
            frame = encode_request(req_id, method, params)
        except ValueError:
            observe(self._turns, method, params, None, INVALID_PARAMS)  # gives the step's turn back
            raise
        episode_id = params.get("episode_id") if isinstance(params, dict) else None
        call = _Call(method, params, frame, asyncio.get_running_loop().create_future(), episode_id)
        self._pending[req_id] = call
        limit = self.timeout if timeout is None else timeout
        try:
            return await asyncio.wait_for(self._send_and_wait(req_id, call), limit)
        except asyncio.TimeoutError:
            raise CallTimeout(f"{method}: no reply within {limit}s (the server may still have run it)") from None
        finally:
            self._forget(req_id, call)

    async def _send_and_wait(self, req_id: int, call: _Call) -> Any:
        await self._send(req_id, call)
        return await asyncio.shield(call.future)

    def _forget(self, req_id: int, call: _Call) -> None:
        """Drops a call that is answered or given up; a reset given up on
        stays, so that the episode of its late reply is closed."""
        if call.future.done() or call.method != "episode.reset" or call.conn is None:
            self._pending.pop(req_id, None)
            if not call.future.done():
                call.future.cancel()
            return
        call.orphaned = True

    async def _send(self, req_id: int, call: _Call) -> None:
        """Sends call once a connection is up, waiting out a reconnect; a
        frame that never left goes out on the next connection."""
        assert self._ready is not None
        while True:
            await self._ready.wait()
            conn = self._conn
            if self._error is not None:
                raise ConnectionClosed(f"{call.method}: {self._error}")
            if conn is None:
                if self._closing:
                    raise ConnectionClosed(f"{call.method}: client closed")
                # The event was set when this wait ended, and a connection
                # was retired (a -32007) before this task ran: wait for
                # the reconnect that retiring began.
                continue
            call.conn, call.writing = conn, True
            try:
                await conn.send(OP_TEXT, call.frame)
                return
            except _NotSent:
                call.conn = None
                await conn.ended.wait()  # until the reader has seen the drop, and reconnecting began
                continue
            except (OSError, ConnectionClosed) as e:
                if conn.ended.is_set() and req_id in self._pending:  # the reader settled the others already
                    self._lost(req_id, call, ConnectionClosed(f"send: {e!r}"))
                return
            finally:
                call.writing = False

    # --- the reader and reconnecting ----------------------------------------

    async def _read_loop(self, conn: _Conn) -> None:
        err: Optional[TransportError] = None
        try:
            while True:
                msg = await conn.recv()
                if msg is None:
                    break
                self._dispatch(msg, conn)
        except TransportError as e:
            err = e
        except Exception as e:  # a bug here must still release every waiter
            err = TransportError(f"client reader failed: {e!r}")
        self._close_code = conn.close_code
        if err is None:
            reason = f": {conn.close_reason}" if conn.close_reason else ""
            err = ConnectionClosed(f"connection closed by the server (code {conn.close_code}{reason})")
            if conn.close_code in FATAL_CLOSE_CODES:
                err = TransportError(str(err))  # not worth reconnecting
        conn.abort()
        self._dropped(conn, err)
        conn.ended.set()

    def _dispatch(self, msg: str, conn: Optional[_Conn] = None) -> None:
        for req_id, item in replies(msg):
            call = self._pending.get(req_id)
            if call is None or call.future.done():
                continue
            try:
                result = result_of(item, call.method)
            except SQLGymError as e:
                result, error = None, e
            else:
                error = None
                self._track(call, result)
            if isinstance(error, RPCError) and self._again(call, error):
                self._retire(conn, error)
                self._requeue(req_id, call)
                continue
            if conn is not None and conn is self._conn:
                self._attempt = 0  # this connection answers: the next drop starts from the first wait
            observe(self._turns, call.method, call.params, result, error.code if isinstance(error, RPCError) else None)
            if call.orphaned:
                self._pending.pop(req_id, None)
                call.future.cancel()
                if error is None:
                    self._close_orphan(result)
            elif error is not None:
                call.future.set_exception(error)
            else:
                call.future.set_result(result)
        self._after_dispatch(conn)

    def _after_dispatch(self, conn: Optional[_Conn]) -> None:
        """Closes a retired connection once it answered every call sent on it."""
        if conn is not None and conn is not self._conn and not conn.ended.is_set() and \
                not any(c.conn is conn for c in self._pending.values()):
            self._spawn(conn.close(1000))

    def _resumes(self) -> bool:
        return self.reconnect_timeout > 0 and not self._closing and self._error is None

    def _again(self, call: _Call, error: RPCError) -> bool:
        """True when call is to be sent again on another connection."""
        if call.orphaned or not retry_elsewhere(call.method, error.code) or not self._resumes():
            return False
        now = asyncio.get_running_loop().time()
        call.since = call.since if call.since is not None else now
        return now - call.since < self.reconnect_timeout  # else it persisted: the caller gets the error

    def _retire(self, conn: Optional[_Conn], err: SQLGymError) -> None:
        """Sends no more calls on conn, and reconnects; conn stays open
        until it answered the calls sent on it."""
        if conn is None or conn is not self._conn:
            return
        assert self._ready is not None
        self._ready.clear()
        self._conn = None
        self._spawn(self._reconnect(ConnectionClosed(str(err))))

    def _requeue(self, req_id: int, call: _Call) -> None:
        """Sends call again on the current connection, or on the next one."""
        call.conn, call.resend = None, True
        if self._ready is not None and self._ready.is_set() and self._conn is not None:
            call.resend = False
            self._spawn(self._quietly(self._send(req_id, call)))

    def _track(self, call: _Call, result: Any) -> None:
        """Keeps live_episodes up to date from a reply."""
        if not isinstance(result, dict):
            return
        if call.method == "episode.reset" and isinstance(result.get("episode_id"), str):
            self._live.add(result["episode_id"])
        elif call.method == "episode.close" or (
                call.method == "episode.step" and (result.get("terminated") or result.get("truncated"))):
            self._live.discard(call.episode_id or "")

    def _close_orphan(self, reply: Any) -> None:
        """Closes the episode of a reset reply whose caller gave up."""
        if isinstance(reply, dict) and isinstance(reply.get("episode_id"), str):
            self._spawn(self._quietly(self.close_episode(reply["episode_id"])))

    @staticmethod
    async def _quietly(coro: Any) -> None:
        try:
            await coro
        except (SQLGymError, asyncio.CancelledError):
            pass

    def _dropped(self, conn: _Conn, err: TransportError) -> None:
        """A connection is gone: settles what cannot be sent again, and
        reconnects when it was the current one."""
        assert self._ready is not None
        current = self._conn is conn
        resume = self._resumes() and type(err) is ConnectionClosed
        if current:
            self._ready.clear()
            self._conn = None
        for req_id, call in list(self._pending.items()):
            if call.conn is conn and not call.writing:  # a call being written is settled by its writer
                self._lost(req_id, call, err)
        if not resume and (current or not self._resumes()):
            self._fail(err)
        elif current:
            self._spawn(self._reconnect(err))

    def _lost(self, req_id: int, call: _Call, err: TransportError) -> None:
        """Settles a call sent on a connection that dropped: one that may
        run twice waits to be sent again, another fails with ReplyLost."""
        if call.future.done():
            return
        if not call.orphaned and resendable(call.method, call.params) and self._resumes() and \
                type(err) is ConnectionClosed:
            now = asyncio.get_running_loop().time()
            call.since = call.since if call.since is not None else now
            if now - call.since < self.reconnect_timeout:
                self._requeue(req_id, call)
                return
        self._pending.pop(req_id, None)
        if call.orphaned:
            call.future.cancel()
            return
        if resendable(call.method, call.params):
            call.future.set_exception(ConnectionClosed(f"{call.method}: {err}", err.status))
            return
        call.future.set_exception(ReplyLost(
            f"{call.method}: the connection dropped before the reply came ({err}); the server may have run it, "
            "and the step carried no turn to send it again with"
            + (f": get({call.episode_id!r}) shows the steps it recorded" if call.episode_id else ""),
            call.method, call.episode_id))

    async def _reconnect(self, err: TransportError) -> None:
        """Dials the URL again, waiting longer each time, until a connection
        is up or reconnect_timeout has passed (then the client fails)."""
        loop = asyncio.get_running_loop()
        deadline, tries = loop.time() + self.reconnect_timeout, 0
        while not self._closing:
            wait = backoff(self._attempt, self.reconnect_delay)
            self._attempt += 1
            await asyncio.sleep(min(wait, max(deadline - loop.time(), 0)))
            if self._closing:
                return
            try:
                conn = await self._dial()
            except TransportError as e:
                err, tries = e, tries + 1
                if e.status in FATAL_STATUSES or loop.time() >= deadline or tries == self.reconnect_attempts:
                    break
                continue
            if self._closing:
                conn.abort()
                return
            self.reconnects += 1
            self._attach(conn)
            for req_id, call in list(self._pending.items()):
                if call.resend and not call.future.done():
                    call.resend = False
                    self._spawn(self._quietly(self._send(req_id, call)))
            return
        if not self._closing:
            self._fail(ConnectionClosed(f"connection lost, and {tries} reconnects failed within "
                                        f"{self.reconnect_timeout}s: {err}", err.status))

    def _fail(self, err: TransportError) -> None:
        """Ends the client for good: every call fails with err."""
        assert self._ready is not None
        self._error = self._error or err
        for call in self._pending.values():
            if call.orphaned:
                call.future.cancel()
            elif not call.future.done():
                call.future.set_exception(ConnectionClosed(f"{call.method}: {err}", err.status))
        self._pending.clear()
        self._ready.set()

    # --- closing -----------------------------------------------------------

    async def aclose(self, timeout: float = 5.0) -> None:
        """Waits up to ``timeout`` for calls in flight (and the closes of
        orphaned resets), then runs the close handshake. Later calls fail
        with :class:`~sqlgym.ConnectionClosed`. Closing twice does nothing."""
        if self._closing or self._ready is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._pending and loop.time() < deadline and self._error is None:
            futures = [c.future for c in self._pending.values()]
            await asyncio.wait(futures, timeout=deadline - loop.time())
            await asyncio.sleep(0)  # lets the closes of orphaned resets be sent
        self._closing = True
        conn = self._conn
        if conn is not None:
            await conn.close(1000)
            readers = [t for t in self._tasks if not t.done()]
            if readers:
                await asyncio.wait(readers, timeout=max(deadline - loop.time(), 0.1))
            conn.abort()
        for task in list(self._tasks):
            task.cancel()
        self._fail(ConnectionClosed("client closed"))

    @property
    def close_code(self) -> Optional[int]:
        """The code of the server's close frame (1000 after a clean close)."""
        return self._close_code

    # --- methods -----------------------------------------------------------

    async def info(self) -> Dict[str, Any]:
        """``server.info``: name, version, protocol, datasets, tools, reward spec, limits."""
        return await self.call("server.info")

    async def tasks(self, dataset: Optional[str] = None, offset: int = 0, limit: int = 100) -> Dict[str, Any]:
        """``tasks.list``: one page ``{tasks: [...], total}``; gold answers are never listed."""
        return await self.call("tasks.list", drop_none(dataset=dataset, offset=offset, limit=limit))

    async def iter_tasks(self, dataset: Optional[str] = None, page: int = 1000) -> AsyncIterator[Dict[str, Any]]:
        """Every task of ``dataset`` (or of all datasets), page by page."""
        offset = 0
        while True:
            got = await self.tasks(dataset, offset, page)
            for task in got["tasks"]:
                yield task
            offset += len(got["tasks"])
            if not got["tasks"] or offset >= got["total"]:
                return

    async def reset(self, task_id: Optional[str] = None, dataset: Optional[str] = None,
                    seed: Optional[int] = None, max_turns: Optional[int] = None,
                    action_format: Optional[str] = None, reward: Optional[Union[str, Dict[str, Any]]] = None,
                    tags: Optional[Dict[str, Any]] = None, *, prompt_style: Optional[str] = None) -> Dict[str, Any]:
        """``episode.reset``: starts an episode; see :meth:`sqlgym.Client.reset`.
        If the caller gives up (a timeout, a cancel) and the reply comes
        later, the client closes that episode."""
        return await self.call("episode.reset", reset_params(task_id, dataset, seed, max_turns, action_format,
                                                             reward, tags, prompt_style=prompt_style))

    async def step(self, episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
                   arguments: Optional[Dict[str, Any]] = None,
                   completion_tokens: Optional[int] = None, *, message: Any = None,
                   prompt_tokens: Optional[int] = None, finish_reason: Optional[str] = None) -> Dict[str, Any]:
        """``episode.step``: one turn, the model's whole completion (``text``),
        a parsed call (``tool``, ``arguments``), or its reply as an assistant
        message (``message``, whose calls all run, answered one tool message
        each in ``observations``); see :meth:`sqlgym.Client.step`. Bad SQL
        and unparseable text are observations, not exceptions."""
        return await self.call("episode.step", step_params(episode_id, text, tool, arguments, completion_tokens,
                                                           message=message, prompt_tokens=prompt_tokens,
                                                           finish_reason=finish_reason))

    async def close_episode(self, episode_id: str) -> Dict[str, Any]:
        """``episode.close``: ends (as ``no_submit`` if still running) and
        records the episode; returns its summary."""
        return await self.call("episode.close", {"episode_id": episode_id})

    async def get(self, episode_id: str) -> Dict[str, Any]:
        """``episode.get``: the trajectory record of a live or recently ended episode."""
        return await self.call("episode.get", {"episode_id": episode_id})

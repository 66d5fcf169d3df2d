"""Python client of the sqlgym protocol (sqlgym/1), standard library only.

sqlgym serves text-to-SQL episodes over JSON-RPC 2.0, on a WebSocket
(``ws://host:8765/v1/ws``) or as plain HTTP (``http://host:8765/v1/rpc``).
This module is the whole client: copy it next to your training code, no
package to install.

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

The WebSocket side implements the part of RFC 6455 a client needs: the
opening handshake with its ``Sec-WebSocket-Accept`` check, masked text
frames, fragmented messages, ping answered by pong, the close handshake,
and a bound on frame and message size.

Example::

    with Client("ws://127.0.0.1:8765/v1/ws") as client:
        env = SQLEnv(client, task_id="demo/library-001")
        messages, info = env.reset()
        obs, reward, terminated, truncated, info = env.step(completion)
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import socket
import ssl
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

__all__ = [
    "PROTOCOL", "DEFAULT_URL",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "EPISODE_NOT_FOUND", "EPISODE_ENDED", "CAPACITY_REACHED", "NOT_FOUND", "EPISODE_BUSY",
    "SQLGymError", "RPCError", "TransportError", "ConnectionClosed", "CallTimeout",
    "WebSocket", "connect_websocket", "Client", "SQLEnv", "Rollout", "run_batch",
]

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

_USER_AGENT = "sqlgym-python/1"
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_OP_CONT, _OP_TEXT, _OP_BINARY = 0x0, 0x1, 0x2
_OP_CLOSE, _OP_PING, _OP_PONG = 0x8, 0x9, 0xA


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


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` value a server must answer to ``key``."""
    digest = hashlib.sha1((key + _GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def _mask(payload: bytes, key: bytes) -> bytes:
    """XORs payload with the 4-byte key repeated (RFC 6455 section 5.3)."""
    n = len(payload)
    if n == 0:
        return b""
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")


def encode_frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    """One frame as bytes; clients mask every frame they send."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    n = len(payload)
    if n < 126:
        head.append(bit | n)
    elif n < 1 << 16:
        head.append(bit | 126)
        head += n.to_bytes(2, "big")
    else:
        head.append(bit | 127)
        head += n.to_bytes(8, "big")
    if not mask:
        return bytes(head) + payload
    key = os.urandom(4)
    return bytes(head) + key + _mask(payload, key)


class WebSocket:
    """The client end of one WebSocket connection (RFC 6455).

    One thread reads (:meth:`recv_message`); any thread may send: writes
    are serialized by a lock. Pings are answered inside ``recv_message``.
    """

    def __init__(self, sock: socket.socket, rfile: Any = None, max_frame_bytes: int = 64 << 20):
        self._sock = sock
        self._rfile = rfile if rfile is not None else sock.makefile("rb")
        self._wlock = threading.Lock()
        self.max_frame_bytes = max_frame_bytes
        self.close_sent = False
        self.close_code: Optional[int] = None
        """The code of the peer's close frame, once one arrived."""
        self.close_reason = ""

    def send_text(self, text: Union[str, bytes]) -> None:
        """Sends one text message in a single masked frame; ``text`` may
        be given already encoded as UTF-8."""
        self._send(_OP_TEXT, text if isinstance(text, bytes) else text.encode("utf-8"))

    def _send(self, opcode: int, payload: bytes) -> None:
        frame = encode_frame(opcode, payload)
        with self._wlock:
            if self.close_sent:
                raise ConnectionClosed("websocket: close frame already sent")
            if opcode == _OP_CLOSE:
                self.close_sent = True
            self._sock.sendall(frame)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Starts the close handshake; the peer's close frame then ends
        :meth:`recv_message`. Does nothing once a close frame was sent."""
        payload = code.to_bytes(2, "big") + reason.encode("utf-8")[:123]
        try:
            self._send(_OP_CLOSE, payload)
        except (ConnectionClosed, OSError):
            pass

    def abort(self) -> None:
        """Closes the socket without a handshake; a blocked reader wakes up."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        try:
            self._rfile.close()  # the socket's descriptor is released only with its reader
        except (OSError, ValueError):
            pass

    def recv_message(self) -> Optional[str]:
        """Reads the next text message, joining its fragments.

        Returns ``None`` once the peer's close frame arrived (after echoing
        it). Raises :class:`TransportError` on a protocol violation or an
        oversized frame (after sending the matching close frame), and
        :class:`ConnectionClosed` when the socket ends without a close frame.
        """
        parts: List[bytes] = []
        size = 0
        kind: Optional[int] = None
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode >= _OP_CLOSE:
                if self._control(fin, opcode, payload):
                    return None
                continue
            if (opcode == _OP_CONT) != (kind is not None):
                raise self._fail(1002, "websocket: fragment out of sequence")
            kind = opcode if kind is None else kind
            size += len(payload)
            if size > self.max_frame_bytes:
                raise self._fail(1009, f"websocket: message of over {self.max_frame_bytes} bytes")
            parts.append(payload)
            if fin:
                break
        if kind != _OP_TEXT:
            raise self._fail(1003, "websocket: binary message (sqlgym speaks text frames only)")
        try:
            return b"".join(parts).decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail(1007, "websocket: text message is not UTF-8") from None

    def _control(self, fin: bool, opcode: int, payload: bytes) -> bool:
        """Handles a control frame; True when it was the peer's close."""
        if not fin or len(payload) > 125:
            raise self._fail(1002, "websocket: fragmented or oversized control frame")
        if opcode == _OP_PING:
            try:
                self._send(_OP_PONG, payload)
            except ConnectionClosed:
                pass  # closing already: no pong after a close frame
            return False
        if opcode == _OP_PONG:
            return False
        if opcode != _OP_CLOSE:
            raise self._fail(1002, f"websocket: unknown control opcode {opcode:#x}")
        self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        self.close_reason = payload[2:].decode("utf-8", "replace")
        self.close(self.close_code if len(payload) >= 2 else 1000)
        return True

    def _read_frame(self) -> Tuple[bool, int, bytes]:
        b0, b1 = self._read_exact(2)
        if b0 & 0x70:
            raise self._fail(1002, "websocket: reserved bits set (no extension was negotiated)")
        if b1 & 0x80:
            raise self._fail(1002, "websocket: the server sent a masked frame")
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(self._read_exact(2), "big")
        elif n == 127:
            n = int.from_bytes(self._read_exact(8), "big")
        if n > self.max_frame_bytes:
            raise self._fail(1009, f"websocket: frame of {n} bytes exceeds max_frame_bytes={self.max_frame_bytes}")
        return bool(b0 & 0x80), b0 & 0x0F, self._read_exact(n)

    def _read_exact(self, n: int) -> bytes:
        try:
            data = self._rfile.read(n) if n else b""
        except ValueError:  # abort() closed the reader under us
            raise ConnectionClosed("websocket: connection aborted") from None
        if len(data) < n:
            raise ConnectionClosed("websocket: connection ended without a close frame")
        return data

    def _fail(self, code: int, message: str) -> TransportError:
        """Sends a close frame with code and returns the error to raise."""
        self.close(code)
        return TransportError(message)


def _read_http_head(rfile: Any) -> Tuple[int, str, Dict[str, str]]:
    """Reads an HTTP/1.1 status line and headers (names lowercased)."""
    line = rfile.readline(8192).decode("latin-1").rstrip("\r\n")
    parts = line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise TransportError(f"websocket handshake: not an HTTP response: {line[:80]!r}")
    headers: Dict[str, str] = {}
    for _ in range(256):
        raw = rfile.readline(8192).decode("latin-1").rstrip("\r\n")
        if not raw:
            return int(parts[1]), parts[2] if len(parts) > 2 else "", headers
        name, _, value = raw.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    raise TransportError("websocket handshake: too many response headers")


def _open_socket(parts: urllib.parse.SplitResult, timeout: float) -> socket.socket:
    secure = parts.scheme == "wss"
    host = parts.hostname or "127.0.0.1"
    sock = socket.create_connection((host, parts.port or (443 if secure else 80)), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if secure:
        sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    return sock


def connect_websocket(url: str, headers: Optional[Dict[str, str]] = None, timeout: float = 10.0,
                      max_frame_bytes: int = 64 << 20) -> WebSocket:
    """Opens a WebSocket to ``url`` (``ws://`` or ``wss://``).

    Raises :class:`TransportError` when the server refuses the upgrade
    (``status`` holds its HTTP status) or answers a wrong
    ``Sec-WebSocket-Accept``.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        raise ValueError(f"websocket url must start with ws:// or wss://, got {url!r}")
    try:
        sock = _open_socket(parts, timeout)
    except OSError as e:
        raise TransportError(f"connect {url}: {e}") from None
    try:
        rfile = _handshake(sock, parts, headers or {})
    except BaseException:
        sock.close()
        raise
    sock.settimeout(None)
    return WebSocket(sock, rfile, max_frame_bytes)


def _handshake(sock: socket.socket, parts: urllib.parse.SplitResult, headers: Dict[str, str]) -> Any:
    key = base64.b64encode(os.urandom(16)).decode("ascii")
    path = parts.path if parts.path not in ("", "/") else "/v1/ws"
    target = path + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             f"User-Agent: {_USER_AGENT}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        rfile = sock.makefile("rb")
        status, reason, got = _read_http_head(rfile)
        if status != 101:
            length = min(int(got.get("content-length", "0") or 0), 4096)
            body = rfile.read(length).decode("utf-8", "replace").strip() if length else ""
            detail = f": {body}" if body else ""
            raise TransportError(f"websocket upgrade refused: HTTP {status} {reason}{detail}", status)
    except OSError as e:
        raise TransportError(f"websocket handshake: {e}") from None
    if got.get("upgrade", "").lower() != "websocket" or "upgrade" not in got.get("connection", "").lower():
        raise TransportError("websocket handshake: the response does not upgrade to websocket")
    if got.get("sec-websocket-accept") != accept_key(key):
        raise TransportError("websocket handshake: wrong Sec-WebSocket-Accept")
    return rfile


def _request(req_id: int, method: str, params: Optional[Dict[str, Any]]) -> bytes:
    """One request, encoded as UTF-8.

    Raises ValueError when JSON cannot carry params: NaN and Infinity are
    not JSON, and a lone surrogate is not UTF-8. The server could only
    answer such a frame with a parse error of id null, which matches no
    call, so the call fails here instead of waiting for a reply that
    cannot come.
    """
    body = {"jsonrpc": "2.0", "id": req_id, "method": method, "params": {} if params is None else params}
    try:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError as e:
        bad = e.object[e.start:e.end]
        raise ValueError(f"{method}: params hold a lone surrogate {bad!r}, which UTF-8 cannot carry") from None
    except ValueError as e:
        raise ValueError(f"{method}: params cannot be sent as JSON: {e} (NaN and Infinity are not JSON)") from None


def _outcome(reply: Any, method: str) -> Any:
    """The result of a JSON-RPC reply, or its error raised as RPCError."""
    if not isinstance(reply, dict):
        raise TransportError(f"{method}: reply is not a JSON-RPC object")
    err = reply.get("error")
    if err:
        err = err if isinstance(err, dict) else {"message": str(err)}
        code = err.get("code")
        code = code if isinstance(code, int) else INTERNAL_ERROR
        raise RPCError(code, str(err.get("message", "")), err.get("data"), method)
    return reply.get("result")


class _HTTPTransport:
    """POST /v1/rpc, one request per call, calls run on a small thread pool."""

    def __init__(self, url: str, headers: Dict[str, str], timeout: float, max_bytes: int, workers: int):
        parts = urllib.parse.urlsplit(url)
        self.url = url if parts.path not in ("", "/") else urllib.parse.urljoin(url, "/v1/rpc")
        self._headers = {"Content-Type": "application/json", "User-Agent": _USER_AGENT, **headers}
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._ids = itertools.count(1)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sqlgym-http")

    def submit(self, method: str, params: Optional[Dict[str, Any]]) -> Future:
        """Encodes the request here (a ValueError is the caller's) and posts
        it from the pool. The Future stays pending until the reply is in,
        so that cancelling it drops a late reply."""
        body = _request(next(self._ids), method, params)
        return _then(self._pool.submit(self._post, body, method), lambda r: r)

    def call(self, method: str, params: Optional[Dict[str, Any]]) -> Any:
        """One call on the calling thread."""
        return self._post(_request(next(self._ids), method, params), method)

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
        return _outcome(json.loads(data), method)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _drop_none(**kwargs: Any) -> Dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


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
        frame = _request(req_id, method, params)  # before registering: a ValueError leaves nothing behind
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
        try:
            reply = json.loads(msg)
        except ValueError:
            return  # nothing to match it to
        for item in reply if isinstance(reply, list) else [reply]:
            if not isinstance(item, dict) or not isinstance(item.get("id"), int):
                continue
            with self._lock:
                entry = self._pending.pop(item["id"], None)
                if entry is None:
                    continue
                self._settling += 1
            fut, method = entry
            try:
                try:
                    _settle(fut, result=_outcome(item, method))
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
        return self.call("tasks.list", _drop_none(dataset=dataset, offset=offset, limit=limit))

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
                    action_format: Optional[str] = None, reward: Optional[Dict[str, Any]] = None,
                    tags: Optional[Dict[str, Any]] = None) -> Future:
        """``episode.reset`` without waiting (see :meth:`reset`).

        Cancelling the Future cannot unstart the episode: if the reply comes
        later, the client closes its episode (recorded as ``no_submit``).
        """
        fut = self.call_async("episode.reset", _drop_none(
            task_id=task_id, dataset=dataset, seed=seed, max_turns=max_turns,
            action_format=action_format, reward=reward, tags=tags))
        return _then(fut, lambda r: r, orphan=self._close_orphan)

    def reset(self, task_id: Optional[str] = None, dataset: Optional[str] = None,
              seed: Optional[int] = None, max_turns: Optional[int] = None,
              action_format: Optional[str] = None, reward: Optional[Dict[str, Any]] = None,
              tags: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """``episode.reset``: starts an episode and returns
        ``{episode_id, task, messages, tools, max_turns, action_format}``.

        Without ``task_id`` the task is drawn from ``dataset`` by ``seed``.
        ``reward`` is a partial RewardSpec merged over the server's;
        ``tags`` (policy version, GRPO group id, ...) are stored verbatim
        with the trajectory. After a :class:`CallTimeout` the client closes
        the episode if the server started one.
        """
        fut = self.reset_async(task_id, dataset, seed, max_turns, action_format, reward, tags)
        return self._wait(fut, "episode.reset")

    def step_async(self, episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
                   arguments: Optional[Dict[str, Any]] = None) -> Future:
        """``episode.step`` without waiting (see :meth:`step`)."""
        if (text is None) == (tool is None):
            raise ValueError("step: give exactly one of text (a completion) or tool (a parsed call)")
        action: Dict[str, Any] = {"text": text} if text is not None else {"tool": tool, "arguments": arguments or {}}
        return self.call_async("episode.step", {"episode_id": episode_id, "action": action})

    def step(self, episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
             arguments: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """``episode.step``: one turn, either the model's whole completion
        (``text``, parsed with the episode's action format) or a call the
        client parsed (``tool`` and ``arguments``).

        Returns ``{observation, reward, terminated, truncated, info}``. Bad
        SQL, timeouts and unparseable text are observations with
        ``info["error"]``, not exceptions.

        A :class:`CallTimeout` (or a :class:`ConnectionClosed` after the
        request was sent) does not mean the step did not happen: the server
        may have applied it, or still apply it, and only its reply is lost.
        :meth:`episode` (``episode.get``) shows the steps the server
        recorded; check it before sending the step again.
        """
        return self._wait(self.step_async(episode_id, text, tool, arguments), "episode.step")

    def close_episode_async(self, episode_id: str) -> Future:
        """``episode.close`` without waiting."""
        return self.call_async("episode.close", {"episode_id": episode_id})

    def close_episode(self, episode_id: str) -> Dict[str, Any]:
        """``episode.close``: ends (as ``no_submit`` if still running) and
        records the episode; returns
        ``{episode_id, outcome, final_reward, total_reward, turns, reward_components}``."""
        return self._wait(self.close_episode_async(episode_id), "episode.close")

    def episode(self, episode_id: str) -> Dict[str, Any]:
        """``episode.get``: the trajectory record of a live or recently ended episode."""
        return self.call("episode.get", {"episode_id": episode_id})

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

    ``reset_kwargs`` are :meth:`Client.reset`'s (``task_id``, ``dataset``,
    ``seed``, ``max_turns``, ``action_format``, ``reward``, ``tags``). Many
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

    def step(self, completion_text: str) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        """Sends the model's completion; see the class docstring."""
        return self.client._wait(self.step_async(completion_text), "episode.step")

    def step_async(self, completion_text: str) -> Future:
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
        fut = self.client.step_async(ep, text=completion_text)
        out = _then(fut, lambda r: self._on_step(completion_text, r))
        out.add_done_callback(lambda o: self._gave_up(ep) if o.cancelled() else None)
        return out

    def _gave_up(self, episode_id: str) -> None:
        if self.episode_id == episode_id:
            self.in_doubt = True

    def _on_step(self, text: str, r: Dict[str, Any]) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        obs = r["observation"]
        self.messages += [{"role": "assistant", "content": text}, obs]
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
    """The prompt, then each assistant completion and the tool message after it."""
    rewards: List[float]
    """The reward of each step; their sum is ``total_reward``."""
    outcome: str
    total_reward: float
    turns: int
    summary: Dict[str, Any]
    """The ``episode.close`` result, with ``reward_components``."""


Policy = Callable[[List[List[Dict[str, Any]]]], Sequence[str]]
"""Maps the conversations of the episodes still running to one completion each."""


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
            envs.append(SQLEnv(client, **_drop_none(task_id=task_id), tags=t, **reset_kwargs))
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

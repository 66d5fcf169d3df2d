"""The client end of a WebSocket (RFC 6455), standard library only.

The rules live in I/O-free pieces that the blocking :class:`WebSocket`
here and the asyncio one in :mod:`sqlgym.aio` share: the opening
handshake (:func:`handshake_request`, :func:`check_upgrade`), frame
encoding (:func:`encode_frame`), and :class:`FrameRules`, which checks
each received frame, joins a message's fragments and says what a control
frame asks for. A client masks what it sends, answers pings with pongs,
runs the close handshake both ways and bounds frame and message sizes.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import threading
import urllib.parse
from typing import Any, Dict, List, Optional, Tuple, Union

from .errors import ConnectionClosed, TransportError

USER_AGENT = "sqlgym-python/1"
"""The User-Agent of this package's requests."""

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY = 0x0, 0x1, 0x2
OP_CLOSE, OP_PING, OP_PONG = 0x8, 0x9, 0xA


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


def close_payload(code: int, reason: str = "") -> bytes:
    """The payload of a close frame: the code, then up to 123 bytes of reason."""
    return code.to_bytes(2, "big") + reason.encode("utf-8")[:123]


class FrameError(Exception):
    """A protocol violation by the peer; ``code`` is the close code to send."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class FrameRules:
    """What a client makes of the frames it receives, without any I/O.

    The reader calls :meth:`header` with a frame's first two bytes, reads
    the extended length if :meth:`header` says so (:meth:`check_length`),
    reads the payload, and hands the frame to :meth:`frame`, which returns
    an event: ``("text", str)`` for a whole message, ``("ping", payload)``,
    ``("pong", payload)`` or ``("close", code, reason)``; ``None`` while a
    message is still in fragments. Violations raise :class:`FrameError`.
    """

    def __init__(self, max_frame_bytes: int):
        self.max_frame_bytes = max_frame_bytes
        self._parts: List[bytes] = []
        self._size = 0
        self._kind: Optional[int] = None

    def header(self, b0: int, b1: int) -> Tuple[bool, int, int]:
        """(fin, opcode, length) of a frame's first two bytes; a length of
        126 or 127 means 2 or 8 more bytes hold it (see :meth:`check_length`)."""
        if b0 & 0x70:
            raise FrameError(1002, "websocket: reserved bits set (no extension was negotiated)")
        if b1 & 0x80:
            raise FrameError(1002, "websocket: the server sent a masked frame")
        return bool(b0 & 0x80), b0 & 0x0F, b1 & 0x7F

    def check_length(self, n: int) -> int:
        """n, the payload length, unless it exceeds the bound."""
        if n > self.max_frame_bytes:
            raise FrameError(1009, f"websocket: frame of {n} bytes exceeds max_frame_bytes={self.max_frame_bytes}")
        return n

    def frame(self, fin: bool, opcode: int, payload: bytes) -> Optional[Tuple[Any, ...]]:
        """The event a received frame completes, if any."""
        if opcode >= OP_CLOSE:
            return self._control(fin, opcode, payload)
        if (opcode == OP_CONT) != (self._kind is not None):
            raise FrameError(1002, "websocket: fragment out of sequence")
        self._kind = opcode if self._kind is None else self._kind
        self._size += len(payload)
        if self._size > self.max_frame_bytes:
            raise FrameError(1009, f"websocket: message of over {self.max_frame_bytes} bytes")
        self._parts.append(payload)
        if not fin:
            return None
        kind, data = self._kind, b"".join(self._parts)
        self._parts, self._size, self._kind = [], 0, None
        if kind != OP_TEXT:
            raise FrameError(1003, "websocket: binary message (sqlgym speaks text frames only)")
        try:
            return ("text", data.decode("utf-8"))
        except UnicodeDecodeError:
            raise FrameError(1007, "websocket: text message is not UTF-8") from None

    @staticmethod
    def _control(fin: bool, opcode: int, payload: bytes) -> Tuple[Any, ...]:
        if not fin or len(payload) > 125:
            raise FrameError(1002, "websocket: fragmented or oversized control frame")
        if opcode == OP_PING:
            return ("ping", payload)
        if opcode == OP_PONG:
            return ("pong", payload)
        if opcode != OP_CLOSE:
            raise FrameError(1002, f"websocket: unknown control opcode {opcode:#x}")
        code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        return ("close", code, payload[2:].decode("utf-8", "replace"))


def handshake_request(parts: urllib.parse.SplitResult, headers: Dict[str, str]) -> Tuple[bytes, str]:
    """The opening handshake's request for a ws:// or wss:// URL, and the
    key whose accept value the response must carry. A URL without a path
    gets ``/v1/ws``."""
    key = base64.b64encode(os.urandom(16)).decode("ascii")
    path = parts.path if parts.path not in ("", "/") else "/v1/ws"
    target = path + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             f"User-Agent: {USER_AGENT}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), key


def parse_status(line: bytes) -> Tuple[int, str]:
    """The status and reason of an HTTP/1.1 status line."""
    text = line.decode("latin-1").rstrip("\r\n")
    parts = text.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise TransportError(f"websocket handshake: not an HTTP response: {text[:80]!r}")
    return int(parts[1]), parts[2] if len(parts) > 2 else ""


def add_header(headers: Dict[str, str], line: bytes) -> bool:
    """Adds one header line (its name lowercased); False at the blank line ending them."""
    raw = line.decode("latin-1").rstrip("\r\n")
    if not raw:
        return False
    name, _, value = raw.partition(":")
    key = name.strip().lower()
    headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    return True


MAX_HEADERS = 256
"""Response headers a handshake accepts."""


def refused(status: int, reason: str, body: bytes) -> TransportError:
    """The error of a handshake the server answered without upgrading."""
    text = body.decode("utf-8", "replace").strip()
    detail = f": {text}" if text else ""
    return TransportError(f"websocket upgrade refused: HTTP {status} {reason}{detail}", status)


def body_length(headers: Dict[str, str]) -> int:
    """How much of a refusal's body to read: its Content-Length, at most 4 KiB."""
    return min(int(headers.get("content-length", "0") or 0), 4096)


def check_upgrade(headers: Dict[str, str], key: str) -> None:
    """Raises TransportError unless a 101 response upgrades to a WebSocket for key."""
    if headers.get("upgrade", "").lower() != "websocket" or "upgrade" not in headers.get("connection", "").lower():
        raise TransportError("websocket handshake: the response does not upgrade to websocket")
    if headers.get("sec-websocket-accept") != accept_key(key):
        raise TransportError("websocket handshake: wrong Sec-WebSocket-Accept")


class WebSocket:
    """The client end of one WebSocket connection (RFC 6455), blocking.

    One thread reads (:meth:`recv_message`); any thread may send: writes
    are serialized by a lock. Pings are answered inside ``recv_message``.
    """

    def __init__(self, sock: socket.socket, rfile: Any = None, max_frame_bytes: int = 64 << 20):
        self._sock = sock
        self._rfile = rfile if rfile is not None else sock.makefile("rb")
        self._wlock = threading.Lock()
        self._rules = FrameRules(max_frame_bytes)
        self.close_sent = False
        self.close_code: Optional[int] = None
        """The code of the peer's close frame, once one arrived."""
        self.close_reason = ""

    @property
    def max_frame_bytes(self) -> int:
        """The largest frame, and message, accepted."""
        return self._rules.max_frame_bytes

    def send_text(self, text: Union[str, bytes]) -> None:
        """Sends one text message in a single masked frame; ``text`` may
        be given already encoded as UTF-8."""
        self._send(OP_TEXT, text if isinstance(text, bytes) else text.encode("utf-8"))

    def _send(self, opcode: int, payload: bytes) -> None:
        frame = encode_frame(opcode, payload)
        with self._wlock:
            if self.close_sent:
                raise ConnectionClosed("websocket: close frame already sent")
            if opcode == OP_CLOSE:
                self.close_sent = True
            self._sock.sendall(frame)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Starts the close handshake; the peer's close frame then ends
        :meth:`recv_message`. Does nothing once a close frame was sent."""
        try:
            self._send(OP_CLOSE, close_payload(code, reason))
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
        try:
            while True:
                event = self._rules.frame(*self._read_frame())
                if event is None:
                    continue
                if event[0] == "text":
                    return event[1]
                if event[0] == "ping":
                    try:
                        self._send(OP_PONG, event[1])
                    except ConnectionClosed:
                        pass  # closing already: no pong after a close frame
                elif event[0] == "close":
                    _, self.close_code, self.close_reason = event
                    self.close(self.close_code if self.close_code != 1005 else 1000)
                    return None
        except FrameError as e:
            self.close(e.code)
            raise TransportError(str(e)) from None

    def _read_frame(self) -> Tuple[bool, int, bytes]:
        b0, b1 = self._read_exact(2)
        fin, opcode, n = self._rules.header(b0, b1)
        if n == 126:
            n = int.from_bytes(self._read_exact(2), "big")
        elif n == 127:
            n = int.from_bytes(self._read_exact(8), "big")
        return fin, opcode, self._read_exact(self._rules.check_length(n))

    def _read_exact(self, n: int) -> bytes:
        try:
            data = self._rfile.read(n) if n else b""
        except ValueError:  # abort() closed the reader under us
            raise ConnectionClosed("websocket: connection aborted") from None
        if len(data) < n:
            raise ConnectionClosed("websocket: connection ended without a close frame")
        return data


def _open_socket(parts: urllib.parse.SplitResult, timeout: float) -> socket.socket:
    secure = parts.scheme == "wss"
    host = parts.hostname or "127.0.0.1"
    sock = socket.create_connection((host, parts.port or (443 if secure else 80)), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if secure:
        sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    return sock


def split_ws_url(url: str) -> urllib.parse.SplitResult:
    """The parts of a ws:// or wss:// URL; ValueError for another scheme."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        raise ValueError(f"websocket url must start with ws:// or wss://, got {url!r}")
    return parts


def connect_websocket(url: str, headers: Optional[Dict[str, str]] = None, timeout: float = 10.0,
                      max_frame_bytes: int = 64 << 20) -> WebSocket:
    """Opens a WebSocket to ``url`` (``ws://`` or ``wss://``).

    Raises :class:`TransportError` when the server refuses the upgrade
    (``status`` holds its HTTP status) or answers a wrong
    ``Sec-WebSocket-Accept``.
    """
    parts = split_ws_url(url)
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
    request, key = handshake_request(parts, headers)
    try:
        sock.sendall(request)
        rfile = sock.makefile("rb")
        status, reason = parse_status(rfile.readline(8192))
        got: Dict[str, str] = {}
        for _ in range(MAX_HEADERS):
            if not add_header(got, rfile.readline(8192)):
                break
        else:
            raise TransportError("websocket handshake: too many response headers")
        if status != 101:
            n = body_length(got)
            raise refused(status, reason, rfile.read(n) if n else b"")
    except OSError as e:
        raise TransportError(f"websocket handshake: {e}") from None
    check_upgrade(got, key)
    return rfile

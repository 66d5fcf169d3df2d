"""sqlgym over plain HTTP: each call a ``POST /v1/rpc``, run on a small
thread pool, tried again while the server (or the load balancer in front
of it) cannot be reached or answers that another replica has the
episode, within the client's ``reconnect_timeout``."""

from __future__ import annotations

import http.client
import itertools
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Dict, Optional

from .errors import RPCError, TransportError
from .futures import then
from .jsonrpc import encode_request, result_of
from .resume import backoff, resendable, retry_elsewhere
from .websocket import USER_AGENT

__all__ = ["HTTPTransport"]

Observer = Callable[[str, Any, Any, Optional[int]], None]
"""Called with (method, params, result, error code) once a call's outcome is final."""


class _Retry(Exception):
    """A try that may be made again; ``error`` is what the caller gets if not."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error


class HTTPTransport:
    """POST /v1/rpc, one request per call, calls run on a small thread pool."""

    def __init__(self, url: str, headers: Dict[str, str], timeout: float, max_bytes: int, workers: int,
                 reconnect_timeout: float = 0.0, observe: Optional[Observer] = None):
        parts = urllib.parse.urlsplit(url)
        self.url = url if parts.path not in ("", "/") else urllib.parse.urljoin(url, "/v1/rpc")
        self._headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._reconnect_timeout = reconnect_timeout
        self._observe = observe
        self._ids = itertools.count(1)
        self._stop = threading.Event()  # set by close(): no more waiting to try again
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sqlgym-http")
        self._lock = threading.Lock()  # guards _tails
        # The last step posted or waiting of each episode with steps in
        # flight: a step numbered by its turn must reach the server after
        # the one before it, which a pool of connections would not keep.
        self._tails: Dict[str, Future] = {}

    def submit(self, method: str, params: Optional[Dict[str, Any]]) -> Future:
        """Encodes the request here (a ValueError is the caller's) and posts
        it from the pool, a step after the episode's step before it. The
        Future stays pending until the reply is in, so that cancelling it
        drops a late reply."""
        body = encode_request(next(self._ids), method, params)
        episode_id = params.get("episode_id") if method == "episode.step" and isinstance(params, dict) else None
        if not isinstance(episode_id, str) or "turn" not in params:  # type: ignore[operator]
            return then(self._pool.submit(self._post, body, method, params), lambda r: r)
        out: Future = Future()
        with self._lock:
            before = self._tails.get(episode_id)
            self._tails[episode_id] = out

        def start(_: Any = None) -> None:
            if not out.set_running_or_notify_cancel():
                self._untail(episode_id, out)
                return
            posted = self._pool.submit(self._post, body, method, params)
            posted.add_done_callback(lambda f: self._settle(episode_id, out, f))

        if before is None:
            start()
        else:
            before.add_done_callback(start)
        return then(out, lambda r: r)  # a cancel drops the reply at once, even of a step posted already

    def _settle(self, episode_id: str, out: Future, posted: Future) -> None:
        """Hands a chained step's outcome to its caller."""
        self._untail(episode_id, out)
        exc = posted.exception()
        if exc is not None:
            out.set_exception(exc)
        else:
            out.set_result(posted.result())

    def _untail(self, episode_id: str, out: Future) -> None:
        with self._lock:
            if self._tails.get(episode_id) is out:
                del self._tails[episode_id]

    def call(self, method: str, params: Optional[Dict[str, Any]]) -> Any:
        """One call on the calling thread."""
        return self._post(encode_request(next(self._ids), method, params), method, params)

    def _post(self, body: bytes, method: str, params: Any) -> Any:
        """The call's result, tried again on a lost connection, a load
        balancer with no server to give it (502, 503, 504) or a JSON-RPC
        error that says to, for at most reconnect_timeout."""
        attempt, deadline = 0, None
        while True:
            try:
                result = self._post_once(body, method, params)
            except _Retry as r:
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + self._reconnect_timeout
                if now >= deadline or self._stop.wait(min(backoff(attempt), deadline - now)):
                    self._final(method, params, None, r.error)
                    raise r.error from None
                attempt += 1
                continue
            except RPCError as e:
                self._final(method, params, None, e)
                raise
            self._final(method, params, result, None)
            return result

    def _post_once(self, body: bytes, method: str, params: Any) -> Any:
        """One try; raises _Retry for a failure worth another."""
        req = urllib.request.Request(self.url, data=body, headers=self._headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                data = resp.read(self._max_bytes + 1)
        except urllib.error.HTTPError as e:
            text = e.read(4096).decode("utf-8", "replace").strip()
            err = TransportError(f"{method}: HTTP {e.code}: {text}", e.code)
            raise (_Retry(err) if e.code in (502, 503, 504) else err) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            reason = getattr(e, "reason", e)
            err = TransportError(f"{method}: {reason}")
            # A refused connection sent nothing; after another failure only a
            # request that may run twice is sent again.
            if isinstance(reason, ConnectionRefusedError) or resendable(method, params):
                raise _Retry(err) from None
            raise err from None
        if len(data) > self._max_bytes:
            raise TransportError(f"{method}: reply larger than {self._max_bytes} bytes")
        try:
            return result_of(json.loads(data), method)
        except RPCError as e:
            if retry_elsewhere(method, e.code):
                raise _Retry(e) from None
            raise

    def _final(self, method: str, params: Any, result: Any, error: Optional[Exception]) -> None:
        """Tells the observer how the call ended, before its caller hears."""
        if self._observe is not None and (error is None or isinstance(error, RPCError)):
            self._observe(method, params, result, error.code if isinstance(error, RPCError) else None)

    def close(self) -> None:
        """Stops waiting to try again, and waits for the calls in flight."""
        self._stop.set()
        self._pool.shutdown(wait=True)

"""The Futures the blocking client hands out: settling one once, giving
one up, and chaining one onto another, standard library only."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import wait as _wait_futures
from typing import Any, Callable, Optional

__all__ = ["failed", "give_up", "settle", "then"]


def failed(exc: BaseException) -> Future:
    """A Future that failed with exc."""
    fut: Future = Future()
    fut.set_exception(exc)
    return fut


def give_up(fut: Future) -> bool:
    """Cancels fut; False when its result is in or being delivered, which
    this then waits for (this module's Futures stay pending until their
    reply is in, so that wait is short)."""
    if fut.cancel():
        return True
    _wait_futures([fut])
    return False


def settle(fut: Future, result: Any = None, exc: Optional[BaseException] = None) -> None:
    """Completes fut unless its caller cancelled it."""
    if not fut.set_running_or_notify_cancel():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


def then(fut: Future, fn: Callable[[Any], Any], orphan: Optional[Callable[[Any], None]] = None) -> Future:
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

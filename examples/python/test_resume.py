"""Tests of the clients' resuming against a real server.

A TCP relay sits between the client and the server (SQLGYM_TEST_URL,
started by examples/python/python_test.go): it can cut every connection,
refuse new ones, or hold the server's bytes back, so that a reply is lost
after the server ran its call. The client then reconnects through the
relay, to the same server, and sends again what had no reply: a step
with its turn, which the server answers from its record instead of
running it twice.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import unittest
import urllib.parse
from typing import Any, Callable, List, Optional, Set

import sqlgym
import sqlgym.client as sg
from sqlgym.resume import Turns, backoff, resendable, retry_elsewhere

from test_aio import Relay as AsyncRelay
from test_client import URL


def until(condition: Callable[[], Any], what: str, limit: float = 60) -> Any:
    """Waits for condition() to hold and returns it: an event the test can observe only by looking."""
    deadline = time.monotonic() + limit
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"still not {what} after {limit}s")
        time.sleep(0.01)


class Relay:
    """A TCP relay to the server, threaded: drop() cuts the connections
    through it, refuse(n) closes the next n connections at once, hold()
    keeps the server's bytes back until release(), stop() stops listening."""

    def __init__(self, target: str):
        parts = urllib.parse.urlsplit(target)
        self._addr = (parts.hostname, parts.port)
        self._scheme, self._path = parts.scheme, parts.path
        self._lock = threading.Lock()
        self._socks: Set[socket.socket] = set()
        self._flowing = threading.Event()
        self._flowing.set()
        self._refusals = 0
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, scheme: Optional[str] = None, path: Optional[str] = None) -> str:
        return f"{scheme or self._scheme}://127.0.0.1:{self.port}{self._path if path is None else path}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # stopped
            with self._lock:
                refuse = self._refusals > 0
                self._refusals -= refuse
                self.connections += not refuse
            if refuse:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                conn.close()  # a reset, as a server that just died gives
                continue
            try:
                upstream = socket.create_connection(self._addr)
            except OSError:
                conn.close()
                continue
            with self._lock:
                self._socks |= {conn, upstream}
            threading.Thread(target=self._pipe, args=(conn, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, conn, True), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, from_server: bool) -> None:
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                if from_server:
                    self._flowing.wait()
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                self._cut(s)

    def _cut(self, s: socket.socket) -> None:
        with self._lock:
            self._socks.discard(s)
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

    def refuse(self, n: int) -> None:
        with self._lock:
            self._refusals = n

    def hold(self) -> None:
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def drop(self) -> None:
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            self._cut(s)

    def stop(self) -> None:
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept, which a close alone leaves listening
        except OSError:
            pass
        self._listener.close()
        self.drop()
        self.release()


class RulesTest(unittest.TestCase):
    def test_backoff_grows_to_its_cap_with_jitter(self) -> None:
        waits = [backoff(i) for i in range(12)]
        self.assertTrue(0.025 <= waits[0] <= 0.05, waits[0])
        self.assertTrue(all(1.0 <= w <= 2.0 for w in waits[7:]), waits)
        self.assertGreater(len({backoff(3) for _ in range(20)}), 1, "no jitter")

    def test_what_is_sent_again(self) -> None:
        self.assertTrue(resendable("episode.step", {"episode_id": "e", "turn": 3}))
        self.assertFalse(resendable("episode.step", {"episode_id": "e"}))
        for method in ("episode.get", "episode.close", "episode.reset", "server.info"):
            self.assertTrue(resendable(method, {}), method)
        self.assertTrue(retry_elsewhere("episode.step", sqlgym.EPISODE_ELSEWHERE))
        self.assertTrue(retry_elsewhere("episode.reset", sqlgym.DRAINING))
        self.assertFalse(retry_elsewhere("episode.step", sqlgym.DRAINING))
        self.assertFalse(retry_elsewhere("episode.step", sqlgym.EPISODE_NOT_FOUND))

    def test_turns(self) -> None:
        t = Turns(limit=2)
        self.assertIsNone(t.take("unseen"))
        t.started("a")
        self.assertEqual([t.take("a"), t.take("a")], [1, 2])
        t.refused("a", 2, sqlgym.EPISODE_BUSY)  # the last one taken comes back
        self.assertEqual(t.take("a"), 2)
        t.refused("a", 1, sqlgym.EPISODE_BUSY)  # a later one was taken: kept
        self.assertEqual(t.take("a"), 3)
        t.acked("a", {"info": {"turn": 7}})
        self.assertEqual(t.take("a"), 8)
        t.acked("a", {"info": {"turn": 8}, "terminated": True})
        self.assertIsNone(t.take("a"))
        t.started("b")
        t.started("c")
        t.started("d")  # past the limit: the least recently used goes
        self.assertEqual(len(t), 2)
        self.assertIsNone(t.take("b"))

    def test_the_new_codes_are_exported(self) -> None:
        self.assertEqual((sqlgym.EPISODE_ELSEWHERE, sqlgym.DRAINING), (-32007, -32006))
        self.assertIn("EPISODE_ELSEWHERE", sqlgym.__all__)
        with self.assertRaisesRegex(ValueError, "reconnect_timeout"):
            sg.Client(URL or "ws://127.0.0.1:1/v1/ws", reconnect_timeout=-1)


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class ClientResumeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.relay = Relay(URL)
        self.addCleanup(self.relay.stop)
        self.direct = sg.Client(URL, timeout=60)
        self.addCleanup(self.direct.close)

    def recorded_turns(self, episode_id: str) -> List[int]:
        return [s["turn"] for s in self.direct.episode(episode_id)["steps"]]

    def test_steps_carry_their_turn(self) -> None:
        with sg.Client(self.relay.url(), timeout=60) as c:
            ep = c.reset(task_id="demo/library-001")["episode_id"]
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 1)
            with self.assertRaises(sg.RPCError) as ctx:  # a turn past the next one is refused, and costs nothing
                c.call("episode.step", {"episode_id": ep, "action": {"tool": "inspect_schema"}, "turn": 5})
            self.assertEqual(ctx.exception.code, sg.INVALID_PARAMS)
            again = c.call("episode.step", {"episode_id": ep, "action": {"tool": "inspect_schema"}, "turn": 1})
            self.assertTrue(again["info"].get("replayed"), again["info"])
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 2)
            self.assertEqual(self.recorded_turns(ep), [1, 2])
            c.close_episode(ep)

    def test_a_step_whose_reply_was_lost_is_sent_again_and_runs_once(self) -> None:
        with sg.Client(self.relay.url(), timeout=60) as c:
            ep = c.reset(task_id="demo/library-001")["episode_id"]
            c.step(ep, tool="inspect_schema")
            self.relay.hold()
            fut = c.step_async(ep, tool="execute_sql", arguments={"sql": "SELECT count(*) FROM books"})
            until(lambda: self.recorded_turns(ep) == [1, 2], "step 2 recorded")  # it ran; its reply is held
            self.relay.drop()
            self.relay.release()
            got = fut.result(60)
            self.assertEqual(got["info"]["turn"], 2)
            self.assertTrue(got["info"].get("replayed"), "the step was not answered from its record")
            self.assertEqual(c.reconnects, 1)
            self.assertEqual(self.recorded_turns(ep), [1, 2], "the step ran twice")
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 3)
            self.assertEqual(c.close_episode(ep)["turns"], 3)

    def test_run_batch_survives_drops(self) -> None:
        with sg.Client(self.relay.url(), timeout=60) as c:
            turns = {"n": 0}

            def policy(convs: List[List[Any]]) -> List[str]:
                turns["n"] += 1
                self.relay.drop()  # every turn's steps go out on a connection cut under them
                if turns["n"] < 3:
                    return ['<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT 1"}}</tool_call>'] * len(convs)
                return ['<tool_call>{"name": "submit", "arguments": {"sql": "SELECT 1"}}</tool_call>'] * len(convs)

            got = sg.run_batch(c, policy, ["demo/library-001", "demo/shop-001"], group_size=4)
            self.assertEqual([r.turns for r in got], [3] * 8)
            self.assertGreaterEqual(c.reconnects, 3)
            for r in got:
                self.assertEqual(self.recorded_turns(r.episode_id), [1, 2, 3])
                self.assertEqual(len(r.rewards), 3)

    def test_reconnecting_waits_out_refused_connections(self) -> None:
        with sg.Client(self.relay.url(), timeout=60) as c:
            ep = c.reset(task_id="demo/library-001")["episode_id"]
            self.relay.refuse(3)
            self.relay.drop()
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 1)
            self.assertEqual(c.reconnects, 1)
            c.close_episode(ep)

    def test_http_tries_again(self) -> None:
        with sg.Client(self.relay.url("http", "/v1/rpc"), timeout=60) as c:
            ep = c.reset(task_id="demo/library-001")["episode_id"]
            self.relay.refuse(3)  # each POST is a connection of its own: three are reset
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 1)
            self.relay.hold()
            fut = c.step_async(ep, tool="inspect_schema")
            until(lambda: self.recorded_turns(ep) == [1, 2], "step 2 recorded")
            self.relay.drop()
            self.relay.release()
            self.assertTrue(fut.result(60)["info"].get("replayed"))
            self.assertEqual(self.recorded_turns(ep), [1, 2])
            self.assertEqual(c.close_episode(ep)["turns"], 2)

    def test_without_reconnecting(self) -> None:
        c = sg.Client(self.relay.url(), timeout=60, reconnect_timeout=0)
        self.addCleanup(c.close)
        ep = c.reset(task_id="demo/library-001")["episode_id"]
        self.relay.hold()
        fut = c.step_async(ep, tool="inspect_schema")
        until(lambda: self.recorded_turns(ep) == [1], "the step recorded")
        self.relay.drop()
        with self.assertRaises(sg.ConnectionClosed):
            fut.result(60)
        self.assertTrue(c.closed)
        self.assertEqual(c.reconnects, 0)
        self.direct.close_episode(ep)

    def test_a_server_gone_for_good(self) -> None:
        c = sg.Client(self.relay.url(), timeout=60, reconnect_timeout=0.5)
        self.addCleanup(c.close)
        ep = c.reset(task_id="demo/library-001")["episode_id"]
        self.relay.stop()
        with self.assertRaises(sg.ConnectionClosed) as ctx:
            c.step(ep, tool="inspect_schema")
        self.assertIn("reconnecting failed", str(ctx.exception))
        self.assertTrue(c.closed)
        self.assertEqual(self.direct.close_episode(ep)["turns"], 0, "the step ran")

    def test_a_step_of_an_episode_never_seen_is_not_sent_twice(self) -> None:
        ep = self.direct.reset(task_id="demo/library-001")["episode_id"]
        with sg.Client(self.relay.url(), timeout=60) as c:
            self.relay.hold()
            fut = c.call_async("episode.step", {"episode_id": ep, "action": {"tool": "inspect_schema"}})
            until(lambda: self.recorded_turns(ep) == [1], "the step recorded")
            self.relay.drop()
            self.relay.release()
            with self.assertRaises(sqlgym.ReplyLost) as ctx:
                fut.result(60)
            self.assertEqual(ctx.exception.episode_id, ep)
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 2)  # sent without a turn; its reply tells the next
            self.assertEqual(c.step(ep, tool="inspect_schema")["info"]["turn"], 3)
        self.assertEqual(self.recorded_turns(ep), [1, 2, 3])
        self.direct.close_episode(ep)


async def step_lost(relay: AsyncRelay, direct: sqlgym.AsyncClient, c: sqlgym.AsyncClient, ep: str) -> Any:
    """Sends a step whose reply the relay holds back until the server has
    recorded it, then cuts the connection; returns the step's task."""
    relay.hold()
    step = asyncio.ensure_future(c.step(ep, tool="inspect_schema"))
    while not (await direct.get(ep))["steps"]:
        await asyncio.sleep(0.01)
    relay.drop()
    relay.release()
    return step


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class AsyncResumeTest(unittest.TestCase):
    def run_relayed(self, test: Any) -> None:
        """Runs test(relay, direct, client) with a client through a relay and one straight to the server."""
        async def main() -> None:
            relay = AsyncRelay(URL)
            url = await relay.start()
            async with sqlgym.AsyncClient(URL) as direct, sqlgym.AsyncClient(url) as c:
                await test(relay, direct, c)
            await relay.stop()
        asyncio.run(asyncio.wait_for(main(), 120))

    def test_a_step_whose_reply_was_lost_is_sent_again_and_runs_once(self) -> None:
        async def test(relay: AsyncRelay, direct: sqlgym.AsyncClient, c: sqlgym.AsyncClient) -> None:
            ep = (await c.reset(task_id="demo/library-001"))["episode_id"]
            got = await (await step_lost(relay, direct, c, ep))
            self.assertEqual(got["info"]["turn"], 1)
            self.assertTrue(got["info"].get("replayed"))
            self.assertEqual(c.reconnects, 1)
            self.assertEqual((await c.step(ep, tool="inspect_schema"))["info"]["turn"], 2)
            self.assertEqual([s["turn"] for s in (await direct.get(ep))["steps"]], [1, 2])
            self.assertEqual((await c.close_episode(ep))["turns"], 2)
        self.run_relayed(test)

    def test_a_step_without_a_turn_is_not_sent_twice(self) -> None:
        async def test(relay: AsyncRelay, direct: sqlgym.AsyncClient, c: sqlgym.AsyncClient) -> None:
            ep = (await direct.reset(task_id="demo/library-001"))["episode_id"]  # started elsewhere: no turn known
            step = await step_lost(relay, direct, c, ep)
            with self.assertRaises(sqlgym.ReplyLost) as ctx:
                await step
            self.assertEqual((ctx.exception.method, ctx.exception.episode_id), ("episode.step", ep))
            self.assertEqual((await c.step(ep, tool="inspect_schema"))["info"]["turn"], 2)
            self.assertEqual((await c.close_episode(ep))["turns"], 2)
        self.run_relayed(test)

if __name__ == "__main__":
    unittest.main()

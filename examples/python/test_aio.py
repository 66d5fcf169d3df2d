"""Tests of sqlgym.AsyncClient and sqlgym.SQLGymEnv against a real server.

SQLGYM_TEST_URL (and for the token test SQLGYM_TEST_TOKEN_URL and
SQLGYM_TEST_TOKEN) name the servers; examples/python/python_test.go
starts them and runs this file with the installed package. Connection
drops are made by a TCP relay between the client and the server, which
can cut every connection, stop listening, or hold the server's bytes.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import unittest
import urllib.parse
from typing import Any, List, Optional, Set

import sqlgym

from test_client import TOKEN, TOKEN_URL, URL, demo_gold


class Relay:
    """A TCP relay to the server, on a port of its own: drop() cuts the
    connections through it, stop() also stops listening, hold() keeps the
    server's bytes back until release()."""

    def __init__(self, target: str):
        parts = urllib.parse.urlsplit(target)
        self._host, self._port, self._path = parts.hostname, parts.port, parts.path
        self._writers: Set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: Optional[asyncio.AbstractServer] = None
        self.connections = 0

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}{self._path}"

    async def _serve(self, creader: asyncio.StreamReader, cwriter: asyncio.StreamWriter) -> None:
        # A connection the relay is stopped or cut under ends here quietly:
        # asyncio would print the handler's CancelledError or OSError as a
        # traceback, which is no failure of the client under test.
        self.connections += 1
        try:
            sreader, swriter = await asyncio.open_connection(self._host, self._port)
            self._writers |= {cwriter, swriter}
            await asyncio.gather(self._pipe(creader, swriter, False), self._pipe(sreader, cwriter, True))
        except (OSError, asyncio.CancelledError):
            cwriter.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, from_server: bool) -> None:
        try:
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    break
                if from_server:
                    await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.transport.abort()
            self._writers.discard(writer)

    def hold(self) -> None:
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def drop(self) -> None:
        for w in list(self._writers):
            w.transport.abort()

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        self.drop()
        await self._server.wait_closed()


async def until(condition: Any, what: str) -> None:
    """Waits for condition() to hold: an event the test can observe only by looking."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"still not {what} after 60s")
        await asyncio.sleep(0.01)


async def recorded(episode_id: str, condition: Any, what: str) -> None:
    """Waits until the server's record of the episode, read over a
    connection of its own, meets condition."""
    async with sqlgym.AsyncClient(URL) as direct:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while not condition(await direct.get(episode_id)):
            if loop.time() > deadline:
                raise AssertionError(f"still not {what} after 60s")
            await asyncio.sleep(0.01)


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


class PackageTest(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("SQLGYM_TEST_INSTALLED"), "SQLGYM_TEST_INSTALLED is not set")
    def test_the_installed_package_is_the_one_tested(self) -> None:
        self.assertTrue(sqlgym.__file__.startswith(sys.prefix), f"{sqlgym.__file__} is not under {sys.prefix}")
        self.assertNotEqual(sys.prefix, sys.base_prefix, "not in a virtual environment")

    def test_the_old_module_name(self) -> None:
        import sqlgym_client
        self.assertIs(sqlgym_client.Client, sqlgym.Client)
        self.assertIs(sqlgym_client.run_batch, sqlgym.run_batch)


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class AsyncClientTest(unittest.TestCase):
    def test_mirrors_the_sync_client(self) -> None:
        for name in ("info", "tasks", "iter_tasks", "reset", "step", "close_episode", "get", "call"):
            with self.subTest(name):
                sync = inspect.signature(getattr(sqlgym.Client, name))
                aio = inspect.signature(getattr(sqlgym.AsyncClient, name))
                self.assertEqual(list(aio.parameters), list(sync.parameters))
                self.assertEqual([p.default for p in aio.parameters.values()],
                                 [p.default for p in sync.parameters.values()])
        self.assertTrue(inspect.iscoroutinefunction(sqlgym.AsyncClient.aclose))

    def test_connect_and_async_with(self) -> None:
        async def main() -> None:
            client = await sqlgym.AsyncClient.connect(URL)
            self.assertEqual((await client.info())["protocol"], sqlgym.PROTOCOL)
            await client.aclose()
            self.assertEqual(client.close_code, 1000)
            with self.assertRaises(sqlgym.ConnectionClosed):
                await client.info()
            async with sqlgym.AsyncClient(URL, token=None) as c:
                native = await c.reset("demo/library-001", prompt_style="native")
                self.assertNotIn("<tool_call>", native["messages"][0]["content"])
                self.assertEqual((await c.get(native["episode_id"]))["prompt_style"], "native")
                await c.close_episode(native["episode_id"])
                page = await c.tasks(dataset="demo", offset=1, limit=2)
                self.assertEqual(len(page["tasks"]), 2)
                every = [t async for t in c.iter_tasks("demo", page=25)]
                self.assertEqual(len(every), page["total"])
            self.assertTrue(c.closed)
        run(main())

    def test_episode_lifecycle(self) -> None:
        async def main() -> None:
            async with sqlgym.AsyncClient(URL) as c:
                r = await c.reset(task_id="demo/library-001", max_turns=3, tags={"policy": "aio"})
                ep = r["episode_id"]
                self.assertEqual(c.live_episodes, [ep])
                s = await c.step(ep, tool="execute_sql", arguments={"sql": "SELECT 6 * 7"})
                self.assertEqual(s["info"]["result"]["rows"], [[42]])
                s = await c.step(ep, text=f'<tool_call>{{"name": "submit", "arguments": '
                                           f'{{"sql": {json.dumps(demo_gold("library-001"))}}}}}</tool_call>')
                self.assertEqual((s["terminated"], s["info"]["outcome"]), (True, "correct"))
                self.assertEqual(c.live_episodes, [])
                summary = await c.close_episode(ep)
                self.assertEqual((summary["outcome"], summary["turns"]), ("correct", 2))
                record = await c.get(ep)
                self.assertEqual((record["tags"], len(record["steps"])), ({"policy": "aio"}, 2))
                with self.assertRaises(ValueError):
                    await c.step(ep, text="x", tool="submit")
        run(main())

    def test_many_episodes_in_flight_on_one_socket(self) -> None:
        async def episode(c: sqlgym.AsyncClient, i: int) -> List[int]:
            ep = (await c.reset(task_id="demo/shop-001", max_turns=8))["episode_id"]
            steps = [c.step(ep, tool="execute_sql", arguments={"sql": f"SELECT {i * 4 + k}"}) for k in range(4)]
            got = await asyncio.gather(*steps)
            for k, s in enumerate(got):
                self.assertEqual(s["info"]["result"]["rows"], [[i * 4 + k]], "a reply went to the wrong caller")
            self.assertEqual((await c.close_episode(ep))["turns"], 4)
            return [s["info"]["turn"] for s in got]

        async def main() -> None:
            async with sqlgym.AsyncClient(URL) as c:
                turns = await asyncio.gather(*(episode(c, i) for i in range(50)))
                self.assertEqual({tuple(t) for t in turns}, {(1, 2, 3, 4)}, "steps of one episode ran out of order")
                self.assertEqual(c.reconnects, 0)
        run(main())

    def test_rpc_errors_carry_their_code(self) -> None:
        async def main() -> None:
            async with sqlgym.AsyncClient(URL) as c:
                cases = [
                    ("unknown method", c.call("episode.explode"), sqlgym.METHOD_NOT_FOUND),
                    ("out of range", c.reset(max_turns=65), sqlgym.INVALID_PARAMS),
                    ("no such episode", c.step("ep_missing", text="x"), sqlgym.EPISODE_NOT_FOUND),
                    ("no such record", c.get("ep_missing"), sqlgym.EPISODE_NOT_FOUND),
                    ("no such task", c.reset(task_id="demo/no-such-task"), sqlgym.NOT_FOUND),
                ]
                for name, coro, code in cases:
                    with self.subTest(name):
                        with self.assertRaises(sqlgym.RPCError) as ctx:
                            await coro
                        self.assertEqual(ctx.exception.code, code, str(ctx.exception))
                self.assertEqual((await c.info())["protocol"], sqlgym.PROTOCOL)  # the socket survives errors
        run(main())

    def test_call_timeout(self) -> None:
        async def main() -> None:
            relay = Relay(URL)
            url = await relay.start()
            async with sqlgym.AsyncClient(url) as c:
                ep = (await c.reset(task_id="demo/library-001"))["episode_id"]
                relay.hold()  # the step's reply comes only after its caller has given up
                with self.assertRaises(sqlgym.CallTimeout):
                    await c.call("episode.step", {"episode_id": ep, "action": {"tool": "execute_sql",
                                                                              "arguments": {"sql": "SELECT 1"}}},
                                 timeout=0.3)
                relay.release()
                summary = await c.close_episode(ep)  # answered after the late step reply: the step still ran
                self.assertEqual(summary["turns"], 1)
                self.assertEqual(c._pending, {})
            await relay.stop()
        run(main())

    def test_reconnect_resumes_live_episodes(self) -> None:
        async def main() -> None:
            relay = Relay(URL)
            url = await relay.start()
            async with sqlgym.AsyncClient(url, reconnect_delay=0.01) as c:
                eps = [(await c.reset(task_id="demo/library-001", max_turns=6))["episode_id"] for _ in range(10)]
                await asyncio.gather(*(c.step(ep, tool="inspect_schema") for ep in eps))
                relay.drop()
                await until(lambda: c.reconnects == 1, "reconnected")
                got = await asyncio.gather(*(c.step(ep, tool="execute_sql", arguments={"sql": "SELECT 1"})
                                             for ep in eps))
                self.assertEqual([s["info"]["turn"] for s in got], [2] * 10)
                self.assertEqual(c.reconnects, 1)
                self.assertEqual(relay.connections, 2)
                self.assertEqual(sorted(eps), c.live_episodes)
                closed = await asyncio.gather(*(c.close_episode(ep) for ep in eps))
                self.assertEqual({(s["outcome"], s["turns"]) for s in closed}, {("no_submit", 2)})
            await relay.stop()
        run(main())

    def test_calls_in_flight_when_the_connection_drops(self) -> None:
        async def main() -> None:
            relay = Relay(URL)
            url = await relay.start()
            async with sqlgym.AsyncClient(url, reconnect_delay=0.01) as c:
                ep = (await c.reset(task_id="demo/library-001"))["episode_id"]
                relay.hold()  # the server runs both calls; their replies are lost with the connection
                step = asyncio.ensure_future(c.step(ep, tool="execute_sql", arguments={"sql": "SELECT 1"}))
                await recorded(ep, lambda r: len(r["steps"]) == 1, "the step recorded")
                close = asyncio.ensure_future(c.close_episode(ep))
                await recorded(ep, lambda r: r.get("ended_at") is not None, "the episode closed")
                relay.drop()
                relay.release()
                got = await step  # sent again with its turn: answered from the record, not run twice
                self.assertEqual(got["info"]["turn"], 1)
                self.assertTrue(got["info"].get("replayed"))
                summary = await close  # sent again after the reconnect: the same summary
                self.assertEqual((summary["outcome"], summary["turns"]), ("no_submit", 1))
                self.assertEqual([st["tool"] for st in (await c.get(ep))["steps"]], ["execute_sql"])
            await relay.stop()
        run(main())

    def test_a_reset_given_up_on_is_closed_when_its_reply_comes(self) -> None:
        async def main() -> None:
            relay = Relay(URL)
            url = await relay.start()
            async with sqlgym.AsyncClient(URL) as observer:
                before = (await observer.info())["stats"]
                c = await sqlgym.AsyncClient.connect(url, timeout=0.3)
                relay.hold()
                with self.assertRaises(sqlgym.CallTimeout):
                    await c.reset(task_id="demo/library-001")
                relay.release()
                await c.aclose(timeout=60)  # waits for the late reply, and the close it sends
                after = (await observer.info())["stats"]
            self.assertEqual(after["episodes_started"] - before["episodes_started"], 1)
            self.assertEqual(after["live_episodes"], before["live_episodes"], "the late reset's episode was left live")
            await relay.stop()
        run(main())

    def test_reconnects_that_fail(self) -> None:
        async def main() -> None:
            relay = Relay(URL)
            url = await relay.start()
            c = await sqlgym.AsyncClient.connect(url, reconnect_attempts=2, reconnect_delay=0.01)
            ep = (await c.reset(task_id="demo/library-001"))["episode_id"]
            await relay.stop()
            await until(lambda: c.closed, "given up")
            with self.assertRaises(sqlgym.ConnectionClosed) as ctx:
                await c.step(ep, tool="inspect_schema")
            self.assertIn("2 reconnects failed", str(ctx.exception))
            self.assertTrue(c.closed)
            await c.aclose()
            async with sqlgym.AsyncClient(URL) as direct:  # the episode lives on: another socket finishes it
                self.assertEqual((await direct.close_episode(ep))["outcome"], "no_submit")
        run(main())

    def test_urls(self) -> None:
        with self.assertRaisesRegex(ValueError, "ws:// or wss://"):
            sqlgym.AsyncClient(URL.replace("ws://", "http://"))
        parts = urllib.parse.urlsplit(URL)

        async def main() -> None:
            for url in (f"ws://{parts.netloc}", f"ws://{parts.netloc}/"):
                async with sqlgym.AsyncClient(url) as c:
                    self.assertEqual((await c.info())["protocol"], sqlgym.PROTOCOL)
            with self.assertRaises(sqlgym.TransportError):
                await sqlgym.AsyncClient.connect(f"ws://{parts.netloc}/no-such-path")
        run(main())


@unittest.skipUnless(TOKEN_URL and TOKEN, "SQLGYM_TEST_TOKEN_URL and SQLGYM_TEST_TOKEN are not set")
class AsyncTokenTest(unittest.TestCase):
    def test_tokens(self) -> None:
        async def main() -> None:
            for name, token in (("no token", None), ("wrong token", TOKEN + "x")):
                with self.subTest(name):
                    with self.assertRaises(sqlgym.TransportError) as ctx:
                        await sqlgym.AsyncClient.connect(TOKEN_URL, token=token)
                    self.assertEqual(ctx.exception.status, 401)
            async with sqlgym.AsyncClient(TOKEN_URL, token=TOKEN) as c:
                self.assertEqual((await c.info())["protocol"], sqlgym.PROTOCOL)
        run(main())


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class SQLGymEnvTest(unittest.TestCase):
    def test_reset_step_render_close(self) -> None:
        env = sqlgym.SQLGymEnv(URL, render_mode="ansi", dataset="demo", tags={"policy": "env"})
        self.addCleanup(env.close)
        obs, info = env.reset(seed=7)
        first = info["task"]["task_id"]
        self.assertEqual([m["role"] for m in obs], ["system", "user"])
        self.assertEqual(env.reset(seed=7)[1]["task"]["task_id"], first, "the same seed drew another task")
        obs, info = env.reset(options={"task_id": "demo/library-001", "max_turns": 2})
        self.assertEqual((info["task"]["task_id"], info["max_turns"]), ("demo/library-001", 2))
        call = json.dumps({"name": "submit", "arguments": {"sql": demo_gold("library-001")}})
        obs, reward, terminated, truncated, info = env.step(f"<tool_call>{call}</tool_call>")
        self.assertEqual((reward, terminated, truncated, info["outcome"]), (1.0, True, False, "correct"))
        self.assertEqual([m["role"] for m in obs], ["system", "user", "assistant", "tool"])
        self.assertIn("[tool] Submitted. Correct.", env.render())
        self.assertIs(env.unwrapped, env)
        with self.assertRaises(TypeError):
            env.step({"tool": "submit"})  # type: ignore[arg-type]
        record = env.client.get(env.episode_id)
        self.assertEqual(record["tags"], {"policy": "env"})

    def test_truncation_and_close(self) -> None:
        with sqlgym.Client(URL) as client:
            env = sqlgym.SQLGymEnv(client=client, task_id="demo/shop-001", max_turns=1)
            env.reset()
            _, _, terminated, truncated, info = env.step("no call here")
            self.assertEqual((terminated, truncated, info["outcome"]), (False, True, "no_submit"))
            env.reset()
            ep = env.episode_id
            env.close()  # closes the running episode, not the shared client
            self.assertEqual(client.get(ep)["outcome"], "no_submit")
            self.assertFalse(client.closed)

    def test_client_as_first_argument(self) -> None:
        """SQLGymEnv(client, ...) shares the client, as SQLEnv(client, ...)
        does, and reset's reward may name a preset."""
        with sqlgym.Client(URL) as client:
            wrong = json.dumps({"name": "submit", "arguments": {"sql": "SELECT 5"}})
            paid = {}
            for reward in ("binary", None):
                env = sqlgym.SQLGymEnv(client, task_id="demo/library-001", reward=reward)
                self.assertIs(env.client, client)
                env.reset()
                _, paid[reward], terminated, _, info = env.step(f"<tool_call>{wrong}</tool_call>")
                self.assertEqual((terminated, info["outcome"]), (True, "mismatch"))
                env.close()
                self.assertFalse(client.closed, "the env closed a client it was given")
            self.assertEqual(paid["binary"], 0.0, "binary pays a wrong answer nothing")
            self.assertGreater(paid[None], 0.0, "the server's default spec pays a wrong answer that runs")
        with sqlgym.Client(URL) as client:
            with self.assertRaisesRegex(TypeError, "give the client once"):
                sqlgym.SQLGymEnv(client, client=client)
        with self.assertRaisesRegex(TypeError, "a server URL \\(a str\\) or a sqlgym.Client, not int"):
            sqlgym.SQLGymEnv(42)  # type: ignore[arg-type]
        with sqlgym.Client(URL) as client, self.assertRaises(sqlgym.RPCError) as ctx:
            client.reset(task_id="demo/library-001", reward="binar")
        self.assertIn('no reward preset "binar" (presets: arctic-text2sql-r1, binary', str(ctx.exception))


if __name__ == "__main__":
    unittest.main()

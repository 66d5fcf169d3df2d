"""Tests of sqlgym_client.

WebSocketTest checks the RFC 6455 framing against hand-made frames on a
socket pair. ServerTest and TokenTest run against a real sqlgym server:
SQLGYM_TEST_URL (ws://host:port/v1/ws), and for the token tests
SQLGYM_TEST_TOKEN_URL and SQLGYM_TEST_TOKEN, a second server started with
--token. examples/python/python_test.go starts both and runs this file:

    go test ./examples/python/
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import sys
import threading
import time
import unittest
import urllib.parse
from typing import Any, Callable, Dict, List, Tuple

import sqlgym.client as sg

URL = os.environ.get("SQLGYM_TEST_URL", "")
TOKEN_URL = os.environ.get("SQLGYM_TEST_TOKEN_URL", "")
TOKEN = os.environ.get("SQLGYM_TEST_TOKEN", "")
DEMO_TASKS = os.environ.get("SQLGYM_TEST_DEMO_TASKS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "demo", "tasks.jsonl")


def demo_gold(key: str) -> str:
    """The gold SQL of a demo task, from the dataset's source file."""
    with open(DEMO_TASKS, encoding="utf-8") as f:
        for line in f:
            task = json.loads(line)
            if task["task_id"] == key:
                return task["gold_sql"]
    raise KeyError(key)


def http_url(ws_url: str) -> str:
    """The /v1/rpc URL of the server behind a /v1/ws URL."""
    return ws_url.replace("ws://", "http://", 1).replace("/v1/ws", "/v1/rpc")


def hermes(tool: str, **arguments: Any) -> str:
    """A completion calling tool the way Qwen and Hermes templates do."""
    call = json.dumps({"name": tool, "arguments": arguments})
    return f"I will call {tool}.\n<tool_call>\n{call}\n</tool_call>"


class HeldReplies:
    """Holds every reply a client's reader gets until :meth:`release`, as
    a slow server would: calls made meanwhile time out. It notes the
    episode of each ``episode.reset`` reply it lets through."""

    def __init__(self, client: sg.Client) -> None:
        self._gate = threading.Event()
        self._lock = threading.Lock()
        self._reset_episodes: List[str] = []
        self._dispatch = client._dispatch
        client._dispatch = self._late  # type: ignore[method-assign]

    def release(self) -> None:
        self._gate.set()

    @property
    def reset_episodes(self) -> List[str]:
        """The episodes of the reset replies that reached the client."""
        with self._lock:
            return list(self._reset_episodes)

    def _late(self, msg: str, ws: Any = None) -> None:
        self._gate.wait(120)  # a failed test must not hold the reader for ever
        reply = json.loads(msg)
        for item in reply if isinstance(reply, list) else [reply]:
            result = item.get("result")
            if isinstance(result, dict) and "tools" in result:  # only a reset's result has tools
                with self._lock:
                    self._reset_episodes.append(result["episode_id"])
        self._dispatch(msg, ws)


# --- WebSocket framing, against a hand-driven peer --------------------------------


def read_client_frame(sock: socket.socket) -> Tuple[bool, int, bool, bytes]:
    """Reads one frame a client sent: (fin, opcode, masked, unmasked payload)."""
    def exact(n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("peer closed")
            buf += chunk
        return buf

    b0, b1 = exact(2)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(exact(2), "big")
    elif n == 127:
        n = int.from_bytes(exact(8), "big")
    masked = bool(b1 & 0x80)
    key = exact(4) if masked else b""
    payload = exact(n)
    if masked:
        payload = bytes(c ^ key[i % 4] for i, c in enumerate(payload))
    return bool(b0 & 0x80), b0 & 0x0F, masked, payload


def server_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    return sg.encode_frame(opcode, payload, fin=fin, mask=False)


def send_quietly(sock: socket.socket, data: bytes) -> None:
    """Writes data, ignoring a reader that hung up before taking it all."""
    try:
        sock.sendall(data)
    except OSError:
        pass


class WebSocketTest(unittest.TestCase):
    def setUp(self) -> None:
        self.mine, self.peer = socket.socketpair()
        self.ws = sg.WebSocket(self.mine, max_frame_bytes=1 << 20)

    def tearDown(self) -> None:
        self.ws.abort()
        self.peer.close()

    def send_from_peer(self, data: bytes) -> threading.Thread:
        """Writes data from the peer on a thread, so large writes cannot block the test."""
        t = threading.Thread(target=send_quietly, args=(self.peer, data))
        t.start()
        return t

    def test_accept_key_matches_rfc_example(self) -> None:
        self.assertEqual(sg.accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")

    def test_sent_frames_are_masked_with_every_length_encoding(self) -> None:
        for n in (0, 125, 126, 65535, 65536, 200000):
            with self.subTest(length=n):
                text = ("é" * n)[: n // 2] + "x" * (n - 2 * (n // 2))  # n bytes of UTF-8
                sender = threading.Thread(target=self.ws.send_text, args=(text,))
                sender.start()
                fin, opcode, masked, payload = read_client_frame(self.peer)
                sender.join()
                self.assertEqual((fin, opcode, masked), (True, 0x1, True))
                self.assertEqual(payload.decode("utf-8"), text)

    def test_received_lengths(self) -> None:
        for n in (1, 125, 126, 65535, 65536, 300000):
            with self.subTest(length=n):
                text = "y" * n
                writer = self.send_from_peer(server_frame(0x1, text.encode()))
                got = self.ws.recv_message()
                writer.join()
                self.assertEqual(got, text)

    def test_fragmented_message_with_a_ping_inside(self) -> None:
        frames = (server_frame(0x1, b"hel", fin=False) + server_frame(0x9, b"are you there")
                  + server_frame(0x0, "lo wörld".encode(), fin=False) + server_frame(0x0, b"!"))
        self.send_from_peer(frames).join()
        self.assertEqual(self.ws.recv_message(), "hello wörld!")
        fin, opcode, masked, payload = read_client_frame(self.peer)
        self.assertEqual((fin, opcode, masked, payload), (True, 0xA, True, b"are you there"))

    def test_close_handshake_from_the_peer(self) -> None:
        self.send_from_peer(server_frame(0x8, (1001).to_bytes(2, "big") + b"going away")).join()
        self.assertIsNone(self.ws.recv_message())
        self.assertEqual((self.ws.close_code, self.ws.close_reason), (1001, "going away"))
        _, opcode, masked, payload = read_client_frame(self.peer)
        self.assertEqual((opcode, masked, int.from_bytes(payload[:2], "big")), (0x8, True, 1001))
        with self.assertRaises(sg.ConnectionClosed):
            self.ws.send_text("after close")

    def test_violations_close_with_their_code(self) -> None:
        masked = sg.encode_frame(0x1, b"masked", mask=True)
        cases = [
            ("frame over the limit", server_frame(0x1, b"z" * ((1 << 20) + 1)), 1009),
            ("message over the limit", server_frame(0x1, b"z" * (1 << 19), fin=False)
             + server_frame(0x0, b"z" * ((1 << 19) + 1)), 1009),
            ("masked server frame", masked, 1002),
            ("continuation first", server_frame(0x0, b"lost"), 1002),
            ("new message inside a fragmented one", server_frame(0x1, b"a", fin=False) + server_frame(0x1, b"b"), 1002),
            ("binary message", server_frame(0x2, b"\x00\x01"), 1003),
            ("invalid UTF-8", server_frame(0x1, b"\xff\xfe"), 1007),
            ("fragmented ping", server_frame(0x9, b"p", fin=False), 1002),
        ]
        for name, data, code in cases:
            with self.subTest(name):
                mine, peer = socket.socketpair()
                ws = sg.WebSocket(mine, max_frame_bytes=1 << 20)
                writer = threading.Thread(target=send_quietly, args=(peer, data))
                writer.start()
                with self.assertRaises(sg.TransportError):
                    ws.recv_message()
                _, opcode, _, payload = read_client_frame(peer)
                self.assertEqual((opcode, int.from_bytes(payload[:2], "big")), (0x8, code))
                ws.abort()
                writer.join()
                peer.close()

    def test_connection_lost_mid_frame(self) -> None:
        self.send_from_peer(server_frame(0x1, b"complete")[:5]).join()
        self.peer.shutdown(socket.SHUT_WR)
        with self.assertRaises(sg.ConnectionClosed):
            self.ws.recv_message()


class HandshakeTest(unittest.TestCase):
    """connect_websocket against a listener answering a chosen handshake."""

    def serve_once(self, answer) -> str:
        ln = socket.socket()
        ln.bind(("127.0.0.1", 0))
        ln.listen(1)
        self.addCleanup(ln.close)

        def run() -> None:
            conn, _ = ln.accept()
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(4096)
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
                conn.sendall(answer(headers).encode("latin-1"))
                conn.recv(1)  # until the client hangs up

        t = threading.Thread(target=run, daemon=True)
        t.start()
        self.addCleanup(t.join, 5)
        return f"ws://127.0.0.1:{ln.getsockname()[1]}/v1/ws"

    def test_handshakes(self) -> None:
        def upgrade(accept) -> Any:
            return lambda h: ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              f"Sec-WebSocket-Accept: {accept(h)}\r\n\r\n")

        cases: List[Tuple[str, Any, str]] = [
            ("right accept", upgrade(lambda h: sg.accept_key(h["sec-websocket-key"])), ""),
            ("wrong accept", upgrade(lambda h: sg.accept_key("another key")), "wrong Sec-WebSocket-Accept"),
            ("no upgrade", lambda h: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP 200"),
            ("refused", lambda h: "HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\nnope", "HTTP 403 Forbidden: nope"),
        ]
        for name, answer, want in cases:
            with self.subTest(name):
                url = self.serve_once(answer)
                if not want:
                    sg.connect_websocket(url, timeout=5).abort()
                    continue
                with self.assertRaises(sg.TransportError) as ctx:
                    sg.connect_websocket(url, timeout=5)
                self.assertIn(want, str(ctx.exception))


# --- against a real server --------------------------------------------------------


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class ServerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = sg.Client(URL, timeout=30)
        self.addCleanup(self.client.close)

    def test_info(self) -> None:
        info = self.client.info()
        self.assertEqual(info["protocol"], sg.PROTOCOL)
        self.assertEqual({t["function"]["name"] for t in info["tools"]}, {"inspect_schema", "execute_sql", "submit"})
        self.assertIn("demo", [d["name"] for d in info["datasets"]])
        self.assertGreater(info["limits"]["max_frame_bytes"], 0)

    def test_prompt_style(self) -> None:
        self.assertEqual(self.client.info()["prompt_style"], "text")
        text = self.client.reset("demo/library-001")
        native = self.client.reset("demo/library-001", prompt_style="native")
        self.assertIn("<tool_call>", text["messages"][0]["content"])
        self.assertNotIn("<tool_call>", native["messages"][0]["content"])
        self.assertNotIn("execute_sql", native["messages"][0]["content"])
        self.assertEqual(len(native["tools"]), 3)
        self.assertEqual(native["messages"][1], text["messages"][1])
        self.assertEqual(self.client.get(native["episode_id"])["prompt_style"], "native")
        self.assertNotIn("prompt_style", self.client.get(text["episode_id"]))
        for ep in (text, native):
            self.client.close_episode(ep["episode_id"])
        with self.assertRaises(sg.RPCError) as ctx:
            self.client.reset("demo/library-001", prompt_style="chat")
        self.assertEqual(ctx.exception.code, sg.INVALID_PARAMS)
        self.assertIn('prompt_style must be "text" or "native", got "chat"', str(ctx.exception))
        env = sg.SQLEnv(self.client, task_id="demo/library-001", prompt_style="native")
        messages, _ = env.reset()
        self.assertNotIn("<tool_call>", messages[0]["content"])
        self.client.close_episode(env.episode_id)

    def test_tasks_pages(self) -> None:
        first = self.client.tasks(limit=5)
        self.assertEqual(len(first["tasks"]), 5)
        middle = self.client.tasks(offset=2, limit=3)
        self.assertEqual(middle["tasks"], first["tasks"][2:5])
        every = list(self.client.iter_tasks(page=7))
        self.assertEqual(len(every), first["total"])
        self.assertEqual(len({t["task_id"] for t in every}), first["total"])
        self.assertTrue(all("gold_sql" not in t for t in every))
        self.assertEqual(self.client.tasks(dataset="demo", limit=1)["tasks"][0]["dataset"], "demo")

    def test_episode_lifecycle_with_tool_actions(self) -> None:
        r = self.client.reset(task_id="demo/library-001", max_turns=4, tags={"policy": "v1", "group": 3})
        self.assertEqual([m["role"] for m in r["messages"]], ["system", "user"])
        self.assertEqual((r["max_turns"], r["action_format"], r["task"]["db_id"]), (4, "hermes", "library"))
        ep = r["episode_id"]
        s1 = self.client.step(ep, tool="inspect_schema")
        self.assertEqual((s1["observation"]["role"], s1["observation"]["name"]), ("tool", "inspect_schema"))
        self.assertIn("authors", s1["observation"]["content"])
        s2 = self.client.step(ep, tool="execute_sql", arguments={"sql": "SELECT 6 * 7"})
        self.assertEqual((s2["info"]["turn"], s2["info"]["turns_left"]), (2, 2))
        self.assertEqual(s2["info"]["result"]["rows"], [[42]])
        s3 = self.client.step(ep, tool="execute_sql", arguments={"sql": "SELECT nope FROM authors"})
        self.assertEqual(s3["info"]["error"]["code"], "sql_error")
        self.assertAlmostEqual(s3["reward"], sum(s3["info"]["reward_components"].values()))
        summary = self.client.close_episode(ep)
        self.assertEqual((summary["outcome"], summary["turns"]), ("no_submit", 3))
        record = self.client.episode(ep)
        self.assertEqual(record["tags"], {"policy": "v1", "group": 3})
        self.assertEqual([st["tool"] for st in record["steps"]], ["inspect_schema", "execute_sql", "execute_sql"])
        self.assertEqual(record["outcome"], "no_submit")

    def test_text_actions(self) -> None:
        cases = [
            ("hermes", hermes("execute_sql", sql="SELECT 41 + 1"), hermes("submit", sql="SELECT 1")),
            ("tags", "Let me look.\n<sql>SELECT 41 + 1</sql>", "<solution>SELECT 1</solution>"),
        ]
        for fmt, query, answer in cases:
            with self.subTest(fmt):
                r = self.client.reset(task_id="demo/library-001", action_format=fmt)
                self.assertEqual(r["action_format"], fmt)
                s = self.client.step(r["episode_id"], text=query)
                self.assertEqual((s["info"]["tool"], s["info"]["result"]["rows"]), ("execute_sql", [[42]]))
                s = self.client.step(r["episode_id"], text="no call in this text at all")
                self.assertEqual(s["info"]["error"]["code"], "format_error")
                s = self.client.step(r["episode_id"], text=answer)
                self.assertTrue(s["terminated"])
                self.assertEqual(s["info"]["outcome"], "mismatch")

    def test_sqlenv_solves_a_task(self) -> None:
        env = sg.SQLEnv(self.client, task_id="demo/library-001", tags={"policy": "gold"})
        messages, info = env.reset()
        self.assertEqual(len(messages), 2)
        self.assertEqual(len(info["tools"]), 3)
        obs, reward, terminated, truncated, info = env.step(hermes("submit", sql=demo_gold("library-001")))
        self.assertEqual((obs["name"], reward, terminated, truncated), ("submit", 1.0, True, False))
        self.assertEqual((info["outcome"], env.outcome, env.rewards), ("correct", "correct", [1.0]))
        self.assertEqual([m["role"] for m in env.messages], ["system", "user", "assistant", "tool"])
        with self.assertRaises(RuntimeError):
            env.step("again")
        with self.assertRaises(sg.RPCError) as ctx:
            self.client.step(env.episode_id, text="again")
        self.assertEqual(ctx.exception.code, sg.EPISODE_ENDED)
        record = self.client.episode(env.episode_id)
        self.assertEqual((record["outcome"], record["tags"]), ("correct", {"policy": "gold"}))
        self.assertTrue(record["reward_spec_hash"])

    def test_reward_spec_per_episode(self) -> None:
        spec = {"final": {"mismatch": -0.5}}
        r = self.client.reset(task_id="demo/library-001", reward=spec)
        s = self.client.step(r["episode_id"], tool="submit", arguments={"sql": "SELECT 1"})
        self.assertEqual(s["info"]["reward_components"].get("final.mismatch"), -0.5)
        plain = self.client.reset(task_id="demo/library-001")
        self.assertNotEqual(self.client.episode(plain["episode_id"])["reward_spec_hash"],
                            self.client.episode(r["episode_id"])["reward_spec_hash"])
        self.client.close_episode(plain["episode_id"])

    def test_usage_pays_the_length_term(self) -> None:
        spec = {"final": {"length": -0.1, "length_tokens": 1000}}
        r = self.client.reset(task_id="demo/library-001", reward=spec)
        self.client.step(r["episode_id"], tool="execute_sql", arguments={"sql": "SELECT 1"}, completion_tokens=300)
        s = self.client.step(r["episode_id"], tool="submit", arguments={"sql": demo_gold("library-001")},
                             completion_tokens=200)
        self.assertAlmostEqual(s["info"]["reward_components"]["final.length"], -0.05)
        record = self.client.episode(r["episode_id"])
        self.assertEqual([st.get("usage") for st in record["steps"]],
                         [{"completion_tokens": 300}, {"completion_tokens": 200}])

    def test_200_calls_in_flight_on_one_socket(self) -> None:
        resets = [self.client.reset_async(task_id="demo/shop-001", max_turns=8) for _ in range(50)]
        episodes = [f.result(30)["episode_id"] for f in resets]
        steps = [(ep, k, self.client.step_async(ep, tool="execute_sql", arguments={"sql": f"SELECT {i * 4 + k}"}))
                 for i, ep in enumerate(episodes) for k in range(4)]
        self.assertEqual(len(steps), 200)
        turns: Dict[str, List[int]] = {}
        for n, (ep, k, fut) in enumerate(steps):
            got = fut.result(60)
            self.assertEqual(got["info"]["result"]["rows"], [[n]], "a reply went to the wrong caller")
            turns.setdefault(ep, []).append(got["info"]["turn"])
        self.assertEqual(set(map(tuple, turns.values())), {(1, 2, 3, 4)}, "steps of one episode ran out of order")
        closes = [self.client.close_episode_async(ep) for ep in episodes]
        self.assertEqual({f.result(30)["outcome"] for f in closes}, {"no_submit"})

    def test_run_batch(self) -> None:
        task_ids = [t["task_id"] for t in self.client.tasks(dataset="demo", limit=3)["tasks"]]
        batches: List[int] = []

        def policy(conversations: List[List[Dict[str, Any]]]) -> List[str]:
            batches.append(len(conversations))
            return [hermes("inspect_schema") if len(c) == 2 else hermes("submit", sql="SELECT 1") for c in conversations]

        rollouts = sg.run_batch(self.client, policy, task_ids, group_size=2, tags={"step": 7}, max_turns=3)
        self.assertEqual(batches, [6, 6])
        self.assertEqual([(r.task["task_id"], r.tags) for r in rollouts],
                         [(t, {"step": 7, "group": i, "sample": j}) for i, t in enumerate(task_ids) for j in range(2)])
        for r in rollouts:
            self.assertEqual((r.turns, len(r.rewards), len(r.messages)), (2, 2, 6))
            self.assertIn(r.outcome, {"mismatch", "pred_error"})
            self.assertAlmostEqual(sum(r.rewards), r.total_reward)
        self.assertEqual(self.client.episode(rollouts[-1].episode_id)["tags"], {"step": 7, "group": 2, "sample": 1})

    def test_resume_on_a_second_client(self) -> None:
        first = sg.Client(URL)
        ep = first.reset(task_id="demo/library-002")["episode_id"]
        first.step(ep, tool="inspect_schema")
        first.close()
        with sg.Client(URL) as second:
            s = second.step(ep, tool="execute_sql", arguments={"sql": "SELECT count(*) FROM books"})
            self.assertEqual(s["info"]["turn"], 2)
            self.assertEqual(len(second.episode(ep)["steps"]), 2)
            self.assertEqual(second.close_episode(ep)["turns"], 2)

    def test_rpc_errors(self) -> None:
        live = self.client.reset(task_id="demo/library-001")["episode_id"]
        self.addCleanup(self.client.close_episode, live)
        cases = [
            ("unknown method", "episode.explode", {}, sg.METHOD_NOT_FOUND),
            ("unknown field", "episode.reset", {"task_id": "demo/library-001", "bogus": 1}, sg.INVALID_PARAMS),
            ("out of range", "episode.reset", {"max_turns": 65}, sg.INVALID_PARAMS),
            ("bad action", "episode.step", {"episode_id": live, "action": {"sql": "x"}}, sg.INVALID_PARAMS),
            ("no such episode", "episode.step", {"episode_id": "ep_missing", "action": {"text": "x"}}, sg.EPISODE_NOT_FOUND),
            ("no such record", "episode.get", {"episode_id": "ep_missing"}, sg.EPISODE_NOT_FOUND),
            ("no such task", "episode.reset", {"task_id": "demo/no-such-task"}, sg.NOT_FOUND),
        ]
        for name, method, params, code in cases:
            with self.subTest(name):
                with self.assertRaises(sg.RPCError) as ctx:
                    self.client.call(method, params)
                self.assertEqual(ctx.exception.code, code, str(ctx.exception))
                self.assertTrue(ctx.exception.message)
        self.assertEqual(self.client.info()["protocol"], sg.PROTOCOL)  # the socket survives errors

    def test_large_messages(self) -> None:
        r = self.client.reset(task_id="demo/library-001", max_turns=16)
        sql = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) "
               "SELECT x, printf('%.200c', 'y') AS pad FROM c")
        for _ in range(12):
            s = self.client.step(r["episode_id"], tool="execute_sql", arguments={"sql": sql})
            self.assertNotIn("error", s["info"])
        self.assertGreater(len(json.dumps(s)), 1 << 14)
        record = self.client.episode(r["episode_id"])
        self.assertGreater(len(json.dumps(record)), 1 << 16)  # a frame with a 64-bit length
        self.assertEqual(len(record["steps"]), 12)
        self.assertIn("y" * 200, record["steps"][-1]["observation"])
        self.client.close_episode(r["episode_id"])

    def test_http_transport(self) -> None:
        with sg.Client(http_url(URL)) as h:
            self.assertEqual(h.info()["protocol"], sg.PROTOCOL)
            ep = h.reset(task_id="demo/library-001")["episode_id"]
            futs = [h.step_async(ep, tool="execute_sql", arguments={"sql": f"SELECT {k}"}) for k in range(3)]
            self.assertEqual(sorted(f.result(30)["info"]["turn"] for f in futs), [1, 2, 3])
            with self.assertRaises(sg.RPCError) as ctx:
                h.call("episode.explode")
            self.assertEqual(ctx.exception.code, sg.METHOD_NOT_FOUND)
            self.assertEqual(self.client.close_episode(ep)["turns"], 3)  # the same episodes on both transports
        with self.assertRaises(sg.ConnectionClosed):
            h.info()

    def test_sqlenv_drops_a_step_reply_that_came_too_late(self) -> None:
        # The step's reply is held back until its caller has given up
        # (HeldReplies), as a slow server's would be: the call can only
        # time out first, however long the query runs.
        c = sg.Client(URL, timeout=30)
        self.addCleanup(c.close)
        env = sg.SQLEnv(c, task_id="demo/library-001")
        env.reset()
        ep, before = env.episode_id, (list(env.messages), list(env.rewards), env.done)
        replies = HeldReplies(c)
        self.addCleanup(replies.release)
        c.timeout = 0.5
        with self.assertRaises(sg.CallTimeout):
            env.step(hermes("execute_sql", sql="SELECT 1"))
        replies.release()
        c.timeout = 30
        # Replies are read in order, so the late reply has come once this one has.
        nxt = c.step(ep, tool="execute_sql", arguments={"sql": "SELECT 1"})
        self.assertEqual(nxt["info"]["turn"], 2, "the timed-out step still ran on the server")
        self.assertEqual((env.messages, env.rewards, env.done), before, "the late reply was applied")
        self.assertEqual(c._pending, {})
        self.assertTrue(env.in_doubt)
        with self.assertRaisesRegex(RuntimeError, "no reply in time"):
            env.step(hermes("execute_sql", sql="SELECT 2"))
        self.assertEqual([st["turn"] for st in c.episode(ep)["steps"]], [1, 2])
        env.reset()  # closes the episode in doubt, and starts afresh
        self.assertFalse(env.in_doubt)
        summary = c.close_episode(ep)  # after the reset's own close: the same summary again
        self.assertEqual((summary["outcome"], summary["turns"]), ("no_submit", 2))
        self.assertEqual(env.step(hermes("execute_sql", sql="SELECT 3"))[4]["turn"], 1)
        env.close()

    def test_a_reset_given_up_on_is_closed_when_its_reply_comes(self) -> None:
        # Nothing here stands on timing: the replies are held until the
        # caller has given up (a call timeout can only fire first), and
        # close() is given all the time a loaded machine could need to
        # take the late replies and the closes they send, which it waits
        # for. Each episode is then looked up: closed by the client
        # (no_submit), not left for the idle sweeper. A switch interval of
        # a microsecond interleaves the threads as a loaded machine does,
        # and each case runs a few rounds: close() once slipped between a
        # reset reply's Future completing and the callback that closes its
        # orphaned episode, leaving the episode live.
        patience = 120.0
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        self.addCleanup(sys.setswitchinterval, interval)

        def run_batch_timing_out(client: sg.Client, replies: HeldReplies) -> None:
            with self.assertRaises(sg.CallTimeout):
                sg.run_batch(client, lambda convs: ["x"] * len(convs), ["demo/library-001", "demo/shop-001"],
                             group_size=2, timeout=0.2)
            replies.release()

        def client_reset(client: sg.Client, replies: HeldReplies) -> None:
            with self.assertRaises(sg.CallTimeout):
                client.reset(task_id="demo/library-001")
            replies.release()

        def sqlenv_reset(client: sg.Client, replies: HeldReplies) -> None:
            env = sg.SQLEnv(client, task_id="demo/library-001")
            self.assertTrue(env.reset_async().cancel())
            replies.release()
            self.assertIsNone(env.episode_id)

        def client_closing(client: sg.Client, replies: HeldReplies) -> None:
            self.assertTrue(client.reset_async(task_id="demo/library-001").cancel())
            closer = threading.Thread(target=client.close, kwargs={"timeout": patience})
            closer.start()
            deadline = time.monotonic() + patience
            while not client.closed and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertTrue(client.closed, "close() did not start")
            replies.release()  # the reply comes while close() waits for calls in flight
            closer.join()

        cases: List[Tuple[str, Callable[[sg.Client, HeldReplies], None], int]] = [
            ("run_batch timing out", run_batch_timing_out, 4),
            ("Client.reset timing out", client_reset, 1),
            ("SQLEnv.reset_async cancelled", sqlenv_reset, 1),
            ("reset cancelled, then the client closed", client_closing, 1),
        ]
        for (name, give_up, started), round_ in itertools.product(cases, range(5)):
            with self.subTest(name, round=round_):
                before = self.client.info()["stats"]["episodes_started"]
                c = sg.Client(URL, timeout=0.2)
                replies = HeldReplies(c)
                try:
                    give_up(c, replies)
                finally:
                    replies.release()
                    c.close(timeout=patience)  # returns once the late replies and their closes are in
                episodes = replies.reset_episodes
                self.assertEqual(len(episodes), started, "reset replies that reached the client")
                self.assertEqual(self.client.info()["stats"]["episodes_started"] - before, started)
                for ep in episodes:
                    record = self.client.episode(ep)
                    self.assertIsNotNone(record.get("ended_at"), f"{ep} was left running")
                    self.assertEqual(record["outcome"], "no_submit", f"{ep} was not closed by the client")

    def test_a_send_failing_as_the_connection_drops(self) -> None:
        c = sg.Client(URL, reconnect_timeout=0)
        self.addCleanup(c.close)
        ws = c._ws

        def send_after_the_drop(data: Any) -> None:
            c._lost(ws, sg.ConnectionClosed("connection lost"))  # the reader saw the socket end first
            raise OSError("broken pipe")

        ws.send_text = send_after_the_drop  # type: ignore[union-attr]
        fut = c.call_async("server.info")
        with self.assertRaises(sg.ConnectionClosed):
            fut.result(5)
        self.assertEqual(c._pending, {})
        with self.assertRaises(sg.ConnectionClosed):
            c.info()

    def test_params_json_cannot_carry(self) -> None:
        ep = self.client.reset(task_id="demo/library-001")["episode_id"]
        self.addCleanup(self.client.close_episode, ep)
        cases = [
            ("NaN", {"tool": "execute_sql", "arguments": {"sql": "SELECT 1", "n": float("nan")}}, "JSON"),
            ("Infinity", {"tool": "execute_sql", "arguments": {"sql": "SELECT 1", "n": float("inf")}}, "JSON"),
            ("-Infinity", {"tool": "execute_sql", "arguments": {"sql": "SELECT 1", "n": float("-inf")}}, "JSON"),
            ("lone surrogate", {"text": "SELECT '\ud800'"}, "surrogate"),
        ]
        with sg.Client(http_url(URL), timeout=30) as h:
            for transport, c in (("ws", self.client), ("http", h)):
                for name, action, want in cases:
                    with self.subTest(f"{transport}: {name}"):
                        with self.assertRaises(ValueError) as ctx:
                            c.call("episode.step", {"episode_id": ep, "action": action}, timeout=3)
                        self.assertIn("episode.step", str(ctx.exception))
                        self.assertIn(want, str(ctx.exception))
                        self.assertEqual(c._pending, {})
                        self.assertEqual(c.info()["protocol"], sg.PROTOCOL)
        self.assertFalse(self.client.episode(ep)["steps"], "a step was sent")

    def test_urls_without_a_path(self) -> None:
        parts = urllib.parse.urlsplit(URL)
        for url in (f"ws://{parts.netloc}", f"ws://{parts.netloc}/", f"ws://{parts.netloc}/v1/ws",
                    f"http://{parts.netloc}", f"http://{parts.netloc}/"):
            with self.subTest(url):
                with sg.Client(url, timeout=30) as c:
                    self.assertEqual(c.info()["protocol"], sg.PROTOCOL)

    def test_clean_close(self) -> None:
        c = sg.Client(URL)
        reader = c._reader
        in_flight = c.call_async("server.info")
        c.close()
        self.assertEqual(in_flight.result(0)["protocol"], sg.PROTOCOL)  # close waited for it
        self.assertEqual(c.close_code, 1000)
        self.assertTrue(c.closed)
        self.assertFalse(reader.is_alive())
        with self.assertRaises(sg.ConnectionClosed):
            c.info()
        c.close()  # twice is fine


@unittest.skipUnless(TOKEN_URL and TOKEN, "SQLGYM_TEST_TOKEN_URL and SQLGYM_TEST_TOKEN are not set")
class TokenTest(unittest.TestCase):
    def test_tokens(self) -> None:
        cases = [("no token", None, 401), ("wrong token", TOKEN + "x", 401), ("right token", TOKEN, 0)]
        for transport, url in (("ws", TOKEN_URL), ("http", http_url(TOKEN_URL))):
            for name, token, status in cases:
                with self.subTest(f"{transport}: {name}"):
                    if status == 0:
                        with sg.Client(url, token=token) as c:
                            self.assertEqual(c.info()["protocol"], sg.PROTOCOL)
                        continue
                    with self.assertRaises(sg.TransportError) as ctx:
                        with sg.Client(url, token=token) as c:
                            c.info()
                    self.assertEqual(ctx.exception.status, status, str(ctx.exception))


if __name__ == "__main__":
    unittest.main()

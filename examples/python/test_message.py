"""Tests of the message action in sqlgym's Python client: a native
tool-calling model's reply, sent whole, through Client, AsyncClient,
SQLEnv and SQLGymEnv, against a real server (SQLGYM_TEST_URL;
examples/python/python_test.go starts it and runs this file).
"""

from __future__ import annotations

import asyncio
import json
import unittest
from typing import Any, Dict

import sqlgym
from sqlgym.jsonrpc import assistant_message, reset_params, step_params

from test_client import URL, demo_gold

OPEN_LOANS = "SELECT count(*) FROM loans WHERE return_date IS NULL"


def reply(*calls: Dict[str, Any], content: Any = None, reasoning: Any = None) -> Dict[str, Any]:
    """An assistant message as an OpenAI-compatible endpoint returns it,
    with the members a server adds that the protocol does not take."""
    m: Dict[str, Any] = {"role": "assistant", "content": content, "refusal": None, "annotations": [],
                         "tool_calls": list(calls)}
    if reasoning is not None:
        m["reasoning_content"] = reasoning
    return m


def call(name: str, args: Dict[str, Any], call_id: Any = None) -> Dict[str, Any]:
    """A tool call with its arguments as a JSON string (the OpenAI shape)."""
    c: Dict[str, Any] = {"type": "function", "index": 0, "function": {"name": name, "arguments": json.dumps(args)}}
    if call_id is not None:
        c["id"] = call_id
    return c


class Dumped:
    """Stands for the openai package's message objects: model_dump() gives the dict."""

    def __init__(self, d: Dict[str, Any]):
        self._d = d

    def model_dump(self) -> Dict[str, Any]:
        return self._d


class ParamsTest(unittest.TestCase):
    def test_assistant_message_keeps_what_the_protocol_takes(self) -> None:
        m = assistant_message(Dumped(reply(call("submit", {"sql": "SELECT 1"}, "c1"), content="x", reasoning="r")))
        self.assertEqual(m, {"role": "assistant", "content": "x", "reasoning_content": "r", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "submit", "arguments": '{"sql": "SELECT 1"}'}}]})
        self.assertEqual(assistant_message({"role": "assistant", "content": "hm", "reasoning": "why"})["reasoning_content"], "why")
        with self.assertRaises(TypeError):
            assistant_message("text")

    def test_reset_params_prompt_style(self) -> None:
        self.assertEqual(reset_params("demo/library-001", prompt_style="native"),
                         {"task_id": "demo/library-001", "prompt_style": "native"})
        self.assertNotIn("prompt_style", reset_params("demo/library-001"))

    def test_exactly_one_action(self) -> None:
        with self.assertRaises(ValueError):
            step_params("ep", text="x", message={"role": "assistant", "content": "x"})
        with self.assertRaises(ValueError):
            step_params("ep")
        p = step_params("ep", message={"role": "assistant", "content": None}, prompt_tokens=9, finish_reason="stop")
        self.assertEqual((p["usage"], p["finish_reason"]), ({"completion_tokens": 0, "prompt_tokens": 9}, "stop"))
        self.assertEqual(step_params("ep", text="x"), {"episode_id": "ep", "action": {"text": "x"}})


@unittest.skipUnless(URL, "SQLGYM_TEST_URL is not set (go test ./examples/python/ sets it)")
class MessageTest(unittest.TestCase):
    def test_client_runs_every_call_and_the_record_holds_the_message(self) -> None:
        with sqlgym.Client(URL) as c:
            ep = c.reset(task_id="demo/library-003")["episode_id"]
            sent = reply(call("inspect_schema", {"table": "loans"}, "call_look"), call("execute_sql", {"sql": OPEN_LOANS}),
                         content="I will look at the loans table, then count.", reasoning="No return_date means out.")
            s = c.step(ep, message=sent, completion_tokens=40, prompt_tokens=900, finish_reason="tool_calls")
            self.assertEqual([(o["role"], o["tool_call_id"], o["name"]) for o in s["observations"]],
                             [("tool", "call_look", "inspect_schema"), ("tool", "call_1_1", "execute_sql")])
            self.assertEqual([x["id"] for x in s["info"]["calls"]], ["call_look", "call_1_1"])
            self.assertIn("return_date", s["observations"][0]["content"])
            self.assertEqual(s["info"]["tool"], "execute_sql")
            step = c.get(ep)["steps"][0]
            self.assertEqual(step["action"]["message"], assistant_message(sent))
            self.assertEqual((step["content"], step["finish_reason"], step["usage"]),
                             (sent["content"], "tool_calls", {"completion_tokens": 40, "prompt_tokens": 900}))
            self.assertEqual([x["id"] for x in step["calls"]], ["call_look", "call_1_1"])
            done = c.step(ep, message=reply(call("submit", {"sql": OPEN_LOANS}), call("inspect_schema", {}, "late")))
            self.assertEqual((done["terminated"], done["info"]["outcome"]), (True, "correct"))
            self.assertEqual(done["info"]["calls"][1]["error"]["code"], "not_run")

    def test_sqlenv_keeps_the_conversation_the_model_sees(self) -> None:
        with sqlgym.Client(URL) as c:
            env = sqlgym.SQLEnv(c, task_id="demo/library-003")
            env.reset()
            env.step(reply(call("inspect_schema", {}, "a"), call("execute_sql", {"sql": OPEN_LOANS}, "b"), content="Looking."))
            self.assertEqual([m["role"] for m in env.messages], ["system", "user", "assistant", "tool", "tool"])
            self.assertEqual([m["tool_call_id"] for m in env.messages[3:]], ["a", "b"])
            self.assertNotIn("refusal", env.messages[2])
            env.step(reply(call("execute_sql", {"sql": "SELECT 1"})))  # no id: given call_2_0 before it is sent
            self.assertEqual((env.messages[-2]["tool_calls"][0]["id"], env.messages[-1]["tool_call_id"]), ("call_2_0", "call_2_0"))
            self.assertEqual(c.get(env.episode_id)["steps"][-1]["action"]["message"], env.messages[-2])
            _, reward, terminated, _, info = env.step(reply(content="The answer is in the rows."))
            self.assertEqual((info["error"]["code"], env.messages[-1]["role"]), ("format_error", "user"))
            _, reward, terminated, _, info = env.step(reply(call("submit", {"sql": OPEN_LOANS}, "s")))
            self.assertEqual((terminated, info["outcome"]), (True, "correct"))

    def test_async_client(self) -> None:
        async def main() -> None:
            async with sqlgym.AsyncClient(URL) as c:
                ep = (await c.reset(task_id="demo/library-001"))["episode_id"]
                s = await c.step(ep, message=Dumped(reply(call("execute_sql", {"sql": "SELECT 6 * 7"}, "x"),
                                                          call("submit", {"sql": demo_gold("library-001")}, "y"))),
                                 finish_reason="tool_calls")
                self.assertEqual([o["tool_call_id"] for o in s["observations"]], ["x", "y"])
                self.assertEqual((s["info"]["calls"][0]["result"]["rows"], s["info"]["outcome"]), ([[42]], "correct"))
        asyncio.run(main())

    def test_sqlgymenv(self) -> None:
        env = sqlgym.SQLGymEnv(URL, render_mode="ansi", task_id="demo/library-001")
        self.addCleanup(env.close)
        env.reset()
        obs, reward, terminated, truncated, info = env.step(
            reply(call("submit", {"sql": demo_gold("library-001")}, "only"), content="Done."), completion_tokens=12)
        self.assertEqual((terminated, info["outcome"], [m["role"] for m in obs][-2:]), (True, "correct", ["assistant", "tool"]))
        self.assertIn("call only submit", env.render())
        with self.assertRaises(TypeError):
            env.step({"tool": "submit"})


if __name__ == "__main__":
    unittest.main()

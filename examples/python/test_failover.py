"""The Python client across replicas: one killed or drained mid-run.

examples/python/failover_test.go starts two ``sqlgym serve --takeover``
replicas on one PostgreSQL store behind a proxy that gives every
connection to the first replica while it accepts, then to the second, and
runs this file with:

- SQLGYM_TEST_FAILOVER_URL: the proxy's WebSocket URL;
- SQLGYM_TEST_FAILOVER_DIRECT: the second replica's URL, which outlives
  the first;
- SQLGYM_TEST_FAILOVER_PID and SQLGYM_TEST_FAILOVER_SIGNAL: the first
  replica's process and the signal it gets mid-run (9: killed, 15:
  drained);
- SQLGYM_TEST_FAILOVER_CLIENT: ``sync`` (run_batch on a Client) or
  ``async`` (the episodes as tasks on an AsyncClient).

A batch of episodes runs over one client through the proxy; at the second
turn the policy signals the first replica, so that every episode is live
there, and the turn's steps go out as it dies or drains. Every episode
must still finish, each
step recorded once, with the rewards a run of the same actions on the
surviving replica gets.
"""

from __future__ import annotations

import asyncio
import os
import unittest
from typing import Any, Dict, List, Tuple

import sqlgym

URL = os.environ.get("SQLGYM_TEST_FAILOVER_URL", "")
DIRECT = os.environ.get("SQLGYM_TEST_FAILOVER_DIRECT", "")
PID = int(os.environ.get("SQLGYM_TEST_FAILOVER_PID", "0"))
SIGNAL = int(os.environ.get("SQLGYM_TEST_FAILOVER_SIGNAL", "9"))
CLIENT = os.environ.get("SQLGYM_TEST_FAILOVER_CLIENT", "sync")

HELD_ELSEWHERE_PATIENCE = 0.2
"""The reconnect_timeout of the clients that meet an episode held elsewhere."""

TASKS = ["demo/library-001", "demo/library-003", "demo/clinic-001", "demo/shop-001"]
GROUP = 4


def action(turn: int, sample: int) -> str:
    """The scripted policy's completion: two queries, then a submit."""
    if turn < 3:
        sql = f"SELECT {turn * 10 + sample}"
        return '<tool_call>{"name": "execute_sql", "arguments": {"sql": "' + sql + '"}}</tool_call>'
    return '<tool_call>{"name": "submit", "arguments": {"sql": "SELECT 1"}}</tool_call>'


def play(client: sqlgym.Client, on_turn: Any = None) -> List[sqlgym.Rollout]:
    turn = {"n": 0}

    def policy(convs: List[List[Dict[str, Any]]]) -> List[str]:
        turn["n"] += 1
        if on_turn is not None:
            on_turn(turn["n"])
        return [action(turn["n"], i % GROUP) for i in range(len(convs))]

    return sqlgym.run_batch(client, policy, TASKS, group_size=GROUP, max_turns=5)


class Played:
    """One episode as the async run saw it: its rewards and summary."""

    def __init__(self, episode_id: str):
        self.episode_id = episode_id
        self.rewards: List[float] = []
        self.summary: Dict[str, Any] = {}


async def play_async(url: str, on_turn: Any = None) -> Tuple[List[Played], int]:
    """The same episodes and actions as play, each turn's steps sent
    together from tasks of one AsyncClient; returns them and the client's
    reconnects."""
    async with sqlgym.AsyncClient(url, timeout=120) as c:
        resets = await asyncio.gather(*(c.reset(task_id=t, max_turns=5) for t in TASKS for _ in range(GROUP)))
        eps = [Played(r["episode_id"]) for r in resets]
        for turn in (1, 2, 3):
            if on_turn is not None:
                on_turn(turn)
            steps = await asyncio.gather(*(c.step(e.episode_id, text=action(turn, i % GROUP)) for i, e in enumerate(eps)))
            for e, st in zip(eps, steps):
                e.rewards.append(st["reward"])
        for e, summary in zip(eps, await asyncio.gather(*(c.close_episode(e.episode_id) for e in eps))):
            e.summary = summary
        return eps, c.reconnects


@unittest.skipUnless(URL and DIRECT and PID, "SQLGYM_TEST_FAILOVER_* are not set (failover_test.go sets them)")
class FailoverTest(unittest.TestCase):
    def test_an_episode_held_elsewhere(self) -> None:
        # Runs first (by name): both replicas are live. The first answers
        # EPISODE_ELSEWHERE for an episode the second drives; the client
        # reconnects and sends it again, and the proxy gives it the first
        # again, until reconnect_timeout: then the error is the caller's.
        # The timeout counts from the first refusal, which is always sent
        # again, so a short one still shows both the resend and the end.
        http = URL.replace("ws://", "http://", 1).replace("/v1/ws", "/v1/rpc")
        with sqlgym.Client(DIRECT, timeout=120) as direct:
            ep = direct.reset(task_id="demo/library-001")["episode_id"]
            for url in (URL, http):
                with self.subTest(url), sqlgym.Client(url, timeout=120, reconnect_timeout=HELD_ELSEWHERE_PATIENCE) as c:
                    with self.assertRaises(sqlgym.RPCError) as ctx:
                        c.step(ep, tool="inspect_schema")
                    self.assertEqual(ctx.exception.code, sqlgym.EPISODE_ELSEWHERE)
                    if url == URL:
                        self.assertGreaterEqual(c.reconnects, 1, "the step was not sent again on a new connection")
                    self.assertEqual(c.info()["protocol"], sqlgym.PROTOCOL)  # the client goes on
            with self.subTest("AsyncClient"):
                asyncio.run(self.held_elsewhere_async(ep))
            self.assertEqual(direct.step(ep, tool="inspect_schema")["info"]["turn"], 1, "a refused step ran")
            direct.close_episode(ep)

    async def held_elsewhere_async(self, ep: str) -> None:
        async with sqlgym.AsyncClient(URL, timeout=120, reconnect_timeout=HELD_ELSEWHERE_PATIENCE) as c:
            with self.assertRaises(sqlgym.RPCError) as ctx:
                await c.step(ep, tool="inspect_schema")
            self.assertEqual(ctx.exception.code, sqlgym.EPISODE_ELSEWHERE)
            self.assertGreaterEqual(c.reconnects, 1, "the step was not sent again on a new connection")
            self.assertEqual((await c.info())["protocol"], sqlgym.PROTOCOL)

    def test_every_episode_finishes_on_the_surviving_replica(self) -> None:
        if CLIENT == "async":
            self.async_episodes_finish()
            return

        def strike(turn: int) -> None:
            if turn == 2:
                os.kill(PID, SIGNAL)

        with sqlgym.Client(URL, timeout=120) as client:
            got = play(client, strike)
            self.assertGreaterEqual(client.reconnects, 1, "the client never left the first replica")
        with sqlgym.Client(DIRECT, timeout=120) as direct:
            want = play(direct)
            for r in got:
                record = direct.get(r.episode_id)
                self.assertEqual([s["turn"] for s in record["steps"]], [1, 2, 3],
                                 f"{r.episode_id}: a step lost or run twice")
                self.assertIsNotNone(record.get("ended_at"), f"{r.episode_id} did not end")
        self.assertEqual([r.turns for r in got], [3] * len(TASKS) * GROUP)
        self.assertEqual([r.outcome for r in got], [r.outcome for r in want])
        self.assertEqual([r.rewards for r in got], [r.rewards for r in want])
        self.assertEqual([r.total_reward for r in got], [r.total_reward for r in want])
        print(f"{len(got)} episodes finished across signal {SIGNAL}")


    def async_episodes_finish(self) -> None:
        got, reconnects = asyncio.run(play_async(URL, lambda turn: os.kill(PID, SIGNAL) if turn == 2 else None))
        self.assertGreaterEqual(reconnects, 1, "the client never left the first replica")
        want, _ = asyncio.run(play_async(DIRECT))
        with sqlgym.Client(DIRECT, timeout=120) as direct:
            for e in got:
                self.assertEqual([s["turn"] for s in direct.get(e.episode_id)["steps"]], [1, 2, 3],
                                 f"{e.episode_id}: a step lost or run twice")
        self.assertEqual([e.rewards for e in got], [e.rewards for e in want])
        self.assertEqual([(e.summary["outcome"], e.summary["turns"], e.summary["total_reward"]) for e in got],
                         [(e.summary["outcome"], e.summary["turns"], e.summary["total_reward"]) for e in want])
        print(f"{len(got)} episodes finished across signal {SIGNAL}")

if __name__ == "__main__":
    unittest.main()

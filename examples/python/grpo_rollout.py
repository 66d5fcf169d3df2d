"""A GRPO-style rollout loop over one asyncio connection.

For each of ``--groups`` tasks of ``--dataset`` (by default the first
dataset the server serves, as server.info lists them) it runs ``--group-size``
episodes (a GRPO group), at most ``--concurrency`` at once, all over one
:class:`sqlgym.AsyncClient`. A scripted stand-in for the policy plays each
episode: it inspects the schema, tries candidate queries built from the
question's words with ``execute_sql``, and submits one that ran. Each
sample of a group draws its choices from its own random stream, so a
group's rewards differ, and the advantages are group-relative:
``(reward - group mean) / (group std + 1e-6)``.

It prints one line per group (rewards, mean, std, correct, advantages),
then the throughput, and exits 1 if any rollout was dropped (an episode
that raised instead of ending with a recorded outcome).

    go run ./cmd/sqlgym serve &
    python3 examples/python/grpo_rollout.py --groups 8 --group-size 4 --concurrency 16

Swap ``ScriptedPolicy`` for your model: ``act`` gets the conversation so
far and returns the next completion.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import sqlgym

Table = Tuple[str, List[str]]


def tool_call(name: str, **arguments: Any) -> str:
    """A completion calling name the way Qwen and Hermes chat templates do."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def parse_schema(text: str) -> List[Table]:
    """The tables and columns of an inspect_schema observation: ``t(c1 TYPE, c2 TYPE)`` lines."""
    tables = []
    for name, cols in re.findall(r"^(\w+)\((.*)\)\s*$", text, re.MULTILINE):
        tables.append((name, [c.strip().split(" ")[0].strip('"`') for c in cols.split(",") if c.strip()]))
    return tables


def words(text: str) -> List[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z_]+", text)]


class ScriptedPolicy:
    """A stand-in for the model: schema first, then candidate queries, then a submit."""

    def __init__(self, rng: random.Random, tries: int = 2):
        self.rng = rng
        self.tries = tries
        self.question = ""
        self.tables: List[Table] = []
        self.candidates: List[str] = []
        self.ran: List[str] = []

    def act(self, messages: List[Dict[str, Any]], last: Optional[Dict[str, Any]]) -> str:
        """The next completion, given the conversation and the last step's reply."""
        if last is None:
            self.question = messages[-1]["content"]
            return tool_call("inspect_schema")
        if not self.tables:
            self.tables = parse_schema(last["observation"]["content"])
            self.candidates = self._candidates()
        elif "error" not in last["info"]:
            self.ran.append(self._tried)
        if self.candidates and len(self.ran) == 0 and self.tries > 0:
            self.tries -= 1
            self._tried = self.candidates.pop(0)
            return tool_call("execute_sql", sql=self._tried)
        return tool_call("submit", sql=self.ran[0] if self.ran else self._tried)

    def _candidates(self) -> List[str]:
        asked = set(words(self.question))
        named = [t for t in self.tables if t[0].lower() in asked or t[0].lower().rstrip("s") in asked]
        pool = named or self.tables or [("sqlite_master", ["name"])]
        out = []
        for table, cols in self.rng.sample(pool, len(pool)):
            hit = [c for c in cols if c.lower() in asked] or cols[:1] or ["*"]
            if asked & {"how", "many", "number", "count"}:
                out.append(f"SELECT count(*) FROM {table}")
            out.append(f"SELECT {', '.join(hit)} FROM {table}")
        if self.rng.random() < 0.25:  # now and then a misspelled table, as a model would
            out.insert(0, f"SELECT * FROM {pool[0][0]}_x")
        return out


@dataclass
class Rollout:
    group: int
    sample: int
    task_id: str
    episode_id: str = ""
    outcome: str = ""
    reward: float = 0.0
    turns: int = 0
    advantage: float = 0.0
    error: str = ""


@dataclass
class Run:
    rollouts: List[Rollout] = field(default_factory=list)
    steps: int = 0


async def play(client: sqlgym.AsyncClient, r: Rollout, policy: ScriptedPolicy, tags: Dict[str, Any],
               max_turns: int, run: Run) -> None:
    """One episode, closed (and so recorded) whatever happens; errors land in r.error."""
    try:
        reset = await client.reset(task_id=r.task_id, max_turns=max_turns,
                                   tags={**tags, "group": r.group, "sample": r.sample})
        r.episode_id = reset["episode_id"]
        messages, last = list(reset["messages"]), None
        while True:
            completion = policy.act(messages, last)
            last = await client.step(r.episode_id, text=completion)
            run.steps += 1
            messages += [{"role": "assistant", "content": completion}, last["observation"]]
            if last["terminated"] or last["truncated"]:
                break
        summary = await client.close_episode(r.episode_id)
        r.outcome, r.reward, r.turns = summary["outcome"], summary["total_reward"], summary["turns"]
    except (sqlgym.SQLGymError, KeyError, ValueError) as e:
        r.error = f"{type(e).__name__}: {e}"
        if r.episode_id:
            try:
                await client.close_episode(r.episode_id)
            except sqlgym.SQLGymError:
                pass


def advantages(group: List[Rollout]) -> None:
    """GRPO: each reward minus its group's mean, over the group's std."""
    rewards = [r.reward for r in group]
    mean, std = statistics.fmean(rewards), statistics.pstdev(rewards)
    for r in group:
        r.advantage = (r.reward - mean) / (std + 1e-6)


async def main(args: argparse.Namespace) -> int:
    async with sqlgym.AsyncClient(args.url, token=args.token, timeout=args.timeout) as client:
        served = [d["name"] for d in (await client.info())["datasets"]]
        dataset = args.dataset or served[0]
        if dataset not in served:
            print(f"--dataset {dataset}: the server serves {', '.join(served)}", file=sys.stderr)
            return 2
        tasks = (await client.tasks(dataset=dataset, offset=args.offset, limit=args.groups))["tasks"]
        if len(tasks) < args.groups:
            print(f"{dataset} has {len(tasks)} tasks from offset {args.offset}, fewer than --groups {args.groups}",
                  file=sys.stderr)
            return 2
        run = Run([Rollout(g, s, t["task_id"]) for g, t in enumerate(tasks) for s in range(args.group_size)])
        gate = asyncio.Semaphore(args.concurrency)
        tags = {"policy": args.policy_version, "batch": 0}

        async def one(r: Rollout) -> None:
            async with gate:
                policy = ScriptedPolicy(random.Random(f"{args.seed}/{r.group}/{r.sample}"))
                await play(client, r, policy, tags, args.max_turns, run)

        start = time.monotonic()
        await asyncio.gather(*(one(r) for r in run.rollouts))
        elapsed = time.monotonic() - start
    return report(run, args.group_size, elapsed)


def report(run: Run, group_size: int, elapsed: float) -> int:
    """Prints the groups and the throughput; 1 when a rollout was dropped."""
    dropped = [r for r in run.rollouts if r.error]
    for g in range(0, len(run.rollouts), group_size):
        group = [r for r in run.rollouts[g:g + group_size] if not r.error]
        if not group:
            continue
        advantages(group)
        rewards = [r.reward for r in group]
        correct = sum(r.outcome == "correct" for r in group)
        print(f"group {group[0].group:>3} {group[0].task_id:<28} rewards "
              + " ".join(f"{x:+.2f}" for x in rewards)
              + f"  mean {statistics.fmean(rewards):+.3f} std {statistics.pstdev(rewards):.3f}"
              + f"  correct {correct}/{len(group)}  advantages " + " ".join(f"{r.advantage:+.2f}" for r in group))
    for r in dropped:
        print(f"dropped: group {r.group} sample {r.sample} {r.task_id} {r.episode_id}: {r.error}", file=sys.stderr)
    ended = len(run.rollouts) - len(dropped)
    outcomes: Dict[str, int] = {}
    for r in run.rollouts:
        if not r.error:
            outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
    print(f"{len(run.rollouts)} rollouts in {len(run.rollouts) // group_size} groups: {ended} ended, "
          f"{len(dropped)} dropped; outcomes " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"throughput: {ended / elapsed:.1f} episodes/s, {run.steps / elapsed:.1f} steps/s over {elapsed:.2f}s")
    return 1 if dropped else 0


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default=sqlgym.DEFAULT_URL, help="the server's ws://host:port/v1/ws")
    p.add_argument("--token", default=None, help="the server's --token, if it has one")
    p.add_argument("--dataset", default=None, help="dataset the tasks come from (default: the server's first)")
    p.add_argument("--offset", type=int, default=0, help="first task of the dataset to use")
    p.add_argument("--groups", type=int, default=8, help="tasks, one GRPO group each")
    p.add_argument("--group-size", type=int, default=4, help="episodes per group")
    p.add_argument("--concurrency", type=int, default=32, help="episodes in flight at once")
    p.add_argument("--max-turns", type=int, default=6, help="turn budget of each episode")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds a call may take")
    p.add_argument("--seed", type=int, default=0, help="seed of the scripted policy")
    p.add_argument("--policy-version", default="scripted-0", help="stored in each trajectory's tags")
    args = p.parse_args(argv)
    for name in ("groups", "group_size", "concurrency", "max_turns"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))

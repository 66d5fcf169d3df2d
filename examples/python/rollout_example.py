"""A rollout worker in miniature: GRPO groups over one socket.

Runs ``--group-size`` episodes of each of the first tasks of a dataset
(``--dataset``, by default the first the server serves, as server.info
lists them) concurrently over one WebSocket, with a scripted stand-in for the policy
(look at the schema, then submit a guess), computes group-relative
advantages the way GRPO does, and reads one trajectory back.

    go run ./cmd/sqlgym serve &
    python3 examples/python/rollout_example.py --tasks 8 --group-size 4

Swap ``scripted_policy`` for a batched call to your inference engine: the
policy gets the conversation of every episode still running and returns
one completion each: a string (a text action, here in the hermes format),
or with ``--native`` the assistant message a native tool-calling endpoint
returns (text beside its calls), which the server runs call by call and
answers with one tool message per call.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from collections import Counter, defaultdict
from typing import Any, Dict, List, Optional

from sqlgym import DEFAULT_URL, Client, Policy, Rollout, run_batch


def scripted_policy(rng: random.Random, native: bool = False) -> Policy:
    """A stand-in for the model. Turn 1: inspect the schema. Turn 2: count
    the rows of a table picked at random, misspelled now and then, so that
    the episodes of a group earn different rewards. With native, each
    completion is an assistant message with the call in tool_calls."""

    def policy(conversations: List[List[Dict[str, Any]]]) -> List[Any]:
        out: List[Any] = []
        for conv in conversations:
            if conv[-1]["role"] != "tool":
                call = {"name": "inspect_schema", "arguments": {}}
                text = "I will look at the tables first."
            else:
                tables = re.findall(r"^(\w+)\(", conv[-1]["content"], re.MULTILINE) or ["sqlite_master"]
                table = rng.choice(tables) + ("_typo" if rng.random() < 0.3 else "")
                call = {"name": "submit", "arguments": {"sql": f"SELECT count(*) FROM {table}"}}
                text = f"Counting the rows of {table}."
            if native:
                out.append({"role": "assistant", "content": text, "tool_calls": [
                    {"id": f"call_{len(conv)}", "type": "function",
                     "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]})
            else:
                out.append(f"{text}\n<tool_call>\n{json.dumps(call)}\n</tool_call>")
        return out

    return policy


def choose_dataset(client: Client, wanted: Optional[str]) -> str:
    """The dataset to take tasks from: ``wanted`` when the server serves it,
    else (None) the server's first; a dataset it does not serve ends the
    script with a message naming those it does."""
    served = [d["name"] for d in client.info()["datasets"]]
    if wanted is None:
        return served[0]
    if wanted not in served:
        print(f"--dataset {wanted}: the server serves {', '.join(served)}", file=sys.stderr)
        raise SystemExit(2)
    return wanted


def advantages(rollouts: List[Rollout]) -> Dict[str, float]:
    """GRPO: each episode's total reward minus its group's mean, over the group's std."""
    groups: Dict[Any, List[Rollout]] = defaultdict(list)
    for r in rollouts:
        groups[r.tags["group"]].append(r)
    adv = {}
    for members in groups.values():
        rewards = [r.total_reward for r in members]
        mean, std = statistics.fmean(rewards), statistics.pstdev(rewards)
        for r in members:
            adv[r.episode_id] = ((r.total_reward - mean) / (std + 1e-6)) or 0.0
    return adv


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default=DEFAULT_URL, help="ws://host:port/v1/ws, or http://host:port/v1/rpc")
    p.add_argument("--token", default=None, help="the server's --token, if it has one")
    p.add_argument("--dataset", default=None, help="dataset the tasks come from (default: the server's first)")
    p.add_argument("--tasks", type=int, default=4, help="tasks (GRPO groups) in the batch")
    p.add_argument("--group-size", type=int, default=4, help="episodes per task")
    p.add_argument("--policy-version", default="scripted-0", help="stored in each trajectory's tags")
    p.add_argument("--seed", type=int, default=0, help="seed of the scripted policy")
    p.add_argument("--native", action="store_true", help="step with assistant messages (native tool calls) instead of text")
    args = p.parse_args(argv)

    with Client(args.url, token=args.token) as client:
        dataset = choose_dataset(client, args.dataset)
        tasks = client.tasks(dataset=dataset, limit=args.tasks)["tasks"]
        print(f"{len(tasks)} tasks of {dataset}, {args.group_size} episodes each")
        policy = scripted_policy(random.Random(args.seed), native=args.native)
        rollouts = run_batch(client, policy, [t["task_id"] for t in tasks],
                             group_size=args.group_size, tags={"policy": args.policy_version, "batch": 0},
                             max_turns=4)
        adv = advantages(rollouts)
        for r in rollouts:
            print(f"{r.task['task_id']:<24} group {r.tags['group']:>2} sample {r.tags['sample']} "
                  f"{r.outcome:<10} reward {r.total_reward:+.2f} advantage {adv[r.episode_id]:+.2f}")
        outcomes = Counter(r.outcome for r in rollouts)
        print(f"{len(rollouts)} episodes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))

        record = client.episode(rollouts[0].episode_id)
        print(f"trajectory {record['episode_id']}: tags {record['tags']}, outcome {record['outcome']}, "
              f"spec {record['reward_spec_hash'][:19]}")
        for step in record["steps"]:
            print(f"  turn {step['turn']} {step['tool']:<15} reward {step['reward']:+.2f} "
                  f"{step['observation'].splitlines()[0][:60]}")
            if "content" in step:  # the text the model wrote beside its calls
                print(f"         text: {step['content'][:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

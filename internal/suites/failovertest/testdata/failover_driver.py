"""Plays scripted episodes through a sqlgym endpoint with the asyncio client
and writes a JSON log of every acknowledged step and each episode's end.

Episode i plays task i (mod the task file's length) with a script of its
own, chosen by i: inspect_schema, the gold run with execute_sql, the same
call again (a repeat), a statement that does not parse, and then the gold
or a wrong query submitted, or the episode closed without a submission.
The same arguments give the same episodes, so that two runs' rewards can
be compared episode by episode.

The client resumes by itself, as a trainer's would: it sends each step's
turn, and reconnects and sends again what had no reply when a replica is
lost; the driver only steps and logs what was acknowledged.

With --gate-after K, once K steps have been acknowledged in all, the
driver prints "GATE <count>" and the even-numbered episodes send nothing
more until a line arrives on standard input; the odd ones go on. Every
fifth episode (i % 5 == 4) is reset only once that line has come. A test
uses it to stop and kill replicas while episodes are live, and to start
episodes while they are gone.
"""

import argparse
import asyncio
import json
import sys
import time

import sqlgym


def script(i, task):
    """The actions of episode i: (method, tool, arguments) tuples."""
    gold = task["gold_sql"]
    acts = [("step", "inspect_schema", {}), ("step", "execute_sql", {"sql": gold})]
    if i % 2 == 0:
        acts.append(("step", "execute_sql", {"sql": gold}))
    if i % 3 == 0:
        acts.append(("step", "execute_sql", {"sql": "SELEC nothing FROM nowhere"}))
    ending = i % 4
    if ending == 0:
        acts.append(("step", "submit", {"sql": "SELECT 1"}))
    elif ending == 1:
        acts.append(("close", None, None))
    else:
        acts.append(("step", "submit", {"sql": gold}))
    return acts


class Gate:
    """Holds even-numbered episodes once enough steps were acknowledged."""

    def __init__(self, after):
        self.after = after
        self.acked = 0
        self.armed = False
        self.opened = asyncio.Event()
        if after <= 0:
            self.opened.set()

    def ack(self):
        self.acked += 1
        if not self.armed and self.after > 0 and self.acked >= self.after:
            self.armed = True
            print(f"GATE {self.acked}", flush=True)
            asyncio.get_running_loop().run_in_executor(None, self._wait_stdin)

    def _wait_stdin(self):
        sys.stdin.readline()
        loop.call_soon_threadsafe(self.opened.set)

    async def hold(self, i):
        """Before a step: waits while the gate holds even episodes."""
        if self.armed and i % 2 == 0:
            await self.opened.wait()

    async def start(self, i):
        """Before a reset: every fifth episode waits for the gate to open."""
        if i % 5 == 4:
            await self.opened.wait()


async def play(i, task, dataset, client, gate, sem):
    """Runs episode i and returns its log entry."""
    entry = {"index": i, "task_id": task["task_id"], "steps": []}
    async with sem:
        try:
            await gate.start(i)
            r = await client.reset(task_id=dataset + "/" + task["task_id"], tags={"driver_index": str(i)})
            entry["episode_id"] = eid = r["episode_id"]
            for method, tool, args in script(i, task):
                await gate.hold(i)
                before, t0 = client.reconnects, time.monotonic()
                if method == "close":
                    s = await client.close_episode(eid)
                    entry["close"] = {k: s.get(k) for k in ("outcome", "total_reward", "final_reward", "turns")}
                    break
                s = await client.step(eid, tool=tool, arguments=args)
                info = s.get("info", {})
                entry["steps"].append({"turn": info.get("turn"), "reward": s["reward"],
                                       "terminated": s["terminated"], "truncated": s["truncated"],
                                       "outcome": info.get("outcome"), "replayed": bool(info.get("replayed")),
                                       "latency_ms": (time.monotonic() - t0) * 1000,
                                       "across_reconnect": client.reconnects != before})
                gate.ack()
                if s["terminated"] or s["truncated"]:
                    break
        except Exception as e:  # every failure is reported in the log, by episode
            entry["error"] = f"{type(e).__name__}: {e}"
    return entry


async def main(args):
    with open(args.tasks) as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    clients = [await sqlgym.AsyncClient.connect(args.url, timeout=args.timeout,
                                                reconnect_timeout=args.reconnect_timeout)
               for _ in range(args.sockets)]
    gate, sem = Gate(args.gate_after), asyncio.Semaphore(args.concurrency)
    t0 = time.monotonic()
    entries = await asyncio.gather(*(play(i, tasks[i % len(tasks)], args.dataset, clients[i % len(clients)], gate, sem)
                                     for i in range(args.episodes)))
    elapsed = time.monotonic() - t0
    reconnects = sum(c.reconnects for c in clients)
    for c in clients:
        await c.aclose()
    log = {"episodes": entries, "reconnects": reconnects, "elapsed_s": elapsed,
           "steps": sum(len(e["steps"]) for e in entries)}
    with open(args.log, "w") as f:
        json.dump(log, f)
    errors = [e for e in entries if "error" in e]
    print(f"{len(entries)} episodes, {log['steps']} steps, {len(errors)} failed, "
          f"{reconnects} reconnects, {elapsed:.2f}s", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True)
    p.add_argument("--tasks", required=True, help="the dataset's tasks.jsonl (task_id, gold_sql)")
    p.add_argument("--dataset", default="demo", help="the dataset the tasks' ids are in")
    p.add_argument("--episodes", type=int, default=300)
    p.add_argument("--concurrency", type=int, default=300, help="episodes live at once")
    p.add_argument("--sockets", type=int, default=12, help="WebSockets (AsyncClients) the episodes share")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds one call may take, reconnects included")
    p.add_argument("--reconnect-timeout", type=float, default=60.0)
    p.add_argument("--gate-after", type=int, default=0, help="hold even episodes after this many steps")
    p.add_argument("--log", required=True)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main(p.parse_args()))

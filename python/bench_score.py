"""Per-call Python overhead of E1 scoring (not a test; prints figures).

    python python/bench_score.py [N]

Compares ``Env.score`` called from Python with the same scoring looped in
Rust (``Env._bench_score``); the difference is the binding's overhead
(argument conversion, GIL release, result dict). Also times the verifiers
rubric component path (LRU hit and miss), a TRL reward function call, and
one GRPO step's batch through the TRL reward functions: 256 distinct
conversational completions (32 prompts × 8 generations) scored as
``GRPOTrainer`` calls them, each run with fresh functions so every
completion is scored (medians of 21 runs).
"""

from __future__ import annotations

import statistics
import sys
import time

import svbench
from svbench import trl
from svbench._common import Scorer

COMPLETION = '{"label": "Malicious", "confidence": 0.83, "rationale": "odd port"}'


def per_call(fn, n: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    env = svbench.open_env("e1")
    row = env.load("test")["rows"][0]
    ex = row["example_id"]
    rust = min(env._bench_score(COMPLETION, ex, n) for _ in range(5)) / n
    py = per_call(lambda: env.score(COMPLETION, example_id=ex), n)
    print(f"E1 score in Rust (loop):          {rust * 1e6:8.2f} µs/call")
    print(f"E1 Env.score from Python:         {py * 1e6:8.2f} µs/call")
    print(f"Python overhead per call:         {(py - rust) * 1e6:8.2f} µs (target < 20)")

    scorer = Scorer(env)
    info = {"sv_example_id": ex}
    scorer.score(COMPLETION, row["answer"], info)
    hit = per_call(lambda: scorer.score(COMPLETION, row["answer"], info), n)
    print(f"rubric component (LRU hit):       {hit * 1e6:8.2f} µs/call")
    texts = [COMPLETION[:-1] + f', "n": {i}}}' for i in range(n)]
    it = iter(texts)
    miss = per_call(lambda: scorer.score(next(it), row["answer"], info), n // 5)
    print(f"rubric component (LRU miss):      {miss * 1e6:8.2f} µs/call")

    f = trl.reward_func("e1")
    batch = 64
    cols = {"answer": [row["answer"]] * batch, "info": [None] * batch, "sv_example_id": [ex] * batch}
    comps = [COMPLETION] * batch
    t = per_call(lambda: f(prompts=None, completions=comps, **cols), max(1, n // batch // 4))
    print(f"TRL reward_func, batch of {batch}:     {t / batch * 1e6:8.2f} µs/completion (LRU hits)")

    trl_step(env, env.load("test")["rows"])
    from svbench._vf_api import v1_installed

    if v1_installed():
        v1_step()
    else:
        print("verifiers v1 task rewards: skipped (needs verifiers >= 0.4)")


def trl_step(env, rows: list, prompts: int = 32, generations: int = 8, runs: int = 21) -> None:
    """µs per completion for a GRPO batch through ``svbench.trl``."""
    picked = [rows[i % len(rows)] for i in range(prompts)]
    n = prompts * generations
    completions = [
        [
            {
                "role": "assistant",
                "content": f'{{"label": "{("Benign", "Malicious")[i % 2]}", "confidence": {0.5 + i / 1000:.3f}, '
                f'"rationale": "sample {i}"}}',
            }
        ]
        for i in range(n)
    ]
    cols = {
        "question": [r["question"] for r in picked for _ in range(generations)],
        "answer": [r["answer"] for r in picked for _ in range(generations)],
        "info": [None] * n,
        "sv_example_id": [r["example_id"] for r in picked for _ in range(generations)],
    }
    prompt = [[{"role": "user", "content": r["question"]}] for r in picked for _ in range(generations)]
    extra = {"trainer_state": None, "log_extra": lambda *a: None, "log_metric": lambda *a: None}

    def run(make) -> float:
        times = []
        for _ in range(runs):
            funcs = make()
            start = time.perf_counter()
            for f in funcs:
                f(prompts=prompt, completions=completions, completion_ids=None, **cols, **extra)
            times.append((time.perf_counter() - start) / n)
        return statistics.median(times)

    k = len(trl.reward_funcs("e1")[0])
    comps = run(lambda: trl.reward_funcs("e1")[0])
    total = run(lambda: [trl.reward_func("e1")])
    ex = picked[0]["example_id"]
    native = statistics.median(env._bench_score(completions[0][0]["content"], ex, 2000) / 2000 for _ in range(runs))
    print(f"GRPO batch of {n} ({prompts} prompts × {generations}), fresh functions, median of {runs} runs:")
    print(f"  E1 score in Rust (loop):        {native * 1e6:8.2f} µs/completion")
    print(f"  TRL reward_funcs ({k} functions): {comps * 1e6:8.2f} µs/completion")
    print(f"  TRL reward_func (total):        {total * 1e6:8.2f} µs/completion")
    print(f"  Python overhead, components:    {(comps - native) * 1e6:8.2f} µs/completion")
    print(f"  Python overhead, total:         {(total - native) * 1e6:8.2f} µs/completion")


def v1_step(batch: int = 256, runs: int = 21) -> None:
    """µs per completion for a batch of traces scored by a v1 task's reward
    methods (verifiers' own ``Task.score``: every component), distinct
    completions so nothing is a cache hit."""
    import asyncio

    import verifiers.v1 as vf
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.trace import AgentInfo, TraceTask
    from verifiers.v1.utils.loaders import taskset_config_type

    from svbench.verifiers_v1 import taskset_class

    cls = taskset_class("e1")
    config = taskset_config_type("sv-env-network-logs").model_validate({"id": "sv-env-network-logs", "split": "test"})
    tasks = list(cls(config).take(32))
    env = tasks[0].config.native()

    def traces(run: int) -> list:
        out = []
        for i in range(batch):
            task = tasks[i % len(tasks)]
            text = COMPLETION[:-1] + f', "n": {run * batch + i}}}'
            msgs = [
                vf.SystemMessage(content=task.data.system_prompt),
                *task.data.prompt,
                vf.AssistantMessage(content=text),
            ]
            nodes = [
                MessageNode(message=m, parent=j - 1 if j else None, sampled=j == len(msgs) - 1)
                for j, m in enumerate(msgs)
            ]
            trace = vf.Trace(
                task=TraceTask(type="bench", data=task.data), agent=AgentInfo(config=vf.AgentConfig()), nodes=nodes
            )
            out.append((task, trace))
        return out

    async def score_all(pairs: list) -> None:
        await asyncio.gather(*(task.score(trace) for task, trace in pairs))

    times = []
    for run in range(runs):
        pairs = traces(run)
        start = time.perf_counter()
        asyncio.run(score_all(pairs))
        times.append((time.perf_counter() - start) / batch)
    v1 = statistics.median(times)
    native = statistics.median(env._bench_score(COMPLETION, tasks[0].key, 2000) / 2000 for _ in range(runs))
    print(f"verifiers v1 Task.score, batch of {batch} traces (every component), median of {runs} runs:")
    print(f"  E1 score in Rust (loop):        {native * 1e6:8.2f} µs/completion")
    print(f"  v1 reward methods:              {v1 * 1e6:8.2f} µs/completion")
    print(f"  Python overhead:                {(v1 - native) * 1e6:8.2f} µs/completion")


if __name__ == "__main__":
    main()

"""Per-call Python overhead of E1 scoring (not a test; prints figures).

    python python/bench_score.py [N]

Compares ``Env.score`` called from Python with the same scoring looped in
Rust (``Env._bench_score``); the difference is the binding's overhead
(argument conversion, GIL release, result dict). Also times the verifiers
rubric component path (LRU hit and miss) and a TRL reward function call.
"""

from __future__ import annotations

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


if __name__ == "__main__":
    main()

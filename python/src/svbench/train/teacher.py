"""Teacher answers for SFT, produced by svbench's own builtin policies
through `svbench eval`, so a teacher answers exactly as it does on a
scoreboard. Which teachers an environment has, and which builtin policy
answers for each, the environment declares in the registry
(`svbench.train.envs`); `svbench envs ENV` lists its builtins. A partial
teacher keeps only a seeded share of its answer's findings
(`sft.teacher_share`; at least one when there are any), so the student
starts with recall to gain.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svbench.train.envs import env_training
from svbench.train.errors import ConfigError
from svbench.train.rundir import svbench_bin


def student_env_args(env: str, extra: dict[str, Any]) -> dict[str, Any]:
    """The student's environment arguments: the environment's fixed ones
    (E2 answers from the config in the prompt, without tool calls) plus a
    config's `env_args`."""
    return {**env_training(env).student_args, **extra}


def env_arg_flags(args: dict[str, Any]) -> list[str]:
    """`--env-arg key=value` flags for `svbench eval` (values as JSON)."""
    flags = []
    for k, v in sorted(args.items()):
        flags += ["--env-arg", f"{k}={json.dumps(v)}"]
    return flags


@dataclass
class TeacherRow:
    example_id: str
    prompt: list[dict]
    completion: str


def _partial(completion: str, key: str, share: float, rng: random.Random) -> str:
    """The answer keeping a seeded `share` of its findings list `key` (at least one)."""
    answer = json.loads(completion)
    found = answer.get(key, [])
    if found:
        keep = max(1, round(len(found) * share))
        kept = sorted(rng.sample(range(len(found)), keep))
        answer[key] = [found[i] for i in kept]
    return json.dumps(answer, separators=(",", ":"))


def teacher_rows(
    env: str,
    teacher: str,
    dataset: str,
    split: str,
    examples: int,
    seed: int,
    out_dir: Path,
    share: float = 1.0,
    env_args: dict[str, Any] | None = None,
) -> tuple[list[TeacherRow], dict]:
    """The teacher's answers on the first `examples` rows of `split`, asked
    with the student's environment arguments (the config's `env_args` on top
    of the fixed ones), and what produced them (`{"policy", "dataset",
    "split", "dataset_revision", "env_args", "run_dir"}`). The `svbench eval`
    run is kept under `out_dir` and reused when complete."""
    training = env_training(env)
    chosen = training.teacher(teacher, "teacher", env)
    policy = chosen.model
    args = student_env_args(env, env_args or {})
    extra = env_arg_flags(args)
    # Prompts depend on the arguments, so runs with other arguments are other runs.
    tag = f"-args-{hashlib.sha256(json.dumps(env_args, sort_keys=True).encode()).hexdigest()[:8]}" if env_args else ""
    run_id = f"{teacher}-{split}-{examples}{tag}"
    root = out_dir / "teachers"
    found = sorted(root.glob(f"*/{run_id}/run_manifest.json"))
    if not found:
        # An interrupted teacher run has no manifest yet: start it again.
        for partial in root.glob(f"*/{run_id}"):
            shutil.rmtree(partial)
        cmd = [svbench_bin(), "eval", env, "--model", policy, "--dataset", dataset, "--split", split]
        cmd += ["-n", str(examples), "--seed", str(seed), "--run-id", run_id, "--output-dir", str(root)]
        cmd += ["--no-progress", *extra]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ConfigError(f"teacher run failed ({' '.join(cmd)}):\n{proc.stderr.strip()}")
        found = sorted(root.glob(f"*/{run_id}/run_manifest.json"))
    run_dir = found[0].parent
    manifest = json.loads(found[0].read_text(encoding="utf-8"))
    rng = random.Random(seed)
    rows = []
    with (run_dir / "results.jsonl").open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("error") or r.get("completion") is None:
                raise ConfigError(f"teacher run {run_dir} has an errored row ({r.get('example_id')})")
            completion = r["completion"]
            if chosen.partial:
                completion = _partial(completion, str(training.findings), share, rng)
            rows.append(TeacherRow(r["example_id"], r["prompt"], completion))
    facts = {
        "policy": policy + (f" keeping {share:g} of the findings" if chosen.partial else ""),
        "dataset": dataset,
        "split": split,
        "dataset_revision": manifest["dataset_revision"],
        "env_args": args,
        "rows": len(rows),
        "run_dir": str(run_dir),
    }
    return rows, facts


__all__ = ["TeacherRow", "env_arg_flags", "student_env_args", "teacher_rows"]

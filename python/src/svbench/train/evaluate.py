"""Held-out evaluation through the normal harness: the checkpoint is served
on 127.0.0.1 by `svbench.train.serve` and `svbench eval` runs it like any
other model (greedy, no response cache, the trainer and steps recorded),
so reports, scoreboards and `svbench compare` work unchanged."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from svbench.train.config import ConfigError, TrainConfig, eval_source, training_hashes
from svbench.train.rundir import svbench_bin
from svbench.train.teacher import env_arg_flags, student_env_args


def _complete(run_dir: Path) -> bool:
    meta = run_dir / "metadata.json"
    if not (run_dir / "run_manifest.json").exists() or not meta.exists():
        return False
    return json.loads(meta.read_text(encoding="utf-8")).get("status") == "completed"


def exported_gguf(cfg: TrainConfig, ckpt: Path) -> Path:
    """`ckpt` as a float16 GGUF beside it (made once), with the metadata of
    the GGUF file the model came from, for the llama.cpp engine."""
    from svbench.train.checkpoint import weights_fingerprint
    from svbench.train.gguf_export import export_gguf, exported_fingerprint
    from svbench.train.pretrained import resolve

    out = ckpt.with_name(ckpt.name + ".f16.gguf")
    if out.is_file() and exported_fingerprint(out) == weights_fingerprint(ckpt):
        return out
    source = resolve(cfg.model)
    if source.kind != "gguf":
        raise ConfigError(f"eval.engine llama-cpp: the model ({source.named}) is not a GGUF file")
    return export_gguf(ckpt, source.path, out)


def eval_run_dir(out_dir: Path, run_id: str) -> Path | None:
    found = sorted(out_dir.glob(f"*/{run_id}"))
    return found[0] if found else None


def evaluate(
    cfg: TrainConfig,
    ckpt: Path,
    model_name: str,
    trainer: str,
    max_steps: int,
    out_dir: Path,
) -> dict[str, str]:
    """Evaluate `ckpt` on every configured split; returns `{split: run_dir}`.
    A complete earlier evaluation is kept; an interrupted one is redone
    from scratch (the server's port changes between runs)."""
    from svbench.train.serve import serve_in_thread

    e = cfg.eval
    todo, done = [], {}
    for split in e.splits:
        run_id = f"{model_name}-{split}"
        found = eval_run_dir(out_dir, run_id)
        if found is not None and _complete(found):
            done[split] = str(found)
            continue
        if found is not None:
            shutil.rmtree(found)
        todo.append((split, run_id))
    if not todo:
        return done
    gguf = exported_gguf(cfg, ckpt) if e.engine == "llama-cpp" else None
    server, base_url = serve_in_thread(
        ckpt, model_name=model_name, max_new_tokens_cap=max(512, e.max_tokens), engine=e.engine, gguf=gguf
    )
    try:
        for split, run_id in todo:
            cmd = [svbench_bin(), "eval", cfg.env, "--model", model_name, "--base-url", base_url]
            dataset, dataset_split = eval_source(e, split)
            cmd += ["--api-key-env", "", "--dataset", dataset, "--split", dataset_split]
            cmd += ["--max-tokens", str(e.max_tokens), "--temperature", str(e.temperature)]
            cmd += ["--concurrency", "1", "--no-cache", "--no-progress", "--max-consecutive-errors", "0"]
            cmd += ["--run-id", run_id, "--output-dir", str(out_dir), "--trainer", trainer]
            config_sha, budget_sha = training_hashes(cfg)
            cmd += ["--max-steps", str(max_steps)]
            cmd += ["--training-config-sha256", config_sha, "--training-budget-sha256", budget_sha]
            if e.examples:
                cmd += ["-n", str(e.examples)]
            cmd += env_arg_flags(student_env_args(cfg.env, cfg.env_args))
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise ConfigError(f"evaluation failed ({' '.join(cmd)}):\n{proc.stderr.strip()[-2000:]}")
            found = eval_run_dir(out_dir, run_id)
            if found is None:
                raise ConfigError(f"svbench eval wrote no run directory {run_id} under {out_dir}")
            done[split] = str(found)
    finally:
        server.close()
    return done


def compare(run_a: str, run_b: str, out: Path, vary: list[str]) -> dict:
    """`svbench compare A B --vary …` written to `out` (JSON, .md, .deltas.jsonl)."""
    cmd = [svbench_bin(), "compare", run_a, run_b, "--out", str(out), "--no-progress"]
    if vary:
        cmd += ["--vary", ",".join(vary)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ConfigError(f"compare failed ({' '.join(cmd)}):\n{proc.stderr.strip()[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


__all__ = ["compare", "eval_run_dir", "evaluate"]

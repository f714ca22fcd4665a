"""GRPO with TRL's `GRPOTrainer` on CPU (no vLLM), starting from the SFT
checkpoint, with KL to it (`beta`) and svbench's reward functions.

Resumable: TRL checkpoints (weights, optimizer, RNG and data position)
are saved every `save_every` steps under `grpo/trainer/`; a rerun
continues from the last one and drops metric lines logged after it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from svbench.train.config import ConfigError, TrainConfig
from svbench.train.model import lora_config
from svbench.train.rewards import TrainingRewards
from svbench.train.teacher import student_env_args


def _last_checkpoint(trainer_dir: Path) -> Path | None:
    found = [p for p in trainer_dir.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()]
    return max(found, key=lambda p: int(p.name.split("-")[-1])) if found else None


def _truncate_metrics(path: Path, last_step: int) -> None:
    """Keep only lines at or before `last_step` (a resumed run logs the rest again)."""
    if not path.exists():
        return
    kept = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kept = [line for line in kept if json.loads(line).get("step", 0) <= last_step]
    path.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")


def _callback(metrics_path: Path, rewards: TrainingRewards, samples_per_step: int) -> Any:
    from transformers import TrainerCallback

    class MetricsLog(TrainerCallback):
        """One `metrics.jsonl` line per step: TRL's logs plus step time,
        svbench scoring time and rollouts per second."""

        def __init__(self) -> None:
            self.step_started = time.monotonic()
            self.step_s = float("nan")

        def on_step_begin(self, args, state, control, **kwargs):
            self.step_started = time.monotonic()

        def on_step_end(self, args, state, control, **kwargs):
            self.step_s = time.monotonic() - self.step_started

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not logs or "train_runtime" in logs:
                return
            scoring = rewards.take_scoring_s()
            record = {"step": state.global_step, "phase": "grpo", **logs}
            record["svbench/step_s"] = self.step_s
            record["svbench/scoring_s"] = scoring
            record["svbench/scoring_share"] = scoring / self.step_s if self.step_s > 0 else None
            record["svbench/rollouts_per_s"] = samples_per_step / self.step_s if self.step_s > 0 else None
            with metrics_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record, allow_nan=False, default=str) + "\n")

    return MetricsLog()


def train_grpo(cfg: TrainConfig, start: Path, stage_dir: Path) -> dict[str, Any]:
    """Train from the checkpoint `start`; returns the trained model, its
    tokenizer and facts about the stage."""
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from svbench.trl import dataset as sv_dataset

    g = cfg.grpo
    env_args = student_env_args(cfg.env, cfg.env_args)
    rewards = TrainingRewards(cfg.env, g.profile, env_args, g.advantage, g.generations)
    funcs, settings = rewards.funcs_and_settings()
    data = sv_dataset(cfg.env, g.split, dataset=g.dataset, **env_args)
    dataset_rows = len(data)
    if g.rows == "with_findings":
        from svbench.train.findings import with_findings

        data = with_findings(cfg.env, data, env_args)
        if len(data) == 0:
            raise ConfigError(f"grpo.rows = with_findings: no row of {g.dataset} {g.split} has a finding")
    trainer_dir = stage_dir / "trainer"
    metrics_path = stage_dir / "metrics.jsonl"
    resume = _last_checkpoint(trainer_dir)
    if resume is None:
        metrics_path.unlink(missing_ok=True)
    else:
        state = json.loads((resume / "trainer_state.json").read_text(encoding="utf-8"))
        _truncate_metrics(metrics_path, int(state["global_step"]))
    args = GRPOConfig(
        output_dir=str(trainer_dir),
        max_steps=g.steps,
        per_device_train_batch_size=g.prompts_per_step * g.generations,
        gradient_accumulation_steps=1,
        num_generations=g.generations,
        max_completion_length=g.max_tokens,
        temperature=g.temperature,
        beta=g.beta,
        learning_rate=g.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        logging_steps=1,
        save_steps=g.save_every,
        save_total_limit=2,
        save_only_model=False,
        seed=cfg.seed,
        data_seed=cfg.seed,
        use_cpu=True,
        bf16=False,
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        model_init_kwargs={"dtype": torch.float32},
        **settings,
    )
    from transformers import AutoTokenizer
    from transformers.trainer_callback import PrinterCallback

    tokenizer = AutoTokenizer.from_pretrained(start, local_files_only=True)
    tokenizer.padding_side = "left"
    trainer = GRPOTrainer(
        model=str(start),
        reward_funcs=funcs,
        args=args,
        train_dataset=data,
        processing_class=tokenizer,
        callbacks=[_callback(metrics_path, rewards, g.prompts_per_step * g.generations)],
        peft_config=lora_config(cfg.model.lora_rank) if cfg.model.lora_rank > 0 else None,
    )
    # Our metrics.jsonl is the log; TRL's printer would repeat every line on stderr.
    trainer.remove_callback(PrinterCallback)
    started = time.monotonic()
    trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    return {
        "model": trainer.model,
        "tokenizer": tokenizer,
        "facts": {
            "steps": trainer.state.global_step,
            "resumed_from_step": int(resume.name.split("-")[-1]) if resume else 0,
            "train_wall_s": round(time.monotonic() - started, 2),
            "reward_functions": [f.__name__ for f in funcs],
            "trl_settings": settings,
            "dataset": g.dataset,
            "split": g.split,
            "dataset_sha256": _dataset_sha(cfg.env, g.split, g.dataset, env_args),
            "rows": g.rows,
            "dataset_rows": dataset_rows,
            "prompt_rows": len(data),
        },
    }


def _dataset_sha(env: str, split: str, dataset: str, env_args: dict) -> str:
    import svbench

    return "sha256:" + svbench.open_env(env, **env_args).load(split, dataset=dataset)["dataset_sha256"]


__all__ = ["train_grpo"]

"""The stages of one training run, each recorded in `run.json` when it
finishes and skipped when rerun: `model` → `sft` → `grpo` → `eval` →
`report`. A stage interrupted midway is redone (GRPO continues from its
last TRL checkpoint)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from svbench.train.checkpoint import check_checkpoint, file_sha256
from svbench.train.config import ConfigError, TrainConfig
from svbench.train.rundir import RUN_FILE, RunDir

STAGES = ("model", "sft", "grpo", "eval", "report")


def trainer_label(cfg: TrainConfig) -> str:
    """What `run_manifest.json` records as `trainer` for the GRPO stage's policy."""
    if cfg.grpo.method == "distillation":
        return "distillation"
    return "gdpo" if cfg.grpo.advantage == "normalize_then_sum" else "grpo"


def _teacher_texts(cfg: TrainConfig, run: RunDir) -> tuple[list[str], list[dict]]:
    from svbench.train.envs import env_training
    from svbench.train.teacher import teacher_rows

    texts, facts = [], []
    for teacher in env_training(cfg.env).teachers:
        rows, fact = teacher_rows(
            cfg.env,
            teacher.name,
            cfg.model.tokenizer_dataset,
            "train",
            100_000,
            cfg.seed,
            run.path,
            cfg.sft.teacher_share,
            cfg.env_args,
        )
        facts.append(fact)
        for r in rows:
            texts.extend(m["content"] for m in r.prompt)
            texts.append(r.completion)
    return texts, facts


def stage_model(cfg: TrainConfig, run: RunDir) -> None:
    from svbench.train.model import new_model, parameter_count, save_checkpoint, train_tokenizer

    started = time.monotonic()
    if cfg.sft_from:
        run.finish("model", started, source=f"the warm start of {cfg.sft_from}")
        return
    if cfg.model.source == "pretrained":
        _pretrained_model(cfg, run, started)
        return
    texts, facts = _teacher_texts(cfg, run)
    tokenizer = train_tokenizer(texts, cfg.model.vocab_size, cfg.model.split_digits)
    model = new_model(cfg.model, tokenizer, cfg.seed)
    ckpt = run.path / "model" / "checkpoint"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    params = parameter_count(model)
    save_checkpoint(model, tokenizer, ckpt, {"stage": "init", "run_id": cfg.run_id, "parameters": params})
    run.finish(
        "model",
        started,
        checkpoint=str(ckpt),
        source="random init",
        parameters=params,
        vocab_size=len(tokenizer),
        tokenizer_texts=len(texts),
        tokenizer_data=facts,
    )


def _pretrained_model(cfg: TrainConfig, run: RunDir, started: float) -> None:
    """A GGUF model (a file, or one an installed package carries) de-quantised
    into the run's `model/checkpoint`; a checkpoint directory used in place.
    Either is checked (tokenizer, chat template) before any training."""
    from transformers import AutoTokenizer

    from svbench.train.model import parameter_count, save_checkpoint
    from svbench.train.pretrained import check_directory, check_template, gguf_facts, load_gguf, resolve

    src = resolve(cfg.model)
    if src.kind == "checkpoint":
        path = check_directory(src.path)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        facts = check_template(tokenizer, str(path), tools=True)
        run.finish("model", started, checkpoint=str(path.resolve()), source="local checkpoint", **facts)
        return
    header = gguf_facts(src.path)
    model, tokenizer = load_gguf(src.path)
    facts = check_template(tokenizer, str(src.path), tools=True)
    params = parameter_count(model)
    ckpt = run.path / "model" / "checkpoint"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    origin = {"named": src.named, "file": src.path.name, "sha256": file_sha256(src.path), **header}
    save_checkpoint(
        model, tokenizer, ckpt, {"stage": "init", "run_id": cfg.run_id, "parameters": params, "gguf": origin}
    )
    run.finish(
        "model",
        started,
        checkpoint=str(ckpt),
        source=f"pretrained GGUF ({src.named})",
        gguf=origin,
        parameters=params,
        vocab_size=len(tokenizer),
        **facts,
    )


def _sft_start(cfg: TrainConfig, run: RunDir) -> Path:
    return Path(run.stage("model")["checkpoint"])


def shared_sft(cfg: TrainConfig) -> tuple[Path, dict]:
    """The SFT checkpoint and facts of the run named by `sft_from`."""
    other = Path(cfg.sft_from)
    state_file = other / RUN_FILE
    if not state_file.exists():
        raise ConfigError(f"sft_from {other}: no {RUN_FILE} (run its sft stage first)")
    state = json.loads(state_file.read_text(encoding="utf-8"))
    sft = state["stages"].get("sft")
    if sft is None:
        raise ConfigError(f"sft_from {other}: its sft stage has not finished")
    return check_checkpoint(sft["checkpoint"]), sft


def stage_sft(cfg: TrainConfig, run: RunDir) -> None:
    from svbench.train.model import load_for_training, merged, save_checkpoint, with_lora
    from svbench.train.sft import train_sft
    from svbench.train.teacher import teacher_rows

    started = time.monotonic()
    if cfg.sft_from:
        ckpt, facts = shared_sft(cfg)
        run.finish("sft", started, checkpoint=str(ckpt), shared_from=cfg.sft_from, steps=facts["steps"])
        return
    s = cfg.sft
    rows, teacher = teacher_rows(
        cfg.env, s.teacher, s.dataset, s.split, s.examples, cfg.seed, run.path, s.teacher_share, cfg.env_args
    )
    model, tokenizer = load_for_training(_sft_start(cfg, run))
    model = with_lora(model, cfg.model.lora_rank)
    stage_dir = run.path / "sft"
    facts = train_sft(
        model,
        tokenizer,
        rows,
        epochs=s.epochs,
        batch_size=s.batch_size,
        lr=s.lr,
        seed=cfg.seed,
        metrics_path=stage_dir / "metrics.jsonl",
    )
    model = merged(model)
    ckpt = stage_dir / "checkpoint"
    meta = {"stage": "sft", "run_id": cfg.run_id, "trainer": "distillation", "max_steps": facts["steps"]}
    save_checkpoint(model, tokenizer, ckpt, {**meta, "teacher": teacher})
    _curves(stage_dir)
    run.finish("sft", started, checkpoint=str(ckpt), teacher=teacher, **facts)


def _sft_checkpoint(run: RunDir) -> Path:
    return check_checkpoint(run.stage("sft")["checkpoint"])


def stage_grpo(cfg: TrainConfig, run: RunDir) -> None:
    from svbench.train.model import merged, save_checkpoint

    started = time.monotonic()
    start = _sft_checkpoint(run)
    stage_dir = run.path / "grpo"
    stage_dir.mkdir(parents=True, exist_ok=True)
    g = cfg.grpo
    if g.method == "distillation":
        model, tokenizer, facts = _distill(cfg, run, start, stage_dir)
    else:
        from svbench.train.grpo import train_grpo

        out = train_grpo(cfg, start, stage_dir)
        model, tokenizer, facts = out["model"], out["tokenizer"], out["facts"]
        facts.update(_step_figures(stage_dir / "metrics.jsonl"))
    model = merged(model)
    ckpt = stage_dir / "checkpoint"
    label = trainer_label(cfg)
    meta = {"stage": "grpo", "run_id": cfg.run_id, "trainer": label, "max_steps": g.steps, "start": str(start)}
    save_checkpoint(model, tokenizer, ckpt, meta)
    _curves(stage_dir)
    run.finish("grpo", started, checkpoint=str(ckpt), trainer=label, max_steps=g.steps, **facts)


def _distill(cfg: TrainConfig, run: RunDir, start: Path, stage_dir: Path) -> tuple[Any, Any, dict]:
    """Variant D: SFT from the warm start on `grpo.teacher`'s answers, with
    GRPO's budget: `steps` optimizer steps of `prompts_per_step` prompts
    from the same split. The teacher's answer is deterministic, so its
    `generations` copies of a prompt would be one example repeated."""
    from svbench.train.model import load_for_training, with_lora
    from svbench.train.sft import train_sft
    from svbench.train.teacher import teacher_rows

    g = cfg.grpo
    need = g.steps * g.prompts_per_step
    rows, teacher = teacher_rows(
        cfg.env, g.teacher, g.dataset, g.split, need, cfg.seed, run.path, env_args=cfg.env_args
    )
    if len(rows) < need:
        raise ConfigError(f"distillation needs {need} rows of {g.dataset} {g.split}, it has {len(rows)}")
    model, tokenizer = load_for_training(start)
    model = with_lora(model, cfg.model.lora_rank)
    facts = train_sft(
        model,
        tokenizer,
        rows,
        epochs=1,
        batch_size=g.prompts_per_step,
        lr=cfg.sft.lr,
        seed=cfg.seed,
        metrics_path=stage_dir / "metrics.jsonl",
        phase="distillation",
    )
    return model, tokenizer, {**facts, "teacher": teacher}


def _step_figures(metrics: Path) -> dict[str, Any]:
    """Median step time, scoring share and rollouts per second over the logged steps."""
    import statistics

    from svbench.train.curves import read_metrics

    records = read_metrics(metrics)

    def median(key: str) -> float | None:
        values = [r[key] for r in records if isinstance(r.get(key), int | float)]
        return round(statistics.median(values), 6) if values else None

    return {
        "median_step_s": median("svbench/step_s"),
        "median_scoring_share": median("svbench/scoring_share"),
        "median_rollouts_per_s": median("svbench/rollouts_per_s"),
    }


def _curves(stage_dir: Path) -> list[Path]:
    from svbench.train.curves import write_run_curves

    return write_run_curves(stage_dir)


def checkpoints_to_evaluate(cfg: TrainConfig, run: RunDir) -> list[tuple[str, Path, str, int]]:
    """(stage, checkpoint, trainer, steps) per policy this run evaluates; a
    shared warm start is evaluated by the run that trained it."""
    out = []
    if not cfg.sft_from:
        sft = run.stage("sft")
        out.append(("sft", Path(sft["checkpoint"]), "distillation", int(sft["steps"])))
    grpo = run.stage("grpo")
    out.append(("grpo", Path(grpo["checkpoint"]), grpo["trainer"], int(grpo["max_steps"])))
    return out


def stage_eval(cfg: TrainConfig, run: RunDir) -> None:
    from svbench.train.evaluate import evaluate

    started = time.monotonic()
    out_dir = run.path / "eval"
    runs = {}
    for stage, ckpt, trainer, steps in checkpoints_to_evaluate(cfg, run):
        runs[stage] = evaluate(cfg, ckpt, f"{cfg.run_id}-{stage}", trainer, steps, out_dir)
    run.finish("eval", started, runs=runs)


def sft_eval_runs(cfg: TrainConfig, run: RunDir) -> dict[str, str]:
    """The SFT start's evaluation runs (this run's, or the shared start's)."""
    if not cfg.sft_from:
        return run.stage("eval")["runs"]["sft"]
    state = json.loads((Path(cfg.sft_from) / RUN_FILE).read_text(encoding="utf-8"))
    ev = state["stages"].get("eval")
    if ev is None:
        raise ConfigError(f"sft_from {cfg.sft_from}: its eval stage has not finished")
    return ev["runs"]["sft"]


def stage_report(cfg: TrainConfig, run: RunDir) -> None:
    from svbench.train.report import write_run_report

    started = time.monotonic()
    path = write_run_report(cfg, run)
    run.finish("report", started, report=str(path))


RUNNERS = {
    "model": stage_model,
    "sft": stage_sft,
    "grpo": stage_grpo,
    "eval": stage_eval,
    "report": stage_report,
}


def run_stages(cfg: TrainConfig, stages: tuple[str, ...] = STAGES, force: bool = False) -> RunDir:
    """Run `stages` in order, skipping finished ones (unless `force`); a
    stage needs every earlier stage finished."""
    run = RunDir(cfg)
    for stage in STAGES:
        if stage not in stages:
            if not run.done(stage) and STAGES.index(stage) < max(STAGES.index(s) for s in stages):
                raise ConfigError(f"stage {stage} of {run.path} has not finished; run it first")
            continue
        if run.done(stage) and not force:
            continue
        if force:
            run.forget(stage)
        RUNNERS[stage](cfg, run)
    return run


__all__ = ["STAGES", "run_stages", "trainer_label"]

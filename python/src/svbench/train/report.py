"""`report.md` of a training run, generated from its run directory: what
was trained and how long each stage took, the held-out metrics of the SFT
start and the trained policy from their `svbench eval` summaries, the
paired `svbench compare` of the two per split, and the learning curves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from svbench.train.config import TrainConfig
from svbench.train.rundir import RunDir

#: What differs between a checkpoint and its warm start by construction.
#: What may differ between a trained model and its SFT start: the model,
#: how it was trained, and the training config (in a study the start comes
#: from the first variant's run); never the budget (`training_budget_sha256`
#: stays a parity field).
TRAINED_VS_START = ["model_id", "model_revision_or_digest", "trainer", "max_steps", "training_config_sha256"]


def summary_metrics(run_dir: str | Path) -> dict[str, float | None]:
    """Mean reward, parse-failure rate and the environment's headline
    metrics of one `svbench eval` run."""
    s = json.loads((Path(run_dir) / "summary.json").read_text(encoding="utf-8"))
    out: dict[str, float | None] = {"reward": s["reward"]["mean"]}
    out["parse_failure_rate"] = s.get("validity", {}).get("parse_failure_rate")
    for h in s.get("headline", []):
        out[h["name"]] = h["value"]
    cost = s.get("metrics", {}).get("cost", {}).get("cost_weighted_accuracy")
    if cost is not None:
        out["cost_weighted_accuracy"] = cost
    brier = s.get("metrics", {}).get("calibration", {}).get("brier")
    if brier is not None:
        out["brier"] = brier
    return out


def fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def relative_link(path: str | Path, base: Path) -> str:
    """`path` relative to `base`, for a Markdown link."""
    return os.path.relpath(Path(path).resolve(), base.resolve())


def write_run_report(cfg: TrainConfig, run: RunDir) -> Path:
    from svbench.train.curves import curves_markdown
    from svbench.train.evaluate import compare
    from svbench.train.pipeline import sft_eval_runs

    base = run.path
    st = run.state["stages"]
    lines = [f"# Training run `{cfg.run_id}` ({cfg.env})", ""]
    lines += ["Generated from this run directory by `python -m svbench.train report`.", ""]
    prov = run.state["provenance"]
    lines += [
        f"- machine: {prov['machine']}, torch threads {prov.get('torch_threads')}",
        f"- git: `{prov['git_sha']}`; versions: "
        + ", ".join(f"{k} {v}" for k, v in prov["versions"].items() if v is not None),
        f"- seed {cfg.seed}; started {run.state['started_utc']}",
        "",
        "| stage | wall s | facts |",
        "|---|---:|---|",
    ]
    for name in ("model", "sft", "grpo", "eval"):
        if name not in st:
            continue
        s = st[name]
        keep = {
            k: v
            for k, v in s.items()
            if k in ("parameters", "vocab_size", "steps", "samples", "s_per_step", "final_loss", "trainer")
            or k.startswith("median_")
        }
        facts = ", ".join(f"{k} {fmt(v, 4)}" for k, v in keep.items())
        if name == "sft" and "teacher" in s:
            facts += f"; teacher {s['teacher']['policy']}"
        if "shared_from" in s:
            facts += f"; shared warm start from {s['shared_from']}"
        if s.get("rows", "all") != "all":
            facts += f"; prompts {s['rows']}: {s['prompt_rows']} of {s['dataset_rows']} rows of {s['dataset']}"
        lines.append(f"| {name} | {fmt(s['wall_s'], 1)} | {facts} |")
    lines.append("")

    ev = st.get("eval", {}).get("runs", {})
    sft_runs = sft_eval_runs(cfg, run) if "eval" in st else {}
    policies = [("SFT start", sft_runs), ("trained", ev.get("grpo", {}))]
    if ev:
        lines += ["## Held-out evaluation (`svbench eval`, greedy)", ""]
        for split in cfg.eval.splits:
            cols = [(label, runs.get(split)) for label, runs in policies if runs.get(split)]
            metrics = {label: summary_metrics(d) for label, d in cols}
            names = list(dict.fromkeys(k for m in metrics.values() for k in m))
            lines += [f"### {split}", "", "| metric | " + " | ".join(label for label, _ in cols) + " |"]
            lines.append("|---|" + "---:|" * len(cols))
            for n in names:
                lines.append(f"| {n} | " + " | ".join(fmt(metrics[label].get(n)) for label, _ in cols) + " |")
            lines.append("")
            lines.append("Runs: " + ", ".join(f"[{label}]({relative_link(d, base)}/report.md)" for label, d in cols))
            lines.append("")
            lines += _behaviour_section(cfg.env, cols)
            if len(cols) == 2:
                out = base / "compare" / f"sft-vs-trained-{split}.json"
                out.parent.mkdir(exist_ok=True)
                result = compare(cols[0][1], cols[1][1], out, TRAINED_VS_START)
                lines += _compare_table(result, f"compare/{out.stem}.md")
    for stage in ("sft", "grpo"):
        svgs = sorted((base / stage / "curves").glob("*.svg"))
        if svgs:
            section = curves_markdown(base / stage, svgs).replace("](curves/", f"]({stage}/curves/")
            lines += [section.replace("## Learning curves", f"## Learning curves: {stage}"), ""]
    path = base / "report.md"
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    return path


def _behaviour_section(env: str, cols: list[tuple[str, str]]) -> list[str]:
    from svbench.train.analysis import analysis_of

    policies = [(label, [Path(d) / "results.jsonl"]) for label, d in cols]
    analysis = analysis_of(env)
    return [analysis.question, "", *analysis.table(policies), ""]


def _compare_table(result: dict, md_link: str) -> list[str]:
    n = result.get("n_pairs")
    lines = [f"Paired comparison on {n} examples, trained minus SFT start ([details]({md_link})):", ""]
    lines += ["| metric | SFT | trained | Δ | 95% CI | sign p | McNemar p |", "|---|---:|---:|---:|---|---:|---:|"]
    for m in result.get("metrics", []):
        mcnemar = (m.get("mcnemar") or {}).get("p_value")
        lines.append(
            f"| {m['metric']} | {fmt(m.get('mean_a'))} | {fmt(m.get('mean_b'))} | {fmt(m.get('mean_delta'))} | "
            f"[{fmt(m.get('ci_low'))}, {fmt(m.get('ci_high'))}] | {fmt((m.get('sign_test') or {}).get('p_value'), 4)} "
            f"| {fmt(mcnemar, 4)} |"
        )
    lines.append("")
    return lines


__all__ = ["summary_metrics", "write_run_report"]

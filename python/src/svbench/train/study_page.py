"""The study's results page, generated from its run directories (never
typed by hand): setup and budgets, held-out metrics per variant across
seeds, paired per-example comparisons against the reference variant and
against the SFT start, stability, the reward-exploit measures, learning
curves with one plot per component, the cost of the study, and a claim
paragraph derived from the intervals."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path

from svbench.train.analysis import Analysis, analysis_of
from svbench.train.curves import read_metrics, write_comparison_curves
from svbench.train.errors import ConfigError
from svbench.train.evaluate import compare
from svbench.train.report import TRAINED_VS_START, fmt, relative_link, summary_metrics
from svbench.train.rewards import COMPONENT_NORMALIZED
from svbench.train.rundir import config_differences
from svbench.train.study import Study, run_id

#: Held-out metrics shown per variant (from each eval run's summary.json).
METRICS = ("reward", "accuracy", "cost_weighted_accuracy", "ece", "brier", "abstain_rate", "parse_failure_rate")
#: Per-example metrics of `svbench compare` shown in the paired tables.
PAIRED = ("reward", "accuracy", "cost")
#: Training curves compared across variants, after one per reward component.
CURVE_METRICS = (
    "svbench/reward",
    "kl",
    "completions/mean_length",
    "svbench/parse_failure_rate",
    "svbench/abstain_rate",
)
#: A trained policy giving one answer to at least this share of rows counts as constant.
CONSTANT_SHARE = 0.95
#: Two-sided 95% Student t quantiles by degrees of freedom (intervals across seeds).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def _state(run_dir: Path) -> dict | None:
    f = run_dir / "run.json"
    return json.loads(f.read_text(encoding="utf-8")) if f.exists() else None


def _eval_dir(state: dict, stage: str, split: str) -> str | None:
    return state["stages"].get("eval", {}).get("runs", {}).get(stage, {}).get(split)


def _policy_eval_dirs(study: Study, finished: dict, split: str) -> list[tuple[str, list[str]]]:
    """Per policy (the shared SFT start, then each variant) its evaluation
    run on `split` for every finished seed, in seed order."""
    first = study.variants[0].key
    rows = [("SFT start", first, "sft")] + [(v.key, v.key, "grpo") for v in study.variants]
    return [
        (name, [d for (k, _), s in sorted(finished.items()) if k == key if (d := _eval_dir(s, stage, split))])
        for name, key, stage in rows
    ]


def _spread(values: list[float]) -> str:
    """mean ± t-interval half-width across seeds, and the range."""
    given = len(values)
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return "—"
    # A metric undefined for some seeds (e.g. ECE with no decided answer) says over how many it is.
    of = f" [n={len(values)}]" if len(values) < given else ""
    m = statistics.fmean(values)
    if len(values) == 1:
        return fmt(m) + of
    half = T95.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))
    return f"{fmt(m)} ± {fmt(half)} ({fmt(min(values))}–{fmt(max(values))}){of}"


def collapse_events(metrics: list[dict], window: int = 5) -> tuple[int, float]:
    """Parse-failure collapses (the `window`-step trailing parse-failure rate
    reaching 0.5, counted once per episode) and the largest drawdown of the
    trailing training reward below its best so far (in the run's own units)."""
    rewards = [m.get("svbench/reward") for m in metrics]
    fails = [m.get("svbench/parse_failure_rate") for m in metrics]
    events, down, best, drawdown = 0, False, -math.inf, 0.0
    for i in range(window, len(metrics) + 1):
        f = [x for x in fails[i - window : i] if x is not None]
        r = [x for x in rewards[i - window : i] if x is not None]
        if f:
            high = statistics.fmean(f) >= 0.5
            events += high and not down
            down = high
        if r:
            mean = statistics.fmean(r)
            best = max(best, mean)
            drawdown = max(drawdown, best - mean)
    return events, drawdown


def reward_trend(metrics: list[dict]) -> str:
    """The training reward (`svbench/reward`, the trained profile) at the first step,
    its highest at a later step, and at the last step: whether it ever rose
    above where it started."""
    rewards = [(m.get("step"), m.get("svbench/reward")) for m in metrics]
    rewards = [(step, r) for step, r in rewards if r is not None]
    if len(rewards) < 2:
        return "n/a"
    first, later = rewards[0][1], rewards[1:]
    best_step, best = max(later, key=lambda sr: sr[1])
    verdict = "never above the first" if best <= first else f"best at step {best_step}"
    return f"{fmt(first)} → {fmt(best)} ({verdict}) → {fmt(later[-1][1])}"


def write_page(study: Study, page: Path | None = None, offline: bool = False) -> Path:
    """Writes the study's page (to `page`, default the study's) and its
    assets beside it. `offline`: from committed evidence only, so a
    comparison with no stored result is an error instead of a new
    `svbench compare` run."""
    page = Path(study.page) if page is None else page
    assets = page.with_suffix("")
    assets.mkdir(parents=True, exist_ok=True)
    out = Path(study.out_dir)
    states = {(v.key, seed): _state(cfg.run_dir) for v, seed, cfg in study.runs}
    # The page states the study config's settings: every run must have been
    # made with them, or the page would describe runs that did not happen.
    mismatched = [
        f"{cfg.run_dir}: {differences}"
        for v, seed, cfg in study.runs
        if (state := states[(v.key, seed)]) and (differences := config_differences(state, cfg))
    ]
    if mismatched:
        raise ConfigError(
            "runs made with other settings than the study config states; the page would misstate them:\n  "
            + "\n  ".join(mismatched)
        )
    finished = {k: s for k, s in states.items() if s and "eval" in s["stages"]}
    split = study.compare_split
    base_cfg = study.runs[0][2]
    analysis = analysis_of(base_cfg.env)
    g = base_cfg.grpo
    lines = [f"# {study.name}", ""]
    lines += [
        f"Generated by `python -m svbench.train.study {study.source}` from the run directories under "
        f"`{study.out_dir}/`; rerun the command to reproduce or refresh it (finished runs are kept). "
        f"{len(finished)} of {len(states)} runs finished.",
        "",
    ]
    lines += _cost_section(finished)
    lines += ["## Setup", ""]
    lines += [
        f"Every variant runs {g.steps} GRPO steps of {g.prompts_per_step} prompts × {g.generations} "
        f"generations (max {g.max_tokens} tokens, temperature {g.temperature:g}, KL β {g.beta:g}, lr {g.lr:g}) "
        f"from the same SFT warm start per seed, on `{g.dataset}` ({g.split}) in the same seeded order; "
        f"seeds {', '.join(map(str, study.seeds))}. The tooling refuses variants that change any budget.",
        "",
        "| variant | what changes |",
        "|---|---|",
    ]
    for v in study.variants:
        change = ", ".join(f"{t}.{k} = {val!r}" for t, sub in v.overrides.items() for k, val in sub.items())
        lines.append(f"| {v.key}: {v.label} | {change or '(the base config)'} |")
    lines.append("")

    # Held-out metrics across seeds.
    for sp in base_cfg.eval.splits:
        lines += [f"## Held-out {sp} (`svbench eval`, greedy; mean ± 95% t-interval across seeds, range)", ""]
        lines += ["| policy | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
        for name, dirs in _policy_eval_dirs(study, finished, sp):
            per_seed = [summary_metrics(d) for d in dirs]
            if not per_seed:
                continue
            cells = [_spread([m.get(k) for m in per_seed]) for k in METRICS]
            lines.append(f"| {name} (n={len(per_seed)}) | " + " | ".join(cells) + " |")
        lines.append("")

    lines += _behaviour_section(study, finished, split, analysis)
    lines += _paired_section(study, finished, split, out, offline)
    lines += _stability_section(study, finished, split, analysis)
    lines += _exploit_section(study, finished, split, analysis)
    lines += _curves_section(study, finished, assets, page)
    lines += _claim_section(study, finished, split, out, analysis, offline)
    page.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    return page


def _cost_section(finished: dict) -> list[str]:
    wall = sum(st.get("wall_s", 0) for s in finished.values() for st in s["stages"].values())
    steps = [s["stages"]["grpo"].get("median_step_s") for s in finished.values()]
    share = [s["stages"]["grpo"].get("median_scoring_share") for s in finished.values()]
    rps = [s["stages"]["grpo"].get("median_rollouts_per_s") for s in finished.values()]
    sft = [s["stages"]["sft"].get("s_per_step") for s in finished.values() if "s_per_step" in s["stages"]["sft"]]
    runs = [sum(st.get("wall_s", 0) for st in s["stages"].values()) for s in finished.values()]
    prov = next(iter(finished.values()))["provenance"] if finished else {}
    med = lambda xs: statistics.median([x for x in xs if x is not None]) if any(x is not None for x in xs) else None  # noqa: E731
    lines = ["## Cost", ""]
    if prov:
        versions = ", ".join(f"{k} {v}" for k, v in prov["versions"].items() if v)
        lines.append(f"Machine: {prov['machine']}, torch threads {prov.get('torch_threads')}; {versions}.")
        lines.append("")
    lines += [
        "| figure | value |",
        "|---|---:|",
        f"| wall time, all finished runs (s) | {fmt(wall, 0)} |",
        f"| wall time per run, median (s) | {fmt(med(runs), 0)} |",
        f"| SFT step, median (s) | {fmt(med(sft), 3)} |",
        f"| GRPO step, median (s) | {fmt(med(steps), 3)} |",
        f"| share of a GRPO step in svbench scoring, median | {fmt(med(share), 4)} |",
        f"| rollouts generated per second, median | {fmt(med(rps), 1)} |",
        "",
    ]
    return lines


def _pairs(study: Study, finished: dict, split: str, out: Path, offline: bool) -> dict[tuple[str, int], dict]:
    """`svbench compare` of each variant against the reference (same seed)
    and against its SFT start, on `split`; results cached beside the runs."""
    results = {}
    ref = study.reference
    for (key, seed), s in finished.items():
        warm = finished.get((study.variants[0].key, seed))
        if warm is not None and (a := _eval_dir(warm, "sft", split)) and (b := _eval_dir(s, "grpo", split)):
            dest = out / "compare" / f"sft-vs-{run_id(key, seed)}-{split}.json"
            results[("sft", key, seed)] = _cached_compare(a, b, dest, TRAINED_VS_START, offline)
        other = finished.get((ref, seed))
        if key != ref and other is not None:
            a, b = _eval_dir(other, "grpo", split), _eval_dir(s, "grpo", split)
            if a and b:
                dest = out / "compare" / f"{run_id(ref, seed)}-vs-{run_id(key, seed)}-{split}.json"
                results[(ref, key, seed)] = _cached_compare(a, b, dest, TRAINED_VS_START, offline)
    return results


def _cached_compare(a: str, b: str, dest: Path, vary: list[str], offline: bool = False) -> dict:
    if dest.exists():
        cached = json.loads(dest.read_text(encoding="utf-8"))
        if cached.get("a", {}).get("path") == a and cached.get("b", {}).get("path") == b:
            return cached
    if offline:
        raise ConfigError(f"the page cites {a} against {b}, but {dest} holds no such `svbench compare` result")
    dest.parent.mkdir(parents=True, exist_ok=True)
    return compare(a, b, dest, vary)


def _metric(result: dict, name: str) -> dict | None:
    return next((m for m in result.get("metrics", []) if m["metric"] == name), None)


def _delta_cell(m: dict | None) -> str:
    if m is None:
        return "—"
    mark = " *" if m["ci_low"] > 0 or m["ci_high"] < 0 else ""
    return f"{fmt(m['mean_delta'])} [{fmt(m['ci_low'])}, {fmt(m['ci_high'])}]{mark}"


def _paired_section(study: Study, finished: dict, split: str, out: Path, offline: bool) -> list[str]:
    results = _pairs(study, finished, split, out, offline)
    lines = [f"## Paired per-example comparisons on {split} (`svbench compare`, 95% paired bootstrap)", ""]
    lines += ["`*`: the interval excludes zero. Δ is B − A.", ""]
    lines += ["| A | B | seed | n | " + " | ".join(f"Δ {m}" for m in PAIRED) + " | McNemar p (accuracy) |"]
    lines.append("|---|---|---:|---:|" + "---|" * len(PAIRED) + "---:|")
    for (a, b, seed), r in sorted(results.items(), key=lambda kv: (kv[0][0] != "sft", kv[0][1], kv[0][2])):
        acc = _metric(r, "accuracy")
        p = (acc or {}).get("mcnemar", {}).get("p_value") if acc else None
        name_a = "SFT start" if a == "sft" else a
        cells = " | ".join(_delta_cell(_metric(r, m)) for m in PAIRED)
        lines.append(f"| {name_a} | {b} | {seed} | {r.get('n_pairs')} | {cells} | {fmt(p, 4)} |")
    lines.append("")
    return lines


def _stability_section(study: Study, finished: dict, split: str, analysis: Analysis) -> list[str]:
    # The environment's answer mix names each run's most common answer.
    mix = analysis.study.mix if analysis.study else None
    lines = ["## Stability", ""]
    lines += [
        "Across seeds: the standard deviation of the final held-out mean reward. Per run: parse-failure "
        "collapses (the 5-step trailing parse-failure rate reaching 0.5) and the largest drop of the 5-step "
        "trailing training reward below its best so far (in the variant's own reward units), and the "
        "training reward at the first step → its highest at any later step → at the last step. For E1, the "
        f"most common {split} answer per run and its share: a share near 1 is a policy that stopped reading.",
        "",
        f"| variant | sd of {split} reward across seeds | collapses per run | largest drawdown per run "
        "| training reward: first → best later → last, per run |"
        + (f" most common {split} answer per run |" if mix else ""),
        "|---|---:|---|---|---|" + ("---|" if mix else ""),
    ]
    for v in study.variants:
        runs = [(seed, s) for (k, seed), s in sorted(finished.items()) if k == v.key]
        if not runs:
            continue
        finals = [summary_metrics(d)["reward"] for _, s in runs if (d := _eval_dir(s, "grpo", split))]
        sd = statistics.stdev(finals) if len(finals) > 1 else None
        events, draws, trends = [], [], []
        for _, s in runs:
            metrics_file = Path(s["stages"]["grpo"]["checkpoint"]).parent / "metrics.jsonl"
            metrics = read_metrics(metrics_file) if metrics_file.exists() else []
            e, d = collapse_events(metrics) if metrics else (None, None)
            events.append(str(e))
            draws.append(fmt(d))
            trends.append(reward_trend(metrics))
        row = f"| {v.key} | {fmt(sd)} | {', '.join(events)} | {', '.join(draws)} | {'; '.join(trends)} |"
        if mix:
            mixes = [mix(Path(d) / "results.jsonl") for _, s in runs if (d := _eval_dir(s, "grpo", split))]
            row += " " + ", ".join(f"{m['top_answer']} ({fmt(m['top_answer_share'], 2)})" for m in mixes) + " |"
        lines.append(row)
    lines.append("")
    return lines


def _behaviour_section(study: Study, finished: dict, split: str, analysis: Analysis) -> list[str]:
    if analysis.study is None:
        return []
    lines = [f"## {analysis.study.heading} ({split}, greedy; mean across seeds)", ""]
    lines += [analysis.study.intro, ""]
    policies = [
        (name, [Path(d) / "results.jsonl" for d in dirs]) for name, dirs in _policy_eval_dirs(study, finished, split)
    ]
    return [*lines, *analysis.table(policies), ""]


def _exploit_section(study: Study, finished: dict, split: str, analysis: Analysis) -> list[str]:
    measures = analysis.study.exploits if analysis.study else None
    if analysis.study is None or measures is None:
        return []
    lines = [f"## Reward exploits on {split} (answers of each trained policy; mean across seeds)", ""]
    lines += [analysis.study.exploits_intro, ""]
    names = None
    for name, dirs in _policy_eval_dirs(study, finished, split):
        per_seed = [measures(Path(d) / "results.jsonl") for d in dirs]
        if not per_seed:
            continue
        if names is None:
            names = list(per_seed[0])
            lines += ["| policy | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        cells = []
        for k in names:
            vals = [m[k] for m in per_seed if m[k] is not None]
            cells.append(fmt(statistics.fmean(vals)) if vals else "—")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _curves_section(study: Study, finished: dict, assets: Path, page: Path) -> list[str]:
    lines = ["## Learning curves (mean across seeds, band: min–max; 5-step trailing mean)", ""]
    lines += [
        "One plot per reward component of each training profile (variant P logs the upstream profile's "
        "components), then the total training reward in each variant's own profile, KL to the SFT policy, "
        "completion length, parse-failure and abstain rates. D trains by SFT and logs only its loss.",
        "",
    ]
    components = []
    for s in finished.values():
        f = Path(s["stages"]["grpo"]["checkpoint"]).parent / "metrics.jsonl"
        if f.exists():
            for r in read_metrics(f)[:1]:
                components += [k for k in r if k.startswith("rewards/") and k.endswith("/mean")]
    components = [c for c in dict.fromkeys(components) if COMPONENT_NORMALIZED not in c]
    for metric in [*components, *CURVE_METRICS]:
        runs = {}
        for v in study.variants:
            files = []
            for (k, _), s in sorted(finished.items()):
                f = Path(s["stages"]["grpo"]["checkpoint"]).parent / "metrics.jsonl"
                if k == v.key and f.exists() and any(metric in r for r in read_metrics(f)):
                    files.append(f)
            if files:
                runs[v.key] = files
        if not runs:
            continue
        path = write_comparison_curves(assets, runs, metric, smooth=5)
        lines.append(f"![{metric}]({relative_link(path, page.parent)})")
        lines.append("")
    return lines


def _constant_sentence(key: str, finished: dict, split: str, mix: Callable[[Path], dict]) -> str:
    """How many of a variant's seeds ended giving (nearly) one answer to
    every row (by the environment's answer `mix`): the collapse a mean
    reward hides."""
    mixes = [
        mix(Path(d) / "results.jsonl")
        for (k, _), s in sorted(finished.items())
        if k == key
        if (d := _eval_dir(s, "grpo", split))
    ]
    if not mixes:
        return ""
    constant = sum((m["top_answer_share"] or 0) >= CONSTANT_SHARE for m in mixes)
    return (
        f"{key} gives one answer to at least {CONSTANT_SHARE:.0%} of {split} rows in {constant} of {len(mixes)} seeds."
    )


def _claim_section(study: Study, finished: dict, split: str, out: Path, analysis: Analysis, offline: bool) -> list[str]:
    results = _pairs(study, finished, split, out, offline)
    ref = study.reference
    sentences = []
    for v in study.variants:
        vs_sft = [r for (a, b, _), r in results.items() if a == "sft" and b == v.key]
        ups = sum((_metric(r, "reward") or {}).get("ci_low", 0) > 0 for r in vs_sft)
        downs = sum((_metric(r, "reward") or {}).get("ci_high", 0) < 0 for r in vs_sft)
        if vs_sft:
            sentences.append(
                f"{v.key} beats its SFT start on {split} mean reward with an interval excluding zero in {ups} of "
                f"{len(vs_sft)} seeds (worse in {downs})."
            )
        if analysis.study and (sentence := _constant_sentence(v.key, finished, split, analysis.study.mix)):
            sentences.append(sentence)
        if v.key == ref:
            continue
        vs_ref = [r for (a, b, _), r in results.items() if a == ref and b == v.key]
        if vs_ref:
            deltas = [(_metric(r, "reward") or {}).get("mean_delta") for r in vs_ref]
            above = sum((_metric(r, "reward") or {}).get("ci_low", 0) > 0 for r in vs_ref)
            below = sum((_metric(r, "reward") or {}).get("ci_high", 0) < 0 for r in vs_ref)
            sentences.append(
                f"Against {ref}, {v.key}'s mean reward delta per seed is "
                f"{', '.join(fmt(d) for d in deltas)}; better with an interval excluding zero in {above} seeds, "
                f"worse in {below}, no detectable difference in {len(vs_ref) - above - below}."
            )
    lines = ["## What the numbers support", ""]
    lines.append(" ".join(sentences) if sentences else "No finished runs yet.")
    lines.append("")
    if study.discussion:
        # Typed by hand in the study config, so kept apart from what the
        # runs generated above: every figure it cites must be one of the
        # page's own.
        lines += [
            "## Discussion (written by hand in the study config, not generated)",
            "",
            study.discussion.strip(),
            "",
        ]
    return lines


def check_page(study: Study) -> Path:
    """Regenerates the page and its assets from the run directories and the
    stored comparisons into a scratch directory and compares them byte for
    byte with the committed ones; any difference (a hand edit, a changed
    run, a missing file) is a `ConfigError` listing them."""
    import tempfile

    page = Path(study.page)
    assets = page.with_suffix("")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = write_page(study, Path(tmp) / page.name, offline=True)
        fresh_assets = fresh.with_suffix("")
        problems = []
        if not page.exists():
            problems.append(f"{page}: missing")
        elif page.read_bytes() != fresh.read_bytes():
            problems.append(f"{page}: differs from what the evidence regenerates{_first_difference(page, fresh)}")
        names = {p.name for p in fresh_assets.iterdir()} | (
            {p.name for p in assets.iterdir()} if assets.is_dir() else set()
        )
        for name in sorted(names):
            committed, regenerated = assets / name, fresh_assets / name
            if not regenerated.exists():
                problems.append(f"{committed}: not generated from the evidence")
            elif not committed.exists():
                problems.append(f"{committed}: missing")
            elif committed.read_bytes() != regenerated.read_bytes():
                problems.append(f"{committed}: differs from what the evidence regenerates")
    if problems:
        raise ConfigError("the results page does not match its evidence:\n  " + "\n  ".join(problems))
    return page


def _first_difference(a: Path, b: Path) -> str:
    ours, theirs = a.read_text(encoding="utf-8").splitlines(), b.read_text(encoding="utf-8").splitlines()
    for i, (x, y) in enumerate(zip(ours, theirs), 1):
        if x != y:
            return f" (first at line {i}: committed {x[:80]!r}, regenerated {y[:80]!r})"
    return f" (committed {len(ours)} lines, regenerated {len(theirs)})"


__all__ = ["check_page", "collapse_events", "write_page"]

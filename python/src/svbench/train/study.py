"""`python -m svbench.train.study CONFIG`: the advantage-mode study — every
variant × seed as one training run under `out_dir`, resumable per run,
then the results page generated from the run directories.

Budgets are matched by construction and checked: a variant may change
only *how* it learns (`grpo.advantage`, `grpo.profile`, `grpo.method`,
`grpo.teacher`); steps, prompts per step, generations, max tokens,
temperature, data and seeds come from `[base]` for every variant, and the
variants of one seed share one SFT warm start (trained by the first
variant's run).
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svbench.train.config import LEARNING_SETTINGS, ConfigError, TrainConfig, from_dict, validate

#: The only settings a variant may override: how it learns, not how much.
VARIANT_KEYS = LEARNING_SETTINGS
#: What must be equal across the variants of a study.
BUDGET = (
    ("grpo", ("steps", "prompts_per_step", "generations", "max_tokens", "temperature", "dataset", "split", "rows")),
    ("eval", ("splits", "dataset", "fresh", "engine", "examples", "max_tokens", "temperature")),
    ("sft", ("teacher", "dataset", "split", "examples", "epochs", "batch_size", "lr")),
)


@dataclass
class Variant:
    key: str
    label: str
    overrides: dict[str, Any]


@dataclass
class Study:
    name: str
    out_dir: str
    seeds: list[int]
    base: dict[str, Any]
    variants: list[Variant]
    page: str = ""
    reference: str = ""
    compare_split: str = "test"
    discussion: str = ""
    source: str = ""
    runs: list[tuple[Variant, int, TrainConfig]] = field(default_factory=list)


_STUDY_KEYS = {"name", "out_dir", "seeds", "base", "variants", "page", "reference", "compare_split", "discussion"}


def load_study(path: str | Path) -> Study:
    path = Path(path)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from e
    unknown = sorted(set(table) - _STUDY_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "out_dir", "seeds", "base", "variants"):
        if key not in table:
            raise ConfigError(f"{path}: missing {key}")
    seeds = table["seeds"]
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) for s in seeds):
        raise ConfigError(f"{path}: seeds must be a non-empty list of integers")
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"{path}: seeds repeat")
    variants = []
    for key, v in table["variants"].items():
        if not isinstance(v, dict):
            raise ConfigError(f"{path}: variants.{key} must be a table")
        extra = sorted(set(v) - {"label", *VARIANT_KEYS})
        if extra:
            raise ConfigError(
                f"{path}: variants.{key} sets {', '.join(extra)}: a variant may only change "
                + ", ".join(f"{t}.{k}" for t, ks in VARIANT_KEYS.items() for k in sorted(ks))
                + " (budgets are shared through [base])"
            )
        overrides = {}
        for t, keys in VARIANT_KEYS.items():
            sub = v.get(t, {})
            bad = sorted(set(sub) - keys)
            if bad:
                raise ConfigError(
                    f"{path}: variants.{key}.{t} sets {', '.join(bad)}: budgets must match across variants"
                )
            if sub:
                overrides[t] = sub
        variants.append(Variant(key, str(v.get("label", key)), overrides))
    if not variants:
        raise ConfigError(f"{path}: no variants")
    study = Study(
        name=table["name"],
        out_dir=table["out_dir"],
        seeds=seeds,
        base=table["base"],
        variants=variants,
        page=table.get("page", ""),
        reference=table.get("reference", variants[0].key),
        compare_split=table.get("compare_split", "test"),
        discussion=table.get("discussion", ""),
        source=str(path),
    )
    if study.reference not in {v.key for v in variants}:
        raise ConfigError(f"{path}: reference {study.reference!r} is not a variant")
    try:
        study.runs = _configs(study)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
    return study


def run_id(variant: str, seed: int) -> str:
    return f"{variant}-s{seed}"


def _configs(study: Study) -> list[tuple[Variant, int, TrainConfig]]:
    if "seed" in study.base or "run_id" in study.base or "sft_from" in study.base:
        raise ConfigError("[base] may not set seed, run_id or sft_from: the study sets them per run")
    out = []
    first = study.variants[0]
    for seed in study.seeds:
        for v in study.variants:
            cfg = from_dict(study.base)
            cfg = from_dict(v.overrides, cfg)
            cfg.seed = seed
            cfg.out_dir = study.out_dir
            cfg.run_id = run_id(v.key, seed)
            if v is not first:
                cfg.sft_from = str(Path(study.out_dir) / run_id(first.key, seed))
            out.append((v, seed, validate(cfg)))
    check_budgets([cfg for _, _, cfg in out])
    return out


def check_budgets(configs: list[TrainConfig]) -> None:
    """Every budget setting equal across runs, and per seed one warm start."""
    ref = configs[0]
    problems = []
    for cfg in configs[1:]:
        for table, keys in BUDGET:
            for k in keys:
                a, b = getattr(getattr(ref, table), k), getattr(getattr(cfg, table), k)
                if a != b:
                    problems.append(f"{cfg.run_id}: {table}.{k} is {b!r}, {ref.run_id} has {a!r}")
        if cfg.model != ref.model:
            problems.append(f"{cfg.run_id}: [model] differs from {ref.run_id}")
    if problems:
        raise ConfigError("budgets do not match across variants:\n  " + "\n  ".join(problems))


def run_study(study: Study, only: set[str] | None = None, seeds: set[int] | None = None) -> None:
    """Runs every (variant, seed) of the study, or those of the variants in
    `only` and the seeds in `seeds`; finished runs are skipped."""
    from svbench.train.pipeline import run_stages

    known = {seed for _, seed, _ in study.runs}
    if seeds and not seeds <= known:
        unknown = ", ".join(str(s) for s in sorted(seeds - known))
        raise ConfigError(f"--seed {unknown}: the study's seeds are {', '.join(str(s) for s in sorted(known))}")
    keys = {v.key for v, _, _ in study.runs}
    if only and not only <= keys:
        raise ConfigError(
            f"--only {', '.join(sorted(only - keys))}: the study's variants are {', '.join(sorted(keys))}"
        )
    for v, seed, cfg in study.runs:
        if (only and v.key not in only) or (seeds and seed not in seeds):
            continue
        started = time.monotonic()
        print(f"[study] {cfg.run_id}: {v.label}", file=sys.stderr, flush=True)
        run_stages(cfg)
        print(f"[study] {cfg.run_id} done in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m svbench.train.study", description=__doc__)
    p.add_argument("config", help="study config (TOML), e.g. configs/train/e1-study.toml")
    p.add_argument("--only", action="append", default=[], help="run only this variant (repeatable)")
    p.add_argument("--seed", action="append", type=int, default=[], help="run only this seed (repeatable)")
    p.add_argument("--page-only", action="store_true", help="only regenerate the results page from finished runs")
    p.add_argument(
        "--check",
        action="store_true",
        help="with --page-only: regenerate the page in a scratch directory and fail unless it matches the committed "
        "one byte for byte (nothing is written)",
    )
    p.add_argument("--no-page", action="store_true", help="run the study without writing the results page")
    args = p.parse_args(argv)
    if args.check and not args.page_only:
        p.error("--check goes with --page-only")
    try:
        study = load_study(args.config)
        if args.check:
            from svbench.train.study_page import check_page

            print(f"{check_page(study)}: matches its evidence")
            return 0
        if not args.page_only:
            run_study(study, set(args.only) or None, set(args.seed) or None)
        if not args.no_page and study.page:
            from svbench.train.study_page import write_page

            print(write_page(study))
    except (ConfigError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

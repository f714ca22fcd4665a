"""Does a policy read its input, or give one answer to everything? Mean
reward alone cannot tell, so run reports and study pages put each policy's
answers next to reference answers. What that analysis looks like is the
environment's own: the registry names a module of `svbench.train` for it
(`svbench._native.TRAINING[name]["analysis"]`) whose `ANALYSIS` says what
to show; an environment naming none gets the answer spread, which fits any
environment's answers. Report and study-page code names no environment."""

from __future__ import annotations

import importlib
import json
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svbench.train.errors import ConfigError

#: Policies to tabulate: (name, results files, e.g. one per seed).
Policies = list[tuple[str, list[Path]]]


@dataclass(frozen=True)
class StudyAnalysis:
    """What a study page adds for an environment that declares it."""

    #: The behaviour section's heading question ("Does each policy read the record?").
    heading: str
    #: The paragraph under it, before the analysis table.
    intro: str
    #: One evaluation's answer mix: at least `top_answer` (text) and
    #: `top_answer_share`, for the stability table and the claim sentences.
    mix: Callable[[Path], dict[str, Any]]
    #: The reward-exploit section's paragraph and its measures per
    #: evaluation (name → rate or None); no section when `exploits` is None.
    exploits_intro: str = ""
    exploits: Callable[[Path], dict[str, float | None]] | None = None


@dataclass(frozen=True)
class Analysis:
    """An environment's analysis of its policies' answers."""

    #: The sentence above the table in a run report.
    question: str
    #: Markdown lines: each policy's reward and answer mix, then references.
    table: Callable[[Policies], list[str]]
    #: The study page's extra sections; None: the page shows none.
    study: StudyAnalysis | None = None


def read_results(results: Path) -> list[dict]:
    """The rows of an evaluation's `results.jsonl`."""
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]


def scored_rewards(rows: list[dict]) -> tuple[list[float], int]:
    """The rewards of the rows that were scored, and how many errored (an
    errored row has no reward; `svbench eval`'s summary leaves them out of
    the mean the same way and counts them apart)."""
    rewards = [r["reward"] for r in rows if r.get("error") is None and isinstance(r.get("reward"), int | float)]
    return rewards, len(rows) - len(rewards)


def fisher_exact_p(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact test of the 2×2 table [[a, b], [c, d]]: the
    probability, with the margins fixed, of a table no more likely than this
    one (the usual two-sided rule, with a relative tolerance for ties)."""
    from math import comb

    row1, col1, n = a + b, a + c, a + b + c + d
    total = comb(n, col1)

    def prob(x: int) -> float:
        return comb(row1, x) * comb(n - row1, col1 - x) / total

    observed = prob(a)
    lo, hi = max(0, col1 - (n - row1)), min(row1, col1)
    return min(1.0, sum(p for p in map(prob, range(lo, hi + 1)) if p <= observed * (1 + 1e-7)))


def mix_table(
    policies: Policies,
    columns: list[tuple[str, str]],
    mix: Callable[[Path], dict[str, Any]],
    references: Callable[[Path], list[tuple[str, float]]],
) -> list[str]:
    """Markdown: each policy's mean reward and its `mix` columns (`(key,
    heading)`, means over its results files, e.g. one per seed), then the
    `references` scored on the rows of the first file."""
    from svbench.train.report import fmt

    policies = [(name, files) for name, files in policies if files]
    if not policies:
        return []
    lines = ["| policy | reward | " + " | ".join(h for _, h in columns) + " |"]
    lines.append("|---|---:|" + "---:|" * len(columns))
    for name, files in policies:
        mixes = [mix(f) for f in files]
        scored = [scored_rewards(read_results(f)) for f in files]
        rewards = [statistics.fmean(r) for r, _ in scored if r]
        errored = sum(e for _, e in scored)
        cells = []
        for c, _ in columns:
            vals = [m[c] for m in mixes if m[c] is not None]
            cells.append(fmt(statistics.fmean(vals) if vals else None, 1 if c == "distinct_answers" else 3))
        reward = fmt(statistics.fmean(rewards) if rewards else None)
        if errored:
            reward += f" ({errored} errored, not counted)"
        lines.append(f"| {name} | {reward} | " + " | ".join(cells) + " |")
    for name, value in references(policies[0][1][0]):
        lines.append(f"| *{name}* | {fmt(value)} |" + " |" * len(columns))
    return lines


def answer_spread(results: Path) -> dict[str, float | int | None]:
    """Any environment's answers: the share that did not parse, the number
    of distinct parsed answers (no parse is one) and the share of the most
    common one."""
    rows = read_results(results)
    valid = [(r.get("parse") or {}).get("status") == "valid" for r in rows]
    answers = Counter(json.dumps(r.get("parsed"), sort_keys=True) if ok else None for r, ok in zip(rows, valid))
    return {
        "no_parse_rate": sum(not ok for ok in valid) / len(rows) if rows else None,
        "distinct_answers": len(answers),
        "top_answer_share": answers.most_common(1)[0][1] / len(rows) if rows else None,
    }


def spread_table(policies: Policies) -> list[str]:
    """Markdown: each policy's reward and how many different answers it gives."""
    cols = ("no_parse_rate", "distinct_answers", "top_answer_share")
    return mix_table(policies, [(c, c.replace("_", " ")) for c in cols], answer_spread, lambda _: [])


#: The analysis of an environment that declares none.
SPREAD = Analysis("Does the policy answer each row, or give one answer to everything?", spread_table)


def analysis_of(env: str) -> Analysis:
    """The analysis `env` (any spelling) declares in the registry, or
    `SPREAD`; a ConfigError when the module it names has no `ANALYSIS`."""
    from svbench.train.envs import env_training

    module_name = env_training(env).analysis
    if module_name is None:
        return SPREAD
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ConfigError(f"{env} names the analysis module {module_name}, which does not import: {e}") from e
    found = getattr(module, "ANALYSIS", None)
    if not isinstance(found, Analysis):
        raise ConfigError(f"{env} names the analysis module {module_name}, which exports no Analysis as ANALYSIS")
    return found


__all__ = [
    "SPREAD",
    "Analysis",
    "Policies",
    "StudyAnalysis",
    "analysis_of",
    "answer_spread",
    "mix_table",
    "read_results",
    "spread_table",
]

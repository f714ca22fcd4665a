"""Does an E1 policy read the flow record, or give one answer to everything?

Mean reward alone cannot tell: under v1's costs a constant "Malicious" beats
a weak but honest classifier on a balanced split. So reports put each policy
next to the constant answers and the Bayes policy, scored by the same reward
on the same rows, and show per-class recall and how many distinct answers
the policy gave."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_results(results: Path) -> list[dict]:
    """The rows of an evaluation's `results.jsonl`."""
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]


def label_of(r: dict) -> str | None:
    """The parsed label of a result row; None when it did not parse."""
    return (r.get("parsed") or {}).get("label")


def answer_mix(results: Path) -> dict[str, float | int | None]:
    """Per-class recall, the abstain rate, the number of distinct (label,
    confidence) answers, the most common one (`Label@confidence`) and its share."""
    rows = read_results(results)
    answers = Counter((label_of(r), (r.get("parsed") or {}).get("confidence")) for r in rows)

    def recall(gold: str) -> float | None:
        of = [r for r in rows if r.get("answer") == gold]
        return sum(label_of(r) == gold for r in of) / len(of) if of else None

    top = answers.most_common(1)[0][0] if rows else (None, None)
    return {
        "malicious_recall": recall("Malicious"),
        "benign_recall": recall("Benign"),
        "abstain_rate": sum(label_of(r) == "Abstain" for r in rows) / len(rows) if rows else None,
        "distinct_answers": len(answers),
        "top_answer_share": answers.most_common(1)[0][1] / len(rows) if rows else None,
        "top_answer": _answer_text(*top),
    }


def _answer_text(label: str | None, confidence) -> str:
    if label is None:
        return "no parse"
    return label if confidence is None else f"{label}@{confidence:g}"


def reference_policies(results: Path) -> list[tuple[str, float]]:
    """Mean reward, under the profile the run was scored with, of answering
    every row of `results` with one constant answer (each at the confidence
    that maximises its calibration on these rows), of the Bayes policy (the
    row's optimal action at the generator's probability, where the rows
    carry it) and of the oracle (gold label at confidence 1)."""
    from svbench import Env

    rows = read_results(results)
    if not rows:
        return []
    profile = rows[0].get("reward_profile")
    env = Env("e1", reward_profile=profile)
    share = sum(r.get("answer") == "Malicious" for r in rows) / len(rows)

    def mean(answer) -> float:
        return statistics.fmean(
            env.score(json.dumps(answer(r)), answer=r.get("answer"), info=r.get("info"))["reward"] for r in rows
        )

    out = [
        (f"always Malicious, confidence {share:.2f}", mean(lambda r: {"label": "Malicious", "confidence": share})),
        (f"always Benign, confidence {1 - share:.2f}", mean(lambda r: {"label": "Benign", "confidence": 1 - share})),
        ("always Abstain", mean(lambda r: {"label": "Abstain", "confidence": 0.5})),
    ]
    metas = [((r.get("info") or {}).get("meta") or {}) for r in rows]
    if all("optimal_action" in m and "p_malicious" in m for m in metas):

        def bayes(r: dict) -> dict:
            m = r["info"]["meta"]
            p, action = m["p_malicious"], m["optimal_action"]
            return {"label": action, "confidence": {"Malicious": p, "Benign": 1 - p}.get(action, 0.5)}

        out.append(("Bayes policy (generator's optimal action and probability)", mean(bayes)))
    out.append(("oracle (gold label, confidence 1)", mean(lambda r: {"label": r.get("answer"), "confidence": 1.0})))
    return out


def mix_table(
    policies: list[tuple[str, list[Path]]],
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
        rewards = [statistics.fmean(r["reward"] for r in read_results(f)) for f in files]
        cells = []
        for c, _ in columns:
            vals = [m[c] for m in mixes if m[c] is not None]
            cells.append(fmt(statistics.fmean(vals) if vals else None, 1 if c == "distinct_answers" else 3))
        lines.append(f"| {name} | {fmt(statistics.fmean(rewards))} | " + " | ".join(cells) + " |")
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


def spread_table(policies: list[tuple[str, list[Path]]]) -> list[str]:
    """Markdown: each policy's reward and how many different answers it gives."""
    cols = ("no_parse_rate", "distinct_answers", "top_answer_share")
    return mix_table(policies, [(c, c.replace("_", " ")) for c in cols], answer_spread, lambda _: [])


def behaviour_table(policies: list[tuple[str, list[Path]]]) -> list[str]:
    """Markdown: each policy's reward and answer mix, then the reference policies."""
    cols = ("malicious_recall", "benign_recall", "abstain_rate", "distinct_answers", "top_answer_share")
    return mix_table(policies, [(c, c.replace("_", " ")) for c in cols], answer_mix, reference_policies)


__all__ = [
    "answer_mix",
    "answer_spread",
    "behaviour_table",
    "label_of",
    "mix_table",
    "read_results",
    "reference_policies",
    "spread_table",
]

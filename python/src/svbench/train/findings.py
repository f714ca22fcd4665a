"""Does an E2 policy read the configuration, or give one answer to everything?

The E2 counterpart of `behaviour.py`: how many findings each answer lists,
weighted recall on configurations with findings, how often a clean
configuration gets the empty list, how many distinct answers the policy
gave, next to constant answers (always the empty list, always the rows'
most common finding) and the oracle, scored by the same reward on the same
rows."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from svbench.train.analysis import Analysis, Policies, mix_table, read_results


def _prediction(r: dict) -> frozenset[str] | None:
    """The distinct predicted ids of a result row; None when it did not parse."""
    if (r.get("parse") or {}).get("status") != "valid":
        return None
    return frozenset(v["id"] for v in (r.get("parsed") or {}).get("prediction", []))


def _oracle(r: dict) -> frozenset[str]:
    return frozenset(v["id"] for v in r.get("oracle_violations") or [])


def findings_mix(results: Path) -> dict[str, float | int | None]:
    """Mean ids per parsed answer, mean weighted recall on rows with
    findings (a parse failure counts 0), the share of clean rows answered
    with the empty list, distinct answers (id sets; no parse is one) and
    the share of the most common one."""
    rows = read_results(results)
    predictions = [_prediction(r) for r in rows]
    flagged = [r for r in rows if _oracle(r)]
    clean = [p for r, p in zip(rows, predictions, strict=True) if not _oracle(r)]
    parsed = [p for p in predictions if p is not None]
    answers = Counter(predictions)

    def recall(r: dict) -> float:
        return float((((r.get("parsed") or {}).get("detection") or {}).get("v1") or {}).get("recall") or 0.0)

    return {
        "ids_per_answer": statistics.fmean(len(p) for p in parsed) if parsed else None,
        "recall": statistics.fmean(recall(r) for r in flagged) if flagged else None,
        "clean_pass": sum(p == frozenset() for p in clean) / len(clean) if clean else None,
        "distinct_answers": len(answers),
        "top_answer_share": answers.most_common(1)[0][1] / len(rows) if rows else None,
    }


def _answer(ids: list[str]) -> str:
    return json.dumps({"violations": [{"id": i, "severity": "med"} for i in ids], "patch": "", "confidence": 1.0})


def with_findings(env: str, data: Any, env_args: dict) -> Any:
    """The rows of a `svbench.trl.dataset` of `env` (one whose answers list
    findings) whose oracle set, as the v1 reward computes it for the empty
    answer, is not empty: for E2, the configurations with at least one
    finding."""
    from svbench.train.envs import env_training
    from svbench.trl import _batch, _scorer

    key = env_training(env).findings
    if key is None:
        raise ValueError(f"{env}'s answers list no findings")
    scorer = _scorer(env, "v1", dict(env_args))
    columns = {k: data[k] for k in ("answer", "info", "question")}
    empty = json.dumps({key: []})
    scores = _batch(scorer, None, [empty] * len(data), columns)
    return data.select([i for i, s in enumerate(scores) if (s.get("parsed") or {}).get("oracle")])


def most_common_finding(rows: list[dict]) -> str | None:
    """The finding on the most rows, the smallest id among equals: a
    finding set's iteration order changes from process to process, so
    ties are broken by id for a report that regenerates identically."""
    counts = Counter(i for r in rows for i in _oracle(r))
    return min(counts, key=lambda i: (-counts[i], i)) if counts else None


def findings_references(results: Path) -> list[tuple[str, float]]:
    """Mean reward, under the profile the run was scored with, of answering
    every row of `results` with the empty list, with the rows' most common
    finding, and with the oracle's findings."""
    from svbench import Env

    rows = read_results(results)
    if not rows:
        return []
    env = Env("e2", reward_profile=rows[0].get("reward_profile"))

    def mean(ids_of) -> float:
        return statistics.fmean(
            env.score(_answer(ids_of(r)), answer=r.get("answer") or "", info=r.get("info"), question=r.get("question"))[
                "reward"
            ]
            for r in rows
        )

    out = [("always the empty list", mean(lambda r: []))]
    top = most_common_finding(rows)
    if top is not None:
        out.append((f"always `{top}` (the rows' most common finding)", mean(lambda r: [top])))
    out.append(("oracle (every finding)", mean(lambda r: sorted(_oracle(r)))))
    return out


def findings_table(policies: Policies) -> list[str]:
    """Markdown: each policy's reward and findings mix, then the reference answers."""
    columns = [
        ("ids_per_answer", "ids per answer"),
        ("recall", "weighted recall (rows with findings)"),
        ("clean_pass", "clean pass"),
        ("distinct_answers", "distinct answers"),
        ("top_answer_share", "top answer share"),
    ]
    return mix_table(policies, columns, findings_mix, findings_references)


#: E2's analysis (the registry names this module for it): findings per
#: answer and recall against constant answers; nothing extra on study pages.
ANALYSIS = Analysis(
    question="Does the policy read the configuration? Its findings, against constant answers:",
    table=findings_table,
)


__all__ = ["ANALYSIS", "findings_mix", "findings_references", "findings_table", "most_common_finding"]

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
from pathlib import Path

from svbench.train.analysis import Analysis, Policies, StudyAnalysis, fisher_exact_p, mix_table, read_results


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
    # Does the decided label depend on the gold label? A policy that reads
    # the record says Malicious more often on malicious flows.
    decided = [(label_of(r), r.get("answer")) for r in rows if label_of(r) in ("Benign", "Malicious")]
    table = [sum(1 for p, g in decided if (p, g) == cell) for cell in MIX_CELLS]
    p = fisher_exact_p(*table) if decided else None
    return {
        "malicious_recall": recall("Malicious"),
        "benign_recall": recall("Benign"),
        "abstain_rate": sum(label_of(r) == "Abstain" for r in rows) / len(rows) if rows else None,
        "distinct_answers": len(answers),
        "top_answer_share": answers.most_common(1)[0][1] / len(rows) if rows else None,
        "top_answer": _answer_text(*top),
        "label_gold_p": p,
        "reads_record": None if p is None else float(p < 0.05),
    }


#: The 2×2 table of decided label (rows) against gold label (columns).
MIX_CELLS = (("Malicious", "Malicious"), ("Malicious", "Benign"), ("Benign", "Malicious"), ("Benign", "Benign"))


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


def behaviour_table(policies: Policies) -> list[str]:
    """Markdown: each policy's reward and answer mix, then the reference policies."""
    cols = ("malicious_recall", "benign_recall", "abstain_rate", "distinct_answers", "top_answer_share")
    headings = [(c, c.replace("_", " ")) for c in cols]
    # A test, not a reading of the recalls: the share of runs whose decided
    # labels depend on the gold label (Fisher exact p < 0.05).
    headings.append(("reads_record", "label depends on gold (Fisher p < 0.05)"))
    return mix_table(policies, headings, answer_mix, reference_policies)


def exploit_measures(results: Path) -> dict[str, float | None]:
    """Behaviours the upstream reward pays for and v1 does not, measured on
    an evaluation's answers: abstaining where abstaining is (or is not) the
    optimal action, a wrong decided label without a confidence, extreme
    confidences (≤ 0.05 or ≥ 0.95, of the decided answers that state one)
    and Malicious calls at confidence ≤ 0.1 (of the decided answers)."""
    rows = read_results(results)
    n = len(rows)
    label = label_of

    def rate(hits: int, total: int) -> float | None:
        return hits / total if total else None

    def conf(r: dict) -> float | None:
        c = (r.get("parsed") or {}).get("confidence")
        return c if isinstance(c, int | float) else None

    optimal = [((r.get("info") or {}).get("meta") or {}).get("optimal_action") for r in rows]
    abst_opt = [label(r) == "Abstain" for r, o in zip(rows, optimal) if o == "Abstain"]
    abst_not = [label(r) == "Abstain" for r, o in zip(rows, optimal) if o not in (None, "Abstain")]
    decided = [r for r in rows if label(r) in ("Benign", "Malicious")]
    wrong = [r for r in decided if label(r) != r.get("answer")]
    stated = [c for c in map(conf, decided) if c is not None]
    return {
        "abstain_rate": rate(sum(label(r) == "Abstain" for r in rows), n),
        "abstain_where_optimal": rate(sum(abst_opt), len(abst_opt)),
        "abstain_where_not_optimal": rate(sum(abst_not), len(abst_not)),
        "no_confidence_when_wrong": rate(sum(conf(r) is None for r in wrong), len(wrong)),
        "extreme_confidence": rate(sum(c <= 0.05 or c >= 0.95 for c in stated), len(stated)),
        "malicious_conf_le_0.1": rate(
            sum(label(r) == "Malicious" and (conf(r) or 0) <= 0.1 for r in decided), len(decided)
        ),
    }


#: E1's analysis (the registry names this module for it): per-class recall
#: against the constant answers, the Bayes policy and the oracle; on study
#: pages also each run's most common answer and the upstream reward's exploits.
ANALYSIS = Analysis(
    question="Does the policy read the record? Answers per gold class, against constant answers:",
    table=behaviour_table,
    study=StudyAnalysis(
        heading="Does each policy read the record?",
        intro="Mean reward alone cannot tell: a constant answer can beat a weak classifier. Per-class recall, "
        "the number of distinct (label, confidence) answers and the share of the most common one show "
        "whether a policy tells flows apart; the rows in italics score constant answers, the Bayes policy "
        "and the oracle with the same reward on the same rows.",
        mix=answer_mix,
        exploits_intro="The upstream profile pays for behaviours the v1 profile closes: abstaining is never optimal, a "
        "missing confidence earns full calibration credit on a wrong answer, linear calibration pushes "
        "confidences to 0 or 1, and a Malicious call at confidence 0 is a cheap hedge.",
        exploits=exploit_measures,
    ),
)


__all__ = [
    "ANALYSIS",
    "answer_mix",
    "behaviour_table",
    "exploit_measures",
    "label_of",
    "reference_policies",
]

"""svbench.train.findings: what an E2 policy's answers contain, and the
constant answers and oracle scored by the real reward on embedded rows.
Needs only the native module, not torch."""

import json

import pytest

from svbench import Env
from svbench.train.findings import (
    findings_mix,
    findings_references,
    findings_table,
    most_common_finding,
    with_findings,
)

ROWS = 12


def _results(tmp_path, ids_of, name="results.jsonl"):
    """A results.jsonl of the first embedded E2 dev rows answered with `ids_of(oracle ids)`
    (None: a reply that does not parse), scored like `svbench eval` scores it."""
    env = Env("e2")
    out = []
    for row in env.load("dev")["rows"][:ROWS]:
        oracle = [v["id"] for v in env.score('{"violations":[]}', example_id=row["example_id"])["parsed"]["oracle"]]
        ids = ids_of(oracle)
        found = [{"id": i, "severity": "med"} for i in ids or []]
        answer = "not json" if ids is None else json.dumps({"violations": found, "confidence": 1.0})
        s = env.score(answer, example_id=row["example_id"])
        out.append(
            {
                "parse": s["parse"],
                "parsed": s["parsed"],
                "oracle_violations": s["parsed"]["oracle"],
                "reward": s["reward"],
                "reward_profile": "v1",
                "answer": row["answer"],
                "info": row["info"],
                "question": row["question"],
            }
        )
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return path, out


def test_the_oracle_finds_everything_and_passes_clean_configs(tmp_path):
    path, rows = _results(tmp_path, lambda oracle: sorted(set(oracle)))
    assert any(not r["oracle_violations"] for r in rows) and any(r["oracle_violations"] for r in rows)
    mix = findings_mix(path)
    assert mix["recall"] == 1.0 and mix["clean_pass"] == 1.0
    distinct = [len({v["id"] for v in r["oracle_violations"]}) for r in rows]
    assert mix["ids_per_answer"] == pytest.approx(sum(distinct) / ROWS)


def test_a_constant_answer_is_one_answer_and_a_parse_failure_recalls_nothing(tmp_path):
    mix = findings_mix(_results(tmp_path, lambda oracle: ["kube-linter/latest-tag"])[0])
    assert mix["distinct_answers"] == 1 and mix["top_answer_share"] == 1.0
    assert mix["ids_per_answer"] == 1.0 and mix["clean_pass"] == 0.0
    broken = findings_mix(_results(tmp_path, lambda oracle: None, "broken.jsonl")[0])
    assert broken["recall"] == 0.0 and broken["ids_per_answer"] is None and broken["clean_pass"] == 0.0


def test_references_follow_the_v1_detection_rule(tmp_path):
    # v1: the empty list scores detection 1 on a clean configuration and 0
    # elsewhere, plus 0.05 for format; the oracle scores 1.05 everywhere.
    path, rows = _results(tmp_path, lambda oracle: [])
    clean = sum(not r["oracle_violations"] for r in rows) / ROWS
    ref = dict(findings_references(path))
    assert ref["always the empty list"] == pytest.approx(clean * 1.0 + 0.05)
    assert ref["oracle (every finding)"] == pytest.approx(1.05)
    assert any(name.startswith("always `") for name in ref)
    lines = findings_table([("empty", [path]), ("none", [])])
    assert lines[2].startswith("| empty | ")
    assert not any(line.startswith("| none") for line in lines)


def test_the_most_common_finding_breaks_ties_by_id_not_by_set_order():
    def row(*ids):
        return {"oracle_violations": [{"id": i} for i in ids]}

    # Many ids on every row: iterating their set would put any of them first.
    ids = [f"kube-linter/check-{c}" for c in "qwertyuiopasdfgh"]
    assert most_common_finding([row(*ids), row(*reversed(ids))]) == "kube-linter/check-a"
    assert most_common_finding([row("b", "a"), row("b")]) == "b"
    assert most_common_finding([row(), row()]) is None


def test_grpo_prompts_with_findings_are_the_rows_where_the_empty_list_misses():
    pytest.importorskip("datasets")
    from svbench.trl import dataset

    env = Env("e2")
    data = dataset("e2", "dev")
    kept = with_findings("e2", data, {})
    kept_ids = set(kept["sv_example_id"])
    assert 0 < len(kept) < len(data)
    for example_id in data["sv_example_id"]:
        empty = env.score('{"violations":[]}', example_id=example_id)
        assert (example_id in kept_ids) == (empty["rewards"]["detection"] == 0.0)

"""svbench.train.behaviour: per-class recall, distinct answers and the
reference policies (constant answers, Bayes, oracle) scored by the real
reward. Needs only the native module, not torch."""

import json

import pytest

from svbench.train.behaviour import answer_mix, behaviour_table, reference_policies


def _row(gold, label, confidence, p_malicious=None, optimal=None):
    meta = {}
    if p_malicious is not None:
        meta = {"p_malicious": p_malicious, "optimal_action": optimal}
    parsed = {"label": label, "confidence": confidence} if label else None
    return {"answer": gold, "parsed": parsed, "reward": 1.0, "reward_profile": "v1", "info": {"meta": meta}}


def _write(tmp_path, rows, name="results.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_constant_policy_has_one_answer_and_full_recall_of_one_class(tmp_path):
    rows = [_row("Malicious", "Malicious", 0.7), _row("Benign", "Malicious", 0.7)] * 3
    mix = answer_mix(_write(tmp_path, rows))
    assert mix == {
        "malicious_recall": 1.0,
        "benign_recall": 0.0,
        "abstain_rate": 0.0,
        "distinct_answers": 1,
        "top_answer_share": 1.0,
        "top_answer": "Malicious@0.7",
        # One label whatever the gold: the label does not depend on it.
        "label_gold_p": 1.0,
        "reads_record": 0.0,
    }


def test_fisher_exact_p_matches_reference_values():
    from svbench.train.analysis import fisher_exact_p

    # Two-sided values as the usual statistics packages give them.
    assert fisher_exact_p(8, 2, 1, 5) == pytest.approx(0.034965034965)
    assert fisher_exact_p(1, 9, 11, 3) == pytest.approx(0.002759456185)
    assert fisher_exact_p(5, 5, 5, 5) == pytest.approx(1.0)
    assert fisher_exact_p(0, 0, 3, 4) == 1.0


def test_a_policy_whose_labels_follow_the_gold_reads_the_record(tmp_path):
    rows = [_row("Malicious", "Malicious", 0.8)] * 8 + [_row("Malicious", "Benign", 0.6)] * 2
    rows += [_row("Benign", "Malicious", 0.6)] + [_row("Benign", "Benign", 0.8)] * 5 + [_row("Benign", "Abstain", 0.5)]
    mix = answer_mix(_write(tmp_path, rows))
    # Abstentions are not decided labels: the table is [[8, 1], [2, 5]].
    assert mix["label_gold_p"] == pytest.approx(0.034965034965)
    assert mix["reads_record"] == 1.0
    # No decided label: no test.
    assert answer_mix(_write(tmp_path, [_row("Benign", "Abstain", 0.5)]))["reads_record"] is None


def test_recall_counts_abstains_and_parse_failures_as_misses(tmp_path):
    rows = [
        _row("Malicious", "Malicious", 0.9),
        _row("Malicious", "Abstain", 0.5),
        _row("Malicious", None, None),
        _row("Benign", "Benign", 0.8),
    ]
    mix = answer_mix(_write(tmp_path, rows))
    assert mix["malicious_recall"] == pytest.approx(1 / 3)
    assert mix["benign_recall"] == 1.0
    assert mix["abstain_rate"] == 0.25
    assert mix["distinct_answers"] == 4 and mix["top_answer_share"] == 0.25


def test_the_most_common_answer_says_what_it_is(tmp_path):
    rows = [_row("Benign", None, None)] * 2 + [_row("Benign", "Benign", None)]
    assert answer_mix(_write(tmp_path, rows))["top_answer"] == "no parse"
    rows = [_row("Benign", "Benign", None)] * 2 + [_row("Benign", None, None)]
    assert answer_mix(_write(tmp_path, rows))["top_answer"] == "Benign"


def test_reference_policies_match_the_v1_worked_cases(tmp_path):
    # Balanced rows: always Malicious at 0.5 earns u 0.875, calibration 0.75,
    # format 1 → 1.1125; always Abstain 1.0875; the oracle 1.3 (E1 spec's table).
    rows = [_row("Malicious", "Malicious", 0.9, 1.0, "Malicious"), _row("Benign", "Benign", 0.9, 0.0, "Benign")]
    ref = dict(reference_policies(_write(tmp_path, rows)))
    assert ref["always Malicious, confidence 0.50"] == pytest.approx(1.1125)
    assert ref["always Benign, confidence 0.50"] == pytest.approx(0.7375)
    assert ref["always Abstain"] == pytest.approx(1.0875)
    assert ref["oracle (gold label, confidence 1)"] == pytest.approx(1.3)
    assert ref["Bayes policy (generator's optimal action and probability)"] == pytest.approx(1.3)


def test_no_bayes_row_without_the_generators_probabilities(tmp_path):
    rows = [_row("Malicious", "Malicious", 0.9), _row("Benign", "Benign", 0.9)]
    names = [name for name, _ in reference_policies(_write(tmp_path, rows))]
    assert not any(name.startswith("Bayes") for name in names)


def test_table_averages_over_seeds_and_appends_the_references(tmp_path):
    a = _write(tmp_path, [_row("Malicious", "Malicious", 0.7), _row("Benign", "Benign", 0.7)], "a.jsonl")
    b = _write(tmp_path, [_row("Malicious", "Malicious", 0.7), _row("Benign", "Malicious", 0.7)], "b.jsonl")
    lines = behaviour_table([("A", [a, b]), ("none", [])])
    assert lines[2].startswith("| A | 1.000 | 1.000 | 0.500 | 0.000 | 1.5 | 0.750 |")
    assert not any(line.startswith("| none") for line in lines)
    assert any(line.startswith("| *always Abstain* | 1.088 |") for line in lines)


def test_an_errored_row_is_left_out_of_the_mean_and_counted(tmp_path):
    # An eval row that errored (endpoint down, timeout) has no reward.
    errored = {**_row("Benign", None, None), "reward": None, "error": {"kind": "http", "message": "503"}}
    rows = [_row("Malicious", "Malicious", 0.7), errored, _row("Benign", "Benign", 0.7)]
    table = behaviour_table([("trained", [_write(tmp_path, rows)])])
    assert table[2].startswith("| trained | 1.000 (1 errored, not counted) |"), table[2]
    only_errors = _write(tmp_path, [errored], "e.jsonl")
    assert behaviour_table([("broken", [only_errors])])[2].startswith("| broken | — (1 errored, not counted) |")

"""TRL and verl entry points (harness §7.2, §7.3). Neither library is
installed: the call shapes are checked with `inspect` against the
documented calls, and the functions are called exactly that way."""

from __future__ import annotations

import inspect
import json

import pytest

import svbench
from conftest import E1, E2
from svbench import trl, verl


def test_trl_signature_accepts_documented_call():
    funcs, weights = trl.reward_funcs(E1, profile="upstream")
    assert [f.__name__ for f in funcs] == [
        "reward_accuracy",
        "format_reward",
        "reward_calibration",
        "reward_asymmetric_cost",
    ]
    assert weights == [1.0, 0.1, 0.2, 0.5]
    for f in funcs + [trl.reward_func(E1)]:
        sig = inspect.signature(f)
        # TRL: f(prompts=..., completions=..., completion_ids=..., **columns, trainer_state=...)
        sig.bind(
            prompts=[], completions=[], completion_ids=[], answer=[], info=[], sv_example_id=[], trainer_state=None
        )
        assert list(sig.parameters)[:3] == ["prompts", "completions", "completion_ids"]
        assert sig.parameters["completion_ids"].default is None


def test_trl_dataset_and_conversational_calls():
    ds = trl.dataset(E1, "dev")
    assert {"prompt", "answer", "info", "sv_example_id", "question"} <= set(ds.column_names)
    assert ds[0]["prompt"][0]["role"] == "system"
    batch = ds[:4]
    completions = [[{"role": "assistant", "content": '{"label": "Benign", "confidence": 0.9}'}]] * 4
    cols = {k: v for k, v in batch.items() if k != "prompt"}
    total = trl.reward_func(E1)(
        prompts=batch["prompt"], completions=completions, completion_ids=None, trainer_state=None, **cols
    )
    env = svbench.open_env(E1)
    env.load("dev")
    expected = [env.score(completions[0], example_id=i)["reward"] for i in batch["sv_example_id"]]
    assert total == expected
    assert all(isinstance(x, float) for x in total)


def test_trl_missing_reference_raises():
    f = trl.reward_func(E1)
    with pytest.raises(svbench.ScoringError):
        f(prompts=["x"], completions=['{"label": "Benign", "confidence": 0.5}'])


def test_trl_unknown_argument():
    with pytest.raises(svbench.UnknownArgumentError):
        trl.reward_funcs(E2, include_toolz=True)


def test_verl_signature_and_result():
    sig = inspect.signature(verl.compute_score)
    assert list(sig.parameters)[:4] == ["data_source", "solution_str", "ground_truth", "extra_info"]
    assert sig.parameters["extra_info"].default is None
    rows = verl.rows(E1, "test", max_examples=2)
    r = rows[0]
    out = verl.compute_score(
        r["data_source"], '{"label": "Benign", "confidence": 0.8}', r["reward_model"]["ground_truth"], r["extra_info"]
    )
    assert set(out) == {"score", "utility", "calibration", "format", "parse_status"}
    assert out["parse_status"] == "valid"
    # Positional call as verl's reward manager makes it, without extra_info.
    bare = verl.compute_score(E1, '{"label": "Benign", "confidence": 0.8}', r["reward_model"]["ground_truth"])
    assert bare["score"] == out["score"]


def test_verl_write_parquet(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "e2.parquet"
    n = verl.write_parquet(E2, "dev", str(path), max_examples=3)
    table = pq.read_table(path).to_pylist()
    assert n == len(table) == 3
    row = table[0]
    assert row["data_source"] == E2
    assert row["reward_model"]["style"] == "rule"
    assert row["prompt"][0]["role"] == "system"
    out = verl.compute_score(
        row["data_source"], '{"violations": [], "patch": null}', row["reward_model"]["ground_truth"], row["extra_info"]
    )
    assert "reward_config_auditing" not in out and "detection" in out
    info = json.loads(row["extra_info"]["info"])
    assert "info" in info

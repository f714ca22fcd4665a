"""TRL and verl entry points (harness §7.2, §7.3). Neither library is
installed: the call shapes are checked with `inspect` against the
documented calls, and the functions are called exactly that way."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import svbench
import trl_reference
from conftest import E1, E2, E4, e4_oracle_text, e4_texts
from svbench import advantages as adv
from svbench import trl, verl, verl_tool
from svbench._common import Scorer


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
        # TRL 1.16.0 (_calculate_rewards) also passes log_extra, log_metric
        # and, with environments, environments.
        sig.bind(
            prompts=[],
            completions=[],
            completion_ids=[],
            answer=[],
            info=[],
            sv_example_id=[],
            trainer_state=None,
            log_extra=print,
            log_metric=print,
            environments=None,
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


E1_COMPLETIONS = [
    '{"label": "Benign", "confidence": 0.9}',
    '{"label": "Malicious", "confidence": 0.7}',
    '{"label": "Malicious", "confidence": 0.55, "rationale": "odd port"}',
    "benign, I think",
]
G = len(E1_COMPLETIONS)


def e2_completions(row: dict) -> list[str]:
    """All, one and none of the item's findings, and a malformed answer."""
    info = json.loads(row["info"])
    found = [
        {"id": f"{v['tool']}/{v['rule_id']}", "severity": v["severity"]}
        for v in info.get("info", {}).get("violations", [])
    ]
    return [
        json.dumps({"violations": found[:k], "patch": None, "confidence": c})
        for k, c in ((len(found), 0.8), (1, 0.6), (0, 0.9))
    ] + ["no findings, looks fine to me"]


def completions_of(env: str, row: dict) -> list[str]:
    """G completions of a dataset row: E4's oracle, a wrong label, an
    ungrounded quote and prose."""
    if env == E1:
        return E1_COMPLETIONS
    if env == E2:
        return e2_completions(row)
    return e4_texts(row["answer"], json.loads(row["info"]))[:G]


def trl_batch(env: str, groups: int) -> tuple[list, list, dict]:
    """prompts, completions and columns as GRPOTrainer builds them: each
    prompt repeated once per generation (G of them)."""
    ds = trl.dataset(env, "dev")
    rows = [ds[i] for i in range(groups)]
    prompts = [r["prompt"] for r in rows for _ in range(G)]
    texts = [t for r in rows for t in completions_of(env, r)]
    completions = [[{"role": "assistant", "content": t}] for t in texts]
    columns = {k: [r[k] for r in rows for _ in range(G)] for k in rows[0] if k != "prompt"}
    return prompts, completions, columns


def trl_rewards_per_func(funcs: list, prompts: list, completions: list, columns: dict) -> np.ndarray:
    """TRL 1.16.0's ``GRPOTrainer._calculate_rewards`` for plain functions:
    called with the extra keyword arguments, None turned into NaN."""
    logged: list = []
    kwargs = {**columns, "trainer_state": None, "log_extra": logged.append, "log_metric": logged.append}
    out = []
    for f in funcs:
        values = f(prompts=prompts, completions=completions, completion_ids=None, **kwargs)
        assert len(values) == len(prompts)
        out.append([np.nan if v is None else v for v in values])
    return np.array(out, dtype=float).T


@pytest.mark.parametrize("env,profile", [(E1, "v1"), (E1, "upstream"), (E2, "v1"), (E4, "v1"), (E4, "upstream")])
def test_trl_both_aggregations_match_svbench(env, profile):
    """The reward functions in a GRPOTrainer-shaped batch: TRL's default
    sum reproduces svbench's total, and svbench.advantages reproduces
    TRL 1.16.0's advantages under both multi_objective_aggregation
    settings (transcribed in trl_reference.py)."""
    prompts, completions, columns = trl_batch(env, groups=3)
    funcs, weights = trl.reward_funcs(env, profile=profile)
    rpf = trl_rewards_per_func(funcs, prompts, completions, columns)
    w = np.array(weights)
    total = trl.reward_func(env, profile=profile)(
        prompts=prompts, completions=completions, completion_ids=None, trainer_state=None, **columns
    )
    # No svbench component is "not applicable" today: every value is a float.
    assert not np.isnan(rpf).any()
    np.testing.assert_allclose(rpf @ w, total, rtol=0, atol=1e-12)
    ref = trl_reference.sum_then_normalize(rpf, w, G)
    np.testing.assert_allclose(adv.grpo(total, group_size=G, eps=adv.TRL_EPS, ddof=1), ref, rtol=0, atol=1e-12)
    comps = {f.__name__: rpf[:, i].tolist() for i, f in enumerate(funcs)}
    ws = {f.__name__: x for f, x in zip(funcs, weights)}
    gdpo = adv.gdpo(comps, ws, group_size=G, eps=adv.TRL_EPS, ddof=1)
    np.testing.assert_allclose(gdpo, trl_reference.normalize_then_sum(rpf, w, G), rtol=0, atol=1e-12)
    assert np.count_nonzero(gdpo) > 0


def test_trl_component_not_applicable_is_none(monkeypatch):
    """A score holding null for a component (no svbench
    environment produces one today, so the score is edited here) gives
    TRL None, which TRL leaves out under normalize_then_sum exactly as
    svbench.advantages.gdpo leaves out None."""
    assert trl._component_value({"rewards": {"a": 1}}, "a") == 1.0
    assert trl._component_value({"rewards": {"a": None}}, "a") is None
    with pytest.raises(KeyError):
        trl._component_value({"rewards": {}}, "a")

    score = Scorer.score

    def calibration_not_applicable(self, completion, *args, **kwargs):
        s = score(self, completion, *args, **kwargs)
        if "benign, I think" in str(completion):
            s = {**s, "rewards": {**s["rewards"], "calibration": None}}
        return s

    monkeypatch.setattr(Scorer, "score", calibration_not_applicable)
    prompts, completions, columns = trl_batch(E1, groups=2)
    funcs, weights = trl.reward_funcs(E1, profile="v1")
    rpf = trl_rewards_per_func(funcs, prompts, completions, columns)
    names = [f.__name__ for f in funcs]
    cal = rpf[:, names.index("calibration")]
    assert np.isnan(cal[3::4]).all() and not np.isnan(np.delete(cal, np.s_[3::4])).any()
    comps = {n: [None if np.isnan(v) else float(v) for v in rpf[:, i]] for i, n in enumerate(names)}
    got = adv.gdpo(comps, dict(zip(names, weights)), group_size=G, eps=adv.TRL_EPS, ddof=1)
    ref = trl_reference.normalize_then_sum(rpf, np.array(weights), G)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_trl_missing_reference_raises():
    f = trl.reward_func(E1)
    with pytest.raises(svbench.ScoringError):
        f(prompts=["x"], completions=['{"label": "Benign", "confidence": 0.5}'])


def test_trl_e4_scores_against_the_question_column_not_the_prompt():
    """E4 grounds evidence in the row's email: the `question` column, or the
    row by `sv_example_id`. Without either, scoring fails rather than read
    the prompt, whose user message wraps the email."""
    ds = trl.dataset(E4, "test")
    row = next(ds[i] for i in range(len(ds)) if ds[i]["answer"] == "Phishing")
    completion = [{"role": "assistant", "content": e4_oracle_text(row["answer"], json.loads(row["info"]))}]
    f = trl.reward_func(E4)
    base = {"prompts": [row["prompt"]], "completions": [completion], "answer": [row["answer"]], "info": [row["info"]]}
    by_question = f(**base, question=[row["question"]])
    by_id = f(**base, sv_example_id=[row["sv_example_id"]])
    assert by_question == by_id and by_id[0] == pytest.approx(1.70, abs=1e-12)
    with pytest.raises(svbench.ScoringError, match="`question`"):
        f(**base)


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


def test_verl_e4_rows_score_like_the_native_env():
    """verl's rows and compute_score need nothing E4-specific: the row's
    question and info travel in extra_info, and E4 offers no tools."""
    rows = verl.rows(E4, "test", max_examples=6)
    env = svbench.open_env(E4)
    for r in rows:
        info = json.loads(r["extra_info"]["info"])
        assert r["prompt"][-1]["content"] == f"<email>\n{r['extra_info']['question']}\n</email>"
        text = e4_oracle_text(r["reward_model"]["ground_truth"], info)
        out = verl.compute_score(r["data_source"], text, r["reward_model"]["ground_truth"], r["extra_info"])
        full = env.score(text, example_id=r["extra_info"]["example_id"])
        assert out["score"] == full["reward"] and out["parse_status"] == "valid"
        # Inline (no example id), from the question and info alone.
        inline_extra = {k: v for k, v in r["extra_info"].items() if k != "example_id"}
        inline = verl.compute_score(r["data_source"], text, r["reward_model"]["ground_truth"], inline_extra)
        assert inline == out
    with pytest.raises(ValueError, match="no tools"):
        verl.rows(E4, "test", max_examples=1, verl_tools=True)
    with pytest.raises(ValueError, match="no tools"):
        verl_tool.tool_config("e4", base_url="http://127.0.0.1:1")

"""The native `Env` used directly: rows of the embedded splits can be
scored, run tools against and started as episodes by id without a prior
`load` (as with `svbench serve`), and errors name what is available."""

from __future__ import annotations

import json

import pytest

import svbench
from conftest import E1, E2, E4, e4_oracle_text

E1_COMPLETION = '{"label": "Malicious", "confidence": 0.8}'
E2_COMPLETION = '{"findings": [], "patch": ""}'
E4_COMPLETION = '{"label": "Phishing", "confidence": 0.7, "evidence": ["Subject"]}'


@pytest.mark.parametrize(("name", "completion"), [(E1, E1_COMPLETION), (E2, E2_COMPLETION), (E4, E4_COMPLETION)])
def test_score_by_id_without_load(name, completion):
    reference = svbench.Env(name)
    assert len(reference.splits) > 1
    for split in reference.splits:
        rows = reference.load(split)["rows"]
        ids = [rows[0]["example_id"], rows[-1]["example_id"]]
        # A fresh environment (not open_env's cached one) that loaded nothing.
        fresh = svbench.Env(name)
        for example_id in ids:
            got = fresh.score(completion, example_id=example_id)
            assert got == reference.score(completion, example_id=example_id), (split, example_id)
            assert got["example_id"] == example_id


def test_lazy_rows_are_the_loaded_rows():
    # An inline reference built from the loaded row scores like the id does.
    row = svbench.Env(E1).load("test")["rows"][3]
    fresh = svbench.Env(E1)
    wrong = "Benign" if row["answer"] == "Malicious" else "Malicious"
    completion = json.dumps({"label": row["answer"], "confidence": 0.9})
    by_id = fresh.score(completion, example_id=row["example_id"])
    inline = fresh.score(completion, answer=row["answer"], info=row["info"])
    assert by_id["rewards"] == inline["rewards"]
    assert by_id["rewards"] != fresh.score(completion, answer=wrong, info=row["info"])["rewards"]


def test_loaded_rows_take_precedence(tmp_path):
    row = svbench.Env(E1).load("test")["rows"][0]
    flipped = "Benign" if row["answer"] == "Malicious" else "Malicious"
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps({"id": row["example_id"], "question": row["question"], "answer": flipped}) + "\n")
    env = svbench.Env(E1)
    completion = json.dumps({"label": row["answer"], "confidence": 0.9})
    embedded = env.score(completion, example_id=row["example_id"])
    (own_row,) = env.load("all", dataset=str(own))["rows"]
    assert own_row["answer"] == flipped
    mine = env.score(completion, example_id=row["example_id"])
    assert embedded["rewards"] == env.score(completion, answer=row["answer"], info=row["info"])["rewards"]
    assert mine["rewards"] == env.score(completion, answer=flipped, info=own_row["info"])["rewards"]
    assert mine["rewards"] != embedded["rewards"]


def test_tools_and_sessions_by_id_without_load():
    row = svbench.Env(E2).load("test")["rows"][0]
    loaded = svbench.Env(E2)
    loaded.load("test")
    fresh = svbench.Env(E2)
    args = '{"paths": ["."]}'
    assert fresh.call_tool("run_kubelinter", args, example_id=row["example_id"]) == loaded.call_tool(
        "run_kubelinter", args, example_id=row["example_id"]
    )
    session = svbench.Env(E2).start_session(row["example_id"])
    assert session.prompt() == row["prompt"]


def test_unknown_id():
    env = svbench.Env(E1)
    with pytest.raises(svbench.ScoringError, match=r"no example `nope` in the embedded splits of .* \(train, dev"):
        env.score(E1_COMPLETION, example_id="nope")
    with pytest.raises(svbench.ScoringError, match="no example `nope`"):
        env.start_session("nope")
    # With an inline reference the unknown id is not needed.
    inline = env.score(E1_COMPLETION, example_id="nope", answer="Malicious")
    assert inline["example_id"] is None
    assert inline["rewards"] == env.score(E1_COMPLETION, answer="Malicious")["rewards"]


def test_unknown_environment_lists_available_ones():
    for make in (svbench.Env, svbench.open_env):
        with pytest.raises(ValueError, match=r"unknown environment `e9` \(available: .*sv-env-network-logs") as e:
            make("e9")
        assert "served" not in str(e.value)


def test_completion_forms():
    """A string, a message, a message list: scored alike. Anything else is a
    clear TypeError, never a silent zero."""
    from svbench._common import Scorer

    env = svbench.open_env(E1)
    row = env.load("test", max_examples=1)["rows"][0]
    scorer = Scorer(env)
    text = json.dumps({"label": "Benign", "confidence": 0.7})
    info = {"sv_example_id": row["example_id"]}
    forms = [text, {"role": "assistant", "content": text}, [{"role": "assistant", "content": text}]]
    rewards = {json.dumps(scorer.score(f, info=info)["rewards"], sort_keys=True) for f in forms}
    assert len(rewards) == 1
    for bad in (5, None, [5], ["text"]):
        with pytest.raises(TypeError, match="completion"):
            scorer.score(bad, info=info)


def test_registry_environments_are_listed():
    """Python lists what the native registry has, E4 included, under every
    spelling, with no table of its own."""
    from svbench._native import ENVIRONMENT_NAMES

    assert E4 in svbench.ENVIRONMENTS and {E1, E2} <= set(svbench.ENVIRONMENTS)
    for spelling in (E4, "e4", "phishing-detection"):
        assert ENVIRONMENT_NAMES[spelling] == E4
        assert svbench.open_env(spelling).name == E4
    env = svbench.Env("e4")
    assert (env.kind, env.max_turns, env.tool_budget, env.tools()) == ("single_turn", 1, 0, [])
    assert "evidence_max_items" in env.arg_names
    with pytest.raises(svbench.UnknownArgumentError, match="evidence_max_items"):
        svbench.open_env(E4, include_tools=False)


def _first_row(rows: list[dict], label: str) -> dict:
    return next(r for r in rows if r["answer"] == label)


@pytest.mark.parametrize(("label", "expected"), [("Phishing", 1.70), ("Abstain", 1.6375)])
def test_e4_oracle_answers_score_the_maximum(label, expected):
    env = svbench.Env("e4")
    row = _first_row(env.load("test")["rows"], label)
    assert row["info"]["meta"]["gold_source"] == "annotated" and "email" in row["info"]
    # The rendered email is the question, inside the user message eval sends.
    assert row["prompt"][-1]["content"] == f"<email>\n{row['question']}\n</email>"
    oracle = e4_oracle_text(label, row["info"])
    got = env.score(oracle, example_id=row["example_id"])
    assert got["reward"] == pytest.approx(expected, abs=1e-12)
    assert got["parse"]["status"] == "valid" and got["parsed"]["label"] == label
    weighted = sum(got["rewards"][n] * w for n, w in env.weights())
    assert weighted == pytest.approx(got["reward"], abs=1e-12)
    garbage = env.score("no idea, sorry", example_id=row["example_id"])
    assert garbage["reward"] == 0.0 and garbage["parse"]["status"] == "invalid"
    # The evidence quoted comes from the email: a reply without it earns less.
    bare = env.score(json.dumps({"label": label, "confidence": 1.0, "evidence": []}), example_id=row["example_id"])
    assert bare["reward"] < got["reward"]


def test_e4_inline_reference_needs_the_email():
    """Inline, E4 scores against the row's answer, info and question (the
    rendered email the evidence is grounded in), exactly as by id."""
    env = svbench.Env(E4)
    row = _first_row(env.load("dev")["rows"], "Phishing")
    oracle = e4_oracle_text("Phishing", row["info"])
    fresh = svbench.Env(E4)
    by_id = fresh.score(oracle, example_id=row["example_id"])
    inline = fresh.score(oracle, answer=row["answer"], info=row["info"], question=row["question"])
    assert inline["rewards"] == by_id["rewards"] and inline["reward"] == by_id["reward"]
    assert inline["example_id"] is None
    with pytest.raises(svbench.ScoringError, match="`question`"):
        fresh.score(oracle, answer=row["answer"], info=row["info"])
    # The user message wraps the email: its offsets are not the gold spans'.
    with pytest.raises(svbench.ScoringError, match="meta.spans"):
        fresh.score(oracle, answer=row["answer"], info=row["info"], question=row["prompt"][-1]["content"])
    with pytest.raises(svbench.ScoringError, match="gold label"):
        fresh.score(oracle, answer="Spam", info=row["info"], question=row["question"])

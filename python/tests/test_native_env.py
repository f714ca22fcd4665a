"""The native `Env` used directly: rows of the embedded splits can be
scored, run tools against and started as episodes by id without a prior
`load` (as with `svbench serve`), and errors name what is available."""

from __future__ import annotations

import json

import pytest

import svbench
from conftest import E1, E2

E1_COMPLETION = '{"label": "Malicious", "confidence": 0.8}'
E2_COMPLETION = '{"findings": [], "patch": ""}'


@pytest.mark.parametrize(("name", "completion"), [(E1, E1_COMPLETION), (E2, E2_COMPLETION)])
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

"""Scoring parity (harness §11 item 19): valid, markdown-wrapped, malformed
and (E2) tool-using completions scored by `svbench eval --model
builtin:replay:FILE`, the verifiers rubric, TRL's functions (standard and
conversational) and verl's `compute_score` give bit-identical totals and
components (floats compared with == and by repr)."""

from __future__ import annotations

import json

import pytest

from svbench._vf_api import v1_installed

if v1_installed():
    pytest.skip("classic verifiers API (< 0.4): python/ci.sh runs it in a classic venv", allow_module_level=True)

import verifiers as vf

import svbench
from conftest import E1, E1_TEXTS, E2, E4, PROFILES, e4_texts, run_replay, same
from svbench import trl, verl
from svbench.verifiers_env import rollout_tools, run_kubelinter, run_semgrep


def assert_same_score(got: dict, rec: dict, where: str) -> None:
    assert same(got["reward"], rec["reward"]), (where, got["reward"], rec["reward"])
    assert set(got["rewards"]) == set(rec["rewards"]), where
    for name, value in rec["rewards"].items():
        assert same(got["rewards"][name], value), (where, name, got["rewards"][name], value)


def test_rust_total_is_the_rubric_weighted_sum():
    """verifiers sums reward × weight in rubric order; Rust's total is the same number."""
    for profile in PROFILES:
        env = svbench.open_env(E1, reward_profile=profile)
        row = env.load("test")["rows"][0]
        for text in E1_TEXTS:
            s = env.score(text, example_id=row["example_id"])
            total = sum(s["rewards"][n] * w for n, w in env.weights())
            assert same(total, s["reward"]), (profile, text)


@pytest.mark.parametrize("profile", PROFILES)
def test_e1_parity(profile, svbench_bin, tmp_path):
    vf_env = vf.load_environment(E1, split="test", eval_split=None, reward_profile=profile)
    ds = vf_env.get_dataset()
    rows = [ds[i] for i in range(len(E1_TEXTS))]

    # Even rows replay as plain strings, odd rows as a message list.
    def completion_of(i: int):
        text = E1_TEXTS[i]
        return text if i % 2 == 0 else [{"role": "assistant", "content": text}]

    records = [
        {"index": i, "example_id": r["sv_example_id"], "completion": completion_of(i)} for i, r in enumerate(rows)
    ]
    cli = run_replay(svbench_bin, tmp_path, "e1", records, profile)

    rubric = vf_env.rubric.rubrics[0]
    funcs, weights = trl.reward_funcs(E1, profile=profile)
    total_func = trl.reward_func(E1, profile=profile)
    native = svbench.open_env(E1, reward_profile=profile)
    native.load("test")
    statuses = set()
    for i, r in enumerate(rows):
        rec = cli[r["sv_example_id"]]
        statuses.add(rec["parse"]["status"])
        info = json.loads(r["info"])
        completion = completion_of(i)
        # Native scoring by id and inline.
        assert_same_score(native.score(completion, example_id=r["sv_example_id"]), rec, "native id")
        inline = native.score(
            completion, answer=r["answer"], info={k: v for k, v in info.items() if k != "sv_example_id"}
        )
        assert_same_score(inline, rec, "native inline")
        # verifiers rubric: each component function, and the weighted sum.
        values = {
            f.__name__: f(completion=completion, answer=r["answer"], info=info, prompt=r["prompt"])
            for f in rubric.funcs
        }
        assert_same_score(
            {"reward": sum(values[f.__name__] * w for f, w in zip(rubric.funcs, rubric.weights)), "rewards": values},
            rec,
            "rubric",
        )
        # TRL: standard (string) and conversational completions.
        for form in (E1_TEXTS[i], [{"role": "assistant", "content": E1_TEXTS[i]}]):
            cols = {"answer": [r["answer"]], "info": [r["info"]], "sv_example_id": [r["sv_example_id"]]}
            got = {
                f.__name__: f(
                    prompts=[r["prompt"]], completions=[form], completion_ids=[[1, 2]], trainer_state=None, **cols
                )[0]
                for f in funcs
            }
            tot = total_func(prompts=[r["prompt"]], completions=[form], completion_ids=None, **cols)[0]
            assert_same_score({"reward": tot, "rewards": got}, rec, f"trl {type(form).__name__}")
            assert weights == [w for _, w in native.weights()]
        # verl: the decoded text with the answer string.
        extra = {"info": r["info"], "reward_profile": profile}
        v = verl.compute_score(E1, E1_TEXTS[i], r["answer"], extra)
        assert v["parse_status"] == rec["parse"]["status"]
        assert_same_score({"reward": v["score"], "rewards": {k: v[k] for k in rec["rewards"]}}, rec, "verl")
    assert {"valid", "invalid"} <= statuses or len(statuses) >= 2, statuses


@pytest.mark.parametrize("profile", PROFILES)
def test_e4_parity(profile, svbench_bin, tmp_path):
    """E4 replies of every kind (grounded, fenced, ungrounded quote, prose,
    abstention, no confidence) scored by `eval`'s replay, the native env by
    id and inline (answer, info, question), the rubric, TRL and verl."""
    vf_env = vf.load_environment(E4, split="test", eval_split=None, reward_profile=profile)
    ds = vf_env.get_dataset()
    # The first rows hold every gold label, so each branch of the cost matrix is hit.
    rows = [ds[i] for i in range(5)]
    assert {r["answer"] for r in rows} == {"Phishing", "Legitimate", "Abstain"}
    native = svbench.open_env(E4, reward_profile=profile)
    rubric = vf_env.rubric.rubrics[0]
    funcs, weights = trl.reward_funcs(E4, profile=profile)
    assert weights == [w for _, w in native.weights()]
    statuses = set()
    # Two replays of the rows, each row a different kind of reply: every kind is scored.
    for shift in (0, 5):
        records = []
        for i, r in enumerate(rows):
            texts = e4_texts(r["answer"], json.loads(r["info"]))
            text = texts[(i + shift) % len(texts)]
            completion = text if i % 2 == 0 else [{"role": "assistant", "content": text}]
            records.append({"index": i, "example_id": r["sv_example_id"], "completion": completion})
        out = tmp_path / f"shift-{shift}"
        out.mkdir()
        cli = run_replay(svbench_bin, out, "e4", records, profile)
        for r, record in zip(rows, records):
            rec = cli[r["sv_example_id"]]
            statuses.add(rec["parse"]["status"])
            completion = record["completion"]
            text = completion if isinstance(completion, str) else completion[0]["content"]
            info = json.loads(r["info"])
            inline_info = {k: v for k, v in info.items() if k != "sv_example_id"}
            assert_same_score(native.score(completion, example_id=r["sv_example_id"]), rec, "native id")
            inline = native.score(completion, answer=r["answer"], info=inline_info, question=r["question"])
            assert_same_score(inline, rec, "native inline")
            values = {
                f.__name__: f(completion=completion, answer=r["answer"], info=info, prompt=r["prompt"])
                for f in rubric.funcs
            }
            total = sum(values[f.__name__] * w for f, w in zip(rubric.funcs, rubric.weights))
            assert_same_score({"reward": total, "rewards": values}, rec, "rubric")
            cols = {"answer": [r["answer"]], "info": [r["info"]], "question": [r["question"]]}
            for form in (text, [{"role": "assistant", "content": text}]):
                got = {f.__name__: f(prompts=[r["prompt"]], completions=[form], **cols)[0] for f in funcs}
                tot = sum(got[n] * w for n, w in native.weights())
                assert_same_score({"reward": tot, "rewards": got}, rec, f"trl {type(form).__name__}")
            extra = {"info": r["info"], "question": r["question"], "reward_profile": profile}
            v = verl.compute_score(E4, text, r["answer"], extra)
            assert v["parse_status"] == rec["parse"]["status"]
            assert_same_score({"reward": v["score"], "rewards": {n: v[n] for n in rec["rewards"]}}, rec, "verl")
    assert {"valid", "invalid"} <= statuses, statuses


def e2_completions(rows: list[dict]) -> list[tuple[list | str, list | str]]:
    """(replayed completion, Python-side completion) per row: valid, fenced,
    malformed, and two tool-using transcripts (tool messages produced by the
    Python tool functions; the second uses verifiers' flat tool-call form)."""

    def oracle_answer(r, k):
        info = json.loads(r["info"])
        found = [
            {"id": f"{v['tool']}/{v['rule_id']}", "severity": v["severity"]}
            for v in info.get("info", {}).get("violations", [])
        ]
        return json.dumps({"violations": found[:k], "patch": None, "confidence": 0.7})

    out = []
    valid = oracle_answer(rows[0], 5)
    out.append((valid, valid))
    fenced = "Here is my audit:\n```json\n" + oracle_answer(rows[1], 1) + "\n```"
    out.append((fenced, fenced))
    out.append(("no findings, looks fine to me", "no findings, looks fine to me"))
    for i, tool in ((3, run_kubelinter), (4, run_semgrep)):
        r = rows[i]
        with rollout_tools(svbench.open_env(E2).start_tools(example_id=r["sv_example_id"])):
            content = tool(["."])
        assert '"findings"' in content, content
        final = {"role": "assistant", "content": oracle_answer(r, 2)}
        tool_msg = {"role": "tool", "tool_call_id": "call_1", "content": content}
        nested = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": tool.__name__, "arguments": '{"paths": ["."]}'},
                }
            ],
        }
        flat = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "name": tool.__name__, "arguments": {"paths": ["."]}}],
        }
        out.append(([nested, tool_msg, final], [flat, tool_msg, final]))
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_e2_parity(profile, svbench_bin, tmp_path):
    vf_env = vf.load_environment(E2, split="test", eval_split=None, reward_profile=profile)
    ds = vf_env.get_dataset()
    rows = [ds[i] for i in range(5)]
    pairs = e2_completions(rows)
    records = [
        {
            "index": i,
            "example_id": r["sv_example_id"],
            **({"completion": c} if isinstance(c, str) else {"completion_messages": c}),
        }
        for i, (r, (c, _)) in enumerate(zip(rows, pairs))
    ]
    cli = run_replay(svbench_bin, tmp_path, "e2", records, profile)
    rubric = vf_env.rubric.rubrics[0]
    funcs, _ = trl.reward_funcs(E2, profile=profile)
    native = svbench.open_env(E2, reward_profile=profile)
    native.load("test")
    tool_rewards = []
    for r, (_, completion) in zip(rows, pairs):
        rec = cli[r["sv_example_id"]]
        info = json.loads(r["info"])
        assert_same_score(native.score(completion, example_id=r["sv_example_id"]), rec, "native id")
        inline_info = {k: v for k, v in info.items() if k != "sv_example_id"}
        assert_same_score(native.score(completion, info=inline_info, question=r["question"]), rec, "native inline")
        values = {
            f.__name__: f(completion=completion, answer=r["answer"], info=info, question=r["question"])
            for f in rubric.funcs
        }
        assert_same_score(
            {"reward": sum(values[f.__name__] * w for f, w in zip(rubric.funcs, rubric.weights)), "rewards": values},
            rec,
            "rubric",
        )
        form = completion if isinstance(completion, list) else [{"role": "assistant", "content": completion}]
        cols = {
            "answer": [r["answer"]],
            "info": [r["info"]],
            "sv_example_id": [r["sv_example_id"]],
            "question": [r["question"]],
        }
        got = {f.__name__: f(prompts=[r["prompt"]], completions=[form], completion_ids=None, **cols)[0] for f in funcs}
        assert_same_score({"reward": sum(got[n] * w for n, w in native.weights()), "rewards": got}, rec, "trl")
        if isinstance(completion, str):
            v = verl.compute_score(
                E2, completion, r["answer"], {"example_id": r["sv_example_id"], "reward_profile": profile}
            )
            assert_same_score({"reward": v["score"], "rewards": {k: v[k] for k in rec["rewards"]}}, rec, "verl")
        else:
            tool_rewards.append(rec)
    assert len(tool_rewards) == 2
    if profile == "upstream":
        assert any(rec["rewards"]["tool_observation_reward"] > 0 for rec in tool_rewards), tool_rewards

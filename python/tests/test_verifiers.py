"""verifiers environments (harness §7.1, §11 item 20): resolution through
`vf.load_environment`, rubric names and weights, argument validation, the
dataset, the parser, and rollouts through verifiers' own evaluate API
against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import os
import subprocess
from pathlib import Path

import pytest

from svbench._vf_api import v1_installed

if v1_installed():
    pytest.skip("classic verifiers API (< 0.4): python/ci.sh runs it in a classic venv", allow_module_level=True)

import verifiers as vf

import svbench
from conftest import E1, E2, E4, e4_oracle_text
from fake_openai import FakeOpenAI

FORBIDDEN = {"prompts", "completions", "answers", "states", "tasks", "infos"}


def cli_weights(svbench_bin: str, tmp: Path, env: str, profile: str) -> dict:
    """`reward_weights` of an `eval` run's metadata."""
    model = "builtin:heuristic" if env == E1 else "builtin:oracle"
    out = tmp / f"w-{env}-{profile}"
    subprocess.run(
        [
            svbench_bin,
            "eval",
            env,
            "--model",
            model,
            "-n",
            "1",
            "--reward-profile",
            profile,
            "--no-progress",
            "--output-dir",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (meta,) = list(out.rglob("metadata.json"))
    return json.loads(meta.read_text())["reward_weights"]


def catalogue(svbench_bin: str) -> dict:
    """`svbench envs --json` by environment name."""
    out = subprocess.run([svbench_bin, "envs", "--json"], check=True, capture_output=True, text=True, timeout=120)
    return {e["name"]: e for e in json.loads(out.stdout)["envs"]}


def test_shipped_modules_resolve_and_are_registered():
    names = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="verifiers.environments")}
    assert names["sv-env-network-logs"] == "sv_env_network_logs:load_environment"
    assert names["sv-env-config-verification"] == "sv_env_config_verification:load_environment"
    assert names["sv-env-phishing-detection"] == "sv_env_phishing_detection:load_environment"
    env = vf.load_environment("sv-env-network-logs")
    assert isinstance(env, vf.SingleTurnEnv)
    import sv_env_network_logs

    # Shipped beside the svbench package (the wheel's, not a test helper).
    assert Path(sv_env_network_logs.__file__).parents[1] == Path(svbench.__file__).parents[1]
    env2 = vf.load_environment("sv-env-config-verification")
    assert isinstance(env2, vf.ToolEnv)
    assert [t.name for t in env2.tool_defs] == ["run_kubelinter", "run_semgrep", "run_opa"]
    env4 = vf.load_environment("sv-env-phishing-detection")
    assert isinstance(env4, vf.SingleTurnEnv) and not isinstance(env4, vf.ToolEnv)


@pytest.mark.parametrize("env_id", [E1, E2, E4])
@pytest.mark.parametrize("profile", ["v1", "upstream"])
def test_rubric_matches_rust_components(env_id, profile, svbench_bin, tmp_path):
    env = vf.load_environment(env_id, reward_profile=profile)
    rubric = env.rubric.rubrics[0]
    names = [f.__name__ for f in rubric.funcs]
    rust = svbench.open_env(env_id, reward_profile=profile).weights()
    assert names == [n for n, _ in rust]
    assert rubric.weights == [w for _, w in rust]
    assert dict(zip(names, rubric.weights)) == cli_weights(svbench_bin, tmp_path, env_id, profile)
    (listed,) = [p for p in catalogue(svbench_bin)[env_id]["reward_profiles"] if p["name"] == profile]
    assert [(c["name"], c["weight"]) for c in listed["components"]] == list(zip(names, rubric.weights))
    if profile == "upstream" and env_id == E1:
        assert list(zip(names, rubric.weights)) == [
            ("reward_accuracy", 1.0),
            ("format_reward", 0.1),
            ("reward_calibration", 0.2),
            ("reward_asymmetric_cost", 0.5),
        ]
    if profile == "upstream" and env_id == E2:
        assert list(zip(names, rubric.weights)) == [
            ("reward_config_auditing", 1.0),
            ("format_reward", 0.05),
            ("tool_observation_reward", 0.2),
        ]
    # Every extra rubric verifiers adds (turn and tool counters) has weight 0.
    for extra in env.rubric.rubrics[1:]:
        assert all(w == 0 for w in extra.weights)
    for f in rubric.funcs:
        params = inspect.signature(f).parameters
        assert not FORBIDDEN & set(params), f.__name__
        assert list(params)[:3] == ["completion", "answer", "info"]
        assert params["info"].default is None
        assert any(p.kind is p.VAR_KEYWORD for p in params.values())
        assert not rubric._is_group_func(f)


def test_unknown_argument_raises():
    import sv_env_config_verification
    import sv_env_network_logs

    with pytest.raises(svbench.UnknownArgumentError) as e:
        sv_env_network_logs.load_environment(bogus=1)
    assert isinstance(e.value, TypeError)
    assert "bogus" in str(e.value)
    with pytest.raises(svbench.UnknownArgumentError):
        sv_env_config_verification.load_environment(include_toolz=False)
    import sv_env_phishing_detection

    with pytest.raises(svbench.UnknownArgumentError, match="include_tools"):
        sv_env_phishing_detection.load_environment(include_tools=False)  # E2's, not E4's
    assert sv_env_phishing_detection.load_environment(evidence_max_items=3, max_examples=2).get_dataset().num_rows == 2
    with pytest.raises(svbench.UnknownArgumentError):
        svbench.open_env(E1, include_tools=False)  # E1 has no arguments of its own
    # verifiers wraps loader errors; the cause is ours.
    with pytest.raises(RuntimeError) as e:
        vf.load_environment(E1, bogus=1)
    assert isinstance(e.value.__cause__, svbench.UnknownArgumentError)
    with pytest.raises(ValueError):
        svbench.load_environment(E1, reward_profile="nope")


def test_missing_data_raises_dataset_error(tmp_path):
    with pytest.raises(svbench.DatasetError):
        svbench.load_environment(E1, dataset=str(tmp_path / "missing.jsonl"))
    with pytest.raises(svbench.DatasetError):
        svbench.load_environment(E1, split="nope")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "x", "answer": "perhaps"}\n')
    with pytest.raises(svbench.DatasetError):
        svbench.load_environment(E1, dataset=str(bad), split="all")


def test_dataset_columns():
    env = vf.load_environment(E2, split="dev", max_examples=5, eval_split="test")
    ds, ev = env.get_dataset(), env.get_eval_dataset()
    assert len(ds) == 5 and len(ev) > 0
    row = ds[0]
    assert isinstance(row["question"], str) and isinstance(row["answer"], str)
    assert isinstance(row["example_id"], int) and isinstance(row["sv_example_id"], str)
    info = json.loads(row["info"]) if isinstance(row["info"], str) else row["info"]
    assert info["sv_example_id"] == row["sv_example_id"]
    # The prompt is exactly what `eval` sends (system prompt included).
    rust_rows = svbench.open_env(E2).load("dev", max_examples=5)["rows"]
    assert row["prompt"] == rust_rows[0]["prompt"]


def test_parser():
    env = vf.load_environment(E1)
    parser = env.parser
    assert isinstance(parser, vf.Parser)
    assert parser.parse_answer('```json\n{"label": "Malicious", "confidence": 0.9}\n```') == "Malicious"
    assert parser.parse_answer([{"role": "assistant", "content": '{"label": "Benign", "confidence": 0.2}'}]) == "Benign"
    assert parser.parse_answer("no idea") is None
    fmt = parser.get_format_reward_func()
    assert fmt.__name__ == "format_reward"
    row = env.get_dataset()[0]
    assert (
        fmt(completion='{"label": "Benign", "confidence": 0.5}', answer=row["answer"], info=json.loads(row["info"]))
        == 1.0
    )
    env2 = vf.load_environment(E2, reward_profile="upstream")
    assert env2.parser.get_format_reward_func().__name__ == "format_reward"
    assert env2.parser.parse_answer('{"violations": [], "patch": null}') == "[]"
    env4 = vf.load_environment(E4)
    reply = '```json\n{"label": "phishing", "confidence": 0.8, "evidence": []}\n```'
    assert env4.parser.parse_answer(reply) == "Phishing"
    assert env4.parser.parse_answer("it is phishing, I think") is None


def _script(tool_calls_per_turn: int = 1):
    def script(body: dict) -> dict:
        msgs = body["messages"]
        if any(m.get("role") == "tool" for m in msgs):
            return {"role": "assistant", "content": '{"violations": [], "patch": null, "confidence": 0.5}'}
        if body.get("tools"):
            calls = [
                {
                    "id": f"call_{k}",
                    "type": "function",
                    "function": {
                        "name": "run_kubelinter" if k == 0 else "run_opa",
                        "arguments": json.dumps({"paths": ["."]}),
                    },
                }
                for k in range(tool_calls_per_turn)
            ]
            return {"role": "assistant", "content": None, "tool_calls": calls}
        return {"role": "assistant", "content": '{"label": "Malicious", "confidence": 0.7}'}

    return script


def _evaluate(env, server: FakeOpenAI, n: int) -> list[dict]:
    os.environ["SVBENCH_TEST_KEY"] = "test"
    cfg = vf.ClientConfig(api_base_url=server.base_url, api_key_var="SVBENCH_TEST_KEY", max_retries=0)
    out = env.evaluate_sync(client=cfg, model="fake-model", num_examples=n, rollouts_per_example=1)
    return out["outputs"]


def _dicts(messages) -> list[dict]:
    from svbench._messages import to_message

    return [to_message(m) for m in messages]


def test_e1_rollout_through_verifiers():
    env = vf.load_environment(E1, eval_split="test")
    native = svbench.open_env(E1)
    native.load("test")
    with FakeOpenAI(_script()) as server:
        outputs = _evaluate(env, server, 3)
    assert len(outputs) == 3 and len(server.requests) == 3
    for o in outputs:
        assert o["error"] is None
        info = o["info"]
        assert isinstance(info, dict)
        expected = native.score(_dicts(o["completion"]), example_id=info["sv_example_id"])
        assert o["reward"] == expected["reward"]
        for name, value in expected["rewards"].items():
            assert o["metrics"][name] == value
    # Each request carried one of eval's prompts unchanged.
    prompts = [r["prompt"] for r in native.load("test")["rows"][:3]]
    assert all(req["messages"] in prompts for req in server.requests)


def _e4_script(body: dict) -> dict:
    """Answers an E4 prompt: Phishing, quoting the email's From line."""
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    sender = next(line for line in user.splitlines() if line.startswith("From: "))
    answer = {"label": "Phishing", "confidence": 0.8, "evidence": [sender.removeprefix("From: ")]}
    return {"role": "assistant", "content": json.dumps(answer)}


def test_e4_rollout_through_verifiers():
    env = vf.load_environment(E4, eval_split="test")
    native = svbench.open_env(E4)
    rows = native.load("test")["rows"][:5]  # every gold label
    with FakeOpenAI(_e4_script) as server:
        outputs = _evaluate(env, server, 5)
    assert len(outputs) == 5 and len(server.requests) == 5
    assert all(req["messages"] in [r["prompt"] for r in rows] for req in server.requests)
    rewards = set()
    for o in outputs:
        assert o["error"] is None, o["error"]
        expected = native.score(_dicts(o["completion"]), example_id=o["info"]["sv_example_id"])
        assert expected["parse"]["status"] == "valid"
        assert o["reward"] == expected["reward"]
        for name, value in expected["rewards"].items():
            assert o["metrics"][name] == value
        rewards.add(o["reward"])
    # The gold labels differ across these rows, and so do the rewards.
    assert len(rewards) > 1
    # The oracle's answer to one of them scores the maximum.
    row = next(r for r in rows if r["answer"] == "Phishing")
    best = native.score(e4_oracle_text(row["answer"], row["info"]), example_id=row["example_id"])
    assert best["reward"] == pytest.approx(1.70, abs=1e-12) and best["reward"] > max(rewards)


def test_e2_rollout_executes_tools():
    env = vf.load_environment(E2, eval_split="test", reward_profile="upstream")
    native = svbench.open_env(E2, reward_profile="upstream")
    native.load("test")
    with FakeOpenAI(_script()) as server:
        outputs = _evaluate(env, server, 2)
    assert len(outputs) == 2
    for o in outputs:
        assert o["error"] is None, o["error"]
        msgs = _dicts(o["completion"])
        assert [m["role"] for m in msgs] == ["assistant", "tool", "assistant"]
        tool_msg = msgs[1]
        assert tool_msg["tool_call_id"] == "call_0"
        result = json.loads(tool_msg["content"])
        assert result["tool"] == "kube-linter" or "error" in result
        expected = native.score(msgs, example_id=o["info"]["sv_example_id"])
        assert o["reward"] == expected["reward"]
        # The tool output equals the Rust episode's for this example.
        direct = native.call_tool("run_kubelinter", '{"paths": ["."]}', example_id=o["info"]["sv_example_id"])
        assert tool_msg["content"] == direct["content"]
    # The second request of a rollout carries the tool message with the call's id.
    with_tool = [r for r in server.requests if any(m.get("role") == "tool" for m in r["messages"])]
    assert with_tool and with_tool[0]["messages"][-1]["tool_call_id"] == "call_0"
    assert server.requests[0]["tools"][0]["function"]["name"] == "run_kubelinter"


def test_e2_tool_budget_and_no_tools():
    env = vf.load_environment(E2, eval_split="test", tool_budget=1)
    with FakeOpenAI(_script(tool_calls_per_turn=2)) as server:
        (o,) = _evaluate(env, server, 1)
    msgs = _dicts(o["completion"])
    tools = [m for m in msgs if m["role"] == "tool"]
    assert len(tools) == 2
    assert json.loads(tools[1]["content"]) == {"error": {"code": "budget_exhausted", "budget": 1}}
    assert "findings" in json.loads(tools[0]["content"])

    no_tools = vf.load_environment(E2, eval_split="test", include_tools=False)
    assert not no_tools.tools
    with FakeOpenAI(_script()) as server:
        (o,) = _evaluate(no_tools, server, 1)
    assert "tools" not in server.requests[0] or not server.requests[0]["tools"]
    assert [m["role"] for m in _dicts(o["completion"])] == ["assistant"]


def test_tools_outside_a_rollout_have_no_workspace():
    """No process-global fixtures and no "only fixture" fallback: a tool
    called with no rollout bound answers with an error."""
    from svbench.verifiers_env import run_opa

    vf.load_environment(E2, split="test", max_examples=1, eval_split=None)
    assert json.loads(run_opa(["."]))["error"]["code"] == "no_workspace"

"""verifiers v1 tasksets (verifiers >= 0.4): loaded by environment id the
way verifiers' own loader loads them, traces scored by the tasks' reward
methods, and rollouts run through `vf-eval` against a scripted
OpenAI-compatible server on 127.0.0.1, all bit-identical to `svbench eval
--model builtin:replay:FILE` on the same replies.

python/ci.sh runs this file in a venv with verifiers 0.4.x; the classic-API
tests run in another venv with verifiers < 0.4."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from svbench._vf_api import v1_installed

if not v1_installed():
    pytest.skip("needs verifiers >= 0.4 (python/ci.sh runs this file in its v1 venv)", allow_module_level=True)

import verifiers.v1 as vf
from pydantic import ValidationError
from verifiers.v1.graph import MessageNode
from verifiers.v1.trace import AgentInfo, TraceTask
from verifiers.v1.utils.decorators import discover_decorated
from verifiers.v1.utils.loaders import (
    environment_class,
    import_taskset,
    load_taskset,
    resolve_env_config,
    taskset_class,
    taskset_config_type,
)

import svbench
from conftest import E1, E1_TEXTS, E2, E4, PROFILES, e4_texts, run_replay, same
from fake_openai import FakeOpenAI
from svbench.verifiers_v1 import completion_of
from svbench.verifiers_v1_tools import SvTools, SvToolsetConfig

# The replies scored below: one per parse outcome.
E1_REPLIES = E1_TEXTS[:4]


def load(env: str, **fields) -> list:
    """The tasks of a taskset configured as verifiers' loader does it."""
    config = taskset_config_type(env).model_validate({"id": env, **fields})
    return list(load_taskset(config))


def trace_of(task, replies: list) -> vf.Trace:
    """A trace holding the task's prompt and `replies` (messages after it)."""
    msgs = [vf.SystemMessage(content=task.data.system_prompt)]
    msgs += [vf.UserMessage(content=m.content if hasattr(m, "content") else m["content"]) for m in task.data.prompt]
    msgs += replies
    nodes = [
        MessageNode(message=m, parent=i - 1 if i else None, sampled=m.role == "assistant") for i, m in enumerate(msgs)
    ]
    return vf.Trace(
        task=TraceTask(type=type(task).__name__, data=task.data), agent=AgentInfo(config=vf.AgentConfig()), nodes=nodes
    )


def scored(task, trace: vf.Trace) -> dict[str, float]:
    asyncio.run(task.score(trace))
    return {name: r.score for name, r in trace.rewards.items()}


def assert_same_rewards(got: dict[str, float], rec: dict, where: str) -> None:
    assert set(got) == set(rec["rewards"]), where
    for name, value in rec["rewards"].items():
        assert same(got[name], value), (where, name, got[name], value)


@pytest.mark.parametrize("env", [E1, E2, E4])
def test_loader_finds_exactly_one_taskset(env):
    module = import_taskset(env)
    cls = taskset_class(env)
    exported = [getattr(module, n) for n in module.__all__ if isinstance(getattr(module, n), type)]
    assert [c for c in exported if issubclass(c, vf.Taskset)] == [cls]
    # No Env of our own: verifiers runs the taskset with its single-agent env.
    assert environment_class(env) is vf.SingleAgentEnv
    assert issubclass(taskset_config_type(env), vf.TasksetConfig)


def test_classic_entry_point_says_which_api_is_installed():
    import sv_env_network_logs

    with pytest.raises(ImportError, match="v1 taskset"):
        sv_env_network_logs.load_environment()


@pytest.mark.parametrize("env", [E1, E2, E4])
def test_config_rejects_unknown_fields(env):
    with pytest.raises(ValidationError, match="bogus"):
        taskset_config_type(env).model_validate({"id": env, "bogus": 1})
    with pytest.raises(ValidationError, match="reward_profile"):
        taskset_config_type(env).model_validate({"id": env, "reward_profile": "nope"})


def test_e2_own_arguments_are_fields_and_checked():
    cfg = taskset_config_type(E2)
    assert set(svbench.Env(E2).arg_names) <= set(cfg.model_fields)
    with pytest.raises(ValidationError):
        cfg.model_validate({"id": E2, "lang": "cobol"})
    task = load(E2, split="test", max_examples=1, include_tools=False)[0]
    assert task.config.env_args == {"include_tools": False}
    assert type(task).toolsets(task.config) == []


def test_task_config_is_derived_not_set_by_hand():
    with pytest.raises(ValidationError, match="taskset"):
        taskset_config_type(E1).model_validate({"id": E1, "task": {"reward_profile": "upstream"}})


@pytest.mark.parametrize("env", [E1, E2, E4])
def test_rows_carry_the_prompt_eval_sends(env):
    native = svbench.open_env(env)
    rows = native.load("dev", max_examples=5)["rows"]
    tasks = load(env, split="dev", max_examples=5)
    assert len(tasks) == len(rows)
    for task, row in zip(tasks, rows):
        sent = [{"role": "system", "content": task.data.system_prompt}]
        sent += [{"role": m.role, "content": m.content} for m in task.data.prompt]
        assert sent == row["prompt"]
        assert task.data.sv_example_id == task.key == row["example_id"]
        assert task.data.question == row["question"]


@pytest.mark.parametrize("env", [E1, E2, E4])
@pytest.mark.parametrize("profile", PROFILES)
def test_one_weighted_reward_method_per_component(env, profile):
    task = load(env, split="test", max_examples=1, reward_profile=profile)[0]
    hooks = {fn.__name__: fn._vf_weight for fn in task.hooks("reward")}
    assert hooks == dict(svbench.open_env(env, reward_profile=profile).weights())
    for name in hooks:
        assert getattr(type(task), name).reward is True
    # verifiers' env server rebuilds tasks from wire data through the
    # taskset's declared task type; deferred scoring deep-copies them.
    cls = taskset_class(env)
    wire = cls.task_type().data_type().model_validate(task.data.model_dump(mode="json"))
    for rebuilt in (cls.task_type()(wire, task.config), copy.deepcopy(task)):
        assert {fn.__name__: fn._vf_weight for fn in rebuilt.hooks("reward")} == hooks


@pytest.mark.parametrize("profile", PROFILES)
def test_e1_scored_traces_match_replay(profile, svbench_bin, tmp_path):
    tasks = load(E1, split="test", max_examples=len(E1_REPLIES), reward_profile=profile)
    records = [
        {"index": i, "example_id": t.key, "completion": text} for i, (t, text) in enumerate(zip(tasks, E1_REPLIES))
    ]
    cli = run_replay(svbench_bin, tmp_path, "e1", records, profile)
    for task, text in zip(tasks, E1_REPLIES):
        trace = trace_of(task, [vf.AssistantMessage(content=text)])
        rec = cli[task.key]
        assert_same_rewards(scored(task, trace), rec, "v1 trace")
        assert same(trace.reward, rec["reward"]), (trace.reward, rec["reward"])


@pytest.mark.parametrize("profile", PROFILES)
def test_e4_scored_traces_match_replay(profile, svbench_bin, tmp_path):
    """E4 replies of every kind, one per row (the first rows hold every gold
    label), scored by the tasks' reward methods as `eval` replays them."""
    tasks = load(E4, split="test", max_examples=6, reward_profile=profile, evidence_max_items=10)
    assert tasks[0].config.env_args == {"evidence_max_items": 10}
    assert {t.data.answer for t in tasks} == {"Phishing", "Legitimate", "Abstain"}
    replies = [e4_texts(t.data.answer, t.data.info)[i] for i, t in enumerate(tasks)]
    records = [{"index": i, "example_id": t.key, "completion": text} for i, (t, text) in enumerate(zip(tasks, replies))]
    cli = run_replay(svbench_bin, tmp_path, "e4", records, profile)
    statuses = set()
    for task, text in zip(tasks, replies):
        trace = trace_of(task, [vf.AssistantMessage(content=text)])
        rec = cli[task.key]
        statuses.add(rec["parse"]["status"])
        assert_same_rewards(scored(task, trace), rec, "v1 trace")
        assert same(trace.reward, rec["reward"]), (trace.reward, rec["reward"])
        assert trace.info["svbench_score"]["parse"] == rec["parse"]
    assert {"valid", "invalid"} <= statuses, statuses


def test_trace_without_a_reply_is_an_error_not_a_zero():
    task = load(E1, split="test", max_examples=1)[0]
    trace = trace_of(task, [])
    with pytest.raises(vf.TaskError, match="no assistant message"):
        asyncio.run(task.score(trace))


def test_tool_server_runs_the_rollouts_workspace_within_budget():
    task = load(E2, split="test", max_examples=1)[0]
    native = svbench.open_env(E2)
    tools = SvTools(SvToolsetConfig(task=task.config))
    assert tools.run_kubelinter(["."]).startswith('{"error"'), "no task yet: no workspace"
    asyncio.run(tools.setup_task(task.data))
    expected = native.call_tool("run_kubelinter", '{"paths": ["."]}', example_id=task.key)["content"]
    outputs = [tools.run_kubelinter(["."]) for _ in range(native.tool_budget)]
    assert outputs == [expected] * native.tool_budget
    over = json.loads(tools.run_semgrep(["."]))
    assert over == {"error": {"code": "budget_exhausted", "budget": native.tool_budget}}


def test_tool_call_with_wrong_argument_types_gets_evals_error_and_counts():
    task = load(E2, split="test", max_examples=1)[0]
    tools = SvTools(SvToolsetConfig(task=task.config))
    asyncio.run(tools.setup_task(task.data))
    for bad in ("manifest.yaml", [1, 2], None):  # the budget is 3
        err = json.loads(tools.run_opa(bad))["error"]
        assert err["code"] == "invalid_arguments", (bad, err)
    assert json.loads(tools.run_opa(["."]))["error"]["code"] == "budget_exhausted"


def test_toolset_offers_the_registrys_tools():
    tools = SvTools(SvToolsetConfig())
    offered = {fn.__name__: fn for fn in discover_decorated(tools, "tool")}
    specs = {t["function"]["name"]: t["function"] for t in svbench.Env(E2).tools()}
    assert set(offered) == set(specs)
    for name, fn in offered.items():
        assert fn.__doc__ == specs[name]["description"]


# --- rollouts through verifiers' own evaluation entry point -----------------


def e1_script(body: dict) -> dict:
    """Answers each E1 prompt with one of E1_REPLIES, chosen by the flow text."""
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return {"role": "assistant", "content": E1_REPLIES[sum(map(ord, user)) % len(E1_REPLIES)]}


def e4_script(body: dict) -> dict:
    """Answers each E4 prompt Phishing, quoting the email's From line."""
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    sender = next(line for line in user.splitlines() if line.startswith("From: "))
    answer = {"label": "Phishing", "confidence": 0.8, "evidence": [sender.removeprefix("From: ")]}
    return {"role": "assistant", "content": json.dumps(answer)}


def e2_script(body: dict) -> dict:
    """Calls kube-linter with a malformed argument, then properly, then
    reports what it found."""
    msgs = body["messages"]
    tools = [m for m in msgs if m["role"] == "tool"]
    if len(tools) < 2:
        arguments = '{"paths": "manifest.yaml"}' if not tools else '{"paths": ["."]}'
        call = {
            "id": f"call_{len(tools)}",
            "type": "function",
            "function": {"name": "run_kubelinter", "arguments": arguments},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    found = json.loads(tools[-1]["content"]).get("findings", [])
    ids = sorted({f"kube-linter/{f['rule_id']}" for f in found})
    answer = {"violations": [{"id": i} for i in ids], "patch": None, "confidence": 0.6}
    return {"role": "assistant", "content": json.dumps(answer)}


def vf_eval(env: str, script, n: int, out: Path, extra: list[str] = ()) -> list[dict]:
    """`vf-eval ENV` on the first `n` test rows against `script`; the traces."""
    bin_dir = Path(sys.executable).parent
    with FakeOpenAI(script) as server:
        cmd = [
            str(bin_dir / "vf-eval"), env, "-m", "scripted", "--client.base-url", server.base_url,
            "--client.api-key-var", "SVBENCH_FAKE_KEY", "--env.agent.harness.id", "null",
            "--env.agent.runtime.type", "subprocess", "--env.taskset.split", "test",
            "--select.limit", str(n), "--no-push", "-o", str(out), *extra,
        ]  # fmt: skip
        environ = {**os.environ, "SVBENCH_FAKE_KEY": "unused", "PATH": f"{bin_dir}:{os.environ['PATH']}"}
        proc = subprocess.run(cmd, env=environ, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = list(out.rglob("traces.jsonl"))
    traces = [t for line in path.read_text().splitlines() for t in json.loads(line)["traces"]]
    assert len(traces) == n
    for t in traces:
        assert not t["errors"], t["errors"]
    return traces


def check_against_replay(
    env: str, traces: list[dict], svbench_bin: str, tmp_path: Path, flags: list[str] = ()
) -> list[dict]:
    records = []
    for t in traces:
        replies = completion_of(vf.Trace.model_validate(t))
        data = t["task"]["data"]
        records.append({"index": data["idx"], "example_id": t["task"]["key"], "completion_messages": replies})
    cli = run_replay(svbench_bin, tmp_path, env, records, "v1", flags)
    for t, r in zip(traces, records):
        rec = cli[r["example_id"]]
        assert_same_rewards({k: v["score"] for k, v in t["rewards"].items()}, rec, f"vf-eval {env}")
    return records


def test_vf_eval_e1_rollouts_match_replay(svbench_bin, tmp_path):
    traces = vf_eval(E1, e1_script, 4, tmp_path / "vf")
    records = check_against_replay("e1", traces, svbench_bin, tmp_path)
    assert all(len(r["completion_messages"]) == 1 for r in records)
    assert {t["stop_condition"] for t in traces} == {"single_turn"}


def test_vf_eval_e4_rollouts_match_replay(svbench_bin, tmp_path):
    traces = vf_eval(E4, e4_script, 5, tmp_path / "vf")  # every gold label
    records = check_against_replay("e4", traces, svbench_bin, tmp_path)
    assert all(len(r["completion_messages"]) == 1 for r in records)
    assert {t["stop_condition"] for t in traces} == {"single_turn"}
    rewards = {json.dumps(t["rewards"], sort_keys=True) for t in traces}
    assert len(rewards) > 1, "the gold labels differ, so do the rewards"


def test_vf_eval_e2_rollouts_with_tools_match_replay(svbench_bin, tmp_path):
    traces = vf_eval(E2, e2_script, 3, tmp_path / "vf")
    records = check_against_replay("e2", traces, svbench_bin, tmp_path)
    for r in records:
        replies = r["completion_messages"]
        assert [m["role"] for m in replies] == ["assistant", "tool", "assistant", "tool", "assistant"], replies
        # The malformed call got eval's error (and used budget); the episode went on.
        assert json.loads(replies[1]["content"])["error"]["code"] == "invalid_arguments", replies[1]
        assert '"findings"' in replies[3]["content"], replies[3]
    assert any(t["rewards"]["detection"]["score"] > 0 for t in traces)


# --- training configurations ---------------------------------------------------

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "prime-rl"


@pytest.mark.parametrize("name", ["e1-rl.toml", "e2-rl.toml"])
def test_prime_rl_env_blocks_are_valid_env_configs(name):
    """Each source's `env` block validates as verifiers' own env config, with
    the taskset narrowed to svbench's (unknown fields fail), and loads rows."""
    config = tomllib.loads((CONFIGS / name).read_text())
    sources = config["orchestrator"]["train"]["source"] + config["orchestrator"]["eval"]["source"]
    for source in sources:
        env = resolve_env_config(source["env"])
        assert (
            type(env.taskset).__name__.endswith("TasksetConfig") and env.taskset.ENV == source["env"]["taskset"]["id"]
        )
        assert next(iter(load_taskset(env.taskset).take(1))).key
    broken = {"taskset": {**sources[0]["env"]["taskset"], "reward_profil": "v1"}}
    with pytest.raises(ValidationError, match="reward_profil"):
        resolve_env_config(broken)


@pytest.mark.parametrize("name", ["e1-lab.toml", "e2-lab.toml"])
def test_prime_lab_env_args_are_taskset_fields(name):
    config = tomllib.loads((CONFIGS / name).read_text())
    assert {"model", "rollouts_per_example", "env"} <= set(config)
    for env in config["env"]:
        resolved = resolve_env_config({"taskset": {"id": env["id"], **env["args"]}})
        assert next(iter(load_taskset(resolved.taskset).take(1))).key


def always_calls(body: dict) -> dict:
    """Never answers: every reply calls a tool (and says something)."""
    n = sum(m["role"] == "tool" for m in body["messages"])
    call = {"id": f"call_{n}", "type": "function", "function": {"name": "run_opa", "arguments": '{"paths": ["."]}'}}
    answer = json.dumps({"violations": [], "patch": None, "confidence": 0.9})
    return {"role": "assistant", "content": answer, "tool_calls": [call]}


def test_vf_eval_e2_turn_limit_matches_replay(svbench_bin, tmp_path):
    """At the turn limit with calls pending the episode ends with no answer,
    as in eval (the reply's text is not taken as one)."""
    traces = vf_eval(E2, always_calls, 1, tmp_path / "vf", ["--env.taskset.max-turns", "2"])
    (t,) = traces
    assert t["stop_condition"] == "episode_done", t["stop_condition"]
    records = check_against_replay("e2", traces, svbench_bin, tmp_path, ["--max-turns", "2"])
    assert [m["role"] for m in records[0]["completion_messages"]][-1] == "assistant"
    assert t["info"]["svbench_score"]["parse"]["status"] != "valid", t["info"]["svbench_score"]["parse"]


def test_prime_cli_dispatches_the_configs_as_documented():
    """prime 0.18.0 (the hosted-training CLI) takes the prime-rl files as RL
    configs and the shared-LoRA files as the shape it now refuses."""
    from prime_cli.commands.rl import _looks_like_lora, _looks_like_sft

    for name in ("e1-rl.toml", "e2-rl.toml"):
        config = tomllib.loads((CONFIGS / name).read_text())
        assert not _looks_like_lora(config) and not _looks_like_sft(config), name
    for name in ("e1-lab.toml", "e2-lab.toml"):
        assert _looks_like_lora(tomllib.loads((CONFIGS / name).read_text())), name


def test_e2_task_from_a_file_scores_in_another_process(tmp_path):
    """verifiers' env server rebuilds tasks in another process, where the
    rows of a dataset file are not loaded: the task's inline reference
    scores it, exactly as by id."""
    lines = (Path(__file__).resolve().parents[2] / "datasets" / "e2" / "test.jsonl").read_text().splitlines()[:2]
    data = tmp_path / "own.jsonl"
    data.write_text("".join(json.dumps({**json.loads(line), "id": f"own-{i}"}) + "\n" for i, line in enumerate(lines)))
    tasks = load(E2, dataset=str(data), split="test")
    assert [t.key for t in tasks] == ["own-0", "own-1"]
    reply = vf.AssistantMessage(content=json.dumps({"violations": [], "patch": None, "confidence": 0.5}))
    here = [scored(t, trace_of(t, [reply])) for t in tasks]
    script = (
        "import json, sys, asyncio\n"
        "import verifiers.v1 as vf\n"
        "from svbench.verifiers_v1 import SvTaskConfig, taskset_class\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from test_verifiers_v1 import scored, trace_of\n"
        "cls = taskset_class('sv-env-config-verification')\n"
        "out = []\n"
        "for d in json.load(sys.stdin):\n"
        "    data = cls.task_type().data_type().model_validate(d['data'])\n"
        "    config = SvTaskConfig.model_validate(d['config'])\n"
        "    task = cls.task_type()(data, config)\n"
        "    reply = vf.AssistantMessage(content=d['reply'])\n"
        "    out.append(scored(task, trace_of(task, [reply])))\n"
        "print(json.dumps(out))\n"
    )
    payload = [
        {"data": t.data.model_dump(mode="json"), "config": t.config.model_dump(mode="json"), "reply": reply.content}
        for t in tasks
    ]
    proc = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent)],
        input=json.dumps(payload), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout) == here


def test_rescoring_a_saved_trace_under_another_profile_is_fresh():
    (v1_task,) = load(E1, split="test", max_examples=1)
    (up_task,) = load(E1, split="test", max_examples=1, reward_profile="upstream")
    trace = trace_of(v1_task, [vf.AssistantMessage(content=E1_REPLIES[0])])
    first = scored(v1_task, trace)
    again = vf.Trace.model_validate(json.loads(trace.model_dump_json()))
    again.rewards.clear()
    assert set(scored(up_task, again)) == set(dict(svbench.open_env(E1, reward_profile="upstream").weights()))
    assert set(first) == {"utility", "calibration", "format"}
    assert again.info["svbench_score"]["rewards"].keys() == set(scored(up_task, again))

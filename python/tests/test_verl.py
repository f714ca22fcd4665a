"""svbench.verl against verl 0.9.1's contracts, and svbench.verl_tool
against a real `svbench serve` on loopback.

verl is not installed (it needs torch and ray). Where its code matters, the
few lines involved are transcribed from the verl 0.9.1 wheel, file and
function named at each."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pydantic
import pytest

import svbench
from conftest import E1, E2, E4
from svbench import verl, verl_tool
from svbench.verl_tool import Episodes, EpisodeTool, ServeClient, ServeError

COMPLETIONS = {
    E1: '{"label": "Benign", "confidence": 0.8}',
    E2: '{"violations": [], "patch": "", "confidence": 0.9}',
    E4: '{"label": "Phishing", "confidence": 0.7, "evidence": ["Subject"]}',
}


# --- compute_score and GDPO ------------------------------------------------


@pytest.mark.parametrize("env", [E1, E2, E4])
@pytest.mark.parametrize("profile", ["v1", "upstream"])
def test_compute_score_components_are_gdpo_keys(env, profile):
    rows = verl.rows(env, "dev", max_examples=3, reward_profile=profile)
    cfg = verl.gdpo_config(env, reward_profile=profile)
    weights = svbench.open_env(env, reward_profile=profile).weights()
    assert cfg["adv_estimator"] == "gdpo"
    assert cfg["gdpo_reward_keys"] == [n for n, _ in weights]
    assert cfg["gdpo_reward_weights"] == [w for _, w in weights]
    for r in rows:
        out = verl.compute_score(
            data_source=r["data_source"],
            solution_str=COMPLETIONS[env],
            ground_truth=r["reward_model"]["ground_truth"],
            extra_info=r["extra_info"],
        )
        assert set(out) == {"score", "parse_status", *cfg["gdpo_reward_keys"]}
        assert all(type(out[k]) is float for k in ["score", *cfg["gdpo_reward_keys"]])
        full = svbench.open_env(env, reward_profile=profile).score(
            COMPLETIONS[env], example_id=r["extra_info"]["example_id"]
        )
        assert out["score"] == full["reward"]
        assert {k: out[k] for k in cfg["gdpo_reward_keys"]} == full["rewards"]


def test_reward_extra_info_survives_verls_stacking():
    # verl 0.9.1 verl/experimental/reward_loop/reward_manager/naive.py
    # (NaiveRewardManager.run_single) keeps every key of the dict:
    #     for key, value in result.items(): reward_extra_info[key] = value
    # verl/experimental/agent_loop/agent_loop.py (_postprocess) stacks them:
    #     reward_extra_keys = list(reward_extra_infos[0].keys())
    #     non_tensor_batch[key] = np.array([info[key] for info in reward_extra_infos])
    # verl/trainer/ppo/core_algos.py (compute_gdpo_outcome_advantage) reads each key:
    #     rm_score = torch.tensor(np.asarray(comp, dtype=np.float32), ...)
    rows = verl.rows(E1, "dev", max_examples=4)
    completions = [COMPLETIONS[E1], "not json", '{"label": "Malicious", "confidence": 0.3}', ""]
    infos = []
    for r, c in zip(rows, completions):
        result = verl.compute_score(r["data_source"], c, r["reward_model"]["ground_truth"], r["extra_info"])
        infos.append({key: value for key, value in result.items()})
    keys = list(infos[0].keys())
    non_tensor_batch = {key: np.array([info[key] for info in infos]) for key in keys}
    for key in verl.gdpo_config(E1)["gdpo_reward_keys"]:
        comp = np.asarray(non_tensor_batch[key], dtype=np.float32)
        assert comp.shape == (4,) and np.isfinite(comp).all()
    # The status is a string column; verl's validation metrics skip strings
    # (verl/trainer/ppo/metric_utils.py process_validation_metrics).
    assert non_tensor_batch["parse_status"].dtype.kind == "U"
    assert set(non_tensor_batch["parse_status"]) >= {"valid"}


def test_gdpo_overrides_are_hydra_lines():
    lines = verl.gdpo_overrides(E1, reward_profile="upstream")
    cfg = verl.gdpo_config(E1, reward_profile="upstream")
    assert lines[0] == "algorithm.adv_estimator=gdpo"
    assert lines[1] == "+algorithm.gdpo_reward_keys=[" + ",".join(cfg["gdpo_reward_keys"]) + "]"
    weights = lines[2].removeprefix("+algorithm.gdpo_reward_weights=[").removesuffix("]").split(",")
    assert [float(w) for w in weights] == cfg["gdpo_reward_weights"]
    # reward_config overrides reach the weights.
    changed = verl.gdpo_config(E1, reward_config={"v1": {"w_calibration": 0.5}})
    assert dict(zip(changed["gdpo_reward_keys"], changed["gdpo_reward_weights"]))["calibration"] == 0.5


# --- rows with tools_kwargs -------------------------------------------------


def test_rows_verl_tools_carry_create_kwargs(tmp_path):
    tools = [t["function"]["name"] for t in svbench.open_env(E2).tools()]
    assert tools
    plain = verl.rows(E2, "dev", max_examples=2)
    assert "tools_kwargs" not in plain[0]["extra_info"]
    rows = verl.rows(E2, "dev", max_examples=2, verl_tools=True, reward_profile="upstream")
    for r in rows:
        kw = r["extra_info"]["tools_kwargs"]
        assert sorted(kw) == sorted(tools)
        create = kw[tools[0]]["create_kwargs"]
        assert create == {
            "env": E2,
            "split": "dev",
            "example_id": r["extra_info"]["example_id"],
            "reward_profile": "upstream",
        }
    path = tmp_path / "e2.parquet"
    assert verl.write_parquet(E2, "dev", str(path), max_examples=2, verl_tools=True) == 2
    import pyarrow.parquet as pq

    back = pq.read_table(path).to_pylist()
    assert (
        back[1]["extra_info"]["tools_kwargs"][tools[0]]["create_kwargs"]["example_id"]
        == rows[1]["extra_info"]["example_id"]
    )
    with pytest.raises(ValueError, match="no tools"):
        verl.rows(E1, "dev", max_examples=1, verl_tools=True)


# --- svbench serve ----------------------------------------------------------


@pytest.fixture(scope="module")
def serve(svbench_bin):
    """`svbench serve --bind 127.0.0.1:0`; yields its base URL."""
    proc = subprocess.Popen(
        [svbench_bin, "serve", "--bind", "127.0.0.1:0", "--envs", "e1,e2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url + "/readyz", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "svbench serve not ready in 60 s"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _e2_row() -> dict:
    return verl.rows(E2, "dev", max_examples=1, verl_tools=True)[0]


def _tool_args(env: svbench.Env, name: str) -> dict:
    """Arguments for a tool from its schema: every required parameter, with
    the workspace file the prompt names where one is a path list."""
    spec = next(t for t in env.tools() if t["function"]["name"] == name)
    params = spec["function"].get("parameters", {})
    args: dict[str, Any] = {}
    for p in params.get("required", []):
        kind = params["properties"][p].get("type")
        args[p] = [] if kind == "array" else ""
    return args


class Owner:
    """Stands in for verl's AgentData: any object that can be weakly referenced."""


def test_client_errors_are_typed(serve):
    client = ServeClient(serve)
    with pytest.raises(ServeError) as e:
        client.reset("no-such-env", example_id="x")
    assert e.value.status == 404 and e.value.code == "unknown_env"
    with pytest.raises(ServeError) as e:
        client.step("nope", {"role": "assistant", "content": "x"})
    assert e.value.code == "episode_not_found"
    assert client.close("nope") is False
    with pytest.raises(ServeError) as e:
        ServeClient("http://127.0.0.1:9", timeout=2).env("e2")
    assert e.value.status is None and e.value.code == "unreachable"


def test_episode_tool_matches_in_process_tool_call(serve):
    row = _e2_row()
    env = svbench.open_env(E2)
    create = next(iter(row["extra_info"]["tools_kwargs"].values()))["create_kwargs"]
    client = ServeClient(serve)
    for spec in env.tools():
        name = spec["function"]["name"]
        core = EpisodeTool(Episodes(client, E2), name)
        owner = Owner()
        args = _tool_args(env, name)
        text, metrics = asyncio.run(core.call(owner, args, create))
        local = env.call_tool(name, json.dumps(args), example_id=create["example_id"])
        assert text == local["content"], name
        assert metrics["ok"] == local["ok"] and metrics["turn"] == 1 and metrics["done"] is False
        episode_id = core.episode_id(owner)
        assert client.episode(episode_id)["example_id"] == create["example_id"]
        assert core.close(owner) is True
        with pytest.raises(ServeError) as e:
            client.episode(episode_id)
        assert e.value.code in ("episode_not_found", "episode_expired")


def test_one_episode_per_owner_and_closed_when_owner_is_freed(serve):
    row = _e2_row()
    env = svbench.open_env(E2)
    create = next(iter(row["extra_info"]["tools_kwargs"].values()))["create_kwargs"]
    names = [t["function"]["name"] for t in env.tools()]
    name = names[0]
    client = ServeClient(serve)
    episodes = Episodes(client, E2)
    core = EpisodeTool(episodes, name)
    owner, other = Owner(), Owner()

    async def parallel(owner):
        # verl runs a turn's tool calls with asyncio.gather: they must not
        # collide on the episode (the server would answer 409 episode_busy),
        # and every tool of a trajectory steps the same episode.
        calls = [EpisodeTool(episodes, n).call(owner, _tool_args(env, n), create) for n in (names * 3)[:3]]
        return await asyncio.gather(*calls)

    results = asyncio.run(parallel(owner))
    assert sorted(m["turn"] for _, m in results) == [1, 2, 3]
    assert len({m["episode_id"] for _, m in results}) == 1
    _, m_other = asyncio.run(core.call(other, _tool_args(env, name), create))
    assert m_other["episode_id"] != results[0][1]["episode_id"] and m_other["turn"] == 1
    episode_id = core.episode_id(owner)
    assert client.episode(episode_id)["turn"] == 3
    del owner
    gc.collect()
    deadline = time.monotonic() + 10
    while True:
        try:
            client.episode(episode_id)
        except ServeError as e:
            assert e.code == "episode_not_found"
            break
        assert time.monotonic() < deadline, "episode not closed after its owner was freed"
        time.sleep(0.05)
    assert core.close(other) is True


def test_episode_tool_refuses_rows_without_example(serve):
    core = EpisodeTool(Episodes(ServeClient(serve), E2), "run_kubelinter")
    with pytest.raises(ValueError, match="no example"):
        asyncio.run(core.call(Owner(), {}, {}))
    with pytest.raises(ValueError, match="serves"):
        asyncio.run(core.call(Owner(), {}, {"env": E1, "example_id": "x"}))


# --- the verl adapter -------------------------------------------------------
# Transcribed from verl 0.9.1: verl/tools/schemas.py (ToolResponse,
# OpenAIFunction*Schema), verl/tools/base_tool.py (BaseTool) and the BaseTool
# branch of verl/experimental/agent_loop/tool_agent_loop.py
# (ToolAgentLoop._call_tool). pydantic (verl's schema library) comes with
# the test environment's verifiers.


class ToolResponse(pydantic.BaseModel):
    text: str | None = None
    image: list[Any] | None = None
    video: list[Any] | None = None


class OpenAIFunctionPropertySchema(pydantic.BaseModel):
    type: str | list[str]
    description: str | None = None
    enum: list[Any] | None = None


class OpenAIFunctionParametersSchema(pydantic.BaseModel):
    type: str
    properties: dict[str, OpenAIFunctionPropertySchema]
    required: list[str] = pydantic.Field(default_factory=list)


class OpenAIFunctionSchema(pydantic.BaseModel):
    name: str
    description: str
    parameters: OpenAIFunctionParametersSchema = pydantic.Field(
        default_factory=lambda: OpenAIFunctionParametersSchema(type="object", properties={}, required=[])
    )
    strict: bool = False


class OpenAIFunctionToolSchema(pydantic.BaseModel):
    type: str
    function: OpenAIFunctionSchema


class BaseTool:
    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):
        self.config = config
        self.tool_schema = tool_schema or self.get_openai_tool_schema()
        assert self.tool_schema is not None, "Tool schema is not set!"
        self.name = self.tool_schema.function.name

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs) -> tuple[str, ToolResponse]:
        raise NotImplementedError

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs) -> tuple[ToolResponse, float, dict]:
        raise NotImplementedError

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs) -> None:
        pass


async def call_tool_as_verl(tool, tools_kwargs: dict, tool_args: dict, agent_data) -> tuple[ToolResponse, float, dict]:
    """ToolAgentLoop._call_tool's BaseTool branch."""
    instance_id = None
    try:
        kwargs = tools_kwargs.get(tool.name, {})
        instance_id, _ = await tool.create(create_kwargs=kwargs.get("create_kwargs", {}))
        return await tool.execute(instance_id, tool_args, agent_data=agent_data)
    finally:
        if tool and instance_id:
            await tool.release(instance_id)


class AgentData:
    """The parts of verl's AgentData a tool sees."""

    def __init__(self) -> None:
        self.request_id = "r"
        self.extra_fields: dict[str, Any] = {}


def _tools_from_config(cfg: dict, cls) -> list:
    """verl/tools/tool_registry.py initialize_tools_from_config, NATIVE branch."""
    out = []
    for entry in cfg["tools"]:
        assert entry["class_name"] == "svbench.verl_tool.SvbenchTool"
        assert entry["config"]["type"] == "native"
        schema = entry.get("tool_schema")
        schema = None if schema is None else OpenAIFunctionToolSchema.model_validate(schema)
        out.append(cls(config=entry["config"], tool_schema=schema))
    return out


def test_tool_config_validates_as_verls_schema(tmp_path):
    path = tmp_path / "tools.yaml"
    n = verl_tool.write_tool_config(str(path), "e2", "http://127.0.0.1:8080", token_env="SVBENCH_TOKEN", max_turns=8)
    cfg = json.loads(path.read_text())
    names = [t["function"]["name"] for t in svbench.open_env(E2).tools()]
    assert n == len(cfg["tools"]) == len(names)
    for entry, name in zip(cfg["tools"], names):
        assert entry["config"] == {
            "type": "native",
            "base_url": "http://127.0.0.1:8080",
            "env": E2,
            "token_env": "SVBENCH_TOKEN",
            "episode": {"max_turns": 8},
        }
        assert OpenAIFunctionToolSchema.model_validate(entry["tool_schema"]).function.name == name
    with pytest.raises(ValueError, match="no tools"):
        verl_tool.tool_config(E1, "http://127.0.0.1:8080")
    with pytest.raises(TypeError):
        verl_tool.tool_config(E2, "http://x", max_turn=3)


def test_adapter_runs_a_trajectory_like_verls_tool_agent_loop(serve):
    cls = verl_tool.make_tool_class(BaseTool, ToolResponse, OpenAIFunctionToolSchema)
    assert issubclass(cls, BaseTool) and cls.__qualname__ == "SvbenchTool"
    tools = {t.name: t for t in _tools_from_config(verl_tool.tool_config(E2, serve), cls)}
    row = _e2_row()
    tools_kwargs = row["extra_info"]["tools_kwargs"]
    env = svbench.open_env(E2)
    agent_data = AgentData()

    async def trajectory(agent_data):
        out = []
        for name, tool in tools.items():
            out.append(await call_tool_as_verl(tool, tools_kwargs, _tool_args(env, name), agent_data))
        return out

    results = asyncio.run(trajectory(agent_data))
    for (resp, reward, _), name in zip(results, tools):
        assert isinstance(resp, ToolResponse) and reward == 0.0
        local = env.call_tool(name, json.dumps(_tool_args(env, name)), example_id=row["extra_info"]["example_id"])
        assert resp.text == local["content"]
    # One episode for the trajectory, shared by its tools and open across
    # each call's create/release.
    client = ServeClient(serve)
    episodes = {tool.core.episode_id(agent_data) for tool in tools.values()}
    assert len(episodes) == 1
    assert client.episode(next(iter(episodes)))["turn"] == len(tools)
    assert all(not t._instances for t in tools.values())
    del agent_data, results
    gc.collect()
    deadline = time.monotonic() + 10
    while any(_exists(client, e) for e in episodes):
        assert time.monotonic() < deadline, "episodes not closed after the trajectory ended"
        time.sleep(0.05)

    # Without agent_data the episode lives from create to release.
    tool = next(iter(tools.values()))

    async def bare():
        instance_id, _ = await tool.create(create_kwargs=tools_kwargs[tool.name]["create_kwargs"])
        resp, _, metrics = await tool.execute(instance_id, _tool_args(env, tool.name))
        assert _exists(client, metrics["episode_id"])
        await tool.release(instance_id)
        return metrics["episode_id"]

    assert not _exists(client, asyncio.run(bare()))


def test_adapter_schema_from_registry_and_config_errors(monkeypatch):
    cls = verl_tool.make_tool_class(BaseTool, ToolResponse, OpenAIFunctionToolSchema)
    name = svbench.open_env(E2).tools()[0]["function"]["name"]
    tool = cls({"type": "native", "base_url": "http://127.0.0.1:8080", "env": "e2", "name": name}, None)
    assert tool.name == name
    with pytest.raises(ValueError, match="base_url"):
        cls({"type": "native", "env": "e2", "name": name}, None)
    with pytest.raises(ValueError, match="no tool"):
        cls({"type": "native", "base_url": "http://x", "env": "e2", "name": "nope"}, None)
    monkeypatch.delenv("SVBENCH_TEST_TOKEN", raising=False)
    with pytest.raises(ValueError, match="SVBENCH_TEST_TOKEN"):
        cls(
            {"type": "native", "base_url": "http://x", "env": "e2", "name": name, "token_env": "SVBENCH_TEST_TOKEN"},
            None,
        )


def test_verl_tool_imports_without_verl():
    # `import svbench.verl_tool` must not need verl; the class lookup does.
    import importlib.util

    if importlib.util.find_spec("verl") is not None:
        pytest.skip("verl is installed")
    with pytest.raises(ImportError, match="needs verl"):
        verl_tool.SvbenchTool  # noqa: B018
    assert Path(verl_tool.__file__).name == "verl_tool.py"


def _exists(client: ServeClient, episode_id: str) -> bool:
    try:
        client.episode(episode_id)
    except ServeError as e:
        assert e.code == "episode_not_found"
        return False
    return True

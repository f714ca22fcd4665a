"""A verl (0.9.1) tool that runs an environment's tools (E2: ``run_kubelinter``,
``run_semgrep``, ``run_opa``) in ``svbench serve`` episodes over HTTP.

verl's ``ToolAgentLoop`` calls ``create``, ``execute`` and ``release`` once
per tool call, not once per trajectory, and passes the trajectory's
``AgentData`` to ``execute``. So the server episode belongs to that
``AgentData``, shared by all the tools: its first tool call resets an
episode for the row's example
(``extra_info.tools_kwargs.<tool>.create_kwargs``, written by
``svbench.verl.rows(..., verl_tools=True)``), each call is one step, and the
episode is deleted once the trajectory's ``AgentData`` is freed (the
server's ``--episode-ttl`` catches anything left). Called without
``agent_data``, an episode lives from ``create`` to ``release``.

The HTTP client and the episode bookkeeping (:class:`ServeClient`,
:class:`Episodes`, :class:`EpisodeTool`) need only the standard library; ``SvbenchTool``, the
``verl.tools.base_tool.BaseTool`` subclass named in verl's tool config,
imports verl when first looked up. :func:`tool_config` writes that config
from the native registry's tool schemas.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
import weakref
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from svbench._common import env_name, native_env

#: Reset-body fields a row's ``create_kwargs`` (or the tool config) may set.
EPISODE_FIELDS = (
    "example_id",
    "index",
    "split",
    "env_args",
    "reward_profile",
    "reward_config",
    "max_turns",
    "tool_budget",
)

#: Server answers after which the episode can take no more steps: the model
#: gets them as the tool's text instead of an exception.
_ENDED = ("episode_done", "episode_expired", "episode_not_found")


class ServeError(RuntimeError):
    """An error answer of ``svbench serve`` (``status`` None: no answer)."""

    def __init__(self, status: int | None, code: str, message: str):
        super().__init__(f"svbench serve: {code}: {message}" if status is None else f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class ServeClient:
    """A blocking JSON client of ``svbench serve`` (standard library only).
    It connects directly, ignoring HTTP proxy settings: the server is a
    service of the training job, usually on the same host."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Sends one request; returns the decoded JSON body (None when empty)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
                code, message = str(err["code"]), str(err["message"])
            except (ValueError, KeyError, TypeError):
                code, message = "http_error", raw.decode(errors="replace")[:200]
            raise ServeError(e.code, code, message) from None
        except (urllib.error.URLError, OSError) as e:
            raise ServeError(None, "unreachable", f"{self.base_url}: {getattr(e, 'reason', e)}") from None
        return json.loads(raw) if raw else None

    @staticmethod
    def _seg(part: str) -> str:
        return urllib.parse.quote(part, safe="")

    def env(self, env: str) -> dict:
        """The catalogue entry of an environment (``GET /v1/envs/{env}``)."""
        return self.request("GET", f"/v1/envs/{self._seg(env)}")

    def reset(self, env: str, **fields: Any) -> dict:
        """Starts an episode (``POST /v1/envs/{env}/episodes``); fields left
        None are not sent. Returns ``{episode_id, example_id, observation,
        tools, max_turns, tool_budget, expires_at}``."""
        unknown = set(fields) - set(EPISODE_FIELDS)
        if unknown:
            raise TypeError(f"unknown episode field(s): {', '.join(sorted(unknown))}")
        body = {k: v for k, v in fields.items() if v is not None}
        return self.request("POST", f"/v1/envs/{self._seg(env)}/episodes", body)

    def step(self, episode_id: str, message: Mapping[str, Any]) -> dict:
        """One assistant message (``POST /v1/episodes/{id}/step``)."""
        return self.request("POST", f"/v1/episodes/{self._seg(episode_id)}/step", {"message": dict(message)})

    def episode(self, episode_id: str) -> dict:
        """``GET /v1/episodes/{id}``: ``{episode_id, env, example_id, turn, done, expires_at}``."""
        return self.request("GET", f"/v1/episodes/{self._seg(episode_id)}")

    def close(self, episode_id: str) -> bool:
        """Deletes an episode; False when the server no longer has it."""
        try:
            self.request("DELETE", f"/v1/episodes/{self._seg(episode_id)}")
        except ServeError as e:
            if e.code in ("episode_not_found", "episode_expired"):
                return False
            raise
        return True


class _Trajectory:
    """The server episode of one owner (a verl ``AgentData`` or an instance)."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.episode_id: str | None = None
        self.calls = 0
        self.finalizer: weakref.finalize | None = None


class Episodes:
    """``svbench serve`` episodes of one environment, one per owner.

    ``call(owner, tool, arguments, episode)`` runs a tool in ``owner``'s
    episode, resetting one on the owner's first call with ``episode`` (reset
    fields plus ``env``). Calls of one owner run one at a time (the server
    answers a concurrent step of an episode with 409), each as one step
    carrying one tool call. The episode is deleted by :meth:`close` or, at
    the latest, once ``owner`` is garbage-collected (on a background
    thread). ``owner`` is any object that can be weakly referenced.
    """

    def __init__(self, client: ServeClient, env: str):
        self.client = client
        self.env = env_name(env)
        self._owners: weakref.WeakKeyDictionary[Any, _Trajectory] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()
        self._closer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="svbench-episode-close")

    def episode_id(self, owner: Any) -> str | None:
        """The owner's server episode, if it has one."""
        with self._guard:
            traj = self._owners.get(owner)
        return traj.episode_id if traj else None

    def _trajectory(self, owner: Any) -> _Trajectory:
        with self._guard:
            traj = self._owners.get(owner)
            if traj is None:
                traj = _Trajectory()
                self._owners[owner] = traj
            return traj

    def _close_quietly(self, episode_id: str) -> None:
        try:
            self.client.close(episode_id)
        except ServeError:
            pass  # the server's TTL drops it

    def _close_later(self, episode_id: str) -> None:
        try:
            self._closer.submit(self._close_quietly, episode_id)
        except RuntimeError:
            pass  # interpreter shutdown: the TTL drops it

    async def _open(self, owner: Any, traj: _Trajectory, tool: str, episode: Mapping[str, Any] | None) -> str:
        fields = dict(episode or {})
        env = fields.pop("env", None) or self.env
        if env_name(env) != self.env:
            raise ValueError(f"tool `{tool}` serves {self.env}, the row asks for {env}")
        fields = {k: v for k, v in fields.items() if k in EPISODE_FIELDS}
        if fields.get("example_id") is None and fields.get("index") is None:
            raise ValueError(
                f"tool `{tool}`: no example to reset an episode for (give create_kwargs "
                "with example_id: svbench.verl.write_parquet(..., verl_tools=True))"
            )
        reset = await asyncio.to_thread(self.client.reset, self.env, **fields)
        traj.episode_id = str(reset["episode_id"])
        traj.finalizer = weakref.finalize(owner, self._close_later, traj.episode_id)
        return traj.episode_id

    async def call(
        self,
        owner: Any,
        tool: str,
        arguments: Mapping[str, Any] | str,
        episode: Mapping[str, Any] | None = None,
    ) -> tuple[str, dict]:
        """Runs ``tool``; returns the tool message's text and metrics
        ``{ok, episode_id, turn, done}``."""
        traj = self._trajectory(owner)
        async with traj.lock:
            episode_id = traj.episode_id or await self._open(owner, traj, tool, episode)
            traj.calls += 1
            call_id = f"call_{traj.calls}"
            args = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": tool, "arguments": args}}],
            }
            try:
                out = await asyncio.to_thread(self.client.step, episode_id, message)
            except ServeError as e:
                if e.code in _ENDED:
                    return f"error: {e.message}", {"ok": False, "episode_id": episode_id, "error": e.code}
                raise
        texts = [
            m.get("content") or ""
            for m in out["observation"]["messages"]
            if m.get("role") == "tool" and m.get("tool_call_id") == call_id
        ]
        oks = [bool(i.get("ok")) for i in out.get("tool_interactions", [])]
        metrics = {"ok": bool(oks) and all(oks), "episode_id": episode_id, "turn": out["turn"], "done": out["done"]}
        if out.get("truncated"):
            # The turn limit ended the episode before the tool ran.
            return f"error: the episode reached its turn limit ({out['turn']} turns)", metrics
        return "\n".join(texts), metrics

    def close(self, owner: Any) -> bool:
        """Deletes the owner's episode now (blocking); False if it had none."""
        with self._guard:
            traj = self._owners.pop(owner, None)
        if traj is None or traj.episode_id is None:
            return False
        if traj.finalizer is not None:
            traj.finalizer.detach()
        self._close_quietly(traj.episode_id)
        return True


_SHARED: dict[tuple, Episodes] = {}
_SHARED_LOCK = threading.Lock()


def shared_episodes(base_url: str, env: str, token: str | None = None, timeout: float = 60.0) -> Episodes:
    """The process's :class:`Episodes` for a server and environment, so the
    tools of one trajectory share its episode."""
    key = (base_url.rstrip("/"), env_name(env), token, float(timeout))
    with _SHARED_LOCK:
        episodes = _SHARED.get(key)
        if episodes is None:
            episodes = Episodes(ServeClient(base_url, token=token, timeout=timeout), env)
            _SHARED[key] = episodes
        return episodes


class EpisodeTool:
    """One tool over :class:`Episodes`: the verl-free core of ``SvbenchTool``.
    ``episode_defaults`` are reset fields a call's ``episode`` does not set."""

    def __init__(self, episodes: Episodes, tool_name: str, episode_defaults: Mapping[str, Any] | None = None):
        self.episodes = episodes
        self.tool_name = tool_name
        self.episode_defaults = dict(episode_defaults or {})

    async def call(
        self, owner: Any, arguments: Mapping[str, Any] | str, episode: Mapping[str, Any] | None = None
    ) -> tuple[str, dict]:
        """:meth:`Episodes.call` for this tool."""
        fields = {**self.episode_defaults, **dict(episode or {})}
        return await self.episodes.call(owner, self.tool_name, arguments, fields)

    def episode_id(self, owner: Any) -> str | None:
        return self.episodes.episode_id(owner)

    def close(self, owner: Any) -> bool:
        return self.episodes.close(owner)


def tool_schemas(env: str) -> list[dict]:
    """The OpenAI tool entries the environment offers, from the native registry."""
    return list(native_env(env).tools())


def tool_config(
    env: str,
    base_url: str,
    token_env: str | None = None,
    timeout: float | None = None,
    **episode_defaults: Any,
) -> dict:
    """verl's tool config (``actor_rollout_ref.rollout.multi_turn.tool_config_path``)
    for every tool of ``env``: one ``SvbenchTool`` entry per tool, its schema
    from the native registry. ``token_env`` names the variable holding the
    server's bearer token; ``episode_defaults`` (reset fields such as
    ``max_turns``) apply where a row's ``create_kwargs`` does not set them."""
    unknown = set(episode_defaults) - set(EPISODE_FIELDS)
    if unknown:
        raise TypeError(f"unknown episode field(s): {', '.join(sorted(unknown))}")
    name = env_name(env)
    tools = []
    for schema in tool_schemas(name):
        config: dict[str, Any] = {"type": "native", "base_url": base_url, "env": name}
        if token_env:
            config["token_env"] = token_env
        if timeout is not None:
            config["timeout"] = timeout
        if episode_defaults:
            config["episode"] = dict(episode_defaults)
        tools.append({"class_name": "svbench.verl_tool.SvbenchTool", "config": config, "tool_schema": schema})
    if not tools:
        raise ValueError(f"{name} offers no tools")
    return {"tools": tools}


def write_tool_config(path: str, env: str, base_url: str, **kwargs: Any) -> int:
    """Writes :func:`tool_config` to ``path`` as JSON, which verl's YAML
    loader reads; returns the number of tools."""
    cfg = tool_config(env, base_url, **kwargs)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    return len(cfg["tools"])


class _Instance:
    """A verl tool instance: the row's ``create_kwargs``."""

    __slots__ = ("episode", "__weakref__")

    def __init__(self, episode: Mapping[str, Any]):
        self.episode = dict(episode)


def make_tool_class(base_tool: type, tool_response: type, schema_model: Any, trace: Any = None) -> type:
    """The ``BaseTool`` subclass over verl's ``BaseTool``, ``ToolResponse``
    and ``OpenAIFunctionToolSchema`` (``verl.tools.base_tool`` and
    ``verl.tools.schemas``). ``trace`` wraps ``execute`` (verl's
    ``rollout_trace_op``)."""

    class SvbenchTool(base_tool):  # type: ignore[misc, valid-type]
        """verl tool: ``config`` keys ``type: native``, ``base_url``, ``env``,
        and optionally ``token_env``, ``timeout``, ``episode`` (default reset
        fields) and ``name`` (when the entry has no ``tool_schema``)."""

        def __init__(self, config: dict, tool_schema: Any):
            cfg = dict(config or {})
            for key in ("base_url", "env"):
                if not cfg.get(key):
                    raise ValueError(f"SvbenchTool config needs `{key}`")
            if tool_schema is None:
                tool_schema = _schema_from_registry(cfg, schema_model)
            super().__init__(config, tool_schema)
            token = os.environ.get(cfg["token_env"]) if cfg.get("token_env") else None
            if cfg.get("token_env") and not token:
                raise ValueError(f"SvbenchTool: ${cfg['token_env']} is unset or empty")
            episodes = shared_episodes(cfg["base_url"], cfg["env"], token, float(cfg.get("timeout") or 60.0))
            self.core = EpisodeTool(episodes, self.name, cfg.get("episode"))
            self._instances: dict[str, _Instance] = {}

        async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, Any]:
            if instance_id is None:
                instance_id = str(uuid.uuid4())
            self._instances[instance_id] = _Instance(kwargs.get("create_kwargs") or {})
            return instance_id, tool_response()

        async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[Any, float, dict]:
            instance = self._instances.get(instance_id)
            if instance is None:
                raise KeyError(f"SvbenchTool: no instance `{instance_id}` (create it first)")
            agent_data = kwargs.get("agent_data")
            owner = agent_data if agent_data is not None else instance
            text, metrics = await self.core.call(owner, parameters, instance.episode)
            return tool_response(text=text), 0.0, metrics

        async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
            # The reward is compute_score's, on the final answer.
            return 0.0

        async def release(self, instance_id: str, **kwargs: Any) -> None:
            instance = self._instances.pop(instance_id, None)
            if instance is not None:
                # Only an episode the instance owns (no agent_data) ends here.
                await asyncio.to_thread(self.core.close, instance)

    if trace is not None:
        SvbenchTool.execute = trace(SvbenchTool.execute)  # type: ignore[method-assign]
    # Importable (and picklable) as svbench.verl_tool.SvbenchTool.
    SvbenchTool.__module__ = __name__
    SvbenchTool.__qualname__ = "SvbenchTool"
    return SvbenchTool


def _schema_from_registry(cfg: Mapping[str, Any], schema_model: Any) -> Any:
    name = cfg.get("name")
    for schema in tool_schemas(cfg["env"]):
        if schema.get("function", {}).get("name") == name:
            return schema_model.model_validate(schema)
    raise ValueError(f"SvbenchTool: {cfg['env']} has no tool `{name}` (set config.name or give tool_schema)")


_CLASS: type | None = None


def __getattr__(name: str) -> Any:
    # verl's tool registry looks the class up by name: import verl then.
    global _CLASS
    if name != "SvbenchTool":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _CLASS is None:
        try:
            from verl.tools.base_tool import BaseTool
            from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
            from verl.utils.rollout_trace import rollout_trace_op
        except ImportError as e:
            raise ImportError("svbench.verl_tool.SvbenchTool needs verl (0.9.1 tested)") from e
        _CLASS = make_tool_class(BaseTool, ToolResponse, OpenAIFunctionToolSchema, rollout_trace_op)
    return _CLASS


__all__ = [
    "EPISODE_FIELDS",
    "EpisodeTool",
    "Episodes",
    "ServeClient",
    "ServeError",
    "make_tool_class",
    "shared_episodes",
    "tool_config",
    "tool_schemas",
    "write_tool_config",
]

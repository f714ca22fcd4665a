"""verifiers environments built from svbench's Rust core.

``load_environment(name, **kwargs)`` returns a classic-API verifiers
environment (``vf.SingleTurnEnv`` for single-turn ones such as E1 and E4, a
``vf.ToolEnv`` subclass for E2)
whose rubric has one plain function per reward component, named and weighted
as in Rust, so verifiers' weighted sum equals svbench's total.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Callable, Iterator
from typing import Any

from svbench._common import Scorer, answer_text, env_from_kwargs, env_name
from svbench._native import DatasetError, Env, ToolCalls

#: Keyword arguments of ``load_environment`` beyond the common ``eval`` flags.
EXTRA_ARGS = ("eval_split",)

# Tools receive no rollout state: the environment binds the running
# rollout's tool calls (a native ToolCalls on the rollout's own workspace,
# which enforces the budget as eval does) here before its tools run, and
# only for that call. No process-global fixture registry.
_ROLLOUT: contextvars.ContextVar[ToolCalls | None] = contextvars.ContextVar("svbench_rollout", default=None)


@contextlib.contextmanager
def rollout_tools(calls: ToolCalls) -> Iterator[None]:
    """Runs the tools called inside as ``calls`` (one rollout's)."""
    token = _ROLLOUT.set(calls)
    try:
        yield
    finally:
        _ROLLOUT.reset(token)


def _run_tool(name: str, paths: list[str]) -> str:
    """Runs an E2 tool against the current rollout's workspace."""
    calls = _ROLLOUT.get()
    if calls is None:
        return json.dumps(
            {"error": {"code": "no_workspace", "message": "no rollout is running, so there is no workspace to analyse"}}
        )
    return calls.call(name, json.dumps({"paths": paths}))["content"]


def run_kubelinter(paths: list[str]) -> str:
    """Run the kube-linter analyzer on files of the workspace and return its findings as JSON.

    Args:
        paths: Workspace paths: the file name, ./<name>, /workspace/<name>; ".", "/workspace" or [] for all files.
    """
    return _run_tool("run_kubelinter", paths)


def run_semgrep(paths: list[str]) -> str:
    """Run the semgrep analyzer on files of the workspace and return its findings as JSON.

    Args:
        paths: Workspace paths: the file name, ./<name>, /workspace/<name>; ".", "/workspace" or [] for all files.
    """
    return _run_tool("run_semgrep", paths)


def run_opa(paths: list[str]) -> str:
    """Run the opa analyzer on files of the workspace and return its findings as JSON.

    Args:
        paths: Workspace paths: the file name, ./<name>, /workspace/<name>; ".", "/workspace" or [] for all files.
    """
    return _run_tool("run_opa", paths)


E2_TOOLS: tuple[Callable[[list[str]], str], ...] = (run_kubelinter, run_semgrep, run_opa)


def tool_functions(env: Env) -> list[Callable[..., str]]:
    """The Python functions of the tools the configured environment offers,
    in the registry's order. A tool without one is an error, never another
    environment's tools in its place."""
    known = {f.__name__: f for f in E2_TOOLS}
    names = [t["function"]["name"] for t in env.tools()]
    missing = [n for n in names if n not in known]
    if missing:
        raise NotImplementedError(f"{env.name}: no classic verifiers tool function for {', '.join(missing)}")
    return [known[n] for n in names]


def component_func(scorer: Scorer, name: str) -> Callable[..., float]:
    """A rubric function returning one component's value.

    Plain function with ``(completion, answer, info=None, **kwargs)``: verifiers
    reads its ``__name__`` and treats plural parameter names as group functions.
    """

    def component(completion: Any, answer: Any = None, info: Any = None, **kwargs: Any) -> float:
        return float(scorer.score(completion, answer, info, **kwargs)["rewards"][name])

    component.__name__ = name
    component.__qualname__ = name
    component.__doc__ = f"svbench reward component `{name}` (scored in Rust)."
    return component


def _dataset(rows: list[dict]) -> Any:
    """A ``datasets.Dataset`` of rows: question, answer, info, example_id
    (int), sv_example_id (str) and prompt (the messages ``eval`` sends)."""
    from datasets import Dataset

    records = []
    for i, r in enumerate(rows):
        info = dict(r["info"]) if isinstance(r["info"], dict) else {}
        info["sv_example_id"] = r["example_id"]
        records.append(
            {
                "prompt": r["prompt"],
                "question": r["question"],
                "answer": answer_text(r["answer"]),
                # Arrow needs one struct type per column; rows whose info
                # shapes differ keep their exact info as JSON text, which
                # verifiers decodes when a rollout starts.
                "info": json.dumps(info, sort_keys=True),
                "example_id": i,
                "sv_example_id": r["example_id"],
            }
        )
    return Dataset.from_list(records)


def load_environment(name: str, **kwargs: Any) -> Any:
    """Builds the verifiers environment ``name`` (see module docs).

    Common keyword arguments are ``eval``'s flags (``dataset``, ``split``,
    ``max_examples``, ``seed``, ``shuffle``, ``reward_profile``,
    ``reward_config``, ``max_turns``, ``tool_budget``) plus ``eval_split``
    (default ``test``; ``None`` for no eval dataset); anything else must be
    one of the environment's own arguments, or ``UnknownArgumentError``.
    """
    from svbench._vf_api import v1_installed

    name = env_name(name)
    if v1_installed():
        raise ImportError(
            f"the installed verifiers (>= 0.4) has no classic API: {name} is a v1 taskset there "
            f"(`vf-eval {name}`, or `svbench.verifiers_v1.taskset_class({name!r})`)"
        )
    import verifiers as vf

    env, common, data = env_from_kwargs(name, kwargs, EXTRA_ARGS)
    train = env.load(common.get("split") or "train", **data)
    if not train["rows"]:
        raise DatasetError(f"{name}: split `{train['split']}` has no rows")
    eval_split = common.get("eval_split", "test")
    evaluation = env.load(eval_split, **data) if eval_split else None

    scorer = Scorer(env)
    scorer.parse_ref = train["rows"][0]["example_id"]
    funcs = [component_func(scorer, n) for n, _ in scorer.weights]
    weights = [w for _, w in scorer.weights]
    parser = make_parser(vf, scorer)
    rubric = vf.Rubric(funcs=funcs, weights=weights, parser=parser)
    dataset = _dataset(train["rows"])
    eval_dataset = _dataset(evaluation["rows"]) if evaluation else None
    system_prompt = _system_prompt(train["rows"])
    if env.kind == "single_turn":
        return vf.SingleTurnEnv(
            dataset=dataset,
            eval_dataset=eval_dataset,
            system_prompt=system_prompt,
            parser=parser,
            rubric=rubric,
        )
    if env.kind == "tool":
        tools = tool_functions(env)
        cls = tool_env_class(vf)
        return cls(
            sv_env=env,
            tools=tools,
            max_turns=env.max_turns,
            dataset=dataset,
            eval_dataset=eval_dataset,
            parser=parser,
            rubric=rubric,
        )
    raise NotImplementedError(f"{name}: multi-turn environments are not wrapped for verifiers yet")


def _system_prompt(rows: list[dict]) -> str | None:
    """The system prompt when every row shares one (rows carry their own prompt)."""
    prompts = {
        m.get("content") for r in rows for m in r["prompt"][:1] if isinstance(m, dict) and m.get("role") == "system"
    }
    return prompts.pop() if len(prompts) == 1 else None


def make_parser(vf: Any, scorer: Scorer) -> Any:
    """A ``vf.Parser`` whose ``parse_answer`` is svbench's normalised reading."""

    class SvParser(vf.Parser):
        """Parses answers with svbench's environment parser (in Rust)."""

        def parse_answer(self, completion: Any) -> str | None:
            """The environment's structured reading of the answer, as JSON text (None if invalid)."""
            parsed = scorer.parse(completion)
            if parsed is None:
                return None
            return parsed if isinstance(parsed, str) else json.dumps(parsed, sort_keys=True)

        def get_format_reward_func(self) -> Callable[..., float]:
            """A function named ``format_reward``: the component, or the parse's format credit."""
            names = [n for n, _ in scorer.weights]
            if "format_reward" in names:
                return component_func(scorer, "format_reward")

            def format_reward(completion: Any, answer: Any = None, info: Any = None, **kwargs: Any) -> float:
                return float(bool(scorer.score(completion, answer, info, **kwargs)["parse"]["format_ok"]))

            return format_reward

    return SvParser()


_TOOL_ENV_CLASS: Any = None


def tool_env_class(vf: Any) -> Any:
    """The ``vf.ToolEnv`` subclass of svbench tool environments (built once)."""
    global _TOOL_ENV_CLASS
    if _TOOL_ENV_CLASS is not None:
        return _TOOL_ENV_CLASS

    class SvToolEnv(vf.ToolEnv):
        """A ToolEnv whose tools run against the rollout's own workspace,
        within the tool budget (enforced in Rust, as svbench's runner does)."""

        def __init__(self, sv_env: Env, **kwargs: Any):
            super().__init__(**kwargs)
            self.sv_env = sv_env

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            info = state.get("info") or {}
            if isinstance(info, str):
                info = json.loads(info)
            example_id = info.get("sv_example_id") if isinstance(info, dict) else None
            if not isinstance(example_id, str):
                raise ValueError("the rollout's info carries no sv_example_id: its rows are not svbench's")
            calls = state.get("sv_tools")
            if calls is None:
                calls = state["sv_tools"] = self.sv_env.start_tools(example_id=example_id)
            with rollout_tools(calls):
                return await super().env_response(messages, state, **kwargs)

    _TOOL_ENV_CLASS = SvToolEnv
    return SvToolEnv

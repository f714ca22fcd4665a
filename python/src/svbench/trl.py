"""TRL reward functions (checked against TRL 1.16.0).

``reward_funcs(env)`` returns ``(funcs, weights)`` for
``GRPOTrainer(reward_funcs=funcs, args=GRPOConfig(reward_weights=weights))``
so TRL's weighted sum equals svbench's total; ``reward_func(env)`` returns
one function giving the total. TRL calls ``f(prompts=..., completions=...,
completion_ids=..., **columns)`` with the remaining dataset columns as
per-batch lists, plus ``trainer_state``, ``log_extra`` and ``log_metric``
(and ``environments`` when it has some); those are accepted and ignored.

A component function returns ``None`` for a completion the component does
not apply to (the score holds null for it); TRL turns ``None`` into
NaN and leaves it out of that component's statistics under both
``multi_objective_aggregation`` settings. The total is always a float.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svbench._common import Scorer, env_from_kwargs, native_env, split_kwargs
from svbench._native import ScoringError

RewardFunc = Callable[..., list[float | None]]


def _component_value(score: dict, name: str) -> float | None:
    """A component of a score dict as TRL wants it: ``None`` where the
    score holds null for it (does not apply), else a float. A component the
    score lacks is an error, not a skipped value."""
    value = score["rewards"][name]
    return None if value is None else float(value)


def _scorer(env: str, profile: str | None, args: dict) -> Scorer:
    common, env_args = split_kwargs(env, args)
    unused = sorted(set(common) - {"reward_config", "max_turns", "tool_budget"})
    if unused:
        raise TypeError(f"reward functions take no data arguments ({', '.join(unused)}): use svbench.trl.dataset")
    return Scorer(
        native_env(
            env,
            reward_profile=profile,
            reward_config=common.get("reward_config"),
            env_args=env_args,
            max_turns=common.get("max_turns"),
            tool_budget=common.get("tool_budget"),
        )
    )


def _column(kwargs: dict, name: str, i: int) -> Any:
    values = kwargs.get(name)
    if values is None:
        return None
    return values[i]


def _batch(scorer: Scorer, prompts: list, completions: list, kwargs: dict) -> list[dict]:
    out = []
    for i, completion in enumerate(completions):
        answer = _column(kwargs, "answer", i)
        info = _column(kwargs, "info", i)
        sv_id = _column(kwargs, "sv_example_id", i)
        if answer is None and sv_id is None and not (isinstance(info, dict) and "sv_example_id" in info):
            raise ScoringError(
                f"no reference for completion {i}: the dataset needs an `answer` (with `info`) or "
                "`sv_example_id` column (svbench.trl.dataset provides both)"
            )
        extra = {"sv_example_id": sv_id} if sv_id is not None else {}
        # Environments that score against the question (E2, E4) read the
        # dataset's `question` column; the prompt only wraps it.
        question = _column(kwargs, "question", i)
        if question is not None:
            extra["question"] = question
        out.append(scorer.score(completion, answer, info, **extra))
    return out


def reward_funcs(env: str, profile: str = "v1", **args: Any) -> tuple[list[RewardFunc], list[float]]:
    """One reward function per component, named after it, and the weights
    (``None`` where a component does not apply). Every function of the list
    reads the same cached score, so a batch is scored once."""
    scorer = _scorer(env, profile, args)

    def make(name: str) -> RewardFunc:
        def component(
            prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any
        ) -> list[float | None]:
            return [_component_value(s, name) for s in _batch(scorer, prompts, completions, kwargs)]

        component.__name__ = name
        component.__qualname__ = name
        component.__doc__ = f"svbench component `{name}` of {env} ({profile})."
        return component

    names = [n for n, _ in scorer.weights]
    return [make(n) for n in names], [w for _, w in scorer.weights]


def reward_func(env: str, profile: str = "v1", **args: Any) -> RewardFunc:
    """One function returning svbench's total reward per completion."""
    scorer = _scorer(env, profile, args)

    def svbench_reward(prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        return [float(s["reward"]) for s in _batch(scorer, prompts, completions, kwargs)]

    svbench_reward.__doc__ = f"svbench total reward of {env} ({profile})."
    return svbench_reward


def dataset(env: str, split: str = "train", **args: Any) -> Any:
    """A ``datasets.Dataset`` with a conversational ``prompt`` (the messages
    ``eval`` sends) plus ``question``, ``answer``, ``info`` (JSON text) and
    ``sv_example_id``."""
    import json

    from datasets import Dataset

    from svbench._common import answer_text

    native, _, selection = env_from_kwargs(env, args)
    loaded = native.load(split, **selection)
    return Dataset.from_list(
        [
            {
                "prompt": r["prompt"],
                "question": r["question"],
                "answer": answer_text(r["answer"]),
                "info": json.dumps(r["info"], sort_keys=True),
                "sv_example_id": r["example_id"],
            }
            for r in loaded["rows"]
        ]
    )


__all__ = ["dataset", "reward_func", "reward_funcs"]

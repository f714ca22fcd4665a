"""verl (0.9.1) reward function, dataset rows and GDPO settings.

Point verl's ``reward.custom_reward_function.path`` at this file and set
``reward.custom_reward_function.name=compute_score``. ``write_parquet``
writes the rows verl's RL dataset reads; ``gdpo_overrides`` gives the
``algorithm.*`` overrides of verl's GDPO estimator for an environment's
reward components. :mod:`svbench.verl_tool` runs the environment's tools.
"""

from __future__ import annotations

import json
from typing import Any

from svbench._common import Scorer, answer_text, env_from_kwargs, env_name, native_env

_SCORERS: dict[tuple, Scorer] = {}


def _scorer(data_source: str, profile: str | None, reward_config: Any) -> Scorer:
    key = (env_name(data_source), profile, json.dumps(reward_config, sort_keys=True, default=str))
    scorer = _SCORERS.get(key)
    if scorer is None:
        scorer = Scorer(native_env(key[0], reward_profile=profile, reward_config=reward_config))
        _SCORERS[key] = scorer
    return scorer


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict | None = None,
    **kwargs: Any,
) -> dict:
    """``{"score": total, <component>: value, ..., "parse_status": str}``.

    ``data_source`` names the environment; ``ground_truth`` is the answer
    string; ``extra_info`` may carry ``info``, ``example_id`` (svbench's),
    ``question``, ``reward_profile`` and ``reward_config``. The component
    values are unweighted floats under the names :func:`gdpo_overrides`
    lists, so verl's GDPO estimator reads them as they are; verl keeps
    every key as ``reward_extra_info`` (its validation metrics skip the
    string ``parse_status``). All rows of a batch must come from one
    environment and profile: verl stacks the keys of the first row.
    """
    extra = dict(extra_info or {})
    scorer = _scorer(data_source, extra.get("reward_profile"), extra.get("reward_config"))
    info = extra.get("info")
    if isinstance(info, str):
        info = json.loads(info)
    columns: dict[str, Any] = {}
    example_id = extra.get("example_id")
    if isinstance(example_id, str):
        columns["sv_example_id"] = example_id
    if isinstance(extra.get("question"), str):
        columns["question"] = extra["question"]
    result = scorer.score(solution_str, ground_truth, info, **columns)
    out: dict[str, Any] = {"score": float(result["reward"])}
    for name, value in result["rewards"].items():
        out[name] = float(value)
    out["parse_status"] = result["parse"]["status"]
    return out


def rows(env: str, split: str, *, verl_tools: bool = False, **args: Any) -> list[dict]:
    """verl RL rows of a split: ``data_source``, ``prompt`` (messages),
    ``reward_model {style: "rule", ground_truth}``, ``extra_info``.

    ``verl_tools=True`` adds ``extra_info.tools_kwargs``: for each tool the
    environment offers, the ``create_kwargs`` (``env``, ``split``,
    ``example_id``, and ``reward_profile`` / ``env_args`` when given) that
    :class:`svbench.verl_tool.SvbenchTool` resets its server episode with.
    """
    native, common, selection = env_from_kwargs(env, args)
    tool_names = [t["function"]["name"] for t in native.tools()] if verl_tools else []
    if verl_tools and not tool_names:
        raise ValueError(f"{native.name} offers no tools (verl_tools=True needs an environment with tools)")
    env_args = {k: v for k, v in args.items() if k in native.arg_names}
    loaded = native.load(split, **selection)
    out = []
    for r in loaded["rows"]:
        extra: dict[str, Any] = {
            "example_id": r["example_id"],
            "index": r["index"],
            "split": split,
            "question": r["question"],
            "info": json.dumps(r["info"], sort_keys=True),
        }
        if common.get("reward_profile"):
            extra["reward_profile"] = common["reward_profile"]
        if tool_names:
            create: dict[str, Any] = {"env": native.name, "split": split, "example_id": r["example_id"]}
            if common.get("reward_profile"):
                create["reward_profile"] = common["reward_profile"]
            if env_args:
                create["env_args"] = env_args
            extra["tools_kwargs"] = {name: {"create_kwargs": create} for name in tool_names}
        out.append(
            {
                "data_source": native.name,
                "prompt": r["prompt"],
                "reward_model": {"style": "rule", "ground_truth": answer_text(r["answer"])},
                "extra_info": extra,
            }
        )
    return out


def gdpo_config(env: str, reward_profile: str | None = None, reward_config: Any = None) -> dict:
    """verl's ``algorithm`` settings for GDPO over an environment's reward
    components: ``{adv_estimator: "gdpo", gdpo_reward_keys, gdpo_reward_weights}``,
    names and weights from the native registry (the profile's, after
    ``reward_config``), in declared order; the keys are those
    :func:`compute_score` returns."""
    weights = native_env(env, reward_profile=reward_profile, reward_config=reward_config).weights()
    return {
        "adv_estimator": "gdpo",
        "gdpo_reward_keys": [name for name, _ in weights],
        "gdpo_reward_weights": [float(w) for _, w in weights],
    }


def gdpo_overrides(env: str, reward_profile: str | None = None, reward_config: Any = None) -> list[str]:
    """:func:`gdpo_config` as verl command-line overrides. The two lists are
    not in verl's YAML (only in its ``AlgoConfig``), hence Hydra's ``+``."""
    cfg = gdpo_config(env, reward_profile, reward_config)
    keys = ",".join(cfg["gdpo_reward_keys"])
    weights = ",".join(repr(w) for w in cfg["gdpo_reward_weights"])
    return [
        f"algorithm.adv_estimator={cfg['adv_estimator']}",
        f"+algorithm.gdpo_reward_keys=[{keys}]",
        f"+algorithm.gdpo_reward_weights=[{weights}]",
    ]


def write_parquet(env: str, split: str, path: str, *, verl_tools: bool = False, **args: Any) -> int:
    """Writes :func:`rows` to a Parquet file; returns the row count.
    Needs ``pyarrow`` (``pip install 'svbench[verl]'``)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError("svbench.verl.write_parquet needs pyarrow: pip install pyarrow (or 'svbench[verl]')") from e
    table = pa.Table.from_pylist(rows(env, split, verl_tools=verl_tools, **args))
    pq.write_table(table, path)
    return table.num_rows


__all__ = ["compute_score", "gdpo_config", "gdpo_overrides", "rows", "write_parquet"]

"""verl reward function.

Point verl's ``custom_reward_function.path`` at this file and set
``custom_reward_function.name = compute_score``. ``write_parquet`` writes
the rows verl's RL dataset reads.
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
    ``question``, ``reward_profile`` and ``reward_config``.
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


def rows(env: str, split: str, **args: Any) -> list[dict]:
    """verl RL rows of a split: ``data_source``, ``prompt`` (messages),
    ``reward_model {style: "rule", ground_truth}``, ``extra_info``."""
    native, common, selection = env_from_kwargs(env, args)
    loaded = native.load(split, **selection)
    out = []
    for r in loaded["rows"]:
        extra = {
            "example_id": r["example_id"],
            "index": r["index"],
            "split": split,
            "question": r["question"],
            "info": json.dumps(r["info"], sort_keys=True),
        }
        if common.get("reward_profile"):
            extra["reward_profile"] = common["reward_profile"]
        out.append(
            {
                "data_source": native.name,
                "prompt": r["prompt"],
                "reward_model": {"style": "rule", "ground_truth": answer_text(r["answer"])},
                "extra_info": extra,
            }
        )
    return out


def write_parquet(env: str, split: str, path: str, **args: Any) -> int:
    """Writes :func:`rows` to a Parquet file; returns the row count.
    Needs ``pyarrow`` (``pip install 'svbench[verl]'``)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError("svbench.verl.write_parquet needs pyarrow: pip install pyarrow (or 'svbench[verl]')") from e
    table = pa.Table.from_pylist(rows(env, split, **args))
    pq.write_table(table, path)
    return table.num_rows


__all__ = ["compute_score", "rows", "write_parquet"]

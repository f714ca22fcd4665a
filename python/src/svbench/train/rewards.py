"""The reward functions handed to TRL's `GRPOTrainer` for each advantage
mode, built on `svbench.trl`'s scorer (the same Rust scoring as `eval`).

- `sum_then_normalize` (variant A) and `normalize_then_sum` (variant C,
  GDPO): one function per component with the profile's weights; TRL
  aggregates them.
- `component_normalized` (variant B): TRL cannot compute it, so one more
  function returns svbench's per-component group-normalised, weighted sum
  (`svbench.advantages.component_normalized`, TRL's eps and ddof) with
  weight 1, the component functions get weight 0 (logged, not trained
  on), and `scale_rewards="none"`: TRL then subtracts the group mean,
  which is already zero, and uses it as the advantage unchanged.

Every batch also logs the svbench total, the parse-failure and abstain
rates, and the seconds spent scoring.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from svbench import advantages
from svbench.trl import _batch, _component_value, _scorer

COMPONENT_NORMALIZED = "svbench_component_normalized"


class TrainingRewards:
    """Reward functions, TRL weights and aggregation settings for one mode."""

    def __init__(self, env: str, profile: str, env_args: dict, mode: str, generations: int):
        self.scorer = _scorer(env, profile, dict(env_args))
        self.mode = mode
        self.generations = generations
        self.components = [n for n, _ in self.scorer.weights]
        self.weights = dict(self.scorer.weights)
        #: Seconds spent in svbench scoring since the last `take_scoring_s()`.
        self.scoring_s = 0.0

    def _scores(self, prompts: list, completions: list, kwargs: dict) -> list[dict]:
        started = time.perf_counter()
        scores = _batch(self.scorer, prompts, completions, kwargs)
        self.scoring_s += time.perf_counter() - started
        return scores

    def take_scoring_s(self) -> float:
        s, self.scoring_s = self.scoring_s, 0.0
        return s

    def _log(self, scores: list[dict], kwargs: dict) -> None:
        log = kwargs.get("log_metric")
        if log is None or not scores:
            return
        n = len(scores)
        log("svbench/reward", sum(float(s["reward"]) for s in scores) / n)
        log("svbench/parse_failure_rate", sum(s["parse"]["status"] != "valid" for s in scores) / n)
        labels = [(s.get("parsed") or {}).get("label") for s in scores]
        if any(lbl is not None for lbl in labels):
            log("svbench/abstain_rate", sum(lbl == "Abstain" for lbl in labels) / n)

    def _component(self, name: str, first: bool) -> Callable[..., list[float | None]]:
        def component(prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any) -> list:
            scores = self._scores(prompts, completions, kwargs)
            if first:
                self._log(scores, kwargs)
            return [_component_value(s, name) for s in scores]

        component.__name__ = name
        return component

    def _check_groups(self, prompts: list) -> None:
        g = self.generations
        if len(prompts) % g:
            raise ValueError(f"{len(prompts)} completions do not form groups of {g}")
        for start in range(0, len(prompts), g):
            if any(p != prompts[start] for p in prompts[start : start + g]):
                raise ValueError(f"completions {start}..{start + g - 1} are not one prompt's group")

    def _component_normalized(self, prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any):
        self._check_groups(prompts)
        scores = self._scores(prompts, completions, kwargs)
        started = time.perf_counter()
        comps = {n: [_component_value(s, n) for s in scores] for n in self.components}
        values = advantages.component_normalized(
            comps, self.weights, group_size=self.generations, eps=advantages.TRL_EPS, ddof=1
        )
        self.scoring_s += time.perf_counter() - started
        return values

    def funcs_and_settings(self) -> tuple[list[Callable], dict[str, Any]]:
        """The reward functions and the `GRPOConfig` settings that go with them."""
        funcs = [self._component(n, i == 0) for i, n in enumerate(self.components)]
        weights = [self.weights[n] for n in self.components]
        if self.mode == "component_normalized":

            def fn(prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any) -> list[float]:
                return self._component_normalized(prompts, completions, completion_ids, **kwargs)

            fn.__name__ = COMPONENT_NORMALIZED
            return funcs + [fn], {
                "reward_weights": [0.0] * len(funcs) + [1.0],
                "multi_objective_aggregation": "sum_then_normalize",
                "scale_rewards": "none",
            }
        return funcs, {
            "reward_weights": weights,
            "multi_objective_aggregation": self.mode,
            "scale_rewards": "group",
        }


__all__ = ["COMPONENT_NORMALIZED", "TrainingRewards"]

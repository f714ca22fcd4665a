"""Group-relative advantages, computed by the same Rust code
as ``svbench_core::advantage`` and the server's ``score_batch``.

N = K·G samples grouped contiguously (TRL's layout) unless ``group_ids``
is given (any hashable ids; equal ids form a group). f64 throughout;
NaN or infinite inputs raise ``ValueError``. ``ddof`` is 0 (population,
default) or 1 (sample).

``None`` marks a value that does not apply (a TRL reward function's
``None``): it is left out of its group's mean and spread and adds nothing
to a sum; a sample with no value at all gets advantage 0 and is left out
of ``gdpo``'s batch statistics. With ``eps=TRL_EPS, ddof=1`` (TRL 1.16.0):

- ``grpo(totals, ...)`` is ``GRPOTrainer``'s default
  (``multi_objective_aggregation="sum_then_normalize"``,
  ``scale_rewards="group"``) for totals Σ w_k r_k over the components
  present (``None`` where none is);
- ``gdpo(components, weights, ...)`` is
  ``multi_objective_aggregation="normalize_then_sum"``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from svbench import _native

DEFAULT_EPS = 1e-6
#: The constant TRL's ``GRPOTrainer`` adds to every standard deviation.
TRL_EPS = 1e-4


def _ids(group_ids: Sequence[Hashable] | None) -> list[int] | None:
    if group_ids is None:
        return None
    index: dict[Hashable, int] = {}
    return [index.setdefault(g, len(index)) for g in group_ids]


def _floats(values: Any) -> list[float | None]:
    return [None if v is None else float(v) for v in values]


def grpo(
    rewards: Sequence[float | None],
    group_size: int | None = None,
    group_ids: Sequence[Hashable] | None = None,
    eps: float = DEFAULT_EPS,
    ddof: int = 0,
) -> list[float]:
    """A_i = (r_i − mean_g(r)) / (std_g(r) + eps)."""
    return _native.grpo(_floats(rewards), group_size, _ids(group_ids), eps, ddof)


def component_normalized(
    components: Mapping[str, Sequence[float | None]],
    weights: Mapping[str, float],
    group_size: int | None = None,
    group_ids: Sequence[Hashable] | None = None,
    eps: float = DEFAULT_EPS,
    ddof: int = 0,
) -> list[float]:
    """A_i = Σ_k w_k (c_ik − mean_g(c_k)) / (std_g(c_k) + eps)."""
    comps = {str(k): _floats(v) for k, v in components.items()}
    ws = {str(k): float(v) for k, v in weights.items()}
    return _native.component_normalized(comps, ws, group_size, _ids(group_ids), eps, ddof)


def gdpo(
    components: Mapping[str, Sequence[float | None]],
    weights: Mapping[str, float],
    group_size: int | None = None,
    group_ids: Sequence[Hashable] | None = None,
    eps: float = DEFAULT_EPS,
    ddof: int = 0,
) -> list[float]:
    """Component-normalised advantages, standardised again over the batch."""
    comps = {str(k): _floats(v) for k, v in components.items()}
    ws = {str(k): float(v) for k, v in weights.items()}
    return _native.gdpo(comps, ws, group_size, _ids(group_ids), eps, ddof)


__all__ = ["DEFAULT_EPS", "TRL_EPS", "component_normalized", "gdpo", "grpo"]

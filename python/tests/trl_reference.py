"""TRL 1.16.0's GRPO advantages, transcribed from PyTorch to NumPy (float64)
so the tests can compare svbench's helpers with them without torch.

Sources, TRL 1.16.0 (the wheel's ``trl/trainer/``):

- ``utils.py``, ``nanstd``: NaN-aware standard deviation with Bessel's
  correction, NaN where fewer than two values are present;
- ``grpo_trainer.py``, ``GRPOTrainer._generate_and_score_completions``: the
  advantage block after ``_calculate_rewards`` (which turns a reward
  function's ``None`` into NaN), for both ``multi_objective_aggregation``
  settings.

TRL itself computes in float32 (``rewards_per_func`` and ``reward_weights``
are float32 tensors); the transcription keeps its formulas in float64.
"""

from __future__ import annotations

import numpy as np

TRL_EPS = 1e-4


def nanstd(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """``trl.trainer.utils.nanstd``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = _nanmean(x, axis=axis, keepdims=True)
        variance = _nanmean((x - mean) ** 2, axis=axis, keepdims=True)
        count = np.sum(~np.isnan(x), axis=axis, keepdims=True)
        correction = count / (count - 1)
        correction = np.where(count > 1, correction, np.nan)
        variance = variance * correction
        std = np.sqrt(variance)
    if keepdims:
        return std
    return std.squeeze() if axis is None else std.squeeze(axis)


def _nanmean(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """``torch.nanmean``: NaN (no warning) where nothing is present."""
    present = ~np.isnan(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(present, x, 0.0).sum(axis=axis, keepdims=keepdims) / present.sum(axis=axis, keepdims=keepdims)


def _unscorable(rewards_per_func: np.ndarray) -> np.ndarray:
    # A completion for which every reward function returned None.
    return np.isnan(rewards_per_func).all(axis=1)


def normalize_then_sum(rewards_per_func: np.ndarray, weights: np.ndarray, num_generations: int) -> np.ndarray:
    """``multi_objective_aggregation="normalize_then_sum"`` (GDPO).

    ``rewards_per_func`` is (N, K) with NaN for None, samples grouped
    contiguously by ``num_generations``; ``weights`` is (K,)."""
    k = rewards_per_func.shape[1]
    unscorable_mask = _unscorable(rewards_per_func)
    grouped = rewards_per_func.reshape(-1, num_generations, k)
    mean_k = _nanmean(grouped, axis=1, keepdims=True)
    std_k = nanstd(grouped, axis=1, keepdims=True) if num_generations > 1 else np.zeros_like(mean_k)
    reward_k = (grouped - mean_k) / (std_k + TRL_EPS)
    reward_k = reward_k.reshape(-1, k)
    rewards = np.nansum(reward_k * weights[None, :], axis=1)
    rewards[unscorable_mask] = np.nan
    std_rewards = np.broadcast_to(nanstd(rewards), rewards.shape) if rewards.size > 1 else np.zeros_like(rewards)
    advantages = (rewards - _nanmean(rewards)) / (std_rewards + TRL_EPS)
    return np.nan_to_num(advantages, nan=0.0)


def sum_then_normalize(
    rewards_per_func: np.ndarray, weights: np.ndarray, num_generations: int, scale_rewards: str = "group"
) -> np.ndarray:
    """``multi_objective_aggregation="sum_then_normalize"`` (the default)."""
    unscorable_mask = _unscorable(rewards_per_func)
    rewards = np.nansum(rewards_per_func * weights[None, :], axis=1)
    rewards[unscorable_mask] = np.nan
    mean_grouped = np.repeat(_nanmean(rewards.reshape(-1, num_generations), axis=1), num_generations)
    if scale_rewards in ("group", "none"):
        if num_generations > 1:
            std_rewards = np.repeat(nanstd(rewards.reshape(-1, num_generations), axis=1), num_generations)
        else:
            std_rewards = np.zeros_like(rewards)
    elif scale_rewards == "batch":
        std_rewards = np.broadcast_to(nanstd(rewards), rewards.shape) if rewards.size > 1 else np.zeros_like(rewards)
    else:
        raise ValueError(scale_rewards)
    advantages = rewards - mean_grouped
    if scale_rewards != "none":
        advantages = advantages / (std_rewards + TRL_EPS)
    return np.nan_to_num(advantages, nan=0.0)

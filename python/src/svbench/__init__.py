"""svbench for Python trainers: verifiers environments, TRL reward
functions, a verl ``compute_score`` and advantage helpers, all scored by
svbench's Rust core (the same code as ``svbench eval``)."""

from typing import Any

from svbench._native import (
    ENVIRONMENTS,
    DatasetError,
    Env,
    ScoringError,
    Session,
    UnknownArgumentError,
)

__all__ = [
    "ENVIRONMENTS",
    "DatasetError",
    "Env",
    "ScoringError",
    "Session",
    "UnknownArgumentError",
    "load_environment",
    "open_env",
]


def load_environment(env_id: str, **kwargs: Any) -> Any:
    """The verifiers environment ``env_id`` (name or alias; needs ``verifiers``)."""
    from svbench.verifiers_env import load_environment as _load

    return _load(env_id, **kwargs)


def open_env(
    env_id: str,
    reward_profile: str | None = None,
    reward_config: Any = None,
    max_turns: int | None = None,
    tool_budget: int | None = None,
    **env_args: Any,
) -> Env:
    """A configured native environment (cached per configuration); unknown
    ``env_args`` raise :class:`UnknownArgumentError`."""
    from svbench._common import native_env

    return native_env(env_id, reward_profile, reward_config, env_args, max_turns, tool_budget)

"""verifiers environment `sv-env-network-logs` (svbench E1): network flow
classification, scored by svbench's Rust core."""

from typing import Any

ENV_ID = "sv-env-network-logs"


def load_environment(**kwargs: Any) -> Any:
    """A ``vf.SingleTurnEnv``; see ``svbench.verifiers_env.load_environment``."""
    from svbench.verifiers_env import load_environment as _load

    return _load(ENV_ID, **kwargs)

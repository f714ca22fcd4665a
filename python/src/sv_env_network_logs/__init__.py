"""verifiers environment `sv-env-network-logs` (svbench E1): network flow
classification, scored by svbench's Rust core."""

from typing import Any

#: The environment is named after this package (`sv_env_x` serves `sv-env-x`).
ENV_ID = __name__.replace("_", "-")


def load_environment(**kwargs: Any) -> Any:
    """A ``vf.SingleTurnEnv``; see ``svbench.verifiers_env.load_environment``."""
    from svbench.verifiers_env import load_environment as _load

    return _load(ENV_ID, **kwargs)

"""verifiers environment `sv-env-phishing-detection` (svbench E4): phishing
triage whose evidence quotes are checked against the email, scored by
svbench's Rust core.

With verifiers >= 0.4 the module exports the v1 taskset `PhishingDetectionTaskset`
(`vf-eval sv-env-phishing-detection`); with older verifiers, `load_environment`."""

from typing import Any

from svbench._vf_api import v1_installed

#: The environment is named after this package (`sv_env_x` serves `sv-env-x`).
ENV_ID = __name__.replace("_", "-")

__all__ = ["ENV_ID", "load_environment"]


def load_environment(**kwargs: Any) -> Any:
    """A classic-API ``vf.SingleTurnEnv`` (verifiers < 0.4); see
    ``svbench.verifiers_env.load_environment``."""
    from svbench.verifiers_env import load_environment as _load

    return _load(ENV_ID, **kwargs)


if v1_installed():
    from svbench.verifiers_v1 import taskset_class

    PhishingDetectionTaskset = taskset_class(ENV_ID)
    __all__ += ["PhishingDetectionTaskset"]

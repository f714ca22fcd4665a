"""The body of every ``sv_env_*`` package: one environment's verifiers entry
points, named after the package (``sv_env_x`` serves ``sv-env-x``). A shim is
its docstring and the two lines

    from svbench._shim import export_env
    export_env(__name__)

With verifiers >= 0.4 the package exports the environment's v1 taskset
(``NetworkLogsTaskset`` for ``sv-env-network-logs``; ``vf-eval sv-env-...``);
with older verifiers, ``load_environment``."""

from __future__ import annotations

import sys
from typing import Any

from svbench._vf_api import v1_installed


def export_env(module_name: str) -> None:
    """Give the shim module `module_name` its ``ENV_ID``, ``load_environment``,
    the v1 taskset class where verifiers >= 0.4 is installed, and ``__all__``."""
    module = sys.modules[module_name]
    env_id = module_name.replace("_", "-")

    def load_environment(**kwargs: Any) -> Any:
        """A classic-API verifiers environment (verifiers < 0.4); see
        ``svbench.verifiers_env.load_environment``."""
        from svbench.verifiers_env import load_environment as _load

        return _load(env_id, **kwargs)

    load_environment.__module__ = module_name
    load_environment.__qualname__ = "load_environment"
    exported: dict[str, Any] = {"ENV_ID": env_id, "load_environment": load_environment}
    if v1_installed():
        from svbench.verifiers_v1 import taskset_class

        cls = taskset_class(env_id)
        exported[cls.__name__] = cls
    for name, value in exported.items():
        setattr(module, name, value)
    module.__all__ = list(exported)


__all__ = ["export_env"]

"""verifiers environment `sv-env-network-logs` (svbench E1): network flow
classification, scored by svbench's Rust core. Its entry points come from
``svbench._shim``."""

from svbench._shim import export_env

export_env(__name__)

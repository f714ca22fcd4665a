"""verifiers environment `sv-env-config-verification` (svbench E2):
configuration auditing with kube-linter, semgrep and OPA tools, scored by
svbench's Rust core. Its entry points come from ``svbench._shim``."""

from svbench._shim import export_env

export_env(__name__)

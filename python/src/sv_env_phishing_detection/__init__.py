"""verifiers environment `sv-env-phishing-detection` (svbench E4): phishing
triage whose evidence quotes are checked against the email, scored by
svbench's Rust core. Its entry points come from ``svbench._shim``."""

from svbench._shim import export_env

export_env(__name__)

"""The run directory `results/runs/<run_id>/`: one `run.json` holding the
config, seeds, provenance and every finished stage (its wall time, the
datasets it read with their hashes), written atomically after each stage.

A run directory belongs to one config: reopening it with a different
config is refused, so a resumed run never mixes results of two settings.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from svbench.train.config import ConfigError, TrainConfig, from_dict, settle_model_source

RUN_FILE = "run.json"


def svbench_bin() -> str:
    """The svbench CLI: `$SVBENCH_BIN`, else `svbench` on PATH."""
    explicit = os.environ.get("SVBENCH_BIN")
    if explicit:
        if not Path(explicit).is_file():
            raise ConfigError(f"SVBENCH_BIN={explicit} is not a file")
        return explicit
    found = shutil.which("svbench")
    if found is None:
        raise ConfigError(
            "the svbench CLI is needed (teacher answers and evaluation run through it): "
            "put it on PATH or set SVBENCH_BIN (cargo build --release builds target/release/svbench)"
        )
    return found


def _git_sha() -> str:
    """The commit of the working directory's checkout, else of the svbench source."""
    for where in (Path.cwd(), Path(__file__).resolve().parent):
        try:
            out = subprocess.run(
                ["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
            )
        except OSError:
            return "unknown"
        sha = out.stdout.strip()
        if out.returncode == 0 and len(sha) == 40:
            return sha
    return "unknown"


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:
        return None


def provenance() -> dict[str, Any]:
    """What produced the run: source commit, package versions, machine."""
    return {
        "git_sha": _git_sha(),
        "versions": {
            name: _version(name) for name in ("svbench", "torch", "transformers", "trl", "tokenizers", "datasets")
        },
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.system()} {platform.release()}",
        "torch_threads": _torch_threads(),
    }


def _torch_threads() -> int | None:
    try:
        import torch

        return torch.get_num_threads()
    except ImportError:
        return None


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json_atomic(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


class RunDir:
    """A run directory and its `run.json`."""

    def __init__(self, cfg: TrainConfig):
        self.cfg = cfg
        self.path = cfg.run_dir
        self.path.mkdir(parents=True, exist_ok=True)
        self.file = self.path / RUN_FILE
        config = cfg.to_dict()
        if self.file.exists():
            self.state = json.loads(self.file.read_text(encoding="utf-8"))
            differences = config_differences(self.state, cfg)
            if differences:
                raise ConfigError(
                    f"{self.path} was started with a different config ({differences}); "
                    "use another run_id or delete the directory"
                )
        else:
            self.state = {
                "run_id": cfg.run_id,
                "config": config,
                "seed": cfg.seed,
                "started_utc": now_utc(),
                "provenance": provenance(),
                "stages": {},
            }
            self.save()

    def save(self) -> None:
        write_json_atomic(self.file, self.state)

    def done(self, stage: str) -> bool:
        return stage in self.state["stages"]

    def stage(self, stage: str) -> dict[str, Any]:
        return self.state["stages"][stage]

    def finish(self, stage: str, started: float, **facts: Any) -> None:
        """Mark `stage` finished with its wall time (seconds since `started`, a `time.monotonic()`)."""
        facts["wall_s"] = round(time.monotonic() - started, 2)
        facts["finished_utc"] = now_utc()
        self.state["stages"][stage] = facts
        self.save()

    def forget(self, stage: str) -> None:
        self.state["stages"].pop(stage, None)
        self.save()


def config_differences(state: dict[str, Any], cfg: TrainConfig) -> str:
    """How the config a run recorded in its `run.json` differs from `cfg`
    (`grpo.steps: was 60, now 80; ...`); empty when they agree."""
    stored = _current_schema(state.get("config"))
    config = cfg.to_dict()
    return "" if stored == config else _diff(stored, config)


def _current_schema(stored: Any) -> Any:
    """A stored config as the current schema reads it: a key added since
    takes its default, which is what the run used. A stored config the
    schema cannot read is returned as is, so the comparison reports it."""
    if not isinstance(stored, dict):
        return stored
    try:
        cfg = from_dict(stored)
    except ConfigError:
        return stored
    settle_model_source(cfg.model)
    return cfg.to_dict()


def _diff(old: Any, new: Any, prefix: str = "") -> str:
    if isinstance(old, dict) and isinstance(new, dict):
        parts = []
        for k in sorted(set(old) | set(new)):
            if old.get(k) != new.get(k):
                parts.append(_diff(old.get(k), new.get(k), f"{prefix}{k}."))
        return "; ".join(parts)
    return f"{prefix.rstrip('.')}: was {old!r}, now {new!r}"


__all__ = ["RUN_FILE", "RunDir", "config_differences", "now_utc", "provenance", "svbench_bin", "write_json_atomic"]

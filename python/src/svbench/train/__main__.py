"""`python -m svbench.train STAGE CONFIG`: one stage of a training run, or
`run` for every stage not yet finished (see docs/training/cpu.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from svbench.train.config import ConfigError, load
from svbench.train.pipeline import STAGES, run_stages


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m svbench.train", description=__doc__)
    p.add_argument("stage", choices=[*STAGES, "run"], help="the stage to run, or `run` for all of them")
    p.add_argument("config", help="training config (TOML), e.g. configs/train/e1-proof.toml")
    p.add_argument("--run-id", help="run directory name under out_dir (default: the config's, else its file name)")
    p.add_argument("--out-dir", help="where run directories go (default: the config's, results/runs)")
    p.add_argument(
        "--model",
        metavar="PATH",
        help="start from this pretrained model (a GGUF file or a checkpoint directory) instead of the config's",
    )
    p.add_argument("--force", action="store_true", help="redo the stage even if it has finished")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    overrides: dict[str, Any] = {}
    if args.run_id:
        overrides["run_id"] = args.run_id
    if args.out_dir:
        overrides["out_dir"] = args.out_dir
    if args.model:
        overrides["model"] = {"source": "pretrained", "path": args.model, "package": ""}
    try:
        cfg = load(args.config, overrides)
        stages = STAGES if args.stage == "run" else (args.stage,)
        run = run_stages(cfg, stages, force=args.force)
    except (ConfigError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(run.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

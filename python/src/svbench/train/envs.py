"""What `svbench.train` knows about an environment, all of it from the
registry (`svbench._native.TRAINING`, declared by each environment beside
its entry): its SFT teachers, default first, each answering with one of the
environment's builtin policies; the arguments its student always runs with;
the key of its answers' findings list, if they list findings; the module
analysing its answers in reports (`svbench.train.analysis`); and its
held-out splits. An environment added to the registry is trainable without
a line here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svbench.train.errors import ConfigError


@dataclass(frozen=True)
class Teacher:
    """An SFT teacher: a builtin policy whose answers the student imitates."""

    name: str
    #: The builtin policy, without `builtin:`.
    policy: str
    #: Keeps only a seeded share (`sft.teacher_share`) of the answer's findings.
    partial: bool
    summary: str

    @property
    def model(self) -> str:
        """The `svbench eval --model` value that answers for this teacher."""
        return f"builtin:{self.policy}"


@dataclass(frozen=True)
class EnvTraining:
    """One environment's training defaults."""

    #: The environment's canonical name.
    name: str
    teachers: tuple[Teacher, ...]
    #: Arguments the student always runs with; a config's `env_args` cannot change them.
    student_args: dict[str, Any]
    #: The key of the answer's list of findings, when answers list findings.
    findings: str | None
    #: The `svbench.train` module analysing the answers (`svbench.train.analysis`); None: the answer spread.
    analysis: str | None

    def teacher(self, name: str, where: str, env: str) -> Teacher:
        """The teacher called `name`; a ConfigError listing the others when there is none."""
        for t in self.teachers:
            if t.name == name:
                return t
        names = ", ".join(t.name for t in self.teachers)
        raise ConfigError(f"{where} for {env} must be one of {names}, got {name!r}")


def _native() -> Any:
    from svbench import _native

    return _native


def env_names() -> list[str]:
    """The shortest spelling of each environment, in registry order (`e1`, ...)."""
    native = _native()
    spellings: dict[str, list[str]] = {name: [] for name in native.ENVIRONMENTS}
    for spelling, name in native.ENVIRONMENT_NAMES.items():
        spellings[name].append(spelling)
    return [min(s, key=lambda x: (len(x), x)) for s in spellings.values()]


def env_training(env: str) -> EnvTraining:
    """The training defaults of `env` (any spelling); a ConfigError for an
    environment the registry does not have or that declares no teacher."""
    native = _native()
    name = native.ENVIRONMENT_NAMES.get(env)
    if name is None:
        raise ConfigError(f"env must be one of {', '.join(env_names())}, got {env!r}")
    table = native.TRAINING[name]
    if not table["teachers"]:
        raise ConfigError(f"env {env} declares no training teacher, so svbench.train cannot train on it")
    teachers = tuple(Teacher(t["name"], t["policy"], t["partial"], t["summary"]) for t in table["teachers"])
    return EnvTraining(name, teachers, dict(table["student_args"]), table["findings"], table["analysis"])


def findings_envs() -> list[str]:
    """The environments whose answers list findings (shortest spellings)."""
    native = _native()
    return [n for n in env_names() if native.TRAINING[native.ENVIRONMENT_NAMES[n]]["findings"] is not None]


def held_out_splits(env: str, trained_on: set[str]) -> list[str]:
    """The environment's splits, in registry order, except those trained on."""
    from svbench import open_env

    training = env_training(env)
    return [s for s in open_env(env, **training.student_args).splits if s not in trained_on]


__all__ = ["EnvTraining", "Teacher", "env_names", "env_training", "findings_envs", "held_out_splits"]

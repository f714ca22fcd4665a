"""Type stubs of ``svbench._native``, the compiled half of the package
(python/rust/*.rs). ``python/tests/test_native_stub.py`` checks that this file
names exactly what the module exports, with the same parameters."""

from collections.abc import Mapping, Sequence
from typing import Any, final

#: Canonical environment names, in registry order.
ENVIRONMENTS: list[str]
#: Every accepted spelling (name or alias) of an environment → its canonical name.
ENVIRONMENT_NAMES: dict[str, str]
#: Each environment's training defaults (``svbench.train``), by canonical name:
#: ``{"teachers": [{"name", "policy", "partial", "summary"}, ...], "student_args": {...},
#: "findings": KEY | None}``, the default teacher first.
TRAINING: dict[str, dict[str, Any]]

class UnknownArgumentError(TypeError):
    """An argument name the environment does not accept."""

class DatasetError(ValueError):
    """A dataset or split that is missing, unreadable or malformed."""

class ScoringError(ValueError):
    """A completion or reference that cannot be scored."""

@final
class Env:
    """A configured environment and the splits loaded through it."""

    def __new__(
        cls,
        name: str,
        reward_profile: str | None = None,
        reward_config: Mapping[str, Any] | None = None,
        env_args: Mapping[str, Any] | None = None,
        max_turns: int | None = None,
        tool_budget: int | None = None,
    ) -> Env: ...
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def kind(self) -> str:
        """``single_turn``, ``tool`` or ``multi_turn``."""
    @property
    def profile(self) -> str: ...
    @property
    def config_hash(self) -> str: ...
    @property
    def max_turns(self) -> int: ...
    @property
    def tool_budget(self) -> int: ...
    @property
    def splits(self) -> list[str]: ...
    @property
    def arg_names(self) -> list[str]: ...
    def weights(self) -> list[tuple[str, float]]:
        """Components and weights of the profile, in declared order."""
    def tools(self) -> list[dict[str, Any]]:
        """OpenAI ``tools`` entries offered to the model (empty without tools)."""
    def load(
        self,
        split: str,
        dataset: str = "embedded",
        max_examples: int | None = None,
        shuffle: bool = False,
        seed: int = 0,
    ) -> dict[str, Any]:
        """``{split, dataset_sha256, warnings, rows}``; each row has ``index``,
        ``example_id``, ``question``, ``prompt``, ``answer``, ``info``."""
    def score(
        self,
        completion: str | Sequence[Mapping[str, Any]],
        example_id: str | None = None,
        answer: Any = None,
        info: Any = None,
        question: str | None = None,
    ) -> dict[str, Any]:
        """``{reward, rewards, weights, reward_profile, reward_config_hash,
        parse: {status, reason, format_ok}, parsed, compat, example_id}``."""
    def call_tool(
        self,
        name: str,
        arguments: str,
        example_id: str | None = None,
        question: str | None = None,
        info: Any = None,
    ) -> dict[str, Any]:
        """``{content, ok, error}``."""
    def start_tools(
        self,
        example_id: str | None = None,
        question: str | None = None,
        info: Any = None,
    ) -> ToolCalls: ...
    def start_session(self, example_id: str) -> Session: ...
    def _bench_score(self, completion: str | Sequence[Mapping[str, Any]], example_id: str, n: int) -> float: ...

@final
class ToolCalls:
    """One rollout's tool calls, call by call; made by :meth:`Env.start_tools`
    (it has no constructor). The budget and every answer are ``eval``'s."""

    def call(self, name: str, arguments: str) -> dict[str, Any]:
        """``{content, ok, error}``."""
    @property
    def used(self) -> int: ...
    @property
    def budget(self) -> int: ...

@final
class Session:
    """A multi-turn episode; made by :meth:`Env.start_session` (it has no
    constructor)."""

    def prompt(self) -> list[dict[str, Any]]: ...
    def tools(self) -> list[dict[str, Any]]: ...
    @property
    def done(self) -> bool: ...
    @property
    def turn(self) -> int: ...
    def transcript(self) -> list[dict[str, Any]]: ...
    def reward(self) -> dict[str, Any] | None: ...
    def step(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """``{messages, done, turn, truncated, tool_interactions, reward}``."""

def grpo(
    rewards: Sequence[float | None],
    group_size: int | None = None,
    group_ids: Sequence[int] | None = None,
    eps: float = 1e-06,
    ddof: int = 0,
) -> list[float]: ...
def component_normalized(
    components: Mapping[str, Sequence[float | None]],
    weights: Mapping[str, float],
    group_size: int | None = None,
    group_ids: Sequence[int] | None = None,
    eps: float = 1e-06,
    ddof: int = 0,
) -> list[float]: ...
def gdpo(
    components: Mapping[str, Sequence[float | None]],
    weights: Mapping[str, float],
    group_size: int | None = None,
    group_ids: Sequence[int] | None = None,
    eps: float = 1e-06,
    ddof: int = 0,
) -> list[float]: ...

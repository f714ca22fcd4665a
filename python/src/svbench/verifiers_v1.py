"""verifiers v1 tasksets (verifiers >= 0.4, what current prime-rl loads).

``taskset_class(name)`` builds the ``vf.Taskset`` subclass of an svbench
environment. Its config is a ``vf.TasksetConfig`` with ``load_environment``'s
keyword arguments as fields (unknown fields rejected); its tasks carry the
exact prompt ``svbench eval`` sends and one ``@vf.reward(weight=...)`` method
per reward component of the configured profile, named and weighted as in the
Rust registry, so the trace's weighted sum is svbench's total. E2's analyzer
tools are a ``vf.Toolset`` whose calls run against that rollout's own
workspace, within the tool budget, as ``eval`` runs them.

The ``sv_env_*`` modules export these classes when verifiers >= 0.4 is
installed; ``vf-eval sv-env-network-logs`` loads them by environment id.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Iterator
from typing import Any, ClassVar

import verifiers.v1 as vf
from pydantic import create_model, model_validator

from svbench._common import COMMON_ARGS, Scorer, answer_text, env_name, native_env, reward_config_dict
from svbench._messages import to_message
from svbench._native import DatasetError, Env

__all__ = ["SvTaskConfig", "SvTaskData", "taskset_class"]


class SvTaskData(vf.TaskData):
    """One svbench example: the prompt ``eval`` sends (system message in
    ``system_prompt``, the rest in ``prompt``) and the reference it is scored
    against, inline, so any process can score it or run its tools."""

    sv_example_id: str
    answer: str = ""
    info: dict[str, Any] = {}
    question: str = ""


class SvTaskConfig(vf.TaskConfig):
    """The configured environment a task scores against. Filled by the
    taskset from its own config (``--env.taskset.*``); not set by hand."""

    env: str = ""
    reward_profile: str | None = None
    reward_config: dict[str, Any] | None = None
    env_args: dict[str, Any] = {}
    max_turns: int | None = None
    tool_budget: int | None = None

    def native(self) -> Env:
        """The configured native environment (cached per configuration)."""
        if not self.env:
            raise ValueError("SvTaskConfig.env is empty: tasks are built by an svbench taskset")
        return native_env(
            self.env,
            reward_profile=self.reward_profile,
            reward_config=self.reward_config,
            env_args=self.env_args,
            max_turns=self.max_turns,
            tool_budget=self.tool_budget,
        )


class SvTasksetConfigBase(vf.TasksetConfig):
    """``load_environment``'s keyword arguments; each environment's subclass
    adds that environment's own arguments (names from the registry)."""

    ENV: ClassVar[str] = ""
    OWN_ARGS: ClassVar[tuple[str, ...]] = ()

    dataset: str = "embedded"
    split: str = "train"
    max_examples: int | None = None
    seed: int = 0
    shuffle: bool = False
    reward_profile: str = "v1"
    reward_config: dict[str, Any] | str | None = None
    max_turns: int | None = None
    tool_budget: int | None = None
    task: SvTaskConfig = SvTaskConfig()

    @model_validator(mode="after")
    def _configure_task(self) -> SvTasksetConfigBase:
        """Copies the scoring configuration into ``task``, which every task
        (and E2's tool server) receives; a bad configuration fails here."""
        env_args = {k: getattr(self, k) for k in self.OWN_ARGS if getattr(self, k) is not None}
        derived = {
            "env": self.ENV,
            "reward_profile": self.reward_profile,
            "reward_config": reward_config_dict(self.reward_config),
            "env_args": env_args,
            "max_turns": self.max_turns,
            "tool_budget": self.tool_budget,
        }
        # Set by hand (not by a round trip of this config), they would be
        # silently replaced: say where they belong instead.
        given = self.task.model_dump(include=set(derived), exclude_defaults=True)
        if given and any(given.get(k, getattr(SvTaskConfig(), k)) != v for k, v in derived.items()):
            raise ValueError(
                f"task.{', task.'.join(sorted(given))}: set these on the taskset "
                "(--env.taskset.reward-profile, --env.taskset.max-turns, ...), not on its task"
            )
        task = self.task.model_copy(update=derived)
        task.native()
        object.__setattr__(self, "task", task)
        return self


class SvTask(vf.Task[SvTaskData, vf.State, SvTaskConfig]):
    """An svbench task. Constructing one yields an instance of the subclass
    for its configuration, which has one ``@vf.reward`` method per reward
    component (``__new__``), so tasks rebuilt from wire data by verifiers'
    env server score the same way."""

    _by_config: ClassVar[dict[str, type]]
    _scorer: ClassVar[Scorer]
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._by_config = {}

    def __new__(cls, data: Any = None, config: SvTaskConfig | None = None) -> SvTask:
        if config is None or "_components" in cls.__dict__:
            # copy/pickle rebuild an instance of its own class.
            return super().__new__(cls)
        return super().__new__(cls.configured(config))

    @classmethod
    def configured(cls, config: SvTaskConfig) -> type:
        """The subclass of ``cls`` carrying the reward methods of ``config``."""
        key = config.model_dump_json(exclude={"judges", "stops", "metrics", "rewards"})
        with cls._lock:
            sub = cls._by_config.get(key)
            if sub is None:
                weights = config.native().weights()
                # One scorer per configuration: the components of a scoring
                # share its result through its cache.
                attrs: dict[str, Any] = {
                    "_components": tuple(n for n, _ in weights),
                    "_scorer": Scorer(config.native()),
                }
                for i, (name, weight) in enumerate(weights):
                    if hasattr(vf.Task, name):
                        raise ValueError(f"reward component `{name}` shadows a vf.Task attribute")
                    # Priorities keep the registry's order (verifiers runs and
                    # sums rewards by descending priority, then name), so the
                    # trace's total adds up as svbench's does, to the last bit.
                    attrs[name] = vf.reward(_component_method(name), weight=weight, priority=len(weights) - i)
                sub = type(f"{cls.__name__}[{config.reward_profile or 'default'}]", (cls,), attrs)
                sub.__module__ = cls.__module__
                cls._by_config[key] = sub
        return sub

    @property
    def key(self) -> str:
        """svbench's stable example id."""
        return self.data.sv_example_id

    def sv_score(self, trace: vf.Trace) -> dict:
        """svbench's full score of the trace's replies, also recorded in
        ``trace.info["svbench_score"]``. The components of one scoring share
        it through the scorer's cache (keyed by configuration, example and
        reply), never through the trace: a saved trace re-scored under
        another profile is scored afresh."""
        result = self._scorer.score(
            completion_of(trace),
            self.data.answer,
            {"sv_example_id": self.data.sv_example_id, **self.data.info},
            question=self.data.question,
        )
        trace.info["svbench_score"] = result
        return result


def _component_method(name: str) -> Any:
    # verifiers awaits every reward (asyncio.gather).
    async def component(self: SvTask, trace: vf.Trace) -> float:
        return float(self.sv_score(trace)["rewards"][name])

    component.__name__ = name
    component.__qualname__ = name
    component.__doc__ = f"svbench reward component `{name}` (scored in Rust)."
    return component


def completion_of(trace: Any) -> list[dict]:
    """The replies a trace scores: the final branch's messages after the
    prompt (assistant turns and tool results), as ``eval`` records them."""
    nodes = trace.nodes
    if all(n.parent == i - 1 for i, n in enumerate(nodes) if i):
        # One chain (a single-agent rollout): it is the final branch, and
        # reading it directly skips verifiers' branch reconstruction.
        messages = [n.message for n in nodes]
    else:
        messages = trace.messages
    start = 0
    for i, m in enumerate(messages):
        if getattr(m, "role", None) in ("system", "user"):
            start = i + 1
        else:
            break
    replies = [to_message(m) for m in messages[start:]]
    if not any(m["role"] == "assistant" for m in replies):
        raise ValueError("the trace has no assistant message to score")
    return replies


class SvSingleTurnTask(SvTask):
    """A single-turn svbench task: the first reply ends the rollout."""

    @vf.stop
    def single_turn(self, response: vf.Response) -> bool:
        return True


class SvToolTask(SvTask):
    """A tool-using svbench task: the episode ends with a reply that calls no
    tool, or at the turn limit, as ``eval``'s episodes do."""

    @vf.stop
    def episode_done(self, trace: vf.Trace) -> bool:
        replies = trace.assistant_messages
        if not replies:
            return False
        return not replies[-1].tool_calls or len(replies) >= self.config.native().max_turns

    @classmethod
    def toolsets(cls, config: SvTaskConfig) -> list[vf.Toolset]:
        from svbench.verifiers_v1_tools import SvTools, SvToolsetConfig

        if not config.native().tools():
            return []
        return [SvTools(SvToolsetConfig(task=config))]


_CLASSES: dict[str, type] = {}


def taskset_class(name: str) -> type:
    """The ``vf.Taskset`` subclass of environment ``name`` (built once)."""
    name = env_name(name)
    cls = _CLASSES.get(name)
    if cls is not None:
        return cls
    native = Env(name)
    own = tuple(native.arg_names)
    clash = sorted(set(own) & (set(COMMON_ARGS) | set(vf.TasksetConfig.model_fields)))
    if clash:
        raise ValueError(f"{name}: own arguments {clash} clash with common taskset fields")
    camel = "".join(p.capitalize() for p in name.removeprefix("sv-env-").split("-"))
    config_cls = create_model(
        f"{camel}TasksetConfig",
        __base__=SvTasksetConfigBase,
        __doc__=f"Configuration of the {name} taskset: `svbench eval`'s options plus its own arguments.",
        **{a: (Any, None) for a in own},
    )
    config_cls.ENV = name
    config_cls.OWN_ARGS = own
    config_cls.__module__ = __name__
    task_cls = {"single_turn": SvSingleTurnTask, "tool": SvToolTask}.get(native.kind)
    if task_cls is None:
        raise NotImplementedError(f"{name}: {native.kind} environments are not wrapped as v1 tasksets yet")

    def load(self: Any) -> Iterator[SvTask]:
        config = self.config
        native = config.task.native()
        loaded = native.load(
            config.split,
            dataset=config.dataset,
            max_examples=config.max_examples,
            shuffle=config.shuffle,
            seed=config.seed,
        )
        if not loaded["rows"]:
            raise DatasetError(f"{name}: split `{loaded['split']}` has no rows")
        for row in loaded["rows"]:
            yield task_cls(task_data(row), config.task)

    def body(ns: dict) -> None:
        ns.update(load=load, __module__=__name__, __doc__=f"svbench's {name} as a verifiers v1 taskset.")

    cls = types.new_class(f"{camel}Taskset", (vf.Taskset[task_cls, config_cls],), exec_body=body)
    _CLASSES[name] = cls
    return cls


def task_data(row: dict) -> SvTaskData:
    """A loaded svbench row as task data: the system message apart, the
    rest of ``eval``'s prompt as messages."""
    prompt = list(row["prompt"])
    system = None
    if prompt and prompt[0].get("role") == "system":
        system = prompt.pop(0)["content"]
    info = row["info"] if isinstance(row["info"], dict) else {}
    return SvTaskData(
        id=row["example_id"],
        prompt=prompt,
        system_prompt=system,
        sv_example_id=row["example_id"],
        answer=answer_text(row["answer"]),
        info=info,
        question=row["question"],
    )

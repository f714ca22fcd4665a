"""Shared plumbing: keyword validation, configured environments (cached),
the rows of a split, and a scorer with an LRU keyed by completion hash."""

from __future__ import annotations

import hashlib
import json
import threading
import tomllib
from collections import OrderedDict
from os import PathLike
from typing import Any

from svbench._messages import to_completion
from svbench._native import ENVIRONMENT_NAMES, Env, ScoringError, UnknownArgumentError

#: The ``eval`` flags every environment accepts as keyword arguments (1.1).
COMMON_ARGS = (
    "dataset",
    "split",
    "max_examples",
    "seed",
    "shuffle",
    "reward_profile",
    "reward_config",
    "max_turns",
    "tool_budget",
)

#: Every accepted spelling of an environment → its canonical name (from the
#: native registry, so Python never keeps a table of its own).
_ENV_NAMES: dict[str, str] = dict(ENVIRONMENT_NAMES)


def env_name(name: str) -> str:
    """The canonical name of an environment name or alias (ValueError if unknown)."""
    try:
        return _ENV_NAMES[name]
    except KeyError:
        raise ValueError(
            f"unknown environment `{name}` (available: {', '.join(sorted(set(_ENV_NAMES.values())))})"
        ) from None


def reward_config_dict(reward_config: Any) -> dict | None:
    """``reward_config`` as a dict: a dict as is, or a TOML file path read."""
    if reward_config is None or isinstance(reward_config, dict):
        return reward_config
    if isinstance(reward_config, (str, PathLike)):
        with open(reward_config, "rb") as f:
            return tomllib.load(f)
    raise TypeError(f"reward_config must be a dict or a TOML file path, got {type(reward_config).__name__}")


_ENV_CACHE: dict[str, Env] = {}
_ENV_LOCK = threading.Lock()


def native_env(
    name: str,
    reward_profile: str | None = None,
    reward_config: Any = None,
    env_args: dict | None = None,
    max_turns: int | None = None,
    tool_budget: int | None = None,
) -> Env:
    """A configured native environment, cached per configuration."""
    name = env_name(name)
    rc = reward_config_dict(reward_config)
    key = json.dumps([name, reward_profile, rc, env_args or {}, max_turns, tool_budget], sort_keys=True, default=str)
    with _ENV_LOCK:
        env = _ENV_CACHE.get(key)
        if env is None:
            env = Env(name, reward_profile, rc, env_args or {}, max_turns, tool_budget)
            _ENV_CACHE[key] = env
    return env


def split_kwargs(name: str, kwargs: dict, extra: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """Splits keyword arguments into common ones and the environment's own;
    unknown names raise :class:`UnknownArgumentError`."""
    own = set(Env(name).arg_names) if name else set()
    common, env_args = {}, {}
    for key, value in kwargs.items():
        if key in COMMON_ARGS or key in extra:
            common[key] = value
        elif key in own:
            env_args[key] = value
        else:
            accepted = sorted(set(COMMON_ARGS) | set(extra) | own)
            raise UnknownArgumentError(f"{name} does not accept the argument `{key}` (accepted: {', '.join(accepted)})")
    return common, env_args


def env_from_kwargs(name: str, kwargs: dict, extra: tuple[str, ...] = ()) -> tuple[Env, dict, dict]:
    """``load_environment``-style keyword arguments to a configured native
    environment, the common arguments, and the row selection ``Env.load``
    takes (``dataset``, ``max_examples``, ``shuffle``, ``seed``)."""
    common, env_args = split_kwargs(name, kwargs, extra)
    env = native_env(
        name,
        reward_profile=common.get("reward_profile"),
        reward_config=common.get("reward_config"),
        env_args=env_args,
        max_turns=common.get("max_turns"),
        tool_budget=common.get("tool_budget"),
    )
    selection = dict(
        dataset=common.get("dataset", "embedded"),
        max_examples=common.get("max_examples"),
        shuffle=bool(common.get("shuffle", False)),
        seed=int(common.get("seed", 0)),
    )
    return env, common, selection


def answer_text(answer: Any) -> str:
    """A reference answer as a dataset string (JSON text when structured)."""
    if answer is None:
        return ""
    if isinstance(answer, str):
        return answer
    return json.dumps(answer, sort_keys=True, separators=(",", ":"))


def answer_value(answer: Any) -> Any:
    """The inverse of :func:`answer_text` for inline scoring."""
    if isinstance(answer, str) and answer[:1] in ("{", "["):
        try:
            return json.loads(answer)
        except json.JSONDecodeError:
            return answer
    return answer


class Scorer:
    """Scores completions through the native environment, once per
    (example, completion): every rubric component reads the same result."""

    def __init__(self, env: Env, maxsize: int = 4096):
        self.env = env
        self.weights = env.weights()
        self._cache: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._maxsize = maxsize
        #: A loaded example id to parse answers against (parsing does not
        #: depend on the reference; scoring is the only native entry point).
        self.parse_ref: str | None = None

    def example_id(self, info: Any, kwargs: dict) -> str | None:
        """The svbench example id carried by ``info`` or a dataset column."""
        if isinstance(info, str):
            try:
                info = json.loads(info)
            except json.JSONDecodeError:
                info = None
        if isinstance(info, dict) and isinstance(info.get("sv_example_id"), str):
            return info["sv_example_id"]
        value = kwargs.get("sv_example_id")
        return value if isinstance(value, str) else None

    def score(self, completion: Any, answer: Any = None, info: Any = None, **kwargs: Any) -> dict:
        """The full score dict of a completion (cached)."""
        payload = to_completion(completion)
        example_id = self.example_id(info, kwargs)
        if isinstance(info, str):
            try:
                info = json.loads(info)
            except json.JSONDecodeError:
                info = None
        # The row's own question (E2's configuration, E4's rendered email),
        # never the prompt's user message: that wraps the question, so
        # evidence offsets and analyzers would read the wrong text.
        question = kwargs.get("question")
        digest = hashlib.blake2b(
            json.dumps(payload, sort_keys=True, separators=(",", ":")).encode(), digest_size=16
        ).digest()
        key = (
            example_id,
            None if example_id else (answer_text(answer), json.dumps(info, sort_keys=True, default=str), question),
            digest,
        )
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        inline_info = None
        if isinstance(info, dict):
            inline_info = {k: v for k, v in info.items() if k != "sv_example_id"}
        result = self.env.score(
            payload,
            example_id=example_id,
            answer=answer_value(answer) if answer not in (None, "") else None,
            info=inline_info,
            question=question if isinstance(question, str) else None,
        )
        with self._lock:
            self._cache[key] = result
            if len(self._cache) > self._maxsize:
                self._cache.popitem(last=False)
        return result

    def parse(self, completion: Any) -> Any:
        """The normalised answer: the label (E1, E4), E2's predicted
        findings as a list; None when the answer does not parse."""
        if self.parse_ref is None:
            raise ScoringError("no rows are loaded to parse answers against")
        parsed = self.score(completion, info={"sv_example_id": self.parse_ref})["parsed"]
        if not isinstance(parsed, dict):
            return None
        if "label" in parsed:
            return parsed["label"]
        if parsed.get("parse_status") not in (None, "valid"):
            return None
        return parsed.get("prediction", parsed)

"""E2's analyzer tools as a verifiers v1 ``Toolset``: an MCP server that
verifiers starts per rollout with ``python -m svbench.verifiers_v1_tools``.
Each call runs against that rollout's own workspace, within the tool
budget, and answers exactly as ``svbench eval``'s runner does."""

import json
from typing import Annotated, Any, ClassVar

import verifiers.v1 as vf
from pydantic import WithJsonSchema

from svbench._native import Env
from svbench.verifiers_v1 import SvTaskConfig, SvTaskData

#: The tools as the registry specifies them (what `eval` offers the model).
_SPECS: dict[str, dict] = {t["function"]["name"]: t["function"] for t in Env("sv-env-config-verification").tools()}

# The advertised schema is the registry's, but any value is accepted here and
# checked in Rust, so a malformed call gets `eval`'s error and counts
# against the budget, as in `eval` (MCP's own validation would answer it
# without counting).
Paths = Annotated[Any, WithJsonSchema(_SPECS["run_kubelinter"]["parameters"]["properties"]["paths"])]

__all__ = ["SvTools", "SvToolsetConfig"]


class SvToolsetConfig(vf.ToolsetConfig):
    """What E2's tool server needs: the configured environment."""

    task: SvTaskConfig = SvTaskConfig()


class SvTools(vf.Toolset[SvToolsetConfig, vf.State]):
    """E2's analyzer tools, run against the rollout's own workspace (one
    server per rollout) within the tool budget, as ``eval`` runs them."""

    TOOL_PREFIX: ClassVar[str | None] = None

    def __init__(self, config: SvToolsetConfig) -> None:
        super().__init__(config)
        self._data: SvTaskData | None = None
        self._used = 0

    async def setup_task(self, task: Any) -> None:
        # The task arrives rebuilt from the rollout's state channel.
        self._data = SvTaskData.model_validate(task.model_dump() if hasattr(task, "model_dump") else task)
        self._used = 0

    def _call(self, name: str, paths: Any) -> str:
        """Runs tool ``name`` on ``paths``: the text the model sees."""
        native = self.config.task.native()
        if self._data is None:
            return _tool_error("no_workspace", "the tool server has no task: no rollout is running")
        if self._used >= native.tool_budget:
            self._used += 1
            return _tool_error("budget_exhausted", None, budget=native.tool_budget)
        self._used += 1
        data = self._data
        result = native.call_tool(
            name,
            json.dumps({"paths": paths}),
            example_id=data.sv_example_id,
            question=data.question,
            info=data.info,
        )
        return result["content"]

    @vf.tool
    def run_kubelinter(self, paths: Paths) -> str:
        return self._call("run_kubelinter", paths)

    @vf.tool
    def run_semgrep(self, paths: Paths) -> str:
        return self._call("run_semgrep", paths)

    @vf.tool
    def run_opa(self, paths: Paths) -> str:
        return self._call("run_opa", paths)


def _tool_error(code: str, message: str | None, **extra: Any) -> str:
    error: dict[str, Any] = {"code": code, **extra}
    if message is not None:
        error["message"] = message
    return json.dumps({"error": error}, separators=(",", ":"))


def _set_tool_docs() -> None:
    """Tool descriptions: the registry's."""
    for name, spec in _SPECS.items():
        getattr(SvTools, name).__doc__ = spec["description"]


_set_tool_docs()


if __name__ == "__main__":
    # Run as a module, this file is `__main__`: serve the importable class.
    from svbench.verifiers_v1_tools import SvTools as _Served

    _Served.run()

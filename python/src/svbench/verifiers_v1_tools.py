"""E2's analyzer tools as a verifiers v1 ``Toolset``: an MCP server that
verifiers starts per rollout with ``python -m svbench.verifiers_v1_tools``.
Each call runs against that rollout's own workspace, within the tool
budget, and answers exactly as ``svbench eval``'s runner does."""

import json
from typing import Annotated, Any, ClassVar

import verifiers.v1 as vf
from pydantic import WithJsonSchema

from svbench._native import Env, ToolCalls
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
        self._calls: ToolCalls | None = None

    async def setup_task(self, task: Any) -> None:
        # The task arrives rebuilt from the rollout's state channel.
        data = SvTaskData.model_validate(task.model_dump() if hasattr(task, "model_dump") else task)
        self._calls = self.config.task.native().start_tools(
            example_id=data.sv_example_id, question=data.question, info=data.info
        )

    def _call(self, name: str, paths: Any) -> str:
        """Runs tool ``name`` on ``paths``: the text the model sees."""
        if self._calls is None:
            return json.dumps(
                {"error": {"code": "no_workspace", "message": "the tool server has no task: no rollout is running"}}
            )
        return self._calls.call(name, json.dumps({"paths": paths}))["content"]

    @vf.tool
    def run_kubelinter(self, paths: Paths) -> str:
        return self._call("run_kubelinter", paths)

    @vf.tool
    def run_semgrep(self, paths: Paths) -> str:
        return self._call("run_semgrep", paths)

    @vf.tool
    def run_opa(self, paths: Paths) -> str:
        return self._call("run_opa", paths)


def _set_tool_docs() -> None:
    """Tool descriptions: the registry's."""
    for name, spec in _SPECS.items():
        getattr(SvTools, name).__doc__ = spec["description"]


_set_tool_docs()


if __name__ == "__main__":
    # Run as a module, this file is `__main__`: serve the importable class.
    from svbench.verifiers_v1_tools import SvTools as _Served

    _Served.run()

"""Every environment in the registry ships a verifiers shim package
(`sv_env_x` serves `sv-env-x`): two lines over `svbench._shim`, listed in
the wheel's packages and its verifiers entry points."""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import pytest

import svbench

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


@pytest.mark.parametrize("env", svbench.ENVIRONMENTS)
def test_every_environment_has_a_two_line_shim_in_the_wheel(env):
    package = env.replace("-", "_")
    module = importlib.import_module(package)
    assert module.ENV_ID == env and "load_environment" in module.__all__
    assert module.load_environment.__module__ == package
    # Nothing copied: the docstring, the import and the call.
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    code = [ast.unparse(node) for node in tree.body[1:]]
    assert code == ["from svbench._shim import export_env", "export_env(__name__)"], module.__file__
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert package in project["tool"]["maturin"]["python-packages"], f"add {package!r} to python-packages"
    entry = project["project"]["entry-points"]["verifiers.environments"].get(env)
    assert entry == f"{package}:load_environment", f'add {env} = "{package}:load_environment" to the entry points'

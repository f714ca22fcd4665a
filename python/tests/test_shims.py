"""Every environment in the registry ships a verifiers shim package
(`sv_env_x` serves `sv-env-x`): two lines over `svbench._shim`, shipped in
the wheel by pyproject.toml's `include` glob and registered in its
verifiers entry points. A failure says exactly what to add."""

from __future__ import annotations

import ast
import importlib
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import svbench

PYTHON = Path(__file__).resolve().parents[1]
PYPROJECT = PYTHON / "pyproject.toml"
SHIM_BODY = ["from svbench._shim import export_env", "export_env(__name__)"]
ENTRY_POINTS = '[project.entry-points."verifiers.environments"]'


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


@pytest.mark.parametrize("env", svbench.ENVIRONMENTS)
def test_every_environment_has_a_two_line_shim_in_the_wheel(env):
    package = env.replace("-", "_")
    project = _project()
    # Entry points are static metadata: maturin cannot derive them from the registry.
    entry = project["project"]["entry-points"]["verifiers.environments"].get(env)
    line = f'{env} = "{package}:load_environment"'
    where = f"under {ENTRY_POINTS} in python/pyproject.toml"
    assert entry == f"{package}:load_environment", f"add this line {where}:\n{line}"
    shim = PYTHON / "src" / package / "__init__.py"
    assert shim.is_file(), (
        f"create python/src/{package}/__init__.py: a docstring naming {env}, then the two lines\n"
        + "\n".join(SHIM_BODY)
    )
    # The wheel takes shim packages by pyproject's include glob, not by name.
    globs = [g if isinstance(g, str) else g["path"] for g in project["tool"]["maturin"].get("include", [])]
    assert any(fnmatch(f"{package}/__init__.py", g) for g in globs), (
        f"python/pyproject.toml's [tool.maturin] include ships no {package}/__init__.py: keep "
        '{ path = "sv_env_*/*.py", format = "wheel" } there'
    )
    module = importlib.import_module(package)
    assert module.ENV_ID == env and "load_environment" in module.__all__
    assert module.load_environment.__module__ == package
    # Nothing copied: the docstring, the import and the call.
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    code = [ast.unparse(node) for node in tree.body[1:]]
    assert code == SHIM_BODY, module.__file__


def test_no_shim_or_entry_point_outlives_its_environment():
    registered = set(svbench.ENVIRONMENTS)
    entries = set(_project()["project"]["entry-points"]["verifiers.environments"])
    assert entries <= registered, f"remove {sorted(entries - registered)} from {ENTRY_POINTS} in python/pyproject.toml"
    shims = {p.name.replace("_", "-") for p in (PYTHON / "src").glob("sv_env_*") if (p / "__init__.py").is_file()}
    assert shims <= registered, f"remove the shim packages of {sorted(shims - registered)} from python/src"

"""`svbench/_native.pyi` describes exactly what `svbench._native` exports:
the same public names, classes with the same public members, exceptions
with the same bases, and callables with the same parameters (names, kinds,
defaults) as their runtime signatures."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import svbench
from svbench import _native

STUB = Path(svbench.__file__).with_name("_native.pyi")


def _tree() -> ast.Module:
    return ast.parse(STUB.read_text(), filename=str(STUB))


def _defined(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return out


def _public(names) -> set[str]:
    return {n for n in names if not n.startswith("__")}


def _stub_params(fn: ast.FunctionDef, drop_first: bool) -> list[tuple[str, str, object]]:
    """(name, kind, default) of a stub function; default `inspect._empty` if none."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults: list[object] = [inspect.Parameter.empty] * (len(positional) - len(a.defaults))
    defaults += [ast.literal_eval(d) for d in a.defaults]
    out = []
    for i, (p, d) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((p.arg, kind, d))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "KEYWORD_ONLY", inspect.Parameter.empty if d is None else ast.literal_eval(d)))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", inspect.Parameter.empty))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", inspect.Parameter.empty))
    return out[1:] if drop_first else out


def _runtime_params(obj) -> list[tuple[str, str, object]]:
    sig = inspect.signature(obj)
    params = list(sig.parameters.values())
    if params and params[0].name in ("self", "$self", "cls", "$cls"):
        params = params[1:]
    out = []
    for p in params:
        # pyo3 writes `self, /`: the receiver is the only positional-only one.
        kind = "POSITIONAL_OR_KEYWORD" if p.kind is p.POSITIONAL_ONLY else p.kind.name
        out.append((p.name, kind, p.default))
    return out


def _same_params(stub, runtime, where: str) -> None:
    assert [(n, k) for n, k, _ in stub] == [(n, k) for n, k, _ in runtime], where
    for (name, _, sd), (_, _, rd) in zip(stub, runtime):
        if rd is ...:
            # pyo3 writes a default that is not a Python literal (a Rust
            # constant) as `...`: the stub must still give one.
            assert sd is not inspect.Parameter.empty, f"{where}: {name} has a default at run time"
        else:
            assert sd == rd, f"{where}: default of {name}: stub {sd!r}, runtime {rd!r}"


def test_stub_names_match_module_exports():
    stub = _public(_defined(_tree().body))
    runtime = _public(n for n in dir(_native) if not n.startswith("_"))
    assert stub == runtime


def test_stub_module_constants_match_types():
    defined = _defined(_tree().body)
    assert isinstance(_native.ENVIRONMENTS, list) and all(isinstance(x, str) for x in _native.ENVIRONMENTS)
    assert isinstance(_native.ENVIRONMENT_NAMES, dict)
    assert ast.unparse(defined["ENVIRONMENTS"].annotation) == "list[str]"
    assert ast.unparse(defined["ENVIRONMENT_NAMES"].annotation) == "dict[str, str]"


def test_stub_functions_match_signatures():
    defined = _defined(_tree().body)
    functions = [n for n, v in vars(_native).items() if callable(v) and not isinstance(v, type)]
    assert functions, "no functions exported"
    for name in functions:
        node = defined[name]
        assert isinstance(node, ast.FunctionDef), name
        _same_params(_stub_params(node, drop_first=False), _runtime_params(getattr(_native, name)), name)


def test_stub_defaults_that_pyo3_writes_as_ellipsis():
    # `eps` defaults to a Rust constant, shown as `...` at run time: the
    # stub's literal must give the same results as leaving it out.
    defined = _defined(_tree().body)
    rewards, comps, weights = [0.0, 1.0, 3.0, 3.5], {"a": [0.0, 1.0, 3.0, 3.5]}, {"a": 1.0}
    for name, args in [("grpo", (rewards,)), ("component_normalized", (comps, weights)), ("gdpo", (comps, weights))]:
        eps = dict((n, d) for n, _, d in _stub_params(defined[name], drop_first=False))["eps"]
        fn = getattr(_native, name)
        assert fn(*args, group_size=4) == fn(*args, group_size=4, eps=eps), name
        assert fn(*args, group_size=4) != fn(*args, group_size=4, eps=eps * 1e5), name


def test_stub_exceptions_have_runtime_bases():
    defined = _defined(_tree().body)
    for name in ("UnknownArgumentError", "DatasetError", "ScoringError"):
        cls = getattr(_native, name)
        assert issubclass(cls, Exception)
        node = defined[name]
        assert [ast.unparse(b) for b in node.bases] == [b.__name__ for b in cls.__bases__], name


@pytest.mark.parametrize("cls_name", ["Env", "Session"])
def test_stub_classes_match_members_and_signatures(cls_name):
    cls = getattr(_native, cls_name)
    node = _defined(_tree().body)[cls_name]
    assert isinstance(node, ast.ClassDef)
    members = _defined(node.body)
    runtime = {n for n in vars(cls) if not n.startswith("__")}
    assert set(members) - {"__new__"} == runtime
    for name, member in members.items():
        assert isinstance(member, ast.FunctionDef), f"{cls_name}.{name}"
        is_property = any(ast.unparse(d) == "property" for d in member.decorator_list)
        attr = vars(cls)[name] if name != "__new__" else None
        if is_property:
            assert type(attr).__name__ == "getset_descriptor", f"{cls_name}.{name} is a property in the stub"
            continue
        target = cls if name == "__new__" else attr
        _same_params(_stub_params(member, drop_first=True), _runtime_params(target), f"{cls_name}.{name}")
    # A class with no constructor in Rust has none in the stub either.
    if "__new__" not in members:
        with pytest.raises(TypeError):
            cls()

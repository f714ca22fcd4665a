"""`t-echo`, the test-only environment, in a wheel built with
`--features test-env` (the last step of .ci/run): the native environment,
the training registry and the verifiers v1 taskset come from its registry
entry alone. Skipped in the ordinary wheel, which does not register it."""

from __future__ import annotations

import pytest

import svbench

ECHO = "sv-env-test-echo"

if ECHO not in svbench.ENVIRONMENTS:
    pytest.skip("needs the wheel built with --features test-env (see .ci/run)", allow_module_level=True)


def test_rows_and_scores_come_from_the_registry():
    env = svbench.open_env("t-echo")
    assert env.name == ECHO
    assert env.weights() == [("exact", 1.0)]
    rows = env.load("test", max_examples=3)["rows"]
    assert [r["example_id"] for r in rows] == ["echo-0", "echo-1", "echo-2"]
    word = rows[1]["answer"]
    right = env.score(word, example_id="echo-1")
    assert right["reward"] == 1.0
    assert right["parsed"] == {"text": word}
    assert right["compat"] == {"echoed": True}
    wrong = env.score(word.upper(), answer=word)
    assert wrong["reward"] == 0.0
    assert svbench._native.TRAINING[ECHO]["teachers"][0]["name"] == "oracle"


def test_the_v1_taskset_is_built_from_the_registry():
    from svbench._vf_api import v1_installed

    if not v1_installed():
        pytest.skip("needs verifiers >= 0.4")
    from svbench.verifiers_v1 import taskset_class

    cls = taskset_class(ECHO)
    assert cls.__name__ == "TestEchoTaskset"
    assert cls is taskset_class("t-echo")

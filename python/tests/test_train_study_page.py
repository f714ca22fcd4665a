"""svbench.train's run reports and study pages name no environment: what
they show beyond the reward is the analysis the registry names for the
environment (`svbench.train.analysis`). The pages are written here from
synthetic run directories, with `svbench compare` replaced by fixed
results. Needs only the native module, not torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from svbench.train import behaviour, findings, report, study_page
from svbench.train.analysis import SPREAD, Analysis, analysis_of
from svbench.train.envs import env_names
from svbench.train.errors import ConfigError
from svbench.train.study import load_study

E1_HEADING = "## Does each policy read the record? (test, greedy; mean across seeds)"
E1_EXPLOITS = "## Reward exploits on test (answers of each trained policy; mean across seeds)"


def test_every_environment_names_an_analysis_that_resolves():
    for env in env_names():
        assert isinstance(analysis_of(env), Analysis), env
    assert analysis_of("e1") is behaviour.ANALYSIS and analysis_of("sv-env-network-logs") is behaviour.ANALYSIS
    assert analysis_of("e2") is findings.ANALYSIS and findings.ANALYSIS.study is None
    assert analysis_of("e4") is SPREAD


def test_a_module_without_an_analysis_is_refused(monkeypatch):
    from svbench import _native

    monkeypatch.setitem(_native.TRAINING["sv-env-phishing-detection"], "analysis", "svbench.train.errors")
    with pytest.raises(ConfigError, match="svbench.train.errors, which exports no Analysis"):
        analysis_of("e4")
    monkeypatch.setitem(_native.TRAINING["sv-env-phishing-detection"], "analysis", "svbench.train.no_such_module")
    with pytest.raises(ConfigError, match="does not import"):
        analysis_of("e4")


def _e1_row(gold: str, label: str, confidence: float, reward: float) -> dict:
    meta = {"p_malicious": 1.0 if gold == "Malicious" else 0.0, "optimal_action": gold}
    return {
        "answer": gold,
        "parse": {"status": "valid"},
        "parsed": {"label": label, "confidence": confidence},
        "reward": reward,
        "reward_profile": "v1",
        "info": {"meta": meta},
    }


def _generic_row(answer: str, reward: float) -> dict:
    return {"answer": answer, "parse": {"status": "valid"}, "parsed": {"label": answer}, "reward": reward}


def _eval_run(path: Path, rows: list[dict]) -> str:
    path.mkdir(parents=True)
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    mean = sum(r["reward"] for r in rows) / len(rows)
    summary = {"reward": {"mean": mean}, "validity": {"parse_failure_rate": 0.0}, "headline": []}
    (path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return str(path)


def _write_study(tmp: Path, env: str) -> Path:
    """A two-variant, two-seed study of `env` whose runs all finished."""
    out = tmp / "runs"
    tmp.mkdir(parents=True, exist_ok=True)
    config = tmp / "study.toml"
    config.write_text(
        f'name = "Synthetic {env}"\nout_dir = "{out}"\nseeds = [1, 2]\npage = "{tmp / "page.md"}"\n'
        f'[base]\nenv = "{env}"\n[base.eval]\nsplits = ["test"]\n'
        '[variants.A]\nlabel = "scalar"\n[variants.B]\nlabel = "normalized"\n'
        'grpo = { advantage = "component_normalized" }\n',
        encoding="utf-8",
    )
    configs = {(v.key, seed): cfg for v, seed, cfg in load_study(config).runs}
    for key in ("A", "B"):
        for seed in (1, 2):
            run = out / f"{key}-s{seed}"
            assert configs[(key, seed)].run_dir == run
            if env == "e1":
                collapsed = key == "B" and seed == 2
                rows = [
                    _e1_row(g, "Malicious" if collapsed else g, 0.9, 1.0 + 0.1 * i)
                    for i, g in enumerate(["Malicious", "Benign", "Malicious", "Benign"])
                ]
            else:
                rows = [_generic_row(a, 0.5 + 0.1 * i) for i, a in enumerate(["x", "y", "x", "z"])]
            stages = {
                "model": {"wall_s": 1.0},
                "sft": {"wall_s": 2.0, "s_per_step": 0.25},
                "grpo": {
                    "wall_s": 3.0,
                    "median_step_s": 1.5,
                    "median_scoring_share": 0.002,
                    "median_rollouts_per_s": 12.0,
                    "checkpoint": str(run / "grpo" / "checkpoint"),
                },
                "eval": {"wall_s": 4.0, "runs": {"grpo": {"test": _eval_run(run / "eval" / "grpo", rows)}}},
            }
            if key == "A":
                stages["eval"]["runs"]["sft"] = {"test": _eval_run(run / "eval" / "sft", rows[:2] + rows[:2])}
            metrics = [
                {"step": s, "svbench/reward": 1.0 - 0.1 * s, "svbench/parse_failure_rate": 0.0, "kl": 0.01 * s}
                for s in range(1, 7)
            ]
            (run / "grpo").mkdir(parents=True, exist_ok=True)
            (run / "grpo" / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
            provenance = {"machine": "test", "torch_threads": 1, "versions": {"svbench": "0"}}
            state = {"stages": stages, "provenance": provenance, "config": configs[(key, seed)].to_dict()}
            (run / "run.json").write_text(json.dumps(state), encoding="utf-8")
    return config


def _fake_compare(a: str, b: str, dest: Path, vary: list[str], offline: bool = False) -> dict:
    def metric(name: str, delta: float) -> dict:
        m = {"metric": name, "mean_a": 1.0, "mean_b": 1.0 + delta, "mean_delta": delta}
        return {**m, "ci_low": delta - 0.05, "ci_high": delta + 0.05, "mcnemar": {"p_value": 0.5}}

    return {"n_pairs": 4, "metrics": [metric("reward", 0.1), metric("accuracy", 0.0), metric("cost", -0.02)]}


@pytest.fixture
def page_of(tmp_path, monkeypatch):
    monkeypatch.setattr(study_page, "_cached_compare", _fake_compare)

    def write(env: str) -> str:
        study = load_study(_write_study(tmp_path / env, env))
        return study_page.write_page(study).read_text(encoding="utf-8")

    return write


def test_e1_study_pages_show_its_analysis(page_of):
    page = page_of("e1")
    assert E1_HEADING in page and "| *always Malicious, confidence 0.50* |" in page
    assert E1_EXPLOITS in page and "| policy | abstain_rate | abstain_where_optimal |" in page
    assert (
        "| largest drawdown per run | training reward: first → best later → last, per run "
        "| most common test answer per run |"
    ) in page
    # The behaviour table carries the test that decided labels depend on the gold label.
    assert "label depends on gold (Fisher p < 0.05) |" in page
    assert "| B | " in page and "Malicious@0.9 (1.00)" in page
    assert "B gives one answer to at least 95% of test rows in 1 of 2 seeds." in page


@pytest.mark.parametrize("env", ["e2", "e4"])
def test_other_study_pages_show_only_the_generic_sections(page_of, env):
    page = page_of(env)
    assert "## Held-out test" in page and "## Stability" in page and "## What the numbers support" in page
    assert "read the record" not in page and "Reward exploits" not in page
    assert "most common test answer per run |" not in page and "gives one answer to at least" not in page


@pytest.mark.parametrize(
    ("env", "question", "first_column"),
    [
        ("e1", behaviour.ANALYSIS.question, "malicious recall"),
        ("e4", SPREAD.question, "no parse rate"),
    ],
)
def test_run_reports_ask_the_environments_question(tmp_path, env, question, first_column):
    config = _write_study(tmp_path, env)
    run = json.loads((config.parent / "runs" / "A-s1" / "run.json").read_text())["stages"]["eval"]["runs"]
    cols = [("SFT start", run["sft"]["test"]), ("trained", run["grpo"]["test"])]
    lines = report._behaviour_section(env, cols)
    assert lines[0] == question
    assert lines[2].startswith(f"| policy | reward | {first_column} |")


def test_a_page_refuses_runs_made_with_other_settings(tmp_path, monkeypatch):
    """Editing the study config after the runs (more steps, another lr) must
    not relabel them: the page would state settings no run used."""
    monkeypatch.setattr(study_page, "_cached_compare", _fake_compare)
    config = _write_study(tmp_path, "e1")
    edited = config.read_text(encoding="utf-8") + "[base.grpo]\nsteps = 80\nlr = 1e-3\n"
    config.write_text(edited, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        study_page.write_page(load_study(config))
    message = str(e.value)
    assert "runs made with other settings than the study config states" in message
    assert "A-s1: grpo.lr: was 0.0005, now 0.001; grpo.steps: was 60, now 80" in message
    assert message.count("\n  ") == 4


def test_check_regenerates_the_page_and_fails_on_a_hand_edit(tmp_path, monkeypatch):
    monkeypatch.setattr(study_page, "_cached_compare", _fake_compare)
    study = load_study(_write_study(tmp_path, "e1"))
    page = study_page.write_page(study)
    assert study_page.check_page(study) == page
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("| scalar |", "| scalar (best) |", 1) + "\nA typed claim.\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="page.md: differs from what the evidence regenerates"):
        study_page.check_page(study)
    page.write_text(text, encoding="utf-8")
    svg = next(page.with_suffix("").glob("*.svg"))
    svg.write_text(svg.read_text(encoding="utf-8").replace("<svg", "<svg data-edited='1'", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{svg.name}: differs"):
        study_page.check_page(study)


def test_check_uses_stored_comparisons_only(tmp_path):
    """Offline, a comparison the page cites must be stored with the runs."""
    study = load_study(_write_study(tmp_path, "e1"))
    with pytest.raises(ConfigError, match="holds no such `svbench compare` result"):
        study_page.check_page(study)

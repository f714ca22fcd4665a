"""The whole svbench.train pipeline at toy size (the CI smoke run): model,
SFT, GRPO through TRL's GRPOTrainer, the checkpoint served to `svbench
eval`, report, curves, validated manifests, and resuming a crashed run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "train" / "e1-smoke.toml"

# The whole pipeline at toy size needs the train extra and the CLI.
torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
pytest.importorskip("trl", reason="the train extra (trl) is not installed")

from svbench.train import evaluate as evaluate_module  # noqa: E402


@pytest.fixture(scope="module")
def svbench_cli() -> str:
    path = os.environ.get("SVBENCH_BIN") or shutil.which("svbench")
    if not path:
        pytest.skip("SVBENCH_BIN is not set and svbench is not on PATH")
    return path


def run_train(*args: str, cwd: Path, cli: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SVBENCH_BIN": cli}
    return subprocess.run(
        [sys.executable, "-m", "svbench.train", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_smoke_pipeline_end_to_end_and_resume(tmp_path, svbench_cli):
    out = tmp_path / "runs"
    proc = run_train("run", str(SMOKE), "--out-dir", str(out), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = out / "e1-smoke"
    state = json.loads((run / "run.json").read_text())
    assert set(state["stages"]) == {"model", "sft", "grpo", "eval", "report"}
    for key in ("git_sha", "versions", "machine"):
        assert key in state["provenance"]
    assert state["stages"]["grpo"]["steps"] == 3 and state["stages"]["grpo"]["trainer"] == "grpo"
    assert state["stages"]["grpo"]["dataset_sha256"].startswith("sha256:")
    assert state["stages"]["sft"]["teacher"]["policy"] == "builtin:heuristic"

    # Each checkpoint evaluated by `svbench eval` on every split, 5 rows, with
    # its trainer and steps in a manifest that validates.
    for stage, trainer, steps in (("sft", "distillation", 4), ("grpo", "grpo", 3)):
        for split in ("dev", "test", "ood"):
            d = Path(state["stages"]["eval"]["runs"][stage][split])
            m = json.loads((d / "run_manifest.json").read_text())
            assert (m["trainer"], m["max_steps"], m["split"]) == (trainer, steps, split)
            assert sum(1 for _ in (d / "results.jsonl").open()) == 5
            check = subprocess.run([svbench_cli, "manifest", "validate", str(d / "run_manifest.json")])
            assert check.returncode == 0
            # What svbench wrote reads as finished, so a resumed pipeline keeps it.
            assert evaluate_module._complete(d)

    report = (run / "report.md").read_text()
    assert "Paired comparison on 5 examples" in report and "## Learning curves: grpo" in report
    assert "Does the policy read the record?" in report and "| *always Abstain* |" in report
    for name in ("reward-utility", "reward-calibration", "reward-format", "kl", "completion-length"):
        assert (run / "grpo" / "curves" / f"{name}.svg").is_file(), name
        assert f"grpo/curves/{name}.svg" in report
    assert (run / "sft" / "curves" / "loss.svg").is_file()
    metrics = [json.loads(line) for line in (run / "grpo" / "metrics.jsonl").open()]
    assert [m["step"] for m in metrics] == [1, 2, 3]
    assert all("svbench/scoring_share" in m and "rewards/utility/mean" in m for m in metrics)

    # A crash after the step-2 checkpoint: the stage is redone from it.
    state["stages"] = {k: v for k, v in state["stages"].items() if k in ("model", "sft")}
    (run / "run.json").write_text(json.dumps(state))
    shutil.rmtree(run / "grpo" / "checkpoint")
    shutil.rmtree(run / "grpo" / "trainer" / "checkpoint-3")
    proc = run_train("grpo", str(SMOKE), "--out-dir", str(out), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 0, proc.stderr[-3000:]
    grpo = json.loads((run / "run.json").read_text())["stages"]["grpo"]
    assert grpo["resumed_from_step"] == 2 and grpo["steps"] == 3
    metrics = [json.loads(line) for line in (run / "grpo" / "metrics.jsonl").open()]
    assert [m["step"] for m in metrics] == [1, 2, 3]

    # A later stage needs the earlier ones; a changed config is refused.
    proc = run_train("report", str(SMOKE), "--out-dir", str(out), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 2 and "stage eval of" in proc.stderr
    proc = run_train("eval", str(SMOKE), "--out-dir", str(out), "--model", str(tmp_path), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 2 and "different config" in proc.stderr

    # The large-model path at toy size: a local checkpoint (`--model PATH`)
    # trained through LoRA adapters, merged into each saved checkpoint.
    pytest.importorskip("peft", reason="the train extra (peft) is not installed")
    lora = tmp_path / "lora.toml"
    lora.write_text(SMOKE.read_text().replace("[model]\n", "[model]\nlora_rank = 4\n"), encoding="utf-8")
    start = run / "sft" / "checkpoint"
    proc = run_train("run", str(lora), "--out-dir", str(out), "--model", str(start), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 0, proc.stderr[-3000:]
    state = json.loads((out / "lora" / "run.json").read_text())
    assert state["stages"]["model"]["source"] == "local checkpoint"
    for stage in ("sft", "grpo"):
        ckpt = Path(state["stages"][stage]["checkpoint"])
        assert (ckpt / "model.safetensors").is_file() and not (ckpt / "adapter_config.json").exists()


def test_e2_smoke_pipeline(tmp_path, svbench_cli):
    out = tmp_path / "runs"
    config = ROOT / "configs" / "train" / "e2-smoke.toml"
    proc = run_train("run", str(config), "--out-dir", str(out), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 0, proc.stderr[-3000:]
    state = json.loads((out / "e2-smoke" / "run.json").read_text())
    teacher = state["stages"]["sft"]["teacher"]
    assert teacher["policy"] == "builtin:oracle keeping 0.5 of the findings"
    grpo = state["stages"]["grpo"]
    assert grpo["rows"] == "with_findings" and grpo["dataset_rows"] == 16
    assert 0 < grpo["prompt_rows"] < 16  # about a fifth of generated configurations are clean
    for split in ("dev", "test"):
        d = Path(state["stages"]["eval"]["runs"]["grpo"][split])
        meta = json.loads((d / "metadata.json").read_text())
        assert meta["env_args"]["include_tools"] is False and meta["env_args"]["show_catalog"] is False
        assert sum(1 for _ in (d / "results.jsonl").open()) == 3
    report = (out / "e2-smoke" / "report.md").read_text()
    assert "reward.detection" in report and "*always the empty list*" in report
    assert f"prompts with_findings: {grpo['prompt_rows']} of 16 rows" in report


def test_e4_smoke_pipeline(tmp_path, svbench_cli):
    """E4 trains with nothing of its own in svbench.train: its teachers are
    its builtin policies, its held-out splits its registry splits."""
    out = tmp_path / "runs"
    config = ROOT / "configs" / "train" / "e4-smoke.toml"
    proc = run_train("run", str(config), "--out-dir", str(out), cwd=tmp_path, cli=svbench_cli)
    assert proc.returncode == 0, proc.stderr[-3000:]
    state = json.loads((out / "e4-smoke" / "run.json").read_text())
    assert state["stages"]["sft"]["teacher"]["policy"] == "builtin:indicators"
    tokenizer = [f["policy"] for f in state["stages"]["model"]["tokenizer_data"]]
    assert tokenizer == ["builtin:indicators", "builtin:oracle"]
    assert state["stages"]["grpo"]["steps"] == 2 and state["stages"]["grpo"]["trainer"] == "grpo"
    runs = state["stages"]["eval"]["runs"]["grpo"]
    assert set(runs) == {"dev", "test", "ood", "fresh"}
    for split, d in runs.items():
        m = json.loads((Path(d) / "run_manifest.json").read_text())
        # The fresh set is the test split of a generator seed no stage trained on.
        want = ("test", "synthetic:99:6") if split == "fresh" else (split, "embedded")
        assert (m["environment_id"], m["split"], m["dataset_id"], m["trainer"]) == (
            "sv-env-phishing-detection",
            *want,
            "grpo",
        )
        assert sum(1 for _ in (Path(d) / "results.jsonl").open()) == 3
    report = (out / "e4-smoke" / "report.md").read_text()
    assert "### fresh" in report
    assert "Does the policy answer each row, or give one answer to everything?" in report
    assert "| policy | reward | no parse rate | distinct answers | top answer share |" in report


def test_study_smoke_runs_every_variant_and_writes_its_page(tmp_path, svbench_cli):
    config = ROOT / "configs" / "train" / "e1-study-smoke.toml"
    env = {**os.environ, "SVBENCH_BIN": svbench_cli}
    cmd = [sys.executable, "-m", "svbench.train.study", str(config)]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = tmp_path / "results" / "runs" / "e1-study-smoke"
    page = (out / "advantage-modes.md").read_text()
    assert "5 of 5 runs finished" in page
    for variant in "ABCDP":
        assert f"| {variant} (n=1) |" in page
        state = json.loads((out / f"{variant}-s1" / "run.json").read_text())
        assert "report" in state["stages"]
    # The variants share A's warm start, and C/D record their trainer.
    runs = json.loads((out / "C-s1" / "run.json").read_text())["stages"]["eval"]["runs"]
    assert set(runs) == {"grpo"}
    manifest = json.loads((tmp_path / runs["grpo"]["test"] / "run_manifest.json").read_text())
    assert manifest["trainer"] == "gdpo"
    assert "| A | P | 1 | 5 |" in page and "![rewards/reward_accuracy/mean]" in page
    assert "## Does each policy read the record? (test" in page and "| *always Malicious, confidence" in page
    assert "A gives one answer to at least 95% of test rows in" in page and "most common test answer per run |" in page
    assert (out / "advantage-modes" / "compare-reward-utility.svg").is_file()

    # Finished runs are kept: a rerun changes no run, only rewrites the page.
    before = {p: p.read_text() for p in out.glob("*-s1/run.json")}
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {p: p.read_text() for p in out.glob("*-s1/run.json")} == before

    # The page is evidence: regenerated offline it matches byte for byte,
    # and a hand edit fails the check.
    check = [*cmd, "--page-only", "--check"]
    proc = subprocess.run(check, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "matches its evidence" in proc.stdout, proc.stderr[-3000:]
    page_file = out / "advantage-modes.md"
    page_file.write_text(page_file.read_text() + "\nC is the best variant.\n")
    proc = subprocess.run(check, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "differs from what the evidence regenerates" in proc.stderr, proc.stderr

"""Shared fixtures: the `svbench` binary (for parity with `eval`), the
completions scored everywhere, and a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

# No example database written into the source tree.
settings.register_profile("svbench", database=None)
settings.load_profile("svbench")

E1 = "sv-env-network-logs"
E2 = "sv-env-config-verification"
E4 = "sv-env-phishing-detection"

#: svbench's reward profiles, every one a parity test covers.
PROFILES = ["v1", "upstream"]

#: E1 replies of every parse outcome: valid, fenced, prose, abstain, out of range.
E1_TEXTS = [
    '{"label": "Malicious", "confidence": 0.83, "rationale": "odd port"}',
    '```json\n{"label": "Benign", "confidence": 0.61}\n```',
    "I think this flow is probably malicious.",
    '{"label": "Abstain", "confidence": 0.4}',
    '{"label": "Benign", "confidence": 0.1}',
    '{"label": "malicious", "confidence": 1.5}',
]


def e4_oracle_text(answer: str, info: dict) -> str:
    """E4's oracle-style answer to a row: the gold label, confidence 1.0 and
    the texts of the gold spans relevant to it (phish spans for Phishing,
    benign ones for Legitimate, all of them for Abstain)."""
    polarity = {"Phishing": "phish", "Legitimate": "benign"}.get(answer)
    spans = info["meta"]["spans"]
    evidence = [s["text"] for s in spans if polarity is None or s["polarity"] == polarity]
    return json.dumps({"label": answer, "confidence": 1.0, "evidence": evidence})


def e4_texts(answer: str, info: dict) -> list[str]:
    """E4 replies to a row, one of each kind: the oracle's; a fenced wrong
    label quoting the email; a quote that is not in the email; prose; an
    abstention without evidence; a label without confidence."""
    other = "Legitimate" if answer == "Phishing" else "Phishing"
    quote = info["meta"]["spans"][0]["text"]
    return [
        e4_oracle_text(answer, info),
        "```json\n" + json.dumps({"label": other, "confidence": 0.7, "evidence": [quote]}) + "\n```",
        json.dumps({"label": answer, "confidence": 0.6, "evidence": ["wire the funds to this account"]}),
        "This one looks like phishing to me.",
        json.dumps({"label": "Abstain", "confidence": 0.5, "evidence": []}),
        json.dumps({"label": answer}),
    ]


def same(a: float, b: float) -> bool:
    """Bit-identical floats."""
    return a == b and repr(a) == repr(b)


@pytest.fixture(scope="session")
def svbench_bin() -> str:
    """The release CLI: $SVBENCH_BIN, else `svbench` on PATH (tests that
    compare with `eval` fail rather than skip without it)."""
    path = os.environ.get("SVBENCH_BIN") or shutil.which("svbench")
    if not path or not Path(path).exists():
        pytest.fail("set SVBENCH_BIN to the release `svbench` binary (cargo build --release)")
    return path


def run_replay(svbench_bin: str, tmp: Path, env: str, records: list[dict], profile: str, flags: list[str] = ()) -> dict:
    """`svbench eval ENV --model builtin:replay:FILE` on `records`; returns
    the result records by example id."""
    replay = tmp / f"replay-{env}-{profile}.jsonl"
    replay.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp / f"evals-{env}-{profile}"
    ids = {r["example_id"] for r in records}
    proc = subprocess.run(
        [
            svbench_bin,
            "eval",
            env,
            "--model",
            f"builtin:replay:{replay}",
            "--split",
            "test",
            "-n",
            str(max(r["index"] for r in records) + 1),
            "--reward-profile",
            profile,
            "--no-progress",
            "--output-dir",
            str(out),
            *flags,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (results,) = list(out.rglob("results.jsonl"))
    by_id = {}
    for line in results.read_text().splitlines():
        rec = json.loads(line)
        if rec["example_id"] in ids:
            by_id[rec["example_id"]] = rec
    assert set(by_id) == ids, proc.stderr
    return by_id

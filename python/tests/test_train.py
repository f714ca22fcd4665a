"""svbench.train: strict configs, matched study budgets, the reward
functions per advantage mode, and the whole pipeline at toy size (model,
SFT, GRPO through TRL, serve, `svbench eval`, report, curves, manifests,
resume)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from svbench import advantages
from svbench.train import config as train_config
from svbench.train.config import ConfigError
from svbench.train.rewards import COMPONENT_NORMALIZED, TrainingRewards
from svbench.train.study import load_study

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "train" / "e1-smoke.toml"
STUDY = ROOT / "configs" / "train" / "e1-study.toml"


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_configs_are_read_strictly(tmp_path):
    cfg = train_config.load(SMOKE)
    assert cfg.run_id == "e1-smoke" and cfg.sft.teacher == "heuristic"
    assert cfg.eval.splits == ["dev", "test", "ood"]
    cases = {
        'env = "e1"\nstepz = 3\n': "unknown key in config: stepz",
        'env = "e1"\n[grpo]\nsteps = "10"\n': "grpo.steps must be int",
        'env = "e1"\n[grpo]\nadvantage = "mean"\n': "grpo.advantage must be one of",
        'env = "e1"\n[grpo]\ngenerations = 1\n': "at least 2",
        'env = "e1"\n[sft]\nteacher = "partial-analyzers"\n': "sft.teacher for e1 must be one of heuristic, oracle",
        'env = "e1"\n[grpo]\nmethod = "distillation"\n': "needs grpo.teacher",
        'env = "e1"\n[model]\nlayers = 2\nfoo = 1\n': "unknown key in model: foo",
        'env = "e9"\n': "env must be one of",
        "env = \n": "Invalid value",
        'env = "e2"\nenv_args = {include_tools = true}\n': "env_args.include_tools cannot be set",
        'env = "e2"\nenv_args = {show_catalog = [1]}\n': "env_args must be a table of strings, numbers or booleans",
        'env = "e2"\nenv_args = "show_catalog=false"\n': "env_args must be a table",
        'env = "e2"\n[grpo]\nrows = "flagged"\n': "grpo.rows must be all or with_findings",
        'env = "e1"\n[grpo]\nrows = "with_findings"\n': "with_findings is for e2",
        'env = "e2"\n[grpo]\nmethod = "distillation"\nrows = "with_findings"\nteacher = "analyzers"': "selects GRPO",
        'env = "e4"\n[eval]\nfresh = "embedded"\n': "eval.fresh must be synthetic:SEED:N",
        'env = "e4"\n[eval]\nfresh = "synthetic:13:50"\n': "uses generator seed 13, which a training stage uses too",
        'env = "e4"\n[eval]\nsplits = ["test", "fresh"]\n': "eval.fresh sets no generated dataset",
        'env = "e4"\n[eval]\nengine = "vllm"\n': "eval.engine must be one of torch, llama-cpp",
        'env = "e4"\n[eval]\nengine = "llama-cpp"\n': "eval.engine llama-cpp needs a model from a GGUF file",
    }
    for text, message in cases.items():
        with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
            train_config.load(write(tmp_path, "bad.toml", text))
    fresh = train_config.load(write(tmp_path, "fresh.toml", 'env = "e4"\n[eval]\nfresh = "synthetic:99:40"\n'))
    assert fresh.eval.splits == ["dev", "test", "ood", "fresh"]
    assert train_config.eval_source(fresh.eval, "fresh") == ("synthetic:99:40", "test")
    assert train_config.eval_source(fresh.eval, "ood") == ("embedded", "ood")


def test_every_environments_teachers_and_defaults_come_from_the_registry(tmp_path):
    from svbench import _native
    from svbench.train.envs import env_names, env_training

    assert env_names()[:3] == ["e1", "e2", "e4"]
    for short in env_names():
        declared = _native.TRAINING[_native.ENVIRONMENT_NAMES[short]]
        names = [t["name"] for t in declared["teachers"]]
        training = env_training(short)
        assert [t.name for t in training.teachers] == names and training.student_args == declared["student_args"]
        cfg = train_config.load(write(tmp_path, "ok.toml", f'env = "{short}"\n'))
        assert cfg.sft.teacher == names[0], "the first teacher is the default"
        assert "train" not in cfg.eval.splits, "evaluation is held out"
        # An unknown teacher names the environment's teachers, in the registry's order.
        for table in ("sft", "grpo"):
            text = f'env = "{short}"\n[{table}]\nteacher = "nope"\n'
            listed = f"{table}.teacher for {short} must be one of {', '.join(names)}, got"
            with pytest.raises(ConfigError, match=listed):
                train_config.load(write(tmp_path, "bad.toml", text))

    # E4 is trained on its own builtin policies, evaluated on every held-out split.
    e4 = env_training("e4")
    assert [(t.name, t.model, t.partial) for t in e4.teachers] == [
        ("indicators", "builtin:indicators", False),
        ("oracle", "builtin:oracle", False),
    ]
    cfg = train_config.load(write(tmp_path, "e4.toml", 'env = "e4"\n[sft]\nteacher = "oracle"\n'))
    assert cfg.sft.teacher == "oracle" and cfg.eval.splits == ["dev", "test", "ood"]
    assert train_config.load(write(tmp_path, "e2.toml", 'env = "e2"\n')).eval.splits == ["dev", "test"]
    with pytest.raises(ConfigError, match="env must be one of e1, e2, e4"):
        train_config.load(write(tmp_path, "bad.toml", 'env = "e9"\n'))
    with pytest.raises(ConfigError, match="env is not set"):
        train_config.load(write(tmp_path, "bad.toml", "seed = 1\n"))


def test_e4_teachers_answer_with_its_builtin_policies(tmp_path, svbench_bin, monkeypatch):
    from svbench import open_env
    from svbench.train.teacher import teacher_rows

    monkeypatch.setenv("SVBENCH_BIN", svbench_bin)
    env = open_env("e4")
    gold = {r["example_id"]: r for r in env.load("train", dataset="synthetic:11:8")["rows"]}
    for name in ("indicators", "oracle"):
        rows, facts = teacher_rows("e4", name, "synthetic:11:8", "train", 4, 1, tmp_path)
        assert facts["policy"] == f"builtin:{name}" and len(rows) == 4
        for r in rows:
            row = gold[r.example_id]
            score = env.score(r.completion, answer=row["answer"], info=row["info"], question=row["question"])
            assert score["parse"]["status"] == "valid", r.completion
            if name == "oracle":
                assert json.loads(r.completion)["label"] == row["answer"] and score["reward"] > 0


def test_env_args_reach_every_stage_the_same_way(tmp_path):
    from svbench.train.teacher import env_arg_flags, student_env_args

    cfg = train_config.load(write(tmp_path, "e2.toml", 'env = "e2"\nenv_args = {show_catalog = false}\n'))
    args = student_env_args(cfg.env, cfg.env_args)
    assert args == {"include_tools": False, "show_catalog": False}
    assert env_arg_flags(args) == ["--env-arg", "include_tools=false", "--env-arg", "show_catalog=false"]
    assert student_env_args("e1", {}) == {}


def test_split_digits_gives_every_digit_its_own_token():
    pytest.importorskip("tokenizers")
    pytest.importorskip("transformers")
    from svbench.train.model import train_tokenizer

    texts = ["tcp 56250\u21922323 orig_bytes=2323 resp_bytes=23 flags=ShAr"] * 50
    question = "udp 40000\u21922323 bytes=445"
    merged = train_tokenizer(texts, 300)
    assert any(len(t) > 1 and t.isdigit() for t in merged.tokenize(question))
    split = train_tokenizer(texts, 300, split_digits=True)
    numeric = [t for t in split.tokenize(question) if any(c.isdigit() for c in t)]
    assert numeric and all(len(t) == 1 for t in numeric)
    assert split.decode(split(question)["input_ids"]) == question


def test_a_run_directory_refuses_another_config(tmp_path):
    from svbench.train.rundir import RunDir

    cfg = train_config.load(SMOKE, {"out_dir": str(tmp_path)})
    RunDir(cfg)
    RunDir(train_config.load(SMOKE, {"out_dir": str(tmp_path)}))  # same config: reopened
    changed = train_config.load(SMOKE, {"out_dir": str(tmp_path), "grpo": {"steps": 4}})
    with pytest.raises(ConfigError, match=r"different config \(grpo.steps: was 3, now 4\)"):
        RunDir(changed)


def test_a_run_directory_reads_a_key_added_since_as_its_default(tmp_path):
    from svbench.train.rundir import RUN_FILE, RunDir

    cfg = train_config.load(SMOKE, {"out_dir": str(tmp_path)})
    state_file = RunDir(cfg).file
    state = json.loads(state_file.read_text(encoding="utf-8"))
    del state["config"]["grpo"]["rows"]  # a run started before the key existed
    state_file.write_text(json.dumps(state), encoding="utf-8")
    RunDir(cfg)
    other = train_config.load(SMOKE, {"out_dir": str(tmp_path)})
    other.grpo.rows = "with_findings"  # not validated: only the comparison is under test
    with pytest.raises(ConfigError, match=r"grpo.rows: was 'all', now 'with_findings'"):
        RunDir(other)
    state["config"]["grpo"]["stepz"] = 3  # a key the schema does not know is reported, not dropped
    state_file.write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"grpo.stepz: was 3, now None"):
        RunDir(cfg)
    assert (tmp_path / cfg.run_id / RUN_FILE).exists()


def test_the_study_matches_budgets_and_shares_the_warm_start(tmp_path):
    study = load_study(STUDY)
    keys = [v.key for v in study.variants]
    assert keys == ["A", "B", "C", "D", "P"]
    runs = {cfg.run_id: cfg for _, _, cfg in study.runs}
    assert len(runs) == len(keys) * len(study.seeds)
    for seed in study.seeds:
        a = runs[f"A-s{seed}"]
        assert a.sft_from == ""
        for k in keys[1:]:
            other = runs[f"{k}-s{seed}"]
            assert other.sft_from == str(a.run_dir) and other.seed == seed
            assert (other.grpo.steps, other.grpo.prompts_per_step, other.grpo.generations) == (
                a.grpo.steps,
                a.grpo.prompts_per_step,
                a.grpo.generations,
            )
    assert runs["C-s1"].grpo.advantage == "normalize_then_sum"
    assert runs["P-s1"].grpo.profile == "upstream"
    assert runs["D-s1"].grpo.method == "distillation"

    text = STUDY.read_text(encoding="utf-8")
    bad = text.replace('advantage = "component_normalized"', 'advantage = "component_normalized", steps = 7')
    with pytest.raises(ConfigError, match="budgets must match across variants"):
        load_study(write(tmp_path, "s.toml", bad))
    bad = text.replace("[variants.B]", "[variants.B]\nmodel = { layers = 9 }")
    with pytest.raises(ConfigError, match="a variant may only change"):
        load_study(write(tmp_path, "s.toml", bad))
    with pytest.raises(ConfigError, match="unknown key"):
        load_study(write(tmp_path, "s.toml", "extra = 1\n" + text))


E1_REPLIES = [
    '{"label": "Malicious", "confidence": 0.9}',
    '{"label": "Benign", "confidence": 0.8}',
    '{"label": "Abstain", "confidence": 0.5}',
    "not json",
]


def _batch(n_prompts: int, g: int):
    import svbench

    rows = svbench.open_env("e1").load("dev")["rows"][:n_prompts]
    prompts, completions, kwargs = [], [], {"answer": [], "info": [], "sv_example_id": []}
    for i, r in enumerate(rows):
        for j in range(g):
            prompts.append(r["prompt"])
            completions.append([{"role": "assistant", "content": E1_REPLIES[(i + j) % len(E1_REPLIES)]}])
            kwargs["answer"].append(r["answer"])
            kwargs["info"].append(json.dumps(r["info"]))
            kwargs["sv_example_id"].append(r["example_id"])
    return prompts, completions, kwargs


def test_reward_functions_per_advantage_mode():
    g = 4
    prompts, completions, kwargs = _batch(3, g)
    logged = {}
    kwargs["log_metric"] = lambda name, value: logged.setdefault(name, value)

    a = TrainingRewards("e1", "v1", {}, "sum_then_normalize", g)
    funcs, settings = a.funcs_and_settings()
    assert [f.__name__ for f in funcs] == ["utility", "calibration", "format"]
    assert settings == {
        "reward_weights": [1.0, 0.25, 0.05],
        "multi_objective_aggregation": "sum_then_normalize",
        "scale_rewards": "group",
    }
    comps = {f.__name__: f(prompts, completions, **kwargs) for f in funcs}
    assert logged["svbench/parse_failure_rate"] == pytest.approx(3 / 12)
    assert logged["svbench/abstain_rate"] == pytest.approx(3 / 12)

    c = TrainingRewards("e1", "v1", {}, "normalize_then_sum", g)
    assert c.funcs_and_settings()[1]["multi_objective_aggregation"] == "normalize_then_sum"

    b = TrainingRewards("e1", "v1", {}, "component_normalized", g)
    funcs, settings = b.funcs_and_settings()
    assert funcs[-1].__name__ == COMPONENT_NORMALIZED
    assert settings["reward_weights"] == [0.0, 0.0, 0.0, 1.0] and settings["scale_rewards"] == "none"
    got = funcs[-1](prompts, completions, **kwargs)
    want = advantages.component_normalized(comps, dict(a.scorer.weights), group_size=g, eps=advantages.TRL_EPS, ddof=1)
    assert got == want and any(v != 0 for v in got)
    # Zero mean per group, so TRL's group-mean subtraction leaves it unchanged.
    for s in range(0, len(got), g):
        assert abs(sum(got[s : s + g])) < 1e-9
    with pytest.raises(ValueError, match="not one prompt's group"):
        funcs[-1](prompts[1:] + prompts[:1], completions, **kwargs)
    with pytest.raises(ValueError, match="do not form groups"):
        funcs[-1](prompts[:-1], completions[:-1], **{k: v[:-1] for k, v in kwargs.items() if k != "log_metric"})


def test_the_partial_e2_teacher_keeps_a_seeded_share_of_the_findings():
    import random

    from svbench.train.envs import env_training
    from svbench.train.teacher import _partial

    key = env_training("e2").findings
    assert key == "violations", "E2 declares its answers' findings list in the registry"
    found = [{"id": f"kube-linter/check-{i}", "severity": "med"} for i in range(4)]
    full = json.dumps({"violations": found, "patch": "", "confidence": 1.0})
    kept = json.loads(_partial(full, key, 0.5, random.Random(1)))["violations"]
    assert len(kept) == 2 and all(v in found for v in kept)
    assert kept == sorted(kept, key=found.index), "the answer's order is kept"
    assert kept == json.loads(_partial(full, key, 0.5, random.Random(1)))["violations"], "seeded"
    one = json.dumps({"violations": found[:1], "patch": "", "confidence": 1.0})
    assert json.loads(_partial(one, key, 0.25, random.Random(1)))["violations"] == found[:1]
    clean = json.dumps({"violations": [], "patch": "", "confidence": 1.0})
    assert json.loads(_partial(clean, key, 0.5, random.Random(1)))["violations"] == []


def test_exploit_measures_and_collapse_events(tmp_path):
    from svbench.train.behaviour import exploit_measures
    from svbench.train.study_page import collapse_events

    def row(answer, optimal, label, confidence):
        parsed = None if label is None else {"label": label, "confidence": confidence}
        return {"answer": answer, "info": {"meta": {"optimal_action": optimal}}, "parsed": parsed}

    rows = [
        row("Benign", "Abstain", "Abstain", 0.5),
        row("Malicious", "Abstain", "Benign", None),  # wrong, no confidence
        row("Malicious", "Malicious", "Malicious", 0.05),  # hedge, extreme
        row("Benign", "Benign", "Malicious", 0.5),  # wrong, with confidence
        row("Benign", "Benign", None, None),  # unparsed
    ]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    m = exploit_measures(results)
    assert m["abstain_rate"] == pytest.approx(1 / 5)
    assert m["abstain_where_optimal"] == pytest.approx(1 / 2)
    assert m["abstain_where_not_optimal"] == 0.0
    assert m["no_confidence_when_wrong"] == pytest.approx(1 / 2)
    assert m["extreme_confidence"] == pytest.approx(1 / 2)  # of the decided answers stating one
    assert m["malicious_conf_le_0.1"] == pytest.approx(1 / 3)

    ok = [{"svbench/reward": 1.0, "svbench/parse_failure_rate": 0.0}] * 10
    broken = [{"svbench/reward": 0.2, "svbench/parse_failure_rate": 0.9}] * 6
    events, drawdown = collapse_events(ok + broken + ok + broken)
    assert events == 2 and drawdown == pytest.approx(0.8)
    assert collapse_events(ok) == (0, 0.0)


def test_a_study_run_selects_variants_and_seeds(monkeypatch):
    import svbench.train.pipeline as pipeline
    from svbench.train.study import run_study

    study = load_study(STUDY)
    ran: list[str] = []
    monkeypatch.setattr(pipeline, "run_stages", lambda cfg: ran.append(cfg.run_id))
    seeds = sorted({seed for _, seed, _ in study.runs})
    keys = sorted({v.key for v, _, _ in study.runs})
    run_study(study, only={keys[0]}, seeds={seeds[-1]})
    assert len(ran) == 1 and ran[0].startswith(f"{keys[0]}-s{seeds[-1]}")
    ran.clear()
    run_study(study, seeds={seeds[0]})
    assert len(ran) == len(keys)
    with pytest.raises(ConfigError, match="--seed 999: the study's seeds are"):
        run_study(study, seeds={999})
    with pytest.raises(ConfigError, match="--only Z: the study's variants are"):
        run_study(study, only={"Z"})


def test_training_hashes_tell_variants_apart_but_not_their_budgets():
    from svbench.train.config import training_hashes

    study = load_study(STUDY)
    by_key = {v.key: cfg for v, seed, cfg in study.runs if seed == study.runs[0][1]}
    hashes = {key: training_hashes(cfg) for key, cfg in by_key.items()}
    assert len({config for config, _ in hashes.values()}) == len(hashes)
    assert len({budget for _, budget in hashes.values()}) == 1
    cfg = by_key["A"]
    moved = train_config.from_dict({"run_id": "elsewhere", "out_dir": "/tmp/x", "eval": {"examples": 3}}, cfg)
    assert training_hashes(moved) == training_hashes(cfg)
    longer = train_config.from_dict({"grpo": {"steps": cfg.grpo.steps + 1}}, cfg)
    assert training_hashes(longer)[1] != training_hashes(cfg)[1]
    assert all(len(h) == 64 for h in training_hashes(cfg))


def test_reward_trend_says_whether_training_reward_rose_above_its_start():
    from svbench.train.study_page import reward_trend

    flat = [{"step": i + 1, "svbench/reward": r} for i, r in enumerate([1.072, 0.94, 1.01, 1.048])]
    assert reward_trend(flat) == "1.072 → 1.048 (never above the first) → 1.048"
    rising = [{"step": i + 1, "svbench/reward": r} for i, r in enumerate([0.5, 0.9, 0.7])]
    assert reward_trend(rising) == "0.500 → 0.900 (best at step 2) → 0.700"
    assert reward_trend([{"step": 1, "svbench/reward": 0.5}]) == "n/a"
    assert reward_trend([{"step": 1}, {"step": 2, "loss": 1.0}]) == "n/a"

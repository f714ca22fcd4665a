"""Local Hugging Face checkpoints: what a checkpoint directory must hold, loading it
without network access, and the optional svbench metadata beside it.

A checkpoint is a ``save_pretrained`` directory of a causal LM together with its
tokenizer and a chat template, so that ``svbench.train.serve`` can turn OpenAI chat
messages into a prompt exactly as the trainer did.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

__all__ = [
    "CheckpointError",
    "METADATA_FILE",
    "REQUIRED",
    "check_checkpoint",
    "file_sha256",
    "load_checkpoint",
    "read_metadata",
    "weights_files",
    "weights_fingerprint",
]

#: Written by svbench's trainer beside the weights; absent for third-party models.
METADATA_FILE = "svbench_checkpoint.json"

#: What a checkpoint directory must hold: one entry per requirement, as
#: (what the error calls it when missing, files any one of which satisfies it).
#: Weights given by an index also need every shard the index lists, and the chat
#: template may instead live in ``tokenizer_config.json`` (``chat_template``).
REQUIRED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("config.json", ("config.json",)),
    (
        "model.safetensors",
        ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json"),
    ),
    ("tokenizer_config.json", ("tokenizer_config.json",)),
    # The files AutoTokenizer builds a tokenizer from: a fast tokenizer, a
    # sentencepiece model, or BPE/WordPiece vocabularies.
    (
        "tokenizer.json",
        ("tokenizer.json", "tokenizer.model", "spiece.model", "sentencepiece.bpe.model", "vocab.json", "vocab.txt"),
    ),
    ("chat_template", ("chat_template.jinja", "chat_template.json")),
)

_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")


class CheckpointError(ValueError):
    """A checkpoint directory that cannot be served: absent, incomplete or malformed."""


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{what} {path} is not readable JSON: {e}") from e


def _index_shards(index: Path) -> list[str]:
    """The shard files a ``*.index.json`` lists, in a stable order."""
    data = _read_json(index, "weights index")
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise CheckpointError(f"weights index {index} has no weight_map of tensor -> shard file")
    return sorted(set(weight_map.values()))


def _missing_weights(d: Path) -> list[str]:
    if (d / "model.safetensors").is_file() or (d / "pytorch_model.bin").is_file():
        return []
    for name in _INDEXES:
        if (d / name).is_file():
            return [f"{s} (listed in {name})" for s in _index_shards(d / name) if not (d / s).is_file()]
    return ["model.safetensors (nor model.safetensors.index.json nor pytorch_model.bin)"]


def _has_chat_template(d: Path) -> bool:
    if (d / "chat_template.jinja").is_file() or (d / "chat_template.json").is_file():
        return True
    config = d / "tokenizer_config.json"
    if not config.is_file():
        return False
    data = _read_json(config, "tokenizer config")
    # A string, or a list of named templates ({"name", "template"}).
    return isinstance(data, dict) and bool(data.get("chat_template"))


def check_checkpoint(path: str | Path) -> Path:
    """Checks that ``path`` is a servable checkpoint directory and returns it.

    Raises :class:`CheckpointError` naming the directory and every missing file
    at once, so one run tells the user everything to fix.
    """
    d = Path(path)
    if not d.exists():
        raise CheckpointError(f"checkpoint {d} does not exist")
    if not d.is_dir():
        raise CheckpointError(f"checkpoint {d} is not a directory (expected a save_pretrained directory)")
    missing: list[str] = []
    for name, alternatives in REQUIRED:
        if name == "model.safetensors":
            missing += _missing_weights(d)
        elif name == "chat_template":
            if not _has_chat_template(d):
                missing.append("chat_template (tokenizer_config.json has none and there is no chat_template.jinja)")
        elif not any((d / a).is_file() for a in alternatives):
            others = [a for a in alternatives if a != name]
            missing.append(f"{name} (nor {', '.join(others)})" if others else name)
    if missing:
        raise CheckpointError(f"checkpoint {d} is missing: {', '.join(missing)}")
    return d


def weights_files(path: str | Path) -> list[Path]:
    """The weight files of a checked checkpoint: the single file, or every shard
    its index lists (sorted by name)."""
    d = Path(path)
    for single in ("model.safetensors", "pytorch_model.bin"):
        if (d / single).is_file():
            return [d / single]
    for name in _INDEXES:
        if (d / name).is_file():
            return [d / s for s in _index_shards(d / name)]
    raise CheckpointError(f"checkpoint {d} has no weights")


def weights_fingerprint(path: str | Path) -> str:
    """Hex SHA-256 over the bytes of the weight files, in :func:`weights_files`
    order: the same weights give the same fingerprint whatever the directory."""
    h = hashlib.sha256()
    for f in weights_files(path):
        _hash_file(h, f)
    return h.hexdigest()


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of one file, read in 1 MiB chunks."""
    return _hash_file(hashlib.sha256(), path).hexdigest()


def _hash_file(h: Any, path: Path) -> Any:
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h


def read_metadata(path: str | Path) -> dict:
    """The checkpoint's ``svbench_checkpoint.json`` as a dict, ``{}`` when absent
    (third-party models have none); a file that is not a JSON object is an error."""
    f = Path(path) / METADATA_FILE
    if not f.exists():
        return {}
    data = _read_json(f, "checkpoint metadata")
    if not isinstance(data, dict):
        raise CheckpointError(f"checkpoint metadata {f} is not a JSON object")
    return data


def load_checkpoint(path: str | Path, device: str = "cpu") -> tuple[Any, Any]:
    """Checks then loads ``(model, tokenizer)`` from local files only (never a
    download); the model is on ``device`` and in eval mode."""
    d = check_checkpoint(path)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(d, local_files_only=True)
    if not getattr(tokenizer, "chat_template", None):
        raise CheckpointError(f"checkpoint {d}: the tokenizer loaded without a chat template")
    model = AutoModelForCausalLM.from_pretrained(d, local_files_only=True)
    model.to(device)
    model.eval()
    return model, tokenizer

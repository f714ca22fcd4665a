"""The llama.cpp engine of `svbench.train.serve`: the checkpoint's tokenizer
and chat template render the prompt exactly as with torch, and llama.cpp
(`llama-cpp-python`) generates from the GGUF file the checkpoint was made
from, quantised as it ships.

    python -m svbench.train.serve CKPT --engine llama-cpp [--gguf FILE]

A checkpoint made from a GGUF file (`python -m svbench.train model` with a
pretrained GGUF) is served from that very file: its SHA-256 must be the one
the checkpoint recorded, so the two engines serve the same model. Any other
checkpoint of such a model (a trained one) is served from its export
(`python -m svbench.train.gguf_export`), which records the checkpoint's
weights fingerprint; the server checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from svbench.train.checkpoint import CheckpointError, check_checkpoint, file_sha256, read_metadata, weights_fingerprint
from svbench.train.serve import DEFAULT_MAX_TOKENS_CAP, ChatModel, ChatRequest, Generated, _cut_at_stop

__all__ = ["LlamaCppChatModel", "recorded_gguf"]


def recorded_gguf(ckpt: Path) -> dict[str, Any]:
    """The GGUF origin a checkpoint recorded (`gguf`: file, sha256, named)."""
    origin = read_metadata(ckpt).get("gguf")
    if not isinstance(origin, dict) or not isinstance(origin.get("sha256"), str):
        raise CheckpointError(
            f"{ckpt} was not made from a GGUF file (its svbench_checkpoint.json records none), "
            "so llama.cpp has no weights to serve for it; serve it with --engine torch"
        )
    return origin


def _package_file(named: str, file: str) -> Path | None:
    """Where an installed package keeps the GGUF a checkpoint recorded as
    `package NAME`."""
    from svbench.train.pretrained import PACKAGES, package_file

    name = named.removeprefix("package ").strip()
    if name not in PACKAGES or PACKAGES[name].file != file:
        return None
    path = package_file(name)
    return path if path is not None and path.is_file() else None


def _weights_file(ckpt: Path, gguf: Path | None) -> tuple[Path, str]:
    """The GGUF file to serve for `ckpt` and its SHA-256: an export of this
    very checkpoint (`svbench.train.gguf_export`), or the file the checkpoint
    was made from."""
    from svbench.train.gguf_export import exported_fingerprint

    if gguf is not None and not gguf.is_file():
        raise CheckpointError(f"--gguf {gguf}: no such file")
    try:
        exported = None if gguf is None else exported_fingerprint(gguf)
    except Exception as e:  # the gguf reader raises several kinds on a damaged file
        raise CheckpointError(f"--gguf {gguf}: not a readable GGUF file: {e}") from e
    if exported is not None:
        if exported != weights_fingerprint(ckpt):
            raise CheckpointError(f"{gguf} was exported from other weights than {ckpt}'s")
        return gguf, file_sha256(gguf)
    origin = recorded_gguf(ckpt)
    if gguf is None:
        gguf = _package_file(str(origin.get("named", "")), str(origin.get("file", "")))
        if gguf is None:
            raise CheckpointError(
                f"{ckpt} was made from {origin.get('file')} ({origin.get('named')}), which is not "
                "installed here; pass its path with --gguf"
            )
    sha = file_sha256(gguf)
    if sha != origin["sha256"]:
        raise CheckpointError(
            f"{gguf} is not the GGUF file {ckpt} was made from "
            f"(SHA-256 {sha[:12]}…, the checkpoint recorded {origin['sha256'][:12]}…)"
        )
    return gguf, sha


class LlamaCppChatModel(ChatModel):
    """:class:`ChatModel` with llama.cpp generating from the GGUF file."""

    engine = "llama-cpp"

    def __init__(
        self,
        ckpt: str | Path,
        name: str,
        max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP,
        gguf: Path | None = None,
        threads: int | None = None,
    ):
        self.path = check_checkpoint(ckpt)
        self.name = name
        self.max_tokens_cap = max_tokens_cap
        gguf, sha = _weights_file(self.path, gguf)
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise CheckpointError(
                "--engine llama-cpp needs llama-cpp-python (pip install llama-cpp-python; it builds llama.cpp "
                "from source, so a C++ compiler and CMake)"
            ) from e
        from transformers import AutoTokenizer

        self.gguf = gguf
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        # n_ctx 0: the context the model was trained with, as the GGUF says.
        self.llm = Llama(model_path=str(gguf), n_ctx=0, n_threads=threads, verbose=False)
        self.context_length = int(self.llm.n_ctx())
        self.fingerprint = "svbench-gguf-" + sha[:12]
        self._chat_setup()

    def _generate(self, prompt: str, req: ChatRequest) -> Generated:
        # The template already places any BOS token; special tokens in it are
        # the template's own.
        ids = self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        max_new = self._max_new_tokens(req, len(ids))
        out = self.llm.create_completion(
            ids,
            max_tokens=max_new,
            # OpenAI semantics: only temperature and top_p shape the
            # distribution (temperature 0 is greedy); llama.cpp's other
            # samplers and its repetition penalty are off.
            temperature=req.temperature,
            top_p=req.top_p,
            top_k=0,
            min_p=0.0,
            typical_p=1.0,
            repeat_penalty=1.0,
            seed=None if req.seed is None else req.seed % 2**32,
            stop=list(req.stop) or None,
        )
        choice = out["choices"][0]
        text = choice["text"]
        cut = _cut_at_stop(text, req.stop)
        if cut is not None:
            text = cut
        finish = "length" if choice.get("finish_reason") == "length" else "stop"
        return Generated(text, len(ids), int(out["usage"]["completion_tokens"]), finish)

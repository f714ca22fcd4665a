"""A trained checkpoint as a GGUF file, so llama.cpp can serve it
(`svbench.train.serve --engine llama-cpp --gguf FILE`).

    python -m svbench.train.gguf_export CKPT SOURCE.gguf OUT.gguf

Only checkpoints of a model that came from a GGUF file: SOURCE is that
file, and everything but the weights (architecture, tokenizer, chat
template, rope settings) is copied from it. The weights are written as
float16 (float32 for the 1-D norm weights llama.cpp wants in float32), in
llama.cpp's layout: tensor names from the `gguf` package's map, and the
query and key projections permuted back to llama.cpp's rotary order (the
inverse of what transformers does when it loads a GGUF). The export records
the checkpoint's weights fingerprint under `svbench.weights_fingerprint`,
which the server checks before serving the file for that checkpoint.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from svbench.train.checkpoint import CheckpointError, check_checkpoint, weights_fingerprint

__all__ = ["FINGERPRINT_KEY", "ExportError", "export_gguf", "exported_fingerprint"]

#: GGUF metadata key naming the checkpoint an export was made from.
FINGERPRINT_KEY = "svbench.weights_fingerprint"
#: Architectures whose layout this exporter writes.
SUPPORTED = ("llama",)


class ExportError(ValueError):
    """A checkpoint or source file that cannot be exported."""


def _permute(weights: Any, n_head: int) -> Any:
    # transformers un-permutes q/k when it reads a llama GGUF; this is the
    # inverse: heads × (2, dim/2) halves interleaved back.
    dim = weights.shape[0] // n_head // 2
    return weights.reshape(n_head, 2, dim, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def exported_fingerprint(path: Path) -> str | None:
    """The checkpoint fingerprint an exported GGUF recorded (None: not an export)."""
    from gguf import GGUFReader

    field = GGUFReader(path).fields.get(FINGERPRINT_KEY)
    return None if field is None else str(field.contents())


def export_gguf(ckpt: Path, source: Path, out: Path) -> Path:
    """Writes `ckpt`'s weights into a GGUF at `out` with `source`'s metadata."""
    import gguf
    import numpy as np
    from transformers import AutoConfig, AutoModelForCausalLM

    ckpt = check_checkpoint(ckpt)
    config = AutoConfig.from_pretrained(ckpt, local_files_only=True)
    if config.model_type not in SUPPORTED:
        raise ExportError(f"{ckpt}: a {config.model_type} model; GGUF export writes {', '.join(SUPPORTED)} only")
    try:
        reader = gguf.GGUFReader(source)
    except (OSError, ValueError) as e:
        raise ExportError(f"{source}: not a readable GGUF file: {e}") from e
    arch = str(reader.fields["general.architecture"].contents())
    if arch != config.model_type:
        raise ExportError(f"{source} is a {arch} model, {ckpt} a {config.model_type} one")
    model = AutoModelForCausalLM.from_pretrained(ckpt, local_files_only=True, dtype="float32")
    n_layers = config.num_hidden_layers
    n_head, n_kv = config.num_attention_heads, config.num_key_value_heads
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, n_layers)

    tmp = out.with_name(out.name + ".partial")
    writer = gguf.GGUFWriter(tmp, arch=arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in ("general.architecture", "general.file_type"):
            continue
        main = field.types[0]
        sub = field.types[-1] if main == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), main, sub)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_string(FINGERPRINT_KEY, weights_fingerprint(ckpt))

    tied = bool(getattr(config, "tie_word_embeddings", False))
    for hf_name, tensor in model.state_dict().items():
        if tied and hf_name == "lm_head.weight":
            continue  # llama.cpp reads the output layer from token_embd
        base, _, suffix = hf_name.rpartition(".")
        name = names.get_name(base)
        if name is None:
            raise ExportError(f"{ckpt}: no GGUF name for tensor {hf_name}")
        data = tensor.detach().cpu().numpy()
        if name.endswith("attn_q"):
            data = _permute(data, n_head)
        elif name.endswith("attn_k"):
            data = _permute(data, n_kv)
        data = data.astype(np.float32 if data.ndim == 1 else np.float16)
        writer.add_tensor(f"{name}.{suffix}", data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m svbench.train.gguf_export", description=__doc__.splitlines()[0])
    p.add_argument("ckpt", type=Path, help="the checkpoint directory")
    p.add_argument("source", type=Path, help="the GGUF file the model came from (its metadata is copied)")
    p.add_argument("out", type=Path, help="the GGUF file to write")
    args = p.parse_args(argv)
    try:
        export_gguf(args.ckpt, args.source, args.out)
    except (ExportError, CheckpointError) as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

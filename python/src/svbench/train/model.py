"""The policy to train: a small randomly initialised Llama-style causal LM
with a byte-level BPE tokenizer trained here on the environment's own text
(prompts and teacher answers), saved together as a checkpoint that
`svbench.train.serve` can serve. Nothing is downloaded.

With `[model] source = "pretrained"` the policy is a pretrained model
instead (`svbench.train.pretrained`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from svbench.train.checkpoint import METADATA_FILE, check_checkpoint
from svbench.train.config import ModelConfig

END = "<|end|>"
PAD = "<|pad|>"
ROLES = ("system", "user", "assistant", "tool")
SPECIAL_TOKENS = [PAD, END, *(f"<|{r}|>" for r in ROLES)]

#: Every message is `<|role|>content<|end|>`; a reply opens with `<|assistant|>`
#: and ends at `<|end|>` (the EOS token).
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def train_tokenizer(texts: Iterable[str], vocab_size: int, split_digits: bool = False) -> Any:
    """A byte-level BPE tokenizer (any text encodes; no unknown token);
    with `split_digits` every digit is its own token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if split_digits:
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    else:
        tok.pre_tokenizer = byte_level
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=END, pad_token=PAD)
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast


def new_model(cfg: ModelConfig, tokenizer: Any, seed: int) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=cfg.hidden_size,
        intermediate_size=cfg.intermediate_size,
        num_hidden_layers=cfg.layers,
        num_attention_heads=cfg.heads,
        num_key_value_heads=cfg.heads,
        max_position_embeddings=cfg.max_positions,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def parameter_count(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


def save_checkpoint(model: Any, tokenizer: Any, path: Path, metadata: dict) -> Path:
    """Save weights, tokenizer and `svbench_checkpoint.json`, then check the
    directory is servable. Written to a sibling and renamed, so a crash never
    leaves a half-written checkpoint under the final name."""
    import shutil

    tmp = path.with_name(path.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    (tmp / METADATA_FILE).write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    check_checkpoint(tmp)
    if path.exists():
        shutil.rmtree(path)
    tmp.rename(path)
    return path


def lora_config(rank: int) -> Any:
    """LoRA on every linear layer (alpha = 2·rank), for a large local checkpoint."""
    try:
        from peft import LoraConfig
    except ImportError as e:
        raise ImportError("model.lora_rank needs peft: pip install peft (or svbench[train])") from e
    return LoraConfig(r=rank, lora_alpha=2 * rank, target_modules="all-linear", task_type="CAUSAL_LM")


def with_lora(model: Any, rank: int) -> Any:
    """`model` with trainable LoRA adapters (rank 0: the model itself, fully trainable)."""
    if rank <= 0:
        return model
    from peft import get_peft_model

    return get_peft_model(model, lora_config(rank))


def merged(model: Any) -> Any:
    """Adapters folded into the weights, so the checkpoint is a plain model `serve` can load."""
    return model.merge_and_unload() if hasattr(model, "merge_and_unload") else model


def load_for_training(path: Path) -> tuple[Any, Any]:
    """Model (float32, train mode) and tokenizer of a checkpoint."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    check_checkpoint(path)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32)
    model.train()
    return model, tokenizer


__all__ = [
    "CHAT_TEMPLATE",
    "lora_config",
    "merged",
    "with_lora",
    "END",
    "SPECIAL_TOKENS",
    "load_for_training",
    "new_model",
    "parameter_count",
    "save_checkpoint",
    "train_tokenizer",
]

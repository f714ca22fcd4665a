"""Supervised fine-tuning on teacher answers: loss on the answer tokens
only (the prompt is context), AdamW, seeded shuffling. Used for the warm
start and for the distillation baseline (variant D)."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from svbench.train.config import ConfigError
from svbench.train.model import END
from svbench.train.teacher import TeacherRow

IGNORE = -100


def encode(tokenizer: Any, row: TeacherRow, max_positions: int) -> tuple[list[int], list[int]]:
    """Input ids and labels (prompt tokens masked) of one teacher row."""
    text = tokenizer.apply_chat_template(row.prompt, add_generation_prompt=True, tokenize=False)
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    answer = tokenizer(row.completion + END, add_special_tokens=False)["input_ids"]
    if len(prompt) + len(answer) > max_positions:
        raise ConfigError(
            f"row {row.example_id}: {len(prompt)} prompt + {len(answer)} answer tokens exceed the model's "
            f"{max_positions} positions (raise model.max_positions)"
        )
    return prompt + answer, [IGNORE] * len(prompt) + answer


def _batch(tokenizer: Any, items: list[tuple[list[int], list[int]]]) -> dict[str, Any]:
    import torch

    width = max(len(ids) for ids, _ in items)
    pad = tokenizer.pad_token_id
    ids = [a + [pad] * (width - len(a)) for a, _ in items]
    labels = [b + [IGNORE] * (width - len(b)) for _, b in items]
    mask = [[1] * len(a) + [0] * (width - len(a)) for a, _ in items]
    return {
        "input_ids": torch.tensor(ids),
        "labels": torch.tensor(labels),
        "attention_mask": torch.tensor(mask),
    }


def train_sft(
    model: Any,
    tokenizer: Any,
    rows: list[TeacherRow],
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    metrics_path: Path,
    phase: str = "sft",
    shuffle: bool = True,
) -> dict[str, Any]:
    """Train in place; one `metrics.jsonl` line per optimizer step. Returns
    `{"steps", "samples", "wall_s", "s_per_step", "final_loss"}`."""
    import torch

    max_positions = model.config.max_position_embeddings
    encoded = [encode(tokenizer, r, max_positions) for r in rows]
    generator = torch.Generator().manual_seed(seed)
    steps_per_epoch = math.ceil(len(encoded) / batch_size)
    total = steps_per_epoch * epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    warmup = max(1, total // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.1, 1 - (s - warmup) / max(1, total - warmup)))
    )
    model.train()
    step, loss_value, started = 0, float("nan"), time.monotonic()
    metrics_path.parent.mkdir(parents=True, exist_ok=True)
    with metrics_path.open("w", encoding="utf-8") as log:
        for _ in range(epochs):
            order = torch.randperm(len(encoded), generator=generator).tolist() if shuffle else range(len(encoded))
            order = list(order)
            for start in range(0, len(order), batch_size):
                batch = _batch(tokenizer, [encoded[i] for i in order[start : start + batch_size]])
                loss = model(**batch).loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                step += 1
                loss_value = loss.item()
                record = {"step": step, "loss": loss_value, "learning_rate": schedule.get_last_lr()[0], "phase": phase}
                log.write(json.dumps(record) + "\n")
                log.flush()
    wall = time.monotonic() - started
    model.eval()
    return {
        "steps": step,
        "samples": len(encoded) * epochs,
        "wall_s": round(wall, 2),
        "s_per_step": round(wall / max(1, step), 4),
        "final_loss": loss_value,
    }


__all__ = ["encode", "train_sft"]

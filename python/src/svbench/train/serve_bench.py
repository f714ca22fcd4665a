"""How fast a served checkpoint generates, per engine: the prompts of the
first N rows of an environment's test split, each answered greedily with
exactly `--max-tokens` new tokens (stop strings off, end of turn ignored
where the engine allows) so every engine does the same work, timed inside
the process (model loading excluded).

    python -m svbench.train.serve_bench CKPT --engine llama-cpp --rows 8 --max-tokens 64

Prints one JSON line: engine, rows, prompt and generated tokens, seconds and
generated tokens per second. Run the engines alternately several times and
quote medians: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

__all__ = ["main"]


def _prompts(env: str, rows: int) -> list[list[dict]]:
    from svbench import Env

    loaded = Env(env).load(split="test", max_examples=rows)["rows"]
    return [r["prompt"] for r in loaded]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m svbench.train.serve_bench", description=__doc__.splitlines()[0])
    p.add_argument("ckpt", type=Path, help="the checkpoint directory")
    p.add_argument("--engine", choices=("torch", "llama-cpp"), default="torch")
    p.add_argument("--gguf", type=Path, help="with --engine llama-cpp: the GGUF file (as for serve)")
    p.add_argument("--env", default="e1", help="whose test prompts (default e1)")
    p.add_argument("--rows", type=int, default=8, help="prompts (default 8)")
    p.add_argument("--max-tokens", type=int, default=64, help="new tokens per prompt (default 64)")
    p.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    args = p.parse_args(argv)

    from svbench.train.serve import ChatModel, parse_chat_request

    if args.engine == "llama-cpp":
        from svbench.train.llama_engine import LlamaCppChatModel

        model: ChatModel = LlamaCppChatModel(args.ckpt, "bench", 4096, gguf=args.gguf, threads=args.threads)
    else:
        import torch

        torch.set_num_threads(args.threads)
        model = ChatModel(args.ckpt, "bench", 4096)
    if args.engine == "torch":
        # Generate the whole budget: no end of turn (llama.cpp's is masked below).
        model.eos_ids = []
        model.model.generation_config.eos_token_id = None
    prompt_tokens = generated = 0
    seconds = 0.0
    for messages in _prompts(args.env, args.rows):
        body = {"model": "bench", "messages": messages, "max_tokens": args.max_tokens, "temperature": 0}
        req = parse_chat_request(body, "bench", 4096)
        prompt = model._prompt_text(req)
        started = time.perf_counter()
        out = _generate_exactly(model, prompt, req)
        seconds += time.perf_counter() - started
        prompt_tokens += out.prompt_tokens
        generated += out.completion_tokens
    print(
        json.dumps(
            {
                "engine": args.engine,
                "rows": args.rows,
                "prompt_tokens": prompt_tokens,
                "generated_tokens": generated,
                "seconds": round(seconds, 3),
                "generated_tokens_per_s": round(generated / seconds, 2) if seconds else None,
            }
        )
    )
    return 0


def _generate_exactly(model, prompt, req):
    """One generation of exactly `req.max_tokens` tokens."""
    if getattr(model, "engine", "torch") == "llama-cpp":
        from svbench.train.serve import Generated

        ids = model.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        model.llm.reset()  # no prefix cache between prompts: each prompt is processed in full
        # The end-of-generation token masked, so the whole budget is generated.
        out = model.llm.create_completion(
            ids,
            max_tokens=req.max_tokens,
            temperature=0,
            top_k=0,
            min_p=0.0,
            repeat_penalty=1.0,
            logit_bias={model.llm.token_eos(): -1e9},
        )
        return Generated(out["choices"][0]["text"], len(ids), int(out["usage"]["completion_tokens"]), "length")
    return model._generate(prompt, req)


if __name__ == "__main__":
    sys.exit(main())

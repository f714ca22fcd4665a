"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib
only, loopback only) for rollouts through verifiers' own client."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Maps a request body to the assistant message to answer with.
Script = Callable[[dict], dict]


class FakeOpenAI:
    """Serves ``POST /v1/chat/completions`` from a script; records bodies."""

    def __init__(self, script: Script):
        self.script = script
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                message = outer.script(body)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                if body.get("stream"):
                    self._stream(body, message, finish)
                    return
                payload = {
                    "id": f"chatcmpl-{len(outer.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "fake"),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, message: dict, finish: str) -> None:
                """The same reply as server-sent chunks (verifiers v1 relays streams)."""
                base = {
                    "id": f"chatcmpl-{len(outer.requests)}",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": body.get("model", "fake"),
                }
                delta: dict = {"role": "assistant", "content": message.get("content")}
                if message.get("tool_calls"):
                    delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
                chunks = [
                    {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                ]
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                    chunks.append({**base, "choices": [], "usage": usage})
                data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                raw = data.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

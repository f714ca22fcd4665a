"""Completions as the Rust scorer reads them: a string, or a list of plain
message dicts (role, content, tool_calls, tool_call_id).

Messages may be dicts (older verifiers, TRL) or attribute objects (current
verifiers' ``AssistantMessage`` with flat ``tool_calls`` ``{id, name,
arguments}``); tool calls may be flat or in the nested OpenAI ``function``
form. The Rust side normalises tool calls, so both forms score alike.
"""

from __future__ import annotations

import json
from typing import Any

_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content")
_CALL_FIELDS = ("id", "type", "name", "arguments", "function")


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _text(content: Any) -> Any:
    """Content parts (``[{"type": "text", "text": ...}]``) joined as text."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        chunks = []
        for part in content:
            if _field(part, "type") in (None, "text"):
                text = _field(part, "text")
                if isinstance(text, str):
                    chunks.append(text)
        return "".join(chunks)
    return str(content)


def _call(value: Any) -> Any:
    """A tool call as a plain dict; verifiers' saved outputs hold each call
    as JSON text."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return _plain(value)


def _plain(value: Any) -> Any:
    """A tool call's parts as plain JSON-able values."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _plain(dump())
    return {name: _plain(_field(value, name)) for name in _CALL_FIELDS if _field(value, name) is not None}


def to_message(message: Any) -> dict:
    """One message (dict or attribute object) as a plain dict."""
    out: dict[str, Any] = {}
    for name in _MESSAGE_FIELDS:
        value = _field(message, name)
        if value is None:
            continue
        if name == "content":
            value = _text(value)
        elif name == "tool_calls":
            value = [_call(call) for call in value]
        out[name] = value
    if "content" not in out:
        out["content"] = None
    return out


def to_completion(completion: Any) -> str | list[dict]:
    """A completion (string or message list) as the Rust scorer takes it."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict) or _field(completion, "role") is not None:
        return [to_message(completion)]
    if not isinstance(completion, (list, tuple)):
        raise TypeError(f"a completion is a string, a message or a list of messages, not {type(completion).__name__}")
    for i, m in enumerate(completion):
        if not isinstance(m, dict) and _field(m, "role") is None:
            raise TypeError(f"completion message {i} is a {type(m).__name__}, not a message with a `role`")
    return [to_message(m) for m in completion]

"""Tool calling for `svbench.train.serve`: OpenAI `tools` in, OpenAI
`tool_calls` out, for checkpoints whose chat template knows tools and for
those whose template does not.

The model writes a call as a JSON object between `<tool_call>` and
`</tool_call>` (the convention of Qwen's and Hermes' templates, which vLLM's
`hermes` parser reads too). A template that renders `tools` gets them as it
expects; for one that ignores them (SmolLM2's), the tool list and that
convention are written into the system message, earlier calls back into the
assistant turns, and tool results into user turns inside `<tool_response>`.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

__all__ = [
    "MAX_TOOLS",
    "PROBE_TOOL",
    "ToolError",
    "parse_tool_choice",
    "parse_tools",
    "prepare_messages",
    "split_tool_calls",
    "template_renders_tools",
]

#: Tools one request may offer (each is rendered into every prompt).
MAX_TOOLS = 32
OPEN, CLOSE = "<tool_call>", "</tool_call>"
_CALL = re.compile(re.escape(OPEN) + r"(.*?)(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL)

#: A tool the template probe renders, to see whether its name reaches the prompt.
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "svbench_probe_tool",
        "description": "Run the analyzers on the configuration.",
        "parameters": {"type": "object", "properties": {}},
    },
}


class ToolError(ValueError):
    """A `tools`, `tool_choice` or tool message the server cannot take."""


def parse_tools(tools: Any) -> list[dict] | None:
    """The request's `tools` (None when absent or empty), each a function
    with a name; anything else is a `ToolError`."""
    if tools is None or tools == []:
        return None
    if not isinstance(tools, list):
        raise ToolError("tools must be a list")
    if len(tools) > MAX_TOOLS:
        raise ToolError(f"at most {MAX_TOOLS} tools per request (got {len(tools)})")
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not (isinstance(tool, dict) and tool.get("type") == "function" and isinstance(fn, dict)):
            raise ToolError(f"tools[{i}] must be {{type: function, function: {{name, ...}}}}")
        if not isinstance(fn.get("name"), str) or not fn["name"]:
            raise ToolError(f"tools[{i}].function.name must be a non-empty string")
        params = fn.get("parameters")
        if params is not None and not isinstance(params, dict):
            raise ToolError(f"tools[{i}].function.parameters must be an object")
    return tools


def parse_tool_choice(choice: Any) -> None:
    """`auto` (the default) is what this server does; `none` is honoured by
    leaving calls in the text. Forcing a call is not supported."""
    if choice in (None, "auto", "none"):
        return
    raise ToolError("tool_choice must be auto or none here (a forced call is not supported)")


def template_renders_tools(tokenizer: Any) -> bool:
    """Whether the tokenizer's chat template puts a tool list into the prompt."""
    messages = [{"role": "user", "content": "Hello."}]
    try:
        plain = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        shown = tokenizer.apply_chat_template(messages, tools=[PROBE_TOOL], tokenize=False, add_generation_prompt=True)
    except Exception:
        return False
    return "svbench_probe_tool" in shown and shown != plain


def _call_text(call: dict) -> str:
    fn = call["function"]
    arguments = fn.get("arguments", "{}")
    try:
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        pass  # shown as the string the model wrote
    return OPEN + json.dumps({"name": fn["name"], "arguments": arguments}, ensure_ascii=False) + CLOSE


def _tools_section(tools: list[dict]) -> str:
    lines = [
        "# Tools",
        "",
        f"You may call these functions. To call one, reply with a JSON object between {OPEN} and {CLOSE}, for example:",
        f'{OPEN}{{"name": "<function name>", "arguments": {{<arguments as JSON>}}}}{CLOSE}',
        "A function's result comes back in the next user turn inside <tool_response>. "
        "When you are done calling functions, give your final answer without a tool call.",
        "",
        "Functions:",
    ]
    lines += [json.dumps(t["function"], ensure_ascii=False) for t in tools]
    return "\n".join(lines)


def prepare_messages(messages: list[dict], tools: list[dict] | None, native: bool) -> tuple[list[dict], Any]:
    """The messages (and `tools` argument) to give the chat template.

    `native`: the template renders tools, so calls become its
    `{type, function: {name, arguments: dict}}` entries and results stay
    `tool` messages. Otherwise everything is written as text in the turns the
    template knows."""
    if native:
        out = []
        for m in messages:
            if m.get("tool_calls"):
                calls = []
                for c in m["tool_calls"]:
                    args = c["function"].get("arguments", "{}")
                    try:
                        args = json.loads(args) if isinstance(args, str) else args
                    except json.JSONDecodeError:
                        pass
                    calls.append({"type": "function", "function": {"name": c["function"]["name"], "arguments": args}})
                out.append({"role": "assistant", "content": m.get("content") or "", "tool_calls": calls})
            else:
                out.append(m)
        return out, tools
    out = []
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "assistant" and m.get("tool_calls"):
            parts = ([content] if content else []) + [_call_text(c) for c in m["tool_calls"]]
            out.append({"role": "assistant", "content": "\n".join(parts)})
        elif role == "tool":
            out.append({"role": "user", "content": f"<tool_response>\n{content}\n</tool_response>"})
        else:
            out.append({"role": role, "content": content})
    if tools:
        section = _tools_section(tools)
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + section}
        else:
            out.insert(0, {"role": "system", "content": section})
    return out, None


def split_tool_calls(text: str) -> tuple[str | None, list[dict]]:
    """A reply's text and the tool calls it makes, in OpenAI's shape. A
    block that is not a JSON object with a string `name` makes no call: the
    whole reply then stays text, as the model wrote it."""
    calls = []
    for match in _CALL.finditer(text):
        try:
            call = json.loads(match.group(1).strip())
        except json.JSONDecodeError:
            return text, []
        if not (isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"]):
            return text, []
        arguments = call.get("arguments", {})
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(
            {
                "id": "call_" + secrets.token_hex(8),
                "type": "function",
                "function": {"name": call["name"], "arguments": arguments},
            }
        )
    if not calls:
        return text, []
    rest = _CALL.sub("", text).strip()
    return (rest or None), calls

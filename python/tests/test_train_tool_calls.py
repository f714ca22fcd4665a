"""svbench.train.tool_calls: how a served checkpoint is shown tools and how its
replies become OpenAI tool calls. Pure Python: no model is loaded."""

from __future__ import annotations

import json

import pytest

from svbench.train.tool_calls import (
    MAX_TOOLS,
    ToolError,
    parse_tool_choice,
    parse_tools,
    prepare_messages,
    split_tool_calls,
    template_renders_tools,
)

SCAN = {
    "type": "function",
    "function": {
        "name": "run_kubelinter",
        "description": "Run kube-linter.",
        "parameters": {"type": "object", "properties": {"paths": {"type": "array"}}},
    },
}


def test_one_call_becomes_an_openai_tool_call_and_the_rest_stays_text():
    content, calls = split_tool_calls(
        'Let me scan.\n<tool_call>{"name": "run_kubelinter", "arguments": {"paths": ["."]}}</tool_call>'
    )
    assert content == "Let me scan."
    assert len(calls) == 1
    call = calls[0]
    assert call["type"] == "function"
    assert call["id"].startswith("call_")
    assert call["function"]["name"] == "run_kubelinter"
    assert json.loads(call["function"]["arguments"]) == {"paths": ["."]}


def test_two_calls_an_unclosed_last_block_and_string_arguments():
    text = (
        '<tool_call>{"name": "run_opa", "arguments": "{\\"paths\\": []}"}</tool_call>\n'
        '<tool_call>{"name": "run_semgrep", "arguments": {}}'
    )
    content, calls = split_tool_calls(text)
    assert content is None
    assert [c["function"]["name"] for c in calls] == ["run_opa", "run_semgrep"]
    assert calls[0]["function"]["arguments"] == '{"paths": []}'
    assert calls[1]["function"]["arguments"] == "{}"
    assert calls[0]["id"] != calls[1]["id"]


@pytest.mark.parametrize(
    "text",
    [
        '{"violations": [], "patch": "", "confidence": 0.5}',
        "<tool_call>not json</tool_call>",
        '<tool_call>{"arguments": {}}</tool_call>',
        '<tool_call>["run_opa"]</tool_call>',
        '<tool_call>{"name": "run_opa"}</tool_call> and <tool_call>{"name": </tool_call>',
    ],
)
def test_a_reply_without_a_well_formed_call_stays_text(text):
    assert split_tool_calls(text) == (text, [])


def test_a_template_without_tools_gets_them_in_the_system_turn_and_calls_as_text():
    messages = [
        {"role": "system", "content": "Audit the file."},
        {"role": "user", "content": "manifest.yaml"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "run_kubelinter", "arguments": '{"paths": ["."]}'},
                }
            ],
        },
        {"role": "tool", "content": '{"findings": []}', "tool_call_id": "c1"},
    ]
    out, tools = prepare_messages(messages, [SCAN], native=False)
    assert tools is None
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].startswith("Audit the file.\n\n# Tools")
    assert '"name": "run_kubelinter"' in out[0]["content"]
    assert "<tool_call>" in out[0]["content"]
    assert out[2]["content"] == '<tool_call>{"name": "run_kubelinter", "arguments": {"paths": ["."]}}</tool_call>'
    assert out[3]["content"] == '<tool_response>\n{"findings": []}\n</tool_response>'
    # Every turn is plain text the simplest template can join.
    assert all(isinstance(m["content"], str) and set(m) == {"role", "content"} for m in out)
    # What the model is told to write is what the server reads back.
    _, calls = split_tool_calls(out[2]["content"])
    assert calls[0]["function"]["name"] == "run_kubelinter"


def test_without_a_system_turn_the_tools_get_one():
    out, _ = prepare_messages([{"role": "user", "content": "hi"}], [SCAN], native=False)
    assert out[0]["role"] == "system" and "# Tools" in out[0]["content"]
    assert out[1] == {"role": "user", "content": "hi"}


def test_a_template_with_tools_gets_them_and_calls_in_its_own_shape():
    messages = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "run_opa", "arguments": '{"paths": []}'}}
            ],
        },
        {"role": "tool", "content": "[]", "tool_call_id": "c"},
    ]
    out, tools = prepare_messages(messages, [SCAN], native=True)
    assert tools == [SCAN]
    assert out[1]["tool_calls"] == [{"type": "function", "function": {"name": "run_opa", "arguments": {"paths": []}}}]
    assert out[2] == messages[2]


@pytest.mark.parametrize(
    "tools, fragment",
    [
        ("run_opa", "must be a list"),
        ([{"type": "function"}], "tools[0] must be"),
        ([{"type": "retrieval", "function": {"name": "x"}}], "tools[0] must be"),
        ([{"type": "function", "function": {"name": ""}}], "name must be a non-empty string"),
        ([{"type": "function", "function": {"name": "x", "parameters": []}}], "parameters must be an object"),
        ([SCAN] * (MAX_TOOLS + 1), f"at most {MAX_TOOLS} tools"),
    ],
)
def test_malformed_tools_are_refused(tools, fragment):
    with pytest.raises(ToolError, match=None) as e:
        parse_tools(tools)
    assert fragment in str(e.value)


def test_tool_choice_auto_and_none_are_taken_a_forced_call_is_not():
    for choice in (None, "auto", "none"):
        parse_tool_choice(choice)
    for choice in ("required", {"type": "function", "function": {"name": "run_opa"}}):
        with pytest.raises(ToolError, match="forced call"):
            parse_tool_choice(choice)
    assert parse_tools(None) is None and parse_tools([]) is None


class _Template:
    """A tokenizer stand-in whose template shows tools or not."""

    def __init__(self, shows: bool, fails: bool = False):
        self.shows, self.fails = shows, fails

    def apply_chat_template(self, messages, tools=None, tokenize=False, add_generation_prompt=True):
        if tools and self.fails:
            raise ValueError("no tools here")
        text = "".join(m["content"] for m in messages)
        if tools and self.shows:
            text += json.dumps(tools)
        return text


def test_the_template_probe_tells_which_templates_render_tools():
    assert template_renders_tools(_Template(shows=True))
    assert not template_renders_tools(_Template(shows=False))
    assert not template_renders_tools(_Template(shows=True, fails=True))

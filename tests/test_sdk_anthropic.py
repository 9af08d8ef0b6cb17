"""Round trips between toolparse's models and the installed Anthropic SDK's types
(``pip install '.[anthropic]'``; skipped when the SDK is absent, run by ``.ci/run``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")

import toolparse  # noqa: E402
from anthropic.types import MessageParam, ToolParam, ToolUseBlock, ToolUseBlockParam  # noqa: E402
from helpers import sdk_valid  # noqa: E402
from toolparse import Message, Tool, ToolCall  # noqa: E402

WEATHER = Tool.from_function(
    "get_weather",
    "The weather in a city",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": None},
        },
        "required": ["city"],
    },
)
CALL = ToolCall.create("get_weather", {"city": "Zürich", "days": 3, "x": [1.5, None]}, id="toolu_1")
BLOCKS = {
    "text": anthropic.types.TextBlockParam,
    "tool_use": ToolUseBlockParam,
    "tool_result": anthropic.types.ToolResultBlockParam,
}


def valid_message_param(param: Any) -> None:
    """``param`` validates as the SDK's MessageParam, and each block as its block type."""
    assert sdk_valid(MessageParam, param) == param
    if isinstance(param["content"], list):
        for block in param["content"]:
            assert sdk_valid(BLOCKS[block["type"]], block) == block


# ------------------------------------------------------------------------------------------------
# ToolCall <-> tool_use
# ------------------------------------------------------------------------------------------------


def test_tool_call_round_trip():
    block = CALL.to_anthropic()
    assert isinstance(block, ToolUseBlock)
    assert (block.id, block.name) == ("toolu_1", "get_weather")
    assert block.input == {"city": "Zürich", "days": 3, "x": [1.5, None]}
    # ToolCall.create writes the arguments as json.dumps(ensure_ascii=False), as from_anthropic
    assert ToolCall.from_anthropic(block) == CALL
    param = CALL.to_anthropic(param=True)
    assert sdk_valid(ToolUseBlockParam, param) == param
    assert ToolCall.from_anthropic(param) == CALL


def test_model_written_arguments_keep_their_meaning():
    """Arguments the model wrote (other spacing, escapes) become an object and back: the same
    JSON value, not the same text."""
    text = '{"q":"\\u00e9","n":1.0e2,"nested":{"a":[]}}'
    call = ToolCall.create("search", text, id="c1")
    back = ToolCall.from_anthropic(call.to_anthropic())
    assert json.loads(back.function.arguments) == json.loads(text)
    assert back.function.arguments == '{"q": "é", "n": 100.0, "nested": {"a": []}}'


def test_empty_arguments_are_an_empty_input():
    call = ToolCall.create("ping", "", id="c1")
    assert call.to_anthropic().input == {}


@pytest.mark.parametrize("arguments", ["[1, 2]", "3", '"x"', "null"])
def test_non_object_arguments_are_refused(arguments):
    call = ToolCall.create("f", arguments, id="c1")
    with pytest.raises(ValueError, match=r"tool_call\.function\.arguments must be a JSON object"):
        call.to_anthropic()


@pytest.mark.parametrize(
    "bad,field",
    [
        ({"type": "tool_use", "id": "t", "name": "f", "input": [1]}, r"tool_use\.input must be an"),
        ({"type": "tool_use", "id": "t", "name": "f", "input": "{}"}, r"tool_use\.input must be"),
        ({"type": "tool_use", "id": "t", "name": 3, "input": {}}, r"tool_use\.name must be a str"),
        ({"type": "tool_use", "name": "f", "input": {}}, r"tool_use\.id is missing"),
        ({"type": "server_tool_use", "id": "t", "name": "web_search", "input": {}}, r"\.type"),
        (
            {"type": "tool_use", "id": "t", "name": "f", "input": {"x": float("nan")}},
            r"tool_use\.input is not JSON",
        ),
    ],
)
def test_tool_use_bad_input_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        ToolCall.from_anthropic(bad)


# ------------------------------------------------------------------------------------------------
# Tool <-> ToolParam
# ------------------------------------------------------------------------------------------------


def test_tool_round_trip():
    param = WEATHER.to_anthropic()
    assert sdk_valid(ToolParam, param) == param
    assert param["input_schema"]["properties"]["unit"]["default"] is None
    assert Tool.from_anthropic(param) == WEATHER
    strict = Tool.from_function("f", parameters={"type": "object", "properties": {}}, strict=True)
    assert Tool.from_anthropic(strict.to_anthropic()) == strict


def test_tool_without_parameters_gets_an_object_schema():
    param = Tool.from_function("ping").to_anthropic()
    assert param == {"name": "ping", "input_schema": {"type": "object"}}
    assert Tool.from_anthropic(param).function.parameters.model_dump(exclude_none=True) == {
        "type": "object"
    }


def test_tool_bad_input():
    with pytest.raises(ValueError, match=r"tool\.input_schema is missing"):
        Tool.from_anthropic({"name": "f"})
    with pytest.raises(ValueError, match=r"tool\.type"):
        Tool.from_anthropic({"type": "bash_20250124", "name": "bash"})
    with pytest.raises(ValueError, match=r"tool\.input_schema must be an object"):
        Tool.from_anthropic({"name": "f", "input_schema": "x"})


# ------------------------------------------------------------------------------------------------
# Message <-> MessageParam / Message response
# ------------------------------------------------------------------------------------------------

MESSAGES = [
    Message.user("Weather in Zürich?"),
    Message.assistant("It is sunny."),
    Message.assistant_with_tools([CALL]),
    Message.assistant_with_tools([CALL, ToolCall.create("get_time", {}, id="toolu_2")], "Let me."),
    Message.tool_result("toolu_1", '{"temp": 21}'),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.role)
def test_message_round_trip(message):
    param = message.to_anthropic()
    valid_message_param(param)
    assert Message.from_anthropic(param) == message
    assert Message.list_from_anthropic(param) == [message]


def test_tool_message_is_a_user_tool_result():
    assert Message.tool_result("toolu_1", "21").to_anthropic() == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21"}],
    }


def test_system_message():
    if hasattr(anthropic.types, "SystemMessageParam"):
        param = Message.system("Be brief.").to_anthropic()
        valid_message_param(param)
        assert Message.from_anthropic(param) == Message.system("Be brief.")
    else:
        with pytest.raises(ValueError, match="role"):
            Message.system("Be brief.").to_anthropic()


def test_response_message_with_metadata():
    response = anthropic.types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": CALL.to_anthropic().input,
                },
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    )
    got = Message.from_anthropic(response)
    assert got.content == "Checking." and got.tool_calls == [CALL]
    assert (got.finish_reason, got.model) == ("tool_calls", "claude-x")
    assert (got.prompt_tokens, got.completion_tokens, got.total_tokens) == (10, 5, 15)
    # and back to OpenAI's shape, through toolparse
    assert got.to_openai(param=True)["tool_calls"][0]["function"]["arguments"] == CALL.arguments


def test_several_tool_results_give_several_messages():
    param = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "1"},
            {
                "type": "tool_result",
                "tool_use_id": "b",
                "content": [{"type": "text", "text": "2"}],
                "is_error": True,
            },
            {"type": "text", "text": "Thanks"},
        ],
    }
    valid_message_param(param)
    assert Message.list_from_anthropic(param) == [
        Message.tool_result("a", "1"),
        Message.tool_result("b", "2"),
        Message.user("Thanks"),
    ]
    with pytest.raises(ValueError, match="list_from_anthropic"):
        Message.from_anthropic(param)


@pytest.mark.parametrize(
    "bad,field",
    [
        (
            {"role": "user", "content": [{"type": "image", "source": {}}]},
            r"message\.content\[0\]\.type",
        ),
        (
            {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x"}]},
            r"message\.content\[0\]\.type",
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": 3}],
            },
            r"message\.content\[0\]\.input must be an object",
        ),
        (
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "x",
                        "content": [{"type": "image", "source": {}}],
                    }
                ],
            },
            r"message\.content\[0\]\.content\[0\]\.type",
        ),
        ({"role": "user", "content": 5}, r"message\.content must be"),
        ({"role": "bot", "content": "x"}, r"message\.role"),
        (
            {"role": "user", "content": [{"type": "text", "text": 1}]},
            r"message\.content\[0\]\.text",
        ),
    ],
)
def test_message_bad_input_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        Message.from_anthropic(bad)


def test_parsed_calls_convert_to_tool_use_blocks():
    """What a parser extracted goes straight into an Anthropic conversation."""
    parser = toolparse.get_parser("hermes")
    info = parser.extract_tool_calls(
        'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>'
    )
    message = Message.assistant_with_tools(info.tool_calls, info.content)
    param = message.to_anthropic()
    valid_message_param(param)
    assert param["content"][0] == {"type": "text", "text": "Sure. "}
    assert param["content"][1]["input"] == {"city": "Zürich"}

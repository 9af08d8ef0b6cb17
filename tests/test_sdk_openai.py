"""Round trips between toolparse's models and the installed OpenAI SDK's types
(``pip install '.[openai]'``; skipped when the SDK is absent, run by ``.ci/run``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")

import corpus  # noqa: E402
import toolparse  # noqa: E402
from helpers import sdk_valid  # noqa: E402
from openai.types.chat import (  # noqa: E402
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChatCompletionMessageParam,
    ChatCompletionMessageToolCallParam,
    ChatCompletionToolParam,
)
from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall  # noqa: E402
from toolparse import DeltaMessage, DeltaToolCall, Message, Tool, ToolCall  # noqa: E402

BACKENDS = ("rust", "python")

WEATHER = Tool.from_function(
    "get_weather",
    "The weather in a city",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": None},
            "days": {"type": ["integer", "null"], "minimum": 1},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
    strict=True,
)
CALL = ToolCall.create("get_weather", {"city": "Zürich", "days": 3}, id="call_abc123")


def function_tool_call_class() -> Any:
    chat = openai.types.chat
    return getattr(
        chat, "ChatCompletionMessageFunctionToolCall", chat.ChatCompletionMessageToolCall
    )


# ------------------------------------------------------------------------------------------------
# ToolCall
# ------------------------------------------------------------------------------------------------


def test_tool_call_round_trip():
    sdk = CALL.to_openai()
    assert isinstance(sdk, function_tool_call_class())
    assert sdk.id == "call_abc123" and sdk.type == "function"
    assert sdk.function.name == "get_weather"
    assert sdk.function.arguments == CALL.function.arguments  # the JSON text, unchanged
    assert ToolCall.from_openai(sdk) == CALL
    param = CALL.to_openai(param=True)
    assert sdk_valid(ChatCompletionMessageToolCallParam, param) == param
    assert ToolCall.from_openai(param) == CALL


def test_tool_call_arguments_pass_through_unchanged():
    text = '{"a": 1.50, "b": "\\u00e9"}'  # numbers and escapes as the model wrote them
    call = ToolCall.create("f", text, id="x")
    assert ToolCall.from_openai(call.to_openai()).function.arguments == text
    assert call.to_openai().function.arguments == text


def test_tool_call_from_a_parsed_completion():
    """The SDK's response: tool_calls are the function/custom union in newer SDKs."""
    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [CALL.to_openai(param=True)],
                    },
                }
            ],
        }
    )
    message = completion.choices[0].message
    got = Message.from_openai(message)
    assert got == Message.assistant_with_tools([CALL])
    assert ToolCall.from_openai(message.tool_calls[0]) == CALL


def test_custom_tool_call_is_refused():
    custom = {"id": "c1", "type": "custom", "custom": {"name": "grep", "input": "x"}}
    with pytest.raises(ValueError, match=r"tool_call\.type"):
        ToolCall.from_openai(custom)
    chat = openai.types.chat
    if hasattr(chat, "ChatCompletionMessageCustomToolCall"):
        with pytest.raises(ValueError, match="custom"):
            ToolCall.from_openai(chat.ChatCompletionMessageCustomToolCall.model_validate(custom))


@pytest.mark.parametrize(
    "bad,field",
    [
        (
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": "[1]"}},
            r"tool_call\.function\.arguments must be a JSON object",
        ),
        (
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{"}},
            r"tool_call\.function\.arguments is not valid JSON",
        ),
        (
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}},
            r"tool_call\.function\.arguments must be a string",
        ),
        (
            {"id": 5, "type": "function", "function": {"name": "f", "arguments": "{}"}},
            r"tool_call\.id must be a string",
        ),
        (
            {"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            r"tool_call\.id must be a non-empty",
        ),
        ({"id": "x", "type": "function"}, r"tool_call\.function is missing"),
        ({"id": "x", "function": "f"}, r"tool_call\.function must be an object"),
        ({"id": "x", "function": {"name": " ", "arguments": "{}"}}, r"tool_call\.function\.name"),
    ],
)
def test_tool_call_bad_input_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        ToolCall.from_openai(bad)


def test_not_a_mapping_is_a_type_error():
    with pytest.raises(TypeError, match="tool_call must be a mapping"):
        ToolCall.from_openai(42)


# ------------------------------------------------------------------------------------------------
# Tool
# ------------------------------------------------------------------------------------------------


def test_tool_round_trip():
    param = WEATHER.to_openai()
    assert sdk_valid(ChatCompletionToolParam, param) == param
    assert param["function"]["parameters"]["properties"]["unit"]["default"] is None
    assert Tool.from_openai(param) == WEATHER
    bare = Tool.from_function("ping")
    assert Tool.from_openai(bare.to_openai()) == bare


def test_tool_from_the_sdk_model():
    chat = openai.types.chat
    if not hasattr(chat, "ChatCompletionFunctionTool"):
        pytest.skip("this SDK has no ChatCompletionFunctionTool model")
    model = chat.ChatCompletionFunctionTool.model_validate(WEATHER.to_openai())
    assert Tool.from_openai(model) == WEATHER


def test_tool_bad_input():
    with pytest.raises(ValueError, match=r"tool\.type"):
        Tool.from_openai({"type": "custom", "custom": {"name": "x"}})
    with pytest.raises(ValueError, match=r"tool\.function\.parameters must be"):
        Tool.from_openai({"type": "function", "function": {"name": "f", "parameters": "x"}})
    with pytest.raises(ValueError, match=r"tool\.function\.name is missing"):
        Tool.from_openai({"type": "function", "function": {}})


# ------------------------------------------------------------------------------------------------
# Message
# ------------------------------------------------------------------------------------------------

MESSAGES = [
    Message.system("Be brief."),
    Message.user("Weather in Zürich?"),
    Message(role="user", content="hi", name="alice"),
    Message.assistant("It is sunny."),
    Message.assistant_with_tools([CALL]),
    Message.assistant_with_tools([CALL, ToolCall.create("get_time", {}, id="call_2")], "Checking."),
    Message.tool_result("call_abc123", '{"temp": 21}'),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.role)
def test_message_round_trip(message):
    param = message.to_openai(param=True)
    assert sdk_valid(ChatCompletionMessageParam, param) == param
    assert Message.from_openai(param) == message
    sdk = message.to_openai()
    if message.role == "assistant":
        assert isinstance(sdk, ChatCompletionMessage)
        assert Message.from_openai(sdk) == message
        assert Message.from_openai(sdk.model_dump()) == message
    else:
        assert sdk == param


def test_message_metadata_is_not_sent():
    m = Message(role="assistant", content="x", finish_reason="stop", model="m", prompt_tokens=3)
    assert m.to_openai(param=True) == {"role": "assistant", "content": "x"}


def test_message_content_parts_and_developer_role():
    got = Message.from_openai(
        {
            "role": "developer",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        }
    )
    assert got == Message.system("ab")
    refusal = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "refusal": "I can't."}
    )
    assert Message.from_openai(refusal) == Message.assistant("I can't.")


@pytest.mark.parametrize(
    "bad,field",
    [
        (
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "image_url", "image_url": {"url": "u"}},
                ],
            },
            r"message\.content\[1\]\.type",
        ),
        ({"role": "function", "name": "f", "content": "x"}, r"message\.role"),
        ({"role": "user", "content": 3}, r"message\.content must be"),
        ({"role": "tool", "content": "x"}, r"message\.tool_call_id is missing"),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "3"}}],
            },
            r"message\.tool_calls\[0\]\.function\.arguments must be a JSON object",
        ),
        ({"role": "assistant", "tool_calls": "x"}, r"message\.tool_calls must be a list"),
        ({"content": "x"}, r"message\.role is missing"),
    ],
)
def test_message_bad_input_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        Message.from_openai(bad)


# ------------------------------------------------------------------------------------------------
# Streaming deltas
# ------------------------------------------------------------------------------------------------


def chunk_of(delta: ChoiceDelta) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta.model_dump(exclude_none=True)}],
        }
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder", "pythonic", "openai"])
def test_stream_deltas_round_trip(fmt, backend):
    case = corpus.composite_case(fmt)
    parser = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
    stream = parser.stream()
    deltas = [stream.feed(case.text[i : i + 7]) for i in range(0, len(case.text), 7)]
    deltas.append(stream.finish())
    rec = toolparse.StreamingToolReconstructor()
    for d in deltas:
        if d is None:
            continue
        sdk = d.to_openai()
        assert isinstance(sdk, ChoiceDelta)
        back = DeltaMessage.from_openai(sdk)
        assert back == d
        # through a whole chunk and its JSON, as a client receives it
        wire = chunk_of(sdk).model_dump_json()
        again = ChatCompletionChunk.model_validate_json(wire).choices[0].delta
        assert DeltaMessage.from_openai(again) == d
        rec.append_delta(back)
    info = parser.extract_tool_calls(case.text)
    got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    assert got == [(c.function.name, c.function.arguments) for c in info.tool_calls]


def test_delta_reasoning_and_role():
    d = DeltaMessage(role="assistant", reasoning="hmm", content="x")
    sdk = d.to_openai()
    assert sdk.role == "assistant" and sdk.content == "x"
    assert sdk.model_dump()["reasoning"] == "hmm"
    assert DeltaMessage.from_openai(sdk) == d
    # DeepSeek's / older vLLM's field name
    assert DeltaMessage.from_openai({"reasoning_content": "r"}) == DeltaMessage(reasoning="r")


def test_delta_tool_call_round_trip():
    first = DeltaToolCall(index=1, id="call_1", type="function", function={"name": "f"})
    more = DeltaToolCall(index=1, function={"arguments": '{"a": '})
    for call in (first, more):
        sdk = call.to_openai()
        assert isinstance(sdk, ChoiceDeltaToolCall)
        assert DeltaToolCall.from_openai(sdk) == call
    with pytest.raises(ValueError, match=r"tool_call\.index must be >= 0"):
        DeltaToolCall.from_openai({"index": -1})
    with pytest.raises(ValueError, match=r"delta\.tool_calls\[0\]\.index must be an integer"):
        DeltaMessage.from_openai({"tool_calls": [{"index": "0"}]})


def test_events_tool_calls_convert():
    """The calls of a ToolCallsEvent are ToolCalls: they convert like any other."""
    parser = toolparse.get_parser("hermes")
    text = '<tool_call>{"name": "f", "arguments": {"q": "é"}}</tool_call>'
    (event,) = [e for e in toolparse.events(parser, [text]) if e.type == "tool_calls"]
    sdk = event.tool_calls[0].to_openai()
    assert json.loads(sdk.function.arguments) == {"q": "é"}

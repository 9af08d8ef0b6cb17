"""Tests for toolparse.models: OpenAI wire format, validation and round trips of messages, tool
calls, tools and tool results (the streaming models: test_models_streaming.py)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from toolparse.models import (
    FunctionCall,
    Message,
    Tool,
    ToolCall,
    ToolError,
    ToolFunction,
    ToolParameters,
    ToolProperty,
    ToolResult,
    generate_tool_call_id,
)

ID_RE = re.compile(r"^chatcmpl-tool-[0-9a-f]{32}$")


def error_text(exc_info: pytest.ExceptionInfo[ValidationError]) -> str:
    return str(exc_info.value)


# ==================================================================================================
# strategies
# ==================================================================================================

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)
names = st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != "")
texts = st.text(max_size=40)


@st.composite
def tool_calls(draw: st.DrawFn) -> ToolCall:
    return ToolCall.create(
        draw(names), draw(json_objects), id=draw(st.none() | st.text(min_size=1, max_size=30))
    )


@st.composite
def messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    meta: Dict[str, Any] = {}
    if draw(st.booleans()):
        meta = {
            "finish_reason": draw(
                st.none()
                | st.sampled_from(
                    ["stop", "length", "tool_calls", "content_filter", "function_call"]
                )
            ),
            "model": draw(st.none() | st.text(max_size=10)),
            "created": draw(st.none() | st.integers(min_value=0, max_value=2**40)),
            "prompt_tokens": draw(st.none() | st.integers(min_value=0, max_value=10**6)),
            "completion_tokens": draw(st.none() | st.integers(min_value=0, max_value=10**6)),
            "total_tokens": draw(st.none() | st.integers(min_value=0, max_value=10**6)),
            "temperature": draw(st.none() | st.floats(min_value=0, max_value=2)),
            "top_p": draw(st.none() | st.floats(min_value=0, max_value=1)),
            "max_tokens": draw(st.none() | st.integers(min_value=0, max_value=10**6)),
            "seed": draw(st.none() | st.integers(min_value=-(2**62), max_value=2**62)),
            "stream": draw(st.none() | st.booleans()),
        }
    name = draw(st.none() | st.text(min_size=1, max_size=10))
    if role == "assistant":
        calls = draw(st.none() | st.lists(tool_calls(), min_size=1, max_size=3))
        content = draw(texts if calls is None else st.none() | texts)
        return Message(role="assistant", content=content, tool_calls=calls, name=name, **meta)
    if role == "tool":
        return Message(
            role="tool",
            content=draw(texts),
            tool_call_id=draw(st.text(min_size=1, max_size=20)),
            name=name,
            **meta,
        )
    return Message(role=role, content=draw(texts), name=name, **meta)


# ==================================================================================================
# Message
# ==================================================================================================


class TestMessageConstructors:
    def test_system(self) -> None:
        m = Message.system("You are a helpful assistant")
        assert m.role == "system"
        assert m.content == "You are a helpful assistant"
        assert m.tool_calls is None

    def test_user(self) -> None:
        m = Message.user("Hello")
        assert (m.role, m.content) == ("user", "Hello")

    def test_assistant(self) -> None:
        m = Message.assistant("Hi there!")
        assert (m.role, m.content) == ("assistant", "Hi there!")

    def test_assistant_with_tools(self) -> None:
        call = ToolCall.create("read_file", {"path": "a.txt"}, id="call_1")
        m = Message.assistant_with_tools([call])
        assert m.role == "assistant"
        assert m.content is None
        assert m.tool_calls == [call]

    def test_assistant_with_tools_accepts_dicts_and_content(self) -> None:
        m = Message.assistant_with_tools(
            [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            content="Let me check.",
        )
        assert m.content == "Let me check."
        assert m.tool_calls is not None and isinstance(m.tool_calls[0], ToolCall)
        assert m.tool_calls[0].function.name == "f"

    def test_tool_result(self) -> None:
        m = Message.tool_result("call_1", "file contents", name="read_file")
        assert (m.role, m.content, m.tool_call_id, m.name) == (
            "tool",
            "file contents",
            "call_1",
            "read_file",
        )


class TestMessageWireFormat:
    def test_assistant_exact_dict_and_json(self) -> None:
        m = Message.assistant("Test")
        assert m.model_dump(exclude_none=True) == {"role": "assistant", "content": "Test"}
        assert m.model_dump_json(exclude_none=True) == '{"role":"assistant","content":"Test"}'

    def test_user_json(self) -> None:
        assert (
            Message.user("Test message").model_dump_json(exclude_none=True)
            == '{"role":"user","content":"Test message"}'
        )

    def test_assistant_with_tools_exact(self) -> None:
        call = ToolCall.create("get_weather", {"city": "Tokyo"}, id="call_abc")
        assert Message.assistant_with_tools([call]).model_dump(exclude_none=True) == {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_abc",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
                }
            ],
        }

    def test_tool_result_exact(self) -> None:
        assert Message.tool_result("call_abc", "22C", name="get_weather").model_dump(
            exclude_none=True
        ) == {"role": "tool", "content": "22C", "tool_call_id": "call_abc", "name": "get_weather"}

    def test_metadata_absent_when_unset(self) -> None:
        dumped = Message.user("hi").model_dump(exclude_none=True)
        assert set(dumped) == {"role", "content"}

    def test_metadata_present_when_set(self) -> None:
        m = Message(
            role="assistant",
            content="ok",
            finish_reason="stop",
            model="m1",
            created=1700000000,
            prompt_tokens=3,
            completion_tokens=2,
            total_tokens=5,
            temperature=0.7,
            top_p=0.9,
            max_tokens=100,
            seed=42,
            stream=False,
        )
        dumped = m.model_dump(exclude_none=True)
        assert dumped["finish_reason"] == "stop"
        assert dumped["total_tokens"] == 5
        assert dumped["temperature"] == 0.7
        assert dumped["stream"] is False

    def test_decoding_openai_json(self) -> None:
        m = Message.model_validate_json('{"role": "assistant", "content": "Hello!"}')
        assert m == Message.assistant("Hello!")

    def test_decoding_openai_tool_call_message(self) -> None:
        raw = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a": [1, 2]}'},
                }
            ],
        }
        m = Message.model_validate(raw)
        assert m.tool_calls is not None
        assert m.tool_calls[0].parse_arguments() == {"a": [1, 2]}
        assert m.model_dump(exclude_none=True) == {k: v for k, v in raw.items() if v is not None}


class TestMessageValidation:
    def test_bad_role(self) -> None:
        with pytest.raises(ValidationError) as exc:
            Message(role="robot", content="hi")  # type: ignore[arg-type]
        assert "role" in error_text(exc)
        assert "'system', 'user', 'assistant' or 'tool'" in error_text(exc)

    def test_missing_role(self) -> None:
        with pytest.raises(ValidationError, match="role"):
            Message(content="hi")  # type: ignore[call-arg]

    def test_role_is_fixed(self) -> None:
        m = Message.user("hi")
        with pytest.raises(ValidationError, match="frozen"):
            m.role = "assistant"  # type: ignore[misc]
        assert m.role == "user"

    def test_other_fields_assignable_and_validated(self) -> None:
        m = Message.user("hi")
        m.content = "changed"
        m.temperature = 1.5
        assert (m.content, m.temperature) == ("changed", 1.5)
        with pytest.raises(ValidationError, match="temperature"):
            m.temperature = 7
        assert m.temperature == 1.5

    def test_failed_assignment_leaves_message_unchanged(self) -> None:
        m = Message.user("hi")
        before = m.model_dump()
        with pytest.raises(ValidationError, match="needs content"):
            m.content = None
        assert m.content == "hi"
        assert m.model_dump() == before
        assert m.model_fields_set == {"role", "content"}

    def test_assigning_tool_calls_to_user_is_rejected(self) -> None:
        m = Message.user("hi")
        with pytest.raises(ValidationError, match="only allowed on assistant"):
            m.tool_calls = [ToolCall.create("f", {})]
        assert m.tool_calls is None

    def test_tool_message_needs_tool_call_id(self) -> None:
        with pytest.raises(ValidationError, match="tool_call_id"):
            Message(role="tool", content="x")
        with pytest.raises(ValidationError, match="tool_call_id"):
            Message(role="tool", content="x", tool_call_id="")

    def test_tool_calls_only_on_assistant(self) -> None:
        call = ToolCall.create("f", {})
        for role in ("system", "user"):
            with pytest.raises(ValidationError, match="only allowed on assistant"):
                Message(role=role, content="x", tool_calls=[call])  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="only allowed on assistant"):
            Message(role="tool", content="x", tool_call_id="c", tool_calls=[call])

    def test_tool_calls_not_empty(self) -> None:
        with pytest.raises(ValidationError, match="empty list"):
            Message.assistant_with_tools([])

    def test_tool_call_id_only_on_tool(self) -> None:
        with pytest.raises(ValidationError, match="only allowed on tool messages"):
            Message(role="user", content="x", tool_call_id="c")

    def test_content_required(self) -> None:
        for role in ("system", "user"):
            with pytest.raises(ValidationError, match="needs content"):
                Message(role=role)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="needs content or tool_calls"):
            Message(role="assistant")

    def test_empty_content_is_allowed(self) -> None:
        assert Message.user("").model_dump(exclude_none=True) == {"role": "user", "content": ""}

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("prompt_tokens", -1),
            ("completion_tokens", -1),
            ("total_tokens", -5),
            ("created", -1),
            ("temperature", 2.5),
            ("temperature", -0.1),
            ("top_p", 1.5),
            ("max_tokens", -1),
            ("finish_reason", "done"),
        ],
    )
    def test_bad_metadata(self, field: str, value: Any) -> None:
        with pytest.raises(ValidationError) as exc:
            Message(role="assistant", content="x", **{field: value})
        assert field in error_text(exc)


class TestMessageRoundTrip:
    @given(messages())
    @settings(max_examples=150, deadline=None)
    def test_json_round_trip(self, m: Message) -> None:
        text = m.model_dump_json(exclude_none=True)
        back = Message.model_validate_json(text)
        assert back == m
        assert back.model_dump_json(exclude_none=True) == text
        # also through the stdlib json module (what an HTTP client does)
        assert Message.model_validate(json.loads(text)) == m

    @given(messages())
    @settings(max_examples=50, deadline=None)
    def test_dump_has_no_none(self, m: Message) -> None:
        def walk(value: Any) -> None:
            if isinstance(value, dict):
                for v in value.values():
                    assert v is not None
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        walk(m.model_dump(exclude_none=True))


# ==================================================================================================
# ToolCall / FunctionCall
# ==================================================================================================


class TestToolCall:
    def test_exact_wire_format(self) -> None:
        call = ToolCall(id="call_123", function=FunctionCall(name="read_file", arguments="{}"))
        assert call.model_dump(exclude_none=True) == {
            "id": "call_123",
            "type": "function",
            "function": {"name": "read_file", "arguments": "{}"},
        }
        assert call.model_dump_json(exclude_none=True) == (
            '{"id":"call_123","type":"function","function":{"name":"read_file","arguments":"{}"}}'
        )

    def test_create_from_dict(self) -> None:
        call = ToolCall.create("search", {"q": "東京 🎉", "n": 3})
        assert call.function.arguments == '{"q": "東京 🎉", "n": 3}'
        assert ID_RE.match(call.id)
        assert call.type == "function"

    def test_create_from_string_keeps_text(self) -> None:
        text = '{"b":1,  "a": 2.50}'
        call = ToolCall.create("f", text, id="x")
        assert call.function.arguments == text
        assert call.id == "x"

    def test_create_rejects_invalid_json_string(self) -> None:
        with pytest.raises(ValidationError, match="JSON"):
            ToolCall.create("f", '{"a": ')

    def test_create_rejects_nan(self) -> None:
        with pytest.raises(ValueError, match="JSON compliant"):
            ToolCall.create("f", {"x": math.nan})

    def test_generated_ids_are_unique(self) -> None:
        ids = {ToolCall.create("f").id for _ in range(200)} | {generate_tool_call_id()}
        assert len(ids) == 201
        assert all(ID_RE.match(i) for i in ids)

    def test_shortcuts(self) -> None:
        call = ToolCall.create("f", {"a": 1}, id="c")
        assert call.name == "f"
        assert call.arguments == '{"a": 1}'
        assert call.parse_arguments() == {"a": 1}

    def test_type_must_be_function(self) -> None:
        with pytest.raises(ValidationError, match="'function'"):
            ToolCall.model_validate(
                {"id": "c", "type": "code", "function": {"name": "f", "arguments": "{}"}}
            )

    def test_empty_id_rejected(self) -> None:
        with pytest.raises(ValidationError, match="id"):
            ToolCall(id="", function=FunctionCall(name="f", arguments="{}"))

    @given(st.text(min_size=1, max_size=20), json_objects)
    @settings(max_examples=100, deadline=None)
    def test_arguments_round_trip(self, name: str, args: Dict[str, Any]) -> None:
        if not name.strip():
            return
        call = ToolCall.create(name, args)
        assert call.parse_arguments() == args
        assert ToolCall.model_validate_json(call.model_dump_json()) == call


class TestFunctionCall:
    @pytest.mark.parametrize("name", ["", " ", "\n\t"])
    def test_empty_name(self, name: str) -> None:
        with pytest.raises(ValidationError) as exc:
            FunctionCall(name=name, arguments="{}")
        assert "function name must be a non-empty string" in error_text(exc)

    @pytest.mark.parametrize("arguments", ["{", "{'a': 1}", "nope", "NaN", '{"a": Infinity}', " "])
    def test_arguments_not_json(self, arguments: str) -> None:
        with pytest.raises(ValidationError) as exc:
            FunctionCall(name="f", arguments=arguments)
        assert "arguments must be JSON text" in error_text(exc)

    @pytest.mark.parametrize("arguments", ["", "{}", '{"a": [1, {"b": null}]}', "[1]", "3", '"s"'])
    def test_arguments_json_accepted(self, arguments: str) -> None:
        assert FunctionCall(name="f", arguments=arguments).arguments == arguments

    def test_trusted_context_skips_json_check(self) -> None:
        data = {"name": "f", "arguments": "{not json"}
        fc = FunctionCall.model_validate(data, context={"trusted": True})
        assert fc.arguments == "{not json"
        with pytest.raises(ValidationError):
            FunctionCall.model_validate(data, context={"trusted": False})
        with pytest.raises(ValidationError):
            FunctionCall.model_validate(data)

    def test_trusted_context_reaches_nested_function(self) -> None:
        raw = {"id": "c", "function": {"name": "f", "arguments": "{partial"}}
        assert ToolCall.model_validate(raw, context={"trusted": True}).function.arguments == (
            "{partial"
        )
        with pytest.raises(ValidationError):
            ToolCall.model_validate(raw)

    def test_trusted_context_still_checks_name(self) -> None:
        with pytest.raises(ValidationError, match="non-empty"):
            FunctionCall.model_validate({"name": "", "arguments": "{}"}, context={"trusted": True})

    def test_parse_arguments_empty_string(self) -> None:
        assert FunctionCall(name="f", arguments="").parse_arguments() == {}

    def test_parse_arguments_non_object(self) -> None:
        with pytest.raises(ValueError, match="must be a JSON object, got list"):
            FunctionCall(name="f", arguments="[1, 2]").parse_arguments()

    def test_parse_arguments_invalid_trusted_text(self) -> None:
        fc = FunctionCall.model_validate(
            {"name": "f", "arguments": "{x"}, context={"trusted": True}
        )
        with pytest.raises(ValueError, match="not valid JSON"):
            fc.parse_arguments()

    def test_parse_arguments_into_model(self) -> None:
        class ReadFileArgs(BaseModel):
            path: str
            limit: Optional[int] = None

        call = ToolCall.create("read_file", {"path": "test.txt"})
        args = call.parse_arguments(ReadFileArgs)
        assert isinstance(args, ReadFileArgs)
        assert args.path == "test.txt"
        with pytest.raises(ValidationError, match="path"):
            ToolCall.create("read_file", {"limit": 1}).parse_arguments(ReadFileArgs)


# ==================================================================================================
# Tool definitions
# ==================================================================================================

WEATHER_TOOL: Dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "type": {"type": ["string", "null"], "default": None},
                "tags": {"type": "array", "items": {"type": "string"}},
                "where": {
                    "type": "object",
                    "properties": {
                        "lat": {"type": "number"},
                        "lon": {"type": "number"},
                        "deep": {
                            "type": "object",
                            "properties": {"x": {"const": None}},
                            "required": ["x"],
                        },
                    },
                    "required": ["lat", "lon"],
                    "additionalProperties": False,
                },
                "choice": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
                "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "anything": {"type": "array", "items": True},
            },
            "required": ["city"],
            "additionalProperties": False,
            "$defs": {"A": {"type": "object", "properties": {"k": {"type": "string"}}}},
        },
        "strict": True,
    },
}


class TestTool:
    def test_openai_dict_round_trips_unchanged(self) -> None:
        tool = Tool.model_validate(WEATHER_TOOL)
        assert tool.model_dump(exclude_none=True) == WEATHER_TOOL
        assert json.loads(tool.model_dump_json(exclude_none=True)) == WEATHER_TOOL

    def test_typed_access(self) -> None:
        tool = Tool.model_validate(WEATHER_TOOL)
        params = tool.function.parameters
        assert params is not None
        assert tool.name == "get_weather"
        assert params.required == ["city"]
        assert params.properties["unit"].enum == ["celsius", "fahrenheit"]
        assert params.properties["type"].type == ["string", "null"]
        where = params.properties["where"]
        assert where.properties is not None and where.properties["lat"].type == "number"
        tags_items = params.properties["tags"].items
        assert isinstance(tags_items, ToolProperty) and tags_items.type == "string"

    def test_from_function(self) -> None:
        tool = Tool.from_function(
            "read_file",
            "Read a file",
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        )
        assert tool.model_dump(exclude_none=True) == {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        }

    def test_from_function_minimal(self) -> None:
        tool = Tool.from_function("ping")
        assert tool.model_dump(exclude_none=True) == {
            "type": "function",
            "function": {"name": "ping"},
        }

    def test_parameters_defaults_read_empty_but_are_not_dumped(self) -> None:
        params = ToolParameters.model_validate({"type": "object"})
        assert params.properties == {} and params.required == []
        assert params.model_dump(exclude_none=True) == {"type": "object"}
        explicit = ToolParameters(properties={}, required=[])
        assert explicit.model_dump(exclude_none=True) == {
            "type": "object",
            "properties": {},
            "required": [],
        }

    def test_parameters_must_be_object(self) -> None:
        with pytest.raises(ValidationError, match="'object'"):
            ToolParameters.model_validate({"type": "array"})

    @pytest.mark.parametrize("name", ["", "   "])
    def test_empty_tool_name(self, name: str) -> None:
        with pytest.raises(ValidationError, match="tool name must be a non-empty string"):
            Tool.from_function(name)

    def test_tool_type_must_be_function(self) -> None:
        with pytest.raises(ValidationError):
            Tool.model_validate({"type": "retrieval", "function": {"name": "f"}})

    def test_explicit_exclude_of_extra_none_is_respected(self) -> None:
        prop = ToolProperty.model_validate({"type": "string", "default": None})
        assert prop.model_dump(exclude_none=True) == {"type": "string", "default": None}
        assert prop.model_dump(exclude_none=True, exclude={"default"}) == {"type": "string"}

    def test_tool_function_direct(self) -> None:
        fn = ToolFunction(name="f", parameters=ToolParameters(properties={"a": ToolProperty()}))
        assert Tool(function=fn).model_dump(exclude_none=True) == {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {}}}},
        }


schema_leaves = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])},
    optional={
        "description": st.text(max_size=10),
        "enum": st.lists(json_scalars, max_size=3),
        "default": json_scalars,
        "$ref": st.just("#/$defs/X"),
        "format": st.sampled_from(["date", "uri"]),
    },
)
schemas = st.recursive(
    schema_leaves,
    lambda children: (
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.text(max_size=6), children),
            },
            optional={
                "required": st.lists(st.text(max_size=6), max_size=3),
                "anyOf": st.lists(children),
            },
        )
        | st.fixed_dictionaries({"type": st.just("array"), "items": children})
    ),
    max_leaves=8,
)


@given(st.dictionaries(st.text(max_size=6), schemas, max_size=4), st.booleans())
@settings(max_examples=150, deadline=None)
def test_random_schemas_round_trip(properties: Dict[str, Any], with_required: bool) -> None:
    parameters: Dict[str, Any] = {"type": "object", "properties": properties}
    if with_required:
        parameters["required"] = sorted(properties)[:1]
    raw = {"type": "function", "function": {"name": "f", "parameters": parameters}}
    tool = Tool.model_validate(raw)
    assert tool.model_dump(exclude_none=True) == raw
    assert Tool.model_validate_json(tool.model_dump_json(exclude_none=True)) == tool


# ==================================================================================================
# ToolResult
# ==================================================================================================


class TestToolResult:
    def test_success(self) -> None:
        r = ToolResult.success("File contents here", tool_call_id="c1", duration_ms=1.5)
        assert r.is_success and r.ok
        assert r.output == "File contents here"
        assert r.error is None
        assert (r.tool_call_id, r.duration_ms, r.retries) == ("c1", 1.5, 0)

    def test_failure(self) -> None:
        r = ToolResult.failure("not_found", "File not found", {"path": "a"}, retries=2)
        assert not r.is_success and not r.ok
        assert r.output is None and r.data is None
        assert r.error == ToolError(
            code="not_found", message="File not found", details={"path": "a"}
        )
        assert r.retries == 2

    def test_both_rejected(self) -> None:
        with pytest.raises(ValidationError) as exc:
            ToolResult(output="x", error=ToolError(code="e", message="m"))
        assert "never both" in error_text(exc)
        with pytest.raises(ValidationError, match="never both"):
            ToolResult.model_validate({"data": {"a": 1}, "error": {"code": "e", "message": "m"}})

    def test_empty_success_is_allowed(self) -> None:
        r = ToolResult.success()
        assert r.is_success
        assert r.to_message("c").content == ""

    def test_empty_error_code_rejected(self) -> None:
        with pytest.raises(ValidationError, match="error code must be a non-empty string"):
            ToolResult.failure("", "boom")

    @pytest.mark.parametrize(("field", "value"), [("duration_ms", -1.0), ("retries", -1)])
    def test_bad_metadata(self, field: str, value: Any) -> None:
        with pytest.raises(ValidationError, match=field):
            ToolResult.success("x", **{field: value})

    def test_to_message_output(self) -> None:
        msg = ToolResult.success("42").to_message("call_1")
        assert msg.model_dump(exclude_none=True) == {
            "role": "tool",
            "content": "42",
            "tool_call_id": "call_1",
        }

    def test_to_message_data_as_json(self) -> None:
        msg = ToolResult.success(data={"temp": 21.5, "city": "東京"}).to_message("c")
        assert msg.content == '{"temp": 21.5, "city": "東京"}'

    def test_to_message_data_non_json_native(self) -> None:
        class Point(BaseModel):
            x: int

        msg = ToolResult.success(data={"p": Point(x=1)}).to_message("c")
        assert json.loads(msg.content or "") == {"p": {"x": 1}}

    def test_to_message_error_as_json(self) -> None:
        msg = ToolResult.failure("timeout", "took too long").to_message("c", name="slow")
        assert json.loads(msg.content or "") == {
            "error": {"code": "timeout", "message": "took too long"}
        }
        assert msg.name == "slow"

    def test_to_message_uses_own_tool_call_id(self) -> None:
        assert ToolResult.success("x", tool_call_id="own").to_message().tool_call_id == "own"
        assert ToolResult.success("x", tool_call_id="own").to_message("given").tool_call_id == (
            "given"
        )
        with pytest.raises(ValueError, match="tool_call_id"):
            ToolResult.success("x").to_message()

    @given(
        st.one_of(
            st.builds(ToolResult.success, st.none() | texts, st.none() | json_values),
            st.builds(
                ToolResult.failure,
                names,
                texts,
                st.none() | json_objects,
                retries=st.integers(min_value=0, max_value=5),
            ),
        )
    )
    @settings(max_examples=100, deadline=None)
    def test_json_round_trip(self, result: ToolResult) -> None:
        assert ToolResult.model_validate_json(result.model_dump_json()) == result
        assert ToolResult.model_validate_json(result.model_dump_json(exclude_none=True)) == result

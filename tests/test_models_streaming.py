"""Tests for toolparse.models' streaming and result models: ExtractedToolCallInformation, the
delta models, their fast constructors, and the stream events."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any, Dict, List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from test_models import names, texts, tool_calls
from toolparse.models import FunctionCall, Message, ToolCall
from toolparse.models.events import (
    DoneEvent,
    ErrorEvent,
    ReasoningDeltaEvent,
    TextDeltaEvent,
    ToolCallsEvent,
    Usage,
    parse_stream_event,
)
from toolparse.models.parsing import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
)

# ==================================================================================================
# ExtractedToolCallInformation
# ==================================================================================================


class TestExtracted:
    def test_valid(self) -> None:
        call = ToolCall.create("f", {})
        info = ExtractedToolCallInformation(tools_called=True, tool_calls=[call], content=None)
        assert info.tool_calls == [call]
        none = ExtractedToolCallInformation(tools_called=False, content="hello")
        assert none.tool_calls == [] and none.content == "hello"

    def test_tools_called_without_calls(self) -> None:
        with pytest.raises(ValidationError, match="tools_called must be True exactly when"):
            ExtractedToolCallInformation(tools_called=True, tool_calls=[])

    def test_calls_without_tools_called(self) -> None:
        with pytest.raises(ValidationError, match="tools_called must be True exactly when"):
            ExtractedToolCallInformation(tools_called=False, tool_calls=[ToolCall.create("f")])

    def test_default_list_not_shared(self) -> None:
        a = ExtractedToolCallInformation(tools_called=False)
        b = ExtractedToolCallInformation(tools_called=False)
        assert a.tool_calls is not b.tool_calls


# ==================================================================================================
# Streaming deltas
# ==================================================================================================


class TestDeltas:
    def test_content_delta_dump(self) -> None:
        d = DeltaMessage(content="x")
        assert d.model_dump(exclude_none=True) == {"content": "x"}
        assert d.model_dump_json(exclude_none=True) == '{"content":"x"}'
        assert "tool_calls" not in d.model_dump()

    def test_tool_calls_dumped_when_present(self) -> None:
        d = DeltaMessage(
            tool_calls=[
                DeltaToolCall(
                    index=0,
                    id="c1",
                    type="function",
                    function=DeltaFunctionCall(name="f", arguments=""),
                )
            ]
        )
        assert d.model_dump(exclude_none=True) == {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            ]
        }

    def test_argument_delta_dump(self) -> None:
        d = DeltaMessage(
            tool_calls=[DeltaToolCall(index=1, function=DeltaFunctionCall(arguments='{"a"'))]
        )
        assert d.model_dump(exclude_none=True) == {
            "tool_calls": [{"index": 1, "function": {"arguments": '{"a"'}}]
        }
        assert d.model_dump(exclude_unset=True) == d.model_dump(exclude_none=True)

    def test_negative_index(self) -> None:
        with pytest.raises(ValidationError, match="greater than or equal to 0"):
            DeltaToolCall(index=-1)

    def test_bad_type(self) -> None:
        with pytest.raises(ValidationError, match="'function'"):
            DeltaToolCall(index=0, type="tool")  # type: ignore[arg-type]

    def test_default_tool_calls_not_shared(self) -> None:
        assert DeltaMessage().tool_calls is not DeltaMessage().tool_calls
        assert DeltaMessage._fast("a").tool_calls is not DeltaMessage._fast("b").tool_calls

    def test_reasoning(self) -> None:
        assert DeltaMessage(reasoning="hmm").model_dump(exclude_none=True) == {"reasoning": "hmm"}


def _same(fast: BaseModel, validated: BaseModel) -> None:
    assert type(fast) is type(validated)
    assert fast == validated
    assert validated == fast
    assert repr(fast) == repr(validated)
    assert fast.model_fields_set == validated.model_fields_set
    for kwargs in ({}, {"exclude_none": True}, {"exclude_unset": True}, {"mode": "json"}):
        assert fast.model_dump(**kwargs) == validated.model_dump(**kwargs)
    assert fast.model_dump_json(exclude_none=True) == validated.model_dump_json(exclude_none=True)
    assert fast.model_copy() == validated
    assert fast.model_copy(deep=True) == validated
    assert copy.deepcopy(fast) == validated
    assert pickle.loads(pickle.dumps(fast)) == validated
    assert type(fast).model_validate(fast.model_dump()) == validated
    assert fast.__pydantic_extra__ is None and fast.__pydantic_private__ is None


FAST_CASES = [
    pytest.param(
        lambda: DeltaFunctionCall._fast(None, "abcd"),
        lambda: DeltaFunctionCall(arguments="abcd"),
        id="dfc-args",
    ),
    pytest.param(
        lambda: DeltaFunctionCall._fast("f", None),
        lambda: DeltaFunctionCall(name="f"),
        id="dfc-name",
    ),
    pytest.param(
        lambda: DeltaFunctionCall._fast("f", ""),
        lambda: DeltaFunctionCall(name="f", arguments=""),
        id="dfc-both",
    ),
    pytest.param(lambda: DeltaFunctionCall._fast(), DeltaFunctionCall, id="dfc-empty"),
    pytest.param(
        lambda: DeltaToolCall._fast(0, "c1", "function", DeltaFunctionCall._fast("f", "{")),
        lambda: DeltaToolCall(
            index=0, id="c1", type="function", function=DeltaFunctionCall(name="f", arguments="{")
        ),
        id="dtc-start",
    ),
    pytest.param(
        lambda: DeltaToolCall._fast(2, None, None, DeltaFunctionCall._fast(None, "}")),
        lambda: DeltaToolCall(index=2, function=DeltaFunctionCall(arguments="}")),
        id="dtc-args",
    ),
    pytest.param(lambda: DeltaToolCall._fast(0), lambda: DeltaToolCall(index=0), id="dtc-bare"),
    pytest.param(
        lambda: DeltaToolCall._fast(0, "c", None, None),
        lambda: DeltaToolCall(index=0, id="c"),
        id="dtc-id-only",
    ),
    pytest.param(
        lambda: DeltaMessage._fast("abcd", None, None),
        lambda: DeltaMessage(content="abcd"),
        id="dm-content",
    ),
    pytest.param(
        lambda: DeltaMessage._fast("abcd", None, []),
        lambda: DeltaMessage(content="abcd"),
        id="dm-content-empty-list",
    ),
    pytest.param(
        lambda: DeltaMessage._fast(None, "why", None),
        lambda: DeltaMessage(reasoning="why"),
        id="dm-reasoning",
    ),
    pytest.param(
        lambda: DeltaMessage._fast("a", "b", None),
        lambda: DeltaMessage(content="a", reasoning="b"),
        id="dm-content-reasoning",
    ),
    pytest.param(DeltaMessage._fast, DeltaMessage, id="dm-empty"),
    pytest.param(
        lambda: DeltaMessage._fast(
            None, None, [DeltaToolCall._fast(0, None, None, DeltaFunctionCall._fast(None, "abcd"))]
        ),
        lambda: DeltaMessage(
            tool_calls=[DeltaToolCall(index=0, function=DeltaFunctionCall(arguments="abcd"))]
        ),
        id="dm-nested-args",
    ),
    pytest.param(
        lambda: DeltaMessage._fast_tool_args(0, "abcd"),
        lambda: DeltaMessage(
            tool_calls=[DeltaToolCall(index=0, function=DeltaFunctionCall(arguments="abcd"))]
        ),
        id="dm-fast-tool-args",
    ),
    pytest.param(
        lambda: DeltaMessage._fast(
            "pre",
            "think",
            [
                DeltaToolCall._fast(0, None, None, DeltaFunctionCall._fast(None, "}")),
                DeltaToolCall._fast(1, "c2", "function", DeltaFunctionCall._fast("g", "{")),
            ],
        ),
        lambda: DeltaMessage(
            content="pre",
            reasoning="think",
            tool_calls=[
                DeltaToolCall(index=0, function=DeltaFunctionCall(arguments="}")),
                DeltaToolCall(
                    index=1,
                    id="c2",
                    type="function",
                    function=DeltaFunctionCall(name="g", arguments="{"),
                ),
            ],
        ),
        id="dm-everything",
    ),
    pytest.param(
        lambda: FunctionCall._fast("f", '{"a": 1}'),
        lambda: FunctionCall(name="f", arguments='{"a": 1}'),
        id="fc",
    ),
    pytest.param(
        lambda: ToolCall._fast("c1", FunctionCall._fast("f", "{}")),
        lambda: ToolCall(id="c1", function=FunctionCall(name="f", arguments="{}")),
        id="tc",
    ),
]


@pytest.mark.parametrize(("fast", "validated"), FAST_CASES)
def test_fast_constructor_equals_validated(fast: Any, validated: Any) -> None:
    _same(fast(), validated())


@given(
    st.none() | texts,
    st.none() | texts,
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=9),
            st.none() | st.text(min_size=1, max_size=8),
            st.none() | st.just("function"),
            st.none() | st.tuples(st.none() | names, st.none() | texts),
        ),
        max_size=3,
    ),
)
@settings(max_examples=150, deadline=None)
def test_fast_constructors_equal_validated_random(
    content: Optional[str], reasoning: Optional[str], calls: List[Any]
) -> None:
    fast_calls = [
        DeltaToolCall._fast(i, cid, typ, None if fn is None else DeltaFunctionCall._fast(*fn))
        for i, cid, typ, fn in calls
    ]
    kwargs: Dict[str, Any] = {}
    if content is not None:
        kwargs["content"] = content
    if reasoning is not None:
        kwargs["reasoning"] = reasoning
    validated_calls = []
    for i, cid, typ, fn in calls:
        call_kwargs: Dict[str, Any] = {"index": i}
        if cid is not None:
            call_kwargs["id"] = cid
        if typ is not None:
            call_kwargs["type"] = typ
        if fn is not None:
            fn_kwargs = {k: v for k, v in zip(("name", "arguments"), fn) if v is not None}
            call_kwargs["function"] = DeltaFunctionCall(**fn_kwargs)
        validated_calls.append(DeltaToolCall(**call_kwargs))
    if validated_calls:
        kwargs["tool_calls"] = validated_calls
    _same(DeltaMessage._fast(content, reasoning, fast_calls or None), DeltaMessage(**kwargs))


def test_fast_instances_are_mutable_like_validated_ones() -> None:
    fast = DeltaMessage._fast("a", None, None)
    fast.reasoning = "r"
    assert fast.model_fields_set == {"content", "reasoning"}
    assert fast == DeltaMessage(content="a", reasoning="r")
    call = ToolCall._fast("c", FunctionCall._fast("f", "{}"))
    call.id = "d"
    assert call.model_dump(exclude_unset=True)["id"] == "d"


def test_fast_instances_validate_as_instances() -> None:
    # a fast instance nested in a validated model is accepted like a validated one
    info = ExtractedToolCallInformation(
        tools_called=True, tool_calls=[ToolCall._fast("c", FunctionCall._fast("f", "{}"))]
    )
    assert info.tool_calls[0] == ToolCall(id="c", function=FunctionCall(name="f", arguments="{}"))
    assert Message.assistant_with_tools(info.tool_calls).model_dump(exclude_none=True)[
        "tool_calls"
    ] == [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]


# ==================================================================================================
# Stream events
# ==================================================================================================


class TestStreamEvents:
    @pytest.mark.parametrize(
        ("line", "cls"),
        [
            ('{"type": "text_delta", "text": "Hello"}', TextDeltaEvent),
            ('{"type": "reasoning_delta", "text": "hmm"}', ReasoningDeltaEvent),
            ('{"type": "done", "finish_reason": "stop"}', DoneEvent),
            ('{"type": "error", "message": "Connection timeout", "code": "timeout"}', ErrorEvent),
            (
                '{"type": "tool_calls", "tool_calls": [{"id": "c", "type": "function", '
                '"function": {"name": "f", "arguments": "{}"}}]}',
                ToolCallsEvent,
            ),
        ],
    )
    def test_parse_each_type(self, line: str, cls: type) -> None:
        for form in (line, line.encode(), json.loads(line)):
            event = parse_stream_event(form)
            assert type(event) is cls
            assert event.model_dump(exclude_none=True) == json.loads(line)

    def test_unknown_type(self) -> None:
        with pytest.raises(ValidationError, match="does not match any of the expected tags"):
            parse_stream_event('{"type": "commands", "commands": []}')

    def test_missing_type(self) -> None:
        with pytest.raises(ValidationError, match="Unable to extract tag"):
            parse_stream_event({"text": "x"})

    def test_invalid_json(self) -> None:
        with pytest.raises(ValidationError, match="Invalid JSON"):
            parse_stream_event('{"type": "text_delta", ')

    def test_bad_fields(self) -> None:
        with pytest.raises(ValidationError, match="text"):
            parse_stream_event('{"type": "text_delta"}')
        with pytest.raises(ValidationError, match="tool_calls"):
            parse_stream_event('{"type": "tool_calls", "tool_calls": []}')
        with pytest.raises(ValidationError, match="arguments must be JSON"):
            parse_stream_event(
                {
                    "type": "tool_calls",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{"}}],
                }
            )

    def test_events_dump_their_type(self) -> None:
        assert TextDeltaEvent(text="hi").model_dump_json() == '{"type":"text_delta","text":"hi"}'
        assert DoneEvent().model_dump(exclude_none=True) == {"type": "done"}
        assert ErrorEvent(message="boom").model_dump(exclude_none=True) == {
            "type": "error",
            "message": "boom",
        }

    def test_done_usage(self) -> None:
        event = parse_stream_event(
            {
                "type": "done",
                "finish_reason": "tool_calls",
                "usage": {"prompt_tokens": 3, "completion_tokens": 4},
            }
        )
        assert isinstance(event, DoneEvent)
        assert event.usage == Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7)
        assert Usage(prompt_tokens=1, completion_tokens=1, total_tokens=5).total_tokens == 5
        with pytest.raises(ValidationError, match="prompt_tokens"):
            Usage(prompt_tokens=-1)

    @given(
        st.one_of(
            st.builds(TextDeltaEvent, text=texts),
            st.builds(ReasoningDeltaEvent, text=texts),
            st.builds(ToolCallsEvent, tool_calls=st.lists(tool_calls(), min_size=1, max_size=3)),
            st.builds(
                DoneEvent,
                finish_reason=st.none() | texts,
                usage=st.none()
                | st.builds(
                    Usage,
                    prompt_tokens=st.integers(min_value=0, max_value=1000),
                    completion_tokens=st.integers(min_value=0, max_value=1000),
                ),
            ),
            st.builds(ErrorEvent, message=texts, code=st.none() | texts),
        )
    )
    @settings(max_examples=100, deadline=None)
    def test_ndjson_round_trip(self, event: BaseModel) -> None:
        line = event.model_dump_json(exclude_none=True)
        assert "\n" not in line
        assert parse_stream_event(line) == event

"""Tests for toolparse.reconstruct.StreamingToolReconstructor and its protocol checks."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolparse.models import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from toolparse.reconstruct import StreamingProtocolError, StreamingToolReconstructor


def start(index: int, id: str, name: str, arguments: Optional[str] = None) -> DeltaMessage:
    return DeltaMessage(
        tool_calls=[
            DeltaToolCall(
                index=index,
                id=id,
                type="function",
                function=DeltaFunctionCall(name=name, arguments=arguments),
            )
        ]
    )


def args(index: int, fragment: str) -> DeltaMessage:
    return DeltaMessage(
        tool_calls=[DeltaToolCall(index=index, function=DeltaFunctionCall(arguments=fragment))]
    )


def fragment(index: int, fn: Optional[Dict[str, str]] = None, **fields: Any) -> DeltaToolCall:
    """A tool-call fragment: ``fn`` the fields of its function (None: no function)."""
    if fn is not None:
        fields["function"] = DeltaFunctionCall(**fn)
    return DeltaToolCall(index=index, **fields)


def delta(*fragments: DeltaToolCall, **fields: Any) -> DeltaMessage:
    return DeltaMessage(tool_calls=list(fragments), **fields)


def snapshot(rec: StreamingToolReconstructor) -> Tuple[Any, ...]:
    return (rec.tool_calls, rec.other_content, rec.reasoning, rec.deltas_seen)


# ==================================================================================================
# accumulation
# ==================================================================================================


class TestAccumulation:
    def test_empty(self) -> None:
        rec = StreamingToolReconstructor()
        assert rec.tool_calls == []
        assert rec.other_content == ""
        assert rec.reasoning == ""

    def test_content_reasoning_and_two_calls(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(DeltaMessage(reasoning="think "))
        rec.append_delta(DeltaMessage(reasoning="more", content="Let me "))
        rec.append_delta(DeltaMessage(content="check."))
        rec.append_delta(start(0, "call_a", "get_weather"))
        rec.append_delta(args(0, '{"city": '))
        rec.append_delta(args(0, '"Tokyo"}'))
        rec.append_delta(start(1, "call_b", "get_time", '{"tz": "Asia/Tokyo"}'))
        assert rec.reasoning == "think more"
        assert rec.other_content == "Let me check."
        assert rec.tool_calls == [
            ToolCall(
                id="call_a",
                function=FunctionCall(name="get_weather", arguments='{"city": "Tokyo"}'),
            ),
            ToolCall(
                id="call_b",
                function=FunctionCall(name="get_time", arguments='{"tz": "Asia/Tokyo"}'),
            ),
        ]
        assert rec.deltas_seen == 7

    def test_first_delta_may_carry_everything(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(start(0, "c", "f", '{"a": 1}'))
        assert rec.tool_calls[0].function.arguments == '{"a": 1}'

    def test_arguments_empty_string_stays_empty(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(start(0, "c", "refresh", ""))
        rec.append_delta(start(1, "d", "ping"))
        assert [c.function.arguments for c in rec.tool_calls] == ["", ""]

    def test_several_calls_in_one_delta(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(
            delta(
                fragment(0, {"name": "f", "arguments": "{"}, id="a", type="function"),
                fragment(0, {"arguments": "}"}),
                fragment(1, {"name": "g", "arguments": "{}"}, id="b", type="function"),
                content="x",
            )
        )
        assert [(c.id, c.function.name, c.function.arguments) for c in rec.tool_calls] == [
            ("a", "f", "{}"),
            ("b", "g", "{}"),
        ]
        assert rec.other_content == "x"

    def test_fast_deltas_are_accepted(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(
            DeltaMessage._fast(
                "hi",
                None,
                [DeltaToolCall._fast(0, "c", "function", DeltaFunctionCall._fast("f", "{"))],
            )
        )
        rec.append_delta(DeltaMessage._fast_tool_args(0, "}"))
        assert rec.tool_calls == [ToolCall.create("f", "{}", id="c")]

    def test_dict_deltas_are_validated(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta({"content": "a"})
        rec.append_delta(
            {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "f"}}]}
        )
        assert rec.other_content == "a"
        assert rec.tool_calls[0].function.name == "f"

    def test_not_a_delta(self) -> None:
        with pytest.raises(TypeError, match="expected a DeltaMessage"):
            StreamingToolReconstructor().append_delta("text")  # type: ignore[arg-type]

    def test_role_only_delta_is_accepted(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(DeltaMessage(role="assistant"))
        assert rec.deltas_seen == 1 and rec.other_content == ""

    def test_append_deltas_skips_none(self) -> None:
        rec = StreamingToolReconstructor().append_deltas(
            [None, DeltaMessage(content="a"), None, DeltaMessage(content="b")]
        )
        assert rec.other_content == "ab"
        assert rec.deltas_seen == 2

    def test_interleaving_allowed_by_default(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(start(0, "a", "f", "{"))
        rec.append_delta(start(1, "b", "g", "{}"))
        rec.append_delta(args(0, "}"))
        assert [c.function.arguments for c in rec.tool_calls] == ["{}", "{}"]

    def test_to_extracted(self) -> None:
        rec = StreamingToolReconstructor()
        assert rec.to_extracted() == ExtractedToolCallInformation(tools_called=False, content=None)
        rec.append_delta(DeltaMessage(content="pre"))
        rec.append_delta(start(0, "c", "f", "{}"))
        assert rec.to_extracted() == ExtractedToolCallInformation(
            tools_called=True, tool_calls=[ToolCall.create("f", "{}", id="c")], content="pre"
        )

    def test_tool_calls_property_returns_fresh_objects(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(start(0, "c", "f", "{"))
        first = rec.tool_calls
        rec.append_delta(args(0, "}"))
        assert first[0].function.arguments == "{"
        assert rec.tool_calls[0].function.arguments == "{}"

    def test_repr(self) -> None:
        rec = StreamingToolReconstructor()
        rec.append_delta(DeltaMessage(content="abc"))
        assert "content_chars=3" in repr(rec)


# ==================================================================================================
# protocol violations
# ==================================================================================================


def started() -> StreamingToolReconstructor:
    rec = StreamingToolReconstructor()
    rec.append_delta(DeltaMessage(content="before"))
    rec.append_delta(start(0, "call_0", "f", '{"a"'))
    return rec


FN = "function"
VIOLATIONS: List[Any] = [
    # (name, deltas applied to a reconstructor that already started call 0, expected message)
    pytest.param(DeltaMessage(), "carries nothing", id="empty-delta"),
    pytest.param(DeltaMessage(content=""), "carries nothing", id="empty-content"),
    pytest.param(
        DeltaMessage(content="", reasoning="", tool_calls=[]), "carries nothing", id="all-empty"
    ),
    # first delta of a new call
    pytest.param(delta(fragment(1, {"name": "g"}, type=FN)), "has no id", id="new-without-id"),
    pytest.param(
        delta(fragment(1, {"name": "g"}, id="", type=FN)), "has no id", id="new-with-empty-id"
    ),
    pytest.param(
        delta(fragment(1, {"name": "g"}, id="c1")), "type='function'", id="new-without-type"
    ),
    pytest.param(
        delta(fragment(1, id="c1", type=FN)), "has no function name", id="new-without-function"
    ),
    pytest.param(
        delta(fragment(1, {"arguments": "{}"}, id="c1", type=FN)),
        "has no function name",
        id="new-without-name",
    ),
    pytest.param(
        delta(fragment(1, {"name": ""}, id="c1", type=FN)),
        "has no function name",
        id="new-with-empty-name",
    ),
    # later deltas of a started call
    pytest.param(
        delta(fragment(0, {"arguments": "}"}, id="call_0")),
        "already has an id",
        id="second-id-same",
    ),
    pytest.param(
        delta(fragment(0, {"arguments": "}"}, id="other")),
        "already has an id",
        id="second-id-different",
    ),
    pytest.param(
        delta(fragment(0, {"arguments": "}"}, type=FN)), "type='function' again", id="second-type"
    ),
    pytest.param(
        delta(fragment(0, {"name": "f", "arguments": "}"})), "a name again", id="second-name"
    ),
    pytest.param(delta(fragment(0, {"name": ""})), "a name again", id="second-empty-name"),
    pytest.param(delta(fragment(0)), "carries nothing", id="continuation-without-function"),
    pytest.param(delta(fragment(0, {})), "carries nothing", id="continuation-without-arguments"),
    pytest.param(
        delta(fragment(0, {"arguments": ""})),
        "carries nothing",
        id="continuation-with-empty-arguments",
    ),
    # indices
    pytest.param(start(2, "c2", "g"), "skips ahead", id="index-skips"),
    pytest.param(start(5, "c5", "g"), "next new call must have index 1", id="index-jumps"),
    pytest.param(
        DeltaMessage._fast(
            None, None, [DeltaToolCall._fast(-1, None, None, DeltaFunctionCall._fast(None, "x"))]
        ),
        "non-negative integer",
        id="negative-index-unvalidated",
    ),
    # ids
    pytest.param(
        start(1, "call_0", "g"), "reuses the id 'call_0' of tool call 0", id="duplicate-id"
    ),
    pytest.param(
        delta(
            fragment(1, {"name": "g"}, id="dup", type=FN),
            fragment(2, {"name": "h"}, id="dup", type=FN),
        ),
        "reuses the id 'dup' of tool call 1",
        id="duplicate-id-same-delta",
    ),
    # a good fragment followed by a bad one in the same delta
    pytest.param(
        delta(
            fragment(0, {"arguments": "}"}),
            fragment(2, {"name": "g"}, id="x", type=FN),
            content="text",
        ),
        "fragment 1: tool call index 2 skips ahead",
        id="bad-after-good",
    ),
]


@pytest.mark.parametrize(("delta", "message"), VIOLATIONS)
def test_violation(delta: DeltaMessage, message: str) -> None:
    rec = started()
    before = snapshot(rec)
    with pytest.raises(StreamingProtocolError) as exc:
        rec.append_delta(delta)
    assert message in str(exc.value)
    assert "delta #2" in str(exc.value)
    # the offending delta is not applied
    assert snapshot(rec) == before
    # and the reconstructor keeps working
    rec.append_delta(args(0, "}"))
    assert rec.tool_calls[0].function.arguments == '{"a"}'


def test_protocol_error_is_value_error() -> None:
    assert issubclass(StreamingProtocolError, ValueError)
    with pytest.raises(ValueError):
        StreamingToolReconstructor().append_delta(DeltaMessage())


@pytest.mark.parametrize("first_index", [1, 2])
def test_indices_start_at_zero(first_index: int) -> None:
    with pytest.raises(StreamingProtocolError, match="next new call must have index 0"):
        StreamingToolReconstructor().append_delta(start(first_index, "c", "f"))


def test_arguments_before_any_call() -> None:
    # index 0 with no call started: it is a first delta, so it needs id, type and name
    with pytest.raises(StreamingProtocolError, match="has no id"):
        StreamingToolReconstructor().append_delta(args(0, "{}"))


def test_duplicate_id_across_deltas_far_apart() -> None:
    rec = StreamingToolReconstructor()
    rec.append_delta(start(0, "a", "f", "{}"))
    rec.append_delta(start(1, "b", "g", "{}"))
    with pytest.raises(StreamingProtocolError, match="reuses the id 'a' of tool call 0"):
        rec.append_delta(start(2, "a", "h", "{}"))


def test_strict_order() -> None:
    rec = StreamingToolReconstructor(strict_order=True)
    rec.append_delta(start(0, "a", "f", "{"))
    rec.append_delta(args(0, "}"))
    rec.append_delta(start(1, "b", "g", "{"))
    with pytest.raises(StreamingProtocolError, match="strict_order"):
        rec.append_delta(args(0, " "))
    rec.append_delta(args(1, "}"))
    assert [c.function.arguments for c in rec.tool_calls] == ["{}", "{}"]


# ==================================================================================================
# property: any split of a valid stream reconstructs the same calls
# ==================================================================================================

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)


@st.composite
def streams(draw: st.DrawFn) -> Tuple[str, List[Tuple[str, str, str]], List[DeltaMessage]]:
    """A content prefix and some tool calls, streamed as randomly split deltas."""
    content = draw(st.text(max_size=20))
    calls = []
    for i in range(draw(st.integers(min_value=0, max_value=3))):
        arguments = json.dumps(
            draw(st.dictionaries(st.text(max_size=5), json_values, max_size=3)), ensure_ascii=False
        )
        calls.append(
            (f"call_{i}", draw(st.text(min_size=1, max_size=8).filter(str.strip)), arguments)
        )

    deltas: List[DeltaMessage] = []

    def cut(text: str) -> List[str]:
        points = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=6))))
        pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
        return [p for p in pieces if p]

    for piece in cut(content):
        deltas.append(DeltaMessage(content=piece))
    for index, (call_id, name, arguments) in enumerate(calls):
        pieces = cut(arguments)
        carry_first = draw(st.booleans()) and bool(pieces)
        deltas.append(start(index, call_id, name, pieces[0] if carry_first else None))
        for piece in pieces[1:] if carry_first else pieces:
            deltas.append(args(index, piece))
    return content, calls, deltas


@given(streams())
@settings(max_examples=200, deadline=None)
def test_random_splits_reconstruct(
    stream: Tuple[str, List[Tuple[str, str, str]], List[DeltaMessage]],
) -> None:
    content, calls, deltas = stream
    rec = StreamingToolReconstructor(strict_order=True).append_deltas(deltas)
    assert rec.other_content == content
    assert [(c.id, c.function.name, c.function.arguments) for c in rec.tool_calls] == calls
    for call in rec.tool_calls:
        assert isinstance(call.parse_arguments(), dict)
    # the same deltas sent as dicts (what a client receives on the wire) give the same result
    wire = StreamingToolReconstructor().append_deltas(
        [json.loads(d.model_dump_json(exclude_none=True)) for d in deltas]
    )
    assert wire.tool_calls == rec.tool_calls
    assert wire.other_content == rec.other_content


@given(streams(), st.data())
@settings(max_examples=100, deadline=None)
def test_replaying_a_first_delta_is_always_rejected(
    stream: Tuple[str, List[Tuple[str, str, str]], List[DeltaMessage]], data: st.DataObject
) -> None:
    _, calls, deltas = stream
    firsts = [d for d in deltas if d.tool_calls and d.tool_calls[0].id is not None]
    if not firsts:
        return
    rec = StreamingToolReconstructor().append_deltas(deltas)
    replay = data.draw(st.sampled_from(firsts))
    with pytest.raises(StreamingProtocolError):
        rec.append_delta(replay)
    assert len(rec.tool_calls) == len(calls)


def test_every_split_point_of_one_call() -> None:
    arguments = '{"text": "He said \\"hi\\" \\u00e9 東京", "n": [1, 2.5, null]}'
    expected: Dict[str, Any] = json.loads(arguments)
    for cut in range(len(arguments) + 1):
        rec = StreamingToolReconstructor()
        rec.append_delta(start(0, "c", "f", arguments[:cut] or None))
        if arguments[cut:]:
            rec.append_delta(args(0, arguments[cut:]))
        assert rec.tool_calls[0].function.arguments == arguments
        assert rec.tool_calls[0].parse_arguments() == expected

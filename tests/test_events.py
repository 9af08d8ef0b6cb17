"""``toolparse.events``: stream events for NDJSON/SSE clients, and ``toolparse stream --events``.

For every format and both backends: the events are the same whatever the splitting of the text
(text events joined), one ToolCallsEvent per call holding the call the non-streaming result has,
the text is the non-streaming content, and output that ends inside a call gives an ErrorEvent.
"""

from __future__ import annotations

import json
import random
from typing import Any, List, Optional, Sequence, Tuple

import corpus
import pytest
import toolparse
from toolparse import (
    DoneEvent,
    ErrorEvent,
    ReasoningDeltaEvent,
    TextDeltaEvent,
    ToolCallsEvent,
    cli,
)
from toolparse.models import parse_stream_event

CROSS_FORMAT = True  # conftest parametrises ``fmt`` and ``backend``

Norm = List[Tuple[Any, ...]]


def run_events(fmt: Optional[str], backend: str, chunks: Sequence[str], **kw: Any) -> List[Any]:
    tools = kw.pop("tools", None)
    parser = toolparse.get_parser(
        fmt, tools=tools, backend=backend, ids=toolparse.IdSource(7), **kw
    )
    return list(toolparse.events(parser.stream(), chunks))


def normalise(events: Sequence[Any]) -> Norm:
    """Adjacent text (reasoning) events merged; tool calls as (id, name, arguments)."""
    out: Norm = []
    for e in events:
        if isinstance(e, (TextDeltaEvent, ReasoningDeltaEvent)):
            assert e.text, "no empty text events"
            if out and out[-1][0] == e.type:
                out[-1] = (e.type, out[-1][1] + e.text)
            else:
                out.append((e.type, e.text))
        elif isinstance(e, ToolCallsEvent):
            assert len(e.tool_calls) == 1, "one ToolCallsEvent per call"
            c = e.tool_calls[0]
            out.append((e.type, c.id, c.function.name, c.function.arguments))
        elif isinstance(e, ErrorEvent):
            out.append((e.type, e.code))
        else:
            assert isinstance(e, DoneEvent), e
            out.append((e.type, e.finish_reason))
    return out


def joined(norm: Norm, kind: str) -> Optional[str]:
    parts = [e[1] for e in norm if e[0] == kind]
    return "".join(parts) if parts else None


def calls_of(norm: Norm) -> List[Tuple[str, str]]:
    return [(e[2], e[3]) for e in norm if e[0] == "tool_calls"]


def plans(text: str, seed: int, n_random: int = 3) -> List[List[str]]:
    rng = random.Random(seed)
    return corpus.split_plans(text, rng, n_random) + [
        [text[i : i + 3] for i in range(0, len(text), 3)]
    ]


def sample_cases(fmt: str) -> List[corpus.Case]:
    cases = corpus.standard_cases(fmt)
    picked = [corpus.composite_case(fmt)]
    for pattern in (
        "one_call",
        "parallel",
        "text_between",
        "text_both",
        "no_arguments",
        "reasoning_text",
        "whitespace_around",
    ):
        if pattern in cases:
            picked.append(cases[pattern][0])
    return picked


def test_events_split_invariant_and_match_non_streaming(fmt, backend):
    for case in sample_cases(fmt):
        parser = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
        info = parser.extract_tool_calls(case.text)
        want = None
        for chunks in plans(case.text, hash(case.label) & 0xFFFF):
            events = run_events(fmt, backend, chunks, tools=case.tools)
            norm = normalise(events)
            if want is None:
                want = norm
            assert norm == want, (case, chunks)
        assert want is not None
        assert calls_of(want) == case.calls, case
        assert calls_of(want) == [(c.function.name, c.function.arguments) for c in info.tool_calls]
        assert joined(want, "text_delta") == info.content, case
        assert joined(want, "reasoning_delta") == info.reasoning, case
        assert want[-1] == ("done", "tool_calls" if case.calls else "stop"), case
        assert not any(e[0] == "error" for e in want), case


def test_tool_calls_event_comes_when_the_call_ends(fmt, backend):
    """Text after a call comes after its ToolCallsEvent; text before it, before."""
    cases = corpus.standard_cases(fmt).get("text_between")
    if not cases:
        pytest.skip(f"{fmt} has no text between calls")
    case = cases[0]
    norm = normalise(run_events(fmt, backend, [case.text], tools=case.tools))
    kinds = [e[0] for e in norm]
    assert kinds[0] == "text_delta" and kinds[-1] == "done", norm
    # text, call, text, call, (text), call, text, done: every call is followed by the text
    # that follows it in the output, not held until the end
    first_call = kinds.index("tool_calls")
    assert "text_delta" in kinds[first_call:], norm
    assert norm[0][1] == "First: ", norm


def test_every_cut_of_a_short_text(backend):
    text = 'Hi <tool_call>{"name": "f", "arguments": {"a": "é}"}}</tool_call> ok'
    want = normalise(run_events("hermes", backend, [text]))
    assert want[0] == ("text_delta", "Hi ")
    assert want[1][2:] == ("f", '{"a": "é}"}')
    assert want[2:] == [("text_delta", " ok"), ("done", "tool_calls")]
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1, 5):
            chunks = [text[:i], text[i:j], text[j:]]
            assert normalise(run_events("hermes", backend, chunks)) == want, chunks


def test_truncated_output_gives_an_error_event(fmt, backend):
    cases = corpus.truncated_texts(fmt)
    if not cases:
        pytest.skip(f"no TRUNCATED cases for {fmt}")
    for text, complete in cases:
        parser = toolparse.get_parser(fmt, backend=backend)
        info = parser.extract_tool_calls(text)
        want = None
        for chunks in plans(text, len(text)):
            norm = normalise(run_events(fmt, backend, chunks))
            if want is None:
                want = norm
            assert norm == want, (text, chunks)
        assert want is not None
        assert want[-2:] == [("error", "truncated"), ("done", "length")], (text, want)
        got = calls_of(want)
        assert len(got) == complete, (text, want)
        assert got == [(c.function.name, c.function.arguments) for c in info.tool_calls]


def test_truncation_names_the_unfinished_call(backend):
    text = (
        'A <tool_call>{"name": "f", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "g", "arguments": {"a"'
    )
    events = run_events("hermes", backend, [text])
    assert [type(e) for e in events] == [
        TextDeltaEvent,
        ToolCallsEvent,
        ErrorEvent,
        DoneEvent,
    ], events
    assert "tool call 1 (g)" in events[2].message
    assert events[3].finish_reason == "length"


def test_malformed_output_never_raises(fmt, backend):
    for text in corpus.malformed_texts(fmt):
        want = None
        for chunks in plans(text, len(text), n_random=2):
            norm = normalise(run_events(fmt, backend, chunks))
            if want is None:
                want = norm
            assert norm == want, (text, chunks)
        assert want is not None and want[-1][0] == "done"


def test_reasoning_events(backend):
    text = '<think>Let me see.</think>Sure. <tool_call>{"name": "f", "arguments": {}}</tool_call>'
    want = [
        ("reasoning_delta", "Let me see."),
        ("text_delta", "Sure. "),
    ]
    for chunks in plans(text, 1):
        norm = normalise(run_events("hermes", backend, chunks, reasoning="qwen3"))
        assert norm[:2] == want, norm
        assert norm[2][2:] == ("f", "{}") and norm[3] == ("done", "tool_calls")


def test_twins_give_the_same_events(fmt):
    case = corpus.composite_case(fmt)
    chunks = [case.text[i : i + 5] for i in range(0, len(case.text), 5)]
    rust = normalise(run_events(fmt, "rust", chunks, tools=case.tools))
    python = normalise(run_events(fmt, "python", chunks, tools=case.tools))
    assert rust == python


def test_open_call_twins_agree(fmt):
    case = corpus.composite_case(fmt)
    types = case.types
    a, b = corpus.core_parser("rust", fmt, types), corpus.core_parser("python", fmt, types)
    seen = set()
    for ch in case.text:
        a.feed(ch)
        b.feed(ch)
        assert a.open_call == b.open_call
        seen.add(a.open_call)
    a.finish()
    b.finish()
    assert a.open_call == b.open_call == a.unfinished_call
    assert {0, 1, 2} <= seen  # every call of the composite case was open at some point


def test_events_arguments_and_options(backend):
    parser = toolparse.get_parser("hermes", backend=backend)
    # a parser makes its own stream; an empty output is just "done"
    assert normalise(toolparse.events(parser, [])) == [("done", "stop")]
    assert normalise(toolparse.events(parser, ["hi"], finish_reason="length")) == [
        ("text_delta", "hi"),
        ("done", "length"),
    ]
    with pytest.raises(TypeError, match="stream"):
        toolparse.events("hermes", ["x"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="finish_reason"):
        toolparse.events(parser, ["x"], finish_reason=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="delta"):
        list(toolparse.events(parser, [b"x"]))  # type: ignore[list-item]


def test_events_are_yielded_as_the_text_arrives(backend):
    parser = toolparse.get_parser("hermes", backend=backend)
    fed: List[str] = []

    def deltas():
        for piece in ["Hello", "<tool_call>", '{"name": "f", "arguments": {}}', "</tool_call>"]:
            fed.append(piece)
            yield piece

    it = toolparse.events(parser, deltas())
    first = next(it)
    assert first == TextDeltaEvent(text="Hello") and fed == ["Hello"]
    assert isinstance(next(it), ToolCallsEvent) and len(fed) == 3
    assert next(it) == DoneEvent(finish_reason="tool_calls")


def test_events_validate_and_round_trip_as_ndjson(backend):
    text = '<think>r</think>a <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
    for e in run_events("hermes", backend, [text], reasoning="qwen3"):
        line = e.model_dump_json(exclude_none=True)
        assert parse_stream_event(line) == e
        assert type(e).model_validate_json(line) == e


# ------------------------------------------------------------------------------------------------
# toolparse stream --events
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk_size", ["1", "4", "1000"])
def test_cli_stream_events_ndjson(capsys, tmp_path, backend, chunk_size):
    text = 'Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> then <tool_call>{"name"'
    path = tmp_path / "out.txt"
    path.write_text(text, encoding="utf-8")
    code = cli.main(
        [
            "stream",
            "-f",
            "hermes",
            "--backend",
            backend,
            "--events",
            "--seed",
            "1",
            "-n",
            chunk_size,
            str(path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    events = [parse_stream_event(line) for line in lines]
    assert all("type" in json.loads(line) for line in lines)
    parser = toolparse.get_parser("hermes", backend=backend, ids=toolparse.IdSource(1))
    assert normalise(events) == normalise(toolparse.events(parser, [text]))
    assert [e.type for e in events][-2:] == ["error", "done"]

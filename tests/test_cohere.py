"""Cohere Command 3 and 4 (``cohere_command3``, ``cohere_command4``): what vLLM's Cohere parser,
built on ``cohere_melody``, makes of their output, on both backends, non-streaming and streaming
under every split. The think block is reasoning even when only the tool format is asked for (the
format's ``default_reasoning``)."""

from __future__ import annotations

import json
import random
from typing import Any, List, Optional, Tuple

import helpers
import pytest
import toolparse
from corpus import split_plans
from toolparse import StreamingToolReconstructor

BACKENDS = ("rust", "python")
FORMATS = ("cohere_command3", "cohere_command4")
Calls = List[Tuple[str, dict]]


def check(
    fmt: str,
    backend: str,
    text: str,
    content: Optional[str],
    reasoning: Optional[str],
    calls: Calls = (),  # type: ignore[assignment]
    reasoning_format: Optional[str] = None,
) -> None:
    parser = toolparse.get_parser(fmt, backend=backend, reasoning=reasoning_format)
    helpers.check(parser, text, content, calls, reasoning=reasoning)


CALL = (
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "web_search", '
    '"parameters": {"query": "weather"}}]<|END_ACTION|>'
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_think_block_is_reasoning_with_the_tool_format_alone(fmt: str, backend: str) -> None:
    text = "<|START_THINKING|>I should search.<|END_THINKING|>" + CALL
    check(fmt, backend, text, None, "I should search.", [("web_search", {"query": "weather"})])
    check(fmt, backend, text, None, "I should search.", [("web_search", {"query": "weather"})], fmt)


def test_default_reasoning_is_in_the_spec() -> None:
    from toolparse.spec import get_spec

    assert get_spec("cohere_command3").default_reasoning == "cohere_command3"
    assert get_spec("cohere_command4").default_reasoning == "cohere_command4"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_response_wrapper_is_markup(fmt: str, backend: str) -> None:
    # cohere_melody's cmd3 and cmd4 filters both drop the <|START_RESPONSE|> wrapper
    text = "<|START_THINKING|>Plan.<|END_THINKING|><|START_RESPONSE|>Hello!<|END_RESPONSE|>"
    check(fmt, backend, text, "Hello!", "Plan.")
    check(
        fmt,
        backend,
        "<|START_RESPONSE|>Hi<|END_RESPONSE|>" + CALL,
        "Hi",
        None,
        [("web_search", {"query": "weather"})],
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_command4_text_wrapper_is_markup(backend: str) -> None:
    check("cohere_command4", backend, "<|START_TEXT|>a b<|END_TEXT|>", "a b", None)


# cohere_melody's citation spans: `<co>X</co: 0:[1]>` is X in content and reasoning; `<co>` is
# dropped even with no close; `</co>` is text; a close only after an open; a close that never
# ends within 64 characters is text (the spec's `span_markup`)
LONG = "</co:" + "x" * 70 + ">"
CITATIONS = [
    ("<|START_RESPONSE|>A <co>B</co: 0:[1]> C<|END_RESPONSE|>", "A B C", None),
    ("<|START_THINKING|>r<co>s</co: 1:[0,2]>t<|END_THINKING|>x<co>y", "xy", "rst"),
    ("a</co>b</co: 0:[1]>c", "a</co>b</co: 0:[1]>c", None),
    ("<co>a" + LONG + "b", "a" + LONG + "b", None),
    ("<co>a</co: 0:[1]", "a</co: 0:[1]", None),
    ("<co><co>a</co:>b</co:>c<c", "ab</co:>c<c", None),
    # the bound counts characters, not bytes: a 64-character close of two-byte ones is markup,
    # one character more is text
    ("<co>a</co:" + "é" * 58 + ">b", "ab", None),
    ("<co>a</co:" + "é" * 59 + ">b", "a</co:" + "é" * 59 + ">b", None),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("text,content,reasoning", CITATIONS)
def test_citation_spans_are_markup(
    fmt: str, backend: str, text: str, content: str, reasoning: Optional[str]
) -> None:
    check(fmt, backend, text, content, reasoning)


def first_call_delta(
    fmt: str, backend: str, text: str
) -> Optional[Tuple[Optional[str], str, Optional[str]]]:
    """(id, name, arguments) of the tool-call delta fed ``text`` at once, or None."""
    s = toolparse.get_parser(fmt, backend=backend).stream()
    d = s.feed(text)
    if d is None or not d.tool_calls:
        return None
    tc = d.tool_calls[0]
    assert tc.function is not None and tc.function.name is not None
    return tc.id, tc.function.name, tc.function.arguments or None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_name_streams_once_tool_name_is_read(fmt: str, backend: str) -> None:
    """The call starts (id and name) at the closing quote of ``tool_name``, before its
    parameters, wherever the text was split before that."""
    head = '<|START_ACTION|>[{"tool_call_id": "7", "tool_name": "web_search"'
    assert first_call_delta(fmt, backend, head[:-1]) is None
    assert first_call_delta(fmt, backend, head) == ("7", "web_search", None)
    s = toolparse.get_parser(fmt, backend=backend).stream()
    deltas = [s.feed(c) for c in head] + [s.feed(CALL[len(head) :]), s.finish()]
    rec = StreamingToolReconstructor()
    for d in deltas:
        if d is not None:
            rec.append_delta(d)
    assert [(c.id, c.function.name) for c in rec.tool_calls] == [("7", "web_search")]
    assert json.loads(rec.tool_calls[0].function.arguments) == {"query": "weather"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_id_after_the_name_waits_for_the_parameters(backend: str) -> None:
    """Where the id key comes after the name, the call starts with its parameters, so the id
    the model wrote is still the call's."""
    head = '<|START_ACTION|>[{"tool_name": "web_search", "tool_call_id": "7"'
    assert first_call_delta("cohere_command3", backend, head) is None
    assert first_call_delta("cohere_command3", backend, head + ', "parameters": {') == (
        "7",
        "web_search",
        "{",
    )


# --- the reasoning formats of the same names, alone and with the tool formats -----------------
# (issue 30) The reasoning formats cohere_command3/4 read the response markup and the citation
# spans as the tool formats do: markup, dropped (the reasoning entries' `dropped` and
# `span_markup`). The newline the model writes between `<|END_THINKING|>` and the response's
# start is framing (an `also_end` of the reasoning entries), with or without the tool format.


def check_all(
    fmt: Optional[str], reasoning_format: Optional[str], backend: str, text: str, *expected: Any
) -> None:
    """``helpers.check`` (whole, per character, 3-character deltas, every cut in two) and ten
    random splittings."""
    content, reasoning, calls = expected
    parser = toolparse.get_parser(fmt, backend=backend, reasoning=reasoning_format)
    chunkings = helpers.plans(text) + split_plans(text, random.Random(text), n_random=10)
    helpers.check(parser, text, content, calls, reasoning=reasoning, chunkings=chunkings)


def setups(fmt: str) -> List[Tuple[Optional[str], Optional[str]]]:
    """The tool format alone, the reasoning format alone, and both."""
    return [(fmt, None), (None, fmt), (fmt, fmt)]


FRAMED = [
    # the newline between the block's end and the response is framing
    ("<|START_THINKING|>Plan.<|END_THINKING|>\n<|START_RESPONSE|>Hello!<|END_RESPONSE|>", "Hello!"),
    ("<|START_THINKING|>Plan.<|END_THINKING|><|START_RESPONSE|>Hello!<|END_RESPONSE|>", "Hello!"),
    # only that newline: one before other text is content, as it was
    ("<|START_THINKING|>Plan.<|END_THINKING|>\nHello!", "\nHello!"),
    ("<|START_THINKING|>Plan.<|END_THINKING|>\n\n<|START_RESPONSE|>Hi<|END_RESPONSE|>", "\n\nHi"),
    # the output ends after the newline (held while the response's start might follow)
    ("<|START_THINKING|>Plan.<|END_THINKING|>\n", "\n"),
    ("<|START_THINKING|>Plan.<|END_THINKING|>\n<|START_RESP", "\n<|START_RESP"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("text,content", FRAMED)
def test_newline_before_the_response_is_framing(
    fmt: str, backend: str, text: str, content: str
) -> None:
    for tool_format, reasoning_format in setups(fmt):
        check_all(tool_format, reasoning_format, backend, text, content, "Plan.", [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_newline_before_the_response_is_framing_before_a_call(fmt: str, backend: str) -> None:
    text = "<|START_THINKING|>Plan.<|END_THINKING|>\n<|START_RESPONSE|>Let me look.<|END_RESPONSE|>"
    calls = [("web_search", {"query": "weather"})]
    check_all(fmt, None, backend, text + CALL, "Let me look.", "Plan.", calls)
    check_all(fmt, fmt, backend, text + CALL, "Let me look.", "Plan.", calls)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("text,content,reasoning", CITATIONS)
def test_reasoning_format_alone_drops_citation_spans(
    fmt: str, backend: str, text: str, content: str, reasoning: Optional[str]
) -> None:
    check_all(None, fmt, backend, text, content, reasoning, [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_reasoning_format_alone_drops_the_response_wrapper(fmt: str, backend: str) -> None:
    text = (
        "<|START_THINKING|>I <co>know</co: 0:[1]>.<|END_THINKING|>"
        "<|START_RESPONSE|>A<co>b</co: 1:[0]>c<|END_RESPONSE|>"
    )
    check_all(None, fmt, backend, text, "Abc", "I know.", [])
    check_all(None, fmt, backend, "<|START_RESPONSE|>Hi<|END_RESPONSE|>", "Hi", None, [])
    # with no tool format, a call is content; the block before it is still reasoning
    check_all(None, fmt, backend, "<|START_THINKING|>p<|END_THINKING|>" + CALL, CALL, "p", [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_command4_reasoning_format_drops_its_text_wrapper(backend: str) -> None:
    text = "<|START_THINKING|>p<|END_THINKING|>\n<|START_TEXT|>a b<|END_TEXT|>"
    for tool_format, reasoning_format in setups("cohere_command4"):
        check_all(tool_format, reasoning_format, backend, text, "a b", "p", [])

"""The ``openai`` (harmony, gpt-oss) format on text: both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/openai.rs``):

* ``analysis`` is reasoning; ``final`` and ``commentary`` without a recipient (a preamble) are
  content; text before the first message is content; whitespace after an end marker is markup.
* a ``functions.NAME`` recipient (in the role part or after the channel name, any channel) is a
  tool call whose arguments are the body, passed through byte for byte; ``<|call|>`` may be missing
  at the end of the text (servers strip the stop token) when the object is complete; an empty body
  closed by an end marker is ``{}``.
* any other recipient (built-in tools such as ``browser.search``, ``python`` or
  ``container.exec``) is never a call: on the ``analysis`` channel it is reasoning, on
  ``commentary`` or any other channel the message is dropped, neither content nor reasoning
  (vLLM ignores it, SGLang and llama.cpp drop it; an earlier rule made every such message
  reasoning, which showed the user a tool's input the server never ran); a reasoning message
  whose text follows earlier reasoning starts with ``"\n"`` (vLLM joins its analysis messages so).
* a header naming a function cut off by the end of the text is a call's start markup: dropped,
  with ``truncated`` set; the messages before it keep their places (a finished analysis is
  reasoning only, never repeated as content).
* marker text inside a body is body text unless it forms a real boundary: an end marker followed
  by whitespace and the end of the text or a valid header, or ``<|start|>``/``<|channel|>``
  opening a valid header; ``<|message|>`` and ``<|constrain|>`` there are always text. A header
  still open at the end of the text is taken as real (content, or a call's dropped start markup).
* malformed markup never raises; non-streaming falls back to the original text as content.
"""

from __future__ import annotations

import json
from typing import Any, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from toolparse import StreamingToolReconstructor, _core, reference

BACKENDS = ("rust", "python")
FMT = "openai"

S = "<|start|>assistant"
CALL_F = "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>"

# Content, reasoning, a preamble, two calls (one recipient in each position), escapes and
# non-ASCII, every marker: the text cut everywhere.
WEATHER_ARGS = '{"city": "Zürich \\"CH\\"", "days": 3, "ok": true, "note": "a\\\\b\\n中 🎉"}'
COMPOSITE = (
    "<|channel|>analysis<|message|>User wants weather & time <b>; use tools.<|end|>"
    f"{S}<|channel|>commentary<|message|>Checking now… 🎉<|end|>"
    f"{S}<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
    f"{WEATHER_ARGS}<|call|>"
    f"{S} to=functions.get_time<|channel|>commentary json<|message|>{{}}<|call|>"
    f"{S}<|channel|>final<|message|>All done ✅<|return|>"
)
COMPOSITE_REASONING = "User wants weather & time <b>; use tools."
COMPOSITE_CONTENT = "Checking now… 🎉All done ✅"
COMPOSITE_CALLS = [("get_weather", WEATHER_ARGS), ("get_time", "{}")]

EVERY_TYPE = (
    '{"s": "x", "i": 42, "f": -2.5e3, "t": true, "fa": false, "n": null, '
    '"a": [1, "two", [3]], "o": {"k": {"z": []}}, "ea": [], "eo": {}}'
)
ESCAPES = (
    '{"q": "say \\"hi\\"", "b": "C:\\\\dir\\\\", "nl": "a\\nb\\tc", '
    '"u": "\\u00e9\\ud83c\\udf89\\/", "cjk": "東京", "emoji": "🎉", "raw": "é"}'
)

MALFORMED = [
    # arguments that are not one JSON object
    CALL_F.format(name="f", args='{"a": }'),
    CALL_F.format(name="f", args='{"a": tru}'),
    CALL_F.format(name="f", args="[1, 2]"),
    CALL_F.format(name="f", args="hello"),
    CALL_F.format(name="f", args='{"a": 1} trailing'),
    CALL_F.format(name="f", args='{"a": [1}'),
    # JSON cut by a marker
    '<|channel|>commentary to=functions.f<|message|>{"a": <|call|>',
    # bad headers
    "<|channel|><|message|>hi<|end|>",
    "<|channel|>commentary to=functions.<|message|>{}<|call|>",
    "<|channel|>commentary to=<|message|>{}<|call|>",
    " to=functions.f<|channel|>commentary to=functions.g<|message|>{}<|call|>",
    "<|channel|>final<|channel|>final<|message|>hi",
    "<|channel|>other<|message|>hi<|end|>",
    "<|channel|>commentaryto=functions.f<|message|>{}<|call|>",
    "<|channel|>commentary o=functions.f <|constrain|>json<|message|>{}<|call|>",
    "<|channel|>" + "a" * 600 + "<|message|>hi",
    "<|start|>assistant<|end|>hi",
    # text after a call (harmony allows only <|start|> there)
    CALL_F.format(name="f", args="{}") + " bye",
    # stray markers
    "<|end|>hi",
    "Hello<|call|>",
    '<|channel|>commentary to=functions.f<|message|>{"a": 1}<|message|>',
]


# ----- drivers -----


def parser(backend: str) -> toolparse.ToolParser:
    return toolparse.get_parser(FMT, backend=backend)


def core(backend: str) -> Any:
    return _core.Parser(FMT) if backend == "rust" else reference.Parser(FMT)


def core_extract(backend: str, text: str) -> Tuple[Any, ...]:
    return (_core.extract if backend == "rust" else reference.extract)(FMT, text)


def stream(backend: str, chunks: List[str]) -> Tuple[StreamingToolReconstructor, bool]:
    """Streams ``chunks`` through the facade; the reconstructor checks the protocol."""
    s = parser(backend).stream()
    rec = StreamingToolReconstructor()
    for c in chunks:
        rec.append_deltas([s.feed(c)])
    rec.append_deltas([s.finish()])
    return rec, s.malformed


def streamed(backend: str, chunks: List[str]) -> Tuple[str, str, List[Tuple[str, str]]]:
    rec, _ = stream(backend, chunks)
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content, rec.reasoning, calls


def check(
    backend: str,
    text: str,
    content: Optional[str],
    calls: List[Tuple[str, str]],
    reasoning: Optional[str] = None,
) -> None:
    """Non-streaming, core tuples and streaming (whole, one character per delta, 3-character
    deltas and cut in two everywhere) agree with the expected result."""
    helpers.check(parser(backend), text, content, calls, reasoning=reasoning, exact=True)
    x = core_extract(backend, text)
    assert x[1] == reasoning
    assert x[3] is False
    for args in (a for _, a in calls):
        assert isinstance(json.loads(args), dict)


# ----- 1. no tool call -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    ["", "Hello, world!", "   \n ", "a <b> c <| d |>", "to be or not to be", "t", "to", "to="],
)
def test_plain_text_is_content(backend: str, text: str) -> None:
    check(backend, text, text or None, [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_final_only(backend: str) -> None:
    check(backend, "<|channel|>final<|message|>2 + 2 = 4.<|return|>", "2 + 2 = 4.", [])
    # the stop token is usually stripped
    check(backend, "<|channel|>final<|message|>2 + 2 = 4.", "2 + 2 = 4.", [])


# ----- 2. reasoning -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_analysis_then_final(backend: str) -> None:
    text = (
        '<|channel|>analysis<|message|>User asks: "What is 2 + 2?" Simple.<|end|>'
        f"{S}<|channel|>final<|message|>2 + 2 = 4.<|return|>"
    )
    check(backend, text, "2 + 2 = 4.", [], reasoning='User asks: "What is 2 + 2?" Simple.')
    # the stream's deltas carry the reasoning in their own field
    s = parser(backend).stream()
    deltas = [d for d in (s.feed(text), s.finish()) if d is not None]
    assert [d.reasoning for d in deltas] == ['User asks: "What is 2 + 2?" Simple.']
    assert "".join(d.content or "" for d in deltas) == "2 + 2 = 4."


@pytest.mark.parametrize("backend", BACKENDS)
def test_reasoning_streams_as_it_arrives(backend: str) -> None:
    p = core(backend)
    assert p.feed("<|channel|>analysis<|mess") is None
    assert p.feed("age|>Think") == (None, "Think", None)
    assert p.feed("ing <") == (None, "ing ", None)  # "<" may start a marker: held
    assert p.feed("b><|end|>") == (None, "<b>", None)
    assert p.feed(f"{S}<|channel|>final<|message|>Hi") == ("Hi", None, None)
    assert p.finish() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_whitespace_between_messages_is_markup(backend: str) -> None:
    text = "\n<|channel|>analysis<|message|>r<|end|>\n\n"
    text += f"{S}<|channel|>final<|message|>ok<|return|>\n"
    check(backend, text, "ok", [], reasoning="r")


# ----- one call, either recipient position -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        CALL_F.format(name="get_weather", args='{"city": "Paris"}'),
        '<|channel|>commentary to=functions.get_weather<|message|>{"city": "Paris"}<|call|>',
        '<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>',
        # recipient in the role part of the first message (its role came with the prompt)
        ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>',
        "to=functions.get_weather<|channel|>commentary<|constrain|>json"
        '<|message|>{"city": "Paris"}',
        # after <|start|>, in the role part or the channel part
        f'{S} to=functions.get_weather<|channel|>commentary json<|message|>{{"city": "Paris"}}',
        f'{S}<|channel|>commentary to=functions.get_weather<|message|>{{"city": "Paris"}}<|end|>',
        # a function call on the analysis channel is still a function call (as vLLM does)
        '<|channel|>analysis to=functions.get_weather<|message|>{"city": "Paris"}<|call|>',
        # the stop token is stripped: the call is complete when its object is
        CALL_F.format(name="get_weather", args='{"city": "Paris"}')[: -len("<|call|>")],
        CALL_F.format(name="get_weather", args=' \n{"city": "Paris"}\n '),
    ],
)
def test_one_call(backend: str, text: str) -> None:
    check(backend, text, None, [("get_weather", '{"city": "Paris"}')])


@pytest.mark.parametrize("backend", BACKENDS)
def test_namespaced_function_name(backend: str) -> None:
    check(backend, CALL_F.format(name="a.b_c-d", args="{}"), None, [("a.b_c-d", "{}")])


@pytest.mark.parametrize("backend", BACKENDS)
def test_analysis_then_call(backend: str) -> None:
    text = (
        "<|channel|>analysis<|message|>Need to use function get_weather.<|end|>"
        + S
        + CALL_F.format(name="get_weather", args='{"location":"San Francisco"}')
    )
    check(
        backend,
        text,
        None,
        [("get_weather", '{"location":"San Francisco"}')],
        reasoning="Need to use function get_weather.",
    )


# ----- parallel calls -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_calls(backend: str) -> None:
    text = (
        CALL_F.format(name="get_weather", args='{"city": "Paris"}')
        + S
        + CALL_F.format(name="get_time", args='{"tz": "CET"}')
    )
    check(
        backend, text, None, [("get_weather", '{"city": "Paris"}'), ("get_time", '{"tz": "CET"}')]
    )
    s = parser(backend).stream()
    starts = []
    for d in [s.feed(c) for c in text] + [s.finish()]:
        for tc in d.tool_calls if d is not None else []:
            if tc.id is not None:
                starts.append((tc.index, tc.id, tc.function.name))
    assert [(i, n) for i, _, n in starts] == [(0, "get_weather"), (1, "get_time")]
    assert len({i for _, i, _ in starts}) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_end_marker_missing_between_calls(backend: str) -> None:
    text = CALL_F.format(name="f", args='{"a": 1}')[: -len("<|call|>")] + S
    text += CALL_F.format(name="g", args="{}")
    check(backend, text, None, [("f", '{"a": 1}'), ("g", "{}")])


# ----- argument values -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_json_type(backend: str) -> None:
    check(backend, CALL_F.format(name="f", args=EVERY_TYPE), None, [("f", EVERY_TYPE)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "body,args",
    [("{}", "{}"), ("", "{}"), ("  \n", "{}"), ("{ }", "{ }"), ('{"a": {}}', '{"a": {}}')],
)
def test_no_arguments(backend: str, body: str, args: str) -> None:
    check(backend, CALL_F.format(name="get_time", args=body), None, [("get_time", args)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_escapes_and_non_ascii_pass_through(backend: str) -> None:
    check(backend, CALL_F.format(name="f", args=ESCAPES), None, [("f", ESCAPES)])
    compact = '{"a":1,"b":[1.0,2E+3],"c":"\\u4e2d"}'
    check(backend, CALL_F.format(name="f", args=compact), None, [("f", compact)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_marker_text_inside_a_json_string_is_argument_text(backend: str) -> None:
    args = '{"doc": "end with <|end|> or <|call|>", "<|return|>": null}'
    check(backend, CALL_F.format(name="f", args=args), None, [("f", args)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_arguments_stream_as_they_arrive(backend: str) -> None:
    p = core(backend)
    assert p.feed(CALL_F.format(name="f", args="").split("<|call|>")[0]) == (
        None,
        None,
        [(0, None, "f", None)],
    )
    body = '{"data": "' + "abcd" * 50 + '"}'
    for k in range(0, len(body), 4):
        piece = body[k : k + 4]
        assert p.feed(piece) == (None, None, [(0, None, None, piece)])
    assert p.feed("<|call|>") is None
    assert p.finish() is None
    assert p.malformed is False


# ----- content around calls -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_text_before_and_after(backend: str) -> None:
    call = CALL_F.format(name="f", args='{"a": 1}')
    before = f"<|channel|>final<|message|>Let me check.<|end|>{S}"
    after = f"{S}<|channel|>final<|message|>Done: 42.<|return|>"
    check(backend, before + call, "Let me check.", [("f", '{"a": 1}')])
    check(backend, call + after, "Done: 42.", [("f", '{"a": 1}')])
    check(backend, before + call + after, "Let me check.Done: 42.", [("f", '{"a": 1}')])
    # plain text before any markup
    check(backend, "Sure. " + call, "Sure. ", [("f", '{"a": 1}')])


@pytest.mark.parametrize("backend", BACKENDS)
def test_preamble_is_content(backend: str) -> None:
    text = (
        "<|channel|>analysis<|message|>plan<|end|>"
        f"{S}<|channel|>commentary<|message|>**Action plan**:\n1. Generate a file<|end|>"
        + S
        + CALL_F.format(name="generate_file", args='{"path": "index.html"}')
    )
    check(
        backend,
        text,
        "**Action plan**:\n1. Generate a file",
        [("generate_file", '{"path": "index.html"}')],
        reasoning="plan",
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text,reasoning",
    [
        (
            "<|channel|>analysis to=browser.search <|constrain|>json"
            '<|message|>{"query": "x"}<|call|>',
            '{"query": "x"}',
        ),
        ("<|channel|>analysis to=python code<|message|>print(1 < 2)<|call|>", "print(1 < 2)"),
        (f"{S} to=container.exec<|channel|>analysis<|message|>ls -la<|call|>", "ls -la"),
    ],
)
def test_builtin_tool_message_on_analysis_is_reasoning(
    backend: str, text: str, reasoning: str
) -> None:
    check(backend, text, None, [], reasoning=reasoning)


# Built-in tool messages outside the analysis channel: vLLM's chat path routes them to IGNORE
# (neither content nor reasoning), SGLang and llama.cpp drop them. This replaces the rule that
# made them reasoning (after vLLM's Responses path), which showed the user a tool input no server
# runs for a chat completion. The messages around them are untouched.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        f"{S} to=container.exec<|channel|>commentary<|message|>ls -la<|call|>",
        # the shapes of vLLM's parse_output_message tests, on the commentary channel
        "<|channel|>commentary to=python<|message|>"
        "import numpy as np\nprint(np.array([1, 2, 3]))<|call|>",
        "<|channel|>commentary to=browser<|message|>Navigating to the specified URL<|call|>",
        "<|channel|>commentary to=container<|message|>Running command in container<|call|>",
        # a recipient vLLM's Responses path would make an MCP call: no call here either
        '<|channel|>commentary to=repo_browser.list<|message|>{"cmd": "ls"}<|call|>',
        # the final channel, and no channel at all
        f"{S}<|channel|>final to=python<|message|>print(1)<|call|>",
        f"{S} to=browser.search<|message|>x<|call|>",
    ],
)
def test_builtin_tool_message_elsewhere_is_dropped(backend: str, text: str) -> None:
    check(backend, text, None, [])
    check(backend, f"{text}{S}<|channel|>final<|message|>Done.<|return|>", "Done.", [])


# The user-reported shapes: a built-in tool message after reasoning, its recipient after the
# channel name or in the role part; the result must not be `...helloprint("hello")`.
HELLO = "<|channel|>analysis<|message|>The user wants to see hello<|end|>"
BUILTIN_ON_ANALYSIS = [
    f'{HELLO}{S}<|channel|>analysis to=python code<|message|>print("hello")<|call|>',
    f'{HELLO}{S} to=python<|channel|>analysis code<|message|>print("hello")<|call|>',
]
BUILTIN_ON_COMMENTARY = [
    f'{HELLO}{S}<|channel|>commentary to=python<|message|>print("hello")<|call|>',
    f'{HELLO}{S}<|channel|>commentary to=python<|message|>print("hello")',
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", BUILTIN_ON_ANALYSIS)
def test_builtin_tool_message_is_reasoning_of_its_own(backend: str, text: str) -> None:
    check(backend, text, None, [], reasoning='The user wants to see hello\nprint("hello")')


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", BUILTIN_ON_COMMENTARY)
def test_builtin_tool_message_on_commentary_is_dropped(backend: str, text: str) -> None:
    check(backend, text, None, [], reasoning="The user wants to see hello")


@pytest.mark.parametrize("backend", BACKENDS)
def test_builtin_tool_messages_between_reasoning_and_calls(backend: str) -> None:
    """A browsing turn (vLLM's test shapes): reasoning, a search, more reasoning, an open, an exec
    on the commentary channel, then a function call and the answer. No built-in message is a call;
    those on the analysis channel are reasoning, each after a newline; the commentary one is
    dropped; calls and content are untouched."""
    text = (
        "<|channel|>analysis<|message|>We need to browse. Let's search.<|end|>"
        f"{S}<|channel|>analysis to=browser.search code<|message|>"
        '{"query": "Ho Chi Minh City weather today", "topn": 10, "source": "news"}<|call|>'
        f"{S}<|channel|>analysis<|message|>Open the first result.<|end|>"
        f'{S} to=browser.open<|channel|>analysis code<|message|>{{"id": 0}}<|call|>'
        f"{S}<|channel|>commentary to=container.exec <|constrain|>json"
        '<|message|>{"cmd": ["ls"]}<|call|>'
        + S
        + CALL_F.format(name="get_weather", args='{"city": "HCMC"}')
        + f"{S}<|channel|>final<|message|>It is 31 °C.<|return|>"
    )
    reasoning = "\n".join(
        [
            "We need to browse. Let's search.",
            '{"query": "Ho Chi Minh City weather today", "topn": 10, "source": "news"}',
            "Open the first result.",
            '{"id": 0}',
        ]
    )
    check(backend, text, "It is 31 °C.", [("get_weather", '{"city": "HCMC"}')], reasoning)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "header",
    [
        f"{S}<|channel|>commentary to=functions.get_weather <|constrain|>json",
        f"{S}<|channel|>commentary to=functions.get_weather",
        f"{S} to=functions.get",
        "\n<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>",
    ],
)
def test_cut_inside_a_call_header_keeps_the_analysis_as_reasoning_only(
    backend: str, header: str
) -> None:
    """max_tokens inside the header of a call: the finished analysis is reasoning, once; the header
    is the start markup of a call that never began (dropped, not content), and the output is
    truncated. Every split of the text gives the same."""
    text = "<|channel|>analysis<|message|>Need the weather.<|end|>" + header
    info = parser(backend).extract_tool_calls(text)
    assert (info.content, info.reasoning, info.tool_calls, info.truncated) == (
        None,
        "Need the weather.",
        [],
        True,
    )
    for step in (1, 3, len(text)):
        s = parser(backend).stream()
        deltas = [s.feed(text[i : i + step]) for i in range(0, len(text), step)] + [s.finish()]
        assert "".join(d.content or "" for d in deltas if d) == ""
        assert "".join(d.reasoning or "" for d in deltas if d) == "Need the weather."
        assert not any(d.tool_calls for d in deltas if d)
        assert s.truncated
    # after a content message, that content stays, once
    final = f"{S}<|channel|>final<|message|>Let me check.<|end|>"
    info = parser(backend).extract_tool_calls(text.replace("<|end|>", "<|end|>" + final, 1))
    assert (info.content, info.reasoning, info.truncated) == (
        "Let me check.",
        "Need the weather.",
        True,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_reasoning_messages_are_separated_by_a_newline(backend: str) -> None:
    a = "<|channel|>analysis<|message|>First.<|end|>"
    b = f"{S}<|channel|>analysis<|message|>Second.<|end|>"
    empty = f"{S}<|channel|>analysis<|message|><|end|>"
    final = f"{S}<|channel|>final<|message|>Done.<|return|>"
    check(backend, a + b + final, "Done.", [], reasoning="First.\nSecond.")
    # an empty message adds nothing; content between reasoning messages does not count
    check(backend, empty + a + empty + b, None, [], reasoning="First.\nSecond.")
    check(backend, a + final + b, "Done.", [], reasoning="First.\nSecond.")
    # the newline streams with the second message's first text, not before
    p = core(backend)
    assert p.feed(a + S + "<|channel|>analysis<|message|>") == (None, "First.", None)
    assert p.feed("S") == (None, "\nS", None)


# Marker text quoted inside a body: (text, content, reasoning). None of it is malformed.
QUOTED = [
    # an end marker followed by text is body text
    (
        "<|channel|>analysis<|message|>The tag <|call|> ends a call.<|end|>"
        f"{S}<|channel|>final<|message|>Hi<|return|>",
        "Hi",
        "The tag <|call|> ends a call.",
    ),
    # `<|channel|>final` in reasoning: not a valid header (too many words, a wrong name)
    (
        "<|channel|>analysis<|message|>I answer on <|channel|>final when I am done.<|end|>"
        f"{S}<|channel|>final<|message|>Hi",
        "Hi",
        "I answer on <|channel|>final when I am done.",
    ),
    (
        "<|channel|>analysis<|message|>use <|channel|>finally<|end|>",
        None,
        "use <|channel|>finally",
    ),
    # `<|start|>` with a role other than assistant, then `<|message|>` (always body text)
    (
        "<|channel|>analysis<|message|>Write <|start|>user<|message|>x then.<|end|>"
        f"{S}<|channel|>final<|message|>Hi",
        "Hi",
        "Write <|start|>user<|message|>x then.",
    ),
    # every marker quoted, then a real message
    (
        "<|channel|>analysis<|message|>Markers: <|start|> <|channel|> <|message|> <|constrain|>"
        " <|end|> <|call|> <|return|>.<|end|>"
        f"{S}<|channel|>final<|message|>ok",
        "ok",
        "Markers: <|start|> <|channel|> <|message|> <|constrain|> <|end|> <|call|> <|return|>.",
    ),
    # a header that breaks at a marker: the marker is looked at again (here: a real boundary)
    (
        "<|channel|>analysis<|message|>see <|channel|>final x <|end|>"
        f"{S}<|channel|>final<|message|>Hi",
        "Hi",
        "see <|channel|>final x ",
    ),
    # a header that is complete but invalid (two recipients): text up to its `<|message|>`
    (
        "<|channel|>analysis<|message|>a <|channel|>final to=a to=b<|message|>b<|end|>",
        None,
        "a <|channel|>final to=a to=b<|message|>b",
    ),
    # quotes in content bodies too
    (
        "<|channel|>final<|message|>hi<|end|><|start|>user<|message|>more",
        "hi<|end|><|start|>user<|message|>more",
        None,
    ),
    ("<|channel|>final<|message|>x<|message|>y", "x<|message|>y", None),
    ("<|channel|>final<|message|>x<|end|><|constrain|>json", "x<|end|><|constrain|>json", None),
    # the end marker is quoted (text follows it), the `<|channel|>` after it opens a real header
    (
        "<|channel|>final<|message|>0<|end|>|start|>assistant<|channel|>final<|message|>1",
        "0<|end|>|start|>assistant1",
        None,
    ),
    # the role word is broken before the `<|channel|>`: that `<|channel|>` is looked at on its own
    (
        f"<|channel|>final<|message|>hi<|end|>{S}to=functions.f<|channel|>commentary<|message|>{{}}",
        "hi<|end|><|start|>assistantto=functions.f{}",
        None,
    ),
    # a quote, then a real call whose end marker is missing before it
    (
        "<|channel|>analysis<|message|>call <|call|> f"
        "<|channel|>commentary to=functions.f<|message|>{}<|call|>",
        None,
        "call <|call|> f",
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,reasoning", QUOTED)
def test_quoted_markers_are_body_text(
    backend: str, text: str, content: Optional[str], reasoning: Optional[str]
) -> None:
    calls = [("f", "{}")] if "functions.f<|message|>{}<|call|>" in text else []
    check(backend, text, content, calls, reasoning)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [0, 4, 5, 11, 12])
def test_quoted_markers_every_split(backend: str, k: int) -> None:
    """Every single cut, and every pair of cuts around the quote, give the same result."""
    text, content, reasoning = QUOTED[k]
    calls = [("f", "{}")] if "functions.f<|message|>{}<|call|>" in text else []
    expected = (content or "", reasoning or "", calls)
    for a in range(len(text) + 1):
        assert streamed(backend, [text[:a], text[a:]]) == expected, a
    q = text.index("<|message|>") + len("<|message|>")
    for a in range(q, len(text) + 1, 3):
        for b in range(a, min(len(text), a + 40) + 1):
            assert streamed(backend, [text[:a], text[a:b], text[b:]]) == expected, (a, b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_quote_hold_back_is_bounded_and_released(backend: str) -> None:
    p = core(backend)
    assert p.feed("<|channel|>analysis<|message|>say ") == (None, "say ", None)
    # a possible header: held until it shows to be one or not
    assert p.feed("<|channel|>fin") is None
    assert p.feed("al") is None
    assert p.feed(" now") is None
    assert p.feed(" please") is None  # a header holds three words: channel, recipient, type
    assert p.feed(" go") == (None, "<|channel|>final now please go", None)
    assert p.feed("<|end|>") is None
    assert p.feed(" and") == (None, "<|end|> and", None)
    # a long header-like quote is released after HEADER_MAX characters
    assert p.feed(f"{S} to=" + "x" * 600) == (None, f"{S} to=" + "x" * 600, None)
    assert p.finish() is None
    assert p.malformed is False


@pytest.mark.parametrize("backend", BACKENDS)
def test_quoted_header_cut_off_at_the_end_is_taken_as_real(backend: str) -> None:
    check(
        backend,
        "<|channel|>analysis<|message|>I think <|channel|>final",
        "<|channel|>final",
        [],
        reasoning="I think ",
    )
    check(
        backend, "<|channel|>analysis<|message|>r<|end|> \n<|chan", " \n<|chan", [], reasoning="r"
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_missing_channel_is_content(backend: str) -> None:
    check(backend, f"{S}<|message|>hi<|end|>", "hi", [])
    check(backend, f"{S} to=functions.f<|message|>{{}}", None, [("f", "{}")])


# ----- truncation -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tail", [S, f"{S}<|chan", f"{S}<|channel|>fin"])
def test_header_cut_off_at_the_end_goes_to_content(backend: str, tail: str) -> None:
    check(backend, "<|channel|>analysis<|message|>r<|end|>" + tail, tail, [], reasoning="r")


CALL_HEADER = f"{S}<|channel|>commentary to=functions.g <|constrain|>json"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "tail",
    [
        f"{S}<|channel|>commentary to=functions.g",
        CALL_HEADER,
        CALL_HEADER + "<|message|>",
        CALL_HEADER + '<|message|>{"a": ',
    ],
)
def test_call_cut_off_at_the_end_is_truncated(backend: str, tail: str) -> None:
    # no complete call: cut inside the header, the call never began and its header is dropped
    # markup (the analysis is reasoning, once; this replaces the text-whole fallback, which
    # repeated the analysis as content and leaked the header); cut after it, the text whole, as
    # content (the peers' rule for a call that began)
    text = "<|channel|>analysis<|message|>r<|end|>" + tail
    info = parser(backend).extract_tool_calls(text)
    if "<|message|>" in tail:
        assert (info.tools_called, info.content, info.truncated) == (False, text, True)
    else:
        assert (info.tools_called, info.content, info.reasoning, info.truncated) == (
            False,
            None,
            "r",
            True,
        )
    # after a complete call: the call is kept, the unfinished one's header is not content
    first = "<|channel|>commentary to=functions.f<|message|>{}<|call|>"
    info = parser(backend).extract_tool_calls(first + tail)
    assert info.truncated and info.content is None and info.reasoning is None
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [("f", "{}")]
    for chunks in ([first + tail], list(first + tail)):
        s = parser(backend).stream()
        for c in chunks:
            s.feed(c)
        s.finish()
        assert s.truncated and not s.malformed


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1',
        "<|channel|>commentary to=functions.f<|message|>",
        # a marker inside a JSON string is string text: the string never closed
        '<|channel|>commentary to=functions.f<|message|>{"a": "x<|call|>',
    ],
)
def test_unfinished_arguments_are_truncated(backend: str, text: str) -> None:
    corpus.check_truncated_output("openai", backend, text, 0)
    first = "<|channel|>commentary to=functions.e<|message|>{}<|call|>"
    corpus.check_truncated_output("openai", backend, first + text, 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlong_tentative_header_is_text(backend: str) -> None:
    head = "to=" + "x" * 600
    check(backend, head + "<|channel|>final<|message|>hi", head + "hi", [])


# ----- malformed -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_falls_back_to_content(backend: str, text: str) -> None:
    info = parser(backend).extract_tool_calls(text)
    assert info.tools_called is False
    assert info.tool_calls == []
    assert info.content == text
    assert core_extract(backend, text)[3] is True
    for chunks in ([text], list(text)):
        rec, malformed = stream(backend, chunks)
        assert malformed is True
        # every character ends up somewhere: content, reasoning or a call (its markup too)
        assert len(rec.other_content) + len(rec.reasoning) <= len(text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_malformed_call_streams_no_more_arguments(backend: str) -> None:
    text = CALL_F.format(name="f", args='{"a": 1} trailing')
    content, _, calls = streamed(backend, [text])
    assert calls == [("f", '{"a": 1}')]
    assert content == "trailing<|call|>"


# ----- streaming == non-streaming, splits -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_composite(backend: str) -> None:
    check(backend, COMPOSITE, COMPOSITE_CONTENT, COMPOSITE_CALLS, reasoning=COMPOSITE_REASONING)


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_at_every_offset(backend: str) -> None:
    """One cut anywhere, inside every marker, name, key, value and escape."""
    expected = (COMPOSITE_CONTENT, COMPOSITE_REASONING, COMPOSITE_CALLS)
    for k in range(len(COMPOSITE) + 1):
        assert streamed(backend, [COMPOSITE[:k], COMPOSITE[k:]]) == expected, k


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_at_every_pair_of_offsets(backend: str) -> None:
    text = (
        f"<|channel|>analysis<|message|>r<|end|>{S} to=functions.f<|channel|>commentary json"
        '<|message|>{"a": "\\"é"}<|call|>'
    )
    expected = ("", "r", [("f", '{"a": "\\"é"}')])
    for a in range(len(text) + 1):
        for b in range(a, len(text) + 1):
            assert streamed(backend, [text[:a], text[a:b], text[b:]]) == expected, (a, b)


def _texts_for_differential() -> List[str]:
    return [
        COMPOSITE,
        CALL_F.format(name="f", args=EVERY_TYPE),
        CALL_F.format(name="f", args=ESCAPES),
        "plain text < with <| odd |> markers",
        " to=functions.f<|channel|>commentary json<|message|>{}",
        *MALFORMED,
        *BUILTIN_ON_ANALYSIS,
        *BUILTIN_ON_COMMENTARY,
        *(t for t, _, _ in QUOTED),
    ]


@pytest.mark.parametrize("text", _texts_for_differential())
def test_twins_agree_per_feed(text: str) -> None:
    """``_core.Parser`` and ``reference.Parser`` give the same delta for every feed, for every
    single split point and for one character per delta."""
    helpers.check_twins_per_feed(FMT, text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_hold_back_is_only_a_marker_prefix(backend: str) -> None:
    p = core(backend)
    assert p.feed("<|channel|>final<|message|>") is None
    assert p.feed("a <|") == ("a ", None, None)
    assert p.feed("b") == ("<|b", None, None)
    assert p.feed("<|ret") is None
    assert p.feed("urn|>") is None
    assert p.finish() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_arguments(backend: str) -> None:
    args = json.dumps({"blob": 'x\\y"é' * 4000, "n": list(range(500))}, ensure_ascii=False)
    text = CALL_F.format(name="f", args=args)
    chunks = [text[k : k + 4] for k in range(0, len(text), 4)]
    assert streamed(backend, chunks) == ("", "", [("f", args)])
    info = parser(backend).extract_tool_calls(text)
    assert info.tool_calls[0].function.arguments == args


# Texts as units (markers, words, characters): every way of cutting them into deltas at unit
# boundaries (2 ** (units - 1) splittings) gives one result on the core parser.
UNIT_TEXTS = [
    (
        ["<|channel|>", "analysis", "<|message|>", "a", "<|call|>", " ", "b", "<|end|>"]
        + ["<|start|>", "assistant", "<|channel|>", "analysis to=python", "<|message|>", "c"],
        ("", "a<|call|> b\nc", []),
    ),
    (
        ["<|channel|>", "analysis", "<|message|>", "a", "<|end|>", "<|start|>", "assistant"]
        + ["<|channel|>", "commentary to=python", "<|message|>", "c", "<|call|>", "<|start|>"]
        + ["assistant", "<|channel|>", "final", "<|message|>", "d"],
        ("d", "a", []),
    ),
    (
        ["<|channel|>", "final", "<|message|>", "x", "<|end|>", "<|start|>", "user"]
        + ["<|message|>", "y", "<|end|>", "<|start|>", "assistant<|channel|>final<|message|>z"],
        ("x<|end|><|start|>user<|message|>yz", "", []),
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("units,expected", UNIT_TEXTS)
def test_every_splitting_at_unit_boundaries(
    backend: str, units: List[str], expected: Tuple[str, str, list]
) -> None:
    for chunks in helpers.unit_splittings(units):
        p = core(backend)
        assert helpers.core_outcome(p, chunks) == expected, chunks
        assert p.malformed is False

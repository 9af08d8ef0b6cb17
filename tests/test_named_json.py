"""The ``named_json`` family (``deepseek_v3``, ``deepseek_v31``, ``kimi_k2``): the peers' own test
cases, both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/named_json.rs``), where they differ from a peer:

* text after the section's end marker is content (vLLM's deepseek_v31 and kimi_k2 drop it;
  deepseek_v3 keeps it): nothing the model wrote is lost;
* a call whose arguments are not a JSON object, whose header is not a name (kimi_k2: not
  ``[functions.]NAME:IDX``), or (deepseek) text other than whitespace between the calls of a
  section, is malformed markup: non-streaming gives the original text as content (vLLM's kimi_k2
  returns the other calls, with the bad arguments as written, or skips the bad call);
* a kimi_k2 bare counter id (``0``) names the request's only tool; with several tools it is
  malformed (SGLang and vLLM guess the tool from the argument keys, which needs the whole
  arguments before the name can be sent);
* a section with no call in it is content (deepseek); kimi_k2's section holds only calls, so text
  in it outside a call is dropped and a section with no call in it is markup (the spec's
  ``call.between_calls: "dropped"``, as SGLang reads it).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from toolparse import _core, reference

BACKENDS = ("rust", "python")

# ----- deepseek_v3 (vLLM tests/tool_parsers/test_deepseekv3_tool_parser.py) -----

V3_BEGIN = "<｜tool▁calls▁begin｜>"
V3_END = "<｜tool▁calls▁end｜>"


def v3_call(name: str, args: str) -> str:
    sep = "<｜tool▁sep｜>"
    return f"<｜tool▁call▁begin｜>function{sep}{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"


def v3(*calls: str) -> str:
    return V3_BEGIN + "".join(calls) + V3_END


V3_TYPES = (
    '{"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": true, '
    '"null_field": null, "array_field": ["a", "b", "c"], "object_field": {"nested": "value"}, '
    '"empty_array": [], "empty_object": {}}'
)
V3_ESCAPES = (
    '{"text": "He said \\"hello\\"", "path": "C:\\\\Users\\\\file", "newline": "line1\\nline2"}'
)

V3_CASES = [
    (v3(v3_call("get_weather", '{"city": "Tokyo", "unit": "celsius"}')), None,
     [("get_weather", '{"city": "Tokyo", "unit": "celsius"}')]),
    (
        v3(
            v3_call("get_weather", '{"city": "Tokyo", "unit": "celsius"}'),
            v3_call("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}'),
        ),
        None,
        [
            ("get_weather", '{"city": "Tokyo", "unit": "celsius"}'),
            ("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}'),
        ],
    ),
    (v3(v3_call("test_function", V3_TYPES)), None, [("test_function", V3_TYPES)]),
    (v3(v3_call("get_current_time", "{}")), None, [("get_current_time", "{}")]),
    (
        "Let me check the weather for you." + v3(v3_call("get_weather", '{"city": "Paris"}')),
        "Let me check the weather for you.",
        [("get_weather", '{"city": "Paris"}')],
    ),
    (v3(v3_call("send_message", V3_ESCAPES)), None, [("send_message", V3_ESCAPES)]),
    # vLLM keeps the text after the section as content
    ("A" + v3(v3_call("f", "{}")) + " B", "A B", [("f", "{}")]),
    # pretty-printed arguments (vLLM: "The arguments may be pretty-printed over several lines")
    (v3(v3_call("f", '{\n  "a": [\n    1\n  ]\n}')), None, [("f", '{\n  "a": [\n    1\n  ]\n}')]),
]  # fmt: skip

V3_MALFORMED = [
    v3(v3_call("get_weather", '{"city": "Tokyo"')),
    V3_BEGIN + 'function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```' + V3_END,
]

# ----- deepseek_v31 (vLLM tests/tool_parsers/test_deepseekv31_tool_parser.py) -----


def v31_call(name: str, args: str) -> str:
    return f"<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>"


V31_CASES = [
    (
        "normal text" + V3_BEGIN + v31_call("foo", '{"x":1}') + V3_END,
        "normal text",
        [("foo", '{"x":1}')],
    ),
    (
        # vLLM drops the suffix; it is content here
        "some prefix text" + V3_BEGIN + v31_call("foo", '{"x":1}') + v31_call("bar", '{"y":2}')
        + V3_END + " some suffix text",
        "some prefix text some suffix text",
        [("foo", '{"x":1}'), ("bar", '{"y":2}')],
    ),
    # SGLang's docstring example, with its end-of-sentence token after the section
    (
        V3_BEGIN + v31_call("get_current_weather", '{"location": "Tokyo"}')
        + v31_call("get_current_weather", '{"location": "Paris"}') + V3_END,
        None,
        [("get_current_weather", '{"location": "Tokyo"}'),
         ("get_current_weather", '{"location": "Paris"}')],
    ),
]  # fmt: skip

# vLLM: "A start token with no parsable call must not be reported as a tool call, and must not
# truncate the content."
V31_UNPARSABLE = [
    "Let me look that up.<｜tool▁calls▁begin｜>get_weather",
    '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>',
]

# ----- kimi_k2 (vLLM tests/tool_parsers/test_kimi_k2_tool_parser.py) -----

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
TOOL_BEGIN = "<|tool_call_begin|>"
TOOL_END = "<|tool_call_end|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"


def k_tool(tool_id: str, args: str) -> str:
    return f"{TOOL_BEGIN}{tool_id} {ARG_BEGIN}{args}{TOOL_END}"


def k_wrap(*tools: str) -> str:
    return SECTION_BEGIN + "".join(tools) + SECTION_END


KIMI_CASES = [
    ("I'll check. " + k_wrap(k_tool("functions.get_weather:0", '{"city": "Beijing"}')),
     "I'll check. ", [("functions.get_weather:0", "get_weather", '{"city": "Beijing"}')]),
    (
        "Compare weather. " + k_wrap(
            k_tool("functions.get_weather:0", '{"city": "Beijing"}'),
            k_tool("functions.get_weather:1", '{"city": "Shanghai"}'),
        ),
        "Compare weather. ",
        [("functions.get_weather:0", "get_weather", '{"city": "Beijing"}'),
         ("functions.get_weather:1", "get_weather", '{"city": "Shanghai"}')],
    ),
    (
        "Multiple tasks. " + k_wrap(
            k_tool("functions.get_weather:0", '{"city": "New York"}'),
            k_tool("functions.get_news:1", '{"topic": "technology"}'),
            k_tool(
                "functions.send_email:2", '{"to": "user@example.com", "subject": "Daily Update"}'
            ),
        ),
        "Multiple tasks. ",
        [("functions.get_weather:0", "get_weather", '{"city": "New York"}'),
         ("functions.get_news:1", "get_news", '{"topic": "technology"}'),
         ("functions.send_email:2", "send_email",
          '{"to": "user@example.com", "subject": "Daily Update"}')],
    ),
    ("Process HTML. "
     + k_wrap(k_tool("functions.process_html:0", '{"html": "<div>content</div>"}')),
     "Process HTML. ",
     [("functions.process_html:0", "process_html", '{"html": "<div>content</div>"}')]),
    ("Formatted. "
     + k_wrap(k_tool("functions.process_data:0", '{\n  "name": "test",\n  "value": 123\n}')),
     "Formatted. ",
     [("functions.process_data:0", "process_data", '{\n  "name": "test",\n  "value": 123\n}')]),
    ("No prefix. " + k_wrap(k_tool("get_weather:0", '{"city": "Tokyo"}')),
     "No prefix. ", [("get_weather:0", "get_weather", '{"city": "Tokyo"}')]),
    ("Empty args. " + k_wrap(k_tool("functions.test:0", "{}")),
     "Empty args. ", [("functions.test:0", "test", "{}")]),
    # the model card's layout (SGLang router tests): newlines around the markers, text after
    (
        "Let me help you with that.\n" + SECTION_BEGIN + "\n" + TOOL_BEGIN
        + 'functions.get_weather:0<|tool_call_argument_begin|>{"location": "Tokyo", "units": '
        '"celsius"}' + TOOL_END + "\n" + SECTION_END + "\nThe weather in Tokyo is...",
        "Let me help you with that.\n\nThe weather in Tokyo is...",
        [("functions.get_weather:0", "get_weather", '{"location": "Tokyo", "units": "celsius"}')],
    ),
    # vLLM's engine: no arguments at all is `{}`
    (k_wrap(f"{TOOL_BEGIN}functions.f:0{ARG_BEGIN}{TOOL_END}"), None,
     [("functions.f:0", "f", "{}")]),
    # the section holds only calls (kimi_k2's `call.between_calls: "dropped"`): text in it outside
    # a call is dropped, the calls around it kept (vLLM drops the noise; SGLang finds every call
    # in the section and keeps only the text before it)
    ("Reasoning. " + SECTION_BEGIN + " spurious noise " + k_tool("functions.test:0", '{"k": "v"}')
     + SECTION_END, "Reasoning. ", [("functions.test:0", "test", '{"k": "v"}')]),
    ("Two. " + SECTION_BEGIN + k_tool("functions.a:0", '{"x": 1}') + "\nand then\n"
     + k_tool("functions.b:1", "{}") + " done." + SECTION_END + " After.",
     "Two.  After.", [("functions.a:0", "a", '{"x": 1}'), ("functions.b:1", "b", "{}")]),
    # an empty section is markup, not content (SGLang: the text before it)
    ("Nothing to call. " + SECTION_BEGIN + SECTION_END, "Nothing to call. ", []),
    (SECTION_BEGIN + "\n" + SECTION_END, None, []),
]  # fmt: skip

KIMI_MALFORMED = [
    # vLLM returns both calls, the first with its arguments as written
    "Help. " + SECTION_BEGIN + k_tool("functions.bad:0", '{"city": "Beijing"')
    + k_tool("functions.good:1", '{"city": "Shanghai"}') + SECTION_END,
    # vLLM skips the call with the bad id
    "Help. " + SECTION_BEGIN + k_tool("functions.invalid.0", '{"city": "Beijing"}')
    + k_tool("functions.valid:1", '{"city": "Shanghai"}') + SECTION_END,
]  # fmt: skip

ALL_CASES = (
    [("deepseek_v3", *c) for c in V3_CASES]
    + [("deepseek_v31", *c) for c in V31_CASES]
    + [("kimi_k2", t, content, [(n, a) for _, n, a in calls]) for t, content, calls in KIMI_CASES]
)
ALL_MALFORMED = (
    [("deepseek_v3", t) for t in V3_MALFORMED]
    + [("deepseek_v31", t) for t in V31_UNPARSABLE]
    + [("kimi_k2", t) for t in KIMI_MALFORMED]
)


def streamed(
    fmt: str, backend: str, chunks: List[str], tools: Optional[List[Dict[str, Any]]] = None
) -> Tuple[str, List[Tuple[str, str, str]], bool]:
    """Streams through the facade: (content, [(id, name, arguments)], malformed)."""
    ids = toolparse.IdSource(0)  # (generated ids repeat from run to run)
    rec, s = helpers.stream(
        toolparse.get_parser(fmt, tools=tools, backend=backend, ids=ids), chunks
    )
    calls = [(c.id, c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content, calls, s.malformed


def check(
    fmt: str, backend: str, text: str, content: Optional[str], calls: List[Tuple[str, str]]
) -> None:
    info = helpers.check(
        toolparse.get_parser(fmt, backend=backend), text, content, calls, exact=True
    )
    for c in info.tool_calls:
        assert isinstance(json.loads(c.function.arguments), dict)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text,content,calls", ALL_CASES)
def test_peer_cases(
    backend: str, fmt: str, text: str, content: Optional[str], calls: List[Tuple[str, str]]
) -> None:
    check(fmt, backend, text, content, calls)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text", ALL_MALFORMED)
def test_peer_malformed_cases(backend: str, fmt: str, text: str) -> None:
    info = toolparse.get_parser(fmt, backend=backend).extract_tool_calls(text)
    assert info.tools_called is False
    assert info.tool_calls == []
    assert info.content == text
    for chunks in ([text], list(text)):
        content, calls, malformed = streamed(fmt, backend, chunks)
        assert malformed is True
        # every character is somewhere: the calls streamed before the bad markup, or content
        assert len(content) + sum(len(a) for _, _, a in calls) <= len(text)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,calls", KIMI_CASES)
def test_kimi_ids_are_the_models(
    backend: str, text: str, content: Optional[str], calls: List[Tuple[str, str, str]]
) -> None:
    info = toolparse.get_parser("kimi_k2", backend=backend).extract_tool_calls(text)
    assert [(c.id, c.function.name, c.function.arguments) for c in info.tool_calls] == calls
    assert streamed("kimi_k2", backend, list(text))[1] == calls


def kimi_deltas(content: str, tools: List[Tuple[str, str]]) -> List[str]:
    """vLLM's ``_split_tool_output_to_deltas``: special tokens as separate chunks."""
    deltas = [content, SECTION_BEGIN]
    for tool_id, args in tools:
        deltas += [TOOL_BEGIN, f"{tool_id} ", ARG_BEGIN, f"{args} ", TOOL_END]
    return deltas + [SECTION_END]


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_streaming_as_vllm_feeds_it(backend: str) -> None:
    deltas = kimi_deltas(
        "Multiple tasks. ",
        [
            ("functions.get_weather:0", '{"city": "NYC"}'),
            ("functions.get_news:1", '{"topic": "tech"}'),
            ("functions.send_email:2", '{"to": "a@b.com"}'),
        ],
    )
    content, calls, malformed = streamed("kimi_k2", backend, deltas)
    assert not malformed
    assert content == "Multiple tasks. "
    assert [n for _, n, _ in calls] == ["get_weather", "get_news", "send_email"]
    assert len({i for i, _, _ in calls}) == 3
    # incremental arguments
    deltas = ["Help. ", SECTION_BEGIN, TOOL_BEGIN, "functions.get_weather:0 ", ARG_BEGIN]
    deltas += ['{"ci', 'ty": "Be', 'ijing"}', " ", TOOL_END, SECTION_END]
    content, calls, _ = streamed("kimi_k2", backend, deltas)
    assert calls == [("functions.get_weather:0", "get_weather", '{"city": "Beijing"}')]
    # markers never leak into content
    for m in (SECTION_BEGIN, SECTION_END, TOOL_BEGIN, TOOL_END, ARG_BEGIN):
        assert m not in content


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_truncated_stream(backend: str) -> None:
    deltas = ["I'll check. ", SECTION_BEGIN, TOOL_BEGIN, "functions.get_weather:0 ", ARG_BEGIN]
    deltas.append('{"city": "Bei')
    s = toolparse.get_parser("kimi_k2", backend=backend).stream()
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    for d in [s.feed(c) for c in deltas] + [s.finish()]:
        if d is not None:
            rec.append_delta(d)
    assert s.truncated and not s.malformed
    [tc] = rec.tool_calls
    assert (tc.id, tc.function.name, tc.function.arguments) == (
        "functions.get_weather:0",
        "get_weather",
        '{"city": "Bei',
    )
    assert rec.other_content == "I'll check. "
    corpus.check_truncated_output("kimi_k2", backend, "".join(deltas), 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_singular_section_markers(backend: str) -> None:
    """vLLM's earlier kimi_k2 parser: "Some Kimi K2 checkpoints emit the singular form"."""
    text = (
        "Hi <|tool_call_section_begin|>"
        + k_tool("functions.ping:0", "{}")
        + "<|tool_call_section_end|> bye"
    )
    check("kimi_k2", backend, text, "Hi  bye", [("ping", "{}")])


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_empty_section_is_markup(backend: str) -> None:
    """kimi_k2's section holds only calls, so an empty one is markup, dropped (it used to be kept
    as content; real outputs write one when the model decides against a call, and SGLang keeps
    only the text before it). deepseek's empty section stays content."""
    text = "Reasoning. " + SECTION_BEGIN + SECTION_END
    info = toolparse.get_parser("kimi_k2", backend=backend).extract_tool_calls(text)
    assert not info.tools_called and info.content == "Reasoning. "
    assert not info.truncated
    assert streamed("kimi_k2", backend, list(text)) == ("Reasoning. ", [], False)
    v3 = "Reasoning. " + V3_BEGIN + V3_END
    info = toolparse.get_parser("deepseek_v3", backend=backend).extract_tool_calls(v3)
    assert not info.tools_called and info.content == v3


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_text_between_calls_dropped(backend: str) -> None:
    """Text in a kimi_k2 section outside a call is dropped, under every split, and the calls
    around it are kept (it used to make the whole output malformed)."""
    text = (
        "Let me see. " + SECTION_BEGIN + "first:\n" + k_tool("functions.a:0", '{"q": "x"}')
        + " <|tool_call_end then " + k_tool("functions.b:1", '{"n": 2}') + "\n bye" + SECTION_END
        + " Done."
    )  # fmt: skip
    calls = [("functions.a:0", "a", '{"q": "x"}'), ("functions.b:1", "b", '{"n": 2}')]
    info = toolparse.get_parser("kimi_k2", backend=backend).extract_tool_calls(text)
    assert info.content == "Let me see.  Done."
    assert [(c.id, c.function.name, c.function.arguments) for c in info.tool_calls] == calls
    for chunks in ([text], list(text), corpus.chunks_at(text, range(0, len(text), 5))):
        assert streamed("kimi_k2", backend, chunks) == ("Let me see.  Done.", calls, False)


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_bare_counter(backend: str) -> None:
    text = "Let me check. " + k_wrap(k_tool("0", '{"city": "Tokyo", "unit": "celsius"}'))
    p = toolparse.get_parser("kimi_k2", tools=[WEATHER_TOOL], backend=backend)
    info = p.extract_tool_calls(text)
    assert info.content == "Let me check. "
    assert [(c.id, c.function.name) for c in info.tool_calls] == [("0", "get_weather")]
    assert streamed("kimi_k2", backend, list(text), [WEATHER_TOOL])[1] == [
        ("0", "get_weather", '{"city": "Tokyo", "unit": "celsius"}')
    ]
    # several tools (or none): which one is not known from the header
    for tools in ([WEATHER_TOOL, READ_FILE_TOOL], None):
        p = toolparse.get_parser("kimi_k2", tools=tools, backend=backend)
        info = p.extract_tool_calls(text)
        assert not info.tools_called and info.content == text


@pytest.mark.parametrize("backend", BACKENDS)
def test_kimi_repeated_id_is_not_reused(backend: str) -> None:
    text = k_wrap(k_tool("functions.f:0", "{}"), k_tool("functions.f:0", '{"a": 1}'))
    info = toolparse.get_parser("kimi_k2", backend=backend).extract_tool_calls(text)
    ids = [c.id for c in info.tool_calls]
    assert ids[0] == "functions.f:0"
    assert ids[1].startswith("chatcmpl-tool-")
    core = (_core.extract if backend == "rust" else reference.extract)("kimi_k2", text)
    assert [c[0] for c in core[2]] == ["functions.f:0", None]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fmt,text",
    [
        ("deepseek_v3", V3_CASES[1][0]),
        ("deepseek_v31", V31_CASES[1][0]),
        ("kimi_k2", KIMI_CASES[7][0]),
        ("kimi_k2", KIMI_MALFORMED[1]),
    ],
)
def test_every_split(backend: str, fmt: str, text: str) -> None:
    """Every single cut, and every pair of cuts inside the first call's markup, give one result."""
    whole = streamed(fmt, backend, [text])
    for a in range(len(text) + 1):
        assert streamed(fmt, backend, [text[:a], text[a:]]) == whole, a
    start = max(text.index("<"), 0)
    end = min(len(text), start + 90)
    for a in range(start, end + 1, 2):
        for b in range(a, end + 1, 3):
            assert streamed(fmt, backend, [text[:a], text[a:b], text[b:]]) == whole, (a, b)


@pytest.mark.parametrize("fmt,text", [(c[0], c[1]) for c in ALL_CASES] + ALL_MALFORMED)
def test_twins_agree_per_feed(fmt: str, text: str) -> None:
    helpers.check_twins_per_feed(fmt, text, step=2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_splitting_at_unit_boundaries(backend: str) -> None:
    """The text as units (markers, pieces of headers and arguments): every way of cutting it into
    deltas at unit boundaries gives one result on the core parser."""
    units = ["Hi ", SECTION_BEGIN, "\n", TOOL_BEGIN, "functions.", "get_x", ":0", " ", ARG_BEGIN]
    units += ['{"a"', ": 1}", " ", TOOL_END, SECTION_END, " bye"]
    expected = ("Hi  bye", [("functions.get_x:0", "get_x", '{"a": 1}')])
    for chunks in helpers.unit_splittings(units):
        p = corpus.core_parser(backend, "kimi_k2")
        content, reasoning, calls = helpers.core_outcome(p, chunks)
        assert (content, calls) == expected and reasoning == "", chunks
        assert p.malformed is False


@pytest.mark.parametrize("backend", BACKENDS)
def test_aliases_and_models(backend: str) -> None:
    assert toolparse.spec.canonical("deepseekv3") == "deepseek_v3"
    assert toolparse.spec.canonical("deepseekv31") == "deepseek_v31"
    assert toolparse.format_for_model("deepseek-ai/DeepSeek-V3-0324") == "deepseek_v3"
    assert toolparse.format_for_model("deepseek-ai/DeepSeek-V3.1-Terminus") == "deepseek_v31"
    assert toolparse.format_for_model("moonshotai/Kimi-K2-Instruct-0905") == "kimi_k2"
    text = V31_CASES[0][0]
    info = toolparse.get_parser("deepseekv31", backend=backend).extract_tool_calls(text)
    assert [c.function.name for c in info.tool_calls] == ["foo"]

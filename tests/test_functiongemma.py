"""The ``functiongemma`` format: vLLM's and llama.cpp's own test cases, both backends, streaming
and not, every split.

Decisions this file pins down (see ``rust/formats/functiongemma.rs``), where they differ from a
peer:

* a value between ``<escape>`` tokens that is a JSON number, ``true``, ``false`` or ``null`` is
  that JSON value (vLLM's tests: ``count:<escape>42<escape>`` is ``42``); anything else escaped is
  a string, including ``{...}`` and ``[...]`` (vLLM would ``json.loads`` those too; the
  FunctionGemma template writes objects and arrays bare, which we parse);
* a top-level parameter the request's tool schema types as a string only is always a string
  (``zip:<escape>10001<escape>`` stays ``"10001"``; vLLM ignores the schema);
* bare values (llama.cpp: ``value:25``) are converted the same way; a bare word that is no JSON
  scalar is a string (vLLM drops bare values altogether);
* nested ``{k:v}`` objects and ``[...]`` arrays are nested JSON (vLLM flattens the escaped pairs it
  finds at any depth into the top level);
* text after a call is content, and the text before it is kept as written (vLLM strips it and
  drops what follows the first call);
* the call is complete at its closing ``}``; ``<end_function_call>`` is optional;
* malformed markup inside a call (an empty value, an unbalanced bracket, ``call:`` missing, a
  name with a space) makes non-streaming return the text as content, with no call.
"""

from __future__ import annotations

import json
from typing import List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")
FMT = "functiongemma"
S, E = "<start_function_call>", "<end_function_call>"
ESC = "<escape>"


def call(name: str, body: str, end: str = E) -> str:
    return f"{S}call:{name}{{{body}}}{end}"


def esc(s: str) -> str:
    return ESC + s + ESC


# (text, content, [(name, arguments)])
CASES = [
    # vLLM tests/tool_parsers/test_functiongemma_tool_parser.py: TestExtractToolCalls
    ("Hello, how can I help you today?", "Hello, how can I help you today?", []),
    (call("get_weather", "location:" + esc("London")), None,
     [("get_weather", '{"location": "London"}')]),
    (call("get_weather", f"location:{esc('San Francisco')},unit:{esc('celsius')}"), None,
     [("get_weather", '{"location": "San Francisco", "unit": "celsius"}')]),
    # vLLM strips the text before the call; we keep it as written
    ("Let me check the weather for you. " + call("get_weather", "location:" + esc("Paris")),
     "Let me check the weather for you. ", [("get_weather", '{"location": "Paris"}')]),
    (call("get_weather", "location:" + esc("London")) + call("get_time", "timezone:" + esc("UTC")),
     None, [("get_weather", '{"location": "London"}'), ("get_time", '{"timezone": "UTC"}')]),
    # vLLM TestParseArguments (through a call)
    (call("f", ""), None, [("f", "{}")]),
    (call("f", "city:" + esc("Tokyo")), None, [("f", '{"city": "Tokyo"}')]),
    (call("f", f"city:{esc('Tokyo')},country:{esc('Japan')}"), None,
     [("f", '{"city": "Tokyo", "country": "Japan"}')]),
    (call("f", "count:" + esc("42")), None, [("f", '{"count": 42}')]),
    (call("f", "enabled:" + esc("true")), None, [("f", '{"enabled": true}')]),
    (call("f", "message:" + esc("Hello World")), None, [("f", '{"message": "Hello World"}')]),
    # vLLM TestExtractToolCallsStreaming (whole text here; split below): no commas between members
    (call("get_weather", f"city:{esc('NYC')}unit:{esc('celsius')}"), None,
     [("get_weather", '{"city": "NYC", "unit": "celsius"}')]),
    (call("search", f"query:{esc('python')}limit:{esc('10')}sort:{esc('relevance')}"), None,
     [("search", '{"query": "python", "limit": 10, "sort": "relevance"}')]),
    # llama.cpp tests/test-chat.cpp (FunctionGemma)
    (call("get_weather", "location:" + esc("Tokyo")), None,
     [("get_weather", '{"location": "Tokyo"}')]),
    (call("set_temperature", "value:25"), None, [("set_temperature", '{"value": 25}')]),
    ("Let me check that for you." + call("get_weather", "location:" + esc("London")),
     "Let me check that for you.", [("get_weather", '{"location": "London"}')]),
    # nested objects and arrays, as the template writes them
    (call("register", "user:{name:" + esc("Ann") + ",age:30,tags:[" + esc("a") + ",null]},"
          "m:[[1,2],[],{}],ok:false"), None,
     [("register", '{"user": {"name": "Ann", "age": 30, "tags": ["a", null]}, '
                   '"m": [[1, 2], [], {}], "ok": false}')]),
    # escapes, non-ASCII, markup-looking text inside a string
    (call("write", "text:" + esc('He said "hi"\n\ttab \\ é🎉中 {x} <end_function_call>')), None,
     [("write", json.dumps({"text": 'He said "hi"\n\ttab \\ é🎉中 {x} <end_function_call>'},
                           ensure_ascii=False))]),
    # numbers are normalised as json.dumps(json.loads(v)) writes them
    (call("f", f"a:{esc('3.50')},b:-0,c:1E+2,d:{esc('1.')},e:{esc('-')},g:{esc('')}"), None,
     [("f", '{"a": 3.5, "b": 0, "c": 100.0, "d": "1.", "e": "-", "g": ""}')]),
    # an escaped object or array is a string; a bare word is a string
    (call("f", "o:" + esc('{"a": 1}') + ",l:" + esc("[1]") + ",w:hello"), None,
     [("f", '{"o": "{\\"a\\": 1}", "l": "[1]", "w": "hello"}')]),
    # whitespace around members and values, a trailing comma, a quoted key
    (call("f", f' a: 1 , "b": {esc("x")} , c:[ 1 , 2 ] , '), None,
     [("f", '{"a": 1, "b": "x", "c": [1, 2]}')]),
    # the end marker is optional; text after the call is content
    (call("f", "a:1", end="") + " done", " done", [("f", '{"a": 1}')]),
    (call("f", "a:1") + "\n" + call("g", "", end="") + call("h", "b:true"), None,
     [("f", '{"a": 1}'), ("g", "{}"), ("h", '{"b": true}')]),
    ("A " + call("f", "") + " B " + call("g", "") + " C", "A  B  C", [("f", "{}"), ("g", "{}")]),
    # a number longer than SCALAR_CAP is held no longer: it is a string
    (call("f", "n:" + "1" * 70), None, [("f", json.dumps({"n": "1" * 70}))]),
    (call("f", "n:" + "1" * 64), None, [("f", '{"n": ' + "1" * 64 + "}")]),
]  # fmt: skip

MALFORMED = [
    call("f", "a:"),
    call("f", "a:1]"),
    call("f", "a:[1}"),
    call("f", "a:1 2"),
    call("f", "a b:1"),
    call("f", ",a:1"),
    f"{S}get_weather{{a:1}}{E}",
    f"{S}call:get weather{{}}{E}",
    f"{S}call:{{a:1}}{E}",
    call("f", "a:<oops>"),
    call("f", "a:" + esc("x")) + call("g", "b:{c:}"),
    "Hi " + call("f", "a:1") + " and " + call("g", "k" * 300 + ":1"),
]


def streamed(backend: str, chunks: List[str]) -> Tuple[str, List[Tuple[str, str]], bool, bool]:
    """Streams through the facade: (content, [(name, arguments)], malformed, truncated)."""
    return corpus.stream_outcome(toolparse.get_parser(FMT, backend=backend), chunks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,calls", CASES)
def test_peer_cases(
    backend: str, text: str, content: Optional[str], calls: List[Tuple[str, str]]
) -> None:
    parser = toolparse.get_parser(FMT, backend=backend)
    helpers.check(
        parser, text, content, calls, exact=True, chunkings=helpers.plans(text, sample_over=200)
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed(backend: str, text: str) -> None:
    info = toolparse.get_parser(FMT, backend=backend).extract_tool_calls(text)
    assert (info.tools_called, info.tool_calls, info.content) == (False, [], text)
    for chunks in ([text], list(text)):
        content, calls, malformed, _ = streamed(backend, chunks)
        assert malformed
        # nothing after the bad markup is lost: the rest of the text, end marker included, is
        # content; markup that never started a call is content whole
        assert content.endswith(E)
        if not calls:
            assert content == text


@pytest.mark.parametrize("backend", BACKENDS)
def test_vllm_streaming_chunks(backend: str) -> None:
    """vLLM's streaming regression tests, fed as vLLM feeds them: valid JSON, both keys."""
    chunks = [
        S + "call:get_weather{",
        "ci",
        "ty:" + esc("NYC"),
        "unit:" + esc("celsius"),
        "}" + E,
    ]
    _, calls, malformed, _ = streamed(backend, chunks)
    assert not malformed
    assert [(n, json.loads(a)) for n, a in calls] == [
        ("get_weather", {"city": "NYC", "unit": "celsius"})
    ]
    chunks = [
        S + "call:search{",
        "query:" + esc("python"),
        "limit:" + esc("10"),
        "sort:" + esc("relevance"),
        "}" + E,
    ]
    _, calls, _, _ = streamed(backend, chunks)
    assert json.loads(calls[0][1]) == {"query": "python", "limit": 10, "sort": "relevance"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_strings_stream_as_they_arrive(backend: str) -> None:
    """A string is sent before its closing escape; a number is held until it ends."""
    p = corpus.core_parser(backend, FMT)
    assert p.feed(S + "call:f{a:" + ESC + "Hel") == (
        None,
        None,
        [(0, None, "f", '{"a": "Hel')],
    )
    assert p.feed("lo" + ESC + ",n:12") == (None, None, [(0, None, None, 'lo", "n": ')])
    assert p.feed("3}") == (None, None, [(0, None, None, "123}")])
    assert p.feed(E) is None
    assert p.finish() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_truncated(backend: str) -> None:
    text = "Hi " + call("f", "a:1") + S + "call:g{b:" + ESC + "par"
    corpus.check_truncated_output(FMT, backend, text, 1)
    _, calls, malformed, truncated = streamed(backend, list(text))
    assert (calls, malformed, truncated) == ([("f", '{"a": 1}'), ("g", '{"b": "par')], False, True)


EVERY_SPLIT = [
    CASES[16][0],
    CASES[18][0],
    CASES[22][0],
    MALFORMED[1],
    MALFORMED[10],
    corpus.TRUNCATED[FMT][4][0],
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", EVERY_SPLIT)
def test_every_split(backend: str, text: str) -> None:
    """Every single cut, and pairs of cuts (sampled), give the result of the whole text."""
    whole = streamed(backend, [text])
    for a in range(len(text) + 1):
        assert streamed(backend, [text[:a], text[a:]]) == whole, a
    for a in range(0, len(text) + 1, 5):
        for b in range(a, len(text) + 1, 7):
            assert streamed(backend, [text[:a], text[a:b], text[b:]]) == whole, (a, b)


@pytest.mark.parametrize(
    "text", [c[0] for c in CASES] + MALFORMED + [t for t, _ in corpus.TRUNCATED[FMT]]
)
def test_twins_agree_per_feed(text: str) -> None:
    helpers.check_twins_per_feed(FMT, text, step=3)


def test_scalar_prefix_twins() -> None:
    from toolparse.reference.functiongemma import scalar_prefix

    yes = ["", "-", "0", "-0.5e+", "12", "1.", "1e5", "tr", "null", "f", "-12.5E-3"]
    no = ["01", "a", "1x", "truex", "--1", "1.5.", " 1", "1e5e", ".5", "+1", "nul l"]
    assert all(scalar_prefix(s) for s in yes)
    assert not any(scalar_prefix(s) for s in no)


@pytest.mark.parametrize("backend", BACKENDS)
def test_spec_and_model(backend: str) -> None:
    assert toolparse.format_for_model("google/functiongemma-270m-it") == FMT
    spec = toolparse.spec.get_spec(FMT)
    assert spec.markers["call_start"] == S and spec.markers["string"] == ESC
    assert spec.aliases == ()


def _tool(props: dict) -> list:
    return [{"type": "function", "function": {"name": "f", "parameters": {"properties": props}}}]


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_typed_parameters_stay_strings(backend: str) -> None:
    """A top-level parameter typed as a string only keeps its escaped (or bare) text as a string;
    other parameters, nested members and a request without tools convert scalars."""
    text = call("f", f"zip:{esc('10001')},n:{esc('42')},b:true,o:{{zip:{esc('7')}}},w:12")
    tools = _tool(
        {
            "zip": {"type": "string"},
            "n": {"type": "integer"},
            "o": {"type": "object"},
            "w": {"type": "string"},
        }
    )
    typed = '{"zip": "10001", "n": 42, "b": true, "o": {"zip": 7}, "w": "12"}'
    untyped = '{"zip": 10001, "n": 42, "b": true, "o": {"zip": 7}, "w": 12}'
    for t, want in ((tools, typed), (None, untyped)):
        p = toolparse.get_parser(FMT, tools=t, backend=backend)
        info = p.extract_tool_calls(text)
        assert [c.function.arguments for c in info.tool_calls] == [want]
        for chunks in ([text], list(text)):
            s = p.stream()
            rec = toolparse.StreamingToolReconstructor()
            for d in [s.feed(c) for c in chunks] + [s.finish()]:
                if d is not None:
                    rec.append_delta(d)
            assert [c.function.arguments for c in rec.tool_calls] == [want]
    types = {"f": {"zip": ["string"], "w": ["string"]}}
    for k in range(len(text) + 1):
        outs = []
        for b in BACKENDS:
            p = corpus.core_parser(b, FMT, types)
            outs.append([p.feed(text[:k]), p.feed(text[k:]), p.finish()])
        assert outs[0] == outs[1], k

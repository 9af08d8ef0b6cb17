"""Variant formats: formats that fit an existing family with a spec entry: ``gemma4``
(functiongemma), ``plamo3`` (named_json), ``ling3``, ``spark25``, ``iquest_q1`` (xml_params)
and ``trinity`` (tagged_json). The peers' own test cases, both backends, streaming and not,
every split of short texts.

Decisions this file pins down, where they differ from a peer:

* gemma4: a value between ``<|"|>`` tokens is always a string (SGLang; vLLM without a tool
  schema), bare numbers and literals are typed (SGLang, vLLM's own tests, Gemma 4's template,
  which escapes strings only; vLLM 0.33's engine keeps bare values as strings when the request
  has no schema); a map key written between ``<|"|>`` tokens is read whole (vLLM's test); text
  before a call is kept as written (vLLM strips it) and text after it is content; without a
  reasoning format a thought block ``<|channel>...<channel|>`` is content, whole (vLLM's engine
  always reads it as reasoning; toolparse does with ``reasoning="gemma4"``);
* plamo3: the arguments marker is ``<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json
  <|plamo:msg|>`` (vLLM 0.33's engine); a section left open keeps its complete calls (vLLM drops
  them: "rejects incomplete request"); an end-of-turn ``<|plamo:tag|>`` is markup, dropped in every
  state (the spec's ``turn_end``; vLLM's engine drops it too);
* ling3 / iquest_q1 / spark25: the glm family's rules (``xml_params``); a malformed call among
  good ones makes the output content (SGLang's iquest_q1 skips it and keeps the others);
  spark25's boolean ``1``/``0`` stay strings and a string-typed ``null`` stays ``"null"``
  (SGLang's Spark2.5 converter reads them as ``true``/``false`` and ``null``);
* trinity: hermes' rules; ``<think>`` tags are content (SGLang deletes the tags and keeps the
  text between them), a call inside a think block is still a call (as in SGLang).
"""

from __future__ import annotations

import json
from typing import Any, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")
Calls = List[Tuple[str, str]]

# ----- gemma4 (vLLM tests/tool_parsers/test_gemma4_tool_parser.py, SGLang gemma4_detector) -----

G4S, G4E, Q = "<|tool_call>", "<tool_call|>", '<|"|>'


def g4(name: str, body: str, end: str = G4E) -> str:
    return f"{G4S}call:{name}{{{body}}}{end}"


def q(s: str) -> str:
    return Q + s + Q


# (format, text, content, [(name, arguments)], tools)
CASES: List[Tuple[str, str, Optional[str], Calls, Any]] = [
    ("gemma4", "Hello, how can I help you today?", "Hello, how can I help you today?", [], None),
    ("gemma4", g4("get_weather", "location:" + q("London")), None,
     [("get_weather", '{"location": "London"}')], None),
    ("gemma4", g4("get_weather", f"location:{q('San Francisco')},unit:{q('celsius')}"), None,
     [("get_weather", '{"location": "San Francisco", "unit": "celsius"}')], None),
    ("gemma4", g4("get_weather", "location:" + q("Paris, France")), None,
     [("get_weather", '{"location": "Paris, France"}')], None),
    # vLLM strips the text before the call; we keep it as written
    ("gemma4", "Let me check the weather for you. " + g4("get_weather", "location:" + q("Paris")),
     "Let me check the weather for you. ", [("get_weather", '{"location": "Paris"}')], None),
    ("gemma4", g4("get_weather", "location:" + q("London")) + g4("get_time", "tz:" + q("UTC")),
     None, [("get_weather", '{"location": "London"}'), ("get_time", '{"tz": "UTC"}')], None),
    ("gemma4", g4("complex_function", f"nested:{{inner:{q('value')}}},list:[{q('a')},{q('b')}]"),
     None, [("complex_function", '{"nested": {"inner": "value"}, "list": ["a", "b"]}')], None),
    ("gemma4", g4("set_status", "is_active:true,count:42,score:3.14"), None,
     [("set_status", '{"is_active": true, "count": 42, "score": 3.14}')], None),
    ("gemma4", g4("get-weather", "location:" + q("London")), None,
     [("get-weather", '{"location": "London"}')], None),
    ("gemma4", g4("weather.get", "location:" + q("London")), None,
     [("weather.get", '{"location": "London"}')], None),
    ("gemma4", g4("get_status", ""), None, [("get_status", "{}")], None),
    ("gemma4", g4("f", "param:null,flag:false"), None, [("f", '{"param": null, "flag": false}')],
     None),
    ("gemma4", g4("f", f"record_map:{{{q('3')}:{q('new text')}}}"), None,
     [("f", '{"record_map": {"3": "new text"}}')], None),
    ("gemma4", g4("f", f"outer:{{inner:{{{q('3')}:{q('new text')}}}}}"), None,
     [("f", '{"outer": {"inner": {"3": "new text"}}}')], None),
    ("gemma4", g4("f", f"items:[{q('a')},{q('b')}],n:[42,true,3.14]"), None,
     [("f", '{"items": ["a", "b"], "n": [42, true, 3.14]}')], None),
    # an escaped value is a string, whatever it reads as (SGLang; vLLM without a schema)
    ("gemma4", g4("f", f"n:{q('42')},b:{q('true')},o:{q('{}')}"), None,
     [("f", '{"n": "42", "b": "true", "o": "{}"}')], None),
    ("gemma4", g4("write_file", f"path:{q('index.html')},content:" + q("<!DOCTYPE html>\n<html>")),
     None, [("write_file", '{"path": "index.html", "content": "<!DOCTYPE html>\\n<html>"}')], None),
    ("gemma4", g4("get_weather", "location:" + q("Paris")) + "<div>", "<div>",
     [("get_weather", '{"location": "Paris"}')], None),
    # SGLang: text before and after the calls is content
    ("gemma4", "Hi " + g4("get_weather", "location:" + q("Tokyo")) + " after", "Hi  after",
     [("get_weather", '{"location": "Tokyo"}')], None),
    # a bare key runs to its ":" and may hold spaces (vLLM's and SGLang's gemma4 parsers read a
    # key up to ":" and strip it), at any depth; it was malformed markup before
    ("gemma4", g4("f", "key with space:1.5e-05"), None, [("f", '{"key with space": 1.5e-05}')],
     None),
    ("gemma4", g4("f", f"outer:{{inner key:{q('x y')}, deep:{{a b :[1,2]}}}}, other key :true"),
     None, [("f", '{"outer": {"inner key": "x y", "deep": {"a b": [1, 2]}}, "other key": true}')],
     None),
    # with no reasoning format, a thought block is content, both its halves kept (with the
    # gemma4 reasoning format it is reasoning wherever it stands, tests/test_reasoning.py); so
    # is a stray channel end (it was dropped, the opener kept, before)
    ("gemma4", "Answer<channel|>" + g4("f", "a:1") + "<channel|>", "Answer<channel|><channel|>",
     [("f", '{"a": 1}')], None),
    ("gemma4", "Before\n<|channel>thought\nabc<channel|>\nrest" + g4("f", "a:1"),
     "Before\n<|channel>thought\nabc<channel|>\nrest", [("f", '{"a": 1}')], None),
    ("gemma4", "<|channel>thought\nabc<channel|>x", "<|channel>thought\nabc<channel|>x", [], None),
]  # fmt: skip

# ----- plamo3 (vLLM tests/tool_parsers/test_plamo3_tool_parser.py, vLLM 0.33's markers) -----

PL = "<|plamo:"
PL_SEC, PL_SEC_END = PL + "begin_tool_requests:plamo|>", PL + "end_tool_requests:plamo|>"
PL_CALL, PL_CALL_END = PL + "begin_tool_request:plamo|>", PL + "end_tool_request:plamo|>"
PL_NAME, PL_NAME_END = PL + "begin_tool_name:plamo|>", PL + "end_tool_name:plamo|>"
PL_ARGS = PL + "begin_tool_arguments:plamo|>" + PL + "constrain|>json" + PL + "msg|>"
PL_ARGS_END = PL + "end_tool_arguments:plamo|>"
EOT = PL + "tag|>"


def pl_call(name: str, args: str) -> str:
    return f"{PL_CALL}{PL_NAME}{name}{PL_NAME_END}{PL_ARGS}{args}{PL_ARGS_END}{PL_CALL_END}"


def pl(*calls: str) -> str:
    return PL_SEC + "".join(calls) + PL_SEC_END


CASES += [
    ("plamo3", "Regular response", "Regular response", [], None),
    ("plamo3", "Checking the weather." + pl(pl_call("get_weather", '{"city": "Tokyo"}')),
     "Checking the weather.", [("get_weather", '{"city": "Tokyo"}')], None),
    ("plamo3", pl(pl_call("echo", '{"text": "hi"}'), pl_call("sum", '{"a": 1, "b": 2}')), None,
     [("echo", '{"text": "hi"}'), ("sum", '{"a": 1, "b": 2}')], None),
    ("plamo3", pl(pl_call("now", "{}")), None, [("now", "{}")], None),
    # the end-of-arguments marker may be missing (the call's end closes the arguments)
    ("plamo3", pl(f"{PL_CALL}{PL_NAME}f{PL_NAME_END}{PL_ARGS}{{\"a\": 1}}{PL_CALL_END}"), None,
     [("f", '{"a": 1}')], None),
    # pretty-printed arguments and whitespace between calls
    ("plamo3", pl(pl_call("f", '{\n  "a": [1, 2]\n}'), "\n", pl_call("g", "{}")), None,
     [("f", '{\n  "a": [1, 2]\n}'), ("g", "{}")], None),
    # the end-of-turn tag is markup, dropped wherever it stands (vLLM's plamo3 engine has it as a
    # terminal in every state; it was content here before)
    ("plamo3", "Before." + pl(pl_call("f", "{}")) + EOT, "Before.", [("f", "{}")], None),
    ("plamo3", "Be" + EOT + "fore." + EOT, "Before.", [], None),
]  # fmt: skip

# ----- ling3 / iquest_q1 / spark25 (SGLang ling3/iquest_q1/spark25 detectors and tests) -----

SET_STATE = [
    {
        "type": "function",
        "function": {
            "name": "set_state",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "count": {"type": "integer"},
                    "ratio": {"type": "number"},
                    "active": {"type": "boolean"},
                    "items": {"type": "array"},
                    "metadata": {"type": "object"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {"name": "now", "parameters": {"type": "object", "properties": {}}},
    },
]


def xml(
    name: str,
    args: List[Tuple[str, str]],
    s: str = "<tool_call>",
    e: str = "</tool_call>",
    nl: str = "",
) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in args)
    return f"{s}{name}{nl}{pairs}{e}"


IQ = ("<iquest_tool_call>", "</iquest_tool_call>")
STATE_ARGS = [
    ("name", "上海"),
    ("count", "42"),
    ("ratio", "2.5"),
    ("items", '["a", "b"]'),
    ("metadata", '{"source":"spark"}'),
]
STATE_JSON = (
    '{"name": "上海", "count": 42, "ratio": 2.5, "items": ["a", "b"], '
    '"metadata": {"source": "spark"}}'
)

CASES += [
    ("spark25", "before" + xml("set_state", STATE_ARGS) + "middle" + xml("now", []) + "after",
     "beforemiddleafter", [("set_state", STATE_JSON), ("now", "{}")], SET_STATE),
    ("spark25", xml("set_state", [("count", "x1"), ("active", "false"), ("undeclared", "42")]),
     None, [("set_state", '{"count": "x1", "active": false, "undeclared": "42"}')], SET_STATE),
    # SGLang reads boolean 1/0 as true/false and a string-typed null as null; we do not
    ("spark25", xml("set_state", [("name", "null"), ("active", "1")]), None,
     [("set_state", '{"name": "null", "active": "1"}')], SET_STATE),
    ("spark25", "answer:" + xml("set_state", [("count", "42"), ("active", "false")], nl="\n")
     + xml("now", []) + "done", "answer:done",
     [("set_state", '{"count": 42, "active": false}'), ("now", "{}")], SET_STATE),
    ("spark25", "x<tool_call></tool_call>y", "x<tool_call></tool_call>y", [], SET_STATE),
    # ling3: a newline after the name, the first argument at once, or no argument at all
    ("ling3", "Hi" + xml("set_state", [("count", "3")]), "Hi", [("set_state", '{"count": 3}')],
     SET_STATE),
    ("ling3", xml("set_state", [("count", "3")], nl="\n"), None, [("set_state", '{"count": 3}')],
     SET_STATE),
    ("ling3", "Hi" + xml("now", []), "Hi", [("now", "{}")], SET_STATE),
    ("ling3", xml("set_state", [("name", "a<b")]) + xml("now", []), None,
     [("set_state", '{"name": "a<b"}'), ("now", "{}")], SET_STATE),
    ("iquest_q1", xml("set_state", [("count", "1"), ("name", "x")], *IQ) + "after", "after",
     [("set_state", '{"count": 1, "name": "x"}')], SET_STATE),
    ("iquest_q1", xml("now", [], *IQ), None, [("now", "{}")], SET_STATE),
    # the glm tags are text in iquest_q1
    ("iquest_q1", "<tool_call>now</tool_call>", "<tool_call>now</tool_call>", [], SET_STATE),
]  # fmt: skip

# ----- trinity (SGLang trinity_detector: Qwen 2.5's hermes calls) -----


def tc(name: str, args: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


CASES += [
    ("trinity", tc("get_weather", {"city": "Paris"}), None,
     [("get_weather", '{"city": "Paris"}')], None),
    ("trinity", "Let me check." + tc("get_weather", {"city": "Paris"}) + tc("search", {"q": "x"}),
     "Let me check.", [("get_weather", '{"city": "Paris"}'), ("search", '{"q": "x"}')], None),
    # SGLang deletes the think tags; we keep every character (a reasoning parser takes them)
    ("trinity", "<think>reasoning</think>hello", "<think>reasoning</think>hello", [], None),
    # a call inside a think block is a call (as in SGLang)
    ("trinity", "<think>" + tc("get_weather", {"city": "Paris"}) + "</think>", "<think></think>",
     [("get_weather", '{"city": "Paris"}')], None),
]  # fmt: skip

# Malformed markup (the peers' own where they have one): content fallback, no call.
MALFORMED = [
    ("gemma4", g4("f", "a:")),
    ("gemma4", f"{G4S}call:get weather{{}}{G4E}"),
    # (a key followed by text and ":" is a key now that bare keys may hold spaces, as both servers
    # read them; with no ":" it is still malformed)
    ("gemma4", g4("f", f"{q('k')}x y")),
    ("plamo3", pl(pl_call("f", '{"a": 1]'))),
    ("plamo3", pl(pl_call("a b", "{}"))),
    ("iquest_q1", "<iquest_tool_call>run<arg_key>count</arg_key>1</iquest_tool_call>"),
    ("iquest_q1", xml("now", [], *IQ) + "<iquest_tool_call>run<arg_key>count</arg_key>"
     "junk</iquest_tool_call>" + xml("now", [], *IQ)),
    ("ling3", "<tool_call>f<arg_key>a</arg_key>junk</tool_call>"),
    ("spark25", "<tool_call>f\njunk\n</tool_call>"),
    ("trinity", '<tool_call>{"name": "f", "arguments": {"a": tru}}</tool_call>'),
]  # fmt: skip


def streamed(fmt: str, backend: str, chunks: List[str], tools: Any = None) -> Tuple[Any, ...]:
    """Streams through the facade: (content, [(name, arguments)], malformed, truncated)."""
    return corpus.stream_outcome(toolparse.get_parser(fmt, tools=tools, backend=backend), chunks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text,content,calls,tools", CASES)
def test_peer_cases(
    backend: str, fmt: str, text: str, content: Optional[str], calls: Calls, tools: Any
) -> None:
    parser = toolparse.get_parser(fmt, tools=tools, backend=backend)
    helpers.check(
        parser, text, content, calls, exact=True, chunkings=helpers.plans(text, sample_over=200)
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text", MALFORMED)
def test_malformed(backend: str, fmt: str, text: str) -> None:
    info = toolparse.get_parser(fmt, tools=SET_STATE, backend=backend).extract_tool_calls(text)
    assert (info.tools_called, info.tool_calls, info.content) == (False, [], text)
    for chunks in ([text], list(text)):
        content, calls, malformed, _ = streamed(fmt, backend, chunks, SET_STATE)
        assert malformed
        if not calls:
            assert content == text


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemma4_streaming_chunks(backend: str) -> None:
    """vLLM's streaming regressions, fed as vLLM feeds them."""
    for chunks, want in (
        (["<|tool_call>", "call:get_weather{", 'location:<|"|>Paris', ", France", '<|"|>}',
          "<tool_call|>"], {"location": "Paris, France"}),
        (["<|tool_call>", "call:todowrite{", 'content:<|"|>Buy milk<|', '"|>}', "<tool_call|>"],
         {"content": "Buy milk"}),
        (["<|tool_call>", "call:search{input:{all:tru", "e}}", "<tool_call|>"],
         {"input": {"all": True}}),
        (["<|tool_call>", "call:set{count:4", "2}", "<tool_call|>"], {"count": 42}),
        (["<|tool_call>", "call:Edit{", 'file_path:<|"|>src/env.py<|"|>,', "replace_all:",
          "false}", "<tool_call|>"], {"file_path": "src/env.py", "replace_all": False}),
    ):  # fmt: skip
        content, calls, malformed, _ = streamed("gemma4", backend, chunks)
        assert (content, malformed) == ("", False)
        assert len(calls) == 1 and json.loads(calls[0][1]) == want
        assert "<|" not in calls[0][1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemma4_strings_stream_as_they_arrive(backend: str) -> None:
    """An escaped value is a string at once (nothing held while it reads as a number)."""
    p = corpus.core_parser(backend, "gemma4")
    assert p.feed(G4S + "call:f{a:" + Q + "12") == (None, None, [(0, None, "f", '{"a": "12')])
    assert p.feed("3" + Q + ",n:12") == (None, None, [(0, None, None, '3", "n": ')])
    assert p.feed("3}") == (None, None, [(0, None, None, "123}")])
    assert p.feed(G4E) is None
    assert p.finish() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemma4_schema_types_a_string_parameter(backend: str) -> None:
    """A bare value of a string-typed parameter stays a string (vLLM coerces by schema)."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"zip": {"type": "string"}, "n": {"type": "integer"}},
                },
            },
        }
    ]
    text = g4("f", "zip:10001,n:7")
    info = toolparse.get_parser("gemma4", tools=tools, backend=backend).extract_tool_calls(text)
    assert [c.function.arguments for c in info.tool_calls] == ['{"zip": "10001", "n": 7}']


@pytest.mark.parametrize("backend", BACKENDS)
def test_plamo3_incomplete_requests(backend: str) -> None:
    """vLLM's "incomplete request" cases: the section never closes. vLLM's non-streaming drops
    every call there; its streaming keeps a call once its arguments are complete. We follow the
    stream in both modes (the family's rule: the call and section end markers are optional once
    the arguments object closed); a call cut before that is truncation."""
    name_prefix = PL_CALL + PL_NAME + "sum"
    named = name_prefix + PL_NAME_END
    args_prefix = named + PL_ARGS + '{"a": 1}'
    done = [("sum", '{"a": 1}')]
    for rest, want in (
        ("", []),
        (PL_CALL, []),
        (name_prefix, []),
        (named, []),
        (args_prefix, done),
        (args_prefix + PL_ARGS_END, done),
        (pl_call("sum", '{"a": 1}'), done),
        (pl_call("sum", '{"a": 1}') + PL_SEC_END, done),
    ):
        text = "Before tools." + PL_SEC + rest
        info = toolparse.get_parser("plamo3", backend=backend).extract_tool_calls(text)
        got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
        assert got == want, rest
        # nothing completed: the output whole is content (nothing is lost), but the section
        # start (and a call start) with nothing after it is a cut before a call began: markup
        whole = "Before tools." if want or rest in ("", PL_CALL) else text
        assert info.content == whole
        assert info.truncated == (not want)
        content, calls, malformed, truncated = streamed("plamo3", backend, [text])
        assert (calls, malformed, truncated) == (want, False, not want)
        assert content.startswith("Before tools.")


@pytest.mark.parametrize("backend", BACKENDS)
def test_iquest_q1_unclosed_value(backend: str) -> None:
    """SGLang's malformed case ``<arg_value>1</iquest_tool_call>``: a glm value runs to its
    ``</arg_value>`` (it may hold the call's end tag as text), so this is a call cut off: no
    call, the output whole as content (SGLang: the same), and ``truncated``."""
    text = "<iquest_tool_call>run<arg_key>count</arg_key><arg_value>1</iquest_tool_call>"
    info = toolparse.get_parser("iquest_q1", backend=backend).extract_tool_calls(text)
    assert (info.tool_calls, info.content, info.truncated) == ([], text, True)
    content, calls, malformed, truncated = streamed("iquest_q1", backend, list(text))
    assert (malformed, truncated) == (False, True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", corpus.OTHER_FORMATS)
def test_truncated(backend: str, fmt: str) -> None:
    for text, n in corpus.TRUNCATED[fmt]:
        corpus.check_truncated_output(fmt, backend, text, n)


# Short texts split at every cut and at sampled pairs of cuts.
EVERY_SPLIT = [
    ("gemma4", CASES[12][1], None),
    ("gemma4", "A " + g4("f", f"s:{q('x<y')},n:-1.5e3") + " B", None),
    ("plamo3", CASES[21][1], None),
    ("spark25", CASES[29][1], SET_STATE),
    ("ling3", CASES[31][1], SET_STATE),
    ("iquest_q1", CASES[35][1], SET_STATE),
    ("trinity", CASES[39][1], None),
    ("gemma4", MALFORMED[2][1], None),
    ("gemma4", g4("f", f"outer:{{inner key:{q('x y')}}}, o k :true") + "<channel|>", None),
    ("plamo3", corpus.TRUNCATED["plamo3"][3][0], None),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text,tools", EVERY_SPLIT)
def test_every_split(backend: str, fmt: str, text: str, tools: Any) -> None:
    """Every single cut, and pairs of cuts (sampled), give the result of the whole text."""
    whole = streamed(fmt, backend, [text], tools)
    for a in range(len(text) + 1):
        assert streamed(fmt, backend, [text[:a], text[a:]], tools) == whole, a
    step = max(3, len(text) // 25)
    for a in range(0, len(text) + 1, step):
        for b in range(a, len(text) + 1, step + 2):
            assert streamed(fmt, backend, [text[:a], text[a:b], text[b:]], tools) == whole, (a, b)


@pytest.mark.parametrize(
    "fmt,text",
    [(c[0], c[1]) for c in CASES]
    + MALFORMED
    + [(f, t) for f in corpus.OTHER_FORMATS for t, _ in corpus.TRUNCATED[f]],
)
def test_twins_agree_per_feed(fmt: str, text: str) -> None:
    helpers.check_twins_per_feed(fmt, text, step=7)


def test_spec_entries() -> None:
    spec = toolparse.spec
    assert spec.get_spec("gemma4").family == "functiongemma"
    assert spec.get_spec("gemma4").call.escaped == "string"
    assert spec.get_spec("plamo3").family == "named_json"
    assert spec.get_spec("plamo3").markers["args_start"] == PL_NAME_END + PL_ARGS
    for fmt in ("ling3", "spark25", "iquest_q1"):
        assert spec.get_spec(fmt).family == "xml_params"
    assert spec.get_spec("ling3").markers == spec.get_spec("glm47").markers
    assert spec.get_spec("trinity").markers == spec.get_spec("hermes").markers
    # functiongemma keeps typing escaped scalars (its own tests pin `count:<escape>42<escape>`)
    assert spec.get_spec("functiongemma").call.escaped == "typed"
    assert toolparse.format_for_model("google/gemma-4-31B-it") == "gemma4"
    assert toolparse.format_for_model("google/functiongemma-270m-it") == "functiongemma"

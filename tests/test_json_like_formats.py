"""The JSON-like variant formats: the peers' own test cases, both backends, streaming under every
split of the short texts, and non-streaming.

Each is a spec entry in an existing family:

* ``qwen3_json`` (tagged_json): vLLM registers its hermes parser under this name (its TODO: "treat
  the template's newline before and between ``<tool_call>`` blocks as framing", which our
  whitespace rule already does); an entry of its own, since vLLM names it, with the Qwen model
  patterns (hermes keeps SGLang's ``qwen`` / ``qwen25`` aliases: the same wire format);
* ``llama4_json`` (llama3_json's machine): vLLM's ``Llama3JsonToolParser`` under another name;
* ``ernie45`` (tagged_json): ``<tool_call>`` JSON whose ``arguments`` is an object;
* ``granite-20b-fc`` (tagged_json): ``<function_call> {...}`` with no end marker;
* ``apertus`` (tagged_json, ``call.keyed_by_name``): ``<|tools_prefix|>[{NAME: {...}}, ...]
  <|tools_suffix|>``;
* ``cohere_command3`` / ``cohere_command4`` (tagged_json): ``<|START_ACTION|>[{"tool_call_id",
  "tool_name", "parameters"}, ...]<|END_ACTION|>``; the content's wrapper markers
  (``<|START_RESPONSE|>``/``<|END_RESPONSE|>``, ``<|START_TEXT|>``/``<|END_TEXT|>``, spec roles
  ``text_start``/``text_end``) are markup and dropped; a call's ``tool_call_id`` (``call.id_keys``)
  is its id, as vLLM's; the thinking block is the reasoning front's, not the tool format's;
* ``dots`` and ``gigachat35`` (xml_params): minimax_m2's and deepseek_v32's wire formats in
  their own wrappers.

Where we differ from a peer, a test says so: a call cut before it closed is not a call (truncated
output keeps only complete calls; vLLM's apertus returns the partial call); a tool name the request
did not offer is still a call (vLLM's dots drops it: a server concern); cohere's citations
(``<co>...</co: ...>``) stay text (vLLM's melody filter turns them into citation objects). dots'
JSON body inside ``<dots_function_call>`` is read as SGLang's dots detector does (one call object:
the spec's ``call.name_keys`` / ``call.args_keys``); JSON there that is not a call object is
malformed markup.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest
import toolparse
from test_tagged_json import Expected, check, check_malformed, extract, plans, stream

params = pytest.mark.parametrize("backend", ("rust", "python"))


def tool(name: str, properties: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


def check_typed(
    fmt: str,
    backend: str,
    tools: List[Dict[str, Any]],
    text: str,
    content: Optional[str],
    calls: Expected,
) -> None:
    """As ``check``, for the formats whose arguments are typed by the tools (XML parameters)."""
    p = toolparse.get_parser(fmt, tools=tools, backend=backend)
    info = p.extract_tool_calls(text)
    got = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
    assert got == calls
    assert info.content == content
    for chunks in plans(text):
        s = toolparse.get_parser(fmt, tools=tools, backend=backend).stream()
        rec = toolparse.StreamingToolReconstructor()
        for d in [s.feed(c) for c in chunks] + [s.finish()]:
            if d is not None:
                rec.append_delta(d)
        assert not s.malformed, chunks
        streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert streamed == [(c.function.name, c.function.arguments) for c in info.tool_calls]
        assert rec.other_content == (content or ""), chunks


# ------------------------------------------------------------------------------------------------
# qwen3_json, llama4_json: other names vLLM gives hermes' and llama3_json's parsers
# ------------------------------------------------------------------------------------------------

QWEN = (
    "Let me check both.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>\n<tool_call>\n'
    '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>\n'
)


@params
def test_qwen3_json_is_hermes_wire_format(backend: str) -> None:
    calls = [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})]
    check("qwen3_json", backend, QWEN, "Let me check both.\n", calls)
    for text in (QWEN, QWEN.replace("<tool_call>", "<tool_call>x")):
        ours, hermes = extract("qwen3_json", backend, text), extract("hermes", backend, text)
        assert ours.model_dump(exclude={"tool_calls"}) == hermes.model_dump(exclude={"tool_calls"})
        assert [c.function for c in ours.tool_calls] == [c.function for c in hermes.tool_calls]
    assert toolparse.format_for_model("Qwen/Qwen3-8B") == "qwen3_json"


@params
def test_llama4_json_is_llama3_json_wire_format(backend: str) -> None:
    text = (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}; '
        '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'
    )
    calls = [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})]
    check("llama4_json", backend, text, None, calls)
    check("llama4_json", backend, "Plain text { not a call", "Plain text { not a call", [])


# ------------------------------------------------------------------------------------------------
# ernie45 (vLLM tests/tool_parsers/test_ernie45_moe_tool_parser.py)
# ------------------------------------------------------------------------------------------------

BEIJING = '{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}'
GUANGZHOU = '{"name": "get_temperature_unit", "arguments": {"location": "Guangzhou", "unit": "c"}}'
ERNIE_CALLS = [
    ("get_current_temperature", {"location": "Beijing"}),
    ("get_temperature_unit", {"location": "Guangzhou", "unit": "c"}),
]


@params
@pytest.mark.parametrize(
    "text,content,n",
    [
        (f"<tool_call>\n{BEIJING}\n</tool_call>\n", None, 1),
        (f"<tool_call>\n{BEIJING}\n</tool_call>\n<tool_call>\n{GUANGZHOU}\n</tool_call>", None, 2),
        # vLLM's content is the text before the first call with its newlines stripped; ours keeps
        # the text exactly (the newlines between "</think>" and the call are not only whitespace
        # next to a call: they end a segment holding text)
        (
            "I need to call two tools to handle these two issues separately.\n</think>\n\n"
            f"<tool_call>\n{BEIJING}\n</tool_call>\n<tool_call>\n{GUANGZHOU}\n</tool_call>\n",
            "I need to call two tools to handle these two issues separately.\n</think>\n\n",
            2,
        ),
    ],
)
def test_ernie45(backend: str, text: str, content: Optional[str], n: int) -> None:
    check("ernie45", backend, text, content, ERNIE_CALLS[:n])


@params
def test_ernie45_response_wrapper_is_markup(backend: str) -> None:
    # vLLM's ernie45 drops "<response>" / "</response>" from the content (its "\n" after them
    # too: we keep text exactly, so those newlines stay)
    check("ernie45", backend, "<response>\ndef\n</response>\n", "\ndef\n\n", [])
    check("ernie45", backend, "<response>def</response>", "def", [])


@params
def test_ernie45_no_tools_and_string_arguments(backend: str) -> None:
    check("ernie45", backend, "This is a test", "This is a test", [])
    # vLLM's ernie45 reads "arguments" as an object (json.dumps of a string is no object)
    check_malformed(
        "ernie45", backend, '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>'
    )


# ------------------------------------------------------------------------------------------------
# granite-20b-fc (vLLM tests/tool_parsers/test_granite_20b_fc_tool_parser.py)
# ------------------------------------------------------------------------------------------------

G20 = "granite-20b-fc"


@params
def test_granite_20b_fc(backend: str) -> None:
    weather = '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}'
    time = '<function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'
    check(G20, backend, weather, None, [("get_weather", {"city": "Tokyo"})])
    check(
        G20,
        backend,
        weather + "\n" + time,
        None,
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    )
    check(
        G20,
        backend,
        '<function_call> {"name": "refresh", "arguments": {}}',
        None,
        [("refresh", {})],
    )
    # vLLM's streaming needs the marker at the start (an xfail there); ours does not
    check(
        G20,
        backend,
        "Let me check the weather for you.\n" + weather,
        "Let me check the weather for you.\n",
        [("get_weather", {"city": "Tokyo"})],
    )
    args = {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "a\nb"}
    text = "<function_call> " + json.dumps({"name": "f", "arguments": args}, indent=2)
    check(G20, backend, text, None, [("f", args)])


@params
@pytest.mark.parametrize(
    "text",
    [
        '<function_call> [{"name": "func", "arguments": {}}]',
        '<function_call> {"name": 123}',
    ],
)
def test_granite_20b_fc_malformed(backend: str, text: str) -> None:
    check_malformed(G20, backend, text)


@params
def test_granite_20b_fc_cut_and_no_marker(backend: str) -> None:
    text = '<function_call> {"name": "func", "arguments": {'
    info = extract(G20, backend, text)
    assert (info.tools_called, info.content, info.truncated) == (False, text, True)
    text = '{"name": "func", "arguments": {}}'
    check(G20, backend, text, text, [])


# ------------------------------------------------------------------------------------------------
# apertus (vLLM tests/tool_parsers/test_apertus_tool_parser.py; SGLang's apertus2509)
# ------------------------------------------------------------------------------------------------

AP = "<|tools_prefix|>{}<|tools_suffix|>"


@params
@pytest.mark.parametrize("name", ["apertus", "apertus2509"])
def test_apertus(backend: str, name: str) -> None:
    london = {"location": "London"}
    check(name, backend, "Hello, how can I help you today?", "Hello, how can I help you today?", [])
    check(
        name,
        backend,
        AP.format('[{"get_weather": {"location": "London"}}]'),
        None,
        [("get_weather", london)],
    )
    sf = {"location": "San Francisco", "unit": "celsius"}
    check(
        name,
        backend,
        AP.format("[" + json.dumps({"get_weather": sf}) + "]"),
        None,
        [("get_weather", sf)],
    )
    check(
        name,
        backend,
        "Let me check the weather for you. "
        + AP.format('[{"get_weather": {"location": "Paris"}}]'),
        "Let me check the weather for you. ",
        [("get_weather", {"location": "Paris"})],
    )
    check(
        name,
        backend,
        AP.format(
            "[" + json.dumps({"get_weather": london}) + ', {"get_time": {"location": "London"}}]'
        ),
        None,
        [("get_weather", london), ("get_time", london)],
    )
    nested = {"nested": {"inner": "value"}, "list": ["a", "b"]}
    check(
        name,
        backend,
        AP.format("[" + json.dumps({"complex_function": nested}) + "]"),
        None,
        [("complex_function", nested)],
    )
    # the suffix may be missing at the end
    check(
        name,
        backend,
        "<|tools_prefix|>" + json.dumps([{"get_weather": sf}]),
        None,
        [("get_weather", sf)],
    )
    # vLLM's MTP cases: three calls in coarse pieces; a trailing space after the suffix (only
    # whitespace next to a call: not content)
    text = AP.format('[{"t1": {"a": 1}}, {"t2": {"b": 2}}, {"t3": {"c": 3}}]')
    check(name, backend, text, None, [("t1", {"a": 1}), ("t2", {"b": 2}), ("t3", {"c": 3})])
    check(
        name,
        backend,
        "Hi " + AP.format('[{"get_weather": {"location": "London"}}]') + " ",
        "Hi ",
        [("get_weather", london)],
    )


@params
def test_apertus_incomplete_call_is_truncated_not_a_call(backend: str) -> None:
    # vLLM returns the partial call; a call whose object never closed is not one here (truncated
    # output keeps only complete calls): the output is content, flagged truncated
    text = '<|tools_prefix|>[{"get_weather": {"location": "London"}'
    info = extract("apertus", backend, text)
    assert (info.tools_called, info.content, info.truncated) == (False, text, True)
    rec, _ = stream("apertus", backend, list(text))
    assert [c.function.name for c in rec.tool_calls] == ["get_weather"]


@params
@pytest.mark.parametrize(
    "text",
    [
        '<|tools_prefix|>[{"f": {}, "g": {}}]<|tools_suffix|>',
        '<|tools_prefix|>[{"": {}}]<|tools_suffix|>',
        '<|tools_prefix|>[{"f": [1]}]<|tools_suffix|>',
        '<|tools_prefix|>[{"f": "{}"}]<|tools_suffix|>',
        '<|tools_prefix|>{"f": {}}<|tools_suffix|>',
    ],
)
def test_apertus_malformed(backend: str, text: str) -> None:
    check_malformed("apertus", backend, text)


# ------------------------------------------------------------------------------------------------
# cohere_command3 / cohere_command4 (vLLM tests/tool_parsers/test_cohere_command_tool_parser.py,
# SGLang's CohereCommand4Detector)
# ------------------------------------------------------------------------------------------------

COHERE = ("cohere_command3", "cohere_command4")
ACTION_1 = (
    "<|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}\n'
    "]\n<|END_ACTION|>"
)
ACTION_2 = (
    "<|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}},\n'
    '    {"tool_call_id": "1", "tool_name": "bar", "parameters": {"x": 42}}\n'
    "]\n<|END_ACTION|>"
)


@params
@pytest.mark.parametrize("fmt", COHERE)
def test_cohere_actions(backend: str, fmt: str) -> None:
    # vLLM's cases after the thinking block (the reasoning front's part)
    check(fmt, backend, ACTION_1, None, [("foo", {"query": "query1"})])
    check(fmt, backend, ACTION_2, None, [("foo", {"query": "query1"}), ("bar", {"x": 42})])
    # SGLang's structure: the call's own keys in the order the template writes them
    text = (
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>'
    )
    check(fmt, backend, text, None, [("f", {})])
    # the call's id is the model's "tool_call_id" (vLLM's test pins "0"): the template writes it
    # back with the tool's result; a call without one (or with a non-string one) gets ours
    info = extract(fmt, backend, ACTION_2)
    assert [c.id for c in info.tool_calls] == ["0", "1"]
    for chunks in plans(ACTION_2)[:40]:
        rec, _ = stream(fmt, backend, chunks)
        assert [c.id for c in rec.tool_calls] == ["0", "1"], chunks
    text = (
        '<|START_ACTION|>[{"tool_name": "f", "parameters": {}, "tool_call_id": "late"}, '
        '{"tool_call_id": 7, "tool_name": "g", "parameters": {}}, '
        '{"tool_call_id": " ", "tool_name": "h", "parameters": {}}]<|END_ACTION|>'
    )
    info = extract(fmt, backend, text)
    assert [c.function.name for c in info.tool_calls] == ["f", "g", "h"]
    assert all(c.id.startswith("chatcmpl-tool-") for c in info.tool_calls)


@params
@pytest.mark.parametrize(
    "fmt,start,end",
    [
        ("cohere_command3", "<|START_RESPONSE|>", "<|END_RESPONSE|>"),
        ("cohere_command4", "<|START_TEXT|>", "<|END_TEXT|>"),
    ],
)
def test_cohere_content_wrapper_is_markup(backend: str, fmt: str, start: str, end: str) -> None:
    # citation spans are markup (the format's span_markup), as vLLM's melody reads them: the cited
    # text stays, the span tags go (this used to keep the tags as text)
    text = f"{start}foo <co>bar</co: 0:[1,2],1:[3,4]>{end}"
    check(fmt, backend, text, "foo bar", [])
    check(fmt, backend, f"{start}Sure.{end}{ACTION_1}", "Sure.", [("foo", {"query": "query1"})])
    check(fmt, backend, "plain text", "plain text", [])
    # no special token leaks into content under any split (vLLM's multi-token delta test)
    for chunks in plans(f"{start}ok{end}"):
        rec, _ = stream(fmt, backend, chunks)
        assert rec.other_content == "ok"


@params
@pytest.mark.parametrize("fmt", COHERE)
@pytest.mark.parametrize(
    "text",
    [
        '<|START_ACTION|>[{"tool_call_id": "0", "name": "f", "parameters": {}}]<|END_ACTION|>',
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": "{}"}]'
        "<|END_ACTION|>",
        '<|START_ACTION|>{"tool_call_id": "0", "tool_name": "f", "parameters": {}}<|END_ACTION|>',
    ],
)
def test_cohere_malformed(backend: str, fmt: str, text: str) -> None:
    check_malformed(fmt, backend, text)


# ------------------------------------------------------------------------------------------------
# dots (vLLM tests/tool_parsers/test_dots_tool_parser.py)
# ------------------------------------------------------------------------------------------------


@params
def test_dots_types_and_ref(backend: str) -> None:
    t = tool(
        "set_location",
        {
            "location": {"type": "object"},
            "days": {"type": "integer"},
            "include_weather": {"type": "boolean"},
        },
    )
    text = (
        'ok<dots_function_call><invoke name="set_location">'
        '<parameter name="location">{"city": "Shanghai"}</parameter>'
        '<parameter name="days">3</parameter>'
        '<parameter name="include_weather">true</parameter></invoke></dots_function_call>'
    )
    args = {"location": {"city": "Shanghai"}, "days": 3, "include_weather": True}
    check_typed("dots", backend, [t], text, "ok", [("set_location", args)])


@params
def test_dots_several_invokes_and_blocks(backend: str) -> None:
    tools = [
        tool("search", {"query": {"type": "string"}}),
        tool("open", {"id": {"type": "integer"}}),
    ]
    text = (
        '<dots_function_call><invoke name="search"><parameter name="query">chairs</parameter>'
        '</invoke><invoke name="open"><parameter name="id">7</parameter></invoke>'
        '</dots_function_call>visible<dots_function_call>\n<invoke name="search">\n'
        '<parameter name="query">tables</parameter>\n</invoke>\n</dots_function_call>'
    )
    calls = [("search", {"query": "chairs"}), ("open", {"id": 7}), ("search", {"query": "tables"})]
    check_typed("dots", backend, tools, text, "visible", calls)


@params
def test_dots_unknown_tool_is_still_a_call(backend: str) -> None:
    # vLLM drops a call naming a tool the request did not offer: a server concern here
    tools = [tool("search", {"query": {"type": "string"}})]
    text = (
        '<dots_function_call><invoke name="ghost"><parameter name="query">chairs</parameter>'
        "</invoke></dots_function_call>"
    )
    check_typed("dots", backend, tools, text, None, [("ghost", {"query": "chairs"})])


@params
def test_dots_not_invokes_is_text(backend: str) -> None:
    # as minimax_m2 (the xml_params family): a wrapper holding neither an invoke nor a JSON call
    # object is text (the JSON body is read now: see test_dots_json_body)
    text = "<dots_function_call>garbage</dots_function_call>"
    check("dots", backend, text, text, [])


@params
def test_dots_json_body(backend: str) -> None:
    """SGLang's dots detector accepts whitespace and one JSON object ``{"name": ..., "arguments":
    {...}}`` (or ``"parameters"``) inside the wrapper; it used to be text here."""
    tools = [tool("search", {"query": {"type": "string"}, "limit": {"type": "integer"}})]
    text = (
        '<dots_function_call>{"name":"search","arguments":{"query":"tables"}}</dots_function_call>'
    )
    check_typed("dots", backend, tools, text, None, [("search", {"query": "tables"})])
    # the arguments as written (JSON-native: not re-serialised), whitespace around the object,
    # mixed with invoke blocks, text around
    text = (
        'Looking.\n<dots_function_call>\n{"name": "search", "arguments": {"query": "椅子", '
        '"limit": 1.0e1}}\n</dots_function_call>\n<dots_function_call>\n<invoke name="search">\n'
        '<parameter name="query">tables</parameter>\n</invoke>\n</dots_function_call> done'
    )
    calls = [("search", {"query": "椅子", "limit": 10.0}), ("search", {"query": "tables"})]
    check_typed("dots", backend, tools, text, "Looking.\n done", calls)
    info = toolparse.get_parser("dots", tools=tools, backend=backend).extract_tool_calls(text)
    assert info.tool_calls[0].function.arguments == '{"query": "椅子", "limit": 1.0e1}'
    # "parameters" names the arguments too; the keys in any order
    text = (
        '<dots_function_call>{"parameters": {"query": "x"}, "name": "search"}</dots_function_call>'
    )
    check_typed("dots", backend, tools, text, None, [("search", {"query": "x"})])


@params
@pytest.mark.parametrize(
    "text",
    [
        '<dots_function_call>{"query": "tables"}</dots_function_call>',
        '<dots_function_call>{"name": "search", "arguments": [1]}</dots_function_call>',
        '<dots_function_call>{"name": "search", "arguments": {"q": 1}</dots_function_call>',
    ],
)
def test_dots_json_body_not_a_call_object(backend: str, text: str) -> None:
    # JSON in the wrapper that is not one call object with object arguments: malformed markup
    # (SGLang logs it and reports no call), the text is content
    check_malformed("dots", backend, text)


@params
def test_dots_partial_marker_at_the_end_is_content(backend: str) -> None:
    check("dots", backend, "answer <dots_func", "answer <dots_func", [])


# ------------------------------------------------------------------------------------------------
# gigachat35 (SGLang's GigaChat35Detector: GCML)
# ------------------------------------------------------------------------------------------------


@params
def test_gigachat35(backend: str) -> None:
    tools = [tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]
    text = (
        'Checking.\n<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n'
        '<｜GCML｜parameter name="city" string="true">Moscow</｜GCML｜parameter>\n'
        '<｜GCML｜parameter name="days" string="false">3</｜GCML｜parameter>\n'
        '</｜GCML｜invoke>\n<｜GCML｜invoke name="get_weather">\n'
        '<｜GCML｜parameter name="city" string="true">42</｜GCML｜parameter>\n'
        "</｜GCML｜invoke>\n</｜GCML｜tool_calls>"
    )
    calls = [("get_weather", {"city": "Moscow", "days": 3}), ("get_weather", {"city": "42"})]
    check_typed("gigachat35", backend, tools, text, "Checking.\n", calls)


GS, GE = "<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>"


def gcml(name: str, *params: Any) -> str:
    """One GCML invoke: ``params`` are (name, value text, is_string)."""
    body = "".join(
        f'<｜GCML｜parameter name="{k}" string="{str(s).lower()}">{v}</｜GCML｜parameter>'
        for k, v, s in params
    )
    return f'<｜GCML｜invoke name="{name}">{body}</｜GCML｜invoke>'


@params
def test_gigachat35_vllm_cases(backend: str) -> None:
    # vLLM tests/tool_parsers/test_gigachat35_tool_parser.py: string="false" values are JSON
    typed = gcml(
        "typed_args",
        ("string_field", '"hello"', False),
        ("int_field", "7", False),
        ("float_field", "3.5", False),
        ("bool_field", "true", False),
        ("null_field", "null", False),
        ("array_field", "[1, 2, 3]", False),
        ("object_field", '{"nested": true}', False),
    )
    args = {
        "string_field": "hello",
        "int_field": 7,
        "float_field": 3.5,
        "bool_field": True,
        "null_field": None,
        "array_field": [1, 2, 3],
        "object_field": {"nested": True},
    }
    check_typed("gigachat35", backend, [], GS + typed + GE, None, [("typed_args", args)])
    check_typed("gigachat35", backend, [], GS + gcml("empty_args") + GE, None, [("empty_args", {})])
    weather = gcml("get_weather", ("city", "Tokyo", True))
    time = gcml("get_time", ("timezone", "Asia/Tokyo", True))
    check_typed(
        "gigachat35",
        backend,
        [],
        "I will check." + GS + weather + GE,
        "I will check.",
        [("get_weather", {"city": "Tokyo"})],
    )
    check_typed(
        "gigachat35",
        backend,
        [],
        GS + weather + time + GE,
        None,
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    )
    text = GS + gcml("escaped", ("text", 'line 1\\n"quoted"', True)) + GE
    check_typed("gigachat35", backend, [], text, None, [("escaped", {"text": 'line 1\\n"quoted"'})])


@params
@pytest.mark.parametrize(
    "text,truncated",
    [
        (GS + '<｜GCML｜invoke name="broken">', True),
        (GS + '<｜GCML｜parameter name="x">1</｜GCML｜parameter>', False),
        (GS + GE, False),
    ],
)
def test_gigachat35_malformed_inputs(backend: str, text: str, truncated: bool) -> None:
    # vLLM's malformed inputs: no call, the text is content (a cut one flagged truncated)
    info = extract("gigachat35", backend, text)
    assert (info.tools_called, info.content, info.truncated) == (False, text, truncated)

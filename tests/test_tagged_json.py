"""The JSON-between-markers formats (the ``tagged_json`` family) and the pythonic section styles
(``olmo3``, ``lfm2``): the peers' own test cases, both backends, streaming (every split of the
short texts) and not.

Decisions this file pins down (see ``rust/formats/tagged_json.rs``):

* every format is a spec entry: start markers (several spellings allowed: granite's
  ``<|tool_call|>`` / ``<tool_call>``, internlm's ``<|action_start|><|plugin|>`` with or without a
  space, gigachat3's three headers), an optional end marker (it may be missing), an object or
  array body, the argument keys, and whether the arguments may be a JSON string holding JSON;
* text outside the calls is content, also where a peer drops it (hunyuan_a13b and phi4_mini_json
  drop text after the calls, granite and phi4_mini_json all of it): we never lose text;
* a string where a format's arguments must be an object (jamba, internlm, phi4_mini_json,
  granite, gigachat3) is malformed markup;
* phi4_mini_json's ``functools`` is a word prose may use: not followed by a call list it stays
  text (a tentative start marker, ``call.tentative`` in the spec); once a call started, bad JSON
  is malformed as everywhere;
* a start marker is tentative where prose may hold it (phi4_mini_json's ``functools``; xlam's
  bare ``[``, its fences, ``[TOOL_CALLS]`` and ``<tool_call>``): until a call has started, what
  turns out not to be calls (an empty list included) is text, not malformed markup, and a cut
  there is text, not a truncated call;
* xlam (as vLLM's preprocessing): a JSON array of calls, bare, in a ```` ```json ```` or
  ```` ``` ```` fence, after ``[TOOL_CALLS]`` or between ``<tool_call>`` tags; text around it
  (a ``<think>`` block included: no reasoning split here) is content;
* internlm: a call naming a tool the request did not offer is still a call (vLLM's whitelist is a
  server concern); vLLM reads one call only, we read every one;
* olmo3 and lfm2 need their section markers (a bare call is text); the pythonic rules apply
  inside (see ``tests/test_pythonic.py``), so what vLLM's lfm2 repairs (sets, ``07``, raw NUL
  bytes, unescaped nested quotes) is malformed here.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import helpers
import pytest
import toolparse
from helpers import dumps
from toolparse import StreamingToolReconstructor, _core, reference

BACKENDS = ("rust", "python")

Expected = List[Tuple[str, Dict[str, Any]]]


def extract(fmt: str, backend: str, text: str):
    return toolparse.get_parser(fmt, backend=backend).extract_tool_calls(text)


def stream(fmt: str, backend: str, chunks: List[str]) -> Tuple[StreamingToolReconstructor, bool]:
    rec, s = helpers.stream(toolparse.get_parser(fmt, backend=backend), chunks)
    return rec, s.malformed


def plans(text: str) -> List[List[str]]:
    """Whole, one char per delta, 3-char deltas and every split in two (short texts); long ones
    get a sample of the two-way splits."""
    return helpers.plans(text, sample_over=200)


def check(
    fmt: str,
    backend: str,
    text: str,
    content: Optional[str],
    calls: Expected,
    raw: Optional[List[str]] = None,
) -> None:
    """Non-streaming, and streaming under every plan: the same calls and content, byte for byte.
    The arguments are ``calls``' as JSON; ``raw`` are their exact strings where the test knows
    them (JSON formats pass the model's text through; pythonic ones write ``dumps``')."""
    parser = toolparse.get_parser(fmt, backend=backend)
    got = helpers.calls_of(helpers.check(parser, text, content, calls, chunkings=plans(text)))
    if raw is not None:
        assert [a for _, a in got] == raw
    elif fmt in ("olmo3", "lfm2"):
        assert [a for _, a in got] == [dumps(a) for _, a in calls]
    else:
        assert all(a in text for _, a in got), "JSON arguments are the model's text"


def check_malformed(fmt: str, backend: str, text: str) -> None:
    helpers.check_malformed(toolparse.get_parser(fmt, backend=backend), text, plans(text))


params = pytest.mark.parametrize("backend", BACKENDS)

WEATHER = ("get_weather", {"city": "Tokyo"})
TIME = ("get_time", {"timezone": "Asia/Tokyo"})
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORLANDO = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}
TYPES = {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": True,
    "null_field": None,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {},
}
ESCAPED = {
    "quoted": 'He said "hello"',
    "path": "C:\\Users\\file.txt",
    "newline": "line1\nline2",
    "unicode": "emoji: 🎉",
}


def indented(name: str, key: str, args: Dict[str, Any]) -> str:
    """A call object written over several lines, as the peers' tests write them."""
    return json.dumps({"name": name, key: args}, indent=2, ensure_ascii=False)


# ----- no tool call -----


@params
@pytest.mark.parametrize(
    "fmt",
    [
        "granite4",
        "longcat",
        "jamba",
        "hunyuan_a13b",
        "internlm",
        "phi4_mini_json",
        "granite",
        "gigachat3",
        "olmo3",
        "lfm2",
    ],
)
@pytest.mark.parametrize(
    "text",
    [
        "This is a regular response without any tool calls.",
        "How can I help you today?",
        "",
        "I like functools.partial and <tool> tags, [1, 2] and f(a=1).",
    ],
)
def test_no_call(fmt: str, backend: str, text: str) -> None:
    check(fmt, backend, text, text or None, [])


# ----- granite4 (vLLM tests/tool_parsers/test_granite4_tool_parser.py) -----


@params
def test_granite4_calls_between_text_with_string_arguments(backend: str) -> None:
    coords = {"coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]], "coordinate_type": "latlong"}
    stock = {"symbol": "AAPL", "start_date": "2021-01-01", "end_date": "2021-12-31"}
    # granite writes the arguments as a JSON string holding JSON
    calls = [
        {"name": "find_bbox", "arguments": json.dumps(coords)},
        {"name": "get_stock_price", "arguments": stock},
        {"name": "find_bbox", "arguments": json.dumps(coords)},
    ]
    texts = [
        "Here goes the bbox call: \n",
        " Now the stock price call: \n ",
        " Now another bbox call: \n ",
        " See? I'm a helpful assistant.",
    ]
    tcs = ["<tool_call> " + json.dumps(c) + " </tool_call>" for c in calls]
    text = texts[0] + tcs[0] + texts[1] + tcs[1] + texts[2] + tcs[2] + texts[3]
    raw = [json.dumps(coords), json.dumps(stock), json.dumps(coords)]
    expected = [("find_bbox", coords), ("get_stock_price", stock), ("find_bbox", coords)]
    check("granite4", backend, text, "".join(texts), expected, raw)


@params
def test_granite4_content_between_complete_calls(backend: str) -> None:
    first = '<tool_call> {"name": "find_bbox", "arguments": {}} </tool_call>'
    second = (
        'some explanation <tool_call> {"name": "get_stock_price", "arguments": {}} </tool_call>'
    )
    rec, malformed = stream("granite4", backend, [first, second])
    assert not malformed
    assert rec.other_content == "some explanation "
    assert [c.function.name for c in rec.tool_calls] == ["find_bbox", "get_stock_price"]


# ----- longcat (vLLM tests/tool_parsers/test_longcat_tool_parser.py) -----

LC, LC_END = "<longcat_tool_call>", "</longcat_tool_call>"


@params
def test_longcat(backend: str) -> None:
    one = f'{LC}{{"name": "get_weather", "arguments": {{"city": "Tokyo"}}}}{LC_END}'
    check("longcat", backend, one, None, [WEATHER])
    two = one + f'\n{LC}{{"name": "get_time", "arguments": {{"timezone": "Asia/Tokyo"}}}}{LC_END}'
    check("longcat", backend, two, None, [WEATHER, TIME])
    types = LC + indented("test_function", "arguments", TYPES) + LC_END
    check("longcat", backend, types, None, [("test_function", TYPES)])
    check(
        "longcat",
        backend,
        f'{LC}{{"name": "refresh", "arguments": {{}}}}{LC_END}',
        None,
        [("refresh", {})],
    )
    around = (
        f"Let me check the weather for you.\n{LC}"
        f'{{"name": "get_weather", "arguments": {{"city": "Tokyo"}}}}{LC_END}\nHere is the result.'
    )
    check(
        "longcat",
        backend,
        around,
        "Let me check the weather for you.\n\nHere is the result.",
        [WEATHER],
    )
    escaped = LC + indented("test_function", "arguments", ESCAPED) + LC_END
    check("longcat", backend, escaped, None, [("test_function", ESCAPED)])


@params
def test_longcat_truncated(backend: str) -> None:
    info = extract("longcat", backend, f'{LC}{{"name": "func", "arguments": {{')
    assert info.truncated and not info.tools_called
    info = extract("longcat", backend, f"Some text with {LC}invalid json")
    # the JSON failed before anything was a call: malformed, the text whole
    assert (info.tools_called, info.content) == (False, f"Some text with {LC}invalid json")


# ----- jamba (vLLM tests/tool_parsers/test_jamba_tool_parser.py) -----


def _jamba(*args: Dict[str, Any]) -> str:
    items = ",\n    ".join(
        json.dumps({"name": "get_current_weather", "arguments": a}) for a in args
    )
    return f"<tool_calls>[\n    {items}\n]</tool_calls>"


@params
@pytest.mark.parametrize("fmt", ["jamba", "hunyuan_a13b"])
def test_jamba_cases(fmt: str, backend: str) -> None:
    # a lone space before the calls is not content (vLLM: content None, and " " when streaming)
    check(fmt, backend, " " + _jamba(DALLAS), None, [("get_current_weather", DALLAS)])
    check(
        fmt,
        backend,
        " Sure! let me call the tool for you." + _jamba(DALLAS),
        " Sure! let me call the tool for you.",
        [("get_current_weather", DALLAS)],
    )
    check(
        fmt,
        backend,
        " " + _jamba(DALLAS, ORLANDO),
        None,
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
    )


@params
def test_jamba_arguments_in_one_coarse_delta(backend: str) -> None:
    deltas = [
        '<tool_calls>[{"name": "get_current_weather"',
        ",",
        ' "arguments": {"city": "Dallas", "state": "TX"}}]',
        "</tool_calls>",
    ]
    rec, malformed = stream("jamba", backend, deltas)
    assert not malformed
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
        ("get_current_weather", '{"city": "Dallas", "state": "TX"}')
    ]


@params
@pytest.mark.parametrize(
    "fmt,malformed", [("jamba", True), ("hunyuan_a13b", False), ("granite4", False)]
)
def test_string_arguments_as_the_spec_says(fmt: str, malformed: bool, backend: str) -> None:
    """jamba's arguments are an object (vLLM would dump a string as a JSON string, which is not
    an arguments object); hunyuan_a13b and granite4 take a string holding JSON."""
    obj = '{"name": "f", "arguments": "{\\"a\\": 1}"}'
    text = (
        f"<tool_calls>[{obj}]</tool_calls>"
        if fmt != "granite4"
        else f"<tool_call>{obj}</tool_call>"
    )
    if malformed:
        check_malformed(fmt, backend, text)
    else:
        check(fmt, backend, text, None, [("f", {"a": 1})], raw=['{"a": 1}'])


# ----- hunyuan_a13b (vLLM tests/tool_parsers/test_hunyuan_a13b_tool_parser.py) -----

HY = "<tool_calls>[{}]</tool_calls>"


@params
def test_hunyuan_a13b(backend: str) -> None:
    sf = {"city": "San Francisco", "metric": "celsius"}
    user = {
        "name": "John Doe",
        "age": 37,
        "address": {"city": "San Francisco", "state": "CA"},
        "role": None,
        "passed_test": True,
        "aliases": ["John", "Johnny"],
    }
    one = '{"name": "get_weather", "arguments": ' + dumps(sf) + "}"
    check("hunyuan_a13b", backend, HY.format(one), None, [("get_weather", sf)])
    two = one + ', {"name": "register_user", "arguments": ' + json.dumps(user) + "}"
    check(
        "hunyuan_a13b",
        backend,
        HY.format(two),
        None,
        [("get_weather", sf), ("register_user", user)],
    )
    boston = '{"name": "get_weather", "arguments": {"city": "Boston"}}'
    check(
        "hunyuan_a13b",
        backend,
        "I will call the tool now. " + HY.format(boston),
        "I will call the tool now. ",
        [("get_weather", {"city": "Boston"})],
    )
    # vLLM strips text after the calls; we keep it
    seattle = '{"name": "get_weather", "arguments": {"city": "Seattle"}}'
    check(
        "hunyuan_a13b",
        backend,
        HY.format(seattle) + "\nThank you!",
        "\nThank you!",
        [("get_weather", {"city": "Seattle"})],
    )
    deep = {"level1": {"level2": {"level3": {"value": 123}}}}
    nested = '{"name": "complex_tool", "arguments": ' + json.dumps(deep) + "}"
    check("hunyuan_a13b", backend, HY.format(nested), None, [("complex_tool", deep)])
    beijing = '{"name": "get_weather", "arguments": {"city": "北京"}}'
    check("hunyuan_a13b", backend, HY.format(beijing), None, [("get_weather", {"city": "北京"})])
    for body, want in [
        ('{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}', [{}, {"x": 42}]),
        ('{"name": "a", "arguments": {"x": 42}}, {"name": "b", "arguments": {}}', [{"x": 42}, {}]),
    ]:
        check("hunyuan_a13b", backend, HY.format(body), None, list(zip(["a", "b"], want)))


@params
def test_hunyuan_a13b_streamed_deltas(backend: str) -> None:
    for deltas in (
        [
            '<tool_calls>[{"name": "get_weather", ',
            '"arguments": {"city": "San Francisco", ',
            '"metric": "celsius"}}]',
            "</tool_calls>",
        ],
        ["", '<tool_calls>[{"name":', ' "get_weather",', ' "arguments":', ' {"city": "SF"}', "}]"],
        [
            '<tool_calls>[{"name": "complex_tool",',
            ' "arguments": ',
            ' {"level1": {"level2": ',
            '{"level3": {"value": 123}}}}}',
            "]</tool_calls>",
        ],
    ):
        text = "".join(deltas)
        info = extract("hunyuan_a13b", backend, text)
        rec, malformed = stream("hunyuan_a13b", backend, deltas)
        assert not malformed and info.tools_called
        assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
            (c.function.name, c.function.arguments) for c in info.tool_calls
        ]


# ----- internlm (vLLM tests/tool_parsers/test_internlm2_tool_parser.py; SGLang interns1) -----

IL, IL_END = "<|action_start|><|plugin|>", "<|action_end|>"


@params
@pytest.mark.parametrize("start", [IL, "<|action_start|> <|plugin|>", IL + "\n"])
def test_internlm(backend: str, start: str) -> None:
    one = f'{start}{{"name": "get_weather", "parameters": {{"city": "Tokyo"}}}}{IL_END}'
    check("internlm", backend, one, None, [WEATHER])
    types = start + indented("test_function", "parameters", TYPES) + IL_END
    check("internlm", backend, types, None, [("test_function", TYPES)])
    empty = f'{start}{{"name": "refresh", "parameters": {{}}}}{IL_END}'
    check("internlm", backend, empty, None, [("refresh", {})])
    check(
        "internlm",
        backend,
        "Let me check the weather for you. " + one,
        "Let me check the weather for you. ",
        [WEATHER],
    )
    escaped = start + indented("test_function", "parameters", ESCAPED) + IL_END
    check("internlm", backend, escaped, None, [("test_function", ESCAPED)])
    # "arguments" is read too; several calls are several calls
    args = f'{start}{{"name": "get_time", "arguments": {{"timezone": "Asia/Tokyo"}}}}{IL_END}'
    check("internlm", backend, one + args, None, [WEATHER, TIME])


@params
def test_internlm_cut_and_lookalikes(backend: str) -> None:
    # the start token alone at the end is a cut before the call began: markup, not content
    info = extract("internlm", backend, IL)
    assert info.truncated and (info.tools_called, info.content) == (False, None)
    text = f'{IL}{{"name": "func", "parameters": {{'
    info = extract("internlm", backend, text)
    assert info.truncated and (info.tools_called, info.content) == (False, text)
    # a start token without <|plugin|> is not a call
    check(
        "internlm",
        backend,
        '<|action_start|>{"name": "func"}',
        '<|action_start|>{"name": "func"}',
        [],
    )


@params
def test_internlm_unknown_tool_is_still_a_call(backend: str) -> None:
    text = f'{IL}{{"name": "delete_everything", "parameters": {{"city": "Tokyo"}}}}{IL_END}'
    check("internlm", backend, text, None, [("delete_everything", {"city": "Tokyo"})])


# ----- phi4_mini_json (vLLM tests/tool_parsers/test_phi4mini_tool_parser.py) -----


@params
def test_phi4_mini_json(backend: str) -> None:
    one = 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'
    check("phi4_mini_json", backend, one, None, [WEATHER])
    two = (
        "functools[\n"
        '  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n'
        '  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]'
    )
    check("phi4_mini_json", backend, two, None, [WEATHER, TIME])
    types = "functools[" + indented("test_function", "arguments", TYPES) + "]"
    check("phi4_mini_json", backend, types, None, [("test_function", TYPES)])
    check(
        "phi4_mini_json",
        backend,
        'functools[{"name": "refresh", "arguments": {}}]',
        None,
        [("refresh", {})],
    )
    # vLLM drops the text around the calls; we keep it
    around = f"Let me check the weather for you.\n{one}\nWould you like to know more?"
    check(
        "phi4_mini_json",
        backend,
        around,
        "Let me check the weather for you.\n\nWould you like to know more?",
        [WEATHER],
    )
    escaped = "functools[" + indented("test_function", "arguments", ESCAPED) + "]"
    check("phi4_mini_json", backend, escaped, None, [("test_function", ESCAPED)])
    params_ = 'functools[{"name": "get_weather", "parameters": {"city": "Tokyo"}}]'
    check("phi4_mini_json", backend, params_, None, [WEATHER])


@params
@pytest.mark.parametrize(
    "text",
    [
        'functools{"name": "func"}',
        "functools[ This is just text ]",
    ],
)
def test_phi4_mini_json_not_a_call_list_is_text(backend: str, text: str) -> None:
    """``functools`` is a word prose may use: not followed by calls, it stays text."""
    check("phi4_mini_json", backend, text, text, [])


@params
def test_phi4_mini_json_edge_cases(backend: str) -> None:
    # an empty call list after a tentative marker is text too
    text = "functools[] This is just text"
    check("phi4_mini_json", backend, text, text, [])
    # a call without arguments has none (vLLM fails on it)
    check("phi4_mini_json", backend, 'functools[{"name": "func"}]', None, [("func", {})], ["{}"])
    info = extract("phi4_mini_json", backend, 'functools[{"name": "func", "arguments": {')
    assert info.truncated and not info.tools_called
    # cut before a call started: with a tentative marker that is text, not a truncated call
    for text in ("Use functools", 'functools[{"name": "fu'):
        check("phi4_mini_json", backend, text, text, [])
    # cut once the name is read: the call's start (its name) was streamed, so the text is
    # content and the cut call is reported as truncated
    text = 'functools[{"name": "func", "argu'
    info = extract("phi4_mini_json", backend, text)
    assert (info.content, info.tool_calls, info.truncated) == (text, [], True)


# ----- granite (vLLM tests/tool_parsers/test_granite_tool_parser.py) -----


@params
@pytest.mark.parametrize("start", ["<|tool_call|>", "<tool_call>"])
def test_granite(backend: str, start: str) -> None:
    one = f'{start} [{{"name": "get_weather", "arguments": {{"city": "Tokyo"}}}}]'
    check("granite", backend, one, None, [WEATHER])
    two = (
        f"{start} [\n"
        '  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n'
        '  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]'
    )
    check("granite", backend, two, None, [WEATHER, TIME])
    types = f"{start} [" + indented("test_function", "arguments", TYPES) + "]"
    check("granite", backend, types, None, [("test_function", TYPES)])
    check(
        "granite",
        backend,
        f'{start} [{{"name": "refresh", "arguments": {{}}}}]',
        None,
        [("refresh", {})],
    )
    around = f"Let me check the weather for you.\n{one}\nI'll get that information."
    check(
        "granite",
        backend,
        around,
        "Let me check the weather for you.\n\nI'll get that information.",
        [WEATHER],
    )
    escaped = f"{start} [" + indented("test_function", "arguments", ESCAPED) + "]"
    check("granite", backend, escaped, None, [("test_function", ESCAPED)])


@params
def test_granite_arguments_before_name(backend: str) -> None:
    text = (
        '<|tool_call|> [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, '
        '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]'
    )
    check("granite", backend, text, None, [WEATHER, TIME])
    single = (
        '<|tool_call|>[{"name": "get_weather", "arguments": {"x": 42}}, '
        '{"name": "b", "arguments": {"y": 7}}]'
    )
    check("granite", backend, single, None, [("get_weather", {"x": 42}), ("b", {"y": 7})])


@params
@pytest.mark.parametrize(
    "text,malformed",
    [
        ('<|tool_call|> {"name": "func", "arguments": {}}', True),  # not an array
        ('<|tool_call|> [{"name": "func", "arguments": "{}"}]', True),  # a string
        ('[{"name": "func", "arguments": "not a dict"}]', False),  # no marker: text
        ('Some text [{"name": "func"}]', False),
    ],
)
def test_granite_malformed(backend: str, text: str, malformed: bool) -> None:
    if malformed:
        check_malformed("granite", backend, text)
    else:
        check("granite", backend, text, text, [])


# ----- gigachat3 (vLLM tests/tool_parsers/test_gigachat3_tool_parser.py) -----

MSG_SEP, ROLE_SEP, EOS = "<|message_sep|>\n\n", "<|role_sep|>\n", "</s>"
GC3, GC31 = MSG_SEP + "function call" + ROLE_SEP, "<|function_call|>"
SIMPLE = {"action": "create", "id": "preferences"}
COMPLEX = {
    "action": "create",
    "id": "preferences",
    "content": {
        "short_answers": True,
        "hate_emojis": True,
        "english_ui": False,
        "russian_math_explanations": True,
    },
}


def _gc(args: Dict[str, Any]) -> str:
    return dumps({"name": "manage_user_memory", "arguments": args})


@params
@pytest.mark.parametrize("header", [GC3, GC31, "function call" + ROLE_SEP])
@pytest.mark.parametrize("args", [SIMPLE, {}, COMPLEX])
@pytest.mark.parametrize("before", ["", "I'll check that for you."])
@pytest.mark.parametrize("eos", ["", EOS])
def test_gigachat3(backend: str, header: str, args: Dict[str, Any], before: str, eos: str) -> None:
    text = before + header + _gc(args) + eos
    check("gigachat3", backend, text, before or None, [("manage_user_memory", args)])


@params
def test_gigachat3_large_steps(backend: str) -> None:
    content = "I'll check that for you."
    js = _gc(COMPLEX)
    for header in ([MSG_SEP, "function call" + ROLE_SEP], [GC31]):
        deltas = [content[:3], content[3:5], content[5:], *header, js[:40], js[40:-1], js[-1]]
        rec, malformed = stream("gigachat3", backend, deltas)
        assert not malformed and rec.other_content == content
        assert [(c.function.name, json.loads(c.function.arguments)) for c in rec.tool_calls] == [
            ("manage_user_memory", COMPLEX)
        ]


# ----- olmo3 (vLLM tests/tool_parsers/test_olmo3_tool_parser.py) -----

SIMPLE_PY = "get_weather(city='San Francisco', metric='celsius')"
SIMPLE_CALL = ("get_weather", {"city": "San Francisco", "metric": "celsius"})
MORE_PY = (
    "register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=None, passed_test=True, aliases=['John', 'Johnny'])"
)
MORE_CALL = (
    "register_user",
    {
        "name": "John Doe",
        "age": 37,
        "address": {"city": "San Francisco", "state": "CA"},
        "role": None,
        "passed_test": True,
        "aliases": ["John", "Johnny"],
    },
)
PY_CASES = [
    (SIMPLE_PY, SIMPLE_CALL),
    (MORE_PY, MORE_CALL),
    ("get_weather()", ("get_weather", {})),
    ("do_something_cool(additional_data={})", ("do_something_cool", {"additional_data": {}})),
    ("do_something_cool(steps=[])", ("do_something_cool", {"steps": []})),
    (
        r"get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')",
        ("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'}),
    ),
]
OLMO, OLMO_END = "<function_calls>", "</function_calls>"
LF, LF_END = "<|tool_call_start|>", "<|tool_call_end|>"


@params
@pytest.mark.parametrize("body,call", PY_CASES)
def test_olmo3(backend: str, body: str, call: Tuple[str, Dict[str, Any]]) -> None:
    check("olmo3", backend, f"{OLMO}{body}{OLMO_END}", None, [call])


@params
def test_olmo3_parallel_and_large_steps(backend: str) -> None:
    check(
        "olmo3", backend, f"{OLMO}{SIMPLE_PY}\n{MORE_PY}{OLMO_END}", None, [SIMPLE_CALL, MORE_CALL]
    )
    deltas = [
        "<function_calls>get_weather(city='San",
        " Francisco', metric='celsius')\nget_weather()\n"
        "do_something_cool(steps=[])</function_calls>",
    ]
    rec, malformed = stream("olmo3", backend, deltas)
    assert not malformed and rec.other_content == ""
    assert [(c.function.name, json.loads(c.function.arguments)) for c in rec.tool_calls] == [
        SIMPLE_CALL,
        ("get_weather", {}),
        ("do_something_cool", {"steps": []}),
    ]


@params
@pytest.mark.parametrize(
    "text",
    [
        # valid literal syntax with no JSON form: that call is dropped, the others are kept
        # (SGLang and the upstream tests); these were pinned as malformed before
        f"{OLMO}bad(x=b'z')\n{SIMPLE_PY}{OLMO_END}",
        f"{OLMO}calc(x=1e999)\n{SIMPLE_PY}{OLMO_END}",
        f"{LF}[{SIMPLE_PY}, bad(x=b'z')]{LF_END}",
    ],
)
def test_pythonic_call_without_json_form_is_dropped(backend: str, text: str) -> None:
    fmt = "olmo3" if text.startswith(OLMO) else "lfm2"
    info = extract(fmt, backend, text)
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == [
        SIMPLE_CALL
    ]
    assert info.content is None


@params
def test_olmo3_needs_its_markers(backend: str) -> None:
    check("olmo3", backend, SIMPLE_PY, SIMPLE_PY, [])


# ----- lfm2 (vLLM tests/tool_parsers/test_lfm2_tool_parser.py) -----


@params
@pytest.mark.parametrize(
    "body,call",
    [
        *PY_CASES,
        (
            "exec(command='grep -F \"]\" log.txt')",
            ("exec", {"command": 'grep -F "]" log.txt'}),
        ),
        # dotted names and sets, as vLLM reads them (these were pinned as malformed before)
        (
            "grocery.orderIngredients(deliveryAddress='845 Willow Lane')",
            ("grocery.orderIngredients", {"deliveryAddress": "845 Willow Lane"}),
        ),
        ("label(tags={'urgent', 'bug'})", ("label", {"tags": ["urgent", "bug"]})),
        ("f(a=null, b=true, c=false)", ("f", {"a": None, "b": True, "c": False})),
    ],
)
def test_lfm2(backend: str, body: str, call: Tuple[str, Dict[str, Any]]) -> None:
    check("lfm2", backend, f"{LF}[{body}]{LF_END}", None, [call])
    check("lfm2", backend, f"{LF} [{body}]{LF_END}", None, [call])


@params
def test_lfm2_parallel_and_content_after(backend: str) -> None:
    check("lfm2", backend, f"{LF}[{SIMPLE_PY}, {MORE_PY}]{LF_END}", None, [SIMPLE_CALL, MORE_CALL])
    text = f"{LF}[get_candidate_status(candidate_id='12345')]{LF_END}\nChecking the status."
    check(
        "lfm2",
        backend,
        text,
        "\nChecking the status.",
        [("get_candidate_status", {"candidate_id": "12345"})],
    )


@params
@pytest.mark.parametrize(
    "body",
    [
        "set_date(month=07, day=05)",  # leading zeros: a SyntaxError in Python
        "exec(command='printf a\x00b')",  # a raw NUL byte
        "bash(command='sed -n '360,450p' f.py')",  # unescaped nested quotes
    ],
)
def test_lfm2_what_vllm_repairs_is_malformed(backend: str, body: str) -> None:
    check_malformed("lfm2", backend, f"{LF}[{body}]{LF_END}")


@params
@pytest.mark.parametrize("body", ["", " "])
def test_lfm2_empty_block_is_no_call(backend: str, body: str) -> None:
    info = extract("lfm2", backend, f"{LF}[{body}]{LF_END}")
    assert info.tool_calls == [] and not info.tools_called


@params
def test_lfm2_bare_list_is_text(backend: str) -> None:
    check("lfm2", backend, f"[{SIMPLE_PY}]", f"[{SIMPLE_PY}]", [])


# ----- xlam (vLLM tests/tool_parsers/test_xlam_tool_parser.py) -----

XL_DALLAS = '{"name": "get_current_weather", "arguments": ' + json.dumps(DALLAS) + "}"
XL_ORLANDO = '{"name": "get_current_weather", "arguments": ' + json.dumps(ORLANDO) + "}"


@params
@pytest.mark.parametrize(
    "text,content",
    [
        (
            f"<think>I'll help you with that.</think>[{XL_DALLAS}]",
            "<think>I'll help you with that.</think>",
        ),
        (f"I'll help you with that.\n```json\n[{XL_DALLAS}]\n```", "I'll help you with that.\n"),
        (f"```json\n[{XL_DALLAS}]\n```", None),
        (f"```\n[{XL_DALLAS}]\n```", None),
        (
            f"I'll check the weather for you.[TOOL_CALLS][{XL_DALLAS}]",
            "I'll check the weather for you.",
        ),
        (
            f"I'll help you check the weather.<tool_call>[{XL_DALLAS}]</tool_call>",
            "I'll help you check the weather.",
        ),
    ],
)
def test_xlam_wrappers(backend: str, text: str, content: Optional[str]) -> None:
    check("xlam", backend, text, content, [("get_current_weather", DALLAS)])


@params
def test_xlam_bare_list(backend: str) -> None:
    check(
        "xlam",
        backend,
        f"[{XL_DALLAS}, {XL_ORLANDO}]",
        None,
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
    )
    seattle = {"city": "Seattle", "state": "WA", "unit": "celsius"}
    text = '[{"name": "get_current_weather", "arguments": ' + json.dumps(seattle) + "}]"
    check("xlam", backend, text, None, [("get_current_weather", seattle)])
    # arguments written as a JSON string holding JSON
    check(
        "xlam",
        backend,
        '[{"name": "f", "arguments": "{\\"a\\": 1}"}]',
        None,
        [("f", {"a": 1})],
        ['{"a": 1}'],
    )


@params
@pytest.mark.parametrize(
    "text",
    [
        "This is a test",
        "[1, 2, 3] and [x] and []",
        '```json\n{"name": "f", "arguments": {}}\n```',  # an object, not a list: text (vLLM too)
        "<tool_call>not json</tool_call>",
        "[TOOL_CALLS] later",
        '[{"a": 1}] is a list of objects',
    ],
)
def test_xlam_not_calls_are_text(backend: str, text: str) -> None:
    check("xlam", backend, text, text, [])


@params
def test_xlam_malformed_once_a_call_started(backend: str) -> None:
    check_malformed("xlam", backend, '[{"name": "f", "arguments": {"a": tru}}]')
    check_malformed(
        "xlam", backend, f'```json\n[{XL_DALLAS}, {{"name": "g", "arguments": [1]}}]\n```'
    )


@params
@pytest.mark.parametrize(
    "fmt,text",
    [
        ("jamba", "<tool_calls>[]</tool_calls>"),
        ("granite", '0 <|tool_call|>[]{"name": "A", "arguments": {}}]'),
        ("hunyuan_a13b", "Hi <tool_calls>[ ]</tool_calls> there"),
    ],
)
def test_an_empty_list_after_a_start_marker_is_malformed(fmt: str, backend: str, text: str) -> None:
    """Markup with no call in it: malformed, and its text is not lost."""
    check_malformed(fmt, backend, text)


# Ids the model gives repeat across cohere's action blocks (each block counts from "0", as
# cohere_melody reports them): ids are unique within a response for every format that takes
# them from the model, so a repeated one is replaced by a generated id (the emitter's rule, as
# for mistral's [CALL_ID]); the first call keeps the model's id.
COHERE_REPEATED_IDS = (
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}, '
    '{"tool_call_id": "1", "tool_name": "g", "parameters": {}}]<|END_ACTION|>'
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "h", "parameters": {}}]<|END_ACTION|>'
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["cohere_command3", "cohere_command4"])
def test_repeated_model_ids_are_replaced(fmt: str, backend: str) -> None:
    info = extract(fmt, backend, COHERE_REPEATED_IDS)
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    assert calls == [("f", '{"a": 1}'), ("g", "{}"), ("h", "{}")]
    ids = [c.id for c in info.tool_calls]
    assert ids[:2] == ["0", "1"] and ids[2] not in ("0", "1") and ids[2]
    for chunks in ([COHERE_REPEATED_IDS], list(COHERE_REPEATED_IDS)):
        rec, malformed = stream(fmt, backend, chunks)
        assert not malformed
        streamed_ids = [c.id for c in rec.tool_calls]
        assert streamed_ids[:2] == ["0", "1"] and streamed_ids[2] not in ("0", "1")
    core = (_core.extract if backend == "rust" else reference.extract)(fmt, COHERE_REPEATED_IDS)
    assert [c[0] for c in core[2]] == ["0", "1", None]


@params
@pytest.mark.parametrize(
    "fmt,head",
    [
        ("hermes", '<tool_call>{"name": "get_weather"'),
        ("mistral", '[TOOL_CALLS][{"name": "get_weather"'),
        ("granite", '<|tool_call|>[{"name": "get_weather"'),
    ],
)
def test_the_name_streams_before_the_arguments(backend: str, fmt: str, head: str) -> None:
    """A call object's start (id, name) is sent at the name's closing quote, as vLLM streams
    it; plain JSON in text (llama3_json's bare object) still waits for its arguments."""
    s = toolparse.get_parser(fmt, backend=backend).stream()
    assert s.feed(head[:-1]) is None
    d = s.feed(head[-1])
    assert d is not None and d.tool_calls
    fn = d.tool_calls[0].function
    assert fn is not None and (fn.name, fn.arguments) == ("get_weather", None)
    bare = toolparse.get_parser("llama3_json", backend=backend).stream()
    assert bare.feed('{"name": "get_weather"') is None


# Malformed markup in the middle of the output, per format (the peers' cases); phi4_mini_json:
# once a call started.
MALFORMED = [
    ("longcat", f'{LC}{{"name": "func", "arguments": "not a dict"}}{LC_END}'),
    ("longcat", f'{LC}{{"name": "func", "arguments": [1]}}{LC_END}'),
    ("longcat", f"{LC}invalid json{LC_END}"),
    ("internlm", f'{IL}{{"name": "func", "parameters": "not a dict"}}{IL_END}'),
    ("internlm", f"{IL}not json{IL_END}"),
    ("internlm", f'{IL}{{"name": "func", "parameters": {{"a": 1]}}}}{IL_END}'),
    ("phi4_mini_json", 'functools[{"name": "f", "arguments": {"a": 1]}]'),
    # phi4's arguments are an object, never a string; the call started with its name
    ("phi4_mini_json", 'functools[{"name": "func", "arguments": "not a dict"}]'),
    ("gigachat3", GC31 + '{"name": "f", "arguments": "{}"}'),  # arguments must be an object
    ("gigachat3", GC31 + '{"name": "f", "arguments": {"a": }}'),
    ("gigachat3", GC3 + "not json"),
    ("olmo3", f"{OLMO}foo(x=1]){OLMO_END}"),
    ("olmo3", f"{OLMO}bad(x=b'z' 1)\n{SIMPLE_PY}{OLMO_END}"),
]


@params
@pytest.mark.parametrize("fmt,text", MALFORMED)
def test_malformed(backend: str, fmt: str, text: str) -> None:
    check_malformed(fmt, backend, text)

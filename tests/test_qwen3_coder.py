"""The ``qwen3_coder`` format: both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/xml_params.rs`` and ``rust/params.rs``):

* values are typed by the tool schema; string values (and parameters the schema does not know)
  stream character by character, typed values are sent when their parameter closes;
* one leading and one trailing newline of a value are stripped, only one each;
* a missing ``</parameter>`` is tolerated at the next ``\\n<parameter=`` or ``\\n</function>``; a
  missing ``</function>`` is tolerated at ``</tool_call>``; a missing ``</tool_call>`` is fine;
* end of text inside a function is truncation: the calls completed before it are kept, the
  unfinished one and its markup are dropped (none completed: non-streaming returns the text);
* ``<tool_call>`` without ``<function=``, and a function name that is empty or holds whitespace,
  quotes, ``<``, ``{`` or ``}``, are content;
* typed values that do not fit their type fall back to a JSON string of the raw value; ``null`` /
  ``None`` (any case) is null for every typed parameter but stays a string for string parameters;
* a parameter whose schema admits several types (a ``type`` list, ``anyOf`` / ``oneOf``) takes the
  first of null, integer, number, boolean, object, array its text parses as, else the string; a
  union admitting a string is sent when its parameter closes;
* a ``</parameter>`` closes a value only before ``<parameter=``, ``</function>``, ``</tool_call>``
  (after at most 64 bytes of whitespace) or the end of the output, else it is value text; the
  implicit end ``\n</function>`` only before ``</tool_call>`` or the end of the output.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from helpers import calls_of, dumps
from toolparse import StreamingToolReconstructor, _core, reference

BACKENDS = ("rust", "python")
FMT = "qwen3_coder"


def tool(name: str, props: Dict[str, Any]) -> Dict[str, Any]:
    return helpers.tool(name, props, described=True)


TOOLS = [
    tool("get_weather", {"city": "string", "days": "integer"}),
    tool("get_time", {}),
    tool(
        "typed",
        {
            "s": "string",
            "i": "integer",
            "f": "number",
            "t": "boolean",
            "fa": "boolean",
            "n": "null",
            "a": "array",
            "o": "object",
            "ea": "array",
            "eo": "object",
            "ns": ["string", "null"],
            "e": {"type": "string", "enum": ["x", "y"]},
        },
    ),
    tool("write_file", {"path": "string", "content": "string"}),
]
TYPES = {
    "get_weather": {"city": ["string"], "days": ["integer"]},
    "get_time": {},
    "typed": {
        "s": ["string"],
        "i": ["integer"],
        "f": ["number"],
        "t": ["boolean"],
        "fa": ["boolean"],
        "n": ["null"],
        "a": ["array"],
        "o": ["object"],
        "ea": ["array"],
        "eo": ["object"],
        "ns": ["string", "null"],
        "e": ["string"],
    },
    "write_file": {"path": ["string"], "content": ["string"]},
}


def param(key: str, value: str) -> str:
    return f"<parameter={key}>\n{value}\n</parameter>\n"


def call(name: str, params: List[Tuple[str, str]], wrapped: bool = True) -> str:
    fn = f"<function={name}>\n" + "".join(param(k, v) for k, v in params) + "</function>"
    return f"<tool_call>\n{fn}\n</tool_call>" if wrapped else fn


def parser(backend: str) -> toolparse.ToolParser:
    return toolparse.get_parser(FMT, tools=TOOLS, backend=backend)


def extract(backend: str, text: str):
    return parser(backend).extract_tool_calls(text)


def stream(backend: str, chunks: List[str]) -> StreamingToolReconstructor:
    return helpers.stream(parser(backend), chunks)[0]


def check(
    backend: str,
    text: str,
    content: Optional[str],
    calls: List[Tuple[str, Dict[str, Any]]],
) -> None:
    """Non-streaming result, and streaming in one delta, per character, in 3-char deltas and cut
    in two (a sample of the cuts of long texts)."""
    helpers.check(
        parser(backend),
        text,
        content,
        calls,
        exact=True,
        chunkings=helpers.plans(text, sample_over=200),
    )


# ----- 1. no tool call -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text", ["Hello, how can I help?", "", "   \n  ", "\n", "a < b > c <tool and <functio"]
)
def test_no_tool_call(backend: str, text: str) -> None:
    check(backend, text, text or None, [])


# ----- 2. one call, 3. parallel calls -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wrapped", [True, False])
def test_one_call(backend: str, wrapped: bool) -> None:
    text = call("get_weather", [("city", "Tokyo"), ("days", "3")], wrapped)
    check(backend, text, None, [("get_weather", {"city": "Tokyo", "days": 3})])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wrapped", [True, False])
def test_parallel_calls_unique_ids(backend: str, wrapped: bool) -> None:
    text = "\n".join(
        [
            call("get_weather", [("city", "Tokyo")], wrapped),
            call("get_time", [], wrapped),
            call("get_weather", [("city", "Paris"), ("days", "2")], wrapped),
        ]
    )
    expected = [
        ("get_weather", {"city": "Tokyo"}),
        ("get_time", {}),
        ("get_weather", {"city": "Paris", "days": 2}),
    ]
    check(backend, text, None, expected)
    info = extract(backend, text)
    ids = [c.id for c in info.tool_calls]
    assert len(set(ids)) == 3 and all(ids)
    rec = stream(backend, list(text))
    ids = [c.id for c in rec.tool_calls]
    assert len(set(ids)) == 3 and all(ids)


# ----- 4. every type, 5. no parameters -----

EVERY_TYPE = [
    ("s", "plain text"),
    ("i", "42"),
    ("f", "-2.5e3"),
    ("t", "true"),
    ("fa", "False"),
    ("n", "null"),
    ("a", '[1, "two", [3], {"k": null}]'),
    ("o", '{"k": {"z": []}, "x": 1.50}'),
    ("ea", "[]"),
    ("eo", "{}"),
]
EVERY_TYPE_ARGS = {
    "s": "plain text",
    "i": 42,
    "f": -2500.0,
    "t": True,
    "fa": False,
    "n": None,
    "a": [1, "two", [3], {"k": None}],
    "o": {"k": {"z": []}, "x": 1.5},
    "ea": [],
    "eo": {},
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_type(backend: str) -> None:
    check(backend, call("typed", EVERY_TYPE), None, [("typed", EVERY_TYPE_ARGS)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
        "<function=get_time></function>",
        "<tool_call><function=get_time>\n\n</function></tool_call>",
    ],
)
def test_no_parameters(backend: str, text: str) -> None:
    check(backend, text, None, [("get_time", {})])


CONVERSIONS = [
    # (parameter, raw value, converted)
    ("i", "+007", 7),
    ("i", "-0", 0),
    ("i", " 12 ", 12),
    ("i", "12345678901234567890123", 12345678901234567890123),
    ("i", "1.5", "1.5"),
    ("i", "twelve", "twelve"),
    ("i", "None", None),
    ("i", "NULL", None),
    ("f", "1.50", 1.5),
    ("f", "1e5", 100000.0),
    ("f", "1e16", 1e16),
    ("f", "0.1", 0.1),
    ("f", "17", 17),
    ("f", ".5", 0.5),
    ("f", "1e400", "1e400"),
    ("f", "NaN", "NaN"),
    ("t", "TRUE", True),
    ("t", "yes", "yes"),
    ("a", "[1,2 , 3]", [1, 2, 3]),
    ("a", "[1, 2", "[1, 2"),
    ("a", "['a']", "['a']"),
    ("o", '{"a": 1, "a": 2}', {"a": 2}),
    ("o", '"just a string"', "just a string"),
    ("o", "1e999", "1e999"),
    ("s", "null", "null"),
    ("s", "42", "42"),
    ("ns", "None", None),
    ("ns", "null", None),
    ("ns", "nulls", "nulls"),
    ("unknown_param", "42", "42"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("key,raw,value", CONVERSIONS)
def test_conversions(backend: str, key: str, raw: str, value: Any) -> None:
    check(backend, call("typed", [(key, raw)]), None, [("typed", {key: value})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_function_values_are_strings(backend: str) -> None:
    text = call("nope", [("a", "1"), ("b", "true"), ("c", "[1]")])
    check(backend, text, None, [("nope", {"a": "1", "b": "true", "c": "[1]"})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_repr_matches_python(backend: str) -> None:
    import random

    rnd = random.Random(7)
    texts = ["1801514316094494.25", "5e-324", "1.7976931348623157e308", "0.0001", "0.00001"]
    for _ in range(300):
        f = rnd.getrandbits(53) * 2.0 ** rnd.randint(-70, 70)
        texts += [repr(f), f"{f:.20e}"]
    text = call("typed", [("o", "[" + ", ".join(texts) + "]")])
    info = extract(backend, text)
    assert calls_of(info) == [("typed", dumps({"o": [float(t) for t in texts]}))]


# ----- 6. text before/after, 7. escapes and non-ASCII -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wrapped", [True, False])
def test_text_before_and_after(backend: str, wrapped: bool) -> None:
    c1 = call("get_weather", [("city", "Tokyo")], wrapped)
    c2 = call("get_time", [], wrapped)
    text = f"Sure! 天気 🎉\n\n{c1}\nBetween.\n{c2}\n\nDone ✅"
    # whitespace next to real text is content (kept exactly); the calls' markup is not
    content = "Sure! 天気 🎉\n\n\nBetween.\n\n\nDone ✅"
    check(backend, text, content, [("get_weather", {"city": "Tokyo"}), ("get_time", {})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_escapes_and_non_ascii(backend: str) -> None:
    content = 'print("a\\tb")\nline2 \\ "q" \'s\'\r\n\t東京 🎉 \u2028 \x01 é'
    path = 'C:\\dir\\"x".txt'
    text = call("write_file", [("path", path), ("content", content)])
    check(backend, text, None, [("write_file", {"path": path, "content": content})])
    obj = {"q": 'say "hi"', "b": "C:\\dir\\", "u": "é🎉東京", "nl": "a\nb"}
    raw = json.dumps(obj, ensure_ascii=True)
    check(backend, call("typed", [("o", raw)]), None, [("typed", {"o": obj})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_newline_stripping(backend: str) -> None:
    cases = [
        ("<parameter=s>\n\nx\n\n</parameter>", "\nx\n"),
        ("<parameter=s>x</parameter>", "x"),
        ("<parameter=s>\n</parameter>", ""),
        ("<parameter=s>\n\n</parameter>", ""),
        ("<parameter=s>\n\n\n</parameter>", "\n"),
        ("<parameter=s>\r\nx\r\n</parameter>", "\r\nx\r"),
        ("<parameter=s>  x  </parameter>", "  x  "),
    ]
    for p, value in cases:
        text = f"<function=typed>\n{p}\n</function>"
        check(backend, text, None, [("typed", {"s": value})])


# ----- tolerated markup -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_tolerated_markup(backend: str) -> None:
    # </parameter> missing before the next parameter or </function>
    text = "<function=typed>\n<parameter=s>\nabc\n<parameter=i>\n5\n</function>"
    check(backend, text, None, [("typed", {"s": "abc", "i": 5})])
    # </function> missing before </tool_call>
    text = "<tool_call>\n<function=typed>\n<parameter=i>\n5\n</parameter>\n</tool_call> ok"
    check(backend, text, " ok", [("typed", {"i": 5})])
    # </tool_call> missing at the end
    text = "<tool_call>\n<function=get_time>\n</function>\n"
    check(backend, text, None, [("get_time", {})])
    # a second <tool_call> right after </function>
    text = "<tool_call>\n<function=get_time>\n</function>\n" * 2
    check(backend, text, None, [("get_time", {}), ("get_time", {})])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        'See <tool_call>{"name": "f"}</tool_call> here',
        "<tool_call></tool_call>",
        "x <function=a b> y",
        "<function=>",
        "<function={{ tc.name }}>",
        '<function="f">',
    ],
)
def test_not_calls_are_content(backend: str, text: str) -> None:
    check(backend, text, text, [])


# ----- 8. malformed -----

TRUNCATED = [
    "<tool_call>\n<function=get_weath",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTok",
    "<tool_call>\n<function=get_weather>\n<parameter=ci",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n",
    "<tool_call>\n<function=get_weather>\n",
    "<tool_call>\n",
    "Hello <tool_call>",
    "<function=get_weather>\n<parameter=city>\nTokyo</function></tool_call>",
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", TRUNCATED)
def test_truncated_before_any_call_completed(backend: str, text: str) -> None:
    corpus.check_truncated_output(FMT, backend, text, 0, TOOLS)
    # after a complete call, the unfinished one is not a call and its markup is not content
    first = "Sure. " + call("get_time", []) + "\n"
    corpus.check_truncated_output(FMT, backend, first + text, 1, TOOLS)
    info = extract(backend, first + text)
    # text outside calls stays content
    before = text.split("<", 1)[0]
    assert info.content == "Sure. " + ("\n" + before if before else "")
    assert info.tool_calls[0].function.name == "get_time"


MALFORMED = [
    "<function=get_weather>\nstray text\n</function>",
    "<function=get_weather>\n<parameter=city\nx</parameter>\n</function>",
    "<function=get_weather>\n<parameter=ci<ty>\nx\n</parameter>\n</function>",
    call("get_time", []) + "\n<function=get_weather>\nstray\n</function>",
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed(backend: str, text: str) -> None:
    info = extract(backend, text)
    assert not info.tools_called and info.tool_calls == [] and info.content == text
    for chunks in ([text], list(text)):
        s = toolparse.get_parser(FMT, tools=TOOLS, backend=backend).stream()
        for c in chunks:
            s.feed(c)
        s.finish()
        assert s.malformed


@pytest.mark.parametrize("backend", BACKENDS)
def test_fallback_keeps_the_rest_as_content(backend: str) -> None:
    text = "<function=get_weather>\nstray <b> text\n</function> after"
    rec = stream(backend, list(text))
    assert rec.other_content == "stray <b> text\n</function> after"
    assert [c.function.name for c in rec.tool_calls] == ["get_weather"]


# ----- 9. streaming == non-streaming, 10. splits -----

COMPOSITE = (
    "Let me check… 🎉\n"
    + call("get_weather", [("city", 'Zürich "CH" \\ 東京'), ("days", "3")])
    + "\n"
    + call("typed", EVERY_TYPE)
    + "\n"
    + call(
        "write_file",
        [("path", "a\\b.txt"), ("content", "line1\n\n</para\n<parameter\n</function\nx\n")],
        wrapped=False,
    )
    + "\n"
    + call("get_time", [])
    + "\nAll done."
)
COMPOSITE_CALLS = [
    ("get_weather", dumps({"city": 'Zürich "CH" \\ 東京', "days": 3})),
    ("typed", dumps(EVERY_TYPE_ARGS)),
    (
        "write_file",
        dumps({"path": "a\\b.txt", "content": "line1\n\n</para\n<parameter\n</function\nx\n"}),
    ),
    ("get_time", "{}"),
]
COMPOSITE_CONTENT = "Let me check… 🎉\n\nAll done."


@pytest.mark.parametrize("backend", BACKENDS)
def test_streaming_equals_non_streaming(backend: str) -> None:
    info = extract(backend, COMPOSITE)
    assert calls_of(info) == COMPOSITE_CALLS
    assert info.content == COMPOSITE_CONTENT
    rec = stream(backend, [COMPOSITE[i : i + 4] for i in range(0, len(COMPOSITE), 4)])
    assert rec.to_extracted().content == info.content
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == COMPOSITE_CALLS


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_at_every_offset(backend: str) -> None:
    for k in range(len(COMPOSITE) + 1):
        rec = stream(backend, [COMPOSITE[:k], COMPOSITE[k:]])
        got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert got == COMPOSITE_CALLS, k
        assert rec.other_content == COMPOSITE_CONTENT, k


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_char_per_delta(backend: str) -> None:
    rec = stream(backend, list(COMPOSITE))
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == COMPOSITE_CALLS
    assert rec.other_content == COMPOSITE_CONTENT


def _feeds(make, chunks: List[str]) -> Tuple[list, bool]:
    p = make()
    out = [p.feed(c) for c in chunks]
    out.append(p.finish())
    return out, p.malformed


def _twins_agree(text: str) -> None:
    def rust():
        return _core.Parser(FMT, TYPES)

    def python():
        return reference.Parser(FMT, TYPES)

    assert _core.extract(FMT, text, TYPES) == reference.extract(FMT, text, TYPES)
    for k in range(len(text) + 1):
        chunks = [text[:k], text[k:]]
        assert _feeds(rust, chunks) == _feeds(python, chunks), k
    chunks = list(text)
    assert _feeds(rust, chunks) == _feeds(python, chunks)


def test_twins_agree_per_feed() -> None:
    _twins_agree(COMPOSITE)
    for text in MALFORMED:
        _twins_agree(text)


def test_twins_agree_on_random_texts() -> None:
    import random

    pieces = [
        "<tool_call>", "</tool_call>", "<function=typed>", "<function=", "</function>", "\n",
        "<parameter=s>", "<parameter=i>", "<parameter=f>", "<parameter=o>", "<parameter=",
        "</parameter>", "\n</parameter>", "\n<parameter=t>", "\n</function>", "x", "é", "🎉",
        "<", ">", '"', "\\", "1.50", "-0", "True", "null", '{"a": [1]}', " ",
        "<parameter=ns>", "</parameter>x", "</parameter>  ", "\n</function>x", "</tool_call>",
    ]  # fmt: skip
    rnd = random.Random(11)
    for r in range(300):
        text = call("typed", EVERY_TYPE[:4]) if r % 2 else ""
        text = helpers.random_edits(rnd, text, pieces)
        helpers.check_twins_on_random_cuts(FMT, text, TYPES, rnd, 5)


# ----- large and deep values -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_string_streams(backend: str) -> None:
    big = ("0123456789abcdef\n" * 1000)[:16384]
    text = call("write_file", [("path", "p"), ("content", big)])
    s = toolparse.get_parser(FMT, tools=TOOLS, backend=backend).stream()
    rec = StreamingToolReconstructor()
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    with_args = 0
    for c in chunks:
        d = s.feed(c)
        if d is not None:
            rec.append_delta(d)
            if d.tool_calls and d.tool_calls[0].function and d.tool_calls[0].function.arguments:
                with_args += 1
    d = s.finish()
    if d is not None:
        rec.append_delta(d)
    assert [c.function.arguments for c in rec.tool_calls] == [dumps({"path": "p", "content": big})]
    # the value's ~4100 deltas nearly all carry a fragment
    assert with_args >= len(big) // 4 - 10


@pytest.mark.parametrize("backend", BACKENDS)
def test_deep_object_value(backend: str) -> None:
    depth = 5000
    raw = '{"a": [' * depth + "1" + "]}" * depth
    text = call("typed", [("o", raw)])
    info = extract(backend, text)
    assert calls_of(info) == [("typed", '{"o": ' + raw + "}")]
    bad = call("typed", [("o", raw[:-1])])
    assert calls_of(extract(backend, bad)) == [("typed", dumps({"o": raw[:-1]}))]


# ----- union schemas: the types a parameter admits -----

UNION_TOOLS = [
    tool(
        "union",
        {
            "in": {"type": ["integer", "null"]},
            "is": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "si": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "nb": {"oneOf": [{"type": "number"}, {"type": "boolean"}]},
            "oa": {"anyOf": [{"type": "object"}, {"type": "array"}]},
            "on": {"anyOf": [{"type": "object"}, {"type": "null"}]},
            "sn": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "deep": {"anyOf": [{"oneOf": [{"type": "integer"}]}, {"type": ["boolean", "null"]}]},
            "one": {"type": ["int", "integer"]},
            "s": {"type": "string"},
        },
    ),
]
UNION_TYPES = {
    "union": {
        "in": ["integer", "null"],
        "is": ["integer", "string"],
        "si": ["string", "integer"],
        "nb": ["number", "boolean"],
        "oa": ["object", "array"],
        "on": ["object", "null"],
        "sn": ["string", "null"],
        "deep": ["integer", "boolean", "null"],
        "one": ["int", "integer"],
        "s": ["string"],
    }
}


def test_schema_types_lists_every_admitted_type() -> None:
    from corpus import schema_types

    assert schema_types(UNION_TOOLS) == UNION_TYPES
    assert schema_types(TOOLS) == TYPES
    # no type information: an empty list (the value is a string)
    assert schema_types([tool("f", {"x": {"description": "d"}, "y": {"type": []}})]) == {
        "f": {"x": [], "y": []}
    }


UNIONS = [
    # (parameter, raw value, converted): the first admitted type of null, integer, number,
    # boolean, object, array the text parses as, else the string
    ("in", "42", 42),
    ("in", "null", None),
    ("in", "None", None),
    ("in", "abc", "abc"),
    ("is", "5", 5),
    ("is", " -05 ", -5),
    ("is", "x5", "x5"),
    ("is", "null", "null"),  # string admitted, null not: the string
    ("si", "5", 5),  # integer is tried before string whatever the schema's order
    ("nb", "1.50", 1.5),
    ("nb", "7", 7),
    ("nb", "TRUE", True),
    ("nb", "false", False),
    ("nb", "yes", "yes"),
    ("nb", "null", None),  # neither string nor null: null, as for a single typed parameter
    ("oa", '{"k": [1]}', {"k": [1]}),
    ("oa", "[1, 2]", [1, 2]),
    ("oa", "5", "5"),  # object and array accept only their own shape
    ("on", '{"key": "value", "count": 42}', {"key": "value", "count": 42}),
    ("on", "NULL", None),
    ("sn", "null", None),
    ("sn", "some text", "some text"),
    ("sn", " 42 ", " 42 "),
    ("deep", "3", 3),
    ("deep", "true", True),
    ("deep", "none", None),
    ("one", "12", 12),
    ("one", "1.5", "1.5"),
]


def union_check(backend: str, text: str, calls: List[Tuple[str, Dict[str, Any]]]) -> None:
    """Non-streaming through the facade; streaming at every 2-way split, per character and in
    random splits through both twins (identical per feed), all equal to it."""
    import random

    from corpus import split_plans, twin_extract, twin_stream

    want = [(n, dumps(a)) for n, a in calls]
    info = toolparse.get_parser(FMT, tools=UNION_TOOLS, backend=backend).extract_tool_calls(text)
    assert calls_of(info) == want
    assert info.content is None
    x = twin_extract(FMT, text, UNION_TYPES)
    assert [(n, a) for _, n, a in x[2]] == want and not x[3]
    plans = [[text[:k], text[k:]] for k in range(len(text) + 1)]
    plans += split_plans(text, random.Random(len(text)))
    for chunks in plans:
        _, got = twin_stream(FMT, chunks, UNION_TYPES)
        assert got.result() == (None, None, want), chunks


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("key,raw,value", UNIONS)
def test_union_types(backend: str, key: str, raw: str, value: Any) -> None:
    union_check(backend, call("union", [(key, raw)]), [("union", {key: value})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_vllm_anyof_type_conversion(backend: str) -> None:
    """vLLM's test_extract_tool_calls_anyof_type_conversion (and its streaming twin): Pydantic's
    Optional[T] schemas and a list ``type`` take the non-null type's value."""
    props = {
        "anyof_int": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
        "anyof_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "anyof_array": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
        },
        "anyof_obj": {"anyOf": [{"type": "object"}, {"type": "null"}]},
        "type_as_array": {"type": ["integer", "null"]},
        "multi_non_null": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        "verbose": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
    }
    text = call(
        "test_anyof",
        [
            ("anyof_int", "5"),
            ("anyof_str", "hello"),
            ("anyof_array", '["a", "b", "c"]'),
            ("anyof_obj", '{"key": "value"}'),
            ("type_as_array", "42"),
            ("multi_non_null", "some text"),
            ("verbose", "true"),
        ],
    )
    want = dumps(
        {
            "anyof_int": 5,
            "anyof_str": "hello",
            "anyof_array": ["a", "b", "c"],
            "anyof_obj": {"key": "value"},
            "type_as_array": 42,
            "multi_non_null": "some text",
            "verbose": True,
        }
    )
    parser = toolparse.get_parser(FMT, tools=[tool("test_anyof", props)], backend=backend)
    assert calls_of(parser.extract_tool_calls(text)) == [("test_anyof", want)]
    for chunks in ([text], list(text)):
        s = parser.stream()
        rec = StreamingToolReconstructor()
        for d in [s.feed(c) for c in chunks] + [s.finish()]:
            if d is not None:
                rec.append_delta(d)
        assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
            ("test_anyof", want)
        ]


def _args_after(backend: str, tools: Any, text: str) -> str:
    """The arguments streamed once ``text`` was fed (not finished)."""
    s = toolparse.get_parser(FMT, tools=tools, backend=backend).stream()
    rec = StreamingToolReconstructor()
    d = s.feed(text)
    if d is not None:
        rec.append_delta(d)
    return rec.tool_calls[0].function.arguments if rec.tool_calls else ""


@pytest.mark.parametrize("backend", BACKENDS)
def test_union_with_string_is_sent_at_close(backend: str) -> None:
    head = "<function=union>\n<parameter=sn>\n"
    # a union admitting a string and null cannot be typed before it closes: nothing is sent
    assert _args_after(backend, UNION_TOOLS, head + "hello wor") == '{"sn": '
    assert _args_after(backend, UNION_TOOLS, head + "hello world\n</parameter>\n") == '{"sn": '
    closed = head + "hello world\n</parameter>\n<parameter=s>\nx"
    assert _args_after(backend, UNION_TOOLS, closed) == '{"sn": "hello world", "s": "x'
    closed = head + "null\n</parameter>\n<parameter=s>"
    assert _args_after(backend, UNION_TOOLS, closed) == '{"sn": null, "s": "'

    # a single string type streams as it comes
    head = "<function=union>\n<parameter=s>\n"
    assert _args_after(backend, UNION_TOOLS, head + "hello wor") == '{"s": "hello wor'


# ----- values that contain their own closing tag -----

FILE = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\np\n</parameter>\n<parameter=content>\n"
)
FILE_END = "\n</parameter>\n</function>\n</tool_call>"

LITERAL_TAGS = [
    # (value text between the content parameter's newlines, the value it gives)
    ("a</parameter>b", "a</parameter>b"),
    ("a</parameter>\nb", "a</parameter>\nb"),
    ("x\n</parameter>\ny", "x\n</parameter>\ny"),
    ("a</parameter> <b>", "a</parameter> <b>"),
    ("a</parameter>\n<parameter", "a</parameter>\n<parameter"),
    ("a</parameter></function", "a</parameter></function"),
    ("a</parameter></parameter>", "a</parameter></parameter>"),
    ("</parameter>x", "</parameter>x"),
    ("</parameter>\n</parameter>x", "</parameter>\n</parameter>x"),
    ("int f() {\n</function>\nmore", "int f() {\n</function>\nmore"),
    ("a</parameter>" + " " * 65 + "</function>", "a</parameter>" + " " * 65 + "</function>"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value,want", LITERAL_TAGS)
def test_closing_tag_inside_a_value(backend: str, value: str, want: str) -> None:
    text = FILE + value + FILE_END
    check(backend, text, None, [("write_file", {"path": "p", "content": want})])
    for k in range(len(text) + 1):
        rec = stream(backend, [text[:k], text[k:]])
        got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert got == [("write_file", dumps({"path": "p", "content": want}))], k


def test_closing_tag_inside_a_value_twins() -> None:
    """Both twins, identical per feed, at every 2-way split of each text above."""
    from corpus import twin_stream

    for value, want in LITERAL_TAGS:
        text = FILE + value + FILE_END
        for k in range(len(text) + 1):
            _, got = twin_stream(FMT, [text[:k], text[k:]], TYPES)
            assert got.result() == (
                None,
                None,
                [("write_file", dumps({"path": "p", "content": want}))],
            )


CLOSING = [
    # (text, content, calls): a </parameter> followed (after whitespace) by <parameter=,
    # </function> or </tool_call> closes the value
    (
        "<function=write_file>\n<parameter=content>\na</parameter><parameter=path>\np\n"
        "</parameter>\n</function>",
        None,
        [("write_file", {"content": "a", "path": "p"})],
    ),
    (
        "<function=write_file>\n<parameter=content>\na</parameter>  \n\t </function>",
        None,
        [("write_file", {"content": "a"})],
    ),
    (
        "<function=write_file>\n<parameter=content>\na</parameter>" + " " * 64 + "</function>",
        None,
        [("write_file", {"content": "a"})],
    ),
    (
        "<tool_call>\n<function=write_file>\n<parameter=content>\na\n</parameter>\n</tool_call> ok",
        " ok",
        [("write_file", {"content": "a"})],
    ),
    # the implicit end \n</function> (no </parameter>) closes before </tool_call> or the end
    (
        "<tool_call>\n<function=write_file>\n<parameter=content>\nabc\n</function>\n</tool_call>",
        None,
        [("write_file", {"content": "abc"})],
    ),
    (
        "<function=write_file>\n<parameter=content>\nabc\n</function>  ",
        None,
        [("write_file", {"content": "abc"})],
    ),
    (
        "<tool_call>\n<function=write_file>\n<parameter=content>\nabc\n</function>\n</tool_",
        None,
        [("write_file", {"content": "abc"})],
    ),
    # an empty value whose leading newline begins a closing tag that turns out to be text
    (
        "<function=write_file>\n<parameter=content>\n</parameter>x\n</parameter>\n</function>",
        None,
        [("write_file", {"content": "</parameter>x"})],
    ),
    (
        "<function=write_file>\n<parameter=content>\n</parameter>\n</function>",
        None,
        [("write_file", {"content": ""})],
    ),
    # a typed value too
    (
        '<function=typed>\n<parameter=o>\n{"k": "</parameter>!"}\n</parameter>\n</function>',
        None,
        [("typed", {"o": {"k": "</parameter>!"}})],
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,calls", CLOSING)
def test_closing_tag_closes(backend: str, text: str, content: Optional[str], calls) -> None:
    check(backend, text, content, calls)
    for k in range(len(text) + 1):
        rec = stream(backend, [text[:k], text[k:]])
        assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
            (n, dumps(a)) for n, a in calls
        ], k


@pytest.mark.parametrize("backend", BACKENDS)
def test_closing_tag_at_the_end_of_the_output(backend: str) -> None:
    # `...V</parameter>` and the text ends: the tag closes the value; `</function>` never came,
    # so the call is truncated (non-streaming, with no complete call: the text is content)
    # (also when the markup after it was cut off)
    for tail in ["</parameter>", "</parameter>\n  ", "\n</parameter>\n", "</parameter>\n</fun"]:
        text = FILE + "V" + tail
        info = extract(backend, text)
        assert not info.tools_called and info.content == text and info.truncated
        for chunks in ([text], list(text)):
            s = toolparse.get_parser(FMT, tools=TOOLS, backend=backend).stream()
            rec = StreamingToolReconstructor()
            for d in [s.feed(c) for c in chunks] + [s.finish()]:
                if d is not None:
                    rec.append_delta(d)
            assert s.truncated and not s.malformed
            assert rec.tool_calls[0].function.arguments == '{"path": "p", "content": "V"'


@pytest.mark.parametrize("backend", BACKENDS)
def test_closing_tag_hold_is_bounded(backend: str) -> None:
    # until what follows it is known, the tag and the whitespace after it are held back...
    held = FILE + "a</parameter>" + " " * 64
    assert _args_after(backend, TOOLS, held) == '{"path": "p", "content": "a'
    assert _args_after(backend, TOOLS, held + "</func") == '{"path": "p", "content": "a'
    # ...but no more than WS_CAP bytes of whitespace: past that the tag is value text
    assert _args_after(backend, TOOLS, held + " ") == (
        '{"path": "p", "content": "a</parameter>' + " " * 65
    )
    # anything else after it decides at once
    assert _args_after(backend, TOOLS, FILE + "a</parameter>\nb") == (
        '{"path": "p", "content": "a</parameter>\\nb'
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_closing_tag_inside_a_long_value_at_delta_boundaries(backend: str) -> None:
    line = "if x </parameter> y:\n    s = '</parameter>'  # </function>\n</parameter>\nz\n"
    big = (line * 120)[:-1]
    text = FILE + big + FILE_END
    want = [("write_file", dumps({"path": "p", "content": big}))]
    info = extract(backend, text)
    assert calls_of(info) == want
    tag = text.index("</parameter>", len(FILE) + 1000)
    # every cut around one tag inside the value, and fixed-size deltas of several widths
    plans = [[text[:k], text[k:]] for k in range(tag - 3, tag + 30)]
    plans += [[text[i : i + n] for i in range(0, len(text), n)] for n in (1, 5, 7, 13, 64)]
    for chunks in plans:
        rec = stream(backend, chunks)
        assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == want

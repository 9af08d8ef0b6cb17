"""The XML-parameter family beyond qwen3_coder (``tests/test_qwen3_coder.py``): seed_oss,
minimax_m2, glm45, glm47, step3, deepseek_v32 -- both backends, streaming and not.

The cases are the peers' own (vLLM ``tests/tool_parsers/test_<x>_tool_parser.py``, the parsers'
docstrings, SGLang's detectors), with our rules where they differ:

* content is the text outside the calls (vLLM keeps only the text before the first call of some
  formats);
* values are typed by the tool schema (vLLM's engine parsers for minimax_m2 / glm keep every value
  a string); DSML is typed by its ``string`` attribute, as in vLLM;
* glm, DSML and step3 keep values verbatim; seed_oss and minimax_m2 strip one leading and one
  trailing newline (vLLM's step3 strips all surrounding whitespace, which would drop the trailing
  newline of code; see ``tests/test_written_values.py``);
* reasoning tags (``<seed:think>``, ``<think>``) are not parsed: their text is content (vLLM's
  seed_oss ignores a call written inside ``<seed:think>``; we parse it);
* step3: object, array and null parameters are typed too (vLLM's step3 converts only strings,
  integers, numbers and booleans); every section is read, and a call outside a section counts.

Checked against vLLM 0.33's own parsers on every standard case of ``corpus.py`` (same calls for
seed_oss, minimax_m2, glm45, glm47 and deepseek_v32; step3 differs only as said above).
"""

from __future__ import annotations

import functools
import random
from typing import Any, Dict, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from helpers import dumps

BACKENDS = ("rust", "python")


def tool(name: str, props: Dict[str, Any]) -> Dict[str, Any]:
    return helpers.tool(name, props, described=True)


TOOLS = [
    tool(
        "get_weather",
        {
            "location": "string",
            "unit": "string",
            "city": "string",
            "date": "string",
            "days": "integer",
        },
    ),
    tool("get_current_weather", {"city": "string", "state": "string", "unit": "string"}),
    tool("search_web", {"query": "string", "limit": "integer"}),
    tool("get_current_time", {}),
    tool(
        "typed",
        {
            "s": "string",
            "i": "integer",
            "f": "number",
            "b": "boolean",
            "o": "object",
            "u": ["integer", "null"],
        },
    ),
]
TYPES = corpus.schema_types(TOOLS)


def extract(fmt: str, backend: str, text: str, tools: Any = TOOLS):
    return toolparse.get_parser(fmt, tools=tools, backend=backend).extract_tool_calls(text)


check = functools.partial(helpers.check_converted, tools=TOOLS)


def stream(fmt: str, backend: str, chunks: List[str], tools: Any = TOOLS):
    return helpers.stream(toolparse.get_parser(fmt, tools=tools, backend=backend), chunks)[0]


# ----- seed_oss (vLLM test_seed_oss_tool_parser.py) -----

SEED_CALL = (
    "<seed:tool_call>\n<function=get_weather>\n"
    "<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>"
)
SEED_THINK = (
    "<seed:think>The user's current thinking budget is 512.</seed:cot_budget_reflect>\n"
    "Let me analyze the question.</seed:think>\n"
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_oss_peer_cases(backend: str) -> None:
    check("seed_oss", backend, SEED_CALL, None, [("get_weather", {"location": "Barcelona, Spain"})])
    check(
        "seed_oss",
        backend,
        SEED_THINK + SEED_CALL,
        SEED_THINK,
        [("get_weather", {"location": "Barcelona, Spain"})],
        every_split=False,
    )
    two = SEED_CALL.replace(
        "</parameter>\n</function>",
        "</parameter>\n<parameter=unit>celsius</parameter>\n</function>",
    )
    check(
        "seed_oss",
        backend,
        two,
        None,
        [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})],
    )
    text = "This is a test response without any tool calls"
    check("seed_oss", backend, text, text, [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_oss_is_not_qwen3_coder(backend: str) -> None:
    """qwen3_coder's wrapper is text to seed_oss (a bare function still starts a call)."""
    text = "<tool_call>\n<function=get_current_time>\n</function>\n</tool_call>"
    check("seed_oss", backend, text, "<tool_call>\n\n</tool_call>", [("get_current_time", {})])
    info = extract("seed_oss", backend, "<tool_call>\nhi</tool_call>")
    assert info.content == "<tool_call>\nhi</tool_call>" and not info.tool_calls


# ----- minimax_m2 (vLLM test_minimax_m2_tool_parser.py) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_minimax_m2_peer_cases(backend: str) -> None:
    one = (
        '<minimax:tool_call><invoke name="get_weather">'
        '<parameter name="city">Seattle</parameter>'
        '<parameter name="days">5</parameter>'
        "</invoke></minimax:tool_call>"
    )
    check("minimax_m2", backend, one, None, [("get_weather", {"city": "Seattle", "days": 5})])
    check(
        "minimax_m2",
        backend,
        "Let me check. " + one,
        "Let me check. ",
        [("get_weather", {"city": "Seattle", "days": 5})],
    )
    two = (
        "<minimax:tool_call>"
        '<invoke name="search_web"><parameter name="query">OpenAI</parameter></invoke>'
        '<invoke name="search_web"><parameter name="query">Gemini</parameter></invoke>'
        "</minimax:tool_call>"
    )
    check(
        "minimax_m2",
        backend,
        two,
        None,
        [("search_web", {"query": "OpenAI"}), ("search_web", {"query": "Gemini"})],
    )
    # the layout of the model's chat template: newlines between the tags
    lines = (
        '<minimax:tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">Seattle</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    check("minimax_m2", backend, lines, None, [("get_weather", {"city": "Seattle"})])
    check("minimax_m2", backend, "Hello world", "Hello world", [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_minimax_m2_untyped_values_are_strings(backend: str) -> None:
    """Without tools (vLLM's engine parser keeps every value a string) a value is a string."""
    text = '<minimax:tool_call><invoke name="fn"><parameter name="a">1</parameter></invoke>'
    info = extract("minimax_m2", backend, text + "</minimax:tool_call>", tools=None)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [
        ("fn", '{"a": "1"}')
    ]


# ----- glm45 / glm47 (vLLM test_glm4_moe_tool_parser.py, test_glm47_moe_tool_parser.py) -----

GLM_DALLAS = """<tool_call>get_current_weather
    <arg_key>city</arg_key>
    <arg_value>Dallas</arg_value>
    <arg_key>state</arg_key>
    <arg_value>TX</arg_value>
    <arg_key>unit</arg_key>
    <arg_value>fahrenheit</arg_value>
    </tool_call>"""
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["glm45", "glm47"])
def test_glm_peer_cases(fmt: str, backend: str) -> None:
    check(fmt, backend, GLM_DALLAS, None, [("get_current_weather", DALLAS)])
    orlando = GLM_DALLAS.replace("Dallas", "Orlando").replace("TX", "FL")
    check(
        fmt,
        backend,
        GLM_DALLAS + "\n    " + orlando,
        None,
        [
            ("get_current_weather", DALLAS),
            ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
        ],
        every_split=False,
    )
    before = "I will help you get the weather."
    text = (
        before + "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>"
    )
    check(fmt, backend, text, before, [("get_weather", {"city": "Beijing", "date": "2025-08-01"})])
    check(
        fmt, backend, "<tool_call>get_current_time\n</tool_call>", None, [("get_current_time", {})]
    )
    # glm47: no newline after the name, none between the tags; a call with no arguments
    compact = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
        "<tool_call>get_current_time</tool_call>"
    )
    check(
        fmt,
        backend,
        compact,
        None,
        [("get_weather", {"city": "Beijing"}), ("get_current_time", {})],
    )
    # thinking tags are content here; values are verbatim (surrounding whitespace is data)
    text = (
        "<think>I want to get the weather.</think>\n\nI will help you.\n<tool_call>get_weather\n"
        "<arg_key>city</arg_key>\n<arg_value> Beijing\n</arg_value>\n</tool_call>"
    )
    check(
        fmt,
        backend,
        text,
        "<think>I want to get the weather.</think>\n\nI will help you.\n",
        [("get_weather", {"city": " Beijing\n"})],
        every_split=False,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_glm_incomplete_and_malformed(backend: str) -> None:
    # vLLM: an incomplete call is not extracted, the text is content (ours: truncated)
    text = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>"
    )
    info = extract("glm45", backend, text)
    assert not info.tools_called and info.content == text and info.truncated
    # a key without its closing tag: malformed, the text is content
    text = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n"
        "<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>"
    )
    info = extract("glm45", backend, text)
    assert not info.tools_called and info.content == text
    # hermes-style JSON in <tool_call> is not a glm call
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    check("glm45", backend, text, text, [])


# ----- step3 (SGLang step3_detector.py, vLLM step3_tool_parser.py) -----

STEP3 = (
    "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
    '<steptml:invoke name="get_weather">\n'
    '<steptml:parameter name="location">Barcelona</steptml:parameter>\n'
    '<steptml:parameter name="days">2</steptml:parameter>\n'
    "</steptml:invoke><｜tool_call_end｜>"
    "<｜tool_call_begin｜>function<｜tool_sep｜>"
    '<steptml:invoke name="get_current_time"></steptml:invoke><｜tool_call_end｜>'
    "<｜tool_calls_end｜>"
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_step3_peer_cases(backend: str) -> None:
    calls = [("get_weather", {"location": "Barcelona", "days": 2}), ("get_current_time", {})]
    check("step3", backend, STEP3, None, calls, every_split=False)
    check("step3", backend, "Let me see. " + STEP3 + " ok", "Let me see.  ok", calls, False)
    text = "No calls <｜tool_call_begin｜> here"
    check("step3", backend, text, text, [])
    # without "function<｜tool_sep｜>" (the format's documented form writes it so): the same calls
    short = STEP3.replace("function<｜tool_sep｜>", "")
    check("step3", backend, short, None, calls, every_split=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_step3_every_split(backend: str) -> None:
    text = (
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="f"><steptml:parameter name="a">x</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
    )
    check("step3", backend, text, None, [("f", {"a": "x"})])


@pytest.mark.parametrize("backend", BACKENDS)
def test_step3_name_repeated_before_the_invoke(backend: str) -> None:
    """Real step3 outputs repeat the name after ``<｜tool_sep｜>`` before the invoke (the spec's
    ``function_lead``: markup, as the peers skip to the invoke); a ``<｜tool_sep｜>`` between
    calls is markup (the spec's ``call_sep``)."""
    calls = [("get_weather", {"location": "Barcelona", "days": 2}), ("get_current_time", {})]
    sep = "<｜tool_sep｜>"
    named = STEP3.replace(f"function{sep}<", f"function{sep}get_weather\n<", 1)
    named = named.replace(f"function{sep}<", f"function{sep} get_current_time \n<", 1)
    assert named.count("get_current_time") == 2
    check("step3", backend, named, None, calls, every_split=False)
    check("step3", backend, "Let me see. " + named + " ok", "Let me see.  ok", calls, False)
    # a <｜tool_sep｜> between calls, with or without whitespace around it
    between = named.replace(
        "<｜tool_call_end｜><｜tool_call_begin｜>", f"<｜tool_call_end｜>{sep}<｜tool_call_begin｜>"
    )
    check("step3", backend, between, None, calls, every_split=False)
    spaced = named.replace(
        "<｜tool_call_end｜><｜tool_call_begin｜>",
        f"<｜tool_call_end｜>\n{sep}\n<｜tool_call_begin｜>",
    )
    check("step3", backend, spaced, None, calls, every_split=False)
    short = (
        f"<｜tool_calls_begin｜><｜tool_call_begin｜>function{sep}f\n"
        '<steptml:invoke name="f"><steptml:parameter name="a">x</steptml:parameter>'
        f"</steptml:invoke><｜tool_call_end｜>{sep}<｜tool_calls_end｜>"
    )
    check("step3", backend, short, None, [("f", {"a": "x"})])
    # what stands after the lead is a name, not other markup: else the markup is content
    text = short.replace(f"{sep}f\n", f"{sep}f<x>\n")
    check("step3", backend, text, text, [])


# ----- deepseek_v32 (vLLM deepseek_v32 parser, SGLang deepseekv32_detector.py) -----

DSML = helpers.dsml("function_calls", "location")


@pytest.mark.parametrize("backend", BACKENDS)
def test_deepseek_v32_peer_cases(backend: str) -> None:
    check("deepseek_v32", backend, DSML, None, [("get_weather", {"location": "杭州", "days": 5})])
    two = DSML.replace(
        "</｜DSML｜invoke>\n</",
        "</｜DSML｜invoke>\n"
        '<｜DSML｜invoke name="search_web">\n'
        '<｜DSML｜parameter name="query" string="true">San Francisco</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</",
    )
    check(
        "deepseek_v32",
        backend,
        "Sure. " + two,
        "Sure. ",
        [
            ("get_weather", {"location": "杭州", "days": 5}),
            ("search_web", {"query": "San Francisco"}),
        ],
        every_split=False,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_deepseek_v32_string_attribute(backend: str) -> None:
    """string="true": the text; string="false" or no attribute: JSON, else the text; the schema
    is not consulted (``s`` is a string parameter)."""

    def p(name: str, attr: Optional[str], value: str) -> str:
        a = "" if attr is None else f' string="{attr}"'
        return f'<｜DSML｜parameter name="{name}"{a}>{value}</｜DSML｜parameter>'

    body = "".join(
        [
            p("s", "false", '{"k": [1, 2.50]}'),
            p("i", "true", "42"),
            p("b", None, "true"),
            p("x", "false", "not json"),
            p("n", "false", "null"),
            p("w", "true", " kept \n"),
        ]
    )
    text = f'<｜DSML｜function_calls><｜DSML｜invoke name="typed">{body}</｜DSML｜invoke>'
    want = {"s": {"k": [1, 2.5]}, "i": "42", "b": True, "x": "not json", "n": None, "w": " kept \n"}
    check("deepseek_v32", backend, text, None, [("typed", want)], every_split=False)


# ----- the family: schema typing, truncation, twins -----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["seed_oss", "minimax_m2", "glm45", "glm47", "step3"])
def test_values_typed_by_schema(fmt: str, backend: str) -> None:
    r = corpus.renderer(fmt)
    args = {"s": "a b", "i": 7, "f": 2.5, "b": False, "o": {"k": [1]}, "u": None}
    text = r.function("typed", args)
    want = [("typed", dumps(args))]
    info = extract(fmt, backend, text)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == want
    # a value that does not fit its type is a string, a union takes the first type that fits
    text = r.function("typed", {"i": "x7", "u": "12"})
    info = extract(fmt, backend, text)
    assert info.tool_calls[0].function.arguments == dumps({"i": "x7", "u": 12})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", corpus.XML_FORMATS)
def test_truncated_at_every_offset(fmt: str, backend: str) -> None:
    """Every prefix of two calls: the calls complete in it are kept, nothing is malformed, and
    what streamed is a prefix of the whole."""
    case = corpus.renderer(fmt).render(
        [("get_weather", {"city": "Paris", "days": 3}), ("get_current_time", {})], before="Hi "
    )
    whole = [
        (c.function.name, c.function.arguments)
        for c in stream(fmt, backend, [case.text]).tool_calls
    ]
    rng = random.Random(3)
    offsets = sorted(rng.sample(range(len(case.text)), min(40, len(case.text))))
    for k in offsets:
        text = case.text[:k]
        info = extract(fmt, backend, text)
        done = [(c.function.name, c.function.arguments) for c in info.tool_calls]
        assert done == whole[: len(done)], text  # only complete calls, each whole
        rec = stream(fmt, backend, list(text))
        got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert len(got) <= len(whole)
        for (n, a), (wn, wa) in zip(got, whole):
            assert n == wn and wa.startswith(a), (text, got)


@pytest.mark.parametrize("fmt", corpus.XML_FORMATS)
def test_twins_agree_on_random_texts(fmt: str) -> None:
    r = corpus.renderer(fmt)
    pieces = [*r.markers, "\n", " ", "x", "é", "🎉", "<", ">", '"', "\\", "1.50", "true", "null"]
    pieces += ['{"a": [1]}', "typed", "get_weather", "s", "i", "u", "</", '">', '" string="']
    rnd = random.Random(7)
    valid = r.function("typed", {"s": "a\nb", "i": 7, "u": None})
    for n in range(120):
        text = helpers.random_edits(rnd, valid if n % 2 else "", pieces)
        helpers.check_twins_on_random_cuts(fmt, text, TYPES, rnd, 3)


# ----- parameter types behind $ref / $defs -----

_REF_TOOL = {
    "type": "function",
    "function": {
        "name": "book",
        "parameters": {
            "type": "object",
            "$defs": {
                "Location": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
                },
                "Count": {"$ref": "#/$defs/Int"},
                "Int": {"type": "integer"},
            },
            "properties": {
                "location": {"$ref": "#/$defs/Location"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Location"}, {"type": "null"}]},
                "n": {"$ref": "#/$defs/Count"},
                "loop": {"$ref": "#/properties/loop"},
                "missing": {"$ref": "#/$defs/Nope"},
            },
        },
    },
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fmt", ["qwen3_coder", "seed_oss", "minimax_m2", "glm45", "step3", "beam", "muse", "minimax_m3"]
)
def test_types_behind_refs(fmt: str, backend: str) -> None:
    # a parameter typed by "#/$defs/Location" is an object, not a string; an anyOf of refs and
    # a ref to a ref are followed; a cycle or a ref that does not resolve types nothing
    r = corpus.renderer(fmt)
    args = {
        "location": {"city": "Paris", "zip": 75001},
        "maybe": {"city": "Oslo"},
        "n": 3,
        "loop": "x",
        "missing": "y",
    }
    text = r.render([("book", args)]).text
    info = extract(fmt, backend, text, tools=[_REF_TOOL])
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [
        ("book", dumps(args))
    ]
    rec = stream(fmt, backend, list(text), tools=[_REF_TOOL])
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
        ("book", dumps(args))
    ]


# ----- minicpm5: CDATA values (the spec's call.cdata) -----

_CDATA_TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}),
    tool("write", {"path": {"type": "string"}, "body": {"type": "string"}}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text,calls",
    [
        # SGLang's minicpm5 detector's own example
        (
            '<function name="get_weather"><param name="city"><![CDATA[多行\n文本]]></param>'
            "</function>",
            [("get_weather", {"city": "多行\n文本"})],
        ),
        # the section is the value as written: markup, '<', '&' and surrounding newlines kept
        (
            '<function name="write"><param name="path">a.xml</param><param name="body">'
            "<![CDATA[\n<param>x</param> & </function> ]] ]>\n]]></param></function>",
            [("write", {"path": "a.xml", "body": "\n<param>x</param> & </function> ]] ]>\n"})],
        ),
        # a typed value in a section, and text without one stays as it was
        (
            '<function name="get_weather"><param name="days"><![CDATA[3]]></param>'
            '<param name="city">Paris <![CDATA[x]]></param></function>',
            [("get_weather", {"days": 3, "city": "Paris <![CDATA[x]]>"})],
        ),
        (
            '<function name="write"><param name="body"><![CDATA[]]></param></function>',
            [("write", {"body": ""})],
        ),
    ],
)
def test_minicpm5_cdata(backend: str, text: str, calls: List[Tuple[str, Dict[str, Any]]]) -> None:
    check("minicpm5", backend, text, None, calls, tools=_CDATA_TOOLS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cdata_is_minicpm5s_rule_only(backend: str) -> None:
    # a format whose spec entry does not say cdata keeps the section as text
    text = (
        "<tool_call>\n<function=write>\n<parameter=body>\n<![CDATA[x]]>\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    info = extract("qwen3_coder", backend, text, tools=_CDATA_TOOLS)
    assert info.tool_calls[0].function.arguments == dumps({"body": "<![CDATA[x]]>"})

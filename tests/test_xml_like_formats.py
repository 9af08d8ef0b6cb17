"""The XML-like variant formats: qwen3_xml, step3p5, step5, mimo, deepseek_v4, deepseek_v41,
poolside_v1, hy_v3, hy_v4, k2_horizon -- both backends, streaming (every split of the short texts)
and not. The cases are the peers' own (vLLM ``tests/tool_parsers/test_<x>_tool_parser.py`` and
the parsers' docstrings; SGLang's detectors), with our rules where they differ:

* content is the text outside the calls (vLLM's hy_v3 keeps only the text before the section;
  its deepseek_v4 drops text after it);
* values are typed by the tool schema; DSML by its ``string`` attribute (a missing attribute is
  JSON, as in vLLM);
* hy_v3 / hy_v4: the tokens without a checkpoint suffix (``<tool_calls>``, not
  ``<tool_calls:opensource>``);
* k2_horizon: ``<ifm|arg_type>T</ifm|arg_type>`` types a value the schema does not know, and picks
  T out of a union schema (vLLM's rule); the group need not be closed (vLLM requires
  ``</ifm|tool_calls>``; a missing end is truncation here, as for every format).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")


TOOLS = [
    helpers.tool("get_current_date", {}),
    helpers.tool("get_weather", {"city": "string", "date": "string", "days": "integer"}),
    helpers.tool("write_file", {"content": "string", "mode": "integer"}),
    helpers.tool(
        "typed",
        {"s": "string", "i": "integer", "u": ["string", "object"], "n": ["integer", "string"]},
    ),
]


check = functools.partial(helpers.check_converted, tools=TOOLS)


# ----- qwen3_xml, step3p5, step5: the Qwen3-Coder grammar (vLLM registers one parser) -----

QWEN = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nBeijing\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["qwen3_xml", "step3p5", "step5"])
def test_qwen3_grammar(fmt: str, backend: str) -> None:
    want = [("get_weather", {"city": "Beijing", "days": 3})]
    check(fmt, backend, QWEN, None, want)
    check(fmt, backend, "Let me check.\n" + QWEN, "Let me check.\n", want, every_split=False)
    # vLLM's Qwen3 docstring: a value on the tag's line; a bare function
    inline = "<function=get_current_date>\n</function>"
    check(fmt, backend, inline, None, [("get_current_date", {})])
    two = QWEN + "\n" + QWEN.replace("Beijing", "Hangzhou")
    check(fmt, backend, two, None, want + [("get_weather", {"city": "Hangzhou", "days": 3})], False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_qwen3_xml_is_qwen3_coder(backend: str) -> None:
    """Same parser in vLLM: same results, streamed too."""
    a = toolparse.get_parser("qwen3_xml", tools=TOOLS, backend=backend).extract_tool_calls(QWEN)
    b = toolparse.get_parser("qwen3_coder", tools=TOOLS, backend=backend).extract_tool_calls(QWEN)
    assert [(c.function.name, c.function.arguments) for c in a.tool_calls] == [
        (c.function.name, c.function.arguments) for c in b.tool_calls
    ]


# ----- mimo (vLLM parser/mimo.py: Qwen3 markers, values verbatim; SGLang MiMoDetector) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_mimo(backend: str) -> None:
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=content>pwd && ls</parameter>\n"
        "</function>\n</tool_call>"
    )
    check("mimo", backend, text, None, [("write_file", {"content": "pwd && ls"})])
    # verbatim: the newlines around a value are the value's (qwen3 strips one each)
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=content>\nline\n</parameter>\n"
        "<parameter=mode>\n420\n</parameter>\n</function>\n</tool_call>"
    )
    check("mimo", backend, text, None, [("write_file", {"content": "\nline\n", "mode": 420})])


# ----- deepseek_v4 / deepseek_v41 (vLLM parser/deepseek_v4.py, deepseek_v41.py; SGLang) -----

V4 = helpers.dsml("tool_calls", "city")


@pytest.mark.parametrize("backend", BACKENDS)
def test_deepseek_v4(backend: str) -> None:
    want = [("get_weather", {"city": "杭州", "days": 5})]
    # the start spellings vLLM saw in production
    for start in ("<｜DSML｜toolcalls>", "<｜DSML｜tool>"):
        check("deepseek_v4", backend, V4.replace("<｜DSML｜tool_calls>", start), None, want, False)
    # v32's wrapper is not v4's: the invokes still count, the wrapper is text
    v32 = V4.replace("tool_calls>", "function_calls>")
    info = toolparse.get_parser("deepseek_v4", tools=TOOLS, backend=backend).extract_tool_calls(v32)
    assert [c.function.name for c in info.tool_calls] == ["get_weather"]
    # a missing string attribute: JSON, text that is not JSON a string (vLLM)
    bare = V4.replace(' string="false"', "").replace(' string="true">杭州', ">杭州")
    check("deepseek_v4", backend, bare, None, want, every_split=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_deepseek_v41_spaced_tags(backend: str) -> None:
    text = (
        V4.replace("<｜DSML｜tool_calls>", "<｜DSML｜ calls>")
        .replace("</｜DSML｜tool_calls>", "</｜DSML｜ calls>")
        .replace("｜DSML｜invoke", "｜DSML｜ invoke")
        .replace("｜DSML｜parameter", "｜DSML｜ parameter")
    )
    check("deepseek_v41", backend, text, None, [("get_weather", {"city": "杭州", "days": 5})])
    # v4's unspaced tags are text to v41
    info = toolparse.get_parser("deepseek_v41", backend=backend).extract_tool_calls(V4)
    assert not info.tools_called and info.content == V4


# ----- poolside_v1 (vLLM test_poolside_v1_tool_parser.py) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_poolside_v1(backend: str) -> None:
    content = "    def f():\n        return 1\n"
    text = (
        f"<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>{content}</arg_value>\n"
        "</tool_call>"
    )
    check("poolside_v1", backend, text, None, [("write_file", {"content": content})], False)
    text = (
        "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>hi</arg_value>\n"
        "<arg_key>mode</arg_key>\n<arg_value> 420 </arg_value>\n</tool_call>"
    )
    check("poolside_v1", backend, text, None, [("write_file", {"content": "hi", "mode": 420})])
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    check("poolside_v1", backend, text, None, [("get_weather", {"city": "Paris"})])
    text = "<tool_call>   </tool_call>"  # a blank name is not a call
    check("poolside_v1", backend, text, text, [])


# ----- hy_v3 (vLLM test_hy_v3_tool_parser.py) and hy_v4 (test_hy_v4_tool_parser.py) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_hy_v3(backend: str) -> None:
    check("hy_v3", backend, "This is a plain response.", "This is a plain response.", [])
    zero = "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>"
    check("hy_v3", backend, zero, None, [("get_current_date", {})])
    zero_nl = "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"
    check("hy_v3", backend, zero_nl, None, [("get_current_date", {})])
    check("hy_v3", backend, "Checking." + zero_nl, "Checking.", [("get_current_date", {})])
    same_line = (
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing"
        "</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call>"
        "</tool_calls>"
    )
    want = ("get_weather", {"city": "Beijing", "date": "2026-03-30"})
    check("hy_v3", backend, same_line, None, [want], every_split=False)
    multiple = (
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>"
        "Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n"
        "</tool_call>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>"
        "Hangzhou</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n"
        "</tool_call>\n</tool_calls>"
    )
    want2 = ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"})
    check("hy_v3", backend, multiple, None, [want, want2], every_split=False)


def _hy4_arg(k: str, v: str) -> str:
    return f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>"


@pytest.mark.parametrize("backend", BACKENDS)
def test_hy_v4(backend: str) -> None:
    def call(name: str, args: str = "") -> str:
        return f"<tool_call>{name}{args}</tool_call>"

    def block(body: str) -> str:
        return f"<tool_calls>{body}</tool_calls>"

    text = "sure!" + block(call("get_weather", _hy4_arg("city", "Beijing") + _hy4_arg("days", "3")))
    check("hy_v4", backend, text, "sure!", [("get_weather", {"city": "Beijing", "days": 3})])
    check("hy_v4", backend, block(call("get_current_date")), None, [("get_current_date", {})])
    text = block(call("get_weather", _hy4_arg("city", "A")) + call("get_current_date"))
    check("hy_v4", backend, text, None, [("get_weather", {"city": "A"}), ("get_current_date", {})])
    text = block(call("get_weather", _hy4_arg("city", "北京")))
    check("hy_v4", backend, text, None, [("get_weather", {"city": "北京"})])
    # a value that does not fit its type stays text; an unknown argument is a string
    text = block(call("typed", _hy4_arg("i", "notanint") + _hy4_arg("nope", "v")))
    check("hy_v4", backend, text, None, [("typed", {"i": "notanint", "nope": "v"})], False)
    # vLLM strict mode's malformed shapes: content, no call
    for bad in (
        block("<tool_call>get_weather" + _hy4_arg("city", "X") + "JUNK</tool_call>"),
        block("<tool_call>get_weather<arg_key>city</arg_key></tool_call>"),
    ):
        info = toolparse.get_parser("hy_v4", tools=TOOLS, backend=backend).extract_tool_calls(bad)
        assert not info.tools_called and info.content == bad


# ----- k2_horizon (vLLM k2_horizon_tool_parser.py; SGLang K2V3Detector tests) -----

K2 = (
    "<ifm|tool_calls>\n<ifm|tool_call>get_weather\n"
    "<ifm|arg_key>city</ifm|arg_key>\n<ifm|arg_value>  Boston  </ifm|arg_value>\n"
    "<ifm|arg_key>days</ifm|arg_key>\n<ifm|arg_value>3</ifm|arg_value>\n"
    "</ifm|tool_call>\n</ifm|tool_calls>"
)

# The peers' samples: alone, and after content.
PEER_SAMPLES = [
    ("deepseek_v4", V4, "Sure.\n\n", [("get_weather", {"city": "杭州", "days": 5})]),
    ("k2_horizon", K2, "I will look.\n", [("get_weather", {"city": "  Boston  ", "days": 3})]),
]


@pytest.mark.parametrize("fmt,text,lead,want", PEER_SAMPLES, ids=[c[0] for c in PEER_SAMPLES])
@pytest.mark.parametrize("backend", BACKENDS)
def test_peer_sample(fmt: str, text: str, lead: str, want: Any, backend: str) -> None:
    check(fmt, backend, text, None, want)
    check(fmt, backend, lead + text, lead, want, every_split=False)


def _k2(key: str, ty: str, value: str, func: str = "typed") -> str:
    return (
        f"<ifm|tool_calls>\n<ifm|tool_call>{func}\n<ifm|arg_key>{key}</ifm|arg_key>\n"
        f"<ifm|arg_type>{ty}</ifm|arg_type>\n<ifm|arg_value>{value}</ifm|arg_value>\n"
        "</ifm|tool_call>\n</ifm|tool_calls>"
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "key,ty,value,expected",
    [
        # the schema decides when it has one type
        ("i", "string", "7", 7),
        ("s", "integer", "7", "7"),
        # the type picks one of a union's types
        ("u", "object", '{"a": 1}', {"a": 1}),
        ("u", "string", '{"a": 1}', '{"a": 1}'),
        ("n", "string", "12", "12"),
        ("n", "integer", "12", 12),
        # a parameter the schema does not know takes the type ("any": a string)
        ("x", "integer", "5", 5),
        ("x", "array[string]", '["a"]', ["a"]),
        ("x", "any", "5", "5"),
        ("x", "boolean", "true", True),
    ],
)
def test_k2_horizon_arg_type(backend: str, key: str, ty: str, value: str, expected: Any) -> None:
    check("k2_horizon", backend, _k2(key, ty, value), None, [("typed", {key: expected})], False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_k2_horizon_arg_type_bounded(backend: str) -> None:
    """A type past the name cap is malformed markup: the text is content."""
    text = _k2("x", "t" * 300, "5")
    info = toolparse.get_parser("k2_horizon", tools=TOOLS, backend=backend).extract_tool_calls(text)
    assert not info.tools_called and info.content == text


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["hy_v3", "k2_horizon", "deepseek_v4", "hy_v4"])
def test_truncated_keeps_complete_calls(fmt: str, backend: str) -> None:
    """A cut inside the second call keeps the first (truncated output keeps its complete calls)."""
    import corpus

    r = corpus.renderer(fmt)
    case = r.render([("get_current_date", {}), ("get_weather", {"city": "Paris"})])
    cut = case.text[: case.text.index("Paris") + 2]
    info = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).extract_tool_calls(cut)
    assert [c.function.name for c in info.tool_calls] == ["get_current_date"]
    assert info.truncated


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["deepseek_v4", "deepseek_v41"])
def test_dsml_self_closing_invoke(fmt: str, backend: str) -> None:
    """SGLang: V4 writes a call without arguments as ``<｜DSML｜invoke name="x"/>`` (vLLM 0.33
    reads ``x"/>...`` as the name)."""
    sp = " " if fmt == "deepseek_v41" else ""
    block = "tool_calls" if fmt == "deepseek_v4" else " calls"
    text = (
        f'<｜DSML｜{block}>\n<｜DSML｜{sp}invoke name="get_current_date"/>\n'
        f'<｜DSML｜{sp}invoke name="get_weather">\n'
        f'<｜DSML｜{sp}parameter name="city" string="true">Paris</｜DSML｜{sp}parameter>\n'
        f"</｜DSML｜{sp}invoke>\n</｜DSML｜{block}>"
    )
    want = [("get_current_date", {}), ("get_weather", {"city": "Paris"})]
    check(fmt, backend, text, None, want, every_split=False)
    # cut inside the self-closing tag: truncated, nothing complete
    cut = text[: text.index("/>") + 1]
    info = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).extract_tool_calls(cut)
    assert not info.tools_called and info.content == cut


# ----- minicpm5 (vLLM test_minicpm5xml_tool_parser.py; SGLang MiniCPM5Detector) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_minicpm5(backend: str) -> None:
    text = (
        "Intro before.\n"
        '<function name="get_weather">'
        '<param name="city">上海</param>'
        '<param name="date">2024-06-27</param>'
        "</function>\n"
        "Outro after.\n"
    )
    # vLLM drops the text around the call; it is content here
    want = [("get_weather", {"city": "上海", "date": "2024-06-27"})]
    check("minicpm5", backend, text, "Intro before.\n\nOutro after.\n", want, every_split=False)
    text = (
        '<function name="typed"><param name="o">[1, 2, 3]</param>'
        '<param name="i">7</param></function>'
    )
    check("minicpm5", backend, text, None, [("typed", {"o": "[1, 2, 3]", "i": 7})], False)
    text = (
        '<function name="get_weather"><param name="city">北京</param></function>\n'
        '<function name="get_current_date"></function>'
    )
    check(
        "minicpm5",
        backend,
        text,
        None,
        [("get_weather", {"city": "北京"}), ("get_current_date", {})],
    )
    # a parameter without a name is malformed: content, no call
    text = '<function name="get_weather"><param>北京</param></function>'
    info = toolparse.get_parser("minicpm5", tools=TOOLS, backend=backend).extract_tool_calls(text)
    assert not info.tools_called and info.content == text


# ----- step3p5 (vLLM test_step3p5_tool_parser.py) -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_step3p5_peer_cases(backend: str) -> None:
    tools = [
        helpers.tool(
            "calculate_area",
            {
                "shape": {"type": "string"},
                "dimensions": {"type": "object"},
                "precision": {"type": "integer"},
            },
        ),
        helpers.tool(
            "test_types",
            {
                "int_param": {"type": "integer"},
                "float_param": {"type": "float"},
                "bool_param": {"type": "boolean"},
                "str_param": {"type": "string"},
                "obj_param": {"type": "object"},
            },
        ),
    ]
    p = toolparse.get_parser("step3p5", tools=tools, backend=backend)
    text = (
        "Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n"
        "<parameter=shape>\nrectangle\n</parameter>\n<parameter=dimensions>\n"
        '{"width": 10, \n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n'
        "</function>\n</tool_call>"
    )
    info = p.extract_tool_calls(text)
    assert info.content == "Let me calculate that area for you."
    assert json.loads(info.tool_calls[0].function.arguments) == {
        "shape": "rectangle",
        "dimensions": {"width": 10, "height": 20},
        "precision": 2,
    }
    text = (
        "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n"
        "<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n"
        "<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n"
        '{"key": "value"}\n</parameter>\n</function>\n</tool_call>'
    )
    args = json.loads(p.extract_tool_calls(text).tool_calls[0].function.arguments)
    assert args == {
        "int_param": 42,
        "float_param": 3.14,
        "bool_param": True,
        "str_param": "hello world",
        "obj_param": {"key": "value"},
    }

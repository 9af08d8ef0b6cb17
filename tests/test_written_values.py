"""Values as real models write them (issue 30 item 1), both backends, streaming under every
splitting and not:

* a format's own trimming of XML parameter values (the spec's ``call.value_newlines``): step3
  keeps every space and newline the model wrote; the formats that strip one newline still do;
* glm47: a last ``<arg_value>`` whose ``</arg_value>`` is missing closes at ``</tool_call>``
  (``call.value_end_optional``), where the next call or the end of the output follows;
* values the chat templates write in Python rather than JSON: Seed-OSS and MiniCPM5 write a list
  or dict parameter with Jinja's ``{{ value }}`` (``call.python_values``), Gemma 4 writes null as
  ``None``.

The expected arguments are written here by hand (``dumps`` of the Python value the text stands
for), never computed by the parser under test.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Tuple

import corpus
import helpers
import pytest
import toolparse
from helpers import check_converted, dumps

BACKENDS = ("rust", "python")


def tools(name: str, props: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [helpers.tool(name, props)]


def no_call(fmt: str, backend: str, text: str, tool_list: Any = None) -> Any:
    return toolparse.get_parser(fmt, tools=tool_list, backend=backend).extract_tool_calls(text)


# ----- trimming: a field of each format -----

S3_OPEN = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
S3_CLOSE = "<｜tool_call_end｜><｜tool_calls_end｜>"


def step3(params: List[Tuple[str, str]]) -> str:
    body = "".join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params)
    return f'{S3_OPEN}<steptml:invoke name="write_file">{body}</steptml:invoke>{S3_CLOSE}'


CODE = "def f():\n    return 1\n"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "raw",
    [CODE, "\n" + CODE, "\n\n  x  \n\n", "  padded  ", "\n", "a\n\n"],
)
def test_step3_keeps_the_whitespace_of_a_value(backend: str, raw: str) -> None:
    t = tools("write_file", {"path": "string", "content": "string"})
    text = step3([("path", "a.py"), ("content", raw)])
    want = [("write_file", dumps({"path": "a.py", "content": raw}))]
    check_converted("step3", backend, text, None, want, tools=t)
    # untyped (no tools): the same text
    check_converted("step3", backend, text, None, want)


# (format, the text of a call of f with parameter a = RAW, whether one newline is stripped)
QC = "<tool_call>\n<function=f>\n<parameter=a>RAW</parameter>\n</function>\n"
MM = '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">RAW</parameter>\n</invoke>\n'
S3 = '<steptml:invoke name="f"><steptml:parameter name="a">RAW</steptml:parameter></steptml:invoke>'
LAYOUTS = [
    ("qwen3_coder", QC + "</tool_call>", True),
    ("seed_oss", "<seed:tool_call>\n" + QC[len("<tool_call>\n") :] + "</seed:tool_call>", True),
    ("minimax_m2", MM + "</minimax:tool_call>", True),
    ("glm47", "<tool_call>f<arg_key>a</arg_key><arg_value>RAW</arg_value></tool_call>", False),
    ("minicpm5", '<function name="f"><param name="a">RAW</param></function>', False),
    ("step3", S3_OPEN + S3 + S3_CLOSE, False),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,layout,strips", LAYOUTS)
def test_trimming_is_the_formats_field(fmt: str, layout: str, strips: bool, backend: str) -> None:
    spec = toolparse.spec.get_spec(fmt)
    assert spec.call.value_newlines == ("strip_one" if strips else "keep")
    raw = "\n x \n"
    want = " x " if strips else raw
    text = layout.replace("RAW", raw)
    check_converted(fmt, backend, text, None, [("f", dumps({"a": want}))])


# ----- glm47: the last value's end missing -----

G = "<tool_call>"
GE = "</tool_call>"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text,calls",
    [
        (f"{G}f<arg_key>a</arg_key><arg_value>x{GE}", [("f", {"a": "x"})]),
        (f"{G}f<arg_key>a</arg_key><arg_value>x\n{GE}\n", [("f", {"a": "x\n"})]),
        (
            f"{G}f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key>"
            f"<arg_value>two words{GE}",
            [("f", {"a": "1", "b": "two words"})],
        ),
        (
            f"{G}f<arg_key>a</arg_key><arg_value>x{GE}\n{G}g<arg_key>b</arg_key>"
            f"<arg_value>y</arg_value>{GE}",
            [("f", {"a": "x"}), ("g", {"b": "y"})],
        ),
        # a </tool_call> that other text follows is part of the value
        (
            f"{G}f<arg_key>a</arg_key><arg_value>see {GE} here</arg_value>{GE}",
            [("f", {"a": f"see {GE} here"})],
        ),
        (
            f"{G}f<arg_key>a</arg_key><arg_value>see {GE} here{GE}",
            [("f", {"a": f"see {GE} here"})],
        ),
    ],
)
def test_glm47_last_value_without_its_end(backend: str, text: str, calls: Any) -> None:
    check_converted("glm47", backend, text, None, [(n, dumps(a)) for n, a in calls])


@pytest.mark.parametrize("backend", BACKENDS)
def test_glm47_last_value_without_its_end_is_typed(backend: str) -> None:
    t = tools("f", {"n": "integer", "o": "object", "s": "string"})
    text = (
        f"{G}f<arg_key>s</arg_key><arg_value>a</arg_value>"
        f'<arg_key>o</arg_key><arg_value>{{"k": [1]}}{GE}'
    )
    check_converted(
        "glm47", backend, text, None, [("f", dumps({"s": "a", "o": {"k": [1]}}))], tools=t
    )
    text = f"{G}f<arg_key>n</arg_key><arg_value> 42 {GE}"
    check_converted("glm47", backend, text, None, [("f", dumps({"n": 42}))], tools=t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_glm47_end_missing_then_text_is_cut_off(backend: str) -> None:
    """After a </tool_call> that text follows, the value goes on: the output ends inside it, so
    the call is cut off (never a call with a guessed end)."""
    text = f"{G}f<arg_key>a</arg_key><arg_value>x{GE} and more"
    info = no_call("glm47", backend, text)
    assert (info.tool_calls, info.truncated) == ([], True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_glm45_keeps_its_rule(backend: str) -> None:
    """The missing end is glm47's rule (its spec field), not the family's."""
    assert not toolparse.spec.get_spec("glm45").call.value_end_optional
    text = f"{G}f\n<arg_key>a</arg_key>\n<arg_value>x{GE}"
    info = no_call("glm45", backend, text)
    assert (info.tool_calls, info.truncated) == ([], True)


def test_glm47_twins_agree_feed_by_feed() -> None:
    for text in [
        f"{G}f<arg_key>a</arg_key><arg_value>x{GE} \n{G}g{GE}",
        f"{G}f<arg_key>a</arg_key><arg_value>x{GE} y</arg_value>{GE}",
        f"{G}f<arg_key>a</arg_key><arg_value>x{GE}" + " " * 70 + G + "g" + GE,
    ]:
        helpers.check_twins_per_feed("glm47", text)


# ----- values written in Python -----

ORDER = {
    "items": {"type": "array", "items": {"type": "object"}},
    "opts": {"type": "object"},
    "note": "string",
    "maybe": {"type": ["object", "null"]},
    "count": "integer",
    "flag": "boolean",
}


def seed(params: List[Tuple[str, str]]) -> str:
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in params)
    return f"<seed:tool_call>\n<function=order>\n{body}</function>\n</seed:tool_call>"


def minicpm(params: List[Tuple[str, str]]) -> str:
    body = "".join(f'<param name="{k}">{v}</param>' for k, v in params)
    return f'<function name="order">{body}</function>'


PY_CASES = [
    # (parameter, raw, value)
    ("items", "[{'sku': 'zx-9', 'qty': 2}]", [{"sku": "zx-9", "qty": 2}]),
    ("opts", "{'units': 'metric', 'alerts': True}", {"units": "metric", "alerts": True}),
    (
        "opts",
        "{'a': None, 'b': [False, 1.5, -2], 'c': \"it's\"}",
        {"a": None, "b": [False, 1.5, -2], "c": "it's"},
    ),
    ("opts", "{'ünï': 'café', 'n': {'deep': (1, 2)}}", {"ünï": "café", "n": {"deep": [1, 2]}}),
    ("items", "[]", []),
    ("items", "(1, 'a')", [1, "a"]),
    ("maybe", "{'k': True}", {"k": True}),
    ("maybe", "None", None),
    ("flag", "True", True),
    ("count", "7", 7),
    # JSON still reads as JSON
    ("opts", '{"a": true}', {"a": True}),
    # neither JSON nor a Python literal: the raw text, as before
    ("opts", "{'a': tru}", "{'a': tru}"),
    ("opts", "{'a': 1", "{'a': 1"),
    ("items", "[1, 2] extra", "[1, 2] extra"),
    # a Python value the schema does not admit is not taken (a union says which containers)
    ("maybe", "['a']", "['a']"),
    ("maybe", "'text'", "'text'"),
    ("opts", "'text'", "'text'"),
    ("opts", "b'x'", "b'x'"),
    ("opts", "{'a': 1j}", "{'a': 1j}"),
    # a string parameter keeps the text as written
    ("note", "{'a': True}", "{'a': True}"),
]  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["seed_oss", "minicpm5"])
@pytest.mark.parametrize("key,raw,value", PY_CASES)
def test_python_written_values(fmt: str, key: str, raw: str, value: Any, backend: str) -> None:
    text = (seed if fmt == "seed_oss" else minicpm)([(key, raw)])
    check_converted(
        fmt, backend, text, None, [("order", dumps({key: value}))], tools=tools("order", ORDER)
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["seed_oss", "minicpm5"])
def test_python_values_without_a_schema_stay_text(fmt: str, backend: str) -> None:
    raw = "{'units': 'metric'}"
    text = (seed if fmt == "seed_oss" else minicpm)([("opts", raw)])
    check_converted(fmt, backend, text, None, [("order", dumps({"opts": raw}))])


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_values_are_a_formats_field(backend: str) -> None:
    """qwen3_coder (vLLM's reader: json.loads, else the text) does not read Python literals."""
    assert not toolparse.spec.get_spec("qwen3_coder").call.python_values
    assert toolparse.spec.get_spec("seed_oss").call.python_values
    raw = "[{'sku': 'zx-9'}]"
    text = QC.replace("=f>", "=order>").replace("=a>", "=items>").replace("RAW", f"\n{raw}\n")
    text += "</tool_call>"
    t = tools("order", ORDER)
    check_converted("qwen3_coder", backend, text, None, [("order", dumps({"items": raw}))], tools=t)


def test_python_values_twins_agree() -> None:
    types = corpus.schema_types(tools("order", ORDER))
    rnd = random.Random(30)
    for fmt, make in (("seed_oss", seed), ("minicpm5", minicpm)):
        for key, raw, _ in PY_CASES:
            helpers.check_twins_on_random_cuts(fmt, make([(key, raw)]), types, rnd, 4)


# ----- Gemma 4 writes null as None -----

GC = "<|tool_call>call:"
GCE = "<tool_call|>"
Q = '<|"|>'


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "body,args",
    [
        ("{a:None}", {"a": None}),
        (
            "{a:None,b:[None,1,None],c:{d:None}}",
            {"a": None, "b": [None, 1, None], "c": {"d": None}},
        ),
        ("{x:1,y:None}", {"x": 1, "y": None}),
        # between the string markers it is the string
        (f"{{a:{Q}None{Q}}}", {"a": "None"}),
        # not the word None
        ("{a:Nonesuch,b:Non}", {"a": "Nonesuch", "b": "Non"}),
    ],
)
def test_gemma4_none_is_null(backend: str, body: str, args: Any) -> None:
    text = f"{GC}f{body}{GCE}"
    check_converted("gemma4", backend, text, None, [("f", dumps(args))])


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemma4_none_for_a_string_parameter_is_the_string(backend: str) -> None:
    """A parameter the schema types as a string only is a string, whatever is written."""
    text = f"{GC}f{{s:None,n:None}}{GCE}"
    t = tools("f", {"s": "string", "n": ["integer", "null"]})
    check_converted(
        "gemma4", backend, text, None, [("f", dumps({"s": "None", "n": None}))], tools=t
    )


def test_gemma4_none_twins_agree() -> None:
    helpers.check_twins_per_feed("gemma4", f"{GC}f{{a:None,b:[None],c:Nonex}}{GCE}")

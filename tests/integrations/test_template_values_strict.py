"""Values as the chat templates write them, read back by the parser and admitted by the strict
grammar (xgrammar 0.2.8): the Seed-OSS and MiniCPM5 templates print a list or dict parameter with
Jinja's ``{{ value }}`` (``[{'sku': 'zx-9', 'qty': 2}]``, ``True``, ``None``), Gemma 4's prints
null as ``None``, sorts every mapping's keys (``dictsort``) and writes every key bare.

Each case renders a conversation with the vendored template (tests/fixtures/templates/llama.cpp)
through jinja2, takes the assistant turn's text, and checks that both backends read the calls back
(streaming under every splitting and not) as the arguments given, and that the structural tag
(tool_choice required, strict parameter) admits the text. The expected arguments are the ones
the template was given, never the parser's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in
jinja2_sandbox = pytest.importorskip("jinja2.sandbox")

import helpers  # noqa: E402
import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "llama.cpp"
BACKENDS = ("rust", "python")

# format -> (template, where the assistant turn starts, where its calls end)
FORMATS = {
    "seed_oss": ("ByteDance-Seed-OSS", "<seed:bos>assistant\n", "<seed:eos>"),
    "minicpm5": ("openbmb-MiniCPM5-1B", "<|im_start|>assistant\n", "<|im_end|>"),
    "gemma4": ("google-gemma-4-31B-it", "<|turn>model\n", "<|tool_response>"),
}


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, **_: Any) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent)


def _raise(message: str) -> None:
    raise ValueError(message)


def assistant_text(fmt: str, tools: List[Dict[str, Any]], calls: List[Dict[str, Any]]) -> str:
    """The text of the assistant turn the template writes for ``calls`` ([{name, arguments}])."""
    name, start, end = FORMATS[fmt]
    env = jinja2_sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    template = env.from_string((TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"))
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": c} for c in calls],
    }
    text = template.render(
        messages=[{"role": "user", "content": "hi"}, message],
        tools=tools,
        add_generation_prompt=False,
        bos_token="<bos>",
        eos_token="<eos>",
    )
    turn = text[text.rindex(start) + len(start) :]
    return turn[: turn.index(end)].strip("\n")


def tool(name: str, schema: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": schema},
    }


ITEM = {
    "type": "object",
    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
    "required": ["sku", "qty"],
}
OPTS = {
    "type": "object",
    "properties": {
        "units": {"type": "string"},
        "alerts": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
    },
    "required": ["units"],
}
ORDER = tool(
    "order",
    {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": ITEM},
            "opts": OPTS,
            "rush": {"type": "boolean"},
            "coupon": {"type": ["object", "null"]},
            "city": {"type": "string"},
        },
        "required": ["items", "rush"],
    },
)
# keys the template writes bare although they are no identifiers, in no sorted order
LABEL = tool(
    "label",
    {
        "type": "object",
        "properties": {
            "zeta-id": {"type": "integer"},
            "Alpha key": {"type": "string"},
            "meta": {
                "type": "object",
                "properties": {"x.y": {"type": "null"}, "a": {"type": "boolean"}},
            },
            "extra": {"type": "object"},
        },
        "required": ["zeta-id", "meta"],
    },
)
TOOLS = [ORDER, LABEL]

CALLS = [
    {
        "name": "order",
        "arguments": {
            "items": [{"sku": "zx-9", "qty": 2}, {"sku": "café 'b'", "qty": 1}],
            "opts": {"units": "metric", "alerts": True, "note": None},
            "rush": False,
            "coupon": None,
            "city": "Paris",
        },
    },
    {"name": "order", "arguments": {"items": [], "rush": True, "coupon": {"code": "X1", "n": 2}}},
    {
        "name": "label",
        "arguments": {
            "zeta-id": 7,
            "Alpha key": "v",
            "meta": {"x.y": None, "a": False},
            "extra": {"k-1": [1, None], "with space": "s"},
        },
    },
]


def _check_parsed(fmt: str, text: str, calls: List[Dict[str, Any]]) -> None:
    want = [(c["name"], c["arguments"]) for c in calls]
    for backend in BACKENDS:
        parser = toolparse.get_parser(fmt, tools=TOOLS, backend=backend)
        helpers.check(parser, text, None, want)


def _admits(fmt: str, text: str, tools: List[Dict[str, Any]]) -> bool:
    tag = toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
    assert tag is not None
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return bool(_is_grammar_accept_string(grammar, text))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("which", range(len(CALLS)))
def test_a_templates_call_parses_back_and_is_admitted(fmt: str, which: int) -> None:
    calls = [CALLS[which]]
    text = assistant_text(fmt, TOOLS, calls)
    _check_parsed(fmt, text, calls)
    assert _admits(fmt, text, TOOLS), text


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_parallel_calls_as_the_template_writes_them(fmt: str) -> None:
    text = assistant_text(fmt, TOOLS, CALLS)
    _check_parsed(fmt, text, CALLS)
    assert _admits(fmt, text, TOOLS), text


def test_the_templates_write_python_values() -> None:
    """What the cases above stand on: the templates' own spelling."""
    seed = assistant_text("seed_oss", TOOLS, CALLS[:1])
    assert "<parameter=items>[{'sku': 'zx-9', 'qty': 2}" in seed
    assert "'alerts': True, 'note': None}" in seed
    gemma = assistant_text("gemma4", TOOLS, CALLS[2:])
    assert "call:label{Alpha key:" in gemma  # dictsort order, keys bare
    assert "meta:{a:false,x.y:None}" in gemma


@pytest.mark.parametrize(
    "fmt,text",
    [
        # a required key missing, in dictsort order too
        ("gemma4", 'call:label{Alpha key:<|"|>v<|"|>,meta:{}}'),
        # a key the schema does not name
        ("gemma4", "call:label{meta:{},unknown:1,zeta-id:7}"),
        # a value of the wrong type
        ("gemma4", "call:label{meta:{a:None},zeta-id:7}"),
        ("seed_oss", "<function=order>\n<parameter=items>[{'sku': 1, 'qty': 2}]</parameter>\n"),
        ("seed_oss", "<function=order>\n<parameter=rush>Maybe</parameter>\n"),
        ("minicpm5", "<function name=\"order\"><param name=\"items\">[{'sku': 'a'}]</param>"),
    ],
)
def test_the_tag_still_types_the_values(fmt: str, text: str) -> None:
    wrap = {
        "gemma4": ("<|tool_call>", "}<tool_call|>"),
        "seed_oss": ("<seed:tool_call>\n", "</function>\n</seed:tool_call>"),
        "minicpm5": ("", "</function>"),
    }[fmt]
    body = text if fmt != "gemma4" else text[:-1]
    full = wrap[0] + body + wrap[1]
    if fmt == "seed_oss" and "rush" not in text:
        full = full.replace("</parameter>\n", "</parameter>\n<parameter=rush>True</parameter>\n")
    if fmt == "minicpm5":
        full = full.replace("</function>", '<param name="rush">True</param></function>')
    assert not _admits(fmt, full, TOOLS), full


def test_gemma4_schema_order_is_still_admitted() -> None:
    args = 'zeta-id:7,Alpha key:<|"|>v<|"|>,meta:{x.y:None,a:true}'
    text = "<|tool_call>call:label{" + args + "}<tool_call|>"
    assert _admits("gemma4", text, TOOLS)
    want = [("label", {"zeta-id": 7, "Alpha key": "v", "meta": {"x.y": None, "a": True}})]
    for backend in BACKENDS:
        parser = toolparse.get_parser("gemma4", tools=TOOLS, backend=backend)
        helpers.check(parser, text, None, want)

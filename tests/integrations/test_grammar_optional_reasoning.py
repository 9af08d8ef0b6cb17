"""``grammar.optional_reasoning`` under xgrammar 0.2.8: with no reasoning format, required and
named choice admit the think block the chat templates write before the calls (whole, empty, or
only its end), and the tag still rejects what it should: no call, text between the block and the
calls, a second block, another function under named, a second call with
``parallel_tool_calls=False``, a value of the wrong type under strict "parameter"."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in

import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from toolparse import spec as tp_spec  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

TOOLS: List[Dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {
                "type": "object",
                "properties": {"zone": {"type": "string"}},
                "required": ["zone"],
            },
        },
    },
]


def hermes(name: str, args: Dict[str, Any]) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {json.dumps(args)}}}\n</tool_call>'


def glm45(name: str, args: Dict[str, Any]) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def minimax_m3(name: str, args: Dict[str, Any]) -> str:
    ns = "]<]minimax[>["
    body = "".join(f"{ns}<{k}>{v}{ns}</{k}>" for k, v in args.items())
    return f'{ns}<tool_call>\n{ns}<invoke name="{name}">{body}{ns}</invoke>\n{ns}</tool_call>'


WRITERS = {"hermes": hermes, "glm45": glm45, "minimax_m3": minimax_m3}
WEATHER = {"city": "Paris", "days": 3}


def admits(fmt: str, text: str, **options: Any) -> bool:
    options.setdefault("tool_choice", "required")
    tag = toolparse.structural_tag(fmt, TOOLS, strict="parameter", **options)
    assert tag is not None
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return bool(_is_grammar_accept_string(grammar, text))


def blocks(fmt: str) -> List[str]:
    r = tp_spec.REASONING[tp_spec.get_spec(fmt).grammar.optional_reasoning]
    start, end = r.starts[0], r.end
    return [
        f"{start}I should look it up.{end}\n",  # whole
        f"\n{start}{end}\n",  # empty (GLM-4.6)
        f"{start}\n\n{end}\n\n",  # empty with newlines (Qwen3)
        f"{end}",  # the end only (the prompt opened it)
        f"thinking, the prompt having opened the block\n{end}\n",
        "",  # none
    ]


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_the_block_before_the_calls_is_admitted(fmt: str) -> None:
    write = WRITERS[fmt]
    one = write("get_weather", WEATHER)
    for block in blocks(fmt):
        assert admits(fmt, block + one), block
        assert admits(fmt, block + one, tool_choice=_named("get_weather")), block
        assert admits(fmt, block + one + "\n" + write("get_time", {"zone": "UTC"})), block


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_the_tag_still_rejects_what_it_should(fmt: str) -> None:
    write = WRITERS[fmt]
    r = tp_spec.REASONING[tp_spec.get_spec(fmt).grammar.optional_reasoning]
    one = write("get_weather", WEATHER)
    for block in blocks(fmt)[:5]:
        assert not admits(fmt, block), f"no call: {block!r}"
        assert not admits(fmt, block + "Sure.\n" + one), f"text after the block: {block!r}"
        assert not admits(fmt, block + block + one), f"two blocks: {block!r}"
        other = write("get_time", {"zone": "UTC"})
        assert not admits(fmt, block + other, tool_choice=_named("get_weather")), block
        two = block + one + "\n" + write("get_time", {"zone": "UTC"})
        assert not admits(fmt, two, parallel_tool_calls=False), block
        wrong = write("get_weather", {"city": "Paris", "days": "many"})
        assert not admits(fmt, block + wrong), f"wrong type: {block!r}"
    # an opener with no end is no block
    assert not admits(fmt, f"{r.starts[0]}thinking {one}")


def test_a_reasoning_format_given_replaces_it() -> None:
    """With ``reasoning=`` the reasoning format's own prefix stands (thinking on: the block is
    required, so a bare call is rejected), as before the field."""
    one = glm45("get_weather", WEATHER)
    assert admits("glm45", "</think>" + one, reasoning="glm45", reasoning_started=True)
    assert not admits("glm45", one, reasoning="glm45", reasoning_started=True)


def test_auto_is_unchanged() -> None:
    """Under auto the text before a call is free already: the field adds nothing there."""
    for fmt in WRITERS:
        auto = toolparse.structural_tag(fmt, TOOLS, strict="parameter")
        end = tp_spec.REASONING[tp_spec.get_spec(fmt).grammar.optional_reasoning].end
        assert auto is not None and end not in json.dumps(auto)
        required = toolparse.structural_tag(fmt, TOOLS, tool_choice="required")
        assert required is not None and end in json.dumps(required)


def _named(name: str) -> Dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


@pytest.mark.parametrize("fmt", ["qwen3_coder", "qwen3_xml", "step3p5"])
def test_python_booleans_for_boolean_parameters_only(fmt: str) -> None:
    """``value_forms: python_booleans``: the Qwen3-Coder family's templates print a boolean as
    Python does (True/False), which the parser reads as a boolean; other types stay strict."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"on": {"type": "boolean"}, "n": {"type": "integer"}},
                    "required": ["on", "n"],
                },
            },
        }
    ]

    def call(on: str, n: str) -> str:
        params = f"<parameter=on>\n{on}\n</parameter>\n<parameter=n>\n{n}\n</parameter>\n"
        return f"<tool_call>\n<function=f>\n{params}</function>\n</tool_call>"

    tag = toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    for on in ("True", "False", "true", "false"):
        assert _is_grammar_accept_string(grammar, call(on, "3")), on
        for b in ("rust", "python"):
            info = toolparse.get_parser(fmt, tools=tools, backend=b).extract_tool_calls(
                call(on, "3")
            )
            assert json.loads(info.tool_calls[0].function.arguments) == {
                "on": on.lower() == "true",
                "n": 3,
            }
    for on, n in (("Yes", "3"), ("None", "3"), ("True", "True"), ("1", "3")):
        assert not _is_grammar_accept_string(grammar, call(on, n)), (on, n)


def test_mistral_trailing_id_key() -> None:
    """``grammar.trailing_id_keys``: Mistral Nemo's pre-v11 list writes ``"id": "..."`` last in
    each call; the tag admits that key there (a string), and nothing else in its place."""

    def listed(*tails: str) -> str:
        calls = [
            '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}' + tails[0] + "}",
            '{"name": "get_time", "arguments": {"zone": "UTC"}' + tails[1] + "}",
        ]
        return "[TOOL_CALLS][" + ", ".join(calls) + "]"

    ok = listed(', "id": "call00000"', ', "id": "call00001"')
    assert admits("mistral", ok)
    assert admits("mistral", listed("", ""))
    for bad in (', "id": 7', ', "ident": "x"', ', "id": "a", "id": "b"', ', "id": "a",'):
        assert not admits("mistral", listed(bad, "")), bad
    for b in ("rust", "python"):
        info = toolparse.get_parser("mistral", tools=TOOLS, backend=b).extract_tool_calls(ok)
        got = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
        assert got == [("get_weather", WEATHER), ("get_time", {"zone": "UTC"})]

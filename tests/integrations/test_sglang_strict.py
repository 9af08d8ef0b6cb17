"""Strict tool calling in SGLang 0.5.23 with toolparse's detectors: the structural tag SGLang's
``FunctionCallParser.get_structure_constraint`` returns is toolparse's, built from the spec entry
the detector parses by.

For every format: required and named give ``("structural_tag", toolparse's tag)``, never SGLang's
JSON-schema fallback (glm47 without strict tools keeps SGLang's own ``full_assistant_ebnf``), and
xgrammar compiles it and accepts a well-formed call; ``owns_tool_format`` is True, so SGLang's
serving parses required output with the detector, streaming and not. For a sample: automatic
choice gets toolparse's tag where SGLang asks for one (a strict tool, ``SGLANG_TOOL_STRICT_LEVEL``
at function or parameter); ``thinking_mode`` (no ``--reasoning-parser``) puts the think block of
the reasoning format named as the tool format first.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001
    pass

fcp = pytest.importorskip("sglang.srt.function_call.function_call_parser")
xgrammar = pytest.importorskip("xgrammar")

import corpus  # noqa: E402
import toolparse  # noqa: E402
from server_cases import token_chunks, toolparse_result, tools_for  # noqa: E402
from sglang.srt.entrypoints.openai import protocol  # noqa: E402
from test_sglang import Serving, serve_stream  # noqa: E402
from toolparse.integrations import reasoning as tp_reasoning  # noqa: E402
from toolparse.integrations import sglang as tp_sglang  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

FunctionCallParser = fcp.FunctionCallParser
FORMATS = toolparse.list_formats()
SAMPLE = ["hermes", "qwen3_coder", "openai", "pythonic", "kimi_k2", "beam"]

tp_sglang.register()


def one_call(fmt: str, strict: bool = False) -> Any:
    """SGLang tools for the format's one-call cases (the called function first), their plain
    dicts, and the cases."""
    cases = corpus.standard_cases(fmt)["one_call"]
    dicts = tools_for([n for n, _ in cases[0].calls], cases[0].tools)
    if strict:
        dicts = [{**t, "function": {**t["function"], "strict": True}} for t in dicts]
    return [protocol.Tool.model_validate(t) for t in dicts], dicts, cases


def named(tools: List[Any]) -> Any:
    return protocol.ToolChoice(function={"name": tools[0].function.name})


def dumped(tag: Optional[Dict[str, Any]]) -> Any:
    """toolparse's plain-data tag as SGLang sends it (``model_dump(by_alias=True)``)."""
    if tag is None:
        return None
    return xgrammar.StructuralTag.model_validate(tag).model_dump(by_alias=True)


def accepted(tag: Any, cases: List[Any]) -> List[str]:
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return [c.text for c in cases if _is_grammar_accept_string(grammar, c.text)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_required_and_named_are_toolparses_tag(fmt: str) -> None:
    strict = fmt == "glm47"  # without strict tools glm47 keeps SGLang's full-assistant grammar
    tools, dicts, cases = one_call(fmt, strict)
    parser = FunctionCallParser(tools, tp_sglang.PREFIX + fmt)
    assert parser.detector.supports_structural_tag() and parser.owns_tool_format()
    for choice, want_choice in (
        ("required", "required"),
        (named(tools), {"type": "function", "function": {"name": tools[0].function.name}}),
    ):
        for parallel in (True, False):
            got = parser.get_structure_constraint(choice, parallel_tool_calls=parallel)
            want = toolparse.structural_tag(
                fmt, dicts, tool_choice=want_choice, parallel_tool_calls=parallel
            )
            assert got is not None and got[0] == "structural_tag", (fmt, choice, got)
            assert got[1].model_dump(by_alias=True) == dumped(want), (fmt, choice, parallel)
    tag = parser.get_structure_constraint("required")[1].model_dump(by_alias=True)
    assert accepted(tag, cases), f"{fmt}: no well-formed call accepted"


def test_glm47_without_strict_tools_keeps_sglangs_full_assistant_grammar() -> None:
    tools, _, _ = one_call("glm47")
    got = FunctionCallParser(tools, "toolparse_glm47").get_structure_constraint("required")
    assert got is not None and got[0] == "full_assistant_ebnf"


@pytest.mark.parametrize("fmt", SAMPLE)
def test_auto_gets_toolparses_tag_where_sglang_asks_for_one(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = tp_sglang.PREFIX + fmt
    tools, dicts, _ = one_call(fmt)
    # no strict tool, no server level: SGLang asks for no tag
    monkeypatch.delenv("SGLANG_TOOL_STRICT_LEVEL", raising=False)
    assert FunctionCallParser(tools, name).get_structure_constraint("auto") is None
    # a strict tool
    stools, sdicts, _ = one_call(fmt, strict=True)
    got = FunctionCallParser(stools, name).get_structure_constraint("auto")
    want = dumped(toolparse.structural_tag(fmt, sdicts))
    if want is not None:
        assert got is not None and got[1].model_dump(by_alias=True) == want, fmt
    # the server's level (read per parser, as SGLang reads it)
    for level, strict in (("1", "function"), ("2", "parameter")):
        monkeypatch.setenv("SGLANG_TOOL_STRICT_LEVEL", level)
        got = FunctionCallParser(tools, name).get_structure_constraint("auto")
        pinned = dicts if level == "1" else one_call(fmt, strict=True)[1]
        want = dumped(toolparse.structural_tag(fmt, pinned, strict=strict))
        if want is not None:
            assert got is not None and got[1].model_dump(by_alias=True) == want, (fmt, level)


@pytest.mark.parametrize("fmt", ["hermes", "kimi_k2", "qwen3_coder"])
def test_thinking_mode_puts_the_formats_own_reasoning_first(fmt: str) -> None:
    """SGLang passes ``thinking_mode=True`` only without ``--reasoning-parser``: the tag then
    holds the reasoning too, with the reasoning format named as the tool format (none for
    hermes: its tag starts at the calls)."""
    tools, dicts, _ = one_call(fmt)
    got = FunctionCallParser(tools, tp_sglang.PREFIX + fmt).get_structure_constraint(
        "required", thinking_mode=True
    )
    reasoning = tp_reasoning.own_reasoning(fmt)
    assert (reasoning is None) == (fmt == "hermes")
    want = toolparse.structural_tag(fmt, dicts, tool_choice="required", reasoning=reasoning)
    assert got is not None and got[1].model_dump(by_alias=True) == dumped(want)


@pytest.mark.parametrize("fmt", FORMATS)
def test_required_output_is_parsed_by_the_detector(fmt: str) -> None:
    """SGLang's serving: required output in the format's own markup (what the tag holds the
    model to) is parsed by ``toolparse_F`` (``owns_tool_format``), not read as a JSON array."""
    case = corpus.composite_case(fmt)
    tools = tools_for([n for n, _ in case.calls], case.tools)
    want = toolparse_result(fmt, "rust", case.text, tools)
    serving = Serving(tp_sglang.PREFIX + fmt)
    request = protocol.ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        tool_choice="required",
        stream=True,
    )
    client, finish, parser = serve_stream(serving, request, token_chunks(case.text))
    assert isinstance(parser, FunctionCallParser), type(parser)
    assert client.result() == want, fmt
    assert finish == "tool_calls"
    result = serving._process_tool_calls(
        case.text,
        request.tools,
        {"type": "stop", "matched": None},
        request.tool_choice,
    )
    calls = [(c.function.name, c.function.arguments) for c in result.tool_calls or []]
    assert calls == want[1], fmt

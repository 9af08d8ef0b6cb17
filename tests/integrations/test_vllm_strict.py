"""Strict tool calling in vLLM 0.33 with toolparse's parsers: the structural tag vLLM puts on a
request is toolparse's, built from the spec entry the parser runs on.

vLLM's own ``Parser.adjust_request`` (composed by its ``ParserManager`` as the server composes it,
with ``--tool-strict-level`` as the ``tool_strict_level`` it is given) asks the tool parser for a
structural tag (``get_structural_tag``) because ``toolparse_F`` names a ``structural_tag_model``;
it then applies its own rules (``parallel_tool_calls``, ``response_format``) and writes the tag
into ``request.structured_outputs.structural_tag``. For every format: the tag is toolparse's for
required and named tool choices, chat completions and Responses; xgrammar compiles it and accepts
a well-formed call of the format. For a sample of formats: the tool's ``strict`` and the strict
level reach the tag; a tag is set exactly where vLLM sets one for its own hermes parser; with
``VLLM_ENFORCE_STRICT_TOOL_CALLING=0`` nothing is set and vLLM's JSON fallback stands. Required
output is parsed in the format's own markup (``supports_required_and_named`` is False), streaming
and not. The exhaustive parser <-> grammar agreement is tested with the generator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional, Tuple

import pytest

pytest.importorskip("vllm.tool_parsers")
xgrammar = pytest.importorskip("xgrammar")

import corpus  # noqa: E402
import toolparse  # noqa: E402
from server_cases import token_chunks, toolparse_result, tools_for  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import (  # noqa: E402
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.tool_parsers.structural_tag_registry import limit_to_single_tool_call  # noqa: E402
from vllm_requests import TOKENIZER, chat_request, responses_request  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

FORMATS = toolparse.list_formats()
SAMPLE = ["hermes", "qwen3_coder", "openai", "pythonic", "kimi_k2", "minimax_m3"]
REQUESTS = {"chat": chat_request, "responses": responses_request}


def server_parser(
    name: str, tools: Optional[List[Dict[str, Any]]], level: Optional[str] = None
) -> Any:
    """vLLM's ``Parser`` for ``--tool-call-parser name`` (``--tool-strict-level level``), built
    per request as the serving layer builds it."""
    cls = ParserManager.get_parser(
        tool_parser_name=name,
        enable_auto_tools=True,
        model_name="m",
        tool_strict_level=level,
        tokenizer=TOKENIZER,
    )
    assert cls is not None
    request = chat_request(tools)
    return cls(TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None)


def tag_of(request: Any) -> Optional[Dict[str, Any]]:
    """The structural tag vLLM set on the request, as data (None: none)."""
    so = request.structured_outputs
    if so is None or so.structural_tag is None:
        return None
    return dict(json.loads(so.structural_tag))


def as_vllm_sets_it(tag: Optional[Dict[str, Any]], single: bool = False) -> Any:
    """toolparse's plain-data tag as vLLM writes it on a request (validated by xgrammar's model,
    capped to one call by vLLM's own rule when ``single``)."""
    if tag is None:
        return None
    model = xgrammar.StructuralTag.model_validate(tag)
    if single:
        limit_to_single_tool_call(model)
    return json.loads(json.dumps(model.model_dump()))


def one_call(fmt: str) -> Tuple[List[Dict[str, Any]], List[Any]]:
    """Tools for the format's one-call cases (the called function first) and the cases."""
    cases = corpus.standard_cases(fmt)["one_call"]
    names = [n for n, _ in cases[0].calls]
    tools = tools_for(names, cases[0].tools)
    assert tools[0]["function"]["name"] == names[0]
    return tools, cases


def accepts_a_call(tag: Dict[str, Any], cases: List[Any]) -> List[str]:
    """The one-call texts the compiled tag accepts (xgrammar)."""
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return [c.text for c in cases if _is_grammar_accept_string(grammar, c.text)]


# ==================================================================================================
# The classes
# ==================================================================================================


def test_every_parser_names_a_structural_tag_model_and_parses_required_natively() -> None:
    for fmt in tp_vllm.formats():
        cls = tp_vllm.parser_class(fmt)
        assert cls.structural_tag_model == tp_vllm.PREFIX + fmt
        # vLLM's ToolParser.__init_subclass__ made this False (strict tool calling is on by
        # default), as for its own parsers that name a model: required and named output is
        # then parsed by the tool parser, in the format's own markup
        assert cls.supports_required_and_named is False, fmt
        assert tp_vllm.parser_class(fmt, "python").supports_required_and_named is False


# ==================================================================================================
# Required and named: every format, both APIs
# ==================================================================================================


@pytest.mark.parametrize("fmt", FORMATS)
def test_required_and_named_requests_get_toolparses_tag(fmt: str) -> None:
    tools, cases = one_call(fmt)
    name = tp_vllm.PREFIX + fmt
    parser = server_parser(name, tools)
    compiled = {}
    for api, make in REQUESTS.items():
        for choice in ("required", "named"):
            request = make(tools, choice)
            ours = tag_of(parser.adjust_request(request))
            want_choice: Any = choice
            if choice == "named":
                want_choice = {
                    "type": "function",
                    "function": {"name": tools[0]["function"]["name"]},
                }
            want = toolparse.structural_tag(fmt, tools, tool_choice=want_choice)
            assert want is not None and ours == as_vllm_sets_it(want), f"{fmt} {api} {choice}"
            compiled[choice] = ours
    for choice, tag in compiled.items():
        assert accepts_a_call(tag, cases), f"{fmt} {choice}: no well-formed call accepted"


# ==================================================================================================
# Strictness, the call count, response_format: where vLLM sets a tag for its own parsers
# ==================================================================================================


def _strict(tools: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{**t, "function": {**t["function"], "strict": True}} for t in tools]


# (label, tools made strict, request extras, server level, toolparse.structural_tag arguments)
STRICT_CASES: List[Tuple[str, bool, Dict[str, Any], Optional[str], Dict[str, Any]]] = [
    ("auto", False, {}, None, {}),
    ("auto, a strict tool", True, {}, None, {}),
    ("auto, level function", False, {}, "function", {"strict": "function"}),
    ("auto, level parameter", False, {}, "parameter", {"strict": "parameter"}),
    ("required, level parameter", False, {}, "parameter", {"strict": "parameter"}),
    ("auto, one call", False, {"parallel_tool_calls": False}, None, {}),
    (
        "auto, strict, one call",
        True,
        {"parallel_tool_calls": False},
        None,
        {"parallel_tool_calls": False},
    ),
    (
        "required, one call",
        False,
        {"parallel_tool_calls": False},
        None,
        {"parallel_tool_calls": False},
    ),
]


@pytest.mark.parametrize("fmt", SAMPLE)
@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_strictness_and_call_count_reach_the_tag_where_vllm_sets_one(fmt: str, api: str) -> None:
    """vLLM pins each tool's ``strict`` from the request and the server level and raises the
    level to function for ``parallel_tool_calls: false`` (except auto under another output
    constraint); toolparse's tag is built with what reaches it. A tag is set exactly where vLLM
    sets one for its own hermes parser, unless toolparse has nothing to hold for the format."""
    tools, _ = one_call(fmt)
    make = REQUESTS[api]
    for label, strict, extra, level, kwargs in STRICT_CASES:
        choice = label.split(",")[0]
        given = _strict(tools) if strict else tools
        theirs = tag_of(
            server_parser("hermes", given, level).adjust_request(make(given, choice, **extra))
        )
        ours = tag_of(
            server_parser(tp_vllm.PREFIX + fmt, given, level).adjust_request(
                make(given, choice, **extra)
            )
        )
        single = extra.get("parallel_tool_calls") is False
        strict_arg = kwargs.get("strict", "function" if single and level is None else "auto")
        want = toolparse.structural_tag(
            fmt,
            given,
            tool_choice=choice,
            strict=strict_arg,
            parallel_tool_calls=not single,
        )
        where = f"{fmt} {api}: {label}"
        assert ours == as_vllm_sets_it(want, single), where
        if want is not None:
            assert theirs is not None, where
        if theirs is None:
            assert ours is None, where


@pytest.mark.parametrize("fmt", SAMPLE)
def test_one_call_only_when_parallel_tool_calls_is_false(fmt: str) -> None:
    tools, _ = one_call(fmt)
    case = corpus.standard_cases(fmt)["parallel"][0]
    tools = tools_for([n for n, _ in case.calls], case.tools)
    parser = server_parser(tp_vllm.PREFIX + fmt, tools)
    many = tag_of(parser.adjust_request(chat_request(tools, "required")))
    one = tag_of(parser.adjust_request(chat_request(tools, "required", parallel_tool_calls=False)))
    assert many is not None and one is not None
    assert accepts_a_call(many, [case]) == [case.text]
    assert accepts_a_call(one, [case]) == []


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_auto_with_a_response_format_is_the_tag_or_the_format(api: str) -> None:
    """Auto with a strict tool and a JSON response format: vLLM joins toolparse's tag (built as
    for required, so the calls branch is meaningful) and the response format in one ``or``."""
    tools = _strict(tools_for(["get_weather"]))
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    if api == "chat":
        fmt_arg: Dict[str, Any] = {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "a", "schema": schema},
            }
        }
    else:
        fmt_arg = {"text": {"format": {"type": "json_schema", "name": "a", "schema": schema}}}
    parser = server_parser(tp_vllm.PREFIX + "hermes", tools)
    tag = tag_of(parser.adjust_request(REQUESTS[api](tools, "auto", **fmt_arg)))
    assert tag is not None
    calls, answer = tag["format"]["elements"]
    want = as_vllm_sets_it(toolparse.structural_tag("hermes", tools, tool_choice="required"))
    assert calls == want["format"]
    assert answer["type"] == "json_schema" and answer["json_schema"] == schema
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    assert _is_grammar_accept_string(grammar, '{"answer": "sunny"}')
    assert _is_grammar_accept_string(
        grammar, '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'
    )


_STRICT_OFF = textwrap.dedent(
    """
    import json, sys
    sys.path[:0] = sys.argv[1:]
    import vllm.tool_parsers
    import toolparse.integrations.vllm as tp
    from test_vllm_strict import TOKENIZER, chat_request, server_parser
    from server_cases import tools_for
    tools = tools_for(["get_weather"])
    out = {}
    for name in ("hermes", "toolparse_hermes", "toolparse_qwen3_coder"):
        p = server_parser(name, tools)
        r = p.adjust_request(chat_request(tools, "required"))
        so = r.structured_outputs
        out[name] = [
            p.tool_parser.supports_required_and_named,
            so is not None and so.structural_tag is not None,
            so is not None and so.json is not None,
        ]
    print(json.dumps(out))
    """
)


def test_strict_tool_calling_off_sets_no_tag() -> None:
    """``VLLM_ENFORCE_STRICT_TOOL_CALLING=0``: no structural tag; required is held by vLLM's JSON
    schema and parsed by vLLM itself, as for its own parsers (classes are made at import, so in a
    fresh process)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, VLLM_ENFORCE_STRICT_TOOL_CALLING="0")
    r = subprocess.run(
        [sys.executable, "-c", _STRICT_OFF, here, os.path.dirname(here)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["hermes"] == [True, False, True]
    assert out["toolparse_hermes"] == out["hermes"]
    assert out["toolparse_qwen3_coder"] == out["hermes"]


# ==================================================================================================
# Required output is parsed in the format's markup, streaming and not
# ==================================================================================================


@pytest.mark.parametrize("fmt", FORMATS)
def test_required_output_is_parsed_in_the_formats_markup(fmt: str) -> None:
    case = corpus.composite_case(fmt)
    tools = tools_for([n for n, _ in case.calls], case.tools)
    name = tp_vllm.PREFIX + fmt
    want = toolparse_result(fmt, "rust", case.text, tools)
    parser = server_parser(name, tools)
    request = parser.adjust_request(chat_request(tools, "required"))
    _reasoning, content, calls = parser.parse(case.text, request, enable_auto_tools=True)
    assert ((content or None), [(c.name, c.arguments) for c in calls or []]) == want, fmt
    # streaming: vLLM's ChatStreamProcessor, one step per token-like chunk
    parser = server_parser(name, tools)
    request = parser.adjust_request(chat_request(tools, "required"))
    cls = type(parser)
    proc = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    chunks = token_chunks(case.text)
    streamed: Dict[int, List[str]] = {}
    names: Dict[int, str] = {}
    text = ""
    finish = None
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        step = proc.step(chunk, [1] * len(chunk), "stop" if last else None, [0])
        d = step.delta
        if d is not None:
            text += d.content or ""
            for tc in d.tool_calls or []:
                if tc.function and tc.function.name:
                    names[tc.index] = tc.function.name
                streamed.setdefault(tc.index, []).append(
                    (tc.function and tc.function.arguments) or ""
                )
        if last:
            finish = step.finish_reason
    got = [(names[i], "".join(streamed[i])) for i in sorted(streamed)]
    assert (text or None, got) == want, fmt
    assert finish == "tool_calls"

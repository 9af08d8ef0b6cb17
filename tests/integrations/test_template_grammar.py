"""The template is the test, for strict tool calling: the assistant turns every in-scope vendored
chat template renders (tests/template_cases.py, as tests/test_templates.py parses them back) are
accepted by xgrammar 0.2.8 under toolparse's structural tag for the format: tool_choice required
at strict "parameter", a named choice (one-call shapes), and required with the format's reasoning
format; and (issue 29 item 4) by the tags vLLM's ``Parser.adjust_request`` and SGLang's
``get_structure_constraint`` put on a required request, through the helpers of
test_vllm_strict.py (its request and tag helpers).

Checked: turns whose text holds no content (required output has none); a turn with reasoning only
under the reasoning variant. Known failures are strict xfails in ONE table, ``KNOWN_FAILURES``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Dict, List, Optional, Tuple

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in
pytest.importorskip("jinja2")
fcp = pytest.importorskip("sglang.srt.function_call.function_call_parser")

import template_cases as tc  # noqa: E402
import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from sglang.srt.entrypoints.openai import protocol  # noqa: E402
from test_templates import KNOWN_FAILURES as PARSE_FAILURES  # noqa: E402
from test_templates import TEMPLATE_LIMITS  # noqa: E402
from test_vllm_strict import server_parser, tag_of  # noqa: E402
from toolparse.integrations import sglang as tp_sglang  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm_requests import chat_request  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

tp_sglang.register()

REQUIRED, NAMED, REASONING, VLLM, SGLANG = "required", "named", "reasoning", "vllm", "sglang"
CHECKS = (REQUIRED, NAMED, REASONING, VLLM, SGLANG)

ALL = "*"  # every shape the check applies to
BUT_REASONING = tuple(s for s in tc.SHAPES if s != "reasoning_before")
EVERY = (REQUIRED, NAMED, REASONING, VLLM, SGLANG)
NO_REASONING = (REQUIRED, NAMED, VLLM, SGLANG)
OURS = (REQUIRED, NAMED, REASONING)
_NO_END = (
    "the generation prompt opens the reasoning and the template writes the turn with no end of "
    "it (</think>, [BEGIN FINAL RESPONSE], <|END_THINKING|>): the template renders a turn "
    "without reasoning (or drops it) with no block at all, where the model itself closes the "
    "block before its calls. Kept: toolparse's parser reads a call inside the unclosed block as "
    "a call (both backends), but vLLM's reasoning parsers (the base extract_reasoning, DeepSeek-"
    "R1's, cohere's) read everything after an unclosed opener as reasoning, so the call is "
    "lost; a tag admitting it would steer the model into a form a server loses"
)
# THE table: (template, checks, shapes or ALL, why the tag rejects the template's text today);
# each (template, shape, check) it covers is a strict xfail (fixed: an error; remove the row)
GRAMMAR_FAILURES: List[Tuple[str, Tuple[str, ...], Any, str]] = [
    (
        "Cohere2MoE",
        (REASONING,),
        BUT_REASONING,
        _NO_END,
    ),
    (
        "GLM-4.7-Flash",
        (SGLANG,),
        ALL,
        "without strict tools SGLang constrains glm47 with its own full-assistant grammar (kept "
        "on purpose, test_sglang_strict.py), whose thinking block is empty: the turn's </think> "
        "before the call is rejected; toolparse's tag (grammar.optional_reasoning) admits it",
    ),
    *[
        (t, (REASONING,), BUT_REASONING, _NO_END)
        for t in ("Apriel-1.6-15b-Thinker-fixed", "MiniMax-M2")
    ],
    # these two templates drop the reasoning too: the turn with reasoning has no </think> either
    *[
        (t, (REASONING,), ALL, _NO_END)
        for t in ("NVIDIA-Nemotron-Nano-v2", "llama-cpp-deepseek-r1")
    ],
]


def _turn(name: str, shape: str) -> Any:
    return tc.rendered(name, shape)


def applicable(name: str, shape: str, check: str) -> bool:
    """Whether the check applies: a text with content is no required output; a text with
    reasoning is checked with the reasoning format only; named takes one call."""
    if (name, shape) in TEMPLATE_LIMITS or (name, shape, "parse") in PARSE_FAILURES:
        return False
    entry = tc.TEMPLATES[name]
    turn = _turn(name, shape)
    if tc.expected_text(tc.SHAPES[shape].content, turn):
        return False
    has_reasoning = bool(tc.expected_text(tc.SHAPES[shape].reasoning, turn))
    if check == REASONING:
        return entry.reasoning is not None
    if has_reasoning:
        return False
    return check != NAMED or len(tc.SHAPES[shape].calls) == 1


def _known_failures() -> Dict[Tuple[str, str, str], str]:
    out: Dict[Tuple[str, str, str], str] = {}
    for name, checks, shapes, reason in GRAMMAR_FAILURES:
        for shape in tc.shapes_for(name) if shapes == ALL else shapes:
            for check in checks:
                if applicable(name, shape, check):
                    out[(name, shape, check)] = reason
    return out


def _cases() -> List[Any]:
    out = []
    for name in tc.in_scope():
        for shape in tc.shapes_for(name):
            for check in CHECKS:
                if not applicable(name, shape, check):
                    continue
                marks = []
                reason = KNOWN_FAILURES.get((name, shape, check))
                if reason is not None:
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                out.append(pytest.param(name, shape, check, marks=marks))
    return out


KNOWN_FAILURES = _known_failures()


@cache
def _compiled(tag_json: str) -> Any:
    return xgrammar.Grammar.from_structural_tag(tag_json)


def admits(tag: Dict[str, Any], text: str) -> bool:
    return bool(_is_grammar_accept_string(_compiled(json.dumps(tag)), text))


def toolparse_tag(name: str, shape: str, check: str) -> Optional[Dict[str, Any]]:
    entry = tc.TEMPLATES[name]
    choice: Any = "required"
    if check == NAMED:
        choice = {"type": "function", "function": {"name": tc.SHAPES[shape].calls[0][0]}}
    kwargs: Dict[str, Any] = {}
    if check == REASONING:
        kwargs = dict(
            reasoning=entry.reasoning,
            reasoning_started=tc.reasoning_started(name, _turn(name, shape)),
        )
    return toolparse.structural_tag(
        entry.fmt, tc.TOOLS, tool_choice=choice, strict="parameter", **kwargs
    )


@cache
def vllm_tag(fmt: str) -> Dict[str, Any]:
    parser = server_parser(tp_vllm.PREFIX + fmt, tc.TOOLS)
    tag = tag_of(parser.adjust_request(chat_request(tc.TOOLS, "required")))
    assert tag is not None, fmt
    return tag


@cache
def sglang_tag(fmt: str) -> Any:
    tools = [protocol.Tool.model_validate(t) for t in tc.TOOLS]
    parser = fcp.FunctionCallParser(tools, tp_sglang.PREFIX + fmt)
    got = parser.get_structure_constraint("required")
    assert got is not None and got[0] == "structural_tag", (fmt, got)
    return got[1].model_dump(by_alias=True)


@pytest.mark.parametrize("name, shape, check", _cases())
def test_the_tag_accepts_the_templates_text(name: str, shape: str, check: str) -> None:
    text = _turn(name, shape).text
    fmt = tc.TEMPLATES[name].fmt
    if check == VLLM:
        assert admits(vllm_tag(fmt), text), text
    elif check == SGLANG:
        assert admits(sglang_tag(fmt), text), text
    else:
        tag = toolparse_tag(name, shape, check)
        assert tag is not None and admits(tag, text), text


def test_known_failures_name_real_cases() -> None:
    for name, checks, shapes, _ in GRAMMAR_FAILURES:
        assert name in tc.in_scope() and set(checks) <= set(CHECKS), name
        assert shapes == ALL or set(shapes) <= set(tc.SHAPES), name
        assert any(k[0] == name for k in KNOWN_FAILURES), f"{name}: no applicable case"

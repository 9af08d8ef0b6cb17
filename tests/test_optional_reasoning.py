"""``grammar.optional_reasoning``: a format whose chat templates write a think block before the
calls (whole, empty, or only its end, the prompt having opened it) admits that block under
required and named choice when no reasoning format is given. Served that way, the parser has no
reasoning format either: it reads the block as content and the calls as calls, nothing lost, on
both backends, streaming under splittings as non-streaming (the grammar side is
tests/integrations/test_template_grammar.py and test_grammar_optional_reasoning.py)."""

from __future__ import annotations

import json
from typing import Any, List

import pytest

pytest.importorskip("jinja2")

import template_cases as tc  # noqa: E402
import toolparse  # noqa: E402
from helpers import calls_of, stream  # noqa: E402
from test_templates import KNOWN_FAILURES, TEMPLATE_LIMITS, random_splits  # noqa: E402
from toolparse import spec as tp_spec  # noqa: E402

BACKENDS = ("rust", "python")


def _block_first(name: str, shape: str) -> bool:
    """A turn of calls alone (no content, no reasoning) whose text holds something before them."""
    if (name, shape) in TEMPLATE_LIMITS or (name, shape, "parse") in KNOWN_FAILURES:
        return False
    want = tc.SHAPES[shape]
    if want.content or want.reasoning:
        return False
    return _before_calls(name, tc.rendered(name, shape).text) != ""


def _before_calls(name: str, text: str) -> str:
    """The text before the first call, up to the end of the think block where it holds one
    (after it Kimi-K3 writes its empty response channel, markup its tool format reads)."""
    g = tp_spec.get_spec(tc.TEMPLATES[name].fmt).grammar
    assert g.trigger is not None and g.trigger in text, (name, text)
    before = text[: text.index(g.trigger)]
    end = tp_spec.REASONING[tp_spec.reasoning_canonical(g.optional_reasoning)].end
    return before[: before.index(end) + len(end)] if end in before else before


def _cases() -> List[Any]:
    out = []
    for name in tc.in_scope():
        if not tp_spec.get_spec(tc.TEMPLATES[name].fmt).grammar.optional_reasoning:
            continue
        for shape in tc.shapes_for(name):
            if _block_first(name, shape):
                out += [pytest.param(name, shape, b) for b in BACKENDS]
    return out


CASES = _cases()


def test_the_templates_that_write_a_block_first_are_covered() -> None:
    names = {p.values[0] for p in CASES}
    # the templates of issue 29's residue that write a block before their calls
    assert {
        "GLM-4.6",
        "GLM-4.7-Flash",
        "Kimi-K2-Thinking",
        "Kimi-K3",
        "MiniMax-M3",
        "Qwen-Qwen3-0.6B",
        "Qwen3.5-4B",
        "StepFun3.5-Flash",
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "inclusionai-ling-3.0-flash",
        "poolside-Laguna-S-2.1",
        "Spark2.5",
    } <= names


def test_every_optional_reasoning_names_a_reasoning_format_with_an_end() -> None:
    for fmt in toolparse.list_formats():
        name = tp_spec.get_spec(fmt).grammar.optional_reasoning
        if name:
            r = tp_spec.REASONING[tp_spec.reasoning_canonical(name)]
            assert r.end and r.starts, fmt


@pytest.mark.parametrize("name, shape, backend", CASES)
def test_without_a_reasoning_format_the_block_is_content(
    name: str, shape: str, backend: str
) -> None:
    text = tc.rendered(name, shape).text
    block = _before_calls(name, text)
    fmt = tc.TEMPLATES[name].fmt
    parser = toolparse.get_parser(fmt, tools=tc.TOOLS, backend=backend)
    info = parser.extract_tool_calls(text)
    got = calls_of(info)
    assert [(n, json.loads(a)) for n, a in got] == tc.expected_calls(shape), text
    # the block is content, whole (the text after the calls, if any, is whitespace)
    assert (info.content or "").strip() == block.strip(), text
    assert not info.reasoning and not info.truncated
    for chunks in random_splits(text, f"optional/{name}/{shape}"):
        rec, s = stream(parser, chunks)
        assert not s.malformed and not s.truncated, chunks
        assert calls_of(rec) == got, chunks
        assert (rec.other_content, rec.reasoning) == (info.content or "", info.reasoning or "")


def test_a_registered_format_names_a_known_reasoning_format() -> None:
    """``register_format`` checks the field as it checks ``default_reasoning``: an unknown
    reasoning format is a ``ValueError`` naming the field; a known one is accepted."""
    from register_cases import renamed

    doc = renamed("glm45", "glm45_optional_unknown")
    doc["spec"]["grammar"]["optional_reasoning"] = "no_such_reasoning"
    with pytest.raises(ValueError, match="grammar.optional_reasoning"):
        toolparse.register_format(doc)
    assert "glm45_optional_unknown" not in toolparse.list_formats()
    bad = renamed("mistral", "mistral_bad_ids")
    bad["spec"]["grammar"]["trailing_id_keys"] = "id"
    with pytest.raises(ValueError, match="trailing_id_keys"):
        toolparse.register_format(bad)

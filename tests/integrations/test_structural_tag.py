"""The grammar and the parser agree, checked with xgrammar 0.2.8 itself (it imports torch, so these
tests live with the integration tests and run under the peers' torch stand-in).

* Parser to grammar: the kit's well-formed calls-only cases of the forms the chat template writes
  (every kit form but the spec's ``grammar.parser_only_forms`` and the forms it lists under
  ``template_forms_not_admitted``), with tools from a schema builder
  that types every value and lists ``required``, are admitted under auto (strict parameter),
  required, named (one call) and ``parallel_tool_calls=False`` (one call); required rejects text
  with no call; named rejects another function and two calls; a call to a function not in
  ``tools`` is rejected at strict function; arguments breaking the schema are rejected; two calls
  are rejected with ``parallel_tool_calls=False``; malformed cases are rejected under required.
* Grammar to parser: strings from a seeded walk of each tag (each one checked against xgrammar
  first) parse back, streaming and not, on both backends, into calls to functions in ``tools``
  whose arguments validate against the schema.

The default run takes a few samples per format and choice; the whole choice x strict x parallel
matrix is marked ``exhaustive`` (``.ci/integrations`` runs it too; an alias's tag is its format's,
which tests/test_grammar.py checks for every choice).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in

import jsonschema  # noqa: E402
import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from grammar_walk import Unsupported, Walk, schema_for  # noqa: E402
from toolparse import spec as tp_spec  # noqa: E402
from toolparse import testing  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

FORMATS = toolparse.list_formats()
BACKENDS = ("rust", "python")


def compile_tag(tag: Dict[str, Any]) -> Any:
    return xgrammar.Grammar.from_structural_tag(json.dumps(tag))


def admits(grammar: Any, text: str) -> bool:
    return bool(_is_grammar_accept_string(grammar, text))


def form_of(case: testing.TestCase) -> str:
    parts = case.label.split("/")
    return parts[1] if len(parts) > 1 else case.label


def _has_text_messages(fmt: str, text: str) -> bool:
    """Whether a case holds a content message (channel formats) or content wrapper: text, even
    when it is only whitespace, which required output has none of."""
    sp = tp_spec.get_spec(fmt)
    messages = sp.grammar.messages
    if messages:
        for begin in messages.content.begin:
            if text.startswith(begin) or messages.separator + begin in text:
                return True
    # an empty content wrapper (kimi_k3's response channel before the calls) holds no text
    m = sp.markers
    for start in (v for r, v in m.items() if r.endswith("text_start")):
        for end in (v for r, v in m.items() if r.startswith("text_end")):
            text = text.replace(start + end, "")
    return any(v in text for r, v in m.items() if r.endswith("text_start"))


@cache
def template_cases(fmt: str) -> Tuple[testing.TestCase, ...]:
    g = tp_spec.get_spec(fmt).grammar
    parser_only = set(g.parser_only_forms) | {form for form, _ in g.template_forms_not_admitted}
    out = []
    for c in testing.cases(fmt):
        if c.kind != "well_formed" or not c.tool_calls or c.content is not None or c.reasoning:
            continue
        if form_of(c) in parser_only or _has_text_messages(fmt, c.text):
            continue
        if any(
            "\\u" in k for k in (json.dumps(list(json.loads(x.arguments))) for x in c.tool_calls)
        ):
            # a key with non-ASCII characters: the case's JSON escapes it, the grammar does not
            continue
        out.append(c)
    return tuple(out)


def args_of(case: testing.TestCase) -> List[Tuple[str, Dict[str, Any]]]:
    return [(x.name, json.loads(x.arguments)) for x in case.tool_calls]


@cache
def tools_of(fmt: str) -> Tuple[Dict[str, Any], ...]:
    return tuple(schema_for([a for c in template_cases(fmt) for a in args_of(c)]))


@cache
def grammar(fmt: str, choice: str, strict: str, parallel: bool, tools: Optional[str] = None) -> Any:
    tool_list = json.loads(tools) if tools is not None else list(tools_of(fmt))
    tool_choice: Any = choice
    if choice not in ("auto", "required"):
        tool_choice = {"type": "function", "function": {"name": choice}}
    tag = toolparse.structural_tag(
        fmt, tool_list, tool_choice=tool_choice, strict=strict, parallel_tool_calls=parallel
    )
    assert tag is not None
    return compile_tag(tag)


def sample(cases: Sequence[testing.TestCase], k: int) -> List[testing.TestCase]:
    """``k`` cases spread over the list (the kit orders them by pattern)."""
    if len(cases) <= k:
        return list(cases)
    step = len(cases) / k
    return [cases[int(i * step)] for i in range(k)]


def test_every_format_has_template_cases() -> None:
    empty = [f for f in FORMATS if not template_cases(f)]
    assert not empty, f"no calls-only case of a template form: {empty}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_parser_cases_are_admitted_and_wrong_calls_rejected(fmt: str) -> None:
    cases = template_cases(fmt)
    required = grammar(fmt, "required", "parameter", True)
    auto = grammar(fmt, "auto", "parameter", True)
    single = grammar(fmt, "required", "parameter", False)
    for c in cases:
        assert admits(required, c.text), f"required rejects {c.label}: {c.text!r}"
        assert admits(auto, c.text), f"auto rejects {c.label}: {c.text!r}"
        assert admits(single, c.text) == (len(c.tool_calls) == 1), f"one call only: {c.label}"
    assert not admits(required, "Hello, how can I help you?")
    assert not admits(required, "")
    # malformed markup is not a call
    malformed = [c for c in testing.cases(fmt) if c.kind == "malformed"]
    admitted = [c.text for c in malformed if admits(required, c.text)]
    assert not admitted, f"required admits malformed output: {admitted[:3]}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_named_choice_admits_one_call_to_that_function_only(fmt: str) -> None:
    cases = template_cases(fmt)
    ones = [c for c in cases if len(c.tool_calls) == 1]
    twos = [c for c in cases if len(c.tool_calls) > 1]
    names = sorted({c.tool_calls[0].name for c in ones})
    assert ones
    for name in names[:2]:
        g = grammar(fmt, name, "auto", True)
        for c in sample(ones, 12):
            assert admits(g, c.text) == (c.tool_calls[0].name == name), c.label
        for c in sample(twos, 4):
            assert not admits(g, c.text), f"named admits two calls: {c.label}"


BREAK = {"string": "integer", "integer": "boolean", "number": "boolean", "boolean": "integer"}
BREAK.update({"null": "integer", "array": "integer", "object": "integer"})


def broken_tools(tools: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The tools with every typed property retyped to a type its values do not have."""
    out = json.loads(json.dumps(list(tools)))
    for t in out:
        for prop in t["function"]["parameters"]["properties"].values():
            ty = prop["type"]
            prop["type"] = BREAK[ty] if isinstance(ty, str) else "integer"
            if isinstance(ty, list) and "integer" in ty:
                prop["type"] = "boolean"
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_strict_grammar_rejects_unknown_functions_and_bad_arguments(fmt: str) -> None:
    tools = list(tools_of(fmt))
    ones = [c for c in template_cases(fmt) if len(c.tool_calls) == 1]
    # a call to a function not in tools, at strict function
    for c in sample(ones, 6):
        others = [t for t in tools if t["function"]["name"] != c.tool_calls[0].name]
        if not others:
            continue
        g = grammar(fmt, "required", "function", True, json.dumps(others))
        assert not admits(g, c.text), f"admits a call to a function not in tools: {c.label}"
    # arguments breaking the schema, at strict parameter
    g = grammar(fmt, "required", "parameter", True, json.dumps(broken_tools(tools)))
    with_args = [c for c in ones if json.loads(c.tool_calls[0].arguments)]
    assert with_args
    for c in sample(with_args, 8):
        assert not admits(g, c.text), f"admits arguments breaking the schema: {c.label}: {c.text!r}"


def _parsed(fmt: str, text: str, backend: str, tools: List[Dict[str, Any]]) -> Any:
    parser = toolparse.get_parser(fmt, tools=tools, backend=backend)
    info = parser.extract_tool_calls(text)
    rec = toolparse.StreamingToolReconstructor()
    stream = parser.stream()
    for i in range(0, len(text), 3):
        d = stream.feed(text[i : i + 3])
        if d is not None:
            rec.append_delta(d)
    d = stream.finish()
    if d is not None:
        rec.append_delta(d)
    whole = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    assert whole == streamed, f"streaming differs from non-streaming on {text!r}"
    return whole


def check_walks(fmt: str, choice: str, strict: str, parallel: bool, seeds: range) -> None:
    tools = list(tools_of(fmt))
    tool_choice: Any = choice
    if choice not in ("auto", "required"):
        tool_choice = {"type": "function", "function": {"name": choice}}
    tag = toolparse.structural_tag(
        fmt, tools, tool_choice=tool_choice, strict=strict, parallel_tool_calls=parallel
    )
    assert tag is not None
    g = compile_tag(tag)
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    for seed in seeds:
        try:
            text = Walk(seed).text(tag)
        except Unsupported as e:  # pragma: no cover - every node toolparse writes is walked
            pytest.fail(f"{fmt}: the walk cannot render {e}")
        assert admits(g, text), f"the walk left the grammar (seed {seed}): {text!r}"
        for backend in BACKENDS:
            calls = _parsed(fmt, text, backend, tools)
            if choice != "auto":
                assert calls, f"{backend}: no call parsed from {text!r}"
            if not parallel:
                assert len(calls) <= 1
            for name, arguments in calls:
                assert name in schemas if choice in ("auto", "required") else name == choice
                args = json.loads(arguments)
                if strict == "parameter":
                    jsonschema.validate(args, schemas[name])
                else:
                    assert isinstance(args, dict)


@pytest.mark.parametrize("fmt", FORMATS)
def test_strings_the_grammar_admits_parse_into_valid_calls(fmt: str) -> None:
    check_walks(fmt, "required", "parameter", True, range(4))
    check_walks(fmt, "auto", "parameter", True, range(100, 103))
    if not tp_spec.get_spec(fmt).grammar.unbound_keys_without_schema:
        check_walks(fmt, "required", "function", False, range(200, 202))


@pytest.mark.exhaustive
@pytest.mark.parametrize("fmt", FORMATS)  # an alias's tag is its format's (tests/test_grammar.py)
@pytest.mark.parametrize("strict", ["auto", "function", "parameter"])
@pytest.mark.parametrize("parallel", [True, False])
def test_the_whole_matrix(fmt: str, strict: str, parallel: bool) -> None:
    canonical = tp_spec.canonical(fmt)
    tools = [dict(t, function=dict(t["function"], strict=True)) for t in tools_of(canonical)]
    names = [t["function"]["name"] for t in tools]
    for choice in ["auto", "required", *names[:3]]:
        tag = toolparse.structural_tag(
            fmt,
            tools,
            tool_choice=choice
            if choice in ("auto", "required")
            else {"type": "function", "name": choice},
            strict=strict,
            parallel_tool_calls=parallel,
        )
        if tag is None:
            assert choice == "auto" and tp_spec.get_spec(canonical).grammar.trigger is None
            continue
        g = compile_tag(tag)
        for c in template_cases(canonical):
            one = len(c.tool_calls) == 1
            want = (parallel or one) and (
                choice in ("auto", "required") or (one and c.tool_calls[0].name == choice)
            )
            assert admits(g, c.text) == want, f"{choice}/{strict}/{parallel}: {c.label}"
        if (
            strict != "parameter"
            and tp_spec.get_spec(canonical).grammar.unbound_keys_without_schema
        ):
            continue
        for seed in range(1000, 1004):
            text = Walk(seed).text(tag)
            assert admits(g, text), text
            for backend in BACKENDS:
                calls = _parsed(canonical, text, backend, tools)
                assert all(n in names for n, _ in calls)


# ---- tagged_json "newline" sections (inferred for MiniMax-M1): registered in a child process,
# so the other tests' list of formats stays the built-in one ----

_NEWLINE_SECTION = r"""
import json, sys
import vllm.tool_parsers  # noqa: F401  (sets up the torch stand-in xgrammar needs)
import xgrammar
from xgrammar.testing import _is_grammar_accept_string
import toolparse
from toolparse import samples
doc = json.load(sys.stdin)
toolparse.register_format(doc)
a = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
b = '{"name": "get_weather", "arguments": {"city": "Rome"}}'
texts = [f"<tool_calls>\n{a}\n{b}\n</tool_calls>", f"<tool_calls>\n{a}\n</tool_calls>",
         f"<tool_calls>\n{a} {b}\n</tool_calls>", f"<tool_calls>\n{a}\n</tool_calls><tool_calls>"]
out = {}
for choice in ("auto", "required"):
    tag = toolparse.structural_tag("lines", samples.tools(), tool_choice=choice, strict="function")
    g = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    out[choice] = [bool(_is_grammar_accept_string(g, t)) for t in texts]
print(json.dumps(out))
"""


def test_newline_section_admits_one_call_per_line() -> None:
    """A tagged_json section of call objects one per line (``calls`` "newline"): the grammar
    admits the template's form, one call or several, each on a line of its own, and not two
    calls on one line."""
    import os
    import subprocess
    import sys

    with open(os.path.join(os.path.dirname(toolparse.__file__), "formats", "hermes.json")) as f:
        doc = json.load(f)
    doc = json.loads(json.dumps(doc).replace("tool_call>", "tool_calls>"))
    doc.pop("model_ids", None)
    doc["spec"].update({"name": "lines", "aliases": [], "models": [], "calls": "newline"})
    done = subprocess.run(
        [sys.executable, "-c", _NEWLINE_SECTION],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"auto": [True, True, False, False], "required": [True, True, False, False]}

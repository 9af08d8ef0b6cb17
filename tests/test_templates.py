"""The template is the test: every vendored llama.cpp chat template (tests/template_cases.py says
which toolparse format its model writes, or why it is out of scope) renders assistant turns of
several shapes, and the parser reads the same calls back from the turn's text: names, and
arguments equal as JSON values; content and reasoning as the template wrote them. Both backends,
non-streaming and streaming under random splits (which must agree byte for byte).

Also: the spec's ``grammar.parser_only_forms`` lists no form a template writes, and
``grammar.template_forms_not_admitted`` only forms one does.

Known failures are strict xfails in ONE table (``KNOWN_FAILURES``): fixing one turns its xfail
into an error, and its entry is removed then. The grammar and server checks of the same texts
are in tests/integrations/test_template_grammar.py.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Callable, Dict, List, Tuple

import pytest

pytest.importorskip("jinja2")

import template_cases as tc  # noqa: E402
import toolparse  # noqa: E402
from helpers import calls_of, stream  # noqa: E402
from toolparse import spec as tp_spec  # noqa: E402

BACKENDS = ("rust", "python")

# (template, shape): what the template does with the turn instead of writing it as given; the
# shape is not a round trip for that template (test_template_limits checks each still holds)
TEMPLATE_LIMITS: Dict[Tuple[str, str], str] = {
    **{
        (f"meta-llama-Llama-3.{v}-Instruct", "two_calls"): "raises: single tool-calls only"
        for v in ("1-8B", "2-3B", "3-70B")
    },
    ("GigaChat3-10B-A1.8B", "two_calls"): "writes the first call only",
    ("GigaChat3.1-10B-A1.8B", "two_calls"): "writes the first call only",
    ("openai-gpt-oss-120b", "two_calls"): "writes one call of two",
    ("openai-gpt-oss-120b", "content_before"): "writes the content as the analysis channel",
    ("llama-cpp-deepseek-r1", "content_before"): "drops the calls of a turn with content",
    ("MiniMax-M3", "null"): "drops a null argument",
    ("Apriel-1.6-15b-Thinker-fixed", "content_before"): "drops the reasoning opener its "
    "generation prompt writes ('Here are my reasoning steps:'): the content follows it unclosed",
    ("CohereForAI-c4ai-command-r7b-12-2024-tool_use", "reasoning_before"): "its generation prompt"
    " pre-fills an empty thinking block (<|START_THINKING|><|END_THINKING|>) that the turn "
    "with reasoning fills",
    ("MiniMax-M2", "content_before"): "drops the think block its generation prompt opened: the "
    "content follows <think> with no </think>",
    ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "content_before"): "writes the content after "
    "the calls, past a turn break",
}

PARSE = "parse"
_HY3 = (
    "Hy3's template writes <tool_calls:opensource>/<tool_call:opensource>/<arg_key:opensource> "
    "markup; hy_v3 reads <tool_calls>/<tool_call>/<arg_key>"
)
# (template, shape, check): why it fails today (strict xfail: fixing it makes the xfail an error)
KNOWN_FAILURES: Dict[Tuple[str, str, str], str] = {
    **{("tencent-Hy3", s, PARSE): _HY3 for s in tc.SHAPES},
    ("NVIDIA-Nemotron-Nano-v2", "content_before", PARSE): "the template writes a turn break "
    "(<SPECIAL_12>\\n<SPECIAL_11>Assistant) between the content and <TOOLCALL>: read as content",
}


def _cases() -> List[Any]:
    out = []
    for name in tc.in_scope():
        for shape in tc.shapes_for(name):
            if (name, shape) in TEMPLATE_LIMITS:
                continue
            for backend in BACKENDS:
                marks = []
                reason = KNOWN_FAILURES.get((name, shape, PARSE))
                if reason is not None:
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                out.append(pytest.param(name, shape, backend, marks=marks))
    return out


def random_splits(text: str, seed: str, n: int = 6) -> List[List[str]]:
    """Whole, one character at a time, and ``n`` random splittings (seeded by ``seed``)."""
    rnd = random.Random(seed)
    out = [[text], list(text)]
    for _ in range(n):
        cuts = sorted(rnd.sample(range(1, len(text)), min(len(text) - 1, rnd.randint(1, 12))))
        out.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])])
    return out


def parser_for(name: str, turn: Any, backend: str) -> Any:
    entry = tc.TEMPLATES[name]
    return toolparse.get_parser(
        entry.fmt,
        tools=tc.TOOLS,
        backend=backend,
        reasoning=entry.reasoning,
        reasoning_started=tc.reasoning_started(name, turn),
    )


def test_every_vendored_template_is_classified() -> None:
    vendored = {p.stem for p in tc.FOLDER.glob("*.jinja")}
    assert vendored == set(tc.TEMPLATES)
    assert len(vendored) == 70
    for name, entry in tc.TEMPLATES.items():
        if isinstance(entry, tc.InScope):
            assert entry.fmt in toolparse.list_formats(), name
            assert entry.reasoning is None or entry.reasoning in toolparse.list_reasoning_formats()
        else:
            assert entry.reason


def test_known_failures_name_real_cases() -> None:
    for name, shape, check in KNOWN_FAILURES:
        assert name in tc.in_scope() and shape in tc.SHAPES and check == PARSE
    for name, shape in TEMPLATE_LIMITS:
        assert name in tc.in_scope() and shape in tc.shapes_for(name)


@pytest.mark.parametrize("name, shape", sorted(TEMPLATE_LIMITS))
def test_template_limits(name: str, shape: str) -> None:
    """The template still does not write the turn as given: rendering raises, or the parser
    (which reads the other shapes) does not get the given calls back."""
    try:
        turn = tc.rendered(name, shape)
    except ValueError:
        return
    info = parser_for(name, turn, "rust").extract_tool_calls(turn.text)
    got = [(n, json.loads(a)) for n, a in calls_of(info)]
    content = tc.expected_text(tc.SHAPES[shape].content, turn)
    assert (got, (info.content or "").strip()) != (tc.expected_calls(shape), content)


@pytest.mark.parametrize("name, shape, backend", _cases())
def test_template_round_trip(name: str, shape: str, backend: str) -> None:
    turn = tc.rendered(name, shape)
    parser = parser_for(name, turn, backend)
    info = parser.extract_tool_calls(turn.text)
    got = calls_of(info)
    assert [(n, json.loads(a)) for n, a in got] == tc.expected_calls(shape), turn.text
    want = tc.SHAPES[shape]
    assert (info.content or "").strip() == tc.expected_text(want.content, turn), turn.text
    assert (info.reasoning or "").strip() == tc.expected_text(want.reasoning, turn), turn.text
    assert not info.truncated
    for chunks in random_splits(turn.text, f"{name}/{shape}"):
        rec, s = stream(parser, chunks)
        assert not s.malformed and not s.truncated, chunks
        assert calls_of(rec) == got, chunks
        assert (rec.other_content, rec.reasoning) == (info.content or "", info.reasoning or "")


# ----- the forms the templates write, against the spec's lists -----------------------------------

Detector = Callable[[Dict[str, str], str], bool]


def _all(markers: Dict[str, str], prefix: str) -> List[str]:
    return [v for r, v in markers.items() if r == prefix or re.fullmatch(prefix + r"_\d+", r)]


def _no_close(m: Dict[str, str], text: str) -> bool:
    starts, ends = _all(m, "call_start"), _all(m, "call_end")
    return any(s in text for s in starts) and bool(ends) and not any(e in text for e in ends)


def _bare(m: Dict[str, str], text: str) -> bool:
    starts = _all(m, "call_start")
    return m.get("function_start", "\0") in text and not any(s in text for s in starts)


# form -> whether a turn's text is written in it (the kit's forms of tests/test_testing.py)
FORM_DETECTORS: Dict[str, Detector] = {
    "no_close": _no_close,
    "no_end": _no_close,
    "string_args": lambda m, t: re.search(r'"arguments"\s*:\s*"', t) is not None,
    "open_section": lambda m, t: m["section_start"] in t and m["section_end"] not in t,
    "no_prefix": lambda m, t: re.search(r"<\|tool_call_begin\|>(?!functions\.)", t) is not None,
    "bare": _bare,
    "single": lambda m, t: m["invoke_start"] + "'" in t,
    "channel": lambda m, t: m["text_start"] in t,
    "python_tag": lambda m, t: "<|python_tag|>" in t,
    "array": lambda m, t: m["call_start"] + "[" in t,
}


def _written_forms(fmt: str) -> Dict[str, List[str]]:
    """For each form the spec lists, the in-scope templates of ``fmt`` that write it."""
    sp = tp_spec.get_spec(fmt)
    listed = [
        *sp.grammar.parser_only_forms,
        *(f for f, _ in sp.grammar.template_forms_not_admitted),
    ]
    out: Dict[str, List[str]] = {}
    for form in listed:
        detect = FORM_DETECTORS[form]
        out[form] = sorted(
            f"{name}/{shape}"
            for name in tc.in_scope()
            if tc.TEMPLATES[name].fmt == fmt
            for shape in tc.shapes_for(name)
            if (name, shape) not in TEMPLATE_LIMITS
            and detect(dict(sp.markers), _text_or_empty(name, shape))
        )
    return out


def _text_or_empty(name: str, shape: str) -> str:
    try:
        return tc.rendered(name, shape).text
    except ValueError:
        return ""


TEMPLATE_FORMATS = sorted({tc.TEMPLATES[n].fmt for n in tc.in_scope()})


@pytest.mark.parametrize("fmt", TEMPLATE_FORMATS)
def test_form_lists_agree_with_the_templates(fmt: str) -> None:
    g = tp_spec.get_spec(fmt).grammar
    for form in (*g.parser_only_forms, *(f for f, _ in g.template_forms_not_admitted)):
        assert form in FORM_DETECTORS, f"{fmt}: no detector for the form {form!r}"
    written = _written_forms(fmt)
    for form in g.parser_only_forms:
        assert not written[form], f"{fmt}: parser_only_forms lists {form!r}, written by {written}"
    for form, _ in g.template_forms_not_admitted:
        assert written[form], f"{fmt}: {form!r} is listed as written by a template; none does"


def test_form_detectors_tell_the_forms() -> None:
    """Each detector holds on a text of its form and not on the plain form (spec samples)."""
    m = dict(tp_spec.get_spec("gigachat3").markers)
    assert _no_close(m, '<|function_call|>{"name": "f", "arguments": {}}')
    assert not _no_close(m, '<|function_call|>{"name": "f", "arguments": {}}</s>')
    k3 = dict(tp_spec.get_spec("kimi_k3").markers)
    assert FORM_DETECTORS["channel"](k3, "<|open|>response<|sep|>Hi<|close|>response<|sep|>")
    assert not FORM_DETECTORS["channel"](k3, "<|open|>tools<|sep|><|close|>tools<|sep|>")
    q = dict(tp_spec.get_spec("qwen3_coder").markers)
    assert _bare(q, "<function=f>\n</function>")
    assert not _bare(q, "<tool_call>\n<function=f>\n</function>\n</tool_call>")

"""Special tokens with a per-checkpoint suffix (spec "token_suffix"; toolparse.with_token_suffix):
Tencent's shipping Hy3 tokenizer writes <tool_calls:opensource>, <arg_key:opensource>,
<think:opensource>... where hy_v3 (and the preview checkpoint) has the bare tokens; Hy4 checkpoints
a hash. The variant is derived from the spec and registered at run time; both backends read it,
streaming under random splits as non-streaming; the bare tokens stay hy_v3's; detection finds it.

Run by ``test_token_suffix.py`` in a fresh interpreter: a variant stays registered for the process,
and the other tests count the registered formats."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import helpers
import pytest
import toolparse
from toolparse import spec as _spec
from toolparse import testing, token_suffix_from_vocab, with_token_suffix

BACKENDS = ["rust", "python"]
HY3 = Path(__file__).parent / "fixtures" / "templates" / "llama.cpp" / "tencent-Hy3.jinja"
SUFFIX = ":opensource"
# every tag of Hy3's tool-call and think markup, as the template spells it (its `set` lines)
HY3_TAGS = ("tool_calls", "tool_call", "tool_sep", "arg_key", "arg_value", "think")


def _random_splits(text: str, n: int, seed: int):
    rnd = random.Random(seed)
    for _ in range(n):
        cuts = sorted(rnd.sample(range(1, len(text)), min(len(text) - 1, rnd.randint(1, 12))))
        yield [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def test_the_spec_field_is_on_the_hunyuan_formats_only():
    flagged = sorted(n for n, s in _spec.SPECS.items() if s.token_suffix and "-" not in n)
    assert flagged == ["hy_v3", "hy_v4"]
    rflagged = sorted(n for n, r in _spec.REASONING.items() if r.token_suffix and "-" not in n)
    assert rflagged == ["hy_v3", "hy_v4"]


def test_the_variant_writes_every_tag_with_the_suffix():
    name = with_token_suffix("hy_v3", SUFFIX)
    assert name == "hy_v3-opensource"
    assert with_token_suffix("hy_v3", SUFFIX) == name  # idempotent
    assert with_token_suffix("hunyuan", SUFFIX) == name  # an alias of hy_v3
    v, base = _spec.SPECS[name], _spec.SPECS["hy_v3"]
    for role, marker in base.markers.items():
        assert v.markers[role] == re.sub(r"<(/?)(\w+)>", r"<\1\2:opensource>", marker)
    assert v.special_tokens == tuple(t[:-1] + SUFFIX + ">" for t in base.special_tokens)
    assert v.grammar.trigger == "<tool_calls:opensource>"
    assert v.aliases == () and v.models == () and not v.token_suffix
    assert v.family == base.family and v.arguments == base.arguments
    text = json.dumps([v.markers, v.special_tokens, v.samples, v.grammar.trigger])
    for tag in HY3_TAGS:
        assert f"<{tag}>" not in text and f"</{tag}>" not in text
    r = _spec.REASONING[name]
    assert (r.start, r.end, r.call_starts) == (
        "<think:opensource>",
        "</think:opensource>",
        ("<tool_calls:opensource>",),
    )
    assert r.started is _spec.REASONING["hy_v3"].started
    assert with_token_suffix("hy_v3", SUFFIX, reasoning=True) == name
    # a plain format keeps answering the model's id
    assert toolparse.format_for_model("tencent/Hy3-preview") == "hy_v3"


def test_names_of_other_suffixes():
    assert with_token_suffix("hy_v4", ":6124c78e") == "hy_v4-6124c78e"
    odd = with_token_suffix("hy_v3", ":Open/Source")
    assert re.fullmatch(r"hy_v3-open-source-[0-9a-f]{8}", odd)
    # two suffixes that would spell the same name get two names
    assert with_token_suffix("hy_v3", ":open-source") != odd
    assert _spec.SPECS[odd].markers["call_start"] == "<tool_calls:Open/Source>"


@pytest.mark.parametrize(
    "name, suffix, match",
    [
        ("hermes", ":x", "format 'hermes': .*no token suffix"),
        ("hy_v3", "opensource", "format 'hy_v3': token suffix 'opensource'"),
        ("hy_v3", ":", "format 'hy_v3': token suffix"),
        ("hy_v3", ": x", "format 'hy_v3': token suffix"),
        ("hy_v3", ":a>b", "format 'hy_v3': token suffix"),
        ("hy_v3", ":a\nb", "format 'hy_v3': token suffix"),
        ("no_such_format", ":x", "unknown tool-call format"),
    ],
)
def test_bad_suffixes_and_formats_are_refused(name, suffix, match):
    with pytest.raises(ValueError, match=match):
        with_token_suffix(name, suffix)


def test_reasoning_variants_need_the_field_and_a_namesake():
    with pytest.raises(ValueError, match="reasoning format 'qwen3'.*no token suffix"):
        with_token_suffix("qwen3", SUFFIX, reasoning=True)
    with pytest.raises(TypeError):
        with_token_suffix("hy_v3", None)  # type: ignore[arg-type]


def test_an_empty_suffix_is_the_format_itself():
    assert with_token_suffix("hy_v3", "") == "hy_v3"
    assert with_token_suffix("hunyuan", "") == "hunyuan"
    assert with_token_suffix("hermes", "") == "hermes"


def test_the_suffix_from_a_vocabulary():
    bare = ["<tool_calls>", "</tool_calls>", "<tool_call>", "hello", "<think>"]
    assert token_suffix_from_vocab("hy_v3", bare) == ""
    hy3 = ["a", "<｜hy_eos:opensource｜>", "<arg_key:opensource>", "<tool_calls:opensource>"]
    assert token_suffix_from_vocab("hy_v3", hy3) == SUFFIX
    assert token_suffix_from_vocab("hy_v3", {"<think:opensource>": 1}, reasoning=True) == SUFFIX
    # the spec's first special token decides: <tool_calls> before <arg_key>
    mixed = ["<arg_key:x>", "<tool_calls:opensource>"]
    assert token_suffix_from_vocab("hy_v3", mixed) == SUFFIX
    assert token_suffix_from_vocab("hy_v4", ["<tool_call:6124c78e>", "<tool_call>"]) == ":6124c78e"
    # a token of another format, a token with a space, a format without the field
    assert token_suffix_from_vocab("hy_v3", ["<tool_response:opensource>", "<tool_calls: x>"]) == ""
    assert token_suffix_from_vocab("hermes", ["<tool_call:opensource>"]) == ""


def _hy3_turn(**turn):
    from toolparse.chat_template import render_assistant

    tools = [
        helpers.tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}),
        helpers.tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}),
    ]
    r = render_assistant(HY3.read_text(), tools=tools, **turn)
    return tools, r.text


CALLS = [
    ("write_file", {"path": "notes/todo.md", "content": '- milk\n- <b>bold</b> & "Bob"'}),
    ("get_weather", {"city": "Paris", "days": 3}),
]


def _tool_calls():
    return [
        {"type": "function", "function": {"name": n, "arguments": a}, "id": f"call{i:05d}"}
        for i, (n, a) in enumerate(CALLS)
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_variant_reads_the_hy3_templates_render(backend):
    pytest.importorskip("jinja2")
    tools, text = _hy3_turn(content="Let me check.", tool_calls=_tool_calls())
    assert "<tool_calls:opensource>" in text and "<arg_value:opensource>" in text
    name = with_token_suffix("hy_v3", SUFFIX)
    parser = toolparse.get_parser(name, tools=tools, backend=backend)
    splits = [[text], list(text), *_random_splits(text, 60, seed=3)]
    helpers.check(parser, text, "Let me check.", CALLS, chunkings=splits)
    # the bare format reads none of it
    plain = toolparse.get_parser("hy_v3", tools=tools, backend=backend).extract_tool_calls(text)
    assert plain.tool_calls == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_reasoning_variant_reads_the_hy3_templates_think_block(backend):
    pytest.importorskip("jinja2")
    # the prompt (thinking off) ends with an empty block, which the turn's render fills: the
    # turn past the shared part starts inside the block
    tools, text = _hy3_turn(reasoning="Which city?", tool_calls=_tool_calls(), prefix="common")
    assert text.startswith("Which city?</think:opensource><tool_calls:opensource>")
    name = with_token_suffix("hy_v3", SUFFIX)
    for started, out in ((True, text), (False, "<think:opensource>" + text)):
        parser = toolparse.get_parser(
            name, tools=tools, backend=backend, reasoning=name, reasoning_started=started
        )
        splits = [[out], *_random_splits(out, 60, seed=4)]
        helpers.check(parser, out, None, CALLS, reasoning="Which city?", chunkings=splits)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bare_tokens_stay_hy_v3s(backend):
    sample = _spec.SPECS["hy_v3"].samples[0]
    want = [
        ("write_file", {"path": "notes/todo.md", "content": '- buy milk\n- call "Bob"'}),
        ("get_weather", {"city": "Paris", "days": "3"}),
    ]
    info = toolparse.get_parser("hy_v3", backend=backend).extract_tool_calls(sample)
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == want
    v = toolparse.get_parser(with_token_suffix("hy_v3", SUFFIX), backend=backend)
    assert v.extract_tool_calls(sample).tool_calls == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_kit_passes_for_the_variants(backend):
    for base, suffix in (("hy_v3", SUFFIX), ("hy_v4", ":6124c78e")):
        name = with_token_suffix(base, suffix)
        cases = testing.cases(name)
        assert cases and any(suffix in c.model_output for c in cases)
        report = testing.check(name, cases, backend=backend, n_random=1)
        assert report.ok, report.failures[:3]


def test_the_structural_tag_of_the_variant_holds_the_suffixed_tokens():
    name = with_token_suffix("hy_v3", SUFFIX)
    tools = [helpers.tool("get_weather", {"city": {"type": "string"}})]
    tag = json.dumps(toolparse.structural_tag(name, tools, tool_choice="required"))
    assert "<tool_calls:opensource>" in tag and "<tool_call:opensource>" in tag
    assert "<tool_calls>" not in tag


def test_a_registered_format_may_carry_the_field():
    doc = json.loads((_spec.FOLDER / "hy_v4.json").read_text())
    doc["spec"].update(name="suffix_probe_fmt", aliases=[], models=[])
    doc["reasoning"] = {
        "name": "suffix_probe_fmt", "aliases": [], "token_suffix": True, "start": "<think>",
        "end": "</think>", "started": False, "unclosed": "reasoning", "call_ends_block": True,
        "call_starts": ["<tool_calls>"],
    }  # fmt: skip
    assert toolparse.register_format(doc) == "suffix_probe_fmt"
    assert _spec.SPECS["suffix_probe_fmt"].token_suffix
    name = with_token_suffix("suffix_probe_fmt", ":abc")
    assert _spec.SPECS[name].markers["function_start"] == "<tool_call:abc>"
    assert _spec.REASONING[name].start == "<think:abc>"
    text = "<think:abc>r</think:abc><tool_calls:abc><tool_call:abc>f<arg_key:abc>a</arg_key:abc>"
    text += "<arg_value:abc>1</arg_value:abc></tool_call:abc></tool_calls:abc>"
    for backend in BACKENDS:
        p = toolparse.get_parser(name, backend=backend, reasoning=name, reasoning_started=False)
        helpers.check(p, text, None, [("f", {"a": "1"})], reasoning="r")
    bad = json.loads((_spec.FOLDER / "hy_v4.json").read_text())
    bad["spec"].update(name="suffix_probe_bad", aliases=[], models=[], token_suffix="yes")
    with pytest.raises(ValueError, match="token_suffix"):
        toolparse.register_format(bad)


def _detect(name: str, **kw):
    from toolparse import detect_format

    text = (HY3.parent / f"{name}.jinja").read_text()
    return detect_format(text, bos_token="<s>", eos_token="</s>", seed=7, **kw)


def test_detection_of_a_template_writing_suffixed_tokens():
    # Hy3 writes every special token with its checkpoint's suffix: detection tries the suffixed
    # variant of each format whose spec allows one, and reports the plain name and the suffix
    pytest.importorskip("jinja2")
    d = _detect("tencent-Hy3", model="tencent/Hy3")
    assert (d.format, d.reasoning, d.reasoning_started) == ("hy_v3", "hy_v3", False)
    assert d.token_suffix == SUFFIX and d.candidates == ("hy_v3",)
    name = with_token_suffix(d.format, d.token_suffix)
    for backend in BACKENDS:
        parser = toolparse.get_parser(name, backend=backend)
        calls = [parser.extract_tool_calls(t).tool_calls for p, t in d.evidence if p != "no call"]
        assert calls and all(calls)
    # a template with bare tokens has none
    assert _detect("Qwen-Qwen3-0.6B").token_suffix == ""


def test_cli_prints_the_token_suffix(capsys):
    pytest.importorskip("jinja2")
    from toolparse.cli import main

    assert main(["detect", "--template", str(HY3), "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "format: hy_v3\n" in out and "token suffix: :opensource\n" in out
    assert main(["detect", "--template", str(HY3), "--json", "--seed", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["token_suffix"] == SUFFIX

"""infer_format on synthetic templates: vendored templates with their markers renamed (no
registered format reads them), inferred in each family's fitter and read back on both backends;
the simpler-probe and empty-call-start guards. The shared helpers are tests/test_infer.py's."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("jinja2")

from test_infer import _in_child, _infer, _prove_in_child, _read_with, _text  # noqa: E402
from toolparse import detect_format  # noqa: E402
from toolparse import probes as _probes  # noqa: E402

# ---- synthetic templates: markers renamed, no registered format reads them ----

RENAMED = {
    "tagged_json": (
        "Qwen-Qwen2.5-7B-Instruct",
        [("<tool_call>", "<invoke_x>"), ("</tool_call>", "</invoke_x>")],
    ),
    "xml_params": (
        "Qwen3-Coder",
        [
            ("<tool_call>", "<act>"),
            ("</tool_call>", "</act>"),
            ("<function=", "<fn:"),
            ("</function>", "</fn>"),
        ],
    ),
    "named_json": (
        "moonshotai-Kimi-K2",
        [("<|tool_calls_section_begin|>", "<|acts|>"), ("<|tool_calls_section_end|>", "<|/acts|>")],
    ),
    "functiongemma": (
        "google-gemma-4-31B-it",
        [("<|tool_call>", "<|act>"), ("<tool_call|>", "<act|>")],
    ),
    "functionary": (
        "meetkai-functionary-medium-v3.1",
        [("<function=", "<act:"), ("</function>", "</act>")],
    ),
    "muse": (
        "muse-glimmer",
        [
            ("<|message|>", "<|msg|>"),
            ("<|eom|>", "<|em|>"),
            ("atem:", "tk:"),
            ("to=self", "to=inner"),
        ],
    ),
    "openai": (
        "openai-gpt-oss-120b",
        [
            ("<|call|>", "<|invoke|>"),
            ("<|message|>", "<|msg|>"),
            ("<|return|>", "<|done|>"),
            ('"functions." + tool_call.name', '"tools." + tool_call.name'),
        ],
    ),
    "pythonic": (
        "LFM2.5-8B-A1B",
        [("<|tool_call_start|>", "<|do|>"), ("<|tool_call_end|>", "<|done|>")],
    ),
    "xml_elements": (
        "MiniMax-M3",
        [("]<]minimax[>[", "]<]acme[>["), ("<tool_call>", "<acts>"), ("</tool_call>", "</acts>")],
    ),
}


@pytest.mark.parametrize("family", sorted(RENAMED))
def test_renamed_markers_are_inferred(family):
    source, renames = RENAMED[family]
    text = _text(source)
    for old, new in renames:
        assert old in text
        text = text.replace(old, new)
    detected = detect_format(text, seed=5)
    assert detected.format is None and detected.reason, detected
    doc = _infer(source, template=text)
    assert doc["spec"]["family"] == family
    kept = list(doc["spec"]["markers"].values())
    for _, new in renames:
        recipient = new.startswith(("to=", '"tools.'))  # a recipient, checked below
        assert any(new in m for m in kept) or family == "xml_params" or recipient, (new, kept)
    # the renamed markers are the ones kept, not the registered format's
    for old, _ in renames:
        assert old not in kept
    if family == "muse":  # the reasoning recipient too, and the entry names the format
        assert doc["spec"]["call"]["recipients"]["reasoning"] == ["inner"]
        assert doc["reasoning"]["tool_format"] == doc["spec"]["name"]
    if family == "openai":  # the function prefix, and the stop token as the final's end
        assert doc["spec"]["call"]["name_prefix"] == "tools."
        assert doc["spec"]["markers"]["return"] == "<|done|>"
        assert doc["reasoning"]["tool_format"] == doc["spec"]["name"]


# Llama 3.2's single call, rewritten to write every call, separated by " | " (the family's ";"
# renamed): the registered llama3_json reads the first call only
_LLAMA_ONE_CALL = r"""        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
        {{- '{"name": "' + tool_call.name + '", ' }}
        {{- '"parameters": ' }}
        {{- tool_call.arguments | tojson }}
        {{- "}" }}
"""
_LLAMA_CALLS = r"""        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
        {%- for tc in message.tool_calls %}
            {%- if not loop.first %}{{- ' | ' }}{%- endif %}
            {{- '{"name": "' + tc.function.name + '", "parameters": ' }}
            {{- tc.function.arguments | tojson }}
            {{- "}" }}
        {%- endfor %}
"""


def test_renamed_separator_is_inferred_for_bare_json_calls():
    text = _text("meta-llama-Llama-3.2-3B-Instruct")
    assert _LLAMA_ONE_CALL in text
    text = text.replace(_LLAMA_ONE_CALL, _LLAMA_CALLS)
    detected = detect_format(text, seed=5)
    assert detected.format is None and detected.reason, detected
    doc = _infer("meta-llama-Llama-3.2-3B-Instruct", template=text)
    assert doc["spec"]["family"] == "llama3_json"
    assert doc["spec"]["markers"] == {"call_start": "", "object_start": "{", "separator": "|"}
    two = '{"name": "f", "parameters": {"a": 1}} | {"name": "g", "parameters": {}}'
    for per_backend in _read_with(doc, [(two, None, None)])[0]:
        assert per_backend[0] == [["f", {"a": 1}], ["g", {}]]


def test_renamed_newline_section_is_inferred():
    """MiniMax-M1's section of call objects one per line, its tags renamed (no registered
    format reads them): tagged_json with ``calls`` "newline", the renamed tags kept."""
    text = _text("MiniMax-M1").replace("<tool_calls>", "<acts>").replace("</tool_calls>", "</acts>")
    assert "<acts>" in text and "tool_calls>" not in text
    detected = detect_format(text, seed=5)
    assert detected.format is None and detected.reason, detected
    doc = _infer("MiniMax-M1", template=text)
    assert doc["spec"]["family"] == "tagged_json" and doc["spec"]["calls"] == "newline"
    assert doc["spec"]["markers"] == {"call_start": "<acts>", "call_end": "</acts>"}
    two = '<acts>\n{"name": "f", "arguments": {"a": 1}}\n{"name": "g", "arguments": {}}\n</acts>'
    for per_backend in _read_with(doc, [(two, None, None)])[0]:
        assert per_backend[0] == [["f", {"a": 1}], ["g", {}]]


def test_renamed_attribute_tags_are_inferred():
    """Kimi K3's XTML with its separator token and attribute names renamed: the attribute that
    counts the calls is skipped up to the tag's end, the typed heads are spelled from the renamed
    attribute, and three calls with typed values read back on both backends."""
    text = _text("Kimi-K3")
    renames = [
        ("'<|sep|>'", "'<|end_tag|>'"),
        ("('tool', fn.name), ('index', loop.index)", "('fn', fn.name), ('seq', loop.index)"),
        ("('type', xtml_type(value))", "('kind', xtml_type(value))"),
    ]
    for old, new in renames:
        assert old in text
        text = text.replace(old, new)
    detected = detect_format(text, seed=5)
    assert detected.format is None and detected.reason, detected
    doc = _infer("Kimi-K3", template=text)
    spec = doc["spec"]
    assert spec["family"] == "xml_params"
    m = spec["markers"]
    assert (m["function_start"], m["function_name_end"]) == ('<|open|>call fn="', '"')
    assert m["function_attrs_end"] == "<|end_tag|>"
    assert spec["grammar"]["function_attrs"] == ' seq="[0-9]+"'
    heads = {v for k, v in m.items() if k.startswith("parameter_json")}
    assert '" kind="object"<|end_tag|>' in heads and '" kind="boolean"<|end_tag|>' in heads
    assert m["parameter_string"] == '" kind="string"<|end_tag|>'
    assert not any("<|sep|>" in v for v in m.values())
    call = '<|open|>call fn="{}" seq="{}"<|end_tag|>{}<|close|>call<|end_tag|>'
    arg = '<|open|>argument key="{}" kind="{}"<|end_tag|>{}<|close|>argument<|end_tag|>'
    body = (
        "<|open|>response<|end_tag|>Hi<|close|>response<|end_tag|><|open|>tools<|end_tag|>"
        + call.format("f", 1, arg.format("a", "string", "x y") + arg.format("b", "boolean", "true"))
        + call.format("g", 2, "")
        + call.format("f", 12, arg.format("c", "array", "[1, 2]"))
        + "<|close|>tools<|end_tag|><|close|>message<|end_tag|>"
    )
    want = [["f", {"a": "x y", "b": True}], ["g", {}], ["f", {"c": [1, 2]}]]
    for per_backend in _read_with(doc, [(body, None, None)])[0]:
        assert per_backend[:2] == [want, "Hi"]


def test_typed_heads_only_where_the_heads_name_json_types():
    from toolparse.infer.fit_xml import _typed_heads

    assert _typed_heads('" string="true">', '" string="false">') == {}  # DSML
    heads = _typed_heads("' t='string'>", "' t='integer'>")
    assert heads["parameter_json_2"] == "' t='number'>" and len(heads) == 5


def test_a_render_reads_as_the_simpler_probe_it_equals():
    """gpt-oss writes the first of two calls only, and a call turn's content on the analysis
    channel: those probes become the probe the render equals (one call; the content as
    reasoning), and the spec notes say so. Qwen 2.5 writes every call and its content as
    content: its probes stay as they are."""
    common = dict(bos_token="<s>", eos_token="</s>", enable_thinking=True, thinking=True)
    for name, changed in (("openai-gpt-oss-120b", True), ("Qwen-Qwen2.5-7B-Instruct", False)):
        tools, rendered, _, _ = _probes.render_probes(_text(name), random.Random(3), common)
        shown, lost = _probes.as_shown(_text(name), tools, rendered, common)
        by_name = {p.name: (p, q) for (p, _), (q, _) in zip(rendered, shown)}
        two, two_shown = by_name["two calls"]
        both, both_shown = by_name["content then a call"]
        if changed:
            assert two_shown.calls == two.calls[:1] and len(two.calls) == 2
            assert (both_shown.content, both_shown.reasoning) == (None, both.content)
            assert dict(lost) == {
                "two calls": "writes the first call of a turn only",
                "content then a call": "writes a call turn's content as its reasoning",
            }
        else:
            assert shown == rendered and lost == []
    doc = _infer("openai-gpt-oss-120b")
    assert "first call of a turn only" in doc["notes"]


def test_the_proof_still_refuses_a_misreading_of_gpt_oss():
    """The inferred harmony spec proves on what the renders show; demanding the content of a call
    turn as content (which the template writes on the analysis channel) or two calls where one
    is written still fails the proof."""

    doc = _infer("openai-gpt-oss-120b")
    call = ' to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>'
    text = "<|channel|>analysis<|message|>Some words.<|end|><|start|>assistant" + call
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    right = [text, [["f", {"a": 1}]], "", "Some words.", None]
    checks = {
        "right": [right],
        "content": [[text, [["f", {"a": 1}]], "Some words.", "", None]],
        "two": [[text, [["f", {"a": 1}], ["f", {"a": 1}]], "", "Some words.", None]],
    }
    for what, rows in checks.items():
        (why,) = _prove_in_child([doc], tools, rows)
        assert (why == "") == (what == "right"), (what, why)


_EMPTY_MARKER = r"""
import json, random, sys
from toolparse import register_format
from toolparse.parser import ToolParser
from toolparse.reconstruct import StreamingToolReconstructor
doc = json.load(sys.stdin)
name = register_format(doc)
rng = random.Random(4)
pieces = ['{"name": "f", "parameters": {"a": 1}}', '; ', ' ', 'text ', '{', '}', '{"x": 2}',
          '<|python_tag|>', '\n', '{"name": "g", "arguments": {}}']
out = []
for _ in range(150):
    s = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
    row = [s]
    for backend in ("rust", "python"):
        p = ToolParser(name, backend=backend)
        got = p.extract_tool_calls(s)
        stream, rec = p.stream(), StreamingToolReconstructor()
        for d in [stream.feed(ch) for ch in s] + [stream.finish()]:
            if d is not None:
                rec.append_delta(d)
        streamed = [c.function.name for c in rec.to_extracted().tool_calls]
        row.append([[c.function.name for c in got.tool_calls], got.content, streamed])
    out.append(row)
json.dump(out, sys.stdout)
"""


def test_an_empty_call_start_is_never_found_on_both_backends():
    """A llama3_json format with the empty call start (what inference writes for bare JSON
    calls): both backends read bare objects as calls and agree on every text, whole and
    streamed (a malformed text's first call may stream before the whole reads the text as
    content: the registered llama3_json does the same)."""

    doc = _infer("meta-llama-Llama-3.2-3B-Instruct")
    rows = json.loads(_in_child(_EMPTY_MARKER, json.dumps(doc)))
    for s, rust, python in rows:
        assert rust == python, s  # whole and streamed, the same on both backends
    assert any(r[1][0] == ["f"] for r in rows if r[0].startswith('{"name": "f"'))

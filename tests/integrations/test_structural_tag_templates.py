"""The grammar admits what the models' own chat templates write (checked with xgrammar 0.2.8, as in
test_structural_tag.py), and the parser reads it back the same on both backends:

* every tool format and reasoning format pair the servers accept compiles;
* cohere's action lists as the vendored templates lay them out, after the think block the
  format's default reasoning reads;
* pretty-printed JSON (``tojson(indent=4)``) in every JSON format, at every nesting depth;
* beam's parameters sorted by name (SGLang's beam detector writes them so) beside schema order;
* gigachat3's call ending at ``}`` or with the template's ``<|message_sep|>``;
* mistral's pre-v11 list beside ``[TOOL_CALLS]name[ARGS]{...}``.

The templates are rendered with jinja2 as transformers renders them (``trim_blocks`` and
``lstrip_blocks``) and as a plain jinja2 environment does (without them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in

import jinja2  # noqa: E402
import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from test_structural_tag import (  # noqa: E402
    BACKENDS,
    FORMATS,
    admits,
    compile_tag,
    template_cases,
    tools_of,
)
from toolparse import spec as tp_spec  # noqa: E402
from toolparse.integrations.reasoning import pairs  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "llama.cpp"

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "where": {
            "type": "object",
            "properties": {
                "lat": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
    "required": ["city"],
}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}},
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                # schema order is not name order
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]
PARIS = {"city": "Paris", "days": 3, "where": {"lat": 48.85, "tags": ["fr", "eu"]}}
ROME = {"city": "Rome"}
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def tag_for(fmt: str, choice: Any = "required", parallel: bool = True, **kw: Any) -> Any:
    tag = toolparse.structural_tag(
        fmt, TOOLS, tool_choice=choice, strict="parameter", parallel_tool_calls=parallel, **kw
    )
    assert tag is not None
    return compile_tag(tag)


def parsed(fmt: str, text: str, backend: str) -> List[Tuple[str, Any]]:
    """The calls of ``text`` (name, arguments as data), non-streaming; streaming in 5-character
    pieces gives the same."""
    parser = toolparse.get_parser(fmt, tools=TOOLS, backend=backend)
    info = parser.extract_tool_calls(text)
    whole = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
    rec = toolparse.StreamingToolReconstructor()
    stream = parser.stream()
    for i in range(0, len(text), 5):
        d = stream.feed(text[i : i + 5])
        if d is not None:
            rec.append_delta(d)
    d = stream.finish()
    if d is not None:
        rec.append_delta(d)
    streamed = [(c.function.name, json.loads(c.function.arguments)) for c in rec.tool_calls]
    assert whole == streamed, f"{backend}: streaming differs on {text!r}"
    assert not (info.content or "").strip(), f"{backend}: content {info.content!r} in {text!r}"
    return whole


def check_admitted(fmt: str, text: str, calls: Sequence[Tuple[str, Any]]) -> None:
    """``text`` (calls to get_weather) is admitted under required and auto; one call under named
    and with parallel_tool_calls=False, two not; both backends parse ``calls`` from it."""
    for backend in BACKENDS:
        assert parsed(fmt, text, backend) == list(calls), backend
    assert admits(tag_for(fmt), text), f"required rejects {text!r}"
    assert admits(tag_for(fmt, "auto"), text), f"auto rejects {text!r}"
    one = len(calls) == 1
    assert admits(tag_for(fmt, NAMED), text) == one, f"named: {text!r}"
    assert admits(tag_for(fmt, parallel=False), text) == one, f"one call only: {text!r}"
    other = {"type": "function", "function": {"name": "write_file"}}
    assert not admits(tag_for(fmt, other), text), f"named write_file admits {text!r}"


def render(template: str, calls: Sequence[Tuple[str, Any]], trim: bool, **extra: Any) -> str:
    """The prompt for a conversation whose assistant turn made ``calls``."""

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    env = jinja2.Environment(
        trim_blocks=trim, lstrip_blocks=trim, extensions=["jinja2.ext.loopcontrols"]
    )
    env.globals["raise_exception"] = raise_exception
    env.filters["tojson"] = lambda v, indent=None, **_: json.dumps(
        v, indent=indent, ensure_ascii=False
    )
    tool_calls = [
        {
            "id": f"call{k}abcd",  # 9 characters: mistral's templates insist
            "type": "function",
            "function": {"name": name, "arguments": args},
        }
        for k, (name, args) in enumerate(calls)
    ]
    messages = [
        {"role": "user", "content": "What is the weather?"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "I should call.",
            "tool_calls": tool_calls,
        },
        *[{"role": "tool", "tool_call_id": c["id"], "content": "sunny"} for c in tool_calls],
    ]
    t = env.from_string((TEMPLATES / template).read_text())
    return t.render(
        messages=messages,
        tools=TOOLS,
        add_generation_prompt=True,
        bos_token="<s>",
        eos_token="</s>",
        **extra,
    )


def between(text: str, start: str, end: str) -> str:
    """The first piece of ``text`` from ``start`` through ``end`` (both included)."""
    i = text.index(start)
    return text[i : text.index(end, i + len(start)) + len(end)]


# ----- every pair compiles -----


def reasoning_pairs() -> List[Tuple[str, str]]:
    return [
        (f, r)
        for f in FORMATS
        for r in tp_spec.list_reasoning_formats(aliases=False)
        if pairs(r, f)
    ]


def test_every_tool_and_reasoning_pair_compiles() -> None:
    """Each pair the servers accept, under required (auto where it constrains), with the think
    block opened by the prompt, not, and as the reasoning format says: a tag xgrammar compiles."""
    failed = []
    for fmt, r in reasoning_pairs():
        for started in (None, True, False):
            for choice in ("required", "auto"):
                try:
                    tag = toolparse.structural_tag(
                        fmt,
                        TOOLS,
                        tool_choice=choice,
                        strict="parameter",
                        reasoning=r,
                        reasoning_started=started,
                    )
                    if tag is not None:
                        compile_tag(tag)
                except (
                    ValueError,
                    RuntimeError,
                    xgrammar.exception.InvalidStructuralTagError,
                ) as e:
                    failed.append((fmt, r, started, choice, str(e)[:80]))
    assert not failed, failed[:5]


@pytest.mark.parametrize("fmt", ["openai", "inkling", "muse", "muse_glimmer", "beam"])
def test_channel_reasoning_adds_nothing_to_the_tag(fmt: str) -> None:
    """A channel format's own reasoning format has no think block of its own: the tag is the
    format's, whose grammar already carries the reasoning."""
    r = next(r for f, r in reasoning_pairs() if f == fmt and tp_spec.REASONING[r].tool_format)
    for choice in ("required", "auto", NAMED):
        plain = toolparse.structural_tag(fmt, TOOLS, tool_choice=choice, strict="parameter")
        assert (
            toolparse.structural_tag(
                fmt, TOOLS, tool_choice=choice, strict="parameter", reasoning=r
            )
            == plain
        )


# ----- cohere -----

COHERE_TEMPLATES = ["CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja", "Cohere2MoE.jinja"]


def cohere_turn(template: str, calls: Sequence[Tuple[str, Any]], trim: bool) -> str:
    """The assistant turn the template writes: the think block, then the action."""
    text = render(template, calls, trim, enable_thinking=True, reasoning=True)
    return between(text, "<|START_THINKING|>I should call.", "<|END_ACTION|>")


@pytest.mark.parametrize("fmt", ["cohere_command3", "cohere_command4"])
@pytest.mark.parametrize("template", COHERE_TEMPLATES)
@pytest.mark.parametrize("trim", [True, False])
def test_cohere_actions_as_the_templates_write_them(fmt: str, template: str, trim: bool) -> None:
    for calls in ([("get_weather", PARIS)], [("get_weather", PARIS), ("get_weather", ROME)]):
        turn = cohere_turn(template, calls, trim)
        action = turn[turn.index("<|START_ACTION|>") :]
        assert re.search(r"\[\n[ \n]*\{", action), action  # the template's layout
        check_admitted(fmt, turn, calls)
        check_admitted(fmt, action, calls)  # the think block may be left out
        for backend in BACKENDS:
            info = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).extract_tool_calls(turn)
            assert info.reasoning == "I should call.", backend


@pytest.mark.parametrize("fmt", ["cohere_command3", "cohere_command4"])
def test_cohere_layouts_named_in_the_issue(fmt: str) -> None:
    one = json.dumps({"tool_call_id": "0", "tool_name": "get_weather", "parameters": PARIS})
    for layout in ("[\n    {}\n\n]", "[\n\n    {}\n]", "[\n    \n    {}\n\n    \n    \n]"):
        text = "<|START_ACTION|>" + layout.format(one) + "<|END_ACTION|>"
        check_admitted(fmt, text, [("get_weather", PARIS)])
    # the think block is the only text before the action under required
    g = tag_for(fmt)
    action = "<|START_ACTION|>[" + one + "]<|END_ACTION|>"
    assert not admits(g, "Let me check." + action)
    assert not admits(g, "<|START_THINKING|>plan<|END_THINKING|>")  # no call
    assert not admits(g, "<|START_RESPONSE|>x<|END_RESPONSE|>" + action)
    # under auto, text is as free as it was without the block (its markers are text there)
    auto = tag_for(fmt, "auto")
    assert admits(auto, "<|START_RESPONSE|>Hi.<|END_RESPONSE|>")
    assert admits(auto, "Hi. <|START_THINKING|>x<|END_THINKING|>" + action)


# ----- pretty-printed JSON -----

JSON_FAMILIES = ("tagged_json", "llama3_json", "named_json", "inkling", "functionary")


def json_formats() -> List[str]:
    out = []
    for f in FORMATS:
        s = tp_spec.get_spec(f)
        if s.family in JSON_FAMILIES and s.call.shape != "tagged_header_args":
            out.append(f)
    return out


def pretty(text: str) -> Optional[str]:
    """``text`` with each outermost JSON object or list re-written by ``json.dumps(indent=4)``
    (None: no JSON in it)."""
    dec = json.JSONDecoder()
    out, i, found = [], 0, False
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = dec.raw_decode(text, i)
            except ValueError:
                value, end = None, -1
            if end > 0 and isinstance(value, (dict, list)) and value:
                out.append(json.dumps(value, indent=4, ensure_ascii=False))
                i, found = end, True
                continue
        out.append(text[i])
        i += 1
    return "".join(out) if found else None


@pytest.mark.parametrize("fmt", json_formats())
def test_pretty_printed_json_is_admitted(fmt: str) -> None:
    """Every calls-only case of a JSON format, its JSON indented by 4 at every level (the calls'
    list, the call objects, the arguments and the values nested in them)."""
    cases = [c for c in template_cases(fmt) if pretty(c.text) is not None]
    assert cases
    tools = list(tools_of(fmt))
    required = compile_tag(
        toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
    )
    deep = 0
    for c in cases:
        text = pretty(c.text)
        assert text is not None
        deep = max(deep, max(len(m) for m in re.findall(r"\n *", text)))
        assert admits(required, text), f"{c.label}: {text!r}"
        want = [(x.name, json.loads(x.arguments)) for x in c.tool_calls]
        for backend in BACKENDS:
            info = toolparse.get_parser(fmt, tools=tools, backend=backend).extract_tool_calls(text)
            got = [(x.function.name, json.loads(x.function.arguments)) for x in info.tool_calls]
            assert got == want, f"{backend}: {c.label}: {text!r}"
    assert deep >= 9, "no case nests its JSON"


@pytest.mark.parametrize("depth", [1, 2, 4, 8])
def test_jamba_pretty_prints_at_every_depth(depth: int) -> None:
    """jamba's calls as ``tojson(indent=4)`` writes the list, arguments nested ``depth`` containers
    deep (8: the bound's depth); a run of whitespace past the bound (41) is rejected."""
    schema: Dict[str, Any] = {"type": "string"}
    value: Any = "x"
    for _ in range(depth - 1):
        schema = {"type": "object", "properties": {"k": schema}, "required": ["k"]}
        value = {"k": value}
    schema = {"type": "object", "properties": {"k": schema}, "required": ["k"]}
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    body = json.dumps([{"name": "f", "arguments": {"k": value}}], indent=4)
    assert max(len(m) for m in re.findall(r"\n *", body)) == 1 + 4 * (2 + depth)
    text = "<tool_calls>" + body + "</tool_calls>"
    g = compile_tag(toolparse.structural_tag("jamba", tools, tool_choice="required"))
    assert admits(g, text), text
    for backend in BACKENDS:
        info = toolparse.get_parser("jamba", tools=tools, backend=backend).extract_tool_calls(text)
        assert [json.loads(c.function.arguments) for c in info.tool_calls] == [{"k": value}]
    # the first line inside the arguments indented past the bound
    inside = body.index('"k"')
    past = body[:inside].rstrip(" ") + " " * 41 + body[inside:]
    assert not admits(g, "<tool_calls>" + past + "</tool_calls>")
    assert admits(g, "<tool_calls>" + past.replace(" " * 41, " " * 40, 1) + "</tool_calls>")


# ----- beam -----


def beam_call(name: str, args: Dict[str, str], order: Sequence[str]) -> str:
    params = "".join(f'<rfl:parameter name="{k}">\n{args[k]}\n</rfl:parameter>' for k in order)
    return (
        f"<|start|>assistant to={name}<|channel|>analysis <|constrain|>xml<|message|>"
        f"{params}<|call|>"
    )


def test_beam_parameters_sorted_by_name_or_in_schema_order() -> None:
    args = {"path": "notes.md", "content": "- milk"}
    schema_order, by_name = (
        beam_call("write_file", args, ["path", "content"]),
        beam_call("write_file", args, ["content", "path"]),
    )
    named = {"type": "function", "function": {"name": "write_file"}}
    for text in (schema_order, by_name):
        for backend in BACKENDS:
            assert parsed("beam", text, backend) == [("write_file", args)], backend
        for choice in ("required", "auto", named):
            assert admits(tag_for("beam", choice), text), f"{choice}: {text!r}"
        assert admits(tag_for("beam", parallel=False), text)
    assert admits(tag_for("beam"), schema_order + by_name)
    assert not admits(tag_for("beam", parallel=False), schema_order + by_name)
    assert not admits(tag_for("beam", NAMED), by_name)
    # each order still holds the required keys, and neither mixes nor repeats them
    g = tag_for("beam")
    missing = beam_call("write_file", args, ["content"])
    repeated = beam_call("write_file", {**args}, ["content", "path", "content"])
    assert not admits(g, missing)
    assert not admits(g, repeated)
    # a wrong-typed value under strict parameter, in the sorted order
    weather = beam_call("get_weather", {"city": "Paris", "days": "three"}, ["city", "days"])
    assert not admits(g, weather)


# ----- gigachat3 -----


@pytest.mark.parametrize(
    "template,opener",
    [
        ("GigaChat3-10B-A1.8B.jinja", "<|message_sep|>\n\nfunction call<|role_sep|>\n"),
        ("GigaChat3.1-10B-A1.8B.jinja", "<|function_call|>"),
    ],
)
def test_gigachat3_calls_as_the_templates_write_them(template: str, opener: str) -> None:
    text = render(template, [("get_weather", PARIS)], True)
    written = between(text, opener + "{", "<|message_sep|>\n\n")
    assert written.endswith("}<|message_sep|>\n\n")
    body = written[: -len("<|message_sep|>\n\n")]
    for t in (written, body, body + "</s>"):  # the template's end; none (</s> is the EOS token)
        check_admitted("gigachat3", t, [("get_weather", PARIS)])
    two = (
        written
        + "function call<|role_sep|>\n"
        + json.dumps({"name": "get_weather", "arguments": ROME})
    )
    check_admitted("gigachat3", two, [("get_weather", PARIS), ("get_weather", ROME)])
    assert not admits(tag_for("gigachat3"), body + "<|message_sep|>\n\nSure.")


# ----- mistral -----


def test_mistral_pre_v11_list_and_v11_calls_both_admitted() -> None:
    paris = {"name": "get_weather", "arguments": PARIS}
    rome = {"name": "get_weather", "arguments": ROME}
    for text, calls in [
        ("[TOOL_CALLS]" + json.dumps([paris]), [("get_weather", PARIS)]),
        (
            "[TOOL_CALLS] " + json.dumps([paris, rome]),
            [("get_weather", PARIS), ("get_weather", ROME)],
        ),
        ("[TOOL_CALLS]get_weather[ARGS]" + json.dumps(PARIS), [("get_weather", PARIS)]),
        (
            "[TOOL_CALLS]get_weather[ARGS]"
            + json.dumps(PARIS)
            + "[TOOL_CALLS]get_weather"
            + json.dumps(ROME),
            [("get_weather", PARIS), ("get_weather", ROME)],
        ),
    ]:
        check_admitted("mistral", text, calls)
    g = tag_for("mistral")
    assert not admits(g, "[TOOL_CALLS][]")
    assert not admits(g, '[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 1}}]')
    assert not admits(g, "[TOOL_CALLS]" + json.dumps([paris]) + " Done.")


def test_mistral_templates_write_both_forms() -> None:
    """Devstral's template writes ``[TOOL_CALLS]name[ARGS]{...}``; Mistral Nemo's writes the
    list (with an ``id`` key the grammar leaves out: the model writes its calls without one)."""
    v11 = render("unsloth-mistral-Devstral-Small-2507.jinja", [("get_weather", PARIS)], True)
    written = between(v11, "[TOOL_CALLS]", "}}")
    check_admitted("mistral", written, [("get_weather", PARIS)])
    nemo = render("mistralai-Mistral-Nemo-Instruct-2407.jinja", [("get_weather", PARIS)], True)
    listed = between(nemo, "[TOOL_CALLS][", "]</s>")[: -len("</s>")]
    without_id = re.sub(r', "id": "[A-Za-z0-9]{9}"', "", listed)
    check_admitted("mistral", without_id, [("get_weather", PARIS)])


def test_inkling_admits_its_thinking_message_before_the_calls() -> None:
    """inkling's thinking message is reasoning (its reasoning format has no think block): required
    and named admit it before the calls; it alone is no call."""
    call = (
        '<|content_invoke_tool_json|>{"name": "get_weather", "args": '
        + json.dumps(PARIS)
        + "}<|end_message|>"
    )
    think = "<|content_thinking|>Weather first.<|end_message|>"
    for text in (think + call, think + "<|message_model|>" + call, think + "\n" + call):
        for choice in ("required", NAMED):
            assert admits(tag_for("inkling", choice), text), f"{choice}: {text!r}"
        for backend in BACKENDS:
            info = toolparse.get_parser("inkling", tools=TOOLS, backend=backend).extract_tool_calls(
                text
            )
            assert info.reasoning == "Weather first.", backend
            calls = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
            assert calls == [("get_weather", PARIS)], backend
    assert not admits(tag_for("inkling"), think)
    assert not admits(tag_for("inkling"), "<|content_text|>Sure.<|end_message|>" + call)

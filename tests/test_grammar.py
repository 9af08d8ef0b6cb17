"""toolparse.structural_tag: what it returns for each tool choice and strict level, the arguments
it refuses, the schemas it loosens, and that it reads the same spec entry as the parser (the
grammar and parser agreeing is checked with xgrammar itself in tests/integrations)."""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, Iterator, List

import pytest
import toolparse
from toolparse import spec as tp_spec
from toolparse.grammar import families

FORMATS = toolparse.list_formats()
ALL_NAMES = toolparse.list_formats(aliases=True)


def tool(
    name: str, props: Dict[str, Any], strict: Any = None, required: Any = None
) -> Dict[str, Any]:
    fn: Dict[str, Any] = {
        "name": name,
        "parameters": {"type": "object", "properties": props, "required": required or list(props)},
    }
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


WEATHER = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})
TIME = tool("get_time", {"tz": {"type": "string"}})


def nodes(node: Any) -> Iterator[Dict[str, Any]]:
    if isinstance(node, dict):
        if "type" in node:
            yield node
        for v in node.values():
            yield from nodes(v)
    elif isinstance(node, list):
        for v in node:
            yield from nodes(v)


def schemas(tag: Any) -> List[Any]:
    return [x["json_schema"] for x in nodes(tag) if x["type"] == "json_schema"]


@pytest.mark.parametrize("fmt", ALL_NAMES)
def test_every_format_and_alias_has_a_tag_for_each_choice(fmt: str) -> None:
    canonical = tp_spec.canonical(fmt)
    for choice in ("required", {"type": "function", "function": {"name": "get_time"}}):
        for parallel in (True, False):
            tag = toolparse.structural_tag(
                fmt, [WEATHER, TIME], tool_choice=choice, parallel_tool_calls=parallel
            )
            assert tag is not None and tag["type"] == "structural_tag"
            assert json.loads(json.dumps(tag)) == tag  # plain JSON data
            if fmt != canonical:  # an alias is the same wire format
                assert tag == toolparse.structural_tag(
                    canonical, [WEATHER, TIME], tool_choice=choice, parallel_tool_calls=parallel
                )
    auto = toolparse.structural_tag(fmt, [WEATHER, TIME], strict="function")
    assert auto is not None


@pytest.mark.parametrize("fmt", FORMATS)
def test_named_choice_names_only_that_function(fmt: str) -> None:
    tag = toolparse.structural_tag(
        fmt,
        [WEATHER, TIME],
        tool_choice={"type": "function", "name": "get_time"},
        strict="parameter",
    )
    text = json.dumps(tag, ensure_ascii=False)
    assert "get_time" in text and "get_weather" not in text


def test_nothing_to_constrain_is_none() -> None:
    assert toolparse.structural_tag("hermes", None, tool_choice="required") is None
    assert toolparse.structural_tag("hermes", [], tool_choice="required") is None
    assert toolparse.structural_tag("hermes", [WEATHER], tool_choice="none") is None
    # auto with strict auto and no strict tool: vLLM's rule
    assert toolparse.structural_tag("hermes", [WEATHER]) is None
    assert toolparse.structural_tag("hermes", [WEATHER, tool("s", {}, strict=True)]) is not None
    # only custom tools: nothing a function grammar can constrain
    custom = {"type": "custom", "name": "raw", "description": "free text"}
    assert toolparse.structural_tag("hermes", [custom], tool_choice="required") is None


@pytest.mark.parametrize("fmt", [f for f in FORMATS if tp_spec.get_spec(f).grammar.trigger is None])
def test_format_without_a_trigger_is_unconstrained_under_auto_unless_strict_asks(fmt: str) -> None:
    strict_tool = tool("s", {"a": {"type": "integer"}}, strict=True)
    assert toolparse.structural_tag(fmt, [strict_tool]) is None
    assert toolparse.structural_tag(fmt, [strict_tool], strict="function") is not None
    assert toolparse.structural_tag(fmt, [strict_tool], tool_choice="required") is not None


def held_properties(tag: Any) -> List[List[str]]:
    """The property names of every argument schema the tag holds (a bare object: none)."""
    return sorted({tuple(s.get("properties", {})) for s in schemas(tag) if isinstance(s, dict)})  # type: ignore[return-value]


def test_strict_levels_decide_which_schemas_are_held() -> None:
    loose, strict = (
        tool("a", {"x": {"type": "integer"}}),
        tool("b", {"y": {"type": "string"}}, strict=True),
    )
    assert held_properties(toolparse.structural_tag("hermes", [loose, strict])) == [(), ("y",)]
    assert held_properties(
        toolparse.structural_tag("hermes", [loose, strict], strict="function")
    ) == [(), ("y",)]
    assert held_properties(toolparse.structural_tag("hermes", [loose], strict="function")) == [()]
    assert held_properties(
        toolparse.structural_tag("hermes", [loose, strict], strict="parameter")
    ) == [("x",), ("y",)]
    # Responses tools carry strict at the top level
    responses = {
        "type": "function",
        "name": "r",
        "parameters": {"type": "object", "properties": {"z": {"type": "boolean"}}},
        "strict": True,
    }
    assert held_properties(toolparse.structural_tag("hermes", [responses])) == [("z",)]


def test_tool_models_are_accepted() -> None:
    models = [toolparse.Tool.model_validate(WEATHER)]
    assert toolparse.structural_tag(
        "hermes", models, tool_choice="required"
    ) == toolparse.structural_tag("hermes", [WEATHER], tool_choice="required")


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"format": "nope"}, "format"),
        ({"strict": "always"}, "strict"),
        ({"tool_choice": "sometimes"}, "tool_choice"),
        ({"tool_choice": {"type": "function", "function": {"name": "missing"}}}, "tool_choice"),
        ({"tool_choice": {"type": "allowed_tools"}}, "tool_choice"),
        ({"reasoning": "nope"}, "reasoning"),
        ({"reasoning_started": "yes"}, "reasoning_started"),
        ({"parallel_tool_calls": "no"}, "parallel_tool_calls"),
        ({"tools": "get_weather"}, "tools"),
        ({"tools": [{"type": "function", "function": {"parameters": {}}}]}, "tools"),
        ({"tools": [WEATHER, WEATHER]}, "tools"),
    ],
)
def test_bad_arguments_are_value_errors_naming_the_argument(
    kwargs: Dict[str, Any], argument: str
) -> None:
    args: Dict[str, Any] = {
        "format": "hermes",
        "tools": [WEATHER],
        "tool_choice": "required",
        **kwargs,
    }
    fmt, tools = args.pop("format"), args.pop("tools")
    with pytest.raises(ValueError, match=argument):
        toolparse.structural_tag(fmt, tools, **args)


HOSTILE = {
    "type": "object",
    "$defs": {
        "Loc": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}},
        }
    },
    "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3},
        "mail": {"type": "string", "format": "email"},
        "where": {"$ref": "#/$defs/Loc"},
        "either": {"anyOf": [{"$ref": "#/$defs/Loc"}, {"type": "null"}]},
        "kind": {"enum": ["a", "b", "c"]},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        "empty": {"type": "object", "properties": {}},
        "lost": {"$ref": "#/$defs/Nowhere"},
        "multi": {"type": ["string", "integer"]},
    },
    "required": ["code", "where"],
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_schemas_never_fail_a_request(fmt: str, caplog: pytest.LogCaptureFixture) -> None:
    t = tool("h", {}, strict=True)
    t["function"]["parameters"] = HOSTILE
    with caplog.at_level(logging.INFO, logger="toolparse.grammar"):
        for choice in ("auto", "required"):
            tag = toolparse.structural_tag(fmt, [t], tool_choice=choice, strict="parameter")
            assert tag is not None
            text = json.dumps(tag)
            assert "#/$defs/Nowhere" not in text  # the dangling reference is gone
    dropped = [r for r in caplog.records if r.name == "toolparse.grammar"]
    assert len(dropped) == 2  # one line per tag built
    assert "Nowhere" in dropped[0].getMessage()


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_spec_names_the_trigger_the_grammar_uses(fmt: str) -> None:
    sp = tp_spec.get_spec(fmt)
    trigger = sp.grammar.trigger
    plan = families.FAMILIES[sp.family](families.Ctx(sp, toolparse.grammar.schema.Dropped()))
    if plan.messages is not None:
        assert sp.grammar.messages is not None
        return
    begins = [b.begin for b in plan.blocks]
    if trigger is not None:
        assert trigger in begins
    tag = toolparse.structural_tag(fmt, [WEATHER], strict="function")
    assert tag is not None
    triggered = [x for x in nodes(tag) if x["type"] == "triggered_tags"]
    assert triggered and triggered[0]["triggers"][0] == (
        trigger if trigger is not None else begins[0]
    )


def test_reasoning_puts_the_think_block_first() -> None:
    tag = toolparse.structural_tag(
        "qwen3_coder", [WEATHER], tool_choice="required", reasoning="qwen3"
    )
    assert tag is not None
    opener, block = tag["format"]["elements"][:2]
    # the prompt opened the block; the model may write the opener again
    assert opener == {"type": "optional", "content": {"type": "const_string", "value": "<think>"}}
    assert block["type"] == "tag" and block["begin"] == "" and block["end"] == "</think>"
    tag = toolparse.structural_tag(
        "qwen3_coder", [WEATHER], tool_choice="required", reasoning="qwen3", reasoning_started=False
    )
    assert tag is not None
    lead, block = tag["format"]["elements"][:2]
    assert lead["type"] == "regex"
    assert block["type"] == "optional"
    full, bare = block["content"]["elements"]
    assert full["begin"] == "<think>" and full["end"] == "</think>"
    assert bare == {"type": "const_string", "value": "</think>"}


REASONING = [
    name
    for name, r in tp_spec.REASONING.items()
    if r.start and name == tp_spec.reasoning_canonical(name)
]


def _prefix(reasoning: str, started: Any) -> List[Dict[str, Any]]:
    """The nodes before the call grammar (hermes' trigger is ``<tool_call>``)."""
    tag = toolparse.structural_tag(
        "hermes", [WEATHER], tool_choice="required", reasoning=reasoning, reasoning_started=started
    )
    assert tag is not None
    out = []
    for e in tag["format"]["elements"]:
        if "<tool_call>" in json.dumps(e):
            break
        out.append(e)
    return out


def _consts(found: List[Dict[str, Any]]) -> List[str]:
    return [x["value"] for x in nodes(found) if x["type"] == "const_string"]


@pytest.mark.parametrize("reasoning", REASONING)
def test_every_reasoning_format_admits_the_opener_or_the_bare_closer(reasoning: str) -> None:
    """An opener the template did not prefill (started: the format's default, or True), and the
    empty block or bare closer a template writes with thinking off (started False)."""
    r = tp_spec.REASONING[reasoning]
    for started in (None, True):
        if r.started or started:
            prefix = _prefix(reasoning, started)
            if not r.content_prefix:
                assert set(r.starts) <= set(_consts(prefix)), (reasoning, started)
    prefix = _prefix(reasoning, False)
    if r.markers_off_when_disabled:
        assert r.start not in json.dumps(prefix) and r.end not in json.dumps(prefix)
    elif not r.content_prefix:
        tags = [x for x in nodes(prefix) if x["type"] == "tag"]
        assert [(t["begin"], t["end"]) for t in tags] == [(r.start, r.end)]
        assert {r.end, *r.also_end} <= set(_consts(prefix)), reasoning


def test_building_does_not_import_xgrammar() -> None:
    import subprocess
    import sys

    code = (
        "import sys, toolparse; toolparse.structural_tag('hermes', "
        "[{'type': 'function', 'function': {'name': 'f'}}], tool_choice='required'); "
        "print('xgrammar' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_markers_off_when_thinking_is_disabled_admit_no_think_block() -> None:
    """plamo3 turns its think markers off with thinking disabled (the spec's
    ``markers_off_when_disabled``): the tag then has no think block, as the parser reads one as
    content."""
    on = toolparse.structural_tag("plamo3", [WEATHER], tool_choice="required", reasoning="plamo3")
    off = toolparse.structural_tag(
        "plamo3", [WEATHER], tool_choice="required", reasoning="plamo3", reasoning_started=False
    )
    assert on is not None and off is not None
    assert "<|plamo:end_think:plamo|>" in json.dumps(on)
    assert "think" not in json.dumps(off)
    assert off == toolparse.structural_tag("plamo3", [WEATHER], tool_choice="required")


def test_a_format_s_default_reasoning_puts_its_think_block_first() -> None:
    """cohere's parser reads ``<|START_THINKING|>...<|END_THINKING|>`` as reasoning with no
    ``reasoning=`` (the spec's ``default_reasoning``): the tag admits the block before the action,
    the same block ``reasoning=`` its own reasoning format gives."""
    for fmt in ("cohere_command3", "cohere_command4"):
        assert tp_spec.get_spec(fmt).default_reasoning == fmt
        tag = toolparse.structural_tag(fmt, [WEATHER], tool_choice="required")
        assert tag is not None
        # after leading whitespace, the optional block (or the bare closer of thinking off)
        first = next(x for x in tag["format"]["elements"] if x["type"] != "regex")
        assert first["type"] == "optional"
        block = first["content"]["elements"][0]
        assert (block["begin"], block["end"]) == ("<|START_THINKING|>", "<|END_THINKING|>")
        assert tag == toolparse.structural_tag(
            fmt, [WEATHER], tool_choice="required", reasoning=fmt
        )
        # under auto the markers stay text after the block, as they were without it
        auto = toolparse.structural_tag(fmt, [WEATHER], strict="parameter")
        assert auto is not None
        assert next(x for x in auto["format"]["elements"] if x["type"] != "regex") == first
        triggered = [x for x in nodes(auto) if x["type"] == "triggered_tags"]
        assert triggered and triggered[0]["excludes"] == []
    # a format without one (nor grammar.optional_reasoning) starts at its calls
    assert not tp_spec.get_spec("mistral").grammar.optional_reasoning
    tag = toolparse.structural_tag("mistral", [WEATHER], tool_choice="required")
    assert tag is not None and "think" not in json.dumps(tag).lower()


@pytest.mark.parametrize("fmt", ["openai", "inkling", "muse", "muse_glimmer", "beam"])
def test_a_reasoning_format_without_a_think_block_adds_nothing(fmt: str) -> None:
    """The reasoning formats paired with one tool format (harmony's, inkling's, the channel
    formats') have no think-block markers: the format's own grammar carries the reasoning."""
    r = next(
        name
        for name in tp_spec.list_reasoning_formats(aliases=False)
        if tp_spec.REASONING[name].tool_format == fmt
    )
    for choice in ("required", "auto"):
        for started in (None, True, False):
            tag = toolparse.structural_tag(
                fmt,
                [WEATHER],
                tool_choice=choice,
                strict="parameter",
                reasoning=r,
                reasoning_started=started,
            )
            assert tag == toolparse.structural_tag(
                fmt, [WEATHER], tool_choice=choice, strict="parameter"
            )


def test_arguments_whitespace_admits_indent_4_eight_containers_deep() -> None:
    """A JSON arguments node allows runs of 1 + 4 * (2 + 8) = 41 whitespace characters: a newline
    and four spaces a level, the calls' list and call object around the arguments, values nested
    up to 8 containers deep; the same bound for every tool and schema, strict or not."""
    assert families.ARGS_WS == 1 + 4 * (2 + 8) == 41
    nested = tool("f", {"a": {"type": "object", "properties": {"b": {"type": "string"}}}})
    for fmt in ("jamba", "hermes", "deepseek_v3", "mistral", "openai"):
        for strict in ("function", "parameter"):
            tag = toolparse.structural_tag(fmt, [nested], tool_choice="required", strict=strict)
            counts = {x["max_whitespace_cnt"] for x in nodes(tag) if x["type"] == "json_schema"}
            assert counts == {41}, (fmt, strict)
    # the layout between a list's calls and a call's keys: 16
    tag = toolparse.structural_tag("jamba", [nested], tool_choice="required")
    patterns = [x["pattern"] for x in nodes(tag) if x["type"] == "regex"]
    assert any("{0,16}" in p for p in patterns)


def test_beam_admits_parameters_sorted_by_name_beside_schema_order() -> None:
    """Properties out of name order: each call holds two orders (twice the parameters of the same
    tool with its properties in name order, which holds one); other formats keep one."""
    write = tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}})
    by_name = tool("write_file", {"content": {"type": "string"}, "path": {"type": "string"}})
    assert tp_spec.get_spec("beam").grammar.sorted_parameters

    def count(fmt: str, t: Any, key: str) -> int:
        tag = toolparse.structural_tag(fmt, [t], tool_choice="required", strict="parameter")
        return json.dumps(tag).count(key)

    key = 'name=\\"path'
    assert count("beam", by_name, key) > 0
    assert count("beam", write, key) == 2 * count("beam", by_name, key)
    tag = json.dumps(
        toolparse.structural_tag("beam", [write], tool_choice="required", strict="parameter")
    )
    assert tag.index('name=\\"path') < tag.index('name=\\"content')  # schema order first
    assert not tp_spec.get_spec("qwen3_coder").grammar.sorted_parameters
    key = "<parameter=path>"
    assert count("qwen3_coder", write, key) == count("qwen3_coder", by_name, key) > 0


def test_gigachat3_calls_may_end_at_the_brace_or_the_message_separator() -> None:
    tag = toolparse.structural_tag("gigachat3", [WEATHER], tool_choice="required")
    ends = [x["end"] for x in nodes(tag) if x["type"] == "tag"]
    assert ends and all(e == ["</s>", "<|message_sep|>", ""] for e in ends)
    assert tp_spec.get_spec("gigachat3").grammar.call_ends == ("<|message_sep|>", "")


def test_mistral_admits_the_pre_v11_list_beside_named_calls() -> None:
    tag = toolparse.structural_tag("mistral", [WEATHER], tool_choice="required")
    blocks = [x for x in nodes(tag) if x["type"] == "tag" and x["begin"] == "[TOOL_CALLS]"]
    assert blocks  # the required calls: the same block each time
    inner = list(nodes(blocks[0]["content"]))
    assert any(x["type"] == "tag" and (x["begin"], x["end"]) == ("[", "]") for x in inner)
    assert any(x["type"] == "const_string" and x["value"] == "get_weather" for x in inner)
    assert "array" not in tp_spec.get_spec("mistral").grammar.parser_only_forms


def _tag(fmt: str, tools: List[Dict[str, Any]], choice: Any = "required") -> Dict[str, Any]:
    tag = toolparse.structural_tag(fmt, tools, tool_choice=choice, strict="parameter")
    assert tag is not None
    return tag


LITERALS = tool("f", {"a": {"type": ["string", "null"]}, "b": {"type": "boolean"}})


def test_value_forms_add_the_spellings_the_template_writes() -> None:
    """olmo3 writes JSON's null/true/false, lfm2 raw strings and JSON objects; the pythonic
    format writes neither."""
    obj = tool("f", {"a": {"type": "string"}, "d": {"type": "object"}})
    consts = {
        fmt: set(_consts(list(nodes(_tag(fmt, [LITERALS]))))) for fmt in ("olmo3", "pythonic")
    }
    assert {"null", "true", "false", "None", "True", "False"} <= consts["olmo3"]
    assert not {"null", "true", "false"} & consts["pythonic"]
    assert {"None", "True", "False"} <= consts["pythonic"]
    for fmt, raw in (("lfm2", True), ("pythonic", False)):
        tag = _tag(fmt, [obj])
        assert any(x["type"] == "json_schema" for x in nodes(tag)) == raw
        patterns = [x["pattern"] for x in nodes(tag) if x["type"] == "regex"]
        assert any(p.startswith("('([^'\\\\]|") for p in patterns) == raw, fmt


def test_what_stands_around_the_calls_is_admitted_where_no_text_is() -> None:
    """plamo3's end-of-turn tag after the section, kimi_k3's empty response channel before it
    and message close after it: under required and named choice, and after a single call."""
    for fmt, before, after in (
        ("plamo3", None, "<|plamo:tag|>"),
        ("kimi_k3", "<|close|>response<|sep|>", "<|close|>message<|sep|>"),
    ):
        for choice in ("required", {"type": "function", "function": {"name": "get_weather"}}):
            found = _consts(list(nodes(_tag(fmt, [WEATHER], choice))))
            assert after in found and (before is None or before in found), (fmt, choice)
        single = toolparse.structural_tag(
            fmt, [WEATHER], strict="parameter", parallel_tool_calls=False
        )
        assert after in json.dumps(single)
    assert "<|plamo:tag|>" not in json.dumps(_tag("deepseek_v3", [WEATHER]))


def test_an_open_last_section_is_admitted_under_required_only() -> None:
    """deepseek_v3's R1-Distill template leaves a single call's section open: the required tag
    has the section start outside a tag (no end marker needed); auto keeps the tags."""
    start = "<｜tool▁calls▁begin｜>"
    for choice in ("required", {"type": "function", "function": {"name": "get_weather"}}):
        tag = _tag("deepseek_v3", [WEATHER], choice)
        assert {"type": "const_string", "value": start} in list(nodes(tag)), choice
    auto = _tag("deepseek_v3", [WEATHER], "auto")
    assert {"type": "const_string", "value": start} not in list(nodes(auto))
    assert {"type": "const_string", "value": start} not in list(nodes(_tag("hermes", [WEATHER])))


def test_step3_admits_the_repeated_name_and_the_call_separator() -> None:
    found = _consts(list(nodes(_tag("step3", [WEATHER]))))
    assert "<｜tool_call_begin｜>function<｜tool_sep｜>get_weather" in found
    assert "<｜tool_sep｜>" in found


@pytest.mark.parametrize("fmt", ["deepseek_v32", "deepseek_v4", "deepseek_v41", "kimi_k3"])
def test_a_nullable_parameter_may_be_written_as_json(fmt: str) -> None:
    m = tp_spec.get_spec(fmt).markers
    nullable = tool("f", {"n": {"type": ["string", "null"]}})
    tags = [x for x in nodes(_tag(fmt, [nullable])) if x["type"] == "tag"]
    begins = {x["begin"] for x in tags}
    head = m["parameter_json"] if fmt != "kimi_k3" else '" type="null"<|sep|>'
    assert m["parameter_start"] + "n" + head in begins
    plain = tool("f", {"n": {"type": "string"}})
    assert m["parameter_start"] + "n" + head not in {
        x["begin"] for x in nodes(_tag(fmt, [plain])) if x["type"] == "tag"
    }

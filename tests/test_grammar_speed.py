"""The faster structural-tag builder makes the same tags as before: every format's tags for a
grid of requests (tests/grammar_goldens.py) hash as the builder before the speed-up made them
(tests/fixtures/grammar/tag_hashes.json, generated from main at 4eaec09, before any change of
the grammar-speed branch); and the request cache tells apart requests that differ."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any, Dict

import grammar_goldens as goldens
import pytest
import toolparse
from toolparse import grammar

GOLDEN: Dict[str, Dict[str, str]] = json.loads(
    (Path(__file__).parent / "fixtures" / "grammar" / "tag_hashes.json").read_text()
)


#: the default run checks one format in four and every format of the composed-value families
#: (the ones whose calls are kept across requests); ``-m exhaustive`` checks every format
_COMPOSED = {"functiongemma", "lfm2", "deepseek_v32", "minimax_m3", "beam", "muse", "qwen3_coder"}
_SAMPLE = [f for i, f in enumerate(toolparse.list_formats()) if i % 4 == 0 or f in _COMPOSED]


@pytest.mark.parametrize(
    "fmt",
    [
        pytest.param(f, marks=() if f in _SAMPLE else pytest.mark.exhaustive)
        for f in toolparse.list_formats()
    ],
)
def test_tags_are_the_ones_the_builder_made_before(fmt: str) -> None:
    grammar._clear_caches()
    got = {name: goldens.digests(fmt, ts, full) for name, ts, full in goldens.tool_sets(fmt)}
    assert got == GOLDEN[fmt]


def test_every_format_has_golden_hashes() -> None:
    assert sorted(GOLDEN) == sorted(toolparse.list_formats())


def _tools() -> Any:
    return copy.deepcopy(goldens.SMALL["weather_time"])


def test_equal_requests_share_one_tag_and_different_ones_do_not() -> None:
    grammar._clear_caches()
    tools = _tools()
    first = toolparse.structural_tag("hermes", tools, tool_choice="required", strict="parameter")
    again = toolparse.structural_tag("hermes", _tools(), tool_choice="required", strict="parameter")
    assert again is first
    before = json.dumps(first)
    tools = _tools()
    tools[0]["function"]["parameters"]["properties"]["days"]["type"] = "number"
    changed = toolparse.structural_tag("hermes", tools, tool_choice="required", strict="parameter")
    assert json.dumps(changed) != before and '"number"' in json.dumps(changed)
    # 1 and True, 1 and 1.0 are different schemas
    for a, b in ((1, True), (1, 1.0)):
        ta, tb = _tools(), _tools()
        ta[0]["function"]["parameters"]["properties"]["days"]["minimum"] = a
        tb[0]["function"]["parameters"]["properties"]["days"]["minimum"] = b
        tag_a = toolparse.structural_tag("hermes", ta, tool_choice="required", strict="parameter")
        tag_b = toolparse.structural_tag("hermes", tb, tool_choice="required", strict="parameter")
        assert json.dumps(tag_a) != json.dumps(tag_b)


def test_a_ref_in_a_request_is_resolved_after_a_request_without_one() -> None:
    grammar._clear_caches()
    plain = _tools()
    toolparse.structural_tag("hermes", plain, tool_choice="required", strict="parameter")
    refs = _tools()
    refs[0]["function"]["parameters"]["properties"]["days"] = {"$ref": "#/$defs/Missing"}
    tag = toolparse.structural_tag("hermes", refs, tool_choice="required", strict="parameter")
    assert "#/$defs/Missing" not in json.dumps(tag)


class _Str(str):
    """A str subclass: marshal refuses it, JSON takes it."""


def test_requests_marshal_refuses_are_built_and_cached_by_their_json() -> None:
    grammar._clear_caches()
    tools = _tools()
    tools[1]["function"]["name"] = _Str("get_time")
    first = toolparse.structural_tag("hermes", tools, tool_choice="required")
    assert toolparse.structural_tag("hermes", tools, tool_choice="required") is first
    assert "get_time" in json.dumps(first)


def _logged(caplog: pytest.LogCaptureFixture, fmt: str, tools: Any, choice: Any) -> Any:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="toolparse.grammar"):
        tag = toolparse.structural_tag(fmt, tools, tool_choice=choice, strict="parameter")
    return json.dumps(tag), [
        r.getMessage() for r in caplog.records if r.name == "toolparse.grammar"
    ]


@pytest.mark.parametrize("fmt", ["functiongemma", "lfm2", "deepseek_v32", "minimax_m3", "beam"])
def test_calls_kept_from_an_earlier_request_are_the_ones_built_and_log_what_they_drop(
    fmt: str, caplog: pytest.LogCaptureFixture
) -> None:
    tools = goldens.SMALL["hostile"] + goldens.SMALL["weather_time"]
    named = {"type": "function", "function": {"name": "h"}}
    grammar._clear_caches()
    cold = _logged(caplog, fmt, tools, "required")
    cold_named = _logged(caplog, fmt, tools, named)
    assert any("pattern" in line for line in cold[1])  # the hostile schema drops keywords
    grammar._clear_caches()
    _logged(caplog, fmt, tools, "auto")  # builds every tool's call
    assert grammar.families.PIECES
    assert _logged(caplog, fmt, copy.deepcopy(tools), "required") == cold
    assert _logged(caplog, fmt, copy.deepcopy(tools), named) == cold_named


@pytest.mark.parametrize("fmt", ["lfm2", "deepseek_v32"])
def test_a_caller_changing_its_tools_later_does_not_change_the_calls_kept(fmt: str) -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    grammar._clear_caches()
    fresh = json.dumps(
        toolparse.structural_tag(fmt, _tools(), tool_choice=named, strict="parameter")
    )
    grammar._clear_caches()
    tools = _tools()
    toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
    days = tools[0]["function"]["parameters"]["properties"]["days"]
    days["type"] = "array"  # the caller reuses its dicts for something else
    days["items"] = {"type": "string"}
    again = toolparse.structural_tag(fmt, _tools(), tool_choice=named, strict="parameter")
    assert json.dumps(again) == fresh


def test_a_caller_changing_its_tools_after_a_call_changes_no_tag_kept() -> None:
    for fmt in toolparse.list_formats():
        grammar._clear_caches()
        tools = _tools()
        tag = toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
        before = json.dumps(tag)
        days = tools[0]["function"]["parameters"]["properties"]["days"]
        days["type"] = "array"  # the caller reuses its dicts for something else
        days["items"] = {"type": "string"}
        tools[0]["function"]["parameters"]["required"].append("hours")
        assert json.dumps(tag) == before, fmt  # the tag given out holds no dict of the caller's
        again = toolparse.structural_tag(fmt, _tools(), tool_choice="required", strict="parameter")
        assert json.dumps(again) == before, fmt  # nor does the one kept for the next request


@pytest.mark.parametrize("fmt", ["functiongemma", "lfm2", "deepseek_v32", "minimax_m3", "beam"])
def test_tools_sharing_a_schema_share_its_part_and_log_what_it_drops_under_each_name(
    fmt: str, caplog: pytest.LogCaptureFixture
) -> None:
    h = goldens.SMALL["hostile"][0]
    twin = copy.deepcopy(h)
    twin["function"]["name"] = "h2"
    grammar._clear_caches()
    text, lines = _logged(caplog, fmt, [h, twin], "required")
    assert len(lines) == 1 and "\x00" not in lines[0]
    # the XML formats log a value's keyword under tool.key, the others under the format's name
    xml = fmt in ("deepseek_v32", "minimax_m3", "beam")
    for where in ("h.code", "h2.code") if xml else (fmt,):
        assert f"pattern ({where})" in lines[0]
    assert len(grammar.families.SHAPES) == 1  # one part for the two tools
    grammar._CACHE.clear()  # a new request: the part kept, the calls built again
    grammar.families.PIECES.clear()
    assert _logged(caplog, fmt, [h, twin], "required") == (text, lines)

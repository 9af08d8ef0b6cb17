"""Tools whose schemas differ share the parameters they have in common (grammar.ctx.PARAMS, kept
across tools and requests): the tags are the ones built with nothing kept, the keywords a shared
parameter drops are logged under every tool that has it, and a caller changing its tools after
a request changes no later tag."""

from __future__ import annotations

import copy
import json
import logging
import random
from typing import Any, Dict, List, Tuple

import pytest
import toolparse
import toolparse.grammar.ctx as ctx
from toolparse import grammar
from toolparse.grammar import nodes as n
from toolparse.grammar import values

# the formats whose calls are composed parameter by parameter (Ctx.shaped, Ctx.items)
COMPOSED = ["qwen3_coder", "deepseek_v32", "minimax_m3", "beam", "muse", "lfm2", "functiongemma"]
COMPOSED += ["pythonic", "kimi_k3", "step3", "glm47", "gemma4", "olmo3"]


def _tool(name: str, props: Dict[str, Any], required: List[str]) -> Dict[str, Any]:
    params = {"type": "object", "properties": props, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": params}}


def _distinct() -> List[Dict[str, Any]]:
    """Tools of different schemas: a parameter every tool has (``query``), some a few have
    (an enum, a nested object, a string whose keywords the composed styles drop), each tool's
    own (an integer with its own minimum), one tool with definitions and a reference."""
    coded = {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}
    where = {"type": "object", "properties": {"lat": {"type": "number"}}}
    out = []
    for i in range(6):
        props: Dict[str, Any] = {"query": {"type": "string"}, "limit": {"type": "integer"}}
        props["limit"]["minimum"] = i
        if i % 2:
            props["mode"] = {"enum": ["fast", "exact"]}
            props["code"] = copy.deepcopy(coded)
        if i % 3 == 0:
            props["where"] = copy.deepcopy(where)
            props["flag"] = {"type": ["boolean", "null"]}
        out.append(_tool(f"tool_{i}", props, ["query"] + (["code"] if i == 1 else [])))
    refs = _tool("refs", {"query": {"type": "string"}, "at": {"$ref": "#/$defs/At"}}, ["at"])
    refs["function"]["parameters"]["$defs"] = {"At": copy.deepcopy(where)}
    out.append(refs)
    return out


def _build(fmt: str, tools: Any, choice: Any = "required") -> str:
    return json.dumps(toolparse.structural_tag(fmt, tools, tool_choice=choice, strict="parameter"))


def _logged(
    caplog: pytest.LogCaptureFixture, fmt: str, tools: Any, choice: Any = "required"
) -> Tuple[str, List[str]]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="toolparse.grammar"):
        text = _build(fmt, tools, choice)
    return text, [r.getMessage() for r in caplog.records if r.name == "toolparse.grammar"]


def _unkept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing kept across tools: every call's part built on its own, from a copy."""

    def shaped(self: Any, tool: Any, part: Any, variant: str = "") -> Any:
        return part(tool._replace(schema=copy.deepcopy(tool.schema)))

    monkeypatch.setattr(ctx.Ctx, "shaped", shaped)


@pytest.mark.parametrize("fmt", COMPOSED)
def test_tags_of_tools_sharing_parameters_are_the_ones_built_with_nothing_kept(
    fmt: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = _distinct()
    grammar._clear_caches()
    cold = _logged(caplog, fmt, tools)
    # the parameters kept by another request (other tools, another order) serve this one
    grammar._clear_caches()
    _build(fmt, list(reversed(tools))[:-2] + [_tool("other", {"query": {"type": "string"}}, [])])
    grammar._CACHE.clear()
    warm = _logged(caplog, fmt, copy.deepcopy(tools))
    with monkeypatch.context() as m:
        _unkept(m)
        grammar._clear_caches()
        unkept = _logged(caplog, fmt, copy.deepcopy(tools))
        assert not ctx.PARAMS and not ctx.SHAPES
    assert cold == unkept
    assert warm == unkept
    assert "tool_5" in cold[0] and "refs" in cold[0]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "deepseek_v32", "minimax_m3", "beam", "lfm2"])
def test_tools_of_different_schemas_share_a_common_parameter(fmt: str) -> None:
    grammar._clear_caches()
    _build(fmt, _distinct())
    tables = [t for key, t in ctx.PARAMS.items() if key[0] == fmt]
    assert tables
    # one entry for "query" though seven tools of seven schemas have it
    assert sum(1 for t in tables for k, _ in t if k == "query") == 1
    assert len(ctx.SHAPES) == 7  # and one part per schema


@pytest.mark.parametrize("fmt", ["qwen3_coder", "deepseek_v32", "minimax_m3", "beam"])
def test_a_shared_parameter_logs_what_it_drops_under_each_tool(
    fmt: str, caplog: pytest.LogCaptureFixture
) -> None:
    grammar._clear_caches()
    _, lines = _logged(caplog, fmt, _distinct())
    assert len(lines) == 1 and "\x00" not in lines[0]
    for name in ("tool_1", "tool_3", "tool_5"):  # the tools with the "code" parameter
        assert f"pattern ({name}.code)" in lines[0] and f"maxLength ({name}.code)" in lines[0]
    assert "tool_0.code" not in lines[0]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "minimax_m3", "lfm2", "functiongemma", "beam"])
def test_a_caller_changing_a_shared_parameter_changes_no_later_tag(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    grammar._clear_caches()
    tools = _distinct()
    _build(fmt, tools)
    for t in tools:  # the caller reuses its dicts for something else
        props = t["function"]["parameters"]["properties"]
        for p in props.values():
            p.clear()
            p.update({"type": "array", "items": {"type": "string"}})
    grammar._CACHE.clear()
    grammar.families.PIECES.clear()
    grammar.families.SHAPES.clear()
    again = _build(fmt, _distinct(), "auto")  # the parameters kept serve these tools
    with monkeypatch.context() as m:
        _unkept(m)
        grammar._clear_caches()
        assert again == _build(fmt, _distinct(), "auto")


def _node(rng: random.Random) -> Dict[str, Any]:
    """A node of the kinds a parameter list holds, constants (empty too) and sequences included."""
    kind = rng.randrange(6)
    if kind == 0:
        return n.const(rng.choice(["", "a", "bc"]))
    if kind == 1:
        return n.regex("x")
    if kind == 2:
        return n.seq(n.const(rng.choice(["p", ""])), n.regex("y"), n.const(rng.choice(["q", ""])))
    if kind == 3:
        return n.tag("<", n.any_text(), ">")
    if kind == 4:
        return n.or_(n.const("u"), n.const("v"))
    return n.optional(n.const("z"))


def _ordered_by_definition(items: List[Tuple[Dict[str, Any], bool]], sep: Any) -> Any:
    """values.ordered as first written: each later item a pair after a separator, made by seq."""
    if not items:
        return n.const("")
    pairs = []
    for node, required in items:
        pair = {"type": "sequence", "elements": [sep, node]}
        pairs.append(pair if required else n.optional(pair))
    alts = []
    for first, (node, required) in enumerate(items):
        alts.append(n.seq(node, *pairs[first + 1 :]))
        if required:
            break
    else:
        alts.append(n.const(""))
    return n.or_(*alts)


def test_ordered_makes_what_seq_makes_of_its_pairs() -> None:
    rng = random.Random(29)
    for _ in range(3000):
        items = [(_node(rng), rng.random() < 0.5) for _ in range(rng.randrange(6))]
        sep = rng.choice([n.regex(" "), n.const(","), n.const("")])
        assert values.ordered(items, sep) == _ordered_by_definition(items, sep), (items, sep)


def test_around_makes_what_seq_makes() -> None:
    rng = random.Random(30)
    for _ in range(3000):
        node = n.seq(*[_node(rng) for _ in range(rng.randrange(1, 5))])
        head = rng.choice([None, n.regex("h"), n.const("h"), n.const(""), _node(rng)])
        pick = [n.regex("t"), n.const("e"), n.const(""), _node(rng)]
        tail = [rng.choice(pick) for _ in range(rng.randrange(3))]
        parts = [e for e in (head, node, *tail) if e is not None]
        assert n.around(head, node, *tail) == n.seq(*parts), (head, node, tail)

"""The XML parameter families: ``<parameter=k>value</parameter>`` and its kin (xml_params, the
recipient XML call messages of beam and muse), MiniMax M3's namespaced elements (xml_elements)."""

from __future__ import annotations

import json
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from . import nodes as n
from .ctx import JSON_WS, Block, Ctx, Plan
from .request import FunctionTool
from .schema import properties, resolve, scalar_choices, types_of, with_defs
from .values import PYTHON, Values, ordered

_PLAIN_TYPES = ("integer", "number", "boolean", "null", "array", "object")
_COMPOSED_KEYWORDS = frozenset(("$ref", "anyOf", "oneOf", "enum", "const"))


def _xml_value(
    c: Ctx, root: Mapping[str, Any], schema: Any, end: str, where: str
) -> Tuple[n.Node, str]:
    """A parameter's value and the JSON type it is written as (``string``: raw text)."""
    ty = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(ty, str) and _COMPOSED_KEYWORDS.isdisjoint(schema):
        types = [ty]  # the common case: one plain type
    else:
        choices = scalar_choices(schema, root)
        if choices is not None and all(isinstance(v, str) for v in choices):
            nl = c.newline
            return n.seq(nl, n.or_(*[n.const(v) for v in choices]), nl), "string"
        types = types_of(schema, root)
    if "string" in types or (len(types) > 1 and "object" not in types and "array" not in types):
        plain = schema.__class__ is dict and "$ref" not in schema
        node = schema if plain else resolve(schema, root)
        for k in ("pattern", "format", "minLength", "maxLength"):
            if k in node:
                c.drop.add(where, k)
        text = c.raw_text.get(end)
        if text is None:
            text = c.raw_text[end] = n.any_text([end])
        return text, "string"
    sub = with_defs(schema, root) if c.defs_of(root) else schema
    value = n.json_schema(sub, "json", JSON_WS)
    if c.call.python_values:
        # or written in Python, as the chat template's {{ value }} prints it
        value = n.or_(value, Values(PYTHON, root, c.drop, where).value(schema))
    elif types == ["boolean"] and "python_booleans" in c.g.value_forms:
        value = n.or_(value, n.const("True"), n.const("False"))  # the template's {{ value }}
    return n.seq(c.pad, value, c.pad), types[0]


def _param_heads(c: Ctx, written_as: Optional[str]) -> List[n.Node]:
    """What a parameter's key may be followed by before its value: the name end, or where the
    format writes the value's type in the head (DSML's ``string="true|false"``, kimi_k3's
    ``type="T"``) the heads for that type (an integer may be written as a number)."""
    cached = c.heads.get(written_as)
    if cached is not None:
        return cached
    m = c.m
    heads = {
        r: v
        for r, v in m.items()
        if r.startswith("parameter_string") or r.startswith("parameter_json")
    }
    if not heads or written_as is None:
        out = [m["parameter_name_end"]]
    elif written_as == "string":
        out = [m["parameter_string"]]
    else:
        wanted = [written_as, "number"] if written_as == "integer" else [written_as]
        typed = [
            v
            for t in wanted
            for r, v in heads.items()
            if r.startswith("parameter_json") and f'"{t}"' in v
        ]
        out = typed or [m["parameter_json"]]
    c.heads[written_as] = [n.const(h) for h in out]
    return c.heads[written_as]


def _or_json(c: Ctx, root: Mapping[str, Any], schema: Any, k: str, param: n.Node) -> n.Node:
    """A value of several types, one of them null, read raw (``param``), or written as JSON under
    the JSON head the template gives it (DSML's ``string="false">null``; kimi_k3's
    ``type="null"`` holds null only)."""
    types = types_of(schema, root)
    if "null" not in types or len(types) < 2:
        return param
    m = c.m
    head = _param_heads(c, "null")[0]["value"]
    if '"null"' in head:
        value = n.const("null")
    else:
        sub = with_defs(schema, root) if c.defs_of(root) else schema
        value = n.json_schema(sub, "json", JSON_WS)
    value = n.seq(c.pad, value, c.pad)
    return n.or_(param, n.tag(m["parameter_start"] + k + head, value, m["parameter_end"]))


def _param(c: Ctx, root: Mapping[str, Any], name: str, k: str, v: Any) -> n.Node:
    """One parameter ``k`` (schema ``v``) of the tool ``name``: its key, head and value."""
    m = c.m
    end = m["parameter_end"]
    value, written = _xml_value(c, root, v, end, f"{name}.{k}")
    heads = _param_heads(c, written)
    if "value_start" in m:
        # the key element, then (after whitespace, and a type element where the format has
        # one) the value element
        vtype = n.const("")
        if "value_type_start" in m:
            vtype = n.optional(
                n.seq(
                    n.const(m["value_type_start"]),
                    n.regex("[a-z]+"),
                    n.const(m["value_type_end"]),
                    n.ws(),
                )
            )
        param = n.seq(
            n.const(m["parameter_start"] + k),
            n.or_(*heads),
            n.ws(),
            vtype,
            n.tag(m["value_start"], value, end),
        )
    elif len(heads) == 1:  # one head: the whole opening is the tag's begin
        param = n.tag(m["parameter_start"] + k + heads[0]["value"], value, end)
    else:
        param = n.seq(n.const(m["parameter_start"] + k), n.or_(*heads), n.tag("", value, end))
    if written == "string" and "parameter_json" in m:
        param = _or_json(c, root, v, k, param)
    return param


def _params(c: Ctx, t: FunctionTool) -> n.Node:
    m = c.m
    end = m["parameter_end"]
    sep = n.ws()
    root = t.schema if isinstance(t.schema, dict) else {}
    props, req, named = properties(root, root) if root else ([], set(), False)
    if not named:
        # any keys: the key up to the name end, then raw text (the parser types nothing)
        key = n.regex(r"[A-Za-z_][A-Za-z0-9_.\-]*")
        if any(r.startswith("parameter_string") for r in m):
            # every typed head (kimi_k3 writes type="boolean", "null", "object", ...)
            head = n.or_(
                *[
                    n.const(v)
                    for r, v in m.items()
                    if r.startswith("parameter_string") or r.startswith("parameter_json")
                ]
            )
        elif "value_start" in m:
            head = n.seq(n.const(m["parameter_name_end"]), n.ws(), n.const(m["value_start"]))
        else:
            head = n.const(m["parameter_name_end"])
        one = n.tag(m["parameter_start"], n.seq(key, head, n.any_text([end])), end)
        return n.star(n.seq(one, sep))
    if not props:
        return n.const("")
    name = t.name

    def build(k: str, v: Any) -> n.Node:
        return _param(c, root, name, k, v)

    items, after = c.items(build, props, req, sep)
    body = ordered(items, sep, after)
    if c.g.sorted_parameters:
        keys = [k for k, _ in props]
        if sorted(keys) != keys:
            # sorted by name too (two orders, each checking the required keys; xgrammar's
            # any-order objects would drop that check)
            order = sorted(range(len(keys)), key=keys.__getitem__)
            by_name = ordered([items[i] for i in order], sep, [after[i] for i in order])
            body = n.or_(body, by_name)
    return n.around(None, body, sep)


def _function_rest(c: Ctx, t: FunctionTool, end: str = "", start: str = "") -> n.Node:
    """A function after ``start`` (its start marker, where the block does not begin with it):
    name, name end, parameters, then ``end`` (its end marker, where the block does not end
    with it)."""
    m = c.m
    name_end = m["function_name_end"]
    attrs = c.g.function_attrs
    head: Optional[n.Node] = None  # the common case: one constant up to the shared part
    if "function_attrs_end" in m:
        head = n.seq(n.const(t.name + name_end), n.regex(attrs), n.const(m["function_attrs_end"]))
    elif name_end.strip() == "":
        # a newline after the name, then any layout (glm47 writes none)
        head = n.seq(n.const(t.name), n.optional(n.seq(n.const(name_end), n.ws())))

    rest = c.parts.get(("function_rest", end))
    if rest is None:

        def rest(t: FunctionTool) -> n.Node:  # what follows the name: the same for every name
            gap = n.ws() if name_end.strip() else None
            return n.around(gap, _params(c, t), n.const(end))

        c.parts[("function_rest", end)] = rest
    shared = c.shaped(t, rest, end)
    if head is None:
        return n.prefixed(start + t.name + name_end, shared)
    return n.seq(n.const(start), head, shared)


def _function_end(c: Ctx) -> str:
    return c.m["function_end"] + c.m.get("item_end", "")


def xml_params(c: Ctx) -> Plan:
    m = c.m
    fstart = m["function_start"]
    lead = m.get("function_lead")

    def start(t: FunctionTool) -> n.Node:
        if lead is None:
            return n.const(fstart)
        # step3: the name may stand again after the lead, before the rest of the start
        again = n.seq(n.const(lead + t.name), n.ws(), n.const(fstart[len(lead) :]))
        return n.or_(n.const(fstart), again)

    fend = _function_end(c)

    def function(t: FunctionTool) -> n.Node:
        if lead is None:
            return _function_rest(c, t, fend, fstart)
        return n.seq(start(t), _function_rest(c, t, fend))

    if "call_start" not in m:
        return Plan(
            [
                Block(
                    fstart,
                    lambda ts, s: c.either(ts, lambda t: _function_rest(c, t)),
                    _function_end(c),
                )
            ]
        )
    many = c.call.calls_per_section == "many"
    sep, tail = n.ws(), n.ws()
    if "call_sep" in m:  # markup between calls (step3's <｜tool_sep｜>), after the last one too
        sep = tail = n.seq(n.ws(), n.optional(n.seq(n.const(m["call_sep"]), n.ws())))

    def section(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), n.one_or_more(c.either(ts, function), sep, single=s or not many), tail)

    plan = Plan([Block(m["call_start"], section, m["call_end"], holds_many=many)])
    if "text_end" in m and "text_end_2" in m:
        # kimi_k3: an empty response channel before the section (its opener may be in the
        # prompt), the message close after it
        opener = n.optional(n.const(m["text_start"])) if "text_start" in m else n.const("")
        plan.lead = n.seq(opener, n.ws(), n.const(m["text_end"]))
        plan.trail = n.const(m["text_end_2"])
    return plan


def xml_elements(c: Ctx) -> Plan:
    """MiniMax M3: the section holds invokes whose parameters are elements in the format's
    namespace, ``NS<key>value NS</key>``: strings raw, other values JSON (nested ones too, as the
    parser reads them; xgrammar's ``minimax_m3_xml`` style writes nested values as elements)."""
    m = c.m
    ns = m["namespace"]
    nested = "nested_elements" in c.g.value_forms

    def params(t: FunctionTool) -> n.Node:
        root = t.schema if isinstance(t.schema, dict) else {}
        props, req, named = properties(root, root) if root else ([], set(), False)
        if not named:
            key = r"[A-Za-z_][A-Za-z0-9_.\-]*"
            if nested:
                # any opening or closing element, each followed by raw text: nested ones too
                # (without a schema the keys are not tied to one another anyway)
                mark = n.seq(n.regex("/?" + key + ">"), n.any_text([ns]))
                return n.star(n.tag(ns + "<", mark, ""))
            one = n.tag(ns + "<", n.seq(n.regex(key + ">"), n.any_text([ns])), [ns + "</"])
            return n.star(n.seq(one, n.regex(key + ">"), n.ws()))
        name = t.name

        def build(k: str, v: Any) -> n.Node:
            end = f"{ns}</{k}>"
            value, _ = _xml_value(c, root, v, end, f"{name}.{k}")
            item = n.tag(f"{ns}<{k}>", value, end)
            if nested and {"object", "array"} & set(types_of(v, root)):
                # or as nested elements (<item> per array element), as the template writes them
                one = {"type": "object", "properties": {k: v}, "required": [k]}
                item = n.or_(item, n.json_schema(with_defs(one, root), "minimax_m3_xml", n.WS))
            return item

        sep = n.ws()
        items, after = c.items(build, props, req, sep)
        return n.around(None, ordered(items, sep, after), n.ws())

    def rest(t: FunctionTool) -> n.Node:  # what follows the name
        return n.around(n.ws(), params(t), n.const(m["invoke_end"]))

    def invoke(t: FunctionTool) -> n.Node:
        name = m["invoke_start"] + json.dumps(t.name, ensure_ascii=False) + ">"
        return n.prefixed(name, c.shaped(t, rest))

    def section(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), n.one_or_more(c.either(ts, invoke), n.ws(), single=s), n.ws())

    return Plan([Block(m["call_start"], section, m["call_end"], True)])

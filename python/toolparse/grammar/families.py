"""One call grammar per family, configured by the format's spec entry: the same markers, shapes
and keys its parser machine runs on. A family gives the *blocks* a model writes calls in (a
block is what a trigger opens: one call, or a section or list holding several) and the call of
one function; ``toolparse.grammar`` assembles them for the tool choice."""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..spec import FormatSpec
from ..spec_types import Call, Grammar, Message
from . import nodes as n
from .request import FunctionTool
from .schema import Dropped, properties, resolve, scalar_choices, types_of, with_defs
from .values import PYTHON, Values, gemma, ordered, python_syntax

JSON_WS = 12  # whitespace runs inside JSON values of the XML formats
# Pretty-printed JSON (a template's ``tojson(indent=4)``, a list laid out one call a line): a run
# of whitespace is a newline and the indentation of its line, 4 spaces a level. Calls sit at
# most two levels deep (a list, then the call object), so the arguments object's keys are on
# level 3 and a value nested D containers deep (the arguments object counts as 1) on level 2 + D:
# runs of 1 + 4 * (2 + D) characters. Arguments admit runs of up to ARGS_WS = 1 + 4 * (2 + 8) =
# 41: the layout of values nested up to ARGS_DEPTH = 8 containers deep. Tool schemas rarely nest
# deeper; an open value or a recursive $ref allows any depth, which no finite bound admits. One
# bound for every tool: walking each schema for its own depth cost a quarter of the time to build
# a tag for 100 tools.
INDENT, CALL_LEVELS, ARGS_DEPTH = 4, 2, 8
ARGS_WS = 1 + INDENT * (CALL_LEVELS + ARGS_DEPTH)
# Between the pieces of a JSON call list and of its call objects: a template's layout (command-r7b
# rendered without trim_blocks writes ``,\n\n    \n    \n    {`` between two calls: 16 characters).
LAYOUT_WS = 16


# The calls of single tools built for earlier requests (Ctx.piece): read-only nodes, as the tags
# holding them are
PIECES: Dict[Tuple[Any, ...], Tuple[n.Node, Tuple[Tuple[str, str], ...]]] = {}
PIECES_SIZE = 4096
# The parts of calls a tool's schema alone decides (its parameters: Ctx.shaped), kept under the
# format, the builder and the schema's bytes: tools of one shape share one part, in one request
# and across requests. Built under the name ANON, so the dropped keywords they log name no tool
# (``ANON.key``) and are logged again under each tool's own name.
SHAPES: Dict[Tuple[Any, ...], Tuple[n.Node, Tuple[Tuple[str, str], ...]]] = {}
ANON = "\x00"


@dataclass
class Block:
    """What one trigger opens: ``begin`` (starts with the trigger), then ``content`` built for
    the given functions, then ``end``. ``holds_many``: the block itself holds several calls (a
    section or a list), so required output is one block, not several."""

    begin: str
    content: Callable[[Sequence[FunctionTool], bool], n.Node]
    end: Any  # str, or a list of the strings that may end it
    holds_many: bool = False


@dataclass
class Plan:
    """A format's call grammar: its blocks (the template's first), what separates blocks, and
    whether the trigger is distinct from plain text (``None`` under auto unless strict asks)."""

    blocks: List[Block]
    distinct: bool = True
    between: n.Node = field(default_factory=n.ws)
    messages: Optional[Callable[..., n.Node]] = None  # channel formats assemble themselves
    # what the format or its template may write before the first block (inkling's thinking
    # message, kimi_k3's empty response channel) and after the last (kimi_k3's message close,
    # plamo3's end-of-turn tag): admitted where no text is
    lead: Optional[n.Node] = None
    trail: Optional[n.Node] = None
    open_last: bool = False  # the last block may end with the turn, without its end marker


# The families whose calls hold a tool's schema only through Ctx.shaped (and beam's XML call
# messages): the part kept is built from a copy, so their requests' tools need no copy
_SHAPED_FAMILIES = frozenset(("xml_params", "xml_elements", "pythonic", "functiongemma", "muse"))


def keeps_copies(spec: FormatSpec) -> bool:
    """Whether a tag of ``spec``'s format holds the request's schemas only through parts built
    from copies of their own (Ctx.shaped), so that the request's tools need no copy."""
    return spec.family in _SHAPED_FAMILIES or spec.call.shape == "recipient_xml_parameters"


class Ctx:
    """What the builders share for one tag: the spec entry and the dropped-keyword log."""

    def __init__(self, spec: FormatSpec, drop: Dropped, private: bool = False) -> None:
        self.spec, self.drop, self.name = spec, drop, spec.name
        # whether the tools' schemas are the builder's own (copied from the caller's): the
        # parts kept across requests (Ctx.shaped) may then hold them as they are
        self.private = private
        self._bytes: Tuple[Any, bytes] = (None, b"")  # the last piece's schema and its bytes
        self.parts: Dict[Any, Callable[[FunctionTool], n.Node]] = {}  # builders made once a tag
        self.m: Mapping[str, str] = spec.markers
        self.call: Call = spec.call
        self.g: Grammar = spec.grammar
        # made once per tag, used for every parameter
        strip = self.call.value_newlines == "strip_one"
        self.newline = n.optional(n.const("\n")) if strip else n.const("")
        self.pad = n.ws(2)
        self.heads: Dict[Optional[str], List[n.Node]] = {}
        self._defs: Dict[int, bool] = {}
        self._copies: List[Any] = []  # the schemas pieces were built from (Ctx.piece)
        self.envelope: Any = None
        self.raw_text: Dict[str, n.Node] = {}  # a raw string value up to each end marker

    def defs_of(self, root: Mapping[str, Any]) -> bool:
        """Whether a tool's schema has definitions a sub-schema must carry along."""
        key = id(root)
        if key not in self._defs:
            self._defs[key] = "$defs" in root or "definitions" in root
        return self._defs[key]

    def roles(self, prefix: str) -> List[str]:
        """The markers of a role and its numbered alternates (``call_start``, ``call_start_2``)."""
        keys = sorted(
            (
                r
                for r in self.m
                if r == prefix or (r.startswith(prefix + "_") and r[len(prefix) + 1 :].isdigit())
            ),
            key=lambda r: (r != prefix, r),
        )
        return [self.m[r] for r in keys]

    def either(
        self, tools: Sequence[FunctionTool], one: Callable[[FunctionTool], n.Node]
    ) -> n.Node:
        """A call of any of ``tools``: ``one`` builds a tool's call from this format and the
        tool alone (what ``one`` reads besides the tool is the spec entry's)."""
        return n.or_(*[self.piece(t, one) for t in tools])

    def piece(self, tool: FunctionTool, one: Callable[[FunctionTool], n.Node]) -> n.Node:
        """``one(tool)``, kept across requests under the format, the builder (``one``'s code)
        and the tool's name and schema (marshal's bytes of it, as the request cache keys): a
        request with tools seen before reuses their calls, and logs the keywords they drop."""
        try:
            schema = marshal.dumps(tool.schema)  # type: ignore[arg-type]
        except ValueError:  # a schema of other types than JSON's: built every time
            return one(tool)
        key = (self.name, one.__code__, tool.name, schema)
        hit = PIECES.get(key)
        if hit is not None:
            if hit[1]:
                self.drop.items.update(hit[1])
                self.drop.added.extend(hit[1])
            return hit[0]
        added = self.drop.added
        start = len(added)
        # (the piece holds the tool's schema only through Ctx.shaped, which copies it)
        self._bytes = (tool.schema, schema)  # for Ctx.shaped, which one(tool) may call
        node = one(tool)
        if len(PIECES) >= PIECES_SIZE:
            PIECES.clear()
        PIECES[key] = (node, tuple(added[start:]))
        return node

    def shaped(
        self, tool: FunctionTool, part: Callable[[FunctionTool], n.Node], variant: str = ""
    ) -> n.Node:
        """``part(tool)`` for a part of a call that does not hold the tool's name (what follows
        it: the parameters), kept under the format, the builder (``part``'s code, and
        ``variant``: what else ``part`` reads that is not the spec entry's) and the schema's
        bytes: every tool of that schema shares it. Built under the name ``ANON``; the keywords
        it drops are logged under the tool's name."""
        schema = tool.schema
        known = self._bytes
        if known[0] is schema:
            data = known[1]
        else:
            try:
                data = marshal.dumps(schema)  # type: ignore[arg-type]
            except ValueError:  # a schema of other types than JSON's: built every time
                return part(tool)
        key = (self.name, part.__code__, variant, data)
        hit = SHAPES.get(key)
        if hit is None:
            if not self.private:
                # built from a copy of the schema of its own: the caller changing its tools
                # later cannot change the part kept (kept alive with the Ctx: defs_of keys on id)
                schema = marshal.loads(data)
                self._copies.append(schema)
            drop, self.drop = self.drop, Dropped()  # what the part drops, kept with it
            try:
                node = part(FunctionTool(ANON, schema))
                dropped = tuple(self.drop.added)
            finally:
                self.drop = drop
            if len(SHAPES) >= PIECES_SIZE:
                SHAPES.clear()
            hit = SHAPES[key] = (node, dropped)
        if hit[1]:
            prefix = ANON + "."
            for where, keyword in hit[1]:
                if where.startswith(prefix):
                    where = tool.name + where[len(ANON) :]
                self.drop.add(where, keyword)
        return hit[0]

    def args(self, tool: FunctionTool) -> n.Node:
        """A JSON arguments object held to the tool's schema (any object when not strict)."""
        schema = tool.schema if isinstance(tool.schema, dict) else {"type": "object"}
        return n.json_schema(schema, "json", ARGS_WS)


def _either(tools: Sequence[FunctionTool], one: Callable[[FunctionTool], n.Node]) -> n.Node:
    return n.or_(*[one(t) for t in tools])


def _list(item: n.Node, sep: n.Node, single: bool) -> n.Node:
    return n.one_or_more(item, sep, single=single)


def _key(k: str) -> str:
    return n.lit(json.dumps(k))


# ----- JSON envelopes -----


@dataclass(frozen=True)
class _Envelope:
    """The constant pieces of a format's JSON call object (regex nodes, made once per tag)."""

    open_name: n.Node  # ``{"name": `` (an id key before it where the format has one)
    name_to_args: n.Node  # ``, "arguments": ``
    open_args: n.Node
    args_to_name: n.Node
    close: n.Node


def _envelope_parts(c: Ctx) -> _Envelope:
    if c.envelope is not None:
        return c.envelope  # type: ignore[no-any-return]
    w = n.ws_pattern(LAYOUT_WS)
    name_keys, args_keys = c.call.name_keys or ("name",), c.call.args_keys or ("arguments",)
    nk = "(" + "|".join(_key(k) for k in name_keys) + ")"
    ak = "(" + "|".join(_key(k) for k in args_keys) + ")"
    ids = c.call.id_keys
    head = r"\{" + w
    if ids:
        head += (
            "(" + "|".join(_key(k) for k in ids) + w + ":" + w + r'"[^"\\]*"' + w + "," + w + ")?"
        )
    close = w + r"\}"
    tail = c.g.trailing_id_keys
    if tail:
        # the id key last (Mistral Nemo's "id": "..."), as the template writes it
        keys = "|".join(_key(k) for k in tail)
        close = "(" + w + "," + w + "(" + keys + ")" + w + ":" + w + r'"[^"\\]*"' + ")?" + close
    if c.call.keyed_by_name:
        parts = _Envelope(
            n.regex(r"\{" + w), n.regex(w + ":" + w), n.const(""), n.const(""), n.regex(w + r"\}")
        )
    else:
        parts = _Envelope(
            n.regex(head + nk + w + ":" + w),
            n.regex(w + "," + w + ak + w + ":" + w),
            n.regex(head + ak + w + ":" + w),
            n.regex(w + "," + w + nk + w + ":" + w),
            n.regex(close),
        )
    c.envelope = parts
    return parts


def _envelope(c: Ctx, tool: FunctionTool) -> n.Node:
    """``{"name": N, "arguments": {...}}`` with the spec's keys, either key order, an optional
    id key first (cohere), or ``{N: {...}}`` (apertus)."""
    e = _envelope_parts(c)
    name = n.const(json.dumps(tool.name, ensure_ascii=False))
    args = c.args(tool)
    if c.call.keyed_by_name:
        return n.seq(e.open_name, name, e.name_to_args, args, e.close)
    return n.or_(
        n.seq(e.open_name, name, e.name_to_args, args, e.close),
        n.seq(e.open_args, args, e.args_to_name, name, e.close),
    )


def _json_items(c: Ctx, tools: Sequence[FunctionTool], single: bool) -> n.Node:
    """The calls of a JSON list, without its brackets."""
    w = n.ws_pattern(LAYOUT_WS)
    item = _either(tools, lambda t: _envelope(c, t))
    return n.seq(n.ws(LAYOUT_WS), _list(item, n.regex(w + "," + w), single), n.ws(LAYOUT_WS))


def tagged_json(c: Ctx) -> Plan:
    shape = c.call.shape
    starts, ends = c.roles("call_start"), c.roles("call_end")

    def end_for(start: str) -> str:
        if len(ends) == 1:
            return ends[0]
        for e in ends:
            if start.startswith(e) or e == start[:1] + "/" + start[1:]:
                return e
        return ""

    def objects(tail: n.Node) -> Callable[[Sequence[FunctionTool], bool], n.Node]:
        def content(ts: Sequence[FunctionTool], s: bool) -> n.Node:
            return n.seq(n.ws(), _either(ts, lambda t: _envelope(c, t)), tail)

        return content

    def lines(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        # a section of call objects one per line (``calls`` "newline")
        sep = n.regex(r"[ \t]{0,4}\n" + n.ws_pattern())
        return n.seq(n.ws(), _list(_either(ts, lambda t: _envelope(c, t)), sep, s), n.ws())

    def bare_list(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return _json_items(c, ts, s)  # the list's own brackets begin and end the block

    def open_list(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), n.const("["), _json_items(c, ts, s))  # "]" ends the block

    def closed_list(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), n.const("["), _json_items(c, ts, s), n.const("]"), n.ws())

    def named_or_list(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        # v11+ ``NAME[ARGS]{...}``, or pre-v11 a JSON list of calls (``[{"name": ...}]``)
        named = _either(ts, lambda t: _name_then_args(c, t))
        # the list a tag of its own: a block ending in nothing must hold a bounded content
        return n.or_(named, n.seq(n.ws(), n.tag("[", _json_items(c, ts, s), "]")))

    # what else may end a call: the template's message end after it, or nothing ("") where the
    # end marker is an end-of-sequence token the text does not hold (gigachat3's ``</s>``)
    also = list(c.g.call_ends)
    blocks: List[Block] = []
    for start in starts:
        end = end_for(start)
        if shape == "object" and c.spec.calls == "newline":
            blocks.append(Block(start, lines, [end, *also] if also else end, holds_many=True))
        elif shape == "object":
            closes = [end, *also] if also else end
            blocks.append(Block(start, objects(n.ws() if end else n.const("")), closes))
        elif shape == "array" and start == "[":  # xlam's bare list
            blocks.append(Block("[", bare_list, "]", holds_many=True))
        elif shape == "array" and not end:
            blocks.append(Block(start, open_list, "]", holds_many=True))
        elif shape == "array":
            blocks.append(Block(start, closed_list, end, holds_many=True))
        else:  # mistral: after the start marker a list, or NAME[ARGS]{...} once per call
            blocks.append(Block(start, named_or_list, end))
    return Plan(blocks)


def _name_then_args(c: Ctx, t: FunctionTool) -> n.Node:
    """``NAME[CALL_ID]id[ARGS]{...}`` (the id and the args marker optional, as tokenizers write
    them)."""
    m = c.m
    call_id = n.const("")
    if "call_id" in m:
        call_id = n.optional(n.seq(n.const(m["call_id"]), n.regex("[A-Za-z0-9]{1,64}")))
    args_start = n.optional(n.const(m["args_start"])) if "args_start" in m else n.const("")
    return n.seq(n.const(t.name), call_id, args_start, c.args(t))


def llama3_json(c: Ctx) -> Plan:
    """``{"name": N, "parameters": {...}}`` objects separated by ``;``; no marker before them
    (``<|python_tag|>`` is optional), so the trigger is the object's brace."""
    w = n.ws_pattern()

    parts = _envelope_parts(c)
    # the envelope's opening and closing pieces without their braces (made once per tag)
    bare_name = n.regex(parts.open_name["pattern"][2:])
    bare_args = n.regex(parts.open_args["pattern"][2:])
    bare_close = n.regex(parts.close["pattern"][:-2])

    def inner(t: FunctionTool) -> n.Node:
        """The envelope between its braces (the block's begin and end)."""
        if not c.call.keyed_by_name:  # _envelope's two key orders, built without the braces
            name, args = n.const(json.dumps(t.name, ensure_ascii=False)), c.args(t)
            return n.or_(
                n.seq(bare_name, name, parts.name_to_args, args, bare_close),
                n.seq(bare_args, args, parts.args_to_name, name, bare_close),
            )
        env = _envelope(c, t)
        out = []
        for e in env["elements"]:
            first, last = e["elements"][0], e["elements"][-1]
            body = [
                n.regex(first["pattern"][2:]),
                *e["elements"][1:-1],
                n.regex(last["pattern"][:-2]),
            ]
            out.append(n.seq(*body))
        return n.or_(*out)

    block = Block("{", lambda ts, s: _either(ts, inner), "}")
    return Plan([block], distinct=False, between=n.regex(w + n.lit(c.m.get("separator", ";")) + w))


def named_json(c: Ctx) -> Plan:
    """Sections of calls whose name sits between markers and whose arguments are JSON."""
    m, shape = c.m, c.call.shape
    w = n.ws()

    def call(t: FunctionTool) -> n.Node:
        a = c.args(t)
        if shape == "type_sep_name_fenced_args":
            return n.seq(
                n.const(m["call_start"] + "function" + m["name_start"] + t.name + m["args_start"]),
                w,
                a,
                w,
                n.const(m["args_end"]),
                w,
                n.const(m["call_end"]),
            )
        if shape == "name_sep_args" and "name_start" in m:
            # a field before the name (an inferred Solar's call id), which the parser skips
            return n.seq(
                n.const(m["call_start"]),
                n.regex("[A-Za-z0-9_.:-]{1,64}"),
                n.const(m["name_start"] + t.name),
                w,
                n.const(m["args_start"]),
                w,
                a,
                w,
                n.const(m["call_end"]),
            )
        if shape == "name_sep_args":
            return n.seq(
                n.const(m["call_start"] + t.name),
                w,
                n.const(m["args_start"]),
                w,
                a,
                w,
                n.const(m["call_end"]),
            )
        if shape == "id_sep_args":
            head = m["call_start"] + (c.call.name_prefix or "") + t.name
            return n.seq(
                n.const(head),
                n.regex(":[0-9]+"),
                w,
                n.const(m["args_start"]),
                w,
                a,
                w,
                n.const(m["call_end"]),
            )
        # tagged_name_tagged_args
        return n.seq(
            n.const(m["call_start"] + m["name_start"] + t.name + m["args_start"]),
            w,
            a,
            w,
            n.const(m["args_end"]),
            w,
            n.const(m["call_end"]),
        )

    def section(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), _list(_either(ts, call), n.ws(), s), n.ws())

    blocks = [Block(m["section_start"], section, m["section_end"], True)]
    if "section_start_alt" in m:
        blocks.append(Block(m["section_start_alt"], section, m["section_end_alt"], True))
    return Plan(blocks)


# ----- XML parameters -----


_PLAIN_TYPES = ("integer", "number", "boolean", "null", "array", "object")
_COMPOSED_KEYWORDS = ("$ref", "anyOf", "oneOf", "enum", "const")


def _xml_value(
    c: Ctx, root: Mapping[str, Any], schema: Any, end: str, where: str
) -> Tuple[n.Node, str]:
    """A parameter's value and the JSON type it is written as (``string``: raw text)."""
    ty = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(ty, str) and not any(k in schema for k in _COMPOSED_KEYWORDS):
        types = [ty]  # the common case: one plain type
    else:
        choices = scalar_choices(schema, root)
        if choices is not None and all(isinstance(v, str) for v in choices):
            nl = c.newline
            return n.seq(nl, n.or_(*[n.const(v) for v in choices]), nl), "string"
        types = types_of(schema, root)
    if "string" in types or (len(types) > 1 and "object" not in types and "array" not in types):
        node = resolve(schema, root)
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
    items = []
    for k, v in props:
        value, written = _xml_value(c, root, v, end, f"{t.name}.{k}")
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
        items.append((param, k in req))
    if not items:
        return n.const("")
    body = ordered(items, sep)
    keys = [k for k, _ in props]
    if c.g.sorted_parameters and sorted(keys) != keys:
        # sorted by name too (two orders, each checking the required keys; xgrammar's any-order
        # objects would drop that check)
        by_name = [items[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]
        body = n.or_(body, ordered(by_name, sep))
    return n.seq(body, sep)


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
            gap = n.ws() if name_end.strip() else n.const("")
            return n.seq(gap, _params(c, t), n.const(end))

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
        return n.seq(n.ws(), _list(c.either(ts, function), sep, s or not many), tail)

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
        items = []
        for k, v in props:
            end = f"{ns}</{k}>"
            value, _ = _xml_value(c, root, v, end, f"{t.name}.{k}")
            item = n.tag(f"{ns}<{k}>", value, end)
            if nested and {"object", "array"} & set(types_of(v, root)):
                # or as nested elements (<item> per array element), as the template writes them
                one = {"type": "object", "properties": {k: v}, "required": [k]}
                item = n.or_(item, n.json_schema(with_defs(one, root), "minimax_m3_xml", n.WS))
            items.append((item, k in req))
        return n.seq(ordered(items, n.ws()), n.ws())

    def rest(t: FunctionTool) -> n.Node:  # what follows the name
        return n.seq(n.ws(), params(t), n.const(m["invoke_end"]))

    def invoke(t: FunctionTool) -> n.Node:
        name = m["invoke_start"] + json.dumps(t.name, ensure_ascii=False) + ">"
        return n.prefixed(name, c.shaped(t, rest))

    def section(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), _list(c.either(ts, invoke), n.ws(), s), n.ws())

    return Plan([Block(m["call_start"], section, m["call_end"], True)])


# ----- Python literals, Gemma values -----


def _kwargs(c: Ctx, t: FunctionTool, values: Callable[[Mapping[str, Any]], Values]) -> n.Node:
    root = t.schema if isinstance(t.schema, dict) else {}
    v = values(root)
    props, req, named = properties(root, root) if root else ([], set(), False)
    comma = n.regex(n.ws_pattern(2) + "," + n.ws_pattern(2))
    if not named:
        pair = n.seq(n.regex(r"[A-Za-z_][A-Za-z0-9_]*="), v.value(True, 2))
        return n.optional(n.seq(pair, n.star(n.seq(comma, pair))))
    items = [(n.seq(n.const(k + "="), v.value(s)), k in req) for k, s in props]
    return ordered(items, comma)


def pythonic(c: Ctx) -> Plan:
    m = c.m
    syn = python_syntax(c.g.value_forms)

    def values(root: Mapping[str, Any]) -> Values:
        return Values(syn, root, c.drop, c.spec.name)

    def rest(t: FunctionTool) -> n.Node:  # what follows the name
        return n.seq(n.ws(2), _kwargs(c, t, values), n.ws(2), n.const(")"))

    def call(t: FunctionTool) -> n.Node:
        return n.prefixed(t.name + "(", c.shaped(t, rest))

    w = n.ws_pattern()
    if c.spec.calls == "newline":

        def lines(ts: Sequence[FunctionTool], s: bool) -> n.Node:
            return n.seq(n.ws(), _list(c.either(ts, call), n.regex(r"[ \t]{0,4}\n" + w), s), n.ws())

        return Plan([Block(m["section_start"], lines, m["section_end"], True)])

    def listed(ts: Sequence[FunctionTool], s: bool) -> n.Node:
        return n.seq(n.ws(), _list(c.either(ts, call), n.regex(w + "," + w), s), n.ws())

    if "section_start" in m:

        def section(ts: Sequence[FunctionTool], s: bool) -> n.Node:
            return n.seq(n.ws(), n.const("["), listed(ts, s), n.const("]"), n.ws())

        return Plan([Block(m["section_start"], section, m["section_end"], True)])
    return Plan([Block("[", listed, "]", True)], distinct=False)


def functiongemma(c: Ctx) -> Plan:
    m = c.m
    # Gemma 4's values as its chat template writes them (None, dictsort order, bare keys)
    syn = gemma(m["string"], template=c.spec.arguments == "gemma4_values")

    def args(t: FunctionTool) -> n.Node:
        root = t.schema if isinstance(t.schema, dict) else {}
        return Values(syn, root, c.drop, c.spec.name).obj(root if root else True, 4)

    def call(t: FunctionTool) -> n.Node:
        return n.prefixed(m["name_start"] + t.name, c.shaped(t, args))

    return Plan([Block(m["call_start"], lambda ts, s: c.either(ts, call), m["call_end"])])


# ----- channel formats -----


def inkling(c: Ctx) -> Plan:
    m = c.m
    return Plan(
        [
            Block(
                m["call_start"],
                lambda ts, s: n.seq(_either(ts, lambda t: _envelope(c, t)), n.ws()),
                [m["end"], m["end_sampling"]],
            )
        ],
        between=n.seq(n.ws(), n.optional(n.const(m["message_start"])), n.ws()),
        # a thinking message is reasoning (its own reasoning format has no think block)
        lead=n.seq(
            n.tag(m["thinking_start"], n.any_text([m["end"]]), m["end"]),
            n.ws(),
            n.optional(n.const(m["message_start"])),
        ),
    )


def functionary(c: Ctx) -> Plan:
    """MeetKai Functionary: v3.1's ``<function=NAME>{...}</function>`` blocks; v3.2's recipient
    messages, from the spec's ``grammar.messages``: the first one right after the prompt's
    separator (``>>>``, which the output may repeat), a call's header (``NAME\\n``) then its
    arguments, the content recipient's header (``all\\n``) then text; every later message starts
    with the separator."""
    m = c.m
    spec = c.g.messages
    if spec is None:

        def fn(t: FunctionTool) -> n.Node:
            return n.seq(n.const(t.name + m["name_end"]), c.args(t), n.ws())

        return Plan([Block(m["call_start"], lambda ts, s: _either(ts, fn), m["call_end"])])
    # the content recipient's message has one header (``all\n``)
    sep, heads, begin = spec.separator, spec.call.headers, spec.content.begin[0]

    def call(t: FunctionTool) -> n.Node:
        return n.seq(n.or_(*[n.const(h.replace("{name}", t.name)) for h in heads]), c.args(t))

    def assemble(req: Any, excludes: Sequence[str]) -> n.Node:
        first, lead = _either(req.tools, call), n.optional(n.const(sep))
        if req.mode == "auto":
            tags = [
                n.tag(sep + h.replace("{name}", t.name), c.args(t), "")
                for t in req.tools
                for h in heads
            ]
            if req.single:  # any text, at most one call, which ends the turn
                later = n.triggered([sep], tags, single=True, excludes=excludes)
                return n.seq(lead, n.or_(first, n.seq(n.const(begin), later)), n.ws())
            tags.append(n.tag(sep + begin, n.any_text([sep]), ""))
            later = n.triggered([sep], tags, excludes=excludes)
            return n.seq(lead, n.or_(n.seq(first, later), n.seq(n.const(begin), later)))
        more = n.star(n.seq(n.ws(), n.const(sep), _either(req.tools, call)))
        single = req.single or req.mode == "forced"
        return n.seq(lead, first, n.const("") if single else more, n.ws())

    return Plan([], messages=assemble)


FAMILIES: Dict[str, Callable[[Ctx], Plan]] = {
    "tagged_json": tagged_json,
    "llama3_json": llama3_json,
    "named_json": named_json,
    "xml_params": xml_params,
    "xml_elements": xml_elements,
    "pythonic": pythonic,
    "functiongemma": functiongemma,
    "inkling": inkling,
    "functionary": functionary,
}


def _channel_body(c: Ctx, tools: Sequence[FunctionTool], single: bool) -> n.Node:
    """A muse call message's body: an ATEM section of invokes (its wrapper may be left out)."""
    m = c.m

    def fn(t: FunctionTool) -> n.Node:
        return _function_rest(c, t, _function_end(c), m["function_start"])

    invokes = n.one_or_more(c.either(tools, fn), n.ws(), single=single)
    return n.or_(
        n.seq(n.const(m["call_start"]), n.ws(), invokes, n.ws(), n.const(m["call_end"])), invokes
    )


def channels(c: Ctx) -> Plan:
    """Formats whose output is a run of messages (harmony, beam, muse): a call is a message to
    the function's recipient, reasoning and content are messages on their channels. The spec's
    ``grammar.messages`` gives the headers and ends the chat template writes."""
    spec = c.g.messages
    if spec is None:
        raise ValueError(f"format spec: {c.spec.name}: a channel format needs grammar.messages")
    sep = n.const(spec.separator)
    ends = n.or_(*[n.const(e) for e in spec.call.end])

    headers = spec.call.headers

    def head(t: FunctionTool) -> n.Node:
        return n.or_(*[n.const(h.replace("{name}", t.name)) for h in headers])

    def rest(t: FunctionTool) -> n.Node:  # an XML call message after its header
        return n.seq(n.ws(), _params(c, t), ends)

    def xml_call(t: FunctionTool) -> n.Node:
        h = head(t)
        if h["type"] == "const_string":
            return n.prefixed(h["value"], c.shaped(t, rest))
        return n.seq(h, c.shaped(t, rest))

    def calls(tools: Sequence[FunctionTool], single: bool) -> n.Node:
        """One call message (muse: one message may hold several invokes)."""
        if c.spec.family == "muse":
            return n.seq(_either(tools, head), _channel_body(c, tools, single), ends)
        if c.call.shape == "recipient_xml_parameters":
            return c.either(tools, xml_call)
        return _either(tools, lambda t: n.seq(head(t), c.args(t), ends))

    def message(m: Message) -> n.Node:
        return n.or_(*[n.tag(b, n.any_text(), list(m.end)) for b in m.begin])

    def run(first: n.Node, rest: Optional[n.Node] = None) -> n.Node:
        """Messages one after another: the first may omit the separator (the prompt ends with
        it); ``rest`` writes it before every later one."""
        return n.seq(n.optional(sep), first, rest if rest is not None else n.const(""))

    def more(m: n.Node) -> n.Node:
        return n.star(n.seq(sep, m))

    def assemble(req: Any, excludes: Sequence[str]) -> n.Node:
        if spec.reasoning is None:
            raise ValueError(f"format spec: {c.spec.name}: no grammar.messages.reasoning")
        reasoning = message(spec.reasoning)
        call = calls(req.tools, req.single)
        if req.mode == "auto":
            other = n.or_(reasoning, message(spec.content))
            if req.single:  # any messages, at most one call, which ends the turn
                return n.or_(
                    run(other, n.seq(more(other), n.optional(n.seq(sep, call)))), run(call)
                )
            anything = n.or_(other, call)
            return run(anything, more(anything))
        single = req.single or req.mode == "forced"
        # reasoning messages first, as the model writes them, then the calls
        return n.or_(
            run(call, None if single else more(call)),
            run(
                reasoning, n.seq(more(reasoning), sep, call, n.const("") if single else more(call))
            ),
        )

    return Plan([], messages=assemble)


FAMILIES["openai"] = channels
FAMILIES["muse"] = channels

"""One call grammar per family, configured by the format's spec entry: the same markers, shapes
and keys its parser machine runs on. A family gives the *blocks* a model writes calls in (a
block is what a trigger opens: one call, or a section or list holding several) and the call of
one function; ``toolparse.grammar`` assembles them for the tool choice."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ..spec_types import Message
from . import nodes as n
from .ctx import (  # noqa: F401 - ARGS_WS, PIECES, SHAPES, keeps_copies: the package's names
    ARGS_WS,
    LAYOUT_WS,
    PIECES,
    SHAPES,
    Block,
    Ctx,
    Plan,
    keeps_copies,
)
from .request import FunctionTool
from .schema import properties
from .values import Values, gemma, ordered, python_syntax
from .xml_params import _function_end, _function_rest, _params, xml_elements, xml_params


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


# ----- Python literals, Gemma values -----


def _kwargs(c: Ctx, t: FunctionTool, values: Callable[[Mapping[str, Any]], Values]) -> n.Node:
    root = t.schema if isinstance(t.schema, dict) else {}
    v = values(root)
    props, req, named = properties(root, root) if root else ([], set(), False)
    comma = n.regex(n.ws_pattern(2) + "," + n.ws_pattern(2))
    if not named:
        pair = n.seq(n.regex(r"[A-Za-z_][A-Za-z0-9_]*="), v.value(True, 2))
        return n.optional(n.seq(pair, n.star(n.seq(comma, pair))))

    def build(k: str, s: Any) -> n.Node:
        return n.seq(n.const(k + "="), v.value(s))

    items, after = c.items(build, props, req, comma)
    return ordered(items, comma, after)


def pythonic(c: Ctx) -> Plan:
    m = c.m
    syn = python_syntax(c.g.value_forms)

    def values(root: Mapping[str, Any]) -> Values:
        return Values(syn, root, c.drop, c.spec.name)

    def rest(t: FunctionTool) -> n.Node:  # what follows the name
        return n.around(n.ws(2), _kwargs(c, t, values), n.ws(2), n.const(")"))

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
        values = Values(syn, root, c.drop, c.spec.name)
        values.items = c.items  # the top-level object's parameters kept across tools
        return values.obj(root if root else True, 4)

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
        return n.around(n.ws(), _params(c, t), ends)

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

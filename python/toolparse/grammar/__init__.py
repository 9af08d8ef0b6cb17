"""Strict tool calling: an xgrammar structural tag generated from the same spec entry the parser
runs on, so the grammar a server constrains generation with and the parser that reads the output
cannot drift apart.

    tag = toolparse.structural_tag("hermes", tools, tool_choice="required")
    # -> {"type": "structural_tag", "format": {...}}: plain data, xgrammar's StructuralTag shape

Semantics (vLLM's ``ToolStrictLevel``, OpenAI's API): ``tool_choice`` "auto" lets the model write
text and calls (a call, once its trigger is written, must be well formed, to a function in
``tools``), "required" one or more calls and no text around them, a named function exactly one
call to it, "none" nothing to constrain (``None``). ``strict`` "auto" holds the arguments of tools
marked ``"strict": true`` to their schema and constrains the envelope for required and named
(auto with no strict tool: ``None``); "function" constrains the envelope always; "parameter" holds
every tool's arguments to its schema. ``parallel_tool_calls=False`` allows one call and no text
after it. Tools of other kinds (custom, built-in) are not constrained.
"""

from __future__ import annotations

import copy
import json
import marshal
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence

from .. import spec as _spec
from . import nodes as n
from .ctx import PARAMS
from .families import FAMILIES, PIECES, SHAPES, Block, Ctx, Plan, keeps_copies
from .request import STRICT_LEVELS, FunctionTool, Request, resolve
from .schema import Dropped, prepare

__all__ = ["STRICT_LEVELS", "structural_tag"]


def _plan(fmt: str, drop: Dropped, private: bool = False) -> Plan:
    spec = _spec.get_spec(fmt)
    build = FAMILIES.get(spec.family)
    if build is None:  # every family has a builder; a new family must add one
        raise NotImplementedError(f"structural_tag: no grammar for family {spec.family!r}")
    plan = build(
        Ctx(spec, drop, private)
    )  # a family without blocks (channels) assembles its messages
    # the spec names the trigger (None: no marker tells a call from text); its block goes first
    trigger = spec.grammar.trigger
    plan.distinct = trigger is not None
    plan.blocks.sort(key=lambda b: b.begin != trigger)
    if spec.turn_end and plan.trail is None:
        plan.trail = n.const(spec.turn_end)  # plamo3's end-of-turn tag after the calls
    plan.open_last = spec.grammar.open_last_block
    return plan


def _distinct_blocks(blocks: Sequence[Block]) -> List[Block]:
    """The blocks whose triggers are not prefixes of one another (the first of a clash wins):
    xgrammar dispatches each tag on exactly one trigger."""
    out: List[Block] = []
    for b in blocks:
        if all(not (o.begin.startswith(b.begin) or b.begin.startswith(o.begin)) for o in out):
            out.append(b)
    return out


def _think_block(fmt: str, reasoning: Optional[str]) -> Optional[str]:
    """The reasoning format whose think block goes before the calls: ``reasoning``, else the
    format's own default (``default_reasoning``: the block its parser reads as reasoning without
    ``reasoning=``). None where there is none, and for a reasoning format without a think block
    of its own (harmony's and the other channel formats', inkling's): its tool format's own
    grammar carries the reasoning."""
    name = reasoning if reasoning is not None else _spec.get_spec(fmt).default_reasoning
    if not name:
        return None
    r = _spec.REASONING[_spec.reasoning_canonical(name)]
    if r.tool_format is not None or not r.start or not r.end:
        return None
    return r.name


def _reasoning_prefix(reasoning: Optional[str], started: Optional[bool]) -> Optional[n.Node]:
    if reasoning is None:
        return None
    r = _spec.REASONING[_spec.reasoning_canonical(reasoning)]
    if started is None:
        started = r.started
    if not started and r.markers_off_when_disabled:
        # thinking disabled: the markers are off, there is no block
        return None
    excludes = [*r.starts, *r.ends]
    plain = not r.content_prefix  # minimax_m2_append_think reads its block as content
    if started:
        # the prompt opened the block; the model may write the opener again (the Qwen3,
        # GLM-4.6, Kimi-K2-Thinking and DeepSeek-R1-0528 templates do not prefill it)
        opener = n.optional(n.or_(*[n.const(s) for s in r.starts])) if plain else n.const("")
        block = n.seq(opener, n.tag("", n.any_text(excludes), r.end))
    else:
        full = n.tag(r.start, n.any_text(excludes), r.end)
        # thinking off: the empty block or the bare closer the template writes (GLM-4.6's
        # "\n<think></think>", MiniMax-M3's "</mm:think>")
        bare = [n.const(e) for e in (r.end, *r.also_end)] if plain else []
        block = n.seq(n.ws(), n.optional(n.or_(full, *bare)))
    return n.seq(block, n.ws())


def _optional_think(fmt: str) -> Optional[n.Node]:
    """The spec's ``grammar.optional_reasoning``, for a request with no reasoning format: the
    think block its chat template writes before the calls, admitted and not required, whole
    (``<think>...</think>``), empty, or only its end (``...</think>``, the prompt having opened
    it). The parser without a reasoning format reads it as content."""
    name = _spec.get_spec(fmt).grammar.optional_reasoning
    if not name:
        return None
    r = _spec.REASONING[_spec.reasoning_canonical(name)]
    opener = n.optional(n.or_(*[n.const(s) for s in r.starts]))
    block = n.seq(opener, n.tag("", n.any_text([*r.starts, *r.ends]), r.end))
    return n.seq(n.ws(), n.optional(block), n.ws())


def _body(plan: Plan, req: Request, excludes: Sequence[str]) -> n.Node:
    blocks = _distinct_blocks(plan.blocks)
    tools, single = req.tools, req.single

    def tag(b: Block) -> n.Node:
        return n.tag(b.begin, b.content(tools, single), b.end)

    trail = n.const("")
    if plan.trail is not None:
        trail = n.optional(n.seq(plan.trail, n.ws()))
    if req.mode == "auto" and single:
        # one call ends the turn; whitespace after it is no text (the parser drops it too)
        tags = [tag(b) for b in blocks]
        return n.seq(
            n.triggered([b.begin for b in blocks], tags, single=True, excludes=excludes),
            n.ws(),
            trail,
        )
    if req.mode == "auto":
        return n.triggered(
            [b.begin for b in blocks], [tag(b) for b in blocks], single=single, excludes=excludes
        )
    lead = n.optional(n.seq(plan.lead, n.ws())) if plan.lead is not None else n.const("")
    if req.mode == "forced":
        single = True
        one = n.or_(*[n.tag(b.begin, b.content(tools, True), b.end) for b in blocks])
    else:
        one = n.or_(*[tag(b) for b in blocks])
    calls = n.one_or_more(one, plan.between, single=single)
    if plan.open_last:
        # the turn may end inside the last block: its end marker left out
        unclosed = n.or_(*[n.seq(n.const(b.begin), b.content(tools, single)) for b in blocks])
        last = n.or_(one, unclosed)
        calls = last if single else n.seq(n.star(n.seq(one, plan.between)), last)
    return n.seq(n.ws(), lead, calls, n.ws(), trail)


def structural_tag(
    format: str,  # noqa: A002 - the API's name for it
    tools: Optional[Sequence[Any]] = None,
    *,
    tool_choice: Any = "auto",
    strict: str = "auto",
    parallel_tool_calls: bool = True,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
) -> Optional[Dict[str, Any]]:
    """The xgrammar structural tag (plain JSON data) that holds a model writing ``format`` to
    well-formed calls of ``tools``, or ``None`` when there is nothing to constrain. ``reasoning``
    (a reasoning format) puts its think block first; ``reasoning_started`` says whether the
    prompt already opened it (default: the reasoning format's own default). Raises ``ValueError``
    naming the argument for an unknown format, reasoning format, ``tool_choice``, ``strict``, or a
    named function not in ``tools``.

    Requests repeat their tools: the tags of the last requests are kept, keyed by the arguments'
    bytes, and the same arguments get the same object back. Treat it as read-only (copy it
    before changing it). A tag is built from a copy of the arguments: a caller changing its
    tools afterwards changes no tag kept."""
    args = (format, tools, tool_choice, strict, parallel_tool_calls, reasoning, reasoning_started)
    key = _key(*args)
    if key is not None:
        hit = _CACHE.get(key, _MISS)
        if hit is not _MISS:
            _CACHE.move_to_end(key)
            return hit  # type: ignore[return-value]
    # no "$ref" anywhere in the request: no schema has one to resolve (a key that holds the
    # text elsewhere, in a description, only costs the per-schema check)
    refs = key is None or _REF in key
    tag = _build(*args, refs, key)
    if key is not None:
        _CACHE[key] = tag
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return tag


_CACHE: OrderedDict[Any, Optional[Dict[str, Any]]] = OrderedDict()
_CACHE_SIZE = 64
_MISS = object()
_REF = b"$ref"


def _key(*args: Any) -> Optional[bytes]:
    """The arguments as bytes that only equal arguments give (``marshal``: exact built-in types
    only, a tenth of JSON's cost for 100 tools; a request marshal refuses falls back to its JSON
    text), or None for models and other objects (built every time). marshal writes an object
    met twice as a back reference, so equal arguments shared differently may miss the cache;
    equal bytes always mean equal arguments."""
    try:
        return marshal.dumps(args)
    except ValueError:
        pass
    try:
        return json.dumps(args).encode()
    except (TypeError, ValueError):
        return None


def _private(key: bytes, tools: Any) -> Any:
    """The tools copied, the builder's own: loaded back from the arguments' marshal bytes (the
    cache key), or deep-copied where the key is their JSON text (JSON would turn their types,
    keys and tuples into others)."""
    if key[:1] == b"[":  # JSON writes the arguments as a list; marshal never begins with "["
        return copy.deepcopy(tools)
    return marshal.loads(key)[1]


def _clear_caches() -> None:
    """Forget every tag and piece built (what a request never seen pays: the benchmarks' cold
    case, tests)."""
    _CACHE.clear()
    PIECES.clear()
    SHAPES.clear()
    PARAMS.clear()


def _registered(_spec: Any, _reasoning: Any) -> None:
    """A format was registered at run time (``toolparse.register_format``): the tags cached
    under its name, or under a name it replaced, are out of date."""
    _clear_caches()


def _build(
    format: str,  # noqa: A002
    tools: Optional[Sequence[Any]],
    tool_choice: Any,
    strict: str,
    parallel_tool_calls: bool,
    reasoning: Optional[str],
    reasoning_started: Optional[bool],
    refs: bool = True,
    key: Optional[bytes] = None,
) -> Optional[Dict[str, Any]]:
    try:
        fmt = _spec.canonical(format)
    except (ValueError, TypeError) as e:
        raise ValueError(f"format: {e}") from None
    # a tag kept under ``key`` is built from a copy of the tools, so that the caller changing
    # them later changes no tag: a copy of the request's, or (formats whose calls hold schemas
    # only through Ctx.shaped, which copies what it keeps) of each shared part's schema
    private = False
    if key is not None and (key[:1] == b"[" or not keeps_copies(_spec.get_spec(fmt))):
        tools, private = _private(key, tools), True
    if reasoning is not None:
        try:
            _spec.reasoning_canonical(reasoning)
        except (ValueError, TypeError) as e:
            raise ValueError(f"reasoning: {e}") from None
    if reasoning_started not in (None, True, False):
        raise ValueError("reasoning_started: expected True, False or None")
    req = resolve(tools, tool_choice, strict, parallel_tool_calls)
    if req is None:
        return None
    drop = Dropped()
    if refs:
        req = Request(
            tuple(FunctionTool(t.name, prepare(t.schema, drop, t.name)) for t in req.tools),
            req.mode,
            req.single,
        )
    plan = _plan(fmt, drop, private)
    if req.mode == "auto" and not plan.distinct and strict == "auto":
        return None
    asked = reasoning is not None
    reasoning = _think_block(fmt, reasoning)
    prefix = _reasoning_prefix(reasoning, reasoning_started)
    if reasoning is None and not asked and req.mode != "auto":
        prefix = _optional_think(fmt)  # auto's text admits the block already
    excludes: List[str] = []
    # a format's default think block leaves auto's text as it was (its markers stay text there)
    if reasoning is not None and asked:
        r = _spec.REASONING[_spec.reasoning_canonical(reasoning)]
        started = r.started if reasoning_started is None else reasoning_started
        if started or not r.markers_off_when_disabled:
            excludes = [*r.starts, *r.ends]
    if plan.messages is not None:
        body = plan.messages(req, excludes)
    else:
        body = _body(plan, req, excludes)
    drop.flush(fmt)
    return n.structural_tag(n.seq(prefix, body) if prefix is not None else body)

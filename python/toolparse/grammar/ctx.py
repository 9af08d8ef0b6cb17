"""What the family builders share for one tag (``Ctx``: the spec entry, the dropped-keyword
log, the parts kept across requests) and what they return (``Plan``, ``Block``)."""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ..spec import FormatSpec
from ..spec_types import Call, Grammar
from . import nodes as n
from .request import FunctionTool
from .schema import Dropped
from .values import later

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
# The parameters of the parts above (Ctx.items), a table per format and builder keyed by the
# parameter's name and its schema's bytes: tools whose schemas differ share the parameters they
# have in common (the node; what it adds to a list of parameters after the first, optional and
# required: values.later; the keywords it drops)
PARAMS: Dict[Tuple[Any, ...], Dict[Tuple[str, bytes], Tuple[Any, ...]]] = {}
PARAMS_SIZE = 4096  # parameters kept per format and builder


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
        # whether the part being built (Ctx.shaped) keeps its parameters in PARAMS: its schema
        # has no reference or definitions, and is the caller's where the request is not copied
        self.memo = False

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
            # a schema whose parameters stand alone: each is built from a copy of its own
            # (Ctx.items) and nothing else of the schema goes into the part, so the caller
            # changing its tools later cannot change the part kept
            alone = b"$ref" not in data and b"$defs" not in data and b"definitions" not in data
            if not self.private and not alone:
                # built from a copy of the schema of its own (kept alive with the Ctx: defs_of
                # keys on id)
                schema = marshal.loads(data)
                self._copies.append(schema)
            drop, self.drop = self.drop, Dropped()  # what the part drops, kept with it
            memo, self.memo = self.memo, alone
            try:
                node = part(FunctionTool(ANON, schema))
                dropped = tuple(self.drop.added)
            finally:
                self.drop, self.memo = drop, memo
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

    def items(
        self,
        build: Callable[[str, Any], n.Node],
        props: Sequence[Tuple[str, Any]],
        req: Set[str],
        sep: n.Node,
        variant: Any = "",
    ) -> Tuple[List[Tuple[n.Node, bool]], List[Tuple[n.Node, ...]]]:
        """The parameters of the part being built, as ``values.ordered`` takes them: each
        ``(build(k, schema), required)``, and each as the list holds it after its first item
        (``sep`` before it, optional unless required). Inside Ctx.shaped, for a schema whose
        parameters stand alone, each is kept across requests under the format, the builder
        (``build``'s code and ``variant``: what else it reads that is not the spec entry's),
        its name and its schema's bytes, and built from a copy of its schema: tools whose
        schemas differ share the parameters they have in common. The keywords a parameter
        drops are logged again at each use."""
        items: List[Tuple[n.Node, bool]] = []
        after: List[Tuple[n.Node, ...]] = []
        if not self.memo:
            for k, v in props:
                r = k in req
                node = build(k, v)
                items.append((node, r))
                after.append(later(node, sep, r))
            return items, after
        table_key = (self.name, build.__code__, variant)
        table = PARAMS.get(table_key)
        if table is None or len(table) >= PARAMS_SIZE:
            table = PARAMS[table_key] = {}
        dumps, drop = marshal.dumps, self.drop
        for k, v in props:
            key = (k, dumps(v))  # the whole schema's bytes were made: this cannot fail
            hit = table.get(key)
            if hit is None:
                added = drop.added
                start = len(added)
                node = build(k, v if self.private else marshal.loads(key[1]))
                # (node, its elements after the first item: optional, required; what it drops)
                ways = (later(node, sep, False), later(node, sep, True))
                hit = table[key] = (node, ways, tuple(added[start:]))
            elif hit[2]:
                for where, keyword in hit[2]:
                    drop.add(where, keyword)
            r = k in req
            items.append((hit[0], r))
            after.append(hit[1][r])
        return items, after

    def args(self, tool: FunctionTool) -> n.Node:
        """A JSON arguments object held to the tool's schema (any object when not strict)."""
        schema = tool.schema if isinstance(tool.schema, dict) else {"type": "object"}
        return n.json_schema(schema, "json", ARGS_WS)

"""Namespaced XML-element tool calls (twin of ``rust/formats/xml_elements.rs``; the format, the
decisions on its loose points and the conversion rules are listed there). MiniMax-M3 is the
model: every structural tag carries the namespace ``]<]minimax[>[``::

    NS<tool_call>
    NS<invoke name="N">
    NS<user_id>42NS</user_id>
    NS<items>NS<item>NS<sku>b1NS</sku>NS</item>NS</items>
    NS</invoke>
    NS</tool_call>

A parameter is an element named after it; elements nest (objects, or arrays whose items the chat
template writes as ``<item>``), typed by the tool's JSON Schema (the schema tree the facade builds
once per parser, :data:`Schemas`; without one, the parameter types of ``ToolTypes``). The call
starts with ``{`` when its name is complete; a string-typed parameter streams as it arrives, the
others are sent when they close, ``}`` when ``</invoke>`` closes the call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple, Union

from . import params
from .between import GO, HOLD, Held, Machine, Next, after_call, finish_after_call, text_until
from .event import Emitter
from .json import is_blank
from .params import ToolTypes
from .scan import NAME_MAX, WS, Markers, expect, expect_capped, trailing_ws

# The deepest element (a parameter is at depth 1), as vLLM's MAX_ELEMENT_DEPTH: deeper is malformed.
DEPTH_MAX = 128
# The field that keeps the text of an element that also holds elements ("$" is prefixed while a
# child has that name).
TEXT_FIELD = "$text"

# Schema nodes, as the facade passes them (function name -> list of nodes, node 0 the parameters
# object): (types, container, children, other). container: NONE, OBJECT or ARRAY; children:
# property name -> node index (objects); other: the node of the array's items or of the object's
# additionalProperties, or -1.
NONE, OBJECT, ARRAY = 0, 1, 2
SchemaNode = Tuple[List[str], int, Dict[str, int], int]
Schemas = Dict[str, List[SchemaNode]]


@dataclass
class Node:
    """A schema node as the machine uses it (the twin of ``Node`` in the Rust module)."""

    kind: params.Kind
    string_ok: bool  # the schema admits a string (or gives no type): an empty element is ""
    container: int
    children: Dict[str, int]
    other: int


def nodes_of(raw: List[SchemaNode]) -> List[Node]:
    out = []
    for types, container, children, other in raw:
        kind = params.kind_of_types(types)
        string_ok = kind == params.STR or (isinstance(kind, int) and bool(kind & params.T_STRING))
        out.append(Node(kind, string_ok, container, dict(children), other))
    return out


def flat_nodes(types: Mapping[str, List[str]]) -> List[Node]:
    """The nodes of a function known only by its parameters' types: a root object whose
    parameters are leaves (their children untyped)."""
    root = Node(params.STR, True, OBJECT, {}, -1)
    out = [root]
    for name, t in types.items():
        root.children[name] = len(out)
        out.append(Node(params.kind_of_types(t), True, NONE, {}, -1))
    return out


@dataclass
class Style:
    """A format's markers (built from the spec entry, as ``build.rs`` does)."""

    text: Markers  # [call_start]
    invoke: Markers  # [invoke_start]
    after: Markers  # [invoke_start, call_end]
    tag: Markers  # [namespace + "<"]
    inner: Markers  # [namespace + "<", namespace]
    open: str  # namespace + "<"
    invoke_end: str


def style_of(m: Mapping[str, str]) -> Style:
    ns = m["namespace"]
    return Style(
        text=Markers([m["call_start"]]),
        invoke=Markers([m["invoke_start"]]),
        after=Markers([m["invoke_start"], m["call_end"]]),
        tag=Markers([ns + "<"]),
        inner=Markers([ns + "<", ns]),
        open=ns + "<",
        invoke_end=m["invoke_end"],
    )


# What ends a function name: a quoted one at its quote, an unquoted one at ">" (the others make it
# not a call).
_NAME_STOP = {
    '"': re.compile(r"[<>\n\"]"),
    "'": re.compile(r"[<>\n']"),
    "": re.compile(r"[<>\n\"' \t\r]"),
}


def _blank(s: str) -> bool:
    return not s.strip(WS)


class XmlElements(Machine):
    def __init__(self, style: Style, tools: ToolTypes) -> None:
        self.style = style
        self.tools = tools
        self.schemas: Schemas = getattr(tools, "schemas", None) or {}
        # Text | Block | Name | Body | Tag | Inner | After | Fallback
        self.st = "Text"
        self.raw: List[str] = []  # Block, Name: the markup read so far
        self.quote: Optional[str] = None  # Name: '"', "'" or "" (unquoted); None: not yet seen
        self.name: List[str] = []  # Name: the function name; Tag: the tag's text so far
        self.func = ""
        # The elements of the open call: [name, text parts, children]; the top-level ones and
        # the open ones (innermost last).
        self.elems: List[list] = []
        self.stack: List[int] = []
        self.nodes: List[Node] = []  # the open call's schema nodes
        self.params = 0  # parameters written in the open call
        self.streaming = False  # the open parameter is a string sent as it arrives
        self.ws = Held()  # After: the whitespace read

    def _malformed(self, out: Emitter, i: int) -> Next:
        out.malformed = True
        self.st = "Fallback"
        return i, HOLD

    def _not_a_call(self, out: Emitter, text: str) -> None:
        out.content("".join(self.raw) + text)
        self.raw, self.name = [], []
        self.st = "Text"

    def step(self, s: str, i: int, out: Emitter) -> Next:
        style, st = self.style, self.st
        if st == "Text":
            which, i = text_until(style.text, s, i, out)
            if which == -1:
                return i, HOLD
            self.raw, self.st = [style.text.list[which]], "Block"
        elif st == "Block":
            return self.on_block(s, i, out)
        elif st == "Name":
            return self.on_name(s, i, out)
        elif st == "Body":
            kind, a, b = expect(s, style.tag, i)
            if kind == "wait":
                return i + a, HOLD
            if kind != "marker":
                # Text between the parameters: malformed.
                return self._malformed(out, i + a)
            i += b
            self.st, self.name = "Tag", []
        elif st == "Tag":
            return self.on_tag(s, i, out)
        elif st == "Inner":
            return self.on_inner(s, i, out)
        elif st == "After":
            kind, which, i = after_call(self.ws, s, i, style.after, out)
            if kind == "wait":
                return i, HOLD
            if kind == "marker" and which == 0:
                # The next call: the whitespace before it is content if it is not one.
                self.raw, self.ws = self.ws, Held()
                self.st, self.quote, self.name = "Name", None, []
            else:
                # The block's end; or none: the whitespace started the text.
                self.st, self.ws = "Text", Held()
        else:  # Fallback: the driver makes the rest content
            return i, HOLD
        return i, GO

    def on_block(self, s: str, i: int, out: Emitter) -> Next:
        """State Block: after the block start, whitespace and an invoke's start begin a call;
        anything else makes the block start content."""
        kind, a, b = expect_capped(s, self.style.invoke, i, trailing_ws("".join(self.raw)))
        if kind == "marker":
            self.raw.append(s[i : i + b])
            self.st, self.quote, self.name = "Name", None, []
            return i + b, GO
        self.raw.append(s[i : i + a])
        if kind == "wait":
            return i + a, HOLD
        # Not a call (other text, or whitespace past the cap): the block start was content.
        self._not_a_call(out, "")
        return i + a, GO

    def on_name(self, s: str, i: int, out: Emitter) -> Next:
        """State Name: its quote, then the function name up to its end; a complete one starts
        the call."""
        if self.quote is None:
            c = s[i]
            if c in "\"'":
                self.raw.append(c)
                self.quote = c
                return i + 1, GO
            self.quote = ""
            return i, GO
        n = len(s)
        stop = _NAME_STOP[self.quote].search(s, i)
        t = n if stop is None else stop.start()
        self.name.append(s[i:t])
        if sum(map(len, self.name)) > NAME_MAX:
            # A name past the cap: not a call.
            self._not_a_call(out, "".join(self.name))
            return t, GO
        if stop is None:
            return n, HOLD
        name = "".join(self.name)
        end = 1
        if self.quote:
            if s[t] == self.quote:
                if t + 1 == n:
                    return t, HOLD  # the quote at the end of the input: ">" may follow
                end = 2 if s[t + 1] == ">" else 0
            else:
                end = 0
        elif s[t] != ">":
            end = 0
        if end == 0 or is_blank(name):
            # Not a call: the markup was content; text goes on at the stop character.
            self._not_a_call(out, name)
            return t, GO
        self._call_start(name, out)
        return t + end, GO

    def _call_start(self, name: str, out: Emitter) -> None:
        """The call to ``name`` starts."""
        self.func = name
        self.raw, self.name = [], []
        self.elems, self.stack = [], []
        self.nodes, self.params = self._nodes(), 0
        out.tool_start(None, name)
        out.args("{")
        self.st = "Body"

    def on_tag(self, s: str, i: int, out: Emitter) -> Next:
        """State Tag: the tag up to ``>``; a complete one opens or closes an element."""
        p = s.find(">", i)
        t = len(s) if p == -1 else p
        self.name.append(s[i:t])
        if sum(map(len, self.name)) > NAME_MAX + 1:
            return self._malformed(out, t)
        if p == -1:
            return t, HOLD
        tag = "".join(self.name)
        self.name = []
        if self._tag(tag, out):
            return t + 1, GO
        return self._malformed(out, t + 1)

    def _tag(self, tag: str, out: Emitter) -> bool:
        """A complete tag (its text between ``NS<`` and ``>``) moves to the next state; False if
        it is malformed."""
        if tag.startswith("/"):
            if not self.stack:
                # At the top: only the call's end.
                if self.style.open + tag + ">" != self.style.invoke_end:
                    return False
                out.args("}")
                out.tool_end()
                self.st, self.ws = "After", Held()
            elif self.elems[self.stack[-1]][0] == tag[1:]:
                e = self.stack.pop()
                if not self.stack:
                    self._param_end(e, out)
                self.st = "Inner" if self.stack else "Body"
            else:
                # A closing tag of another element.
                return False
            return True
        if is_blank(tag) or len(self.stack) >= DEPTH_MAX or self.streaming:
            # (an element inside a string parameter that streams, too)
            return False
        e = len(self.elems)
        self.elems.append([tag, [], []])
        if self.stack:
            self.elems[self.stack[-1]][2].append(e)
        else:
            self._param_start(tag, out)
        self.stack.append(e)
        self.st = "Inner"
        return True

    def on_inner(self, s: str, i: int, out: Emitter) -> Next:
        """State Inner: an element's text up to the next ``NS`` (a streaming string's goes out as
        it comes, another's is kept)."""
        inner = self.style.inner
        kind, at, which = inner.find(s, i)
        if at and self.streaming:
            out.args(params.json_str_body(s[i : i + at]))
        elif at:
            self.elems[self.stack[-1]][1].append(s[i : i + at])
        if kind != "marker":
            return i + at, HOLD
        i += at + len(inner.list[which])
        if which != 0:
            # The namespace not followed by a tag.
            return self._malformed(out, i)
        self.st, self.name = "Tag", []
        return i, GO

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st in ("Block", "Name"):
            # Cut off before the call started: its markup so far.
            out.truncate("".join(self.raw) + "".join(self.name) + rest)
            self.raw, self.name = [], []
        elif st in ("Body", "Tag", "Inner"):
            # Cut off inside the call (its end never came): the call is unfinished.
            out.truncate("")
        elif st == "After":
            finish_after_call(rest, self.style.after, self.style.after.list[:1], out)

    # ----- the arguments, at the end of the call -----

    def _nodes(self) -> List[Node]:
        raw = self.schemas.get(self.func)
        if raw is not None:
            return nodes_of(raw)
        return flat_nodes(self.tools.get(self.func, {}))

    def _param_node(self, name: str) -> int:
        if not self.nodes:
            return -1
        root = self.nodes[0]
        return root.children.get(name, root.other)

    def _param_start(self, name: str, out: Emitter) -> None:
        """A parameter opens: a string one starts streaming."""
        nodes = self.nodes
        sub = self._param_node(name)
        nd = nodes[sub] if 0 <= sub < len(nodes) else None
        self.streaming = nd is not None and nd.container == NONE and nd.kind == params.STR
        if self.streaming:
            out.args((", " if self.params else "") + params.json_str(name) + ': "')
            self.params += 1

    def _param_end(self, e: int, out: Emitter) -> None:
        """Parameter element ``e`` closes: the end of its string, or its whole value."""
        if self.streaming:
            out.args('"')
            self.streaming = False
        else:
            name = self.elems[e][0]
            value = self._value(e, self.nodes, self._param_node(name))
            out.args((", " if self.params else "") + params.json_str(name) + ": " + value)
            self.params += 1
        self.elems = []

    def _object(
        self, fields: List[Tuple[str, Union[int, str]]], nodes: List[Node], node: int
    ) -> str:
        """An object of ``fields`` (a repeated name collects its values into a list, at its first
        place), typed by object node ``node`` (-1: untyped)."""
        nd = nodes[node] if 0 <= node < len(nodes) else None
        groups: Dict[str, List[str]] = {}
        for name, v in fields:
            sub = -1
            if nd is not None:
                sub = nd.children.get(name, nd.other)
            groups.setdefault(name, []).append(self._value(v, nodes, sub))
        parts = []
        for name, vals in groups.items():
            val = vals[0] if len(vals) == 1 else "[" + ", ".join(vals) + "]"
            parts.append(params.json_str(name) + ": " + val)
        return "{" + ", ".join(parts) + "}"

    def _value(self, v: Union[int, str], nodes: List[Node], node: int) -> str:
        """The JSON text of element ``v`` (or of mixed text ``v``), typed by ``node``."""
        nd = nodes[node] if 0 <= node < len(nodes) else None
        if isinstance(v, str):
            text, children = v, []
        else:
            _name, parts, children = self.elems[v]
            text = "".join(parts)
        if not children:
            if nd is None:
                return params.json_str(text)
            if nd.container != NONE and not nd.string_ok and _blank(text):
                # The template writes [] and {} as an empty element.
                return "[]" if nd.container == ARRAY else "{}"
            return params.convert(nd.kind, text)
        fields: List[Tuple[str, Union[int, str]]] = [(self.elems[c][0], c) for c in children]
        if not _blank(text):
            field = TEXT_FIELD
            while any(f == field for f, _ in fields):
                field = "$" + field
            fields.append((field, text))
        if nd is not None and nd.container == ARRAY:
            return "[" + ", ".join(self._value(x, nodes, nd.other) for _, x in fields) + "]"
        typed = nd is not None and nd.container == OBJECT
        return self._object(fields, nodes, node if typed else -1)

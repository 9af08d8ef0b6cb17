"""Constructors for the nodes of an xgrammar structural tag, as plain data (the JSON shape of
``xgrammar.StructuralTag``; xgrammar itself is never imported). Every builder writes its tag
through these, so the shapes live in one place."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

Node = Dict[str, Any]

# Whitespace the grammar admits where the format's layout may vary (between markers, around a
# JSON body): at most WS characters of space, tab or newline. The parser is more tolerant.
WS = 4
_WS_CLASS = r"[ \t\n]"


def const(value: str) -> Node:
    return {"type": "const_string", "value": value}


def regex(pattern: str) -> Node:
    return {"type": "regex", "pattern": pattern}


def ws(limit: int = WS) -> Node:
    """A bounded run of whitespace (possibly empty)."""
    return regex(f"{_WS_CLASS}{{0,{limit}}}")


def lit(text: str) -> str:
    """``text`` as a regex matching itself."""
    return re.escape(text).replace("\\ ", " ")


def ws_pattern(limit: int = WS) -> str:
    return f"{_WS_CLASS}{{0,{limit}}}"


def seq(*elements: Node) -> Node:
    """The elements one after another (nested sequences flattened, adjacent constants merged,
    empty constants dropped)."""
    out: List[Node] = []
    append = out.append
    last_const = False  # whether out[-1] is a constant
    for e in elements:
        kind = e["type"]
        if kind == "sequence":
            for p in e["elements"]:  # an inner sequence's own empty constants stay
                if p["type"] != "const_string":
                    append(p)
                    last_const = False
                elif last_const:
                    out[-1] = {"type": "const_string", "value": out[-1]["value"] + p["value"]}
                else:
                    append(p)
                    last_const = True
        elif kind != "const_string":
            append(e)
            last_const = False
        elif not e["value"]:
            continue
        elif last_const:
            out[-1] = {"type": "const_string", "value": out[-1]["value"] + e["value"]}
        else:
            append(e)
            last_const = True
    if not out:
        return const("")
    return out[0] if len(out) == 1 else {"type": "sequence", "elements": out}


def around(head: Optional[Node], node: Node, *tail: Node) -> Node:
    """``seq(head, node, *tail)`` (head ``None``: none), made directly where ``node`` is a
    sequence ``seq`` made (no two constants next to each other), ``head`` is no constant and
    no sequence and neither is any of ``tail``, bar a non-empty constant after a non-constant:
    a part's parameters between the pieces around them, without flattening them again."""
    if node["type"] == "sequence":
        elements = node["elements"]
        direct = head is None or head["type"] not in ("sequence", "const_string")
        last = elements[-1]["type"]
        for e in tail:
            kind = e["type"]
            if kind == "sequence" or (
                kind == "const_string" and (e["value"] == "" or last == "const_string")
            ):
                direct = False
            last = kind
        if direct:
            out = [head, *elements] if head is not None else [*elements]
            out.extend(tail)
            return {"type": "sequence", "elements": out}
    if head is None:
        return seq(node, *tail)
    return seq(head, node, *tail)


def prefixed(text: str, node: Node) -> Node:
    """``seq(const(text), node)``, made directly where ``node`` is a sequence ``seq`` made (no
    two constants next to each other): a call's name before the part every tool of its schema
    shares, once per tool."""
    if text and node["type"] == "sequence" and len(node["elements"]) > 1:
        elements = node["elements"]
        first = elements[0]
        if first["type"] == "const_string":
            head = {"type": "const_string", "value": text + first["value"]}
            return {"type": "sequence", "elements": [head, *elements[1:]]}
        return {"type": "sequence", "elements": [const(text), *elements]}
    return seq(const(text), node)


def or_(*elements: Node) -> Node:
    return elements[0] if len(elements) == 1 else {"type": "or", "elements": list(elements)}


def optional(content: Node) -> Node:
    return {"type": "optional", "content": content}


def star(content: Node) -> Node:
    return {"type": "star", "content": content}


def any_text(excludes: Sequence[str] = ()) -> Node:
    return {"type": "any_text", "excludes": [e for e in excludes if e]}


def tag(begin: str, content: Node, end: Any) -> Node:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def json_schema(schema: Any, style: str = "json", whitespace: Optional[int] = WS) -> Node:
    node: Node = {"type": "json_schema", "json_schema": schema, "style": style}
    if whitespace is not None:
        node["max_whitespace_cnt"] = whitespace
    return node


def triggered(
    triggers: Sequence[str],
    tags: Sequence[Node],
    *,
    at_least_one: bool = False,
    single: bool = False,
    excludes: Sequence[str] = (),
) -> Node:
    return {
        "type": "triggered_tags",
        "triggers": list(triggers),
        "tags": list(tags),
        "at_least_one": at_least_one,
        "stop_after_first": single,
        "excludes": [e for e in excludes if e],
    }


def one_or_more(item: Node, separator: Node, *, single: bool) -> Node:
    """``item (separator item)*``, or ``item`` alone when ``single``."""
    if single:
        return item
    return seq(item, star(seq(separator, item)))


def structural_tag(fmt: Node) -> Node:
    return {"type": "structural_tag", "format": fmt}

"""The fitter of the xml_elements family: an invoke element with the name as its attribute, one
element per parameter named after it, every tag behind a namespace (MiniMax M3's
``NS<invoke name="N">NS<KEY>VALUE NS</KEY>NS</invoke>``, NS being ``]<]minimax[>[``).

The pieces, found between the payloads (name, keys, values) of the renders: the namespace is the
text between a value and its closing tag (``</KEY>``), the same after every value; the invoke
start is the text from the last namespace before the name to the name's quote; the invoke end the
namespaced closing tag after the last parameter; the call start and end the text before the first
invoke and after the last one.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Sequence, Tuple

from .locate import NoFit, Turn, content_end, find_value, one

__all__ = ["fit_xml_elements"]

# a call: (name start, name end, [the text before each element's opening tag, and between its
# value and its closing tag], where its last closing tag (or the name's ">") ends)
_Invoke = Tuple[int, int, List[Tuple[str, str]], int]


def _invokes(turn: Turn, quotes: List[str]) -> List[_Invoke]:
    """Each call's name span, the text around its elements and where its last element ends;
    the quote after each name goes to ``quotes``."""
    text = turn.text
    out: List[_Invoke] = []
    at = content_end(turn)
    for name, args in turn.calls:
        n = text.find(name, at)
        if n < 0:
            raise NoFit(f"{turn.name}: the name {name} is not in the render")
        close = re.match(r"""(["']?)>""", text[n + len(name) :])
        if close is None:
            raise NoFit(f"{turn.name}: no '>' after the name {name}")
        quotes.append(close.group(1))
        at = n + len(name) + close.end()
        around = []
        for key, value in args.items():
            k = text.find(f"<{key}>", at)
            if k < 0:
                raise NoFit(f"{turn.name}: no element <{key}> in the render")
            v = find_value(text, value, k + len(key) + 2)
            if v is None or v[0] != k + len(key) + 2:
                raise NoFit(f"{turn.name}: the value of {key} does not follow <{key}>")
            c = text.find(f"</{key}>", v[1])
            if c < 0:
                raise NoFit(f"{turn.name}: no closing </{key}> in the render")
            around.append((text[at:k], text[v[1] : c]))
            at = c + len(key) + 3
        out.append((n, n + len(name), around, at))
    return out


def _gap_fits(gap: str, *markers: str) -> bool:
    """``gap`` is ``markers`` with whitespace (or nothing) between and around them."""
    return (
        re.fullmatch(r"\s*" + r"\s*".join(re.escape(m) for m in markers) + r"\s*", gap) is not None
    )


def fit_xml_elements(turns: Sequence[Turn]) -> Dict[str, Any]:
    """The namespace, call and invoke markers of the family, read from the renders."""
    quotes: List[str] = []
    heads: List[str] = []
    tails: List[str] = []
    gaps: List[str] = []
    around: List[Tuple[str, str]] = []
    for turn in turns:
        if not turn.calls:
            continue
        if turn.json_arguments:
            raise NoFit(f"{turn.name}: the template takes the arguments as a JSON string")
        invokes = _invokes(turn, quotes)
        for inv in invokes:
            around.extend(inv[2])
        heads.append(turn.text[content_end(turn) : invokes[0][0]])
        tails.append(turn.text[invokes[-1][3] :])
        gaps.extend(turn.text[a[3] : b[0]] for a, b in zip(invokes, invokes[1:]))
    if not around:
        raise NoFit("no render writes a parameter")
    ns = one([after for _, after in around], "the text between a value and its closing tag")
    if not ns or ns != ns.strip():
        raise NoFit(f"no namespace before the closing tags ({ns!r})")
    for before, _ in around:
        if before.strip() != ns:
            raise NoFit(f"{before!r} before an element, not the namespace {ns!r}")
    quote = one(quotes, "the quote after a name")
    head = one([h.strip() for h in heads], "the text before the calls")
    if not head.endswith(quote) or ns not in head:
        raise NoFit(f"the text before the calls ({head!r}) does not end with a namespaced tag")
    invoke_start = head[head.rfind(ns) : len(head) - len(quote)]
    call_start = head[: head.rfind(ns)].strip()
    tail = one([t.strip() for t in tails], "the text after the calls")
    closed = re.match(re.escape(ns) + r"</[^<>\s]+>", tail)
    if closed is None:
        raise NoFit(f"the text after the calls ({tail!r}) does not open with a closing tag")
    invoke_end = closed.group(0)
    call_end = tail[closed.end() :].strip()
    if not call_start or not call_end or not invoke_start.startswith(ns + "<"):
        raise NoFit(f"no call or invoke markers ({head!r}, {tail!r})")
    for gap in gaps:
        one_block = _gap_fits(gap, invoke_end, invoke_start + quote)
        if not one_block and not _gap_fits(
            gap, invoke_end, call_end, call_start, invoke_start + quote
        ):
            raise NoFit(f"between two calls: {gap!r}, not an invoke's end and the next's start")
    return {
        "family": "xml_elements",
        "markers": {
            "namespace": ns,
            "call_start": call_start,
            "call_end": call_end,
            "invoke_start": invoke_start,
            "invoke_end": invoke_end,
        },
        "call": {"shape": "xml_elements"},
        "arguments": "xml_elements_typed_by_schema",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the tool-call block",
        "special_tokens": [],
        "grammar": {"trigger": call_start},
    }

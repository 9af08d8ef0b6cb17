"""The fitter of the functionary family: a header (the call start, then the function's name up to
the name end) followed by the JSON arguments and, where the template writes one, a call end.

Two forms, told apart by the renders: every call written whole (v3.1's
``<function=NAME>{...}</function>``), or recipient messages after a prompt that ends with the
call start (v3.2's ``>>>``: the first message has no call start of its own, later ones start with
it, and the content is a message to a recipient whose header is markup, ``all\\n``).

The markers are the text around the payloads (the name and the arguments object, found by their
values): the name end between a name and its arguments, the call end after the last arguments,
the call start what remains between two calls.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Sequence

from .fit_json import _named_parts
from .locate import NoFit, Turn, one

__all__ = ["fit_functionary"]

# a header's name, as the family's machine reads it
_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _recipient(turns: Sequence[Turn], name_end: str) -> str:
    """The header of the content's message (v3.2's ``all``), from the turns with content: the
    text before the content, a name then the name end; "" when the content stands bare."""
    heads = []
    for turn in turns:
        if not turn.content:
            continue
        at = turn.text.find(turn.content)
        if at >= 0 and (not turn.calls or at < turn.text.find(turn.calls[0][0])):
            heads.append(turn.text[:at])
    head = one(heads, "the text before the content") if heads else ""
    if not head:
        return ""
    if not head.endswith(name_end) or not _NAME.fullmatch(head[: len(head) - len(name_end)]):
        raise NoFit(f"the text before the content, {head!r}, is not a header")
    return head[: len(head) - len(name_end)]


def fit_functionary(turns: Sequence[Turn]) -> Dict[str, Any]:
    """The functionary spec of the renders: calls written whole, or recipient messages where a
    turn starts at a name (the prompt having written the call start)."""
    heads, mids, tails, gaps = _named_parts(turns)
    if not gaps:
        raise NoFit("no render with two calls to tell the call start from the call end")
    name_end = one(mids, "the text between a name and its arguments")
    call_end = one(tails, "the text after the calls")
    gap = one(gaps, "the text between two calls")
    if not gap.startswith(call_end):
        raise NoFit(f"between two calls: {gap!r}, not the call end {call_end!r} first")
    call_start = gap[len(call_end) :].strip()
    if not call_start or not name_end:
        raise NoFit(f"no call start or name end ({call_start!r}, {name_end!r})")
    # the first call's header: the call start, or nothing where the prompt wrote it (then a call
    # after the content starts with it)
    bare = [h for h in heads if not h]
    if any(h not in ("", call_start) for h in heads):
        raise NoFit(f"the text before the calls is not {call_start!r}: {sorted(set(heads))!r}")
    by_prompt = bool(bare)
    recipient = _recipient(turns, name_end)
    call: Dict[str, Any] = {
        "shape": "recipient_messages" if by_prompt else "tagged_header_args",
        # a header that is not one (a name outside [A-Za-z0-9_-]): the renders cannot show
        # it; the family's text reading keeps it as content
        "bad_header": "text",
    }
    grammar: Dict[str, Any] = {"trigger": call_start}
    if recipient:
        if not by_prompt:
            raise NoFit(f"content under a header {recipient!r}, but calls written whole")
        call["content_recipient"] = recipient
    if by_prompt:
        call["starts_with_header"] = True
        grammar["messages"] = {
            "separator": call_start,
            "call": {"headers": ["{name}" + name_end], "end": [call_end]},
            "content": {"begin": [recipient + name_end if recipient else ""], "end": [""]},
        }
    markers = {"call_start": call_start, "name_end": name_end}
    if call_end:
        markers["call_end"] = call_end
    return {
        "family": "functionary",
        "markers": markers,
        "call": call,
        "arguments": "json_object",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "the messages to the content's recipient, and text after a call"
        if by_prompt
        else "text outside the calls",
        "special_tokens": [],
        "grammar": grammar,
    }

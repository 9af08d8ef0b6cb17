"""The fitter of the muse family: a sequence of messages, each a header naming its recipient and a
body; a tool's body holds XML-parameter calls (Muse's ATEM)::

     to=self<|message|>REASONING<|eom|><|start|>assistant to=NAME<|message|><atem:function_calls>
    <atem:invoke name="NAME">
    <atem:parameter name="K">V</atem:parameter>
    </atem:invoke>
    </atem:function_calls>

The prompt ends with ``<|start|>assistant``, so a turn starts at its first header's `` to=``.
Read from the renders (with their reasoning: the family's machine routes reasoning messages
itself): the recipient-naming header (``to=`` and a prefix before the name, then the message
marker), the recipients of the content and reasoning messages, the end of a message and the
start and role of the next (between the reasoning and a call, or between two calls), the end of
the turn (the template's stop token), and the calls' bodies, fitted as ``xml_params`` fits a
turn of its own.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .fit_xml import fit_xml_params
from .locate import NoFit, Turn, one, split_ws

__all__ = ["fit_muse"]

# a header's text before the message marker: whitespace, then to=RECIPIENT or nothing
_HEADER = re.compile(r"\s*(?:to=(\S+))?\s*")


def _recipient(header: str, message: str, what: str) -> str:
    """The recipient a header names ("" for none); ``header`` ends with the message marker."""
    if not header.endswith(message):
        raise NoFit(f"the {what} message's header {header!r} does not end with {message!r}")
    m = _HEADER.fullmatch(header[: len(header) - len(message)])
    if not m:
        raise NoFit(f"the {what} message's header {header!r} names no recipient")
    return m.group(1) or ""


# (recipient start, body start, body end) of each call's message in a turn's render
_Spans = List[Tuple[int, int, int]]


def _spans(turn: Turn, message: str) -> _Spans:
    """Where each call's message is: its recipient (the first place its name stands), its body
    (after the message marker that follows the name) up to the next recipient's header."""
    raw = turn.raw
    at = raw.find(turn.reasoning) + len(turn.reasoning) if turn.reasoning else 0
    starts = []
    for name, _ in turn.calls:
        r = raw.find(name, at)
        if r < 0 or not raw.startswith(message, r + len(name)):
            raise NoFit(f"{turn.name}: no header to={name}{message}")
        starts.append(r)
        at = r + len(name) + len(message)
        if raw.find(name, at) < 0:
            raise NoFit(f"{turn.name}: the name {name} is not in the call's body")
    out = []
    for i, (r, (name, _)) in enumerate(zip(starts, turn.calls)):
        body = r + len(name) + len(message)
        out.append((r, body, starts[i + 1] if i + 1 < len(starts) else len(raw)))
    return out


def _between(text: str, prefix: str) -> Tuple[str, str, str]:
    """The text between two messages (``<|eom|><|start|>assistant to=``) as the end of the first,
    the start marker and the role of the second."""
    m = re.fullmatch(r"(.*?)\s*to=" + re.escape(prefix), text, re.S)
    if not m:
        raise NoFit(f"{text!r} does not end with the next header's to={prefix}")
    parts = split_ws(m.group(1))
    if len(parts) != 2:
        raise NoFit(f"cannot tell the message end and the next header in {text!r}")
    role = re.fullmatch(r"(.*[>\]|])([A-Za-z_][\w-]*)", parts[1])
    if not role:
        raise NoFit(f"no start marker and role in {parts[1]!r}")
    return parts[0], role.group(1), role.group(2)


def _bodies(turns: Sequence[Turn], message: str) -> Tuple[List[Turn], List[str]]:
    """The body of each turn's last call as a turn of its own (it runs to the end of the render),
    and the text from each other call's body up to the next recipient."""
    bodies: List[Turn] = []
    gaps: List[str] = []
    for turn in turns:
        if not turn.calls:
            continue
        spans = _spans(turn, message)
        for (_r, b, e), call in zip(spans, turn.calls):
            if e < len(turn.raw):
                gaps.append(turn.raw[b:e])
            else:
                bodies.append(Turn(turn.name, turn.raw[b:e], "", (call,), turn.json_arguments))
    return bodies, gaps


def fit_muse(turns: Sequence[Turn]) -> List[Dict[str, Any]]:
    calls = [t for t in turns if t.calls and t.raw]
    single = [t for t in calls if len(t.calls) == 1 and not t.reasoning]
    if not single:
        raise NoFit("no render with one call and no reasoning")
    name = single[0].calls[0][0]
    raw = single[0].raw
    r = raw.find(name)
    pre = raw[:r]
    m = re.fullmatch(r"\s*to=(\S*)", pre)
    if not m:
        raise NoFit(f"the call's header {pre!r} does not name its recipient with to=")
    prefix = m.group(1)
    after = split_ws(raw[r + len(name) :])
    if not after:
        raise NoFit("nothing follows the recipient")
    message = after[0]
    if name in message or not message.startswith(("<", "[")):
        raise NoFit(f"no message marker after the recipient: {message!r}")
    bodies, gaps = _bodies(calls, message)
    atem = fit_xml_params(bodies)[0]
    xm = atem["markers"]
    body_end = xm.get("call_end") or xm["function_end"]
    seps: List[str] = []
    reasoning_to: Optional[str] = None
    for t in calls:
        if t.reasoning:
            at = t.raw.find(t.reasoning)
            reasoning_to = _recipient(t.raw[:at], message, "reasoning")
            first = t.raw.find(t.calls[0][0], at + len(t.reasoning))
            seps.append(t.raw[at + len(t.reasoning) : first])
    for gap in gaps:
        cut = gap.rfind(body_end)
        nxt = gap[cut + len(body_end) :] if cut >= 0 else ""
        if not nxt:
            raise NoFit(f"a call's body does not end with {body_end!r}: {gap!r}")
        seps.append(nxt)
    if not seps:
        raise NoFit("no render with a message after another")
    end, start, role = _between(one(seps, "the text between messages"), prefix)
    content_to = []
    for t in turns:
        if not t.calls and t.content and t.raw:
            at = t.raw.find(t.content)
            content_to.append(_recipient(t.raw[:at], message, "content"))
    if not content_to:
        raise NoFit("no render with content alone")
    content_r = one(content_to, "the content's recipient")
    end_turn = one([t.turn_end for t in turns], "the end of a turn")
    if not end_turn or end_turn == end:
        raise NoFit("the template ends no turn with a stop token of its own")
    recipients: Dict[str, List[str]] = {"reasoning": [], "content": [content_r]}
    if reasoning_to is not None:
        recipients["reasoning"] = [reasoning_to]
    markers = {"start": start, "message": message, "end": end, "end_turn": end_turn}
    markers.update(xm)
    header = f" to={prefix}{{name}}{message}"

    def begin(r: str) -> str:
        return f" to={r}{message}" if r else message

    messages: Dict[str, Any] = {
        "separator": start + role,
        "call": {"headers": [header], "end": [end_turn, end, ""]},
        "content": {"begin": [begin(content_r)], "end": [end, end_turn]},
    }
    if reasoning_to is not None:
        messages["reasoning"] = {"begin": [begin(reasoning_to)], "end": [end]}
    spec = {
        "family": "muse",
        "markers": markers,
        "call": {
            "shape": "recipient_xml_parameters",
            "role": role,
            "recipients": recipients,
            "value_newlines": atem["call"]["value_newlines"],
            "calls_per_section": atem["call"]["calls_per_section"],
        },
        "arguments": atem["arguments"],
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "the content recipient's messages; the reasoning recipient's are "
        "reasoning; other recipients are tools",
        "special_tokens": [],
        "grammar": {"trigger": start + role, "messages": messages},
    }
    # a value that is not a string is written as JSON (the probes' integer is): read as JSON
    # unless the schema types the parameter as a string, as muse reads it; else as xml_params
    # types values (by the schema alone)
    json_first = json.loads(json.dumps(spec))
    json_first["arguments"] = "xml_parameters_json_unless_schema_string"
    return [json_first, spec]

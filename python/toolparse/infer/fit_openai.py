"""The fitter of the openai family (harmony, gpt-oss): a sequence of messages, each a header with
a channel, an optional recipient and content type, then a body::

    <|channel|>analysis<|message|>REASONING<|end|>
    <|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{ARGS}<|call|>

(one line: the line break here is for the page).

The family's machine fixes the words (the role ``assistant``; the channels ``analysis``,
``commentary`` and ``final``; ``to=`` before a recipient): the renders give the markers around
them. Read from the renders (with their reasoning: the machine routes the analysis channel
itself): the channel and message markers around the channel names of the content, reasoning and
call headers; the prefix before a function's name in its recipient; the end of a message and the
start of the next (between the reasoning and the call); the call's end after its JSON arguments;
the template's stop token, which ends the final message (``return``). A header's content-type
marker (``<|constrain|>json``) is read where a header writes one; a template that writes a bare
``json`` never shows it, and the family needs one: it is spelled as the channel marker is, with
``constrain`` for ``channel`` (harmony's special tokens), and no render holds it.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .locate import NoFit, Turn, json_values, one, split_ws

__all__ = ["fit_openai"]

#: the machine's channels and role (rust/formats/openai.rs, reference/openai.py)
CHANNELS = ("analysis", "commentary", "final")
ROLE = "assistant"

_NAMES = "|".join(CHANNELS)


def _header(text: str, what: str) -> Tuple[str, str, str]:
    """A header without a recipient (``<|channel|>final<|message|>``): (channel marker, channel,
    message marker)."""
    m = re.fullmatch(rf"\s*(\S+?)({_NAMES})(\S+)", text)
    if not m:
        raise NoFit(f"the {what} message's header {text!r} names no harmony channel")
    return m.group(1), m.group(2), m.group(3)


def _call_header(text: str, name: str, channel: str, message: str) -> Tuple[str, str, str]:
    """A call's header: (the prefix before the name, its channel, the content-type marker or
    "")."""
    name, channel, message = re.escape(name), re.escape(channel), re.escape(message)
    recipient = rf"to=(?P<prefix>\S*?){name}"
    m = re.fullmatch(
        rf"\s*{recipient}{channel}(?P<chan>{_NAMES})(?P<ctype>.*?){message}", text, re.S
    ) or re.fullmatch(
        rf"\s*{channel}(?P<chan>{_NAMES})\s+{recipient}(?P<ctype>.*?){message}", text, re.S
    )
    if not m:
        raise NoFit(f"the call's header {text!r} is not a harmony header naming the function")
    prefix, chan, ctype = m.group("prefix"), m.group("chan"), m.group("ctype")
    kind = re.fullmatch(r"\s*(?:(\S+?)json|json)?\s*", ctype)
    if not kind:
        raise NoFit(f"the call's content type {ctype!r} is not json")
    return prefix, chan, kind.group(1) or ""


def _call(turn: Turn, channel: str, message: str) -> Tuple[str, str, str, str]:
    """The call's header in ``turn`` (after the reasoning) with its name as ``{name}``, the
    prefix before the name, the content-type marker and the call's end marker."""
    raw = turn.raw
    at = raw.find(turn.reasoning) + len(turn.reasoning) if turn.reasoning else 0
    name, args = turn.calls[0]
    n = raw.find(name, at)
    found = [(s, e) for s, e, v in json_values(raw, n) if v == args] if n >= 0 else []
    if not found:
        raise NoFit(f"{turn.name}: no JSON arguments after {name}")
    start = raw.rfind(" to=", at, n)  # the header: from its recipient or its channel marker
    head_at = min(i for i in (raw.find(channel, at), start) if i >= 0)
    header = raw[head_at : found[0][0]]
    prefix, _, constrain = _call_header(header, name, channel, message)
    if len(turn.calls) > 1:
        raise NoFit(f"{turn.name}: more than one call in a turn is not fitted")
    end = split_ws(raw[found[0][1] :])
    if len(end) != 1:
        raise NoFit(f"{turn.name}: the call's end {raw[found[0][1] :]!r} is not one marker")
    return header.replace(name, "{name}", 1), prefix, constrain, end[0]


def fit_openai(turns: Sequence[Turn]) -> Dict[str, Any]:
    plain = [t for t in turns if not t.calls and t.content and t.raw]
    if not plain:
        raise NoFit("no render with content alone")
    heads = [_header(t.raw[: t.raw.find(t.content)], "content") for t in plain]
    channel, final, message = (
        one([h[i] for h in heads], "the content's header") for i in (0, 1, 2)
    )
    if final == "analysis":
        raise NoFit("the content is written on the analysis channel")
    calls = [t for t in turns if t.calls and t.raw]
    if not calls:
        raise NoFit("no render with a call")
    found = [_call(t, channel, message) for t in calls]
    header = one([f[0].lstrip() for f in found], "the call's header")
    prefix, constrain, call_end = (
        one([f[i] for f in found], "the call's header") for i in (1, 2, 3)
    )
    seps: List[str] = []
    for t in calls:
        if not t.reasoning:
            continue
        at = t.raw.find(t.reasoning)
        c, name, msg = _header(t.raw[:at], "reasoning")
        if (c, name, msg) != (channel, "analysis", message):
            raise NoFit(f"the reasoning's header {t.raw[:at]!r} is not the analysis channel's")
        rest = t.raw[at + len(t.reasoning) :]
        first = rest.find(header.split("{name}")[0].strip() or "to=")
        seps.append(rest[: first if first >= 0 else len(rest)])
    if not seps:
        raise NoFit("no render with a reasoning message before a call")
    parts = split_ws(one(seps, "the text after the reasoning"))
    if len(parts) != 2 or not parts[1].endswith(ROLE) or parts[1] == ROLE:
        raise NoFit(f"no message end, start marker and role {ROLE!r} in {parts!r}")
    end, start = parts[0], parts[1][: -len(ROLE)]
    ret = one([t.turn_end for t in turns], "the end of a turn")
    if not ret or ret in (end, call_end):
        raise NoFit("the template ends no turn with a stop token of its own")
    if not constrain:
        constrain = _constrain(channel)
    markers = {
        "start": start,
        "channel": channel,
        "message": message,
        "end": end,
        "call": call_end,
        "return": ret,
        "constrain": constrain,
    }
    lead = " " if header.startswith("to=") else ""
    return {
        "family": "openai",
        "markers": markers,
        "call": {"shape": "recipient", "name_prefix": prefix},
        "arguments": "json_object",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "final and commentary channel text without a recipient; analysis is reasoning",
        "special_tokens": [],
        "grammar": {
            "trigger": start + ROLE,
            "messages": {
                "separator": start + ROLE,
                "call": {"headers": [lead + header], "end": [call_end]},
                "reasoning": {"begin": f"{channel}analysis{message}", "end": [end]},
                "content": {"begin": f"{channel}{final}{message}", "end": [end, ret]},
            },
        },
    }


def _constrain(channel: str) -> str:
    """The content-type marker no render shows, spelled as the channel marker is."""
    word: Optional[re.Match[str]] = re.fullmatch(r"(\W*)channel(\W*)", channel)
    if not word:
        raise NoFit(f"no header writes a content-type marker, and {channel!r} spells no other")
    return f"{word.group(1)}constrain{word.group(2)}"

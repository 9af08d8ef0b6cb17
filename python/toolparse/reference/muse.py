"""Muse (Muse Spark, Muse Glimmer) (twin of ``rust/formats/muse.rs``, which documents the format
and the decisions on its loose points).

The output is a sequence of messages, each a header naming a recipient and a body; bodies
addressed to a tool hold ATEM calls (XML parameters, read by the :class:`XmlParams` machine)::

     to=self<|message|>REASONING<|eom|>
    <|start|>assistant to=TOOL<|message|><atem:function_calls>
    <atem:invoke name="tool.fn">
    <atem:parameter name="arg">VALUE</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|>
    <|start|>assistant to=user<|message|>ANSWER<|eot|>

A header is ``<|start|>``, whitespace, the role, horizontal whitespace, an optional
``to=RECIPIENT``, then ``<|message|>``; inside a body that is not a tool's, ``<|message|>`` opens a
new message whose recipient is the ``to=NAME`` right before it. A body ends at ``<|eom|>``,
``<|eot|>`` or the next ``<|start|>``. The :class:`Frame` (the spec's ``call.recipients``) says
which recipients are reasoning and which content; every other one is a tool. Held back: a possible
marker prefix and the end of a body that could still be a header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Mapping, Optional, Tuple

from .between import GO, HOLD, Machine, Next, transitions
from .event import Emitter
from .openai import HEADER_MAX, WAIT, finish_outside, outside
from .params import ToolTypes
from .scan import NAME_MAX, WS, WS_MAX, Markers
from .xml_params import Style, XmlParams

if TYPE_CHECKING:
    from ..spec_types import Call

START, MESSAGE = 0, 1  # 2 and 3: <|eom|> and <|eot|>, the message ends
_RECIPIENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


@dataclass
class Frame:
    """A format's framing (built from the spec entry, as ``build.rs`` does)."""

    markers: Markers  # [start, message, end, end_turn]
    role: str  # the role every header names
    reasoning: Tuple[str, ...]  # recipients whose bodies are reasoning ("": no recipient)
    content: Tuple[str, ...]  # recipients whose bodies are content
    atem: Style  # the ATEM tool calls in a tool's body


def frame_of(m: Mapping[str, str], call: Call, atem: Style) -> Frame:
    """The frame of a spec entry's markers and ``call`` object (the twin of ``build.rs``)."""
    if call.recipients is None or call.role is None:
        raise ValueError("a muse format needs call.role and call.recipients")
    return Frame(
        Markers([m["start"], m["message"], m["end"], m["end_turn"]]),
        call.role,
        call.recipients.reasoning,
        call.recipients.content,
        atem,
    )


def tail_start(s: str) -> int:
    """Where the end of body text ``s`` that could still become a header starts: the longest
    suffix made of " " / "\\t" (at most WS_MAX) then "t", "to", or "to=" and at most NAME_MAX
    recipient characters (each part may be empty)."""
    end = len(s)
    q = end
    while q > 0 and end - q <= NAME_MAX and s[q - 1] in _RECIPIENT:
        q -= 1
    if end - q <= NAME_MAX and s.endswith("to=", 0, q):
        word = q - 3
    elif s.endswith("to"):
        word = end - 2
    elif s.endswith("t"):
        word = end - 1
    else:
        word = end
    w = word
    while w > 0 and word - w < WS_MAX and s[w - 1] in " \t":
        w -= 1
    return w


def tail_header(tail: str) -> Tuple[int, Optional[str]]:
    """At ``<|message|>`` after body text whose possible header is ``tail``: how much of ``tail``
    is body text, and the header's recipient (None: a bare header)."""
    word = tail.lstrip(" \t")
    if word.startswith("to=") and len(word) > 3:
        return 0, word[3:]
    if not word:
        return 0, None  # whitespace right before a bare <|message|> is header text
    return len(tail), None  # "t", "to", "to=": body text


def parse(h: str, role: str) -> Tuple[bool, Optional[str]]:
    """The recipient of a complete header text (after ``<|start|>``): (False, None) when the text
    is not a header, (True, None) when it has no recipient."""
    t = h.lstrip(WS)
    if not t.startswith(role):
        return False, None
    t = t[len(role) :].lstrip(" \t")
    if not t:
        return True, None
    if not t.startswith("to="):
        return False, None
    r = t[3:]
    ok = 0 < len(r) <= NAME_MAX and all(c in _RECIPIENT for c in r)
    return (True, r) if ok else (False, None)


def _emit(out: Emitter, reasoning: bool, s: str) -> None:
    if reasoning:
        out.reasoning(s)
    else:
        out.content(s)


class Muse(Machine):
    def __init__(self, frame: Frame, tools: ToolTypes) -> None:
        self.frame = frame
        self.tools = tools
        # Outside | Header | Body | Tool | Fallback
        self.st = "Outside"
        self.raw = ""  # Outside: the whitespace read; Header: what was read before its text
        self.first = True  # Outside: at the start of the output
        self.head: List[str] = []  # Header: its text (content with raw if it fails)
        self.chars = 0  # Header: the length of its text
        self.reasoning = False  # Body: where its text goes
        self.tail = ""  # Body: its end that could still be a header
        self.x: Optional[XmlParams] = None  # Tool: the ATEM machine

    def _route(self, recipient: Optional[str]) -> None:
        """Enters the state a header with ``recipient`` leads to."""
        r = recipient or ""
        f = self.frame
        if r in f.reasoning or r in f.content:
            self.st, self.reasoning, self.tail = "Body", r in f.reasoning, ""
        else:
            self.st, self.x = "Tool", XmlParams(f.atem, self.tools)

    def _header(self, raw: str = "") -> None:
        """A header starts after ``raw`` (what was read before it: whitespace)."""
        self.st, self.raw = "Header", raw + self.frame.markers.list[START]
        self.head, self.chars = [], 0

    def _outside(self) -> None:
        self.st, self.raw, self.first = "Outside", "", False

    def _names_tool(self, h: str) -> bool:
        """Whether a (possibly cut-off) header text names a tool."""
        t = h.lstrip(WS)
        if t.startswith(self.frame.role):
            t = t[len(self.frame.role) :]
        t = t.lstrip(" \t")
        if not t.startswith("to="):
            return False
        r = t[3:]
        return bool(r) and r not in self.frame.reasoning and r not in self.frame.content

    def _body_text(self, out: Emitter, s: str) -> None:
        """Body text ``s`` after the held tail: sends all but the end that could be a header."""
        if not self.tail:
            k = tail_start(s)
            _emit(out, self.reasoning, s[:k])
            self.tail = s[k:]
        else:
            self.tail += s
            k = tail_start(self.tail)
            if k > 0:
                _emit(out, self.reasoning, self.tail[:k])
                self.tail = self.tail[k:]

    def step(self, s: str, i: int, out: Emitter) -> Next:
        # The transition that leaves the state (the arms of Rust's `match`).
        return _STEPS[self.st](self, s, i, out)

    def on_outside(self, s: str, i: int, out: Emitter) -> Next:
        """At the start of the output or after a message end: whitespace, then a header (or
        text)."""
        markers = self.frame.markers
        what, j = outside(markers, s, i, len(self.raw), "")
        self.raw += s[i:j]
        if what == WAIT:
            return j, HOLD
        raw, self.raw = self.raw, ""
        if what in (START, MESSAGE):
            if what == START:
                self._header(raw)
            else:
                self._route(None)
            return j + len(markers.list[what]), GO
        if what >= 0:
            # A stray end marker: it goes to content with everything after it.
            out.malformed = True
            out.content(raw)
            self.st = "Fallback"
        else:
            # Text (perhaps the first header's "to="): a content body.
            self.st, self.reasoning, self.tail = "Body", False, ""
            self._body_text(out, raw)
        return j, GO

    def on_header(self, s: str, i: int, out: Emitter) -> Next:
        """A header after ``<|start|>``, up to ``<|message|>``."""
        kind, at, which = self.frame.markers.find(s, i)
        self.head.append(s[i : i + at])
        self.chars += at
        j = i + at
        if kind != "marker" and self.chars <= HEADER_MAX:
            return j, HOLD
        text = "".join(self.head)
        self.head = []
        ok, r = (
            parse(text, self.frame.role)
            if which == MESSAGE and self.chars <= HEADER_MAX
            else (False, None)
        )
        if ok:
            self._route(r)
            return j + len(self.frame.markers.list[MESSAGE]), GO
        # Not a header (or too long for one): its text and what follows are content.
        out.malformed = True
        out.content(self.raw + text)
        self.st = "Fallback"
        return j, GO

    def on_body(self, s: str, i: int, out: Emitter) -> Next:
        """A reasoning or content body (or text outside messages: content), up to its end."""
        reasoning = self.reasoning
        markers = self.frame.markers
        kind, at, which = markers.find(s, i)
        self._body_text(out, s[i : i + at])
        if kind != "marker":
            return i + at, HOLD
        tail, self.tail = self.tail, ""
        if which == MESSAGE:
            body_len, recipient = tail_header(tail)
            _emit(out, reasoning, tail[:body_len])
            self._route(recipient)
        elif which == START:
            _emit(out, reasoning, tail)
            self._header()
        else:
            _emit(out, reasoning, tail)
            self._outside()
        return i + at + len(markers.list[which]), GO

    def on_tool(self, s: str, i: int, out: Emitter) -> Next:
        """A tool's body: ATEM calls, up to the message's end."""
        x = self.x
        assert x is not None
        markers = self.frame.markers
        kind, at, which = markers.find(s, i)
        seg = s[i : i + at]
        k = x.feed(seg, out)
        if out.malformed:
            # The ATEM machine fell back: the driver makes the rest content.
            self.st = "Fallback"
            return i + k, HOLD
        if kind != "marker":
            return i + k, HOLD
        if which == MESSAGE or not x.idle():
            # A tool's body ends inside a call, or <|message|> in it: malformed.
            out.malformed = True
            self.st = "Fallback"
            return i + k, HOLD
        x.finish(seg[k:], out)
        self.x = None
        if which == START:
            self._header()
        else:
            self._outside()
        return i + at + len(markers.list[which]), GO

    def on_fallback(self, s: str, i: int, out: Emitter) -> Next:
        """After malformed markup: the driver makes the rest content."""
        return i, HOLD

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st == "Outside":
            finish_outside(self.raw, self.first, rest, out)
        elif st == "Header":
            # A header cut off by the end of the text: the markup of an unfinished call when it
            # names a tool; else content.
            text = "".join(self.head) + rest
            self.head = []
            if self._names_tool(text):
                out.truncate(self.raw + text)
            else:
                out.content(self.raw + text)
        elif st == "Body":
            _emit(out, self.reasoning, self.tail + rest)
            self.tail = ""
        elif st == "Tool":
            assert self.x is not None
            self.x.finish(rest, out)
        else:
            out.content(rest)


_STEPS = transitions(Muse, "Outside Header Body Tool Fallback")

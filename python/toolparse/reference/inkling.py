"""Inkling's typed message blocks (twin of ``rust/formats/inkling.rs``; the rules are in its
module doc): ``<|message_model|>``, an optional header, a content-kind marker (thinking, text, raw
tool text, tool error, a JSON tool call), the body and ``<|end_message|>``. Thinking blocks are
reasoning: this machine separates them itself (the reasoning format ``inkling`` names it)."""

from __future__ import annotations

from typing import Optional, Sequence

from .between import GO, HOLD, Machine, Next, text_until
from .event import Emitter, Trail
from .json import CallKeys, Calls
from .region import Region
from .scan import NAME_MAX, Markers

# Style.blocks positions
MESSAGE, THINKING, CALL, END, END_SAMPLING = 0, 4, 5, 6, 7
# Style.thinking positions (the others are end markers)
T_THINKING, T_CALL = 0, 1


class Style:
    """The markers and call keys of one format of the family: ``blocks`` is what a header and
    content are scanned for (``message_start``, ``text_start``, ``tool_text_start``,
    ``tool_error_start``, ``thinking_start``, ``call_start``, ``end``, ``end_sampling``); a
    thinking block scans for the last four."""

    def __init__(self, blocks: Sequence[str], keys: CallKeys) -> None:
        self.blocks = Markers(blocks)
        self.thinking = Markers(list(blocks)[THINKING:])
        self.keys = keys


class Inkling(Machine):
    def __init__(self, style: Style) -> None:
        self.style = style
        # Header | Content | Thinking | Call | Fallback
        self.st = "Header"
        self.held = ""  # Header: the header text so far
        self.chars = 0  # Header: its characters
        self.trail: Optional[Trail] = None  # Thinking
        self.region: Optional[Region] = None  # Call

    def _open(self, which: int) -> None:
        """Enters the state marker ``which`` of ``blocks`` opens."""
        if which == MESSAGE:
            self.st, self.held, self.chars = "Header", "", 0
        elif which == THINKING:
            self.st, self.trail = "Thinking", Trail()
        elif which == CALL:
            self._call()
        else:
            self.st = "Content"

    def _call(self) -> None:
        calls = Calls.object(self.style.keys, False)
        self.st, self.region = "Call", Region(calls, self.style.blocks.list[CALL], False)

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st = self.st
        if st == "Header":
            return self.on_header(s, i, out)
        elif st == "Content":
            which, i = text_until(self.style.blocks, s, i, out)
            if which == -1:
                return i, HOLD
            self._open(which)
        elif st == "Thinking":
            return self.on_thinking(s, i, out)
        elif st == "Call":
            r, k = self.region.feed(s, out, i)  # type: ignore[union-attr]
            if r == "more":
                return len(s), HOLD
            self.st = "Content" if r == "done" else "Fallback"
            i += k
        else:  # Fallback: the driver makes the rest content
            return i, HOLD
        return i, GO

    def on_header(self, s: str, i: int, out: Emitter) -> Next:
        """After ``<|message_model|>``: metadata up to a content-kind marker (dropped), or
        content."""
        blocks = self.style.blocks
        kind, at, which = blocks.find(s, i)
        text = s[i : i + at]
        k = self.chars + len(text)
        if k > NAME_MAX:
            # Too long for a header: a text block without its markers.
            out.content(self.held)
            out.content(text)
            self.held = ""
            self.st = "Content"
            return i + at, GO
        if kind != "marker":
            self.held += text
            self.chars = k
            return i + at, HOLD
        if which == MESSAGE:
            self.held += text
            self.chars = k
        elif which in (END, END_SAMPLING):
            out.content(self.held)
            out.content(text)
            self.held = ""
            self.st = "Content"
        else:
            self.held = ""
            self._open(which)
        return i + at + len(blocks.list[which]), GO

    def on_thinking(self, s: str, i: int, out: Emitter) -> Next:
        """A thinking block: reasoning up to its end (or a call)."""
        thinking = self.style.thinking
        kind, at, which = thinking.find(s, i)
        trail = self.trail
        assert trail is not None
        trail.emit(s[i : i + at], out)
        if kind != "marker":
            return i + at, HOLD
        if which != T_THINKING:
            trail.close()
            if which == T_CALL:
                self._call()
            else:
                self.st = "Content"
        return i + at + len(thinking.list[which]), GO

    def start_in_reasoning(self) -> None:
        """The prompt ended with ``<|content_thinking|>``: the output starts in a thinking
        block."""
        self.st, self.trail = "Thinking", Trail()

    def finish(self, rest: str, out: Emitter) -> None:
        if self.st == "Header":
            out.content(self.held)
            out.content(rest)
            self.held = ""
        elif self.st == "Thinking":
            self.trail.emit(rest, out)  # type: ignore[union-attr]
            self.trail.close()  # type: ignore[union-attr]
        elif self.st == "Call":
            self.region.finish(rest, out)  # type: ignore[union-attr]
        else:
            out.content(rest)

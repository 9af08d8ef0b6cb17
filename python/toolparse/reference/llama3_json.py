"""Llama 3.x JSON tool calls (twin of ``rust/formats/llama3_json.rs``): an optional
``<|python_tag|>``, then ``{"name": N, "parameters": {...}}`` objects separated by ``;``. A ``{`` in
plain text starts a tentative object that becomes a call only if it has a name and an arguments
member; otherwise it was content all along."""

from __future__ import annotations

from typing import Optional

from .between import GO, HOLD, Machine, Next, text_until
from .event import Emitter
from .json import CALL_KEYS, Calls
from .params import ToolTypes
from .region import Region
from .scan import Markers, ws_len


class Style:
    """A format's markers (from its spec entry, as ``build.rs`` writes them for Rust)."""

    __slots__ = ("separator", "text")

    def __init__(self, text: Markers, separator: str) -> None:
        self.text = text  # the call start (`<|python_tag|>`), then an object's start in text
        self.separator = separator  # between calls


def new(style: Style, _: ToolTypes) -> Llama3Json:
    return Llama3Json(style)


class Llama3Json(Machine):
    def __init__(self, style: Style) -> None:
        self.st = "Text"  # Text | Call | After | Next | Fallback
        self.region: Optional[Region] = None
        self.style = style

    def step(self, s: str, i: int, out: Emitter) -> Next:
        n = len(s)
        text, separator = self.style.text, self.style.separator
        st = self.st
        if st == "Text":
            which, i = text_until(text, s, i, out)
            if which == 0:
                tag, bare = text.list[0], False
                self.st, self.region = "Call", Region(Calls.object(CALL_KEYS, bare), tag, bare)
            elif which != -1:
                # The call object's `{`: read again, by the region.
                i -= len(text.list[which])
                self.st, self.region = "Call", Region(Calls.object(CALL_KEYS, True), "", True)
            else:
                return i, HOLD
        elif st == "Call":
            region = self.region
            assert region is not None
            r, k = region.feed(s, out, i)
            if r == "more":
                return n, HOLD
            i += k
            if r == "done":
                self.st = "After" if region.is_call() else "Text"
            else:
                self.st = "Fallback" if out.malformed else "Text"
        elif st == "After":
            # Whitespace goes to content, where the emitter drops it unless text follows.
            ws = ws_len(s, i)
            out.content(s[i : i + ws])
            i += ws
            if s.startswith(separator, i):
                i += len(separator)
                self.st = "Next"
            elif i < n:
                self.st = "Text"
        elif st == "Next":
            i += ws_len(s, i)
            if i == n:
                return n, HOLD
            self.st, self.region = "Call", Region(Calls.object(CALL_KEYS, False), "", False)
        else:  # Fallback: the driver makes the rest content
            return i, HOLD
        return i, GO

    def finish(self, rest: str, out: Emitter) -> None:
        if self.st in ("Text", "Fallback", "After"):
            out.content(rest)
        elif self.st == "Call":
            self.region.finish(rest, out)  # type: ignore[union-attr]

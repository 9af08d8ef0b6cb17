"""JSON tool calls between markers (twin of ``rust/formats/tagged_json.rs``): ``START {call} END``
(hermes and its relatives) or ``START [{call}, ...] END``."""

from __future__ import annotations

from typing import Sequence

from . import Region
from .event import Emitter
from .json import CALL_KEYS, Calls
from .scan import Markers, expect


class Tags:
    """The markers of one tagged-JSON format: ``[start]`` or ``[start, end]``."""

    def __init__(self, markers: Sequence[str], array: bool) -> None:
        self.markers = Markers(markers)
        self.array = array


class TaggedJson:
    def __init__(self, tags: Tags) -> None:
        self.tags = tags
        self.start = Markers(tags.markers.list[:1])
        self.st = "Text"  # Text | Body | After | Fallback
        self.ws = ""  # After: whitespace read after the body
        self.region: Region | None = None

    def _body(self, opener: str) -> None:
        calls = Calls.array_of(CALL_KEYS) if self.tags.array else Calls.object(CALL_KEYS, False)
        self.st, self.region = "Body", Region(calls, opener, False)

    def feed(self, s: str, out: Emitter) -> int:
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Text":
                kind, at, which = self.start.find(s, i)
                out.content(s[i : i + at])
                if kind == "marker":
                    m = self.start.list[which]
                    i += at + len(m)
                    self._body(m)
                else:
                    return i + at
            elif st == "Body":
                r, k = self.region.feed(s, out, i)  # type: ignore[union-attr]
                if r == "more":
                    return n
                i += k
                self.st, self.ws = ("After", "") if r == "done" else ("Fallback", "")
            elif st == "After":
                kind, a, b = expect(s, self.tags.markers, i)
                if kind == "marker" and a == 0:
                    # Another call with the previous one's end marker missing.
                    i += b
                    self._body(self.tags.markers.list[0])
                elif kind == "marker":
                    i += b
                    self.st = "Text"
                elif kind == "wait":
                    self.ws += s[i : i + a]
                    return i + a
                else:
                    # No end marker: the whitespace starts the text.
                    out.content(self.ws + s[i : i + a])
                    i += a
                    self.st = "Text"
            else:  # Fallback: the driver makes the rest content
                return i
        return n

    def finish(self, rest: str, out: Emitter) -> None:
        if self.st in ("Text", "Fallback"):
            out.content(rest)
        elif self.st == "Body":
            self.region.finish(rest, out)  # type: ignore[union-attr]
        # After: a truncated end marker; the call is complete, the rest is its markup.

"""JSON tool calls after a start marker (twin of ``rust/formats/tagged_json.rs``): ``START {call}
END`` (hermes, granite4, longcat, internlm, gigachat3) or ``START [{call}, ...] END`` (jamba,
hunyuan_a13b, granite, phi4_mini_json), configured by :class:`Tags` from the spec entry (see the
Rust module for the rules)."""

from __future__ import annotations

from typing import Sequence

from . import Region
from .event import Emitter
from .json import CallKeys, Calls
from .scan import Markers, expect


class Tags:
    """How one tagged-JSON format writes its calls: the start markers then the end marker (if
    any), how many are start markers, array or object body, and the call keys."""

    def __init__(
        self,
        markers: Sequence[str],
        starts: int,
        array: bool,
        keys: CallKeys,
        tentative: bool = False,
    ) -> None:
        self.markers = Markers(markers)
        self.starts = starts
        self.array = array
        self.keys = keys
        # a start marker not followed by calls is text (else malformed markup)
        self.tentative = tentative


class TaggedJson:
    def __init__(self, tags: Tags) -> None:
        self.tags = tags
        self.start = Markers(tags.markers.list[: tags.starts])
        self.st = "Text"  # Text | Body | After | Fallback
        self.ws = ""  # After: whitespace read after the body
        self.region: Region | None = None

    def _body(self, opener: str) -> None:
        keys = self.tags.keys
        calls = Calls.array_of(keys) if self.tags.array else Calls.object(keys, False)
        self.st, self.region = "Body", Region(calls, opener, self.tags.tentative)

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
                if kind == "marker" and a < self.tags.starts:
                    # Another call with the previous one's end marker missing.
                    i += b
                    self._body(self.tags.markers.list[a])
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

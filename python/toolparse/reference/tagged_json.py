"""JSON tool calls after a start marker (twin of ``rust/formats/tagged_json.rs``): ``START {call}
END`` (hermes, granite4, longcat, internlm, gigachat3) or ``START [{call}, ...] END`` (jamba,
hunyuan_a13b, granite, phi4_mini_json, cohere_command3/4; ``{NAME: {...}}`` calls in apertus),
configured by :class:`Tags` from the spec entry (see the Rust module for the rules)."""

from __future__ import annotations

from typing import Sequence

from . import Region
from .event import Emitter
from .json import CallKeys, Calls
from .scan import WS_MAX, Markers, expect


class Tags:
    """How one tagged-JSON format writes its calls: the end markers then the start markers, how
    many are end markers, array or object body, the call keys, and whether a start marker not
    followed by calls is text."""

    def __init__(
        self,
        markers: Sequence[str],
        ends: int,
        array: bool,
        keys: CallKeys,
        tentative: bool = False,
        wrappers: Sequence[str] = (),
    ) -> None:
        self.markers = Markers(markers)
        self.ends = ends
        self.array = array
        self.keys = keys
        # a start marker not followed by calls is text (else malformed markup)
        self.tentative = tentative
        # what plain text is scanned for: the start markers, then the content's wrapper markers
        # (dropped)
        self.text = Markers(list(markers[ends:]) + list(wrappers))


class TaggedJson:
    def __init__(self, tags: Tags) -> None:
        self.tags = tags
        self.st = "Text"  # Text | Body | After | Fallback
        self.ws = ""  # After: whitespace read after the body
        self.region: Region | None = None

    def _skip(self, m: str) -> int:
        """How much of start marker ``m`` the body does not read itself (its own ``[`` it does)."""
        return 0 if self.tags.array and m == "[" else len(m)

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
                kind, at, which = self.tags.text.find(s, i)
                out.content(s[i : i + at])
                if kind == "marker" and which >= len(self.tags.markers.list) - self.tags.ends:
                    # A wrapper of the content: markup, dropped.
                    i += at + len(self.tags.text.list[which])
                elif kind == "marker":
                    m = self.tags.text.list[which]
                    k = self._skip(m)
                    i += at + k
                    self._body(m[:k])
                else:
                    return i + at
            elif st == "Body":
                region = self.region
                r, k = region.feed(s, out, i)  # type: ignore[union-attr]
                if r == "more":
                    return n
                i += k
                if r == "done":
                    # A tentative body that held no call went back to content.
                    self.st = "After" if region.is_call() else "Text"  # type: ignore[union-attr]
                    self.ws = ""
                else:
                    # A tentative body that failed before a call started is text: scanning goes
                    # on from the offending character.
                    self.st = "Fallback" if out.malformed else "Text"
            elif st == "After":
                kind, a, b = expect(s, self.tags.markers, i)
                n_ws = b - len(self.tags.markers.list[a]) if kind == "marker" else a
                if kind != "other" and len(self.ws) + n_ws > WS_MAX:
                    # Whitespace past the cap after a call: it is text, and so is what follows.
                    out.content(self.ws + s[i : i + n_ws])
                    self.ws = ""
                    i += n_ws
                    self.st = "Text"
                elif kind == "marker" and a >= self.tags.ends:
                    # Another call with the previous one's end marker missing.
                    m = self.tags.markers.list[a]
                    k = self._skip(m)
                    i += b - len(m) + k
                    self._body(m[:k])
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

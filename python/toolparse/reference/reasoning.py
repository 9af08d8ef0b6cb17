"""The think-block front every format machine shares (twin of ``rust/reasoning.rs``; the rules
are in its module doc): run by the driver in the same pass as the tool machine."""

from __future__ import annotations

from typing import Optional, Tuple

from ..spec import FormatSpec, ReasoningSpec
from .event import BlockRule, Emitter, Label
from .scan import WS, Markers

# The most whitespace held before a start marker at the beginning of the output.
LEAD_CAP = 64

LEAD = "Lead"  # at the beginning of an output whose block the prompt did not open
INSIDE = "Inside"  # inside the think block
PREFIX = "Prefix"  # before the output of a format that puts a content prefix before it
AFTER = "After"  # after the end marker, while the content shows only what content_lstrip drops


def blocks(spec: ReasoningSpec, format: Optional[FormatSpec]) -> Optional[BlockRule]:
    """The rule of the blocks that open anywhere in the content (``blocks_anywhere``), for tool
    format ``format`` (its spec entry); None for other formats."""
    if not spec.blocks_anywhere:
        return None
    return BlockRule(spec.scan(format), len(spec.ends), spec.starts, spec.label, spec.trim)


def front(
    spec: ReasoningSpec, format: Optional[FormatSpec], started: Optional[bool]
) -> Optional[Front]:
    """The front for ``spec`` paired with tool format ``format`` (its spec entry); None when it
    is transparent."""
    if spec.tool_format is not None or not spec.start or not spec.end:
        return None
    started = spec.started if started is None else started
    if not started and spec.markers_off_when_disabled:
        return None
    scan = spec.scan(format)
    return Front(Markers(scan), spec, started)


def _longest(markers: Tuple[str, ...], text: str) -> Optional[str]:
    """The longest of ``markers`` that ``text`` begins with."""
    return max((m for m in markers if text.startswith(m)), key=len, default=None)


class Front:
    """The front's state for one response."""

    def __init__(self, markers: Markers, spec: ReasoningSpec, started: bool) -> None:
        self.markers = markers
        self.spec = spec
        self.state = PREFIX if spec.content_prefix else INSIDE if started else LEAD
        self.held = ""
        self.label = Label(spec.label, spec.trim)  # the reasoning: its label, trailing whitespace
        if self.state == INSIDE:
            self.label.open()

    def feed(self, text: str, out: Emitter) -> Optional[str]:
        """None while the front keeps the text; the rest for the tool machine once the block is
        over (or never opened)."""
        buf = self.held + text if self.held else text
        self.held = ""
        if self.state == LEAD:
            return self._lead(buf, out)
        if self.state == PREFIX:
            out.content(self.spec.content_prefix)
            return buf
        if self.state == AFTER:
            return self._after(buf)
        return self._inside(buf, out)

    def _after(self, buf: str) -> Optional[str]:
        """After the end marker: the characters ``content_lstrip`` drops at the start of the
        content are consumed; the rest, from the first other character, goes to the machine."""
        if not self.spec.content_lstrip:
            return buf
        rest = buf.lstrip(self.spec.content_lstrip)
        if not rest:
            self.state = AFTER
            return None
        return rest

    def _lead(self, buf: str, out: Emitter) -> Optional[str]:
        rest = buf.lstrip(WS)
        ws = len(buf) - len(rest)
        if ws > LEAD_CAP:
            return buf
        starts = self.spec.starts
        if any(len(s) > len(rest) and s.startswith(rest) for s in (*starts, *self._leading_ends())):
            # Whitespace, or whitespace and a proper prefix of a start marker (or of an end
            # marker that is markup only here): wait.
            self.held += buf
            return None
        found = _longest(starts, rest)
        if found is not None:
            self.state = INSIDE
            self.label.open()
            return self._inside(rest[len(found) :], out)
        end = _longest(self._leading_ends(), rest)
        if end is not None:
            # stray_end_text: the end marker that leads the output is markup
            return rest[len(end) :]
        return buf

    def _leading_ends(self) -> Tuple[str, ...]:
        """The end markers that are markup where they lead the output, outside a block
        (``stray_end_text``; elsewhere outside a block they are text)."""
        return self.spec.ends if self.spec.stray_end_text else ()

    def _inside(self, buf: str, out: Emitter) -> Optional[str]:
        pos = 0
        while True:
            kind, at, which = self.markers.find(buf, pos)
            if kind == "marker":
                self.label.emit(buf[pos : pos + at], out)
                n = len(self.markers.list[which])
                ends = len(self.spec.ends)
                if which < ends:
                    self.label.close(out)
                    return self._after(buf[pos + at + n :])
                if which < ends + len(self.spec.starts):
                    pos += at + n
                    continue
                self.label.close(out)
                return buf[pos + at :]
            self.label.emit(buf[pos : pos + at], out)
            self.held += buf[pos + at :]
            return None

    def finish(self, out: Emitter) -> str:
        """End of text: what the tool machine still gets; a block left open is reasoning."""
        held, self.held = self.held, ""
        if self.state == LEAD:
            # text held because a longer start marker might follow opens a block when it begins
            # with a shorter one (<|channel>thought at the end of the output)
            rest = held.lstrip(WS)
            found = _longest(self.spec.starts, rest)
            if found is None:
                end = _longest(self._leading_ends(), rest)
                return held if end is None else rest[len(end) :]
            self.state = INSIDE
            self.label.open()
            after = self._inside(rest[len(found) :], out)
            if after is not None:
                return after
            return self.finish(out)
        if self.state == PREFIX:
            out.content(self.spec.content_prefix)
            return held
        if self.state == AFTER:
            return ""
        which = self.markers.starts(held)
        if which >= 0:
            # a marker held because a longer one might have extended it (hunyuan's </think>
            # before \n<answer>) is that marker at the end of the text
            n = len(self.markers.list[which])
            ends = len(self.spec.ends)
            if which < ends:
                self.label.close(out)
                return self._after(held[n:]) or ""
            if which >= ends + len(self.spec.starts):
                self.label.close(out)
                return held
            after = self._inside(held[n:], out)
            return after if after is not None else self.finish(out)
        self.label.emit(held, out)
        self.label.close(out)
        return ""

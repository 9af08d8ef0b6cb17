"""The think-block front every format machine shares (twin of ``rust/reasoning.rs``; the rules
are in its module doc): run by the driver in the same pass as the tool machine."""

from __future__ import annotations

from typing import Optional

from ..spec import SPECS, ReasoningSpec
from .event import Emitter
from .scan import WS, Markers

# The most whitespace held before a start marker at the beginning of the output.
LEAD_CAP = 64

LEAD = "Lead"  # at the beginning of an output whose block the prompt did not open
INSIDE = "Inside"  # inside the think block


def front(spec: ReasoningSpec, format: Optional[str], started: Optional[bool]) -> Optional[Front]:
    """The front for ``spec`` paired with tool format ``format``; None when it is transparent."""
    if spec.tool_format is not None or not spec.start or not spec.end:
        return None
    scan = spec.scan(SPECS[format] if format is not None else None)
    return Front(Markers(scan), spec.start, spec.started if started is None else started)


class Front:
    """The front's state for one response."""

    def __init__(self, markers: Markers, start: str, started: bool) -> None:
        self.markers = markers
        self.start = start
        self.state = INSIDE if started else LEAD
        self.held = ""

    def feed(self, text: str, out: Emitter) -> Optional[str]:
        """None while the front keeps the text; the rest for the tool machine once the block is
        over (or never opened)."""
        buf = self.held + text if self.held else text
        self.held = ""
        if self.state == LEAD:
            return self._lead(buf, out)
        return self._inside(buf, out)

    def _lead(self, buf: str, out: Emitter) -> Optional[str]:
        rest = buf.lstrip(WS)
        ws = len(buf) - len(rest)
        if rest.startswith(self.start):
            self.state = INSIDE
            return self._inside(rest[len(self.start) :], out)
        if ws <= LEAD_CAP and self.start.startswith(rest):
            # Whitespace, or whitespace and a proper prefix of the start marker: wait.
            self.held += buf
            return None
        return buf

    def _inside(self, buf: str, out: Emitter) -> Optional[str]:
        pos = 0
        while True:
            kind, at, which = self.markers.find(buf, pos)
            if kind == "marker":
                out.reasoning(buf[pos : pos + at])
                n = len(self.markers.list[which])
                if which == 0:
                    return buf[pos + at + n :]
                if which == 1:
                    pos += at + n
                    continue
                return buf[pos + at :]
            out.reasoning(buf[pos : pos + at])
            self.held += buf[pos + at :]
            return None

    def finish(self, out: Emitter) -> str:
        """End of text: what the tool machine still gets; a block left open is reasoning."""
        held, self.held = self.held, ""
        if self.state == LEAD:
            return held
        out.reasoning(held)
        return ""

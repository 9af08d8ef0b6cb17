"""A region of tool-call JSON after a start marker, read by the JSON-calls families (twin of
``rust/formats/region.rs``)."""

from __future__ import annotations

from .event import Emitter
from .json import DONE, MORE, Calls
from .scan import HOLD_MAX

# First window of text a region reads before its call starts; it doubles while none starts.
_WINDOW = 256


class Region:
    """A region of tool-call JSON after a start marker. Until the first call has started, the
    text read is kept, so a region that turns out malformed (or, when ``tentative``, not a call at
    all) goes back to content whole. At most ``HOLD_MAX`` characters are kept: a region whose call
    has not started by then fails there. ``feed`` returns ("more", 0), ("done", n) or
    ("failed", n)."""

    def __init__(self, calls: Calls, opener: str, tentative: bool) -> None:
        self.calls = calls
        self.raw = [opener]
        self.held = len(opener)  # the characters in raw
        self.tentative = tentative

    def feed(self, s: str, out: Emitter, start: int = 0) -> tuple:
        """Reads ``s[start:]``; offsets in the result are relative to ``start``."""
        n = len(s)
        i = start
        # Before the call starts, read no more than one character past the cap, in doubling
        # windows of the text (so a long text with many calls is not copied whole for each).
        w = _WINDOW
        while not self.calls.started():
            end = min(n, i + w, i + max(HOLD_MAX + 1 - self.held, 0))
            piece = s if (i, end) == (0, n) else s[i:end]
            r, k = self.calls.feed(piece, out)
            used = end - i if r == MORE else k
            if not self.calls.started():
                self.raw.append(piece[:used])
                self.held += used
            else:
                self.raw = []
            if r != MORE:
                return self._end(r, i + k - start, out)
            i = end
            if not self.calls.started() and self.held > HOLD_MAX:
                self._fail(out)
                return ("failed", i - start)
            if i == n:
                return ("more", 0)
            w *= 2
        # The call started: the rest is read uncapped.
        r, k = self.calls.feed(s, out, i)
        if r == MORE:
            return ("more", 0)
        return self._end(r, i + k - start, out)

    def _end(self, r: str, n: int, out: Emitter) -> tuple:
        """The calls ended (``r``: done or error) after ``n`` characters of this input."""
        if r == DONE and self.is_call():
            return ("done", n)
        if r == DONE and self.tentative:
            # Plain JSON in text that is not a call: it was content all along.
            out.content("".join(self.raw))
            self.raw = []
            return ("done", n)
        # JSON after a start marker that is not a call: malformed markup.
        self._fail(out)
        return ("failed", n)

    def _fail(self, out: Emitter) -> None:
        if self.calls.started():
            out.malformed = True
        else:
            if not self.tentative:
                out.malformed = True
            out.content("".join(self.raw))
            self.raw = []

    def finish(self, rest: str, out: Emitter) -> None:
        """End of text inside the region: the call it holds is truncated. A tentative region whose
        call has not started may be plain text: it stays content."""
        self.raw.append(rest)
        raw, self.raw = "".join(self.raw), []
        if self.tentative and not self.calls.started():
            out.content(raw)
        else:
            out.truncate(raw)

    def is_call(self) -> bool:
        """Whether the region held calls. An empty list holds none: after a start marker it is
        malformed markup (its text is not lost), in a tentative region it was text."""
        return self.calls.is_call() and self.calls.started()

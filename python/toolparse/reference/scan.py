"""Marker scanning across delta boundaries (twin of ``rust/scan.rs``).

Text before a marker is safe to emit; a suffix that is a proper prefix of some marker is held back,
so hold-back is bounded by the longest marker.

Where a machine must see a token whole before it can emit anything, the token is capped (the
constants below, the same as in ``rust/scan.rs``, which documents them): past the cap the markup is
malformed and the text is content. The caps count characters, at the same place in the text however
it was split into deltas.
"""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple

WS = " \t\n\r"

# The longest function name, keyword or call-object key read, in characters as written.
NAME_MAX = 256
# The longest run of whitespace read between markup tokens, in characters.
WS_MAX = 4096
# The most text of a JSON call region held before its call starts (1 Mi characters).
HOLD_MAX = 1 << 20

# find() results: ("marker", at, which) or ("partial", safe, -1)
Found = Tuple[str, int, int]
# expect() results: ("marker", which, end), ("wait", ws, -1) or ("other", at, -1)
Expect = Tuple[str, int, int]


_WS_RUN = re.compile(r"[ \t\n\r]*")


def ws_len(s: str, start: int = 0) -> int:
    """Length of the JSON whitespace at ``s[start:]``."""
    if start >= len(s):
        return 0
    return _WS_RUN.match(s, start).end() - start  # type: ignore[union-attr]


class Markers:
    """A set of marker strings looked for together."""

    def __init__(self, markers: Sequence[str]) -> None:
        self.list = tuple(markers)
        # one search for any marker's first character (a `find` per character would rescan the
        # text to its end for a character that never occurs)
        # (an empty marker has no first character and is never found, as in Rust: a llama3_json
        # format whose template writes no call start)
        firsts = sorted({m[0] for m in self.list if m})
        # (an empty set never matches)
        chars = "".join(re.escape(c) for c in firsts)
        self._firsts = re.compile("[" + chars + "]" if chars else "(?!)")

    def _next_candidate(self, s: str, start: int) -> int:
        m = self._firsts.search(s, start)
        return -1 if m is None else m.start()

    def find(self, s: str, start: int = 0) -> Found:
        """The earliest marker in ``s[start:]`` (the longest when several start at the same
        place); positions are relative to ``start``."""
        pos = start
        while True:
            at = self._next_candidate(s, pos)
            if at == -1:
                return ("partial", len(s) - start, -1)
            which = self.starts(s, at)
            left = len(s) - at
            # a marker that a longer one extends waits until the input shows which it is
            if any(left < len(m) and m.startswith(s[at:]) for m in self.list):
                return ("partial", at - start, -1)
            if which != -1:
                return ("marker", at - start, which)
            pos = at + 1

    def could_start(self, s: str) -> bool:
        """Whether ``s`` is a proper prefix of a marker."""
        return any(len(m) > len(s) and m.startswith(s) for m in self.list)

    def starts(self, s: str, at: int = 0) -> int:
        """Index of the (longest) marker ``s[at:]`` starts with, or -1."""
        best = -1
        for i, m in enumerate(self.list):
            if s.startswith(m, at) and (best == -1 or len(self.list[best]) < len(m)):
                best = i
        return best


def strip_all(markers: Markers, s: str) -> str:
    """``s`` without any of ``markers`` (the earliest first, the longest at a place): the markup a
    parser drops wherever it stands in content, applied to a whole text at once."""
    out: List[str] = []
    pos = 0
    while True:
        kind, at, which = markers.find(s, pos)
        if kind == "marker":
            out.append(s[pos : pos + at])
            pos += at + len(markers.list[which])
            continue
        # (a suffix that could still become a marker is text: the text is whole)
        out.append(s[pos:])
        return "".join(out)


def expect(s: str, markers: Markers, start: int = 0) -> Expect:
    """Optional whitespace, then one of ``markers``, at ``s[start:]``; positions are relative to
    ``start``."""
    ws = ws_len(s, start)
    at = start + ws
    if at == len(s):
        return ("wait", ws, -1)
    # a longer marker may still follow (xlam's ``` and ```json): wait
    if len(s) - at < max(len(m) for m in markers.list) and markers.could_start(s[at:]):
        return ("wait", ws, -1)
    which = markers.starts(s, at)
    if which != -1:
        return ("marker", which, ws + len(markers.list[which]))
    return ("other", ws, -1)


def trailing_ws(s: str) -> int:
    """The whitespace at the end of ``s`` (markup read since its last marker)."""
    return len(s) - len(s.rstrip(WS))


def expect_capped(s: str, markers: Markers, start: int, held: int) -> Expect:
    """:func:`expect` where the whitespace continues a run of ``held`` characters read before
    ``s[start:]`` (markup between tokens, capped by ``WS_MAX``): a run that passes the cap before
    a marker is ``("other", at, -1)`` at its end, as if other text stood there."""
    e = expect(s, markers, start)
    kind, a, b = e
    if kind == "other":
        return e
    ws = b - len(markers.list[a]) if kind == "marker" else a
    return ("other", ws, -1) if held + ws > WS_MAX else e
